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
 * @summary Carrier polling (jdk.pollerMode=4): the wake protocol between an idle
 *     carrier blocked in the read poller and the paths that release work, the
 *     watchdog when every carrier is busy or pinned, and data integrity; an idle
 *     carrier that blocks at once (no spin)
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=600 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.virtualThreadScheduler.parallelism=1 CarrierPolling
 */

/*
 * @test id=mode4-p2
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=600 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.virtualThreadScheduler.parallelism=2 CarrierPolling
 */

/*
 * @test id=mode4-p3
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=600 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.virtualThreadScheduler.parallelism=3 CarrierPolling
 */

/*
 * @test id=mode4-spin-p1
 * @summary The same with an idle carrier that polls without blocking before it
 *     blocks (jdk.pollerSpinMicros; it spins only while no more file descriptors
 *     are registered than there are carriers, as in the submit race, where the idle
 *     reader's is the only one): a wakeup then changes the poller's state only.
 *     With the longest spin, 1 ms, most wakeups of the submit race come while the
 *     carrier spins
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=600 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=1000
 *     -Djdk.virtualThreadScheduler.parallelism=1 CarrierPolling
 */

/*
 * @test id=mode4-spin-p2
 * @summary The default spin (50 us)
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=600 -Djdk.pollerMode=4
 *     -Djdk.virtualThreadScheduler.parallelism=2 CarrierPolling
 */

/*
 * @test id=mode4-oneshot-p1
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=600 -Djdk.pollerMode=4 -Djdk.pollerEdgeTriggered=false
 *     -Djdk.virtualThreadScheduler.parallelism=1 CarrierPolling
 */

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import etjdk.poller.YieldersInTurn;
import etjdk.poller.CarrierPollerWaits;
import static etjdk.poller.CarrierPollerWaits.*;
import jdk.test.lib.thread.VThreadPinner;

// The main thread must be a platform thread (test.thread.factory == null): it
// watches the carriers, which a virtual main thread would hold or need.
public class CarrierPolling {
    private static final int SUBMIT_ITERATIONS = Integer.getInteger("iterations", 20_000);
    private static final int SLEEP_ITERATIONS = 500;
    // 50 us by default; one-shot registrations are not counted, so they never spin
    private static final int SPIN_MICROS =
            "false".equals(System.getProperty("jdk.pollerEdgeTriggered"))
                    ? 0 : Integer.getInteger("jdk.pollerSpinMicros", 50);
    private static final int PARALLELISM =
            Integer.getInteger("jdk.virtualThreadScheduler.parallelism", 1);
    // -DCarrierPolling.cases=name,...: run only these cases (to show which case
    // catches a mutant when an earlier one would fail first); default: all
    private static final List<String> CASES =
            Arrays.asList(System.getProperty("CarrierPolling.cases", "").split(","));

    interface Case {
        void run() throws Exception;
    }

    private static void run(String name, Case c) throws Exception {
        if (CASES.equals(List.of("")) || CASES.contains(name)) {
            c.run();
        }
    }

    public static void main(String[] args) throws Exception {
        try (var idle = new Pair()) {
            // a virtual thread parked in a read for the whole test: the poller has a
            // waiter, so idle carriers block in it rather than park
            Thread idleReader = idle.startReader();
            awaitParked(idleReader, "the idle reader to park in its read");

            // first: they need the pool's only carrier
            run("fanOutBacklog", () -> {
                fanOutBacklog("fan-out backlog", 32, 4000, 4 * 32, 4);
                fanOutBacklog("fan-out backlog past the watchdog", 320, 16000, 4 * 320, 2);
            });
            run("watchdogDeferralCap", CarrierPolling::watchdogDeferralCap);
            run("turnBehindQueuedTasks", CarrierPolling::turnBehindQueuedTasks);
            run("turnAfterHandOff", CarrierPolling::turnAfterHandOff);
            run("yieldersInTurn", CarrierPolling::yieldersInTurn);
            run("submitRace", CarrierPolling::submitRace);
            run("timedParks", CarrierPolling::timedParks);
            run("busyCarriers", CarrierPolling::busyCarriers);
            run("readinessInTurn", CarrierPolling::readinessInTurn);
            run("fanOutInTurn", CarrierPolling::fanOutInTurn);
            run("refillingQueue", CarrierPolling::refillingQueue);
            run("pinnedReader", CarrierPolling::pinnedReader);
            run("compensatedBlock", CarrierPolling::compensatedBlock);
            run("pollsWithSpare", CarrierPolling::pollsWithSpare);
            run("echo", () -> echo(50, 500));

            idle.peer.write(ByteBuffer.wrap(new byte[] { 42 }));
            join(idleReader, "the idle reader to read its byte");
            if (idle.readValue.get() != 42) {
                throw new RuntimeException("idle reader read " + idle.readValue.get());
            }
        }
        String counters = sun.nio.ch.Poller.readPollers().toString();
        System.out.println("read pollers: " + counters);
        long blockingPolls = counter(counters, "blocking polls");
        if (blockingPolls == 0) {
            throw new RuntimeException("no carrier ever blocked in the read poller: "
                    + "the test did not exercise carrier polling: " + counters);
        }
        if (SPIN_MICROS == 0 && counters.contains("spins")) {
            throw new RuntimeException("the poller counts spins, expected none"
                    + " (jdk.pollerSpinMicros=0 or one-shot registrations): " + counters);
        }
        if (SPIN_MICROS > 0 && counter(counters, "spins of up to " + SPIN_MICROS + " us") == 0) {
            throw new RuntimeException("no idle carrier ever spun before it blocked: "
                    + "the test did not exercise the spin: " + counters);
        }
        if (SPIN_MICROS >= 1000 && counter(counters, "spins ended by wakeups") == 0) {
            throw new RuntimeException("no wakeup came during a spin: the test did not"
                    + " exercise the spinning carrier's wakeup: " + counters);
        }
    }

    /**
     * A scan ends, with a waiter in the poller too: 2 virtual threads per carrier
     * yield in turn until a virtual thread started from this platform thread (so
     * in another queue than theirs) sets a flag. The carrier polls between their
     * tasks and goes on with its queue, which never empties; the scan ends after
     * ForkJoinPool's CARRIER_POLL_SCAN_MAX tasks, and a later one finds the
     * other queue. A scan that never ended would run the yielders until their
     * deadline. 200 rounds.
     */
    static void yieldersInTurn() throws Exception {
        final int rounds = 200, yielders = 2 * PARALLELISM;
        YieldersInTurn.run("yielders in turn", rounds, yielders, WATCHDOG_SECONDS);
        System.out.println("yielders in turn: " + rounds + " rounds of " + yielders
                + " yielders and a releaser");
    }

    /**
     * A task submitted from a platform thread while the only idle carrier polls or
     * is about to block in the poller runs: signalWork finds no idle carrier on the
     * stack and wakes the poller. Each iteration starts one virtual thread right
     * after the previous one ended, when its carrier is going idle.
     */
    static void submitRace() throws Exception {
        for (int i = 0; i < SUBMIT_ITERATIONS; i++) {
            var ran = new CountDownLatch(1);
            Thread.ofVirtual().start(ran::countDown);
            if (!ran.await(WATCHDOG_SECONDS, TimeUnit.SECONDS)) {
                throw new RuntimeException("submit race, iteration " + i + " of "
                        + SUBMIT_ITERATIONS + ": a virtual thread started from a platform"
                        + " thread did not run in " + WATCHDOG_SECONDS + " s (the carrier"
                        + " blocked in the read poller was not woken); read pollers: "
                        + sun.nio.ch.Poller.readPollers());
            }
        }
        System.out.println("submit race: " + SUBMIT_ITERATIONS + " iterations");
    }

    /**
     * A timed park wakes while the only idle carrier is blocked in the poller: the
     * delayed-task thread submits the continuation, which wakes the poller.
     */
    static void timedParks() throws Exception {
        Thread sleeper = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < SLEEP_ITERATIONS; i++) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }
        });
        join(sleeper, SLEEP_ITERATIONS + " timed parks of 1 ms to wake (a timed park"
                + " did not wake the carrier blocked in the read poller)");
        System.out.println("timed parks: " + SLEEP_ITERATIONS);
    }

    /**
     * Data arriving while every carrier runs a CPU-bound virtual thread that never
     * yields is polled by the watchdog: the reader becomes runnable while the
     * spinners still spin.
     */
    static void busyCarriers() throws Exception {
        try (var pair = new Pair()) {
            Thread reader = pair.startReader();
            awaitParked(reader, "the reader to park in its read");
            var stop = new AtomicBoolean();
            var noticed = new AtomicBoolean();
            var started = new CountDownLatch(PARALLELISM);
            List<Thread> spinners = new ArrayList<>();
            // one deadline for all: the carrier of a spinner that ends polls, and the
            // others must not take that for the watchdog
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
            for (int i = 0; i < PARALLELISM; i++) {
                spinners.add(Thread.ofVirtual().start(() -> {
                    started.countDown();
                    while (!stop.get() && System.nanoTime() - deadline < 0) {
                        if (reader.getState() != Thread.State.WAITING
                                && System.nanoTime() - deadline < 0) {
                            noticed.set(true);
                            stop.set(true);
                        }
                        Thread.onSpinWait();
                    }
                }));
            }
            if (!started.await(WATCHDOG_SECONDS, TimeUnit.SECONDS)) {
                throw new RuntimeException("the spinners did not start on every carrier");
            }
            long start = System.nanoTime();
            pair.peer.write(ByteBuffer.wrap(new byte[] { 7 }));
            for (Thread t : spinners) {
                join(t, "a spinner to stop");
            }
            if (!noticed.get()) {
                throw new RuntimeException("busy carriers: data written to a reader's socket"
                        + " while every carrier ran a CPU-bound virtual thread was not"
                        + " polled in " + WATCHDOG_SECONDS + " s (no watchdog poll); read"
                        + " pollers: " + sun.nio.ch.Poller.readPollers());
            }
            System.out.printf("busy carriers: reader runnable after %.1f ms%n",
                    (System.nanoTime() - start) / 1e6);
            join(reader, "the reader to read its byte");
            if (pair.readValue.get() != 7) {
                throw new RuntimeException("reader read " + pair.readValue.get());
            }
        }
    }

    /**
     * Readiness that a busy carrier polls does not starve submissions. With one
     * carrier, 16 connections echo one byte back and forth, and each side spins
     * past the poll interval after every read, so every poll finds more readiness.
     * Then a virtual thread is started from a platform thread and one from a
     * virtual thread (both are submissions), and each must run while the chatter
     * goes on. A carrier that queues what it polls on the queue it is draining
     * (its submission queue) never gets to the other queues, and the started
     * thread waits for as long as the chatter lasts: here until this test's
     * 60 s wait for it ends. 10 iterations, one thread of each kind in each.
     */
    static void readinessInTurn() throws Exception {
        if (PARALLELISM != 1) {
            System.out.println("readiness in turn: skipped, needs parallelism 1");
            return;
        }
        final int chatters = 16, iterations = 10;
        final long spinNanos = TimeUnit.MICROSECONDS.toNanos(100);
        List<Pair> pairs = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        var stop = new AtomicBoolean();
        var failure = new AtomicReference<Throwable>();
        var roundTrips = new AtomicLong();
        boolean ended = false;
        try {
            for (int i = 0; i < chatters; i++) {
                Pair pair = new Pair();
                pairs.add(pair);
                threads.add(Thread.ofVirtual().start(() -> chat(pair.peer, false, stop,
                        spinNanos, roundTrips, failure)));
                threads.add(Thread.ofVirtual().start(() -> chat(pair.channel, true, stop,
                        spinNanos, roundTrips, failure)));
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
            while (roundTrips.get() < 10L * chatters && failure.get() == null) {
                if (System.nanoTime() - deadline > 0) {
                    throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for "
                            + chatters + " connections to do " + 10 * chatters
                            + " round trips in all, did " + roundTrips.get());
                }
                Thread.sleep(1);  // polling a counter, not synchronising
            }
            for (int i = 0; i < iterations && failure.get() == null; i++) {
                Thread fromPlatform = Thread.ofVirtual().start(() -> { });
                join(fromPlatform, "a virtual thread started from a platform thread to run"
                        + " while " + chatters + " connections chatter (iteration " + i
                        + ", " + roundTrips.get() + " round trips so far)");
                var started = new AtomicReference<Thread>();
                Thread starter = Thread.ofVirtual().start(() ->
                        started.set(Thread.ofVirtual().start(() -> { })));
                join(starter, "a virtual thread that starts another to run (iteration " + i
                        + ")");
                join(started.get(), "a virtual thread started from a virtual thread to run"
                        + " while " + chatters + " connections chatter (iteration " + i + ")");
            }
            ended = true;
        } finally {
            // Each connection has one byte in flight: once stop is set, each side
            // ends after its next write, and nobody is left in a read. After a
            // failure (a chatter's, or this test's) a chatter may be left waiting:
            // only then close under the reads.
            stop.set(true);
            if (!ended || failure.get() != null) {
                for (Pair pair : pairs) pair.close();
            }
            for (Thread t : threads) join(t, "a chatter to stop");
            for (Pair pair : pairs) pair.close();
        }
        if (failure.get() != null) {
            throw new RuntimeException("readiness in turn: chatter failed", failure.get());
        }
        System.out.println("readiness in turn: " + iterations + " x 2 threads ran during "
                + roundTrips.get() + " round trips on " + chatters + " connections");
    }

    /**
     * Readiness is taken in as the carrier gets through its queues, not ahead of
     * them. With one carrier, a dispatcher reads a socket and, every time it wakes,
     * starts 4 virtual threads (starts are submissions) that each spin past the
     * poll interval and write a byte back to that socket, 4,000 in all. Meanwhile
     * 4 probes, virtual threads started from platform threads, must each run before
     * another 100 of them have ended (with a poll every 16 tasks, a few end: at
     * most 16 between polls). A carrier that polls between every two tasks
     * wakes the dispatcher after every task, so the dispatcher's submission queue
     * grows by 3 a task and never empties while the probes wait. One run.
     */
    static void fanOutInTurn() throws Exception {
        if (PARALLELISM != 1) {
            System.out.println("fan-out in turn: skipped, needs parallelism 1");
            return;
        }
        final int fanOut = 4, total = 4000, startAfter = 200, probes = 4;
        final int maxEndedWhileWaiting = 100;
        final long spinNanos = TimeUnit.MICROSECONDS.toNanos(100);
        var started = new AtomicInteger();
        var ended = new AtomicInteger();
        var failure = new AtomicReference<Throwable>();
        try (var pair = new Pair()) {
            Thread dispatcher = startDispatcher(pair, fanOut, total, spinNanos, started, ended,
                    failure, () -> { });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
            while (started.get() < startAfter && dispatcher.isAlive()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for the"
                            + " dispatcher to start " + startAfter + " threads, started "
                            + started.get());
                }
                Thread.sleep(1);  // polling a counter, not synchronising
            }
            // probes started from platform threads of their own, so that they go to
            // submission queues other than the dispatcher's (a thread's probe picks one)
            int[] endedWhileWaiting = new int[probes];
            List<Thread> starters = new ArrayList<>();
            for (int p = 0; p < probes; p++) {
                final int index = p;
                starters.add(Thread.ofPlatform().start(() -> {
                    int before = ended.get();
                    var endedAtRun = new AtomicInteger();
                    Thread probe = Thread.ofVirtual().start(() -> endedAtRun.set(ended.get()));
                    try {
                        join(probe, "a probe started from a platform thread to run");
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                    endedWhileWaiting[index] = endedAtRun.get() - before;
                }));
            }
            for (Thread t : starters) {
                join(t, "a platform thread to start its probe and see it run");
            }
            join(dispatcher, "the dispatcher to start " + total + " threads");
            deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
            while (ended.get() < total && failure.get() == null) {
                if (System.nanoTime() - deadline > 0) {
                    throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for "
                            + total + " started threads to end, ended " + ended.get());
                }
                Thread.sleep(1);  // polling a counter, not synchronising
            }
            if (failure.get() != null) {
                throw new RuntimeException("fan-out in turn failed", failure.get());
            }
            int worst = Arrays.stream(endedWhileWaiting).max().getAsInt();
            System.out.println("fan-out in turn: fanned-out threads that ended while each of "
                    + probes + " probes waited to run: " + Arrays.toString(endedWhileWaiting)
                    + " (of " + total + ")");
            if (worst >= maxEndedWhileWaiting) {
                throw new RuntimeException("fan-out in turn: a thread started from a"
                        + " platform thread waited while " + worst + " of " + total
                        + " threads fanned out by a reader ran: readiness was taken in"
                        + " ahead of the queued work; per probe: "
                        + Arrays.toString(endedWhileWaiting) + "; read pollers: "
                        + sun.nio.ch.Poller.readPollers());
            }
        }
    }

    /**
     * One side of a chatter connection: the first side writes, then each side reads
     * a byte, spins and writes it back, until it sees stop after a write or the
     * connection closes.
     */
    private static void chat(SocketChannel ch, boolean first, AtomicBoolean stop,
                             long spinNanos, AtomicLong roundTrips,
                             AtomicReference<Throwable> failure) {
        ByteBuffer bb = ByteBuffer.allocate(1);
        try {
            if (first) {
                ch.write(bb.put((byte) 1).flip());
            }
            do {
                bb.clear();
                if (ch.read(bb) != 1) {
                    return;
                }
                long end = System.nanoTime() + spinNanos;
                while (System.nanoTime() - end < 0) {
                    Thread.onSpinWait();
                }
                roundTrips.incrementAndGet();
                ch.write(bb.flip());
            } while (!stop.get());
        } catch (IOException e) {
            failure.compareAndSet(null, e);
        }
    }

    /**
     * Readiness is not taken in faster than the queues drain. With one carrier, a
     * dispatcher reads a socket and, every time it wakes, starts fanOut virtual
     * threads (more than the 16 tasks a carrier runs between polls, ForkJoinPool's
     * CARRIER_POLL_STAY) that each spin 100 us and write a byte back. The threads
     * started and not ended when it wakes must be at most maxBacklog: a carrier
     * that finds more than 16 tasks queued where it works holds its poll back until
     * they have been taken (at 32 a wake, a carrier that polls every 16 tasks
     * regardless wakes the dispatcher every 16 tasks, and the backlog grows by 16
     * each time), and the watchdog leaves the poll to a carrier that defers it
     * for a backlog (at 320 a wake, 32 ms of work, a watchdog that polls after
     * 10 ms wakes the dispatcher before the backlog has drained, every time).
     * A wake after a watchdog poll (the carrier descheduled for 10 ms, as on a
     * loaded machine) is not counted, nor are the wakesAfterWatchdog after it: the
     * watchdog takes readiness in whatever the backlog, and that backlog drains over
     * the next wakes (a rule that admits the poll once the carrier has run half the
     * backlog finds about half the backlog of the one before plus fanOut each wake:
     * from a watchdog's 2,000 at 32 a wake, the 5th finds about 125, under 128; at
     * 320 a wake, the 2nd finds under 1,280). One carrier only (no spare,
     * so these cases run first): an idle carrier blocked in the poller takes in
     * whatever is ready when it is woken for work. One run each.
     */
    static void fanOutBacklog(String name, int fanOut, int total, int maxBacklog,
                              int wakesAfterWatchdog) throws Exception {
        if (!onlyCarrier(name)) {
            return;
        }
        final int minCountedWakes = 5;  // fewer measure nothing
        final long spinNanos = TimeUnit.MICROSECONDS.toNanos(100);
        var started = new AtomicInteger();
        var ended = new AtomicInteger();
        var peak = new AtomicInteger();
        var peakAll = new AtomicInteger();  // counted or not, for the message
        var wakes = new AtomicInteger();
        var counted = new AtomicInteger();
        var failure = new AtomicReference<Throwable>();
        long watchdogBefore = watchdogPolls();
        long deferralsBefore = watchdogDeferrals();
        long waitedBefore = carriersRunQueueNanos();
        long startNanos = System.nanoTime();
        try (var pair = new Pair()) {
            var watchdog = new AtomicLong(watchdogBefore);
            var countFrom = new AtomicInteger();
            Thread dispatcher = startDispatcher(pair, fanOut, total, spinNanos, started, ended,
                    failure, () -> {
                int wake = wakes.incrementAndGet();
                peakAll.accumulateAndGet(started.get() - ended.get(), Math::max);
                long now = watchdogPolls();
                if (watchdog.getAndSet(now) != now) {
                    // the watchdog polled since the last wake, without the backlog rule:
                    // what it took in may still be queued for the next few wakes
                    countFrom.set(wake + wakesAfterWatchdog);
                } else if (wake > countFrom.get()) {
                    counted.incrementAndGet();
                    peak.accumulateAndGet(started.get() - ended.get(), Math::max);
                }
            });
            join(dispatcher, "the dispatcher to start " + total + " threads, " + fanOut
                    + " a wake (" + name + ")");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
            while (ended.get() < total && failure.get() == null) {
                if (System.nanoTime() - deadline > 0) {
                    throw new RuntimeException(name + ": waited " + WATCHDOG_SECONDS
                            + " s for " + total + " started threads to end, ended "
                            + ended.get());
                }
                Thread.sleep(1);  // polling a counter, not synchronising
            }
        }
        if (failure.get() != null) {
            throw new RuntimeException(name + " failed", failure.get());
        }
        long watchdogDuring = watchdogPolls() - watchdogBefore;
        long deferralsDuring = watchdogDeferrals() - deferralsBefore;
        long waitedMillis = (carriersRunQueueNanos() - waitedBefore) / 1_000_000;
        long caseMillis = (System.nanoTime() - startNanos) / 1_000_000;
        System.out.println(name + ": at most " + peak.get() + " threads started and"
                + " not ended when the dispatcher woke (" + counted.get() + " of " + wakes.get()
                + " wakes counted, " + peakAll.get() + " over all wakes; " + total
                + " threads, " + fanOut + " a wake; "
                + watchdogDuring + " watchdog polls, " + deferralsDuring + " deferrals; the"
                + " carrier waited " + waitedMillis + " ms for a CPU in " + caseMillis + " ms)");
        if (counted.get() < minCountedWakes && deferralsDuring > 0
                && waitedMillis * 20 > caseMillis) {
            // a carrier off its CPU for 10 ms defers nothing, and the watchdog then
            // polls as it should: on a loaded machine the case decides nothing
            System.out.println(name + ": not decisive, the carrier waited for a CPU"
                    + " for more than 5% of the case");
            return;
        }
        if (counted.get() < minCountedWakes) {
            String why = (deferralsDuring == 0)
                    ? "the watchdog never left the poll to the carrier (0 deferrals): it"
                      + " took readiness in ahead of the backlog"
                    : "despite " + deferralsDuring + " deferrals: the carrier was"
                      + " descheduled for 10 ms at a time (a loaded machine?)";
            throw new RuntimeException(name + ": " + counted.get() + " of "
                    + wakes.get() + " wakes counted, fewer than " + minCountedWakes
                    + "; the watchdog polled " + watchdogDuring + " times during the"
                    + " case, " + why + "; " + peakAll.get() + " threads outstanding at"
                    + " a wake; read pollers: " + sun.nio.ch.Poller.readPollers());
        }
        if (peak.get() > maxBacklog) {
            throw new RuntimeException(name + ": the dispatcher woke with " + peak.get()
                    + " threads it started still queued or running (bound " + maxBacklog
                    + "): readiness was taken in faster than the queue drained; read"
                    + " pollers: " + sun.nio.ch.Poller.readPollers());
        }
    }

    /**
     * Readiness that arrives behind queued tasks resumes its reader after all of
     * them, as it does when a poller thread queues the reader, even as the queue
     * drains. With one carrier held by a virtual thread that spins until released,
     * this platform thread starts 500 virtual threads that each count (in a
     * submission queue), writes a byte to a parked reader's socket, and releases the
     * spinner: the reader must find all 500 counted when it resumes. A carrier that
     * polls once it has run as many tasks as are still queued resumes it after
     * about half. Then the same with every other counter unparking a parked
     * partner, which the carrier queues on its own queue and runs soon after: a
     * carrier that counts every task it runs toward the turn, and admits the poll
     * once it has run as many as were queued, resumes the reader after about two
     * thirds of the counters (ForkJoinPool's backstop, twice as many plus a scan,
     * is not reached: 1.5 tasks a counter). A watchdog poll queues the reader
     * behind the counters too, since the carrier takes them all in one scan (at
     * most 752 tasks, fewer than CARRIER_POLL_SCAN_MAX). 20 rounds each.
     */
    static void turnBehindQueuedTasks() throws Exception {
        turnBehindQueuedTasks("turn behind queued tasks", false);
        turnBehindQueuedTasks("turn behind queued tasks, every other one unparking a"
                + " partner", true);
    }

    private static void turnBehindQueuedTasks(String name, boolean unparkPartners)
            throws Exception {
        if (!onlyCarrier(name)) {
            return;
        }
        final int rounds = 20, queued = 500;
        for (int round = 0; round < rounds; round++) {
            var counted = new AtomicInteger();
            var countedAtResume = new AtomicInteger(-1);
            var unparked = new AtomicIntegerArray(queued);
            Thread[] partners = new Thread[queued];
            if (unparkPartners) {
                for (int i = 0; i < queued; i += 2) {
                    final int index = i;
                    partners[i] = Thread.ofVirtual().start(() -> {
                        while (unparked.get(index) == 0) {
                            LockSupport.park();
                        }
                    });
                }
                for (int i = 0; i < queued; i += 2) {
                    awaitParked(partners[i], "a partner to park (" + name + ")");
                }
            }
            try (var pair = new Pair()) {
                Thread reader = pair.startReader(() -> countedAtResume.set(counted.get()));
                awaitParked(reader, "the reader to park in its read (" + name + ")");
                var spinner = new CarrierHolder(name);
                List<Thread> counters = new ArrayList<>();
                for (int i = 0; i < queued; i++) {
                    final int index = i;
                    counters.add(Thread.ofVirtual().start(() -> {
                        counted.incrementAndGet();
                        if (unparkPartners && index % 2 == 0) {
                            unparked.set(index, 1);
                            LockSupport.unpark(partners[index]);
                        }
                    }));
                }
                pair.peer.write(ByteBuffer.wrap(new byte[] { 1 }));
                spinner.release();
                spinner.join(name);
                join(reader, "the reader to read its byte (" + name + ", round "
                        + round + ")");
                for (Thread t : counters) {
                    join(t, "a counting thread to end (" + name + ")");
                }
                if (unparkPartners) {
                    for (int i = 0; i < queued; i += 2) {
                        join(partners[i], "a partner to end (" + name + ")");
                    }
                }
                if (!Integer.valueOf(1).equals(pair.readValue.get())) {
                    throw new RuntimeException(name + ", round " + round + ": the reader"
                            + " read " + pair.readValue.get() + ", not the byte 1 written");
                }
            }
            if (countedAtResume.get() != queued) {
                throw new RuntimeException(name + ", round " + round + " of " + rounds
                        + ": the reader resumed when " + countedAtResume.get() + " of the "
                        + queued + " tasks queued before its data arrived had run: its"
                        + " readiness was taken in ahead of them; read pollers: "
                        + sun.nio.ch.Poller.readPollers());
            }
        }
        System.out.println(name + ": " + rounds + " rounds, the reader resumed after all "
                + queued + " tasks queued before its data each time");
    }

    /**
     * A held-back poll is admitted when its turn comes, also when the last task
     * queued before the hold hands off to a successor: the carrier takes the only
     * task left in its own queue from the top, and the successor it pushes takes the
     * same slot, so the queue is neither empty nor drained past its top of then.
     * With one carrier, held by a spinner, this platform thread starts a virtual
     * thread that unparks `queued` parked counting virtual threads (on the carrier's
     * own queue), the last of which starts a ping-pong of two virtual threads; writes a
     * byte to a parked reader's socket; releases the spinner; and keeps 4 no-op
     * virtual threads queued in its submission queue, from which the carrier's scan
     * takes one task per poll interval, running the rest from its own queue. The
     * reader must resume within 2 x 16 tasks (ForkJoinPool's CARRIER_POLL_STAY)
     * after the last counter: the carrier checks its turn every 16 tasks, and the
     * poll it then admits is not skipped as too soon after the last one (50 us:
     * the hold lasts about `queued` tasks). A turn that waits for the own queue
     * to empty or to drain past its top of then waits for the backstop (about
     * `queued` + 1,024 tasks) or the end of the scan (at most 1,024 tasks).
     * Rounds in which the watchdog polled decide nothing. `queued` takes 16
     * consecutive values, so that the last counter falls at every point of the
     * poll interval; 3 rounds each.
     */
    static void turnAfterHandOff() throws Exception {
        final String name = "turn after a hand-off";
        if (!onlyCarrier(name)) {
            return;
        }
        final int firstQueued = 400, values = 16, rounds = 3, fillersQueued = 4;
        final int maxLateness = 2 * 16;             // 2 x CARRIER_POLL_STAY
        int decisive = 0, maxSeen = 0;
        for (int queued = firstQueued; queued < firstQueued + values; queued++) {
            for (int round = 0; round < rounds; round++) {
                String where = name + ", " + queued + " queued, round " + round;
                int lateness = turnAfterHandOff(where, queued, fillersQueued, maxLateness);
                if (lateness > 0) {
                    decisive++;
                    maxSeen = Math.max(maxSeen, lateness);
                }
            }
        }
        if (decisive == 0) {
            throw new RuntimeException(name + ": the watchdog polled in all "
                    + (values * rounds) + " rounds: the case decided nothing");
        }
        System.out.println(name + ": " + decisive + " of " + (values * rounds)
                + " rounds decisive, the reader resumed within " + maxSeen + " tasks"
                + " (bound " + maxLateness + ") of the last task queued before the hold");
    }

    /**
     * One round; returns the tasks run between the last counter and the reader's
     * resumption, or 0 if a watchdog poll made the round decide nothing.
     */
    private static int turnAfterHandOff(String where, int queued, int fillersQueued,
                                            int maxLateness) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
        var ran = new AtomicInteger();              // tasks run by the test's threads
        var ranAtLastCounter = new AtomicInteger(-1);
        var ranAtResume = new AtomicInteger(-1);
        var stop = new AtomicBoolean();
        var turnOf = new AtomicInteger(-1);
        Thread[] players = new Thread[2];
        for (int p = 0; p < 2; p++) {
            final int me = p;
            players[p] = Thread.ofVirtual().unstarted(() -> {
                for (;;) {
                    while (turnOf.get() != me && !stop.get()
                            && System.nanoTime() - deadline < 0) {
                        LockSupport.park();
                    }
                    if (turnOf.get() != me) {
                        return;                     // stopped, or the deadline
                    }
                    ran.incrementAndGet();
                    turnOf.set(1 - me);
                    LockSupport.unpark(players[1 - me]);
                }
            });
        }
        for (Thread t : players) {
            t.start();
        }
        for (Thread t : players) {
            awaitParked(t, "a ping-pong player to park (" + where + ")");
        }
        List<Thread> fillers = new ArrayList<>();
        long watchdogBefore;
        var fillersRan = new AtomicInteger();
        try (var pair = new Pair()) {
            Thread reader = pair.startReader(() -> {
                ranAtResume.set(ran.get());
                stop.set(true);
                for (Thread t : players) {
                    LockSupport.unpark(t);
                }
            });
            awaitParked(reader, "the reader to park in its read (" + where + ")");
            // parked counters: an unpark from a carrier queues on its own queue (a
            // start is a submission)
            var go = new AtomicBoolean();
            List<Thread> counters = new ArrayList<>();
            for (int i = 0; i < queued; i++) {
                boolean last = (i == queued - 1);
                counters.add(Thread.ofVirtual().start(() -> {
                    while (!go.get() && System.nanoTime() - deadline < 0) {
                        LockSupport.park();
                    }
                    int n = ran.incrementAndGet();
                    if (last) {
                        ranAtLastCounter.set(n);
                        turnOf.set(0);
                        LockSupport.unpark(players[0]);
                    }
                }));
            }
            for (Thread t : counters) {
                awaitParked(t, "a counting thread to park (" + where + ")");
            }
            var spinner = new CarrierHolder(where);
            Thread starter = Thread.ofVirtual().start(() -> {
                go.set(true);
                for (Thread t : counters) {
                    LockSupport.unpark(t);  // queued on the carrier's own queue
                }
            });
            Runnable filler = () -> {
                ran.incrementAndGet();
                fillersRan.incrementAndGet();
            };
            for (int i = 0; i < fillersQueued; i++) {
                fillers.add(Thread.ofVirtual().start(filler));
            }
            watchdogBefore = watchdogPolls();
            pair.peer.write(ByteBuffer.wrap(new byte[] { 1 }));
            spinner.release();
            // keep the submission queue from emptying while the reader waits
            while (!stop.get() && System.nanoTime() - deadline < 0) {
                if (fillers.size() - fillersRan.get() < fillersQueued) {
                    fillers.add(Thread.ofVirtual().start(filler));
                } else {
                    Thread.onSpinWait();
                }
            }
            if (!stop.get()) {
                throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for the"
                        + " reader to resume (" + where + "); read pollers: "
                        + sun.nio.ch.Poller.readPollers());
            }
            spinner.join(where);
            join(starter, "the starter to end (" + where + ")");
            join(reader, "the reader to read its byte (" + where + ")");
            for (Thread t : players) {
                join(t, "a ping-pong player to stop (" + where + ")");
            }
            for (Thread t : counters) {
                join(t, "a counting thread to end (" + where + ")");
            }
            for (Thread t : fillers) {
                join(t, "a filler to end (" + where + ")");
            }
            if (!Integer.valueOf(1).equals(pair.readValue.get())) {
                throw new RuntimeException(where + ": the reader read "
                        + pair.readValue.get() + ", not the byte 1 written");
            }
        }
        if (watchdogPolls() != watchdogBefore) {
            return 0;                // the watchdog queued the reader as a submission
        }
        int lateness = ranAtResume.get() - ranAtLastCounter.get();
        if (ranAtLastCounter.get() < 0 || lateness <= 0) {
            throw new RuntimeException(where + ": the reader resumed before the last of"
                    + " the " + queued + " tasks queued before the hold ran (tasks run "
                    + ranAtResume.get() + ", last counter at " + ranAtLastCounter.get()
                    + "): its readiness was taken in ahead of them; read pollers: "
                    + sun.nio.ch.Poller.readPollers());
        }
        if (lateness > maxLateness) {
            throw new RuntimeException(where + ": the reader resumed " + lateness
                    + " tasks after the last task queued before the hold ran (bound "
                    + maxLateness + "): the held-back poll waited past its turn, as the"
                    + " last task's successor took its slot; read pollers: "
                    + sun.nio.ch.Poller.readPollers());
        }
        return lateness;
    }

    /**
     * The watchdog leaves the poll to a carrier that defers it for a backlog for at
     * most 10 periods in a row (Poller's WATCHDOG_MAX_DEFERRALS), then polls. With
     * one carrier, 2,000 virtual threads are kept queued, each spinning 100 us and
     * starting its successor as it ends (12,000 in all): the carrier polls only
     * after running 2,000 tasks (about 200 ms), so the watchdog must poll in
     * between, and it counts at most 10 deferrals between two polls (anyone's):
     * at most 10 x (polls + 1) in all. Counts, not times: a carrier descheduled on
     * a loaded machine defers less. One run.
     */
    static void watchdogDeferralCap() throws Exception {
        final String name = "watchdog deferral cap";
        if (PARALLELISM != 1) {
            System.out.println(name + ": skipped, needs parallelism 1");
            return;
        }
        final int queued = 2000, total = 12000, maxDeferrals = 10;
        final long spinNanos = TimeUnit.MICROSECONDS.toNanos(100);
        var started = new AtomicInteger();
        var ended = new AtomicInteger();
        long watchdogBefore = watchdogPolls();
        long allBefore = allPolls();
        long deferralsBefore = watchdogDeferrals();
        class Spinner implements Runnable {
            public void run() {
                long end = System.nanoTime() + spinNanos;
                while (System.nanoTime() - end < 0) {
                    Thread.onSpinWait();
                }
                if (started.getAndIncrement() < total) {
                    Thread.ofVirtual().start(new Spinner());
                } else {
                    started.decrementAndGet();
                }
                ended.incrementAndGet();
            }
        }
        Thread starter = Thread.ofVirtual().start(() -> {
            for (int i = 0; i < queued; i++) {
                started.incrementAndGet();
                Thread.ofVirtual().start(new Spinner());
            }
        });
        join(starter, "the starter to start " + queued + " spinners (" + name + ")");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
        while (ended.get() < started.get() || started.get() < total) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException(name + ": waited " + WATCHDOG_SECONDS + " s for "
                        + total + " spinners to end, ended " + ended.get());
            }
            Thread.sleep(1);  // polling a counter, not synchronising
        }
        long polls = watchdogPolls() - watchdogBefore;
        long all = allPolls() - allBefore;
        long deferrals = watchdogDeferrals() - deferralsBefore;
        System.out.println(name + ": " + deferrals + " deferrals, " + all + " polls, "
                + polls + " of them by the watchdog (" + total + " spinners, " + queued
                + " queued)");
        if (polls == 0 || deferrals > maxDeferrals * (all + 1)) {
            throw new RuntimeException(name + ": " + deferrals + " deferrals and " + all
                    + " polls (" + polls + " by the watchdog) while a backlog of " + queued
                    + " tasks held the carrier's poll back: the watchdog must poll after at"
                    + " most " + maxDeferrals + " deferrals in a row; read pollers: "
                    + sun.nio.ch.Poller.readPollers());
        }
    }

    /**
     * Starts a dispatcher: a virtual thread that writes a byte to the pair's peer,
     * then, every time its read of the pair's channel returns, runs onWake and
     * starts fanOut virtual threads (total in all) that each spin for spinNanos
     * and write a byte back to the peer.
     */
    static Thread startDispatcher(Pair pair, int fanOut, int total, long spinNanos,
                                  AtomicInteger started, AtomicInteger ended,
                                  AtomicReference<Throwable> failure, Runnable onWake) {
        return Thread.ofVirtual().start(() -> {
            ByteBuffer bb = ByteBuffer.allocate(4096);
            try {
                pair.peer.write(ByteBuffer.wrap(new byte[] { 1 }));
                while (started.get() < total) {
                    bb.clear();
                    if (pair.channel.read(bb) < 0) {
                        return;
                    }
                    onWake.run();
                    for (int k = 0; k < fanOut && started.get() < total; k++) {
                        started.incrementAndGet();
                        Thread.ofVirtual().start(() -> {
                            long end = System.nanoTime() + spinNanos;
                            while (System.nanoTime() - end < 0) {
                                Thread.onSpinWait();
                            }
                            try {
                                pair.peer.write(ByteBuffer.wrap(new byte[] { 1 }));
                            } catch (IOException e) {
                                failure.compareAndSet(null, e);
                            } finally {
                                ended.incrementAndGet();
                            }
                        });
                    }
                }
            } catch (IOException e) {
                failure.compareAndSet(null, e);
            }
        });
    }

    /**
     * Readiness is not left behind a queue that keeps refilling. A feeder virtual
     * thread keeps 2 x parallelism + 2 virtual threads started, each spinning
     * 100 us (the spinners go to the feeder's submission queue, the feeder, when
     * a spinner unparks it, to that carrier's own queue, so the submission queue
     * never empties; it holds fewer than 16), while a virtual thread does 1-byte
     * round trips with a platform-thread echo peer. Each round trip must resume
     * before another 96 spinners per carrier have ended (6 polls' worth): a
     * carrier polls every ForkJoinPool.CARRIER_POLL_STAY (16) tasks, and the
     * reader then waits behind at most 16 tasks in the carrier's queue. Round
     * trips during which the watchdog polled (a carrier descheduled or paused
     * for 10 ms) are not counted. A carrier that drains a queue before it polls
     * again leaves the reader to the watchdog, whose poll queues it as a
     * submission, behind the cycle: with one carrier the reader, started from a
     * platform thread, never runs. 200 round trips; counts of ended spinners,
     * not times.
     */
    static void refillingQueue() throws Exception {
        final int roundTrips = 200, inFlight = 2 * PARALLELISM + 2;
        final int maxEndedWhileWaiting = 96 * PARALLELISM;
        final long spinNanos = TimeUnit.MICROSECONDS.toNanos(100);
        var ended = new AtomicInteger();
        var endedAtEcho = new AtomicInteger();
        var watchdogAtEcho = new AtomicLong();
        var echoes = new AtomicInteger();
        var resumes = new AtomicInteger();
        var stop = new AtomicBoolean();
        var failure = new AtomicReference<Throwable>();
        var slots = new java.util.concurrent.Semaphore(inFlight);
        int[] endedWhileWaiting = new int[roundTrips];
        try (var pair = new Pair()) {
            Thread feeder = Thread.ofVirtual().start(() -> {
                try {
                    while (!stop.get()) {
                        if (!slots.tryAcquire(WATCHDOG_SECONDS, TimeUnit.SECONDS)) {
                            throw new RuntimeException("waited " + WATCHDOG_SECONDS
                                    + " s for one of " + inFlight + " spinners to end");
                        }
                        Thread.ofVirtual().start(() -> {
                            long end = System.nanoTime() + spinNanos;
                            while (System.nanoTime() - end < 0) {
                                Thread.onSpinWait();
                            }
                            ended.incrementAndGet();
                            slots.release();
                        });
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            Thread echo = Thread.ofPlatform().start(() -> {
                ByteBuffer bb = ByteBuffer.allocate(1);
                try {
                    for (int i = 0; i < roundTrips; i++) {
                        bb.clear();
                        if (pair.peer.read(bb) != 1) {
                            throw new IOException("echo peer: end of stream");
                        }
                        long watchdog = watchdogPolls();  // before the write: a poll
                        pair.peer.write(bb.flip());       // right after it counts
                        endedAtEcho.set(ended.get());     // after the write: a peer
                        watchdogAtEcho.set(watchdog);     // descheduled before it
                        echoes.incrementAndGet();         // is not counted
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            Thread reader = Thread.ofVirtual().start(() -> {
                ByteBuffer bb = ByteBuffer.allocate(1);
                try {
                    for (int i = 0; i < roundTrips; i++) {
                        pair.channel.write(bb.clear().put((byte) i).flip());
                        bb.clear();
                        if (pair.channel.read(bb) != 1 || bb.get(0) != (byte) i) {
                            throw new IOException("round trip " + i + ": wrong reply");
                        }
                        while (echoes.get() <= i) {
                            Thread.onSpinWait();  // the peer has yet to count its write
                        }
                        int endedNow = ended.get();
                        endedWhileWaiting[i] = watchdogPolls() == watchdogAtEcho.get()
                                ? endedNow - endedAtEcho.get() : -1;  // -1: not counted
                        resumes.incrementAndGet();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            try {
                // the watchdog bounds each round trip, not the run
                int lastResumed = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
                while (reader.isAlive() && failure.get() == null) {
                    // fail as soon as a reply has waited too long, not at the deadline
                    int resumed = resumes.get();
                    if (resumed != lastResumed) {
                        lastResumed = resumed;
                        deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
                    }
                    if (echoes.get() > resumed
                            && ended.get() - endedAtEcho.get() > maxEndedWhileWaiting
                            && watchdogPolls() == watchdogAtEcho.get()
                            && resumes.get() == resumed) {
                        throw new RuntimeException("refilling queue: round trip " + resumed
                                + ": the reply arrived and " + maxEndedWhileWaiting
                                + " spinners have ended since, but the reader has not"
                                + " resumed: readiness was left behind queues that keep"
                                + " refilling; read pollers: "
                                + sun.nio.ch.Poller.readPollers());
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new RuntimeException("refilling queue: waited "
                                + WATCHDOG_SECONDS + " s for round trip " + lastResumed
                                + " of " + roundTrips + " beside " + inFlight
                                + " spinners in flight, " + ended.get() + " spinners"
                                + " ended: a reader started from a platform thread, or"
                                + " whose reply arrived, was left behind queues that keep"
                                + " refilling; read pollers: "
                                + sun.nio.ch.Poller.readPollers());
                    }
                    Thread.sleep(1);  // polling counters, not synchronising
                }
            } finally {
                stop.set(true);
                pair.close();  // ends the reader and the echo peer if they still wait
                join(reader, "the reader to end");
                join(echo, "the echo peer to end");
                join(feeder, "the feeder to stop");
            }
        }
        if (failure.get() != null) {
            throw new RuntimeException("refilling queue failed", failure.get());
        }
        int[] sorted = Arrays.stream(endedWhileWaiting).filter(n -> n >= 0).sorted().toArray();
        if (sorted.length < roundTrips / 2) {
            throw new RuntimeException("refilling queue: the watchdog polled during "
                    + (roundTrips - sorted.length) + " of " + roundTrips + " round trips:"
                    + " the carriers did not poll; read pollers: "
                    + sun.nio.ch.Poller.readPollers());
        }
        int worst = sorted[sorted.length - 1];
        System.out.println("refilling queue: spinners that ended while a round trip waited:"
                + " median " + sorted[sorted.length / 2] + ", worst " + worst + " ("
                + sorted.length + " of " + roundTrips + " round trips counted, "
                + inFlight + " spinners in flight)");
        if (worst > maxEndedWhileWaiting) {
            throw new RuntimeException("refilling queue: a reader whose reply had arrived"
                    + " waited while " + worst + " spinners ended (bound "
                    + maxEndedWhileWaiting + "): readiness was left behind queues that"
                    + " keep refilling; per round trip: " + Arrays.toString(endedWhileWaiting)
                    + "; read pollers: " + sun.nio.ch.Poller.readPollers());
        }
    }

    /**
     * A reader pinned to its carrier (a native frame) parks the carrier itself;
     * its data is polled by another idle carrier or by the watchdog.
     */
    static void pinnedReader() throws Exception {
        try (var pair = new Pair()) {
            var value = new AtomicReference<Integer>();
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    VThreadPinner.runPinned(() -> {
                        ByteBuffer bb = ByteBuffer.allocate(1);
                        pair.channel.read(bb);
                        value.set((int) bb.get(0));
                    });
                } catch (IOException e) {
                    if (!pair.closedUnderRead(e)) {
                        throw new RuntimeException(e);
                    }
                }
            });
            awaitParked(reader, "the pinned reader to park in its read");
            pair.peer.write(ByteBuffer.wrap(new byte[] { 9 }));
            join(reader, "the pinned reader to read its byte (nobody polled while its"
                    + " carrier was pinned)");
            if (value.get() == null || value.get() != 9) {
                throw new RuntimeException("pinned reader read " + value.get());
            }
            System.out.println("pinned reader: ok");
        }
    }

    /**
     * A carrier that blocks in a compensated operation (reading a child process's
     * output) while the only idle carrier is blocked in the poller wakes that
     * carrier to take its place, as it would release an idle carrier from the
     * pool's stack: tasks queued on its carrier without a signal must not wait for
     * I/O. Needs parallelism 3, so that the pool neither starts a spare (total
     * below parallelism) nor may just run with one active carrier fewer (active
     * above the minimum, 1).
     */
    static void compensatedBlock() throws Exception {
        if (PARALLELISM != 3) {
            System.out.println("compensated block: skipped (needs parallelism 3)");
            return;
        }
        Process cat = new ProcessBuilder("cat").start();
        try {
            var stop = new AtomicBoolean();
            var readNow = new AtomicBoolean();
            var started = new CountDownLatch(2);
            var value = new AtomicReference<Integer>();
            Thread spinner = Thread.ofVirtual().start(() -> {
                started.countDown();
                while (!stop.get()) {
                    Thread.onSpinWait();
                }
            });
            Thread catReader = Thread.ofVirtual().start(() -> {
                started.countDown();
                while (!readNow.get()) {
                    Thread.onSpinWait();
                }
                try {
                    value.set(cat.getInputStream().read());   // Blocker: compensated
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            if (!started.await(WATCHDOG_SECONDS, TimeUnit.SECONDS)) {
                throw new RuntimeException("the spinner and the process reader did not start");
            }
            // two carriers spin: the third, idle, blocks in the poller
            String before = awaitPollerState("BLOCKING",
                    "the idle carrier to block in the poller while two carriers spin");
            long wakeupsBefore = counter(before, "eventfd wakeups");
            readNow.set(true);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
            String now;
            while (counter(now = sun.nio.ch.Poller.readPollers().toString(), "eventfd wakeups")
                    == wakeupsBefore) {
                if (System.nanoTime() - deadline > 0) {
                    throw new RuntimeException("compensated block: a carrier blocked reading"
                            + " a process's output did not wake the carrier blocked in the"
                            + " poller in " + WATCHDOG_SECONDS + " s; reader state "
                            + catReader.getState() + "; read pollers: " + now);
                }
                Thread.sleep(1);  // polling a counter, not synchronising
            }
            cat.getOutputStream().write(5);
            cat.getOutputStream().flush();
            join(catReader, "the process reader to read its byte");
            stop.set(true);
            join(spinner, "the spinner to stop");
            if (value.get() == null || value.get() != 5) {
                throw new RuntimeException("process reader read " + value.get());
            }
            System.out.println("compensated block: ok");
        } finally {
            cat.destroy();
        }
    }

    /**
     * An idle carrier still blocks in the poller when the pool has more carriers than
     * its parallelism: while the only carrier is blocked in a compensated operation
     * (reading a child process's output), the spare started for it must wait for I/O
     * in the poller rather than park (readiness would then wait for the watchdog).
     */
    static void pollsWithSpare() throws Exception {
        if (PARALLELISM != 1) {
            System.out.println("polls with a spare: skipped (needs parallelism 1)");
            return;
        }
        final int iterations = 5;
        Process cat = new ProcessBuilder("cat").start();
        try {
            var value = new AtomicReference<Integer>();
            Thread catReader = Thread.ofVirtual().start(() -> {
                try {
                    value.set(cat.getInputStream().read());   // Blocker: compensated
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
            while (carriers() < 2) {
                if (System.nanoTime() - deadline > 0) {
                    throw new RuntimeException("polls with a spare: the pool did not start a"
                            + " spare carrier in " + WATCHDOG_SECONDS + " s while its only"
                            + " carrier blocked reading a process's output");
                }
                Thread.sleep(1);  // polling the thread count, not synchronising
            }
            for (int i = 0; i < iterations; i++) {
                try (var pair = new Pair()) {
                    Thread reader = pair.startReader();
                    awaitParked(reader, "the reader to park in its read");
                    awaitPollerState("BLOCKING", "the spare carrier to block in the poller"
                            + " while the other blocks reading a process's output ("
                            + carriers() + " carriers for parallelism 1; iteration " + i
                            + " of " + iterations + ")");
                    pair.peer.write(ByteBuffer.wrap(new byte[] { 3 }));
                    join(reader, "the reader to read its byte");
                    if (pair.readValue.get() != 3) {
                        throw new RuntimeException("reader read " + pair.readValue.get());
                    }
                }
            }
            cat.getOutputStream().write(5);
            cat.getOutputStream().flush();
            join(catReader, "the process reader to read its byte");
            if (value.get() == null || value.get() != 5) {
                throw new RuntimeException("process reader read " + value.get());
            }
        } finally {
            cat.destroy();
        }
        System.out.println("polls with a spare: " + iterations + " reads while a carrier"
                + " was blocked in a compensated read");
    }

    /**
     * Echo over many connections, every byte checked.
     */
    static void echo(int connections, int roundTrips) throws Exception {
        List<Pair> pairs = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        var failure = new AtomicReference<Throwable>();
        try {
            for (int i = 0; i < connections; i++) {
                Pair pair = new Pair();
                pairs.add(pair);
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        ByteBuffer bb = ByteBuffer.allocate(1);
                        for (int r = 0; r < roundTrips; r++) {
                            bb.clear();
                            if (pair.peer.read(bb) != 1) throw new IOException("EOF");
                            bb.flip();
                            pair.peer.write(bb);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
                threads.add(Thread.ofVirtual().start(() -> {
                    try {
                        ByteBuffer bb = ByteBuffer.allocate(1);
                        for (int r = 0; r < roundTrips; r++) {
                            bb.clear().put((byte) r).flip();
                            pair.channel.write(bb);
                            bb.clear();
                            if (pair.channel.read(bb) != 1) throw new IOException("EOF");
                            if (bb.get(0) != (byte) r) {
                                throw new IOException("round trip " + r + ": got " + bb.get(0));
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }));
            }
            for (Thread t : threads) {
                join(t, connections + " echo connections to do " + roundTrips + " round trips");
            }
        } finally {
            for (Pair pair : pairs) pair.close();
        }
        if (failure.get() != null) {
            throw new RuntimeException("echo failed", failure.get());
        }
        System.out.println("echo: " + connections + " x " + roundTrips + " round trips");
    }

    /** A connected pair of socket channels; the reader reads one byte from channel. */
    /**
     * A virtual thread that holds a carrier, spinning until released or until
     * WATCHDOG_SECONDS have passed; the constructor returns once it runs.
     */
    static final class CarrierHolder {
        private final AtomicBoolean released = new AtomicBoolean();
        private final Thread thread;

        CarrierHolder(String where) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
            var spinning = new CountDownLatch(1);
            thread = Thread.ofVirtual().start(() -> {
                spinning.countDown();
                while (!released.get() && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
            });
            if (!spinning.await(WATCHDOG_SECONDS, TimeUnit.SECONDS)) {
                throw new RuntimeException(where + ": the spinner did not start");
            }
        }

        void release() {
            released.set(true);
        }

        void join(String where) throws InterruptedException {
            CarrierPollerWaits.join(thread, "the spinner to end (" + where + ")");
        }
    }

    static class Pair implements AutoCloseable {
        final SocketChannel channel;
        final SocketChannel peer;
        final AtomicReference<Integer> readValue = new AtomicReference<>();
        private volatile boolean closed;

        Pair() throws IOException {
            var loopback = InetAddress.getLoopbackAddress();
            try (var listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0))) {
                channel = SocketChannel.open(listener.getLocalAddress());
                peer = listener.accept();
            }
        }

        Thread startReader() {
            return startReader(() -> { });
        }

        /** Starts a reader of one byte that runs atResume as soon as its read returns. */
        Thread startReader(Runnable atResume) {
            return Thread.ofVirtual().start(() -> {
                try {
                    ByteBuffer bb = ByteBuffer.allocate(1);
                    int n = channel.read(bb);
                    atResume.run();
                    if (n == 1) {
                        readValue.set((int) bb.get(0));
                    }
                } catch (IOException e) {
                    if (!closedUnderRead(e)) {
                        throw new RuntimeException(e);
                    }
                }
            });
        }

        /**
         * Returns true if e is the read's answer to this pair's close (a test that
         * failed, or ended without giving the reader its byte, closes the pair).
         */
        boolean closedUnderRead(IOException e) {
            return closed && e instanceof ClosedChannelException;
        }

        @Override
        public void close() throws IOException {
            closed = true;
            channel.close();
            peer.close();
        }
    }

    /**
     * Returns false (the case is skipped) unless the pool has parallelism 1;
     * throws if it has more than its one carrier.
     */
    static boolean onlyCarrier(String name) {
        if (PARALLELISM != 1) {
            System.out.println(name + ": skipped, needs parallelism 1");
            return false;
        }
        if (carriers() != 1) {
            throw new RuntimeException(name + ": needs the pool's only carrier, found "
                    + carriers() + " carriers (a spare from a compensated block?)");
        }
        return true;
    }

    static long watchdogPolls() {
        return counter(sun.nio.ch.Poller.readPollers().toString(), "watchdog polls");
    }

    /**
     * Returns the time the carriers have spent waiting for a CPU on a run queue,
     * from /proc/self/task/TID/schedstat: threads whose name starts with
     * "ForkJoin" (the kernel's copy of a name is shortened; this test uses no
     * other pool).
     */
    static long carriersRunQueueNanos() throws IOException {
        long sum = 0;
        try (var tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path task : tasks.toList()) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith("ForkJoi")) {
                        String[] f = Files.readString(task.resolve("schedstat")).trim().split(" ");
                        sum += Long.parseLong(f[1]);
                    }
                } catch (IOException e) {
                    // the thread ended
                }
            }
        }
        return sum;
    }

    /**
     * Returns the polls of the carrier poller: blocking, between tasks and the
     * watchdog's.
     */
    static long allPolls() {
        String text = sun.nio.ch.Poller.readPollers().toString();
        return counter(text, "blocking polls") + counter(text, "polls between tasks")
                + counter(text, "watchdog polls");
    }

    static long watchdogDeferrals() {
        return counter(sun.nio.ch.Poller.readPollers().toString(), "watchdog deferrals");
    }
}
