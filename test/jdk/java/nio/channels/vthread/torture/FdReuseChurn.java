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
 * @summary Torture: file descriptor reuse churn. Virtual threads connect, park in a
 *     blocking read (the peer replies only once the reader is parked), read EOF and
 *     close, over and over, so fd numbers are reused by new sockets all the time,
 *     while child processes are spawned (their fork/exec window briefly holds
 *     duplicates of the fds). Feature off. Long mode: -Dtorture.long=true (1,000,000 cycles).
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm FdReuseChurn
 */

/*
 * @test id=et-mode1
 * @summary Torture: fd reuse churn, edge-triggered read pollers, pollerMode 1
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 FdReuseChurn
 */

/*
 * @test id=et-mode2
 * @summary Torture: fd reuse churn, edge-triggered read pollers, pollerMode 2
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 FdReuseChurn
 */

/*
 * @test id=et-mode3
 * @summary Torture: fd reuse churn, feature on with pollerMode 3 (stays one-shot)
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=3 FdReuseChurn
 */

/*
 * @test id=mode4
 * @summary Torture: fd reuse churn, carrier polling (pollerMode 4), edge-triggered
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 FdReuseChurn
 */

/*
 * @test id=mode4-p1
 * @summary Torture: fd reuse churn, carrier polling (pollerMode 4), edge-triggered, parallelism 1
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 -Djdk.virtualThreadScheduler.parallelism=1 FdReuseChurn
 */

/*
 * @test id=et-readPollers1
 * @summary Torture: fd reuse churn, edge-triggered read pollers, a single read poller
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.readPollers=1 FdReuseChurn
 */

import java.io.IOException;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

public class FdReuseChurn {

    // what a worker does, for the watchdog
    static final String CONNECTING = "connecting";
    static final String READING_REPLY = "reading the reply (parked until the peer writes)";
    static final String WRITING_ACK = "writing the ack";
    static final String READING_EOF = "reading EOF after the peer's close";
    static final String CLOSING = "closing";
    static final String JOINING_PEER = "waiting for the peer thread to finish";

    static final TortureSupport.Kind[] KINDS = {
        TortureSupport.Kind.TCP_CHANNEL, TortureSupport.Kind.TCP_SOCKET, TortureSupport.Kind.UNIX_CHANNEL
    };

    static final int MAX_FD = 1 << 16;

    final TortureSupport.Budget budget = new TortureSupport.Budget(20_000, 1_000_000);
    final TortureSupport.Watchdog watchdog = new TortureSupport.Watchdog("FdReuseChurn");
    final TortureSupport.Servers servers;
    final AtomicLong ids = new AtomicLong();

    // fd number -> times used by a client socket / a server-side socket
    final AtomicIntegerArray clientFdUses = new AtomicIntegerArray(MAX_FD);
    final AtomicIntegerArray serverFdUses = new AtomicIntegerArray(MAX_FD);
    final LongAdder clientFdReuses = new LongAdder();
    final LongAdder serverFdReuses = new LongAdder();
    final LongAdder clientFdReusedFromServer = new LongAdder();
    final AtomicLong maxFd = new AtomicLong();

    // the peer checked (sampled) that the reader was parked in the poller
    final LongAdder parkedInPoller = new LongAdder();
    final LongAdder parkedElsewhere = new LongAdder();
    final LongAdder bytes = new LongAdder();

    FdReuseChurn() throws IOException {
        servers = new TortureSupport.Servers(watchdog);
    }

    final class Worker implements TortureSupport.Watched {
        final int index;
        volatile Thread thread;
        volatile String phase = "starting";
        volatile long cycle;
        volatile TortureSupport.Conn conn;

        Worker(int index) {
            this.index = index;
        }

        @Override
        public Thread thread() {
            return thread;
        }

        @Override
        public String describe() {
            return "worker " + index + ", cycle " + cycle + ", " + conn + ": " + phase;
        }

        void run() {
            thread = Thread.currentThread();
            watchdog.watch(this);
            try {
                while (budget.claim()) {
                    cycle();
                    budget.done(1);
                    watchdog.progress();
                }
                phase = "done";
            } catch (Throwable e) {
                phase = "failed: " + e;
                throw new RuntimeException("worker " + index + " cycle " + cycle + " " + conn, e);
            } finally {
                watchdog.unwatch(this);
            }
        }

        void cycle() throws IOException {
            long id = ids.incrementAndGet();
            cycle = id;
            conn = null;
            TortureSupport.Kind kind = KINDS[(int) (id % KINDS.length)];
            phase = CONNECTING;
            Peer peer = new Peer(this, id);
            Thread pt = Thread.ofVirtual().name("peer-" + id).start(peer::run);
            TortureSupport.Conn c = servers.connect(kind, id);
            conn = c;
            try {
                recordFd(c.fd, clientFdUses, clientFdReuses);
                if (serverFdUses.get(c.fd) > 0)
                    clientFdReusedFromServer.increment();
                c.setLingerZero();   // the close after EOF sends RST: no TIME_WAIT

                TortureSupport.ByteSeq seq = new TortureSupport.ByteSeq(id);
                int len = 1 + seq.nextInt(2048);
                byte[] buf = new byte[len];
                phase = READING_REPLY;
                c.readFully(buf, 0, len);
                seq.verify(buf, 0, len, "reply on " + c);
                bytes.add(len);

                phase = WRITING_ACK;
                c.write(new byte[] { 42 }, 0, 1);

                phase = READING_EOF;
                int n = c.read(buf, 0, 1);
                if (n != -1)
                    throw new RuntimeException("expected EOF on " + c + ", read returned " + n);
            } finally {
                phase = CLOSING;
                c.close();
            }
            phase = JOINING_PEER;
            watchdog.join(pt);
            if (peer.failure != null)
                throw new RuntimeException("peer of cycle " + id + " failed", peer.failure);
        }
    }

    final class Peer implements TortureSupport.Watched {
        final Worker worker;
        final long id;
        volatile String phase = "waiting for the connection";
        volatile TortureSupport.Conn conn;
        volatile Throwable failure;

        Peer(Worker worker, long id) {
            this.worker = worker;
            this.id = id;
        }

        @Override
        public Thread thread() {
            return null;
        }

        @Override
        public String describe() {
            return "peer of worker " + worker.index + ", cycle " + id + ", " + conn + ": " + phase;
        }

        void run() {
            watchdog.watch(this);
            try {
                TortureSupport.Conn s = servers.accepted(id);
                conn = s;
                try {
                    recordFd(s.fd, serverFdUses, serverFdReuses);
                    TortureSupport.ByteSeq seq = new TortureSupport.ByteSeq(id);
                    int len = 1 + seq.nextInt(2048);
                    byte[] reply = new byte[len];
                    seq.fill(reply, 0, len);

                    // reply only once the reader is parked in its read
                    phase = "waiting for the reader to park in its read";
                    Thread reader = worker.thread;
                    for (int check = 0; !(worker.phase == READING_REPLY && worker.cycle == id
                            && reader.getState() == Thread.State.WAITING); check++) {
                        if (!reader.isAlive())
                            throw new RuntimeException("reader terminated");
                        TortureSupport.pauseWhileWaiting(check);
                    }
                    if (id % 16 == 0) {
                        boolean inPoller = false;
                        for (StackTraceElement e : reader.getStackTrace()) {
                            if (e.getClassName().equals("sun.nio.ch.Poller")) {
                                inPoller = true;
                                break;
                            }
                        }
                        if (inPoller)
                            parkedInPoller.increment();
                        else if (worker.phase == READING_REPLY && worker.cycle == id)
                            parkedElsewhere.increment();
                    }

                    phase = "writing the reply";
                    s.write(reply, 0, len);
                    phase = "reading the ack";
                    byte[] ack = new byte[1];
                    s.readFully(ack, 0, 1);
                    if (ack[0] != 42)
                        throw new RuntimeException("bad ack " + ack[0]);
                } finally {
                    phase = "closing";
                    s.close();
                }
                phase = "done";
            } catch (Throwable e) {
                failure = e;
                phase = "failed: " + e;
            } finally {
                watchdog.unwatch(this);
            }
        }
    }

    void recordFd(int fd, AtomicIntegerArray uses, LongAdder reuses) {
        if (fd < 0 || fd >= MAX_FD)
            throw new RuntimeException("unexpected fd " + fd);
        if (uses.getAndIncrement(fd) > 0)
            reuses.increment();
        maxFd.accumulateAndGet(fd, Math::max);
    }

    public static void main(String[] args) throws Exception {
        // initializes the pollers with this JVM's configuration
        TortureSupport.PollerProbe.Snapshot baseline = TortureSupport.PollerProbe.snapshot();
        int workers = Integer.getInteger("torture.workers", 8);
        System.out.println("FdReuseChurn: " + TortureSupport.config() + ", workers=" + workers);
        FdReuseChurn test = new FdReuseChurn();
        System.out.println("budget: " + test.budget);
        // hazard: a child process briefly holds duplicates of the parent's fds (the
        // fork/exec window), so the kernel keeps a closed socket's file alive
        boolean spawn = !"false".equals(System.getProperty("torture.spawn"));
        LongAdder spawned = new LongAdder();
        java.util.concurrent.atomic.AtomicBoolean stopSpawning = new java.util.concurrent.atomic.AtomicBoolean();
        Thread spawner = !spawn ? null : Thread.ofPlatform().daemon().name("spawner").start(() -> {
            while (!stopSpawning.get()) {
                try {
                    new ProcessBuilder("true").start().waitFor();
                    spawned.increment();
                } catch (IOException | InterruptedException e) {
                    break;
                }
            }
        });
        String pollers;
        try (test.watchdog) {
            Thread[] threads = new Thread[workers];
            Worker[] ws = new Worker[workers];
            Throwable[] failures = new Throwable[workers];
            for (int i = 0; i < workers; i++) {
                Worker w = ws[i] = test.new Worker(i);
                int index = i;
                threads[i] = Thread.ofVirtual().name("worker-" + i).start(() -> {
                    try {
                        w.run();
                    } catch (Throwable e) {
                        failures[index] = e;
                    }
                });
            }
            for (Thread t : threads)
                test.watchdog.join(t);
            stopSpawning.set(true);
            if (spawner != null)
                test.watchdog.join(spawner);
            for (Throwable f : failures) {
                if (f != null)
                    throw new RuntimeException(f);
            }
            test.servers.close();
            pollers = TortureSupport.PollerProbe.checkAtEnd(baseline);
        }

        long cycles = test.budget.done();
        long distinct = 0;
        for (int i = 0; i < MAX_FD; i++)
            if (test.clientFdUses.get(i) > 0) distinct++;
        System.out.printf("cycles=%d accepted=%d bytes=%d%n", cycles, test.servers.acceptedCount(),
                test.bytes.sum());
        System.out.printf("client fds: %d distinct numbers, %d reuses of a number used by an earlier"
                + " client socket, %d of a number used by an earlier server-side socket; server-side"
                + " reuses %d; max fd %d%n", distinct, test.clientFdReuses.sum(),
                test.clientFdReusedFromServer.sum(), test.serverFdReuses.sum(), test.maxFd.get());
        System.out.printf("sampled readers parked in sun.nio.ch.Poller: %d, parked elsewhere: %d%n",
                test.parkedInPoller.sum(), test.parkedElsewhere.sum());
        System.out.println("child processes spawned meanwhile: " + spawned.sum());
        System.out.println("pollers: " + pollers);

        if (cycles == 0)
            throw new RuntimeException("no cycle ran");
        if (test.servers.acceptedCount() != cycles)
            throw new RuntimeException("accepted " + test.servers.acceptedCount() + " connections for "
                    + cycles + " cycles");
        if (cycles >= 100 && test.clientFdReuses.sum() == 0)
            throw new RuntimeException("fd numbers were not reused: the test did not test fd reuse");
        if (test.parkedInPoller.sum() == 0 && cycles >= 100)
            throw new RuntimeException("no sampled reader was parked in the poller");
        TortureSupport.summary("FdReuseChurn", test.budget,
                "fdReuses=" + test.clientFdReuses.sum() + " distinctFds=" + distinct
                        + " maxFd=" + test.maxFd.get()
                        + " parkedInPoller=" + test.parkedInPoller.sum()
                        + " processesSpawned=" + spawned.sum(), pollers);
    }
}
