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
 * @test id=default
 * @summary Torture: close, interrupt and timeout storms against blocked readers
 *     while data arrives at random times. A reader must see every byte in order up
 *     to the point where it was closed or interrupted, and all bytes when it only
 *     timed out. Feature off. Long mode: -Dtorture.long=true (300,000 connections).
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm CloseInterruptTimeoutStorm
 */

/*
 * @test id=et-mode1
 * @summary Torture: close/interrupt/timeout storms, edge-triggered read pollers, pollerMode 1
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 CloseInterruptTimeoutStorm
 */

/*
 * @test id=et-mode2
 * @summary Torture: close/interrupt/timeout storms, edge-triggered read pollers, pollerMode 2
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 CloseInterruptTimeoutStorm
 */

/*
 * @test id=et-mode3
 * @summary Torture: close/interrupt/timeout storms, feature on with pollerMode 3 (stays one-shot)
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=3 CloseInterruptTimeoutStorm
 */

/*
 * @test id=mode4
 * @summary Torture: close/interrupt/timeout storms, carrier polling (pollerMode 4), edge-triggered
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 CloseInterruptTimeoutStorm
 */

/*
 * @test id=mode4-p1
 * @summary Torture: close/interrupt/timeout storms, carrier polling (pollerMode 4), edge-triggered, parallelism 1
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 -Djdk.virtualThreadScheduler.parallelism=1 CloseInterruptTimeoutStorm
 */

/*
 * @test id=mode4-spin-p6
 * @summary Torture: close/interrupt/timeout storms, carrier polling (pollerMode 4), edge-triggered, an idle carrier spins up to 1 ms before it blocks (one slot, so that no more file descriptors are registered than carriers: 3 listeners and the pair; one slot runs the connections one at a time, so the long run does a tenth of the usual 300,000), parallelism 6
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=1000 -Djdk.virtualThreadScheduler.parallelism=6 -Dtorture.slots=1 -Dtorture.iterations=30000 CloseInterruptTimeoutStorm
 */

/*
 * @test id=et-readPollers1
 * @summary Torture: close/interrupt/timeout storms, edge-triggered, a single read poller
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.readPollers=1 CloseInterruptTimeoutStorm
 */

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

public class CloseInterruptTimeoutStorm {

    enum Action { NONE, TIMEOUTS, CLOSE, INTERRUPT }

    static final TortureSupport.Kind[] KINDS = TortureSupport.Kind.values();

    final TortureSupport.Budget budget = new TortureSupport.Budget(3_000, 300_000);
    final TortureSupport.Watchdog watchdog = new TortureSupport.Watchdog("CloseInterruptTimeoutStorm");
    final TortureSupport.Servers servers;
    final AtomicLong ids = new AtomicLong();

    // outcome counters: "<action>/<kind> -> <outcome>"
    final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    final LongAdder timeouts = new LongAdder();
    final LongAdder bytes = new LongAdder();
    final LongAdder agitatedWhileParked = new LongAdder();

    CloseInterruptTimeoutStorm() throws IOException {
        servers = new TortureSupport.Servers(watchdog);
    }

    void count(String key) {
        outcomes.computeIfAbsent(key, k -> new LongAdder()).increment();
    }

    /** One connection: a reader, a writer on the server side, maybe an agitator. */
    final class Round implements TortureSupport.Watched {
        final long id;
        final SplittableRandom rnd;
        final TortureSupport.Kind kind;
        final Action action;
        final int total;
        volatile TortureSupport.Conn client;
        volatile TortureSupport.Conn server;
        volatile Thread reader;
        volatile String readerPhase = "not started";
        volatile String writerPhase = "not started";
        volatile String agitatorPhase = "-";
        volatile long received;
        volatile long written;
        volatile Throwable readerFailure;
        volatile Throwable writerFailure;
        volatile String outcome;

        Round(long id) {
            this.id = id;
            this.rnd = new SplittableRandom(id * 7919);
            this.kind = KINDS[rnd.nextInt(KINDS.length)];
            Action a = Action.values()[rnd.nextInt(Action.values().length)];
            // channel reads have no timeout
            if (a == Action.TIMEOUTS && !hasTimeouts(kind))
                a = Action.NONE;
            this.action = a;
            this.total = 1 + rnd.nextInt(rnd.nextBoolean() ? 2048 : 256 * 1024);
        }

        static boolean hasTimeouts(TortureSupport.Kind kind) {
            return kind == TortureSupport.Kind.TCP_SOCKET || kind == TortureSupport.Kind.TCP_ADAPTOR;
        }

        @Override
        public Thread thread() {
            return reader;
        }

        @Override
        public String describe() {
            return "connection " + id + " " + kind + " action " + action + ", client " + client
                    + ", server " + server + ": reader " + readerPhase + " (" + received + "/" + total
                    + " bytes), writer " + writerPhase + " (" + written + " bytes), agitator "
                    + agitatorPhase;
        }

        void run() throws Exception {
            watchdog.watch(this);
            try {
                client = servers.connect(kind, id);
                server = servers.accepted(id);
                client.setLingerZero();
                if (hasTimeouts(kind))
                    client.setReadTimeout(action == Action.TIMEOUTS ? 1 + rnd.nextInt(3) : 0);
                long wseed = rnd.nextLong();
                long aseed = rnd.nextLong();
                Thread writer = Thread.ofVirtual().name("writer-" + id).start(() -> write(wseed));
                reader = Thread.ofVirtual().name("reader-" + id).start(this::read);
                Thread agitator = null;
                if (action == Action.CLOSE || action == Action.INTERRUPT)
                    agitator = Thread.ofVirtual().name("agitator-" + id).start(() -> agitate(aseed));
                watchdog.join(reader);
                if (agitator != null)
                    watchdog.join(agitator);
                // the reader is done: unblock a writer stuck on a full socket buffer
                TortureSupport.closeQuietly(client);
                watchdog.join(writer);
                if (readerFailure != null)
                    throw new RuntimeException(describe(), readerFailure);
                if (writerFailure != null)
                    throw new RuntimeException(describe(), writerFailure);
                count(action + " " + outcome);
            } finally {
                TortureSupport.closeQuietly(client);
                TortureSupport.closeQuietly(server);
                watchdog.unwatch(this);
            }
        }

        void write(long seed) {
            SplittableRandom r = new SplittableRandom(seed);
            TortureSupport.ByteSeq seq = new TortureSupport.ByteSeq(id);
            byte[] buf = new byte[8192];
            try {
                int left = total;
                while (left > 0) {
                    int n = Math.min(left, 1 + r.nextInt(r.nextBoolean() ? 64 : buf.length));
                    seq.fill(buf, 0, n);
                    writerPhase = "writing " + n + " bytes";
                    server.write(buf, 0, n);
                    written += n;
                    left -= n;
                    writerPhase = "pausing";
                    switch (r.nextInt(4)) {
                        case 0 -> { }
                        case 1 -> Thread.yield();
                        case 2 -> LockSupport.parkNanos(r.nextInt(200_000));
                        default -> Thread.sleep(r.nextInt(3));
                    }
                }
                writerPhase = "shutting down the output";
                server.shutdownOutput();
                writerPhase = "done";
            } catch (IOException e) {
                // expected once the reader's side is closed
                writerPhase = "stopped: " + e;
                if (action == Action.NONE || action == Action.TIMEOUTS) {
                    if (outcome == null || !outcome.startsWith("complete"))
                        writerFailure = e;
                }
            } catch (Throwable e) {
                writerFailure = e;
                writerPhase = "failed: " + e;
            }
        }

        void read() {
            TortureSupport.ByteSeq seq = new TortureSupport.ByteSeq(id);
            SplittableRandom r = new SplittableRandom(id);
            byte[] buf = new byte[16384];
            long timeoutsHere = 0;
            try {
                while (true) {
                    int len = 1 + r.nextInt(r.nextBoolean() ? 16 : buf.length);
                    readerPhase = "reading";
                    int n;
                    try {
                        n = client.read(buf, 0, len);
                    } catch (SocketTimeoutException e) {
                        timeouts.increment();
                        timeoutsHere++;
                        continue;
                    }
                    if (n < 0)
                        break;
                    seq.verify(buf, 0, n, "connection " + id + " " + client);
                    received += n;
                    bytes.add(n);
                }
                readerPhase = "EOF";
                if (received != total)
                    throw new RuntimeException("EOF after " + received + " of " + total + " bytes");
                outcome = "complete" + (timeoutsHere > 0 ? " after timeouts" : "");
            } catch (IOException e) {
                readerPhase = "stopped: " + e;
                if (action != Action.CLOSE && action != Action.INTERRUPT) {
                    readerFailure = e;
                    return;
                }
                if (client.isOpen()) {
                    readerFailure = new RuntimeException("read failed but " + client + " is open", e);
                    return;
                }
                if (action == Action.INTERRUPT && !Thread.currentThread().isInterrupted()) {
                    readerFailure = new RuntimeException("interrupt status cleared", e);
                    return;
                }
                outcome = e.getClass().getSimpleName();
            } catch (Throwable e) {
                readerFailure = e;
                readerPhase = "failed: " + e;
            }
        }

        void agitate(long seed) {
            SplittableRandom r = new SplittableRandom(seed);
            try {
                if (r.nextBoolean()) {
                    // act on a parked reader
                    agitatorPhase = "waiting for the reader to park";
                    Thread.State st;
                    for (int check = 0; (st = reader.getState()) != Thread.State.WAITING
                            && st != Thread.State.TIMED_WAITING && st != Thread.State.TERMINATED;
                            check++) {
                        TortureSupport.pauseWhileWaiting(check);
                    }
                    if (st != Thread.State.TERMINATED)
                        agitatedWhileParked.increment();
                } else {
                    agitatorPhase = "sleeping";
                    LockSupport.parkNanos(r.nextLong(TimeUnit.MILLISECONDS.toNanos(3)));
                }
                if (action == Action.CLOSE) {
                    agitatorPhase = "closing the reader's socket";
                    client.close();
                } else {
                    agitatorPhase = "interrupting the reader";
                    reader.interrupt();
                }
                agitatorPhase = "done";
            } catch (Throwable e) {
                agitatorPhase = "failed: " + e;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        TortureSupport.PollerProbe.Snapshot baseline = TortureSupport.PollerProbe.snapshot();
        int slots = Integer.getInteger("torture.slots", 32);
        System.out.println("CloseInterruptTimeoutStorm: " + TortureSupport.config() + ", slots=" + slots);
        CloseInterruptTimeoutStorm test = new CloseInterruptTimeoutStorm();
        System.out.println("budget: " + test.budget);
        String pollers;
        try (test.watchdog) {
            Thread[] threads = new Thread[slots];
            Throwable[] failures = new Throwable[slots];
            for (int i = 0; i < slots; i++) {
                int index = i;
                threads[i] = Thread.ofVirtual().name("slot-" + i).start(() -> {
                    try {
                        while (failures[index] == null && test.budget.claim()) {
                            test.new Round(test.ids.incrementAndGet()).run();
                            test.budget.done(1);
                            test.watchdog.progress();
                        }
                    } catch (Throwable e) {
                        failures[index] = e;
                    }
                });
            }
            for (Thread t : threads)
                test.watchdog.join(t);
            for (Throwable f : failures) {
                if (f != null)
                    throw new RuntimeException(f);
            }
            test.servers.close();
            pollers = TortureSupport.PollerProbe.checkAtEnd(baseline);
        }
        long done = test.budget.done();
        System.out.println("connections=" + done + " bytes=" + test.bytes.sum() + " timeouts="
                + test.timeouts.sum() + " agitatedWhileParked=" + test.agitatedWhileParked.sum());
        Map<String, Long> sorted = new TreeMap<>();
        test.outcomes.forEach((k, v) -> sorted.put(k, v.sum()));
        sorted.forEach((k, v) -> System.out.println("  " + k + ": " + v));
        System.out.println("pollers: " + pollers);
        if (done == 0)
            throw new RuntimeException("no connection");
        TortureSupport.summary("CloseInterruptTimeoutStorm", test.budget,
                "connections=" + done + " timeouts=" + test.timeouts.sum()
                        + " agitatedWhileParked=" + test.agitatedWhileParked.sum(), pollers);
    }
}
