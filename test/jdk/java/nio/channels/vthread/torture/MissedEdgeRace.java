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
 * @test id=off-p1
 * @summary Torture: missed-edge race. Pairs of virtual threads play one-byte
 *     ping-pong over sockets and pipes, so that data often arrives between a read's
 *     EAGAIN and the park. One read poller; scheduler parallelism 1; feature off.
 *     Long mode: -Dtorture.long=true (10,000,000 round trips).
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.readPollers=1 -Djdk.virtualThreadScheduler.parallelism=1 MissedEdgeRace
 */

/*
 * @test id=off-p2
 * @summary Torture: missed-edge race, feature off, one read poller, parallelism 2
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.readPollers=1 -Djdk.virtualThreadScheduler.parallelism=2 MissedEdgeRace
 */

/*
 * @test id=et-mode1-p1
 * @summary Torture: missed-edge race, edge-triggered, pollerMode 1, one read poller, parallelism 1
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 -Djdk.readPollers=1
 *                   -Djdk.virtualThreadScheduler.parallelism=1 MissedEdgeRace
 */

/*
 * @test id=et-mode1-p2
 * @summary Torture: missed-edge race, edge-triggered, pollerMode 1, one read poller, parallelism 2
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 -Djdk.readPollers=1
 *                   -Djdk.virtualThreadScheduler.parallelism=2 MissedEdgeRace
 */

/*
 * @test id=et-mode2-p1
 * @summary Torture: missed-edge race, edge-triggered, pollerMode 2, one read poller, parallelism 1
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 -Djdk.readPollers=1
 *                   -Djdk.virtualThreadScheduler.parallelism=1 MissedEdgeRace
 */

/*
 * @test id=et-mode2-p2
 * @summary Torture: missed-edge race, edge-triggered, pollerMode 2, one read poller, parallelism 2
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 -Djdk.readPollers=1
 *                   -Djdk.virtualThreadScheduler.parallelism=2 MissedEdgeRace
 */

/*
 * @test id=et-mode3-p1
 * @summary Torture: missed-edge race, feature on with pollerMode 3 (stays one-shot), parallelism 1
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=3 -Djdk.readPollers=1
 *                   -Djdk.virtualThreadScheduler.parallelism=1 MissedEdgeRace
 */

/*
 * @test id=et-mode3-p2
 * @summary Torture: missed-edge race, feature on with pollerMode 3 (stays one-shot), parallelism 2
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=3 -Djdk.readPollers=1
 *                   -Djdk.virtualThreadScheduler.parallelism=2 MissedEdgeRace
 */

/*
 * @test id=mode4-p1
 * @summary Torture: missed-edge race, carrier polling (pollerMode 4), edge-triggered, parallelism 1
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 -Djdk.virtualThreadScheduler.parallelism=1 MissedEdgeRace
 */

/*
 * @test id=mode4-spin-p6
 * @summary Torture: missed-edge race, carrier polling (pollerMode 4), edge-triggered, an idle carrier spins up to 1 ms before it blocks (one pair, so that no more file descriptors are registered than carriers: 3 listeners and the pair), parallelism 6
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=1000 -Djdk.virtualThreadScheduler.parallelism=6 -Dtorture.pairs=1 MissedEdgeRace
 */

/*
 * @test id=mode4-p2
 * @summary Torture: missed-edge race, carrier polling (pollerMode 4), edge-triggered, parallelism 2
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 -Djdk.virtualThreadScheduler.parallelism=2 MissedEdgeRace
 */

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

public class MissedEdgeRace {

    // round trips claimed from the budget at a time
    static final int CHUNK = 256;

    final TortureSupport.Budget budget = new TortureSupport.Budget(200_000, 10_000_000);
    final TortureSupport.Watchdog watchdog = new TortureSupport.Watchdog("MissedEdgeRace");
    final LongAdder[] perKind = new LongAdder[5];

    /** A byte pipe with a blocking API, either a connection or a java.nio Pipe. */
    interface Duplex {
        int read(byte[] b) throws IOException;          // one byte, -1 on EOF
        void write(byte[] b) throws IOException;        // one byte
        void shutdownOutput() throws IOException;
        void close() throws IOException;
    }

    static Duplex of(TortureSupport.Conn c) {
        return new Duplex() {
            public int read(byte[] b) throws IOException { return c.read(b, 0, 1); }
            public void write(byte[] b) throws IOException { c.write(b, 0, 1); }
            public void shutdownOutput() throws IOException { c.shutdownOutput(); }
            public void close() throws IOException { c.close(); }
            public String toString() { return c.toString(); }
        };
    }

    static Duplex of(Pipe.SourceChannel in, Pipe.SinkChannel out, String name) {
        return new Duplex() {
            public int read(byte[] b) throws IOException { return in.read(ByteBuffer.wrap(b)); }
            public void write(byte[] b) throws IOException {
                ByteBuffer bb = ByteBuffer.wrap(b);
                while (bb.hasRemaining())
                    out.write(bb);
            }
            public void shutdownOutput() throws IOException { out.close(); }
            public void close() throws IOException { in.close(); out.close(); }
            public String toString() { return name; }
        };
    }

    final class Side implements TortureSupport.Watched {
        final String name;
        final Duplex d;
        final TortureSupport.ByteSeq sent;
        final TortureSupport.ByteSeq expected;
        volatile Thread thread;
        volatile String phase = "starting";
        volatile long roundTrips;
        volatile Throwable failure;

        Side(String name, Duplex d, long seed) {
            this.name = name;
            this.d = d;
            // ping sends seq(seed), pong echoes each byte xor 0x5a
            this.sent = new TortureSupport.ByteSeq(seed);
            this.expected = new TortureSupport.ByteSeq(seed);
        }

        @Override
        public Thread thread() {
            return thread;
        }

        @Override
        public String describe() {
            return name + " (" + d + ") after " + roundTrips + " round trips: " + phase;
        }
    }

    void ping(Side s, LongAdder counter) {
        s.thread = Thread.currentThread();
        watchdog.watch(s);
        byte[] b = new byte[1];
        try {
            long n;
            while ((n = budget.claim(CHUNK)) > 0) {
                for (long i = 0; i < n; i++) {
                    byte v = s.sent.next();
                    b[0] = v;
                    s.phase = "writing a ping";
                    s.d.write(b);
                    s.phase = "reading the pong";
                    int r = s.d.read(b);
                    if (r != 1)
                        throw new RuntimeException(s.d + ": read returned " + r + " waiting for the pong");
                    if (b[0] != (byte) (v ^ 0x5a))
                        throw new RuntimeException(s.d + ": pong " + b[0] + " for ping " + v
                                + " at round trip " + s.roundTrips + " (lost or reordered byte)");
                    s.roundTrips++;
                }
                budget.done(n);
                counter.add(n);
                watchdog.progress();
            }
            s.phase = "closing the output";
            s.d.shutdownOutput();
            s.phase = "reading EOF";
            int r = s.d.read(b);
            if (r != -1)
                throw new RuntimeException(s.d + ": expected EOF, read returned " + r);
            s.phase = "done";
        } catch (Throwable e) {
            s.failure = e;
            s.phase = "failed: " + e;
        } finally {
            watchdog.unwatch(s);
        }
    }

    void pong(Side s) {
        s.thread = Thread.currentThread();
        watchdog.watch(s);
        byte[] b = new byte[1];
        try {
            while (true) {
                s.phase = "reading a ping";
                int r = s.d.read(b);
                if (r == -1)
                    break;
                if (r != 1)
                    throw new RuntimeException(s.d + ": read returned " + r);
                byte v = s.expected.next();
                if (b[0] != v)
                    throw new RuntimeException(s.d + ": ping " + b[0] + ", expected " + v
                            + " at round trip " + s.roundTrips + " (lost or reordered byte)");
                b[0] = (byte) (v ^ 0x5a);
                s.phase = "writing the pong";
                s.d.write(b);
                s.roundTrips++;
            }
            s.phase = "closing the output";
            s.d.shutdownOutput();
            s.phase = "done";
        } catch (Throwable e) {
            s.failure = e;
            s.phase = "failed: " + e;
        } finally {
            watchdog.unwatch(s);
        }
    }

    public static void main(String[] args) throws Exception {
        TortureSupport.PollerProbe.Snapshot baseline = TortureSupport.PollerProbe.snapshot();
        // more than one epoll_wait batch of fds (16 for a sub-poller, 64 otherwise)
        int pairs = Integer.getInteger("torture.pairs", 40);
        System.out.println("MissedEdgeRace: " + TortureSupport.config() + ", pairs=" + pairs);
        MissedEdgeRace test = new MissedEdgeRace();
        System.out.println("budget: " + test.budget);
        String[] kindNames = { "TCP_CHANNEL", "TCP_SOCKET", "UNIX_CHANNEL", "TCP_ADAPTOR", "PIPE" };
        for (int i = 0; i < test.perKind.length; i++)
            test.perKind[i] = new LongAdder();
        String pollers;
        try (test.watchdog; TortureSupport.Servers servers = new TortureSupport.Servers(test.watchdog)) {
            List<Side> sides = new ArrayList<>();
            List<Duplex> all = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < pairs; i++) {
                int k = i % 5;
                Duplex a, b;
                if (k < 4) {
                    TortureSupport.Kind kind = switch (k) {
                        case 0 -> TortureSupport.Kind.TCP_CHANNEL;
                        case 1 -> TortureSupport.Kind.TCP_SOCKET;
                        case 2 -> TortureSupport.Kind.UNIX_CHANNEL;
                        default -> TortureSupport.Kind.TCP_ADAPTOR;
                    };
                    TortureSupport.Conn c = servers.connect(kind, i);
                    a = of(c);
                    b = of(servers.accepted(i));
                } else {
                    Pipe p1 = Pipe.open();
                    Pipe p2 = Pipe.open();
                    a = of(p2.source(), p1.sink(), "pipe pair " + i + " (ping side)");
                    b = of(p1.source(), p2.sink(), "pipe pair " + i + " (pong side)");
                }
                all.add(a);
                all.add(b);
                Side ping = test.new Side("ping " + i, a, 1000 + i);
                Side pong = test.new Side("pong " + i, b, 1000 + i);
                sides.add(ping);
                sides.add(pong);
                LongAdder counter = test.perKind[k];
                threads.add(Thread.ofVirtual().name("pong-" + i).unstarted(() -> test.pong(pong)));
                threads.add(Thread.ofVirtual().name("ping-" + i).unstarted(() -> test.ping(ping, counter)));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads)
                test.watchdog.join(t);
            for (Side s : sides) {
                if (s.failure != null)
                    throw new RuntimeException(s.name + " failed", s.failure);
            }
            for (Duplex d : all)
                d.close();
            servers.close();
            pollers = TortureSupport.PollerProbe.checkAtEnd(baseline);
        }
        long done = test.budget.done();
        StringBuilder kinds = new StringBuilder();
        for (int i = 0; i < kindNames.length; i++)
            kinds.append(i == 0 ? "" : " ").append(kindNames[i]).append('=').append(test.perKind[i].sum());
        System.out.println("round trips=" + done + " (" + kinds + ")");
        System.out.println("pollers: " + pollers);
        if (done == 0)
            throw new RuntimeException("no round trip");
        TortureSupport.summary("MissedEdgeRace", test.budget, "roundTrips=" + done + " pairs=" + pairs,
                pollers);
    }
}
