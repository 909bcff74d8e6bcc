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
 * @test
 * @summary Carrier polling, white box: an idle carrier that tries to take the
 *     poller to block takes it when it is free, waits out a poll without blocking
 *     (nobody would poll for it if it parked), and gives up at once when another
 *     carrier holds the poller to block, before or after such a wait
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open
 *          java.management
 * @library /test/lib
 * @run main/othervm/timeout=300 CarrierPollerTryBlock
 */

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import jdk.test.lib.Utils;

public class CarrierPollerTryBlock {
    // rounds of the wait out a poll without blocking
    private static final int ROUNDS = Integer.getInteger("rounds", 20);
    // CPU time a waiting tryBlock must spend while the poll goes on: the mutant that
    // parks returns after a few microseconds of it
    private static final long WAIT_CPU_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    // a wait that ends here failed: the message says what was waited for
    private static final long WATCHDOG_SECONDS = Utils.adjustTimeout(60);
    // IdleCarrierPoller's states
    private static final int FREE = 0, BLOCKING = 1, WOKEN = 2, POLLING = 3, SPINNING = 4;
    private static final String[] NAMES = { "FREE", "BLOCKING", "WOKEN", "POLLING", "SPINNING" };

    private static Object idle;
    private static MethodHandle tryBlock, cancelBlock;
    private static VarHandle state;

    public static void main(String[] args) throws Throwable {
        Class<?> modeClass = Class.forName("sun.nio.ch.Poller$Mode");
        Class<?> epollClass = Class.forName("sun.nio.ch.EPollPoller");
        Class<?> idleClass = Class.forName("sun.nio.ch.Poller$IdleCarrierPoller");
        Class<?> pollerClass = Class.forName("sun.nio.ch.Poller");
        @SuppressWarnings({"unchecked", "rawtypes"})
        Object mode = Enum.valueOf((Class) modeClass, "CARRIER_POLLING");
        Object poller = MethodHandles.privateLookupIn(epollClass, MethodHandles.lookup())
                .findConstructor(epollClass, MethodType.methodType(void.class, modeClass,
                        boolean.class, int.class))
                .invoke(mode, false, 1);
        MethodHandles.Lookup il = MethodHandles.privateLookupIn(idleClass, MethodHandles.lookup());
        idle = il.findConstructor(idleClass,
                        MethodType.methodType(void.class, pollerClass, long.class))
                .invoke(poller, 0L);
        tryBlock = il.findVirtual(idleClass, "tryBlock", MethodType.methodType(boolean.class));
        cancelBlock = il.findVirtual(idleClass, "cancelBlock", MethodType.methodType(void.class));
        state = il.findVarHandle(idleClass, "state", int.class);

        // free: taken
        expect(FREE, true, BLOCKING, "the poller was free");
        // held to block by another carrier: give up, leave it held
        for (int s : new int[] { BLOCKING, WOKEN, SPINNING }) {
            expect(s, false, s, "another carrier held the poller to block");
        }
        // a poll without blocking in progress: wait it out, then take the poller if
        // it is free, or give up if another carrier took it first
        for (int round = 0; round < ROUNDS; round++) {
            boolean otherTakes = (round & 1) != 0;
            waitOutPoll(round, otherTakes ? BLOCKING : FREE);
        }
        System.out.println("tryBlock: took a free poller, gave up on a held one, waited out "
                + ROUNDS + " polls without blocking; " + idle);
    }

    /**
     * Calls tryBlock with the poller in the given state, on a thread of its own, and
     * checks what it returns and the state it leaves.
     */
    private static void expect(int from, boolean taken, int after, String when)
            throws Throwable {
        state.setVolatile(idle, from);
        Attempt a = new Attempt();
        if (!a.thread.join(Duration.ofSeconds(WATCHDOG_SECONDS))) {
            state.setVolatile(idle, FREE);  // let it end
            throw new RuntimeException("tryBlock did not return in " + WATCHDOG_SECONDS
                    + " s with the poller " + NAMES[from] + " (" + when + "): an idle"
                    + " carrier must " + (taken ? "take it" : "give up and park") + "; " + idle);
        }
        a.check(taken, after, "with the poller " + NAMES[from] + " (" + when + ")");
        if (taken) {
            cancelBlock.invoke(idle);
        }
    }

    /**
     * Holds the poller POLLING (a poll without blocking in progress) until a
     * tryBlock on another thread has spent WAIT_CPU_NANOS of CPU in it without
     * returning, then ends the poll: the poller is left FREE, or taken by another
     * carrier (BLOCKING) before the waiting thread looks again.
     */
    private static void waitOutPoll(int round, int end) throws Throwable {
        String where = "round " + round + " of " + ROUNDS;
        state.setVolatile(idle, POLLING);
        Attempt a = new Attempt();
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
        while (!a.started) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException(where + ": the thread calling tryBlock did not"
                        + " start in " + WATCHDOG_SECONDS + " s");
            }
            Thread.onSpinWait();
        }
        long cpu0 = mx.getThreadCpuTime(a.thread.threadId());
        long cpu = cpu0;
        while (a.thread.isAlive() && cpu - cpu0 < WAIT_CPU_NANOS) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException(where + ": waited " + WATCHDOG_SECONDS + " s for"
                        + " the thread in tryBlock to spend " + WAIT_CPU_NANOS / 1_000_000
                        + " ms of CPU; it spent " + (cpu - cpu0) / 1_000_000 + " ms");
            }
            Thread.sleep(1);    // sampling its CPU time, not synchronising
            cpu = mx.getThreadCpuTime(a.thread.threadId());
        }
        if (!a.thread.isAlive()) {
            String msg = where + ": tryBlock returned " + a.result.get() + " while another"
                    + " thread polled without blocking (POLLING), after " + (cpu - cpu0) / 1000
                    + " us of CPU: an idle carrier must wait the poll out, not park (nobody"
                    + " would poll for it) nor take the poller; " + idle;
            state.setVolatile(idle, FREE);
            throw new RuntimeException(msg, a.failure.get());
        }
        state.setVolatile(idle, end);   // the poll ends
        if (!a.thread.join(Duration.ofSeconds(WATCHDOG_SECONDS))) {
            state.setVolatile(idle, FREE);  // let it end
            throw new RuntimeException(where + ": tryBlock did not return in "
                    + WATCHDOG_SECONDS + " s after the poll without blocking ended ("
                    + NAMES[end] + "); " + idle);
        }
        boolean taken = end == FREE;
        a.check(taken, BLOCKING, where + ", after a poll without blocking that left the"
                + " poller " + NAMES[end]);
        if (taken) {
            cancelBlock.invoke(idle);
        } else {
            state.setVolatile(idle, FREE);
        }
    }

    /** A call of tryBlock on a platform thread of its own. */
    private static final class Attempt {
        final AtomicReference<Boolean> result = new AtomicReference<>();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        volatile boolean started;
        final Thread thread = Thread.ofPlatform().name("idle-carrier").daemon().start(() -> {
            started = true;
            try {
                result.set((boolean) tryBlock.invoke(idle));
            } catch (Throwable e) {
                failure.set(e);
            }
        });

        void check(boolean taken, int after, String when) {
            if (failure.get() != null) {
                throw new RuntimeException("tryBlock threw " + when, failure.get());
            }
            int s = (int) state.getVolatile(idle);
            if (result.get() != taken || s != after) {
                throw new RuntimeException("tryBlock returned " + result.get() + " and left"
                        + " the poller " + NAMES[s] + " " + when + "; expected " + taken
                        + " and " + NAMES[after] + "; " + idle);
            }
        }
    }
}
