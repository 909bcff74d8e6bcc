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
 * @test id=spin
 * @summary Carrier polling's wake protocol, white box: a wakeup reaches a carrier
 *     that has taken the poller to block, whether it blocks, spins first, or is
 *     moving between the two; the waker acts as soon as the carrier has counted
 *     the poller taken, or after a random delay that covers the spin
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open
 * @library /test/lib
 * @run main/othervm/timeout=600 CarrierPollerWakeRace spin
 */

/*
 * @test id=yield
 * @summary The same, with more file descriptors counted as registered than there
 *     are carriers, so that the carrier yields its CPU before it blocks instead;
 *     a wakeup during the yield must be a state change, not an eventfd write
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open
 * @library /test/lib
 * @run main/othervm/timeout=600 CarrierPollerWakeRace yield
 */

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import jdk.test.lib.Utils;

public class CarrierPollerWakeRace {
    private static final int ITERATIONS = Integer.getInteger("iterations", 300_000);
    // a wait that ends here is a lost wakeup: the message says which
    private static final long WATCHDOG_SECONDS = Utils.adjustTimeout(30);
    // IdleCarrierPoller's states
    private static final int BLOCKING = 1, SPINNING = 4;

    public static void main(String[] args) throws Throwable {
        boolean yields = args[0].equals("yield");
        Class<?> modeClass = Class.forName("sun.nio.ch.Poller$Mode");
        Class<?> epollClass = Class.forName("sun.nio.ch.EPollPoller");
        Class<?> idleClass = Class.forName("sun.nio.ch.Poller$IdleCarrierPoller");
        Class<?> pollerClass = Class.forName("sun.nio.ch.Poller");
        @SuppressWarnings({"unchecked", "rawtypes"})
        Object mode = Enum.valueOf((Class) modeClass, "CARRIER_POLLING");
        Object poller = MethodHandles.privateLookupIn(epollClass, MethodHandles.lookup())
                .findConstructor(epollClass, MethodType.methodType(void.class, modeClass,
                        boolean.class, int.class))
                .invoke(mode, false, 1);    // edge-triggered, no registrations yet
        if (yields) {
            // count 2 registrations, more than the 1 carrier a platform thread
            // counts: it yields, where with none it spins
            Object stats = MethodHandles.privateLookupIn(pollerClass, MethodHandles.lookup())
                    .findVarHandle(pollerClass, "stats", Class.forName("sun.nio.ch.Poller$Stats"))
                    .get(poller);
            Class<?> statsClass = stats.getClass();
            ((LongAdder) MethodHandles.privateLookupIn(statsClass, MethodHandles.lookup())
                    .findVarHandle(statsClass, "registrations", LongAdder.class)
                    .get(stats)).add(2);
        }
        MethodHandles.Lookup il = MethodHandles.privateLookupIn(idleClass, MethodHandles.lookup());
        // a 1 us spin: a wait often starts or ends it while the waker acts
        Object idle = il.findConstructor(idleClass,
                        MethodType.methodType(void.class, pollerClass, long.class))
                .invoke(poller, 1_000L);
        MethodHandle tryBlock = il.findVirtual(idleClass, "tryBlock",
                MethodType.methodType(boolean.class));
        MethodHandle poll = il.findVirtual(idleClass, "poll",
                MethodType.methodType(int.class, boolean.class));
        MethodHandle wakeup = il.findVirtual(idleClass, "wakeup",
                MethodType.methodType(void.class));
        VarHandle state = il.findVarHandle(idleClass, "state", int.class);
        MethodHandle wakeupPoller = MethodHandles.privateLookupIn(pollerClass, MethodHandles.lookup())
                .findVirtual(pollerClass, "wakeupPoller", MethodType.methodType(void.class));

        AtomicLong taken = new AtomicLong();    // blocks started by the carrier
        AtomicLong returned = new AtomicLong(); // blocks returned from
        AtomicReference<Throwable> carrierFailure = new AtomicReference<>();
        Thread carrier = Thread.ofPlatform().name("carrier").daemon().start(() -> {
            try {
                for (int i = 0; i < ITERATIONS; i++) {
                    if (!(boolean) tryBlock.invoke(idle)) {
                        throw new RuntimeException("iteration " + i + ": poller not free");
                    }
                    taken.incrementAndGet();
                    poll.invoke(idle, true);
                    returned.incrementAndGet();
                }
            } catch (Throwable e) {
                carrierFailure.set(e);
            }
        });

        ThreadLocalRandom random = ThreadLocalRandom.current();
        // a blocking poll may return without a wakeup (EINTR); the next block then
        // takes this wakeup, and the carrier is found woken before the next one
        int foundWoken = 0;
        int wokenSpinning = 0;      // carrier seen spinning or yielding before a wakeup
        for (int i = 0; i < ITERATIONS; i++) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
            while (taken.get() == i) {
                check(deadline, i, "the carrier to take the poller", idle, carrierFailure);
            }
            // half the iterations wake at once (BLOCKING, or becoming SPINNING);
            // a quarter after a delay that covers the spin and its end; a quarter
            // as soon as the carrier is seen spinning (bounded: most blocks skip
            // the spin), so that some wakeups end spins on a fast machine too
            if ((i & 3) == 1) {
                for (int n = random.nextInt(2_000); n > 0; n--) {
                    Thread.onSpinWait();
                }
            } else if ((i & 3) == 3) {
                for (int n = 20_000; n > 0 && (int) state.getVolatile(idle) != SPINNING; n--) {
                    Thread.onSpinWait();
                }
            }
            int s = (int) state.getVolatile(idle);
            if (s != BLOCKING && s != SPINNING && returned.get() == i) {
                foundWoken++;
            } else if (s == SPINNING) {
                wokenSpinning++;
            }
            wakeup.invoke(idle);
            while (returned.get() == i) {
                if (System.nanoTime() - deadline > 0) {
                    String msg = "iteration " + i + " of " + ITERATIONS + ": the carrier did"
                            + " not return from its blocking poll in " + WATCHDOG_SECONDS
                            + " s after wakeup() (a lost wakeup); " + idle;
                    wakeupPoller.invoke(poller);    // let it end
                    throw new RuntimeException(msg, carrierFailure.get());
                }
                Thread.onSpinWait();
            }
        }
        carrier.join();
        System.out.println(ITERATIONS + " iterations, " + foundWoken
                + " found woken before their wakeup, " + wokenSpinning
                + " wakeups found the carrier " + (yields ? "yielding" : "spinning") + ": " + idle);
        if (foundWoken > ITERATIONS / 1000) {
            throw new RuntimeException(foundWoken + " of " + ITERATIONS + " blocking polls"
                    + " were found woken before their wakeup (a poll that returns without"
                    + " one?); " + idle);
        }
        // the race was run: spins or yields started, and wakeups came during them
        // and during blocks
        if (wokenSpinning == 0) {
            throw new RuntimeException("no wakeup found the carrier "
                    + (yields ? "yielding" : "spinning") + "; " + idle);
        }
        String[] counters = yields
                ? new String[] { "yieldsBeforeBlocking", "yieldsEndedByWakeups" }
                : new String[] { "spinCount", "spinsEndedByWakeups" };
        for (String counter : counters) {
            if ((long) il.findVarHandle(idleClass, counter, long.class).get(idle) == 0) {
                throw new RuntimeException(counter + " = 0: the test did not exercise the"
                        + (yields ? " yield; " : " spin; ") + idle);
            }
        }
        long eventfdWakeups = ((LongAdder) il.findVarHandle(idleClass, "wakeups",
                LongAdder.class).get(idle)).sum();
        if (eventfdWakeups == 0) {
            throw new RuntimeException("no eventfd wakeup: the test did not wake a blocked"
                    + " carrier; " + idle);
        }
        // every iteration made one wakeup: one that found the carrier spinning or
        // yielding changed the state and wrote no eventfd
        if (eventfdWakeups >= ITERATIONS - foundWoken) {
            throw new RuntimeException(eventfdWakeups + " eventfd wakeups for " + ITERATIONS
                    + " wakeups, " + foundWoken + " of them found woken: none woke the"
                    + " carrier by the state alone; " + idle);
        }
    }

    private static void check(long deadline, int i, String what, Object idle,
                              AtomicReference<Throwable> carrierFailure) {
        if (System.nanoTime() - deadline > 0) {
            throw new RuntimeException("iteration " + i + ": waited " + WATCHDOG_SECONDS
                    + " s for " + what + "; " + idle, carrierFailure.get());
        }
        Thread.onSpinWait();
    }
}
