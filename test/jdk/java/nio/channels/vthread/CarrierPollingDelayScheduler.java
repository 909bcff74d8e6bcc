/*
 * Copyright (c) 2026, ET-JDK contributors. All rights reserved.
 * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.
 *
 * This code is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License version 2 only, as
 * published by the Free Software Foundation.
 *
 * This code is distributed in the hope that it will be useful, but WITHOUT
 * ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or
 * FITNESS FOR A PARTICULAR PURPOSE.  See the GNU General Public License
 * version 2 for more details (a copy is included in the LICENSE file that
 * accompanied this code).
 *
 * You should have received a copy of the GNU General Public License version
 * 2 along with this work; if not, write to the Free Software Foundation,
 * Inc., 51 Franklin St, Fifth Floor, Boston, MA 02110-1301 USA.
 */

/*
 * @test id=mode4-p1
 * @summary Carrier polling (jdk.pollerMode=4) wakes the default scheduler's delay
 *     scheduler lazily: not for a timeout due after the time it parks until, nor
 *     for a cancelled one, at most LAZY_PEND_LIMIT in a row; a timeout due before
 *     that time still wakes it, also in a race with timeouts that are cancelled;
 *     other pools' delay schedulers are woken as upstream
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch java.base/java.lang:open
 *     java.base/java.util.concurrent:open
 * @library lib
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4
 *     -Djdk.virtualThreadScheduler.parallelism=1 CarrierPollingDelayScheduler
 */

/*
 * @test id=mode4-p2
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch java.base/java.lang:open
 *     java.base/java.util.concurrent:open
 * @library lib
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4
 *     -Djdk.virtualThreadScheduler.parallelism=2 CarrierPollingDelayScheduler
 */

import java.lang.reflect.Field;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import etjdk.poller.CarrierPollerWaits;

/**
 * A holder virtual thread parks with a timeout far beyond every watchdog, so the
 * delay scheduler parks until then. A timeout it was not woken for would wait for
 * the holder's: the test's bounded waits (CarrierPollerWaits) report that as a hang.
 */
public class CarrierPollingDelayScheduler {
    private static final long HOLD_NANOS = TimeUnit.MINUTES.toNanos(30);
    private static final int CANCELLED_TIMEOUTS = 10_000;
    private static final int CONCURRENT_PENDERS = 4;    // platform threads, each
    private static final int CONCURRENT_TIMEOUTS = 2_500; // ... cancelling these
    private static final int RACE_ROUNDS = 2_000;
    private static final int LAZY_PEND_LIMIT;           // DelayScheduler's
    static {
        try {
            LAZY_PEND_LIMIT = (int) field(Class.forName("java.util.concurrent.DelayScheduler"),
                    "LAZY_PEND_LIMIT").get(null);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Object scheduler = delayScheduler();
        Thread holder = Thread.ofVirtual().start(() -> LockSupport.parkNanos(HOLD_NANOS));
        CarrierPollerWaits.await(() -> restingWhen(scheduler) != Long.MAX_VALUE,
                "the delay scheduler to park until the holder's timeout");

        // an earlier timeout wakes it
        Thread sleeper = Thread.ofVirtual().start(CarrierPollingDelayScheduler::sleep1ms);
        CarrierPollerWaits.join(sleeper, "a 1 ms sleep while the delay scheduler"
                + " parks until a 30 min timeout (an earlier timeout must wake it)");

        // a timeout due after its own does not wake it: once it is inactive (it
        // clears "active" only after taking what it was signalled for), the task
        // is still pending
        CarrierPollerWaits.await(() -> pendingTasks(scheduler) == 0,
                "the delay scheduler to take the sleeper's timeout");
        parkAndUnpark();
        CarrierPollerWaits.await(() -> intField(scheduler, "active") == 0,
                "the delay scheduler to be inactive after a timeout due after its own");
        if (pendingTasks(scheduler) == 0) {
            throw new RuntimeException("the delay scheduler took a timeout due after"
                    + " its own: it was woken for it");
        }

        // timeouts cancelled before they are due: each pends without waking it
        // until LAZY_PEND_LIMIT did; more than that pending means it was signalled
        // (the counter may lag the queue by one), so it must then take them
        int mostPending = 0;
        for (int i = 1; i <= CANCELLED_TIMEOUTS; i++) {
            parkAndUnpark();
            int pending = pendingTasks(scheduler);
            mostPending = Math.max(mostPending, pending);
            if (pending > LAZY_PEND_LIMIT) {
                int n = i;
                CarrierPollerWaits.await(() -> pendingTasks(scheduler) < LAZY_PEND_LIMIT,
                        "the delay scheduler to take its pending queue of " + pending
                        + " tasks after " + n + " cancelled timeouts");
            }
        }

        // the same from several threads at once
        Thread[] penders = new Thread[CONCURRENT_PENDERS];
        for (int p = 0; p < penders.length; p++) {
            penders[p] = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < CONCURRENT_TIMEOUTS; i++) {
                        parkAndUnpark();
                    }
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
        }
        for (Thread p : penders) {
            CarrierPollerWaits.join(p, "a thread cancelling " + CONCURRENT_TIMEOUTS
                    + " timeouts beside " + (CONCURRENT_PENDERS - 1) + " others");
        }
        CarrierPollerWaits.await(() -> pendingTasks(scheduler) < LAZY_PEND_LIMIT,
                "fewer than " + LAZY_PEND_LIMIT + " tasks pending after "
                + CONCURRENT_PENDERS + " threads cancelled " + CONCURRENT_TIMEOUTS
                + " timeouts each (" + pendingTasks(scheduler) + " when the wait began)");

        // a race: earlier timeouts pended while later ones are added and cancelled
        for (int round = 0; round < RACE_ROUNDS; round++) {
            Thread s = Thread.ofVirtual().start(CarrierPollingDelayScheduler::sleep1ms);
            parkAndUnpark();
            CarrierPollerWaits.join(s, "round " + round + " of " + RACE_ROUNDS
                    + ": a 1 ms sleep beside a timeout that is added and cancelled");
        }

        LockSupport.unpark(holder);
        CarrierPollerWaits.join(holder, "the holder, unparked");

        // any other pool's delay scheduler is signalled for every pend
        try (ForkJoinPool other = new ForkJoinPool(1)) {
            other.schedule(() -> { }, 0, TimeUnit.NANOSECONDS)
                    .get(CarrierPollerWaits.WATCHDOG_SECONDS, TimeUnit.SECONDS);
            Object ds = field(ForkJoinPool.class, "delayScheduler").get(other);
            if ((boolean) field(ds.getClass(), "lazyWakeups").get(ds)) {
                throw new RuntimeException("a pool of its own wakes its delay scheduler lazily");
            }
        }
        System.out.println("at most " + mostPending + " pending; an earlier timeout, "
                + CANCELLED_TIMEOUTS + " + "
                + CONCURRENT_PENDERS + " x " + CONCURRENT_TIMEOUTS
                + " cancelled timeouts and " + RACE_ROUNDS + " race rounds");
    }

    private static void sleep1ms() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    /** A virtual thread parks with a timeout due after the holder's; it is unparked. */
    private static void parkAndUnpark() throws InterruptedException {
        Thread t = Thread.ofVirtual().start(() -> LockSupport.parkNanos(2 * HOLD_NANOS));
        long deadline = System.nanoTime()
                + TimeUnit.SECONDS.toNanos(CarrierPollerWaits.WATCHDOG_SECONDS);
        while (t.getState() != Thread.State.TIMED_WAITING) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException("waited " + CarrierPollerWaits.WATCHDOG_SECONDS
                        + " s for a virtual thread to park with a timeout, state "
                        + t.getState());
            }
            Thread.yield();  // polling the state, not synchronising
        }
        LockSupport.unpark(t);
        CarrierPollerWaits.join(t, "a virtual thread unparked before its timeout");
    }

    private static Object delayScheduler() throws Exception {
        Field f = Class.forName("java.lang.VirtualThread").getDeclaredField("DEFAULT_SCHEDULER");
        f.setAccessible(true);
        ForkJoinPool pool = (ForkJoinPool) f.get(null);
        try {   // starts it; a task due at once is earlier than any resting time
            pool.schedule(() -> { }, 0, TimeUnit.NANOSECONDS)
                    .get(CarrierPollerWaits.WATCHDOG_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new RuntimeException("waited " + CarrierPollerWaits.WATCHDOG_SECONDS
                    + " s for the delay scheduler to run a task due at once (an"
                    + " earlier timeout must wake it)", e);
        }
        Object scheduler = field(ForkJoinPool.class, "delayScheduler").get(pool);
        if (!(boolean) field(scheduler.getClass(), "lazyWakeups").get(scheduler)) {
            throw new RuntimeException("the default scheduler's delay scheduler is not"
                    + " woken lazily with jdk.pollerMode=4");
        }
        return scheduler;
    }

    private static int intField(Object scheduler, String name) {
        try {
            return (int) field(scheduler.getClass(), name).get(scheduler);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    private static long restingWhen(Object scheduler) {
        try {
            return (long) field(scheduler.getClass(), "restingWhen").get(scheduler);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * The length of the scheduler's pending queue, up to a million (a racy walk:
     * it may read short while the scheduler takes the queue).
     */
    private static int pendingTasks(Object scheduler) {
        try {
            Object t = field(scheduler.getClass(), "pending").get(scheduler);
            Field next = null;
            int n = 0;
            while (t != null && n < 1_000_000) {
                n++;
                if (next == null) {
                    next = field(t.getClass(), "nextPending");
                }
                t = next.get(t);
            }
            return n;
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    private static Field field(Class<?> c, String name) throws NoSuchFieldException {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }
}
