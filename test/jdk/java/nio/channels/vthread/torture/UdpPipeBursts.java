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
 * @summary Torture: UDP and pipe bursts. Senders send bursts of datagrams (one edge
 *     per datagram) and pipe writes of random sizes with random pauses; virtual
 *     thread receivers verify sequence numbers and checksummed contents. Feature off.
 *     Long mode: -Dtorture.long=true (500,000 bursts).
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm UdpPipeBursts
 */

/*
 * @test id=et-mode1
 * @summary Torture: UDP and pipe bursts, edge-triggered read pollers, pollerMode 1
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 UdpPipeBursts
 */

/*
 * @test id=et-mode2
 * @summary Torture: UDP and pipe bursts, edge-triggered read pollers, pollerMode 2
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 UdpPipeBursts
 */

/*
 * @test id=et-mode3
 * @summary Torture: UDP and pipe bursts, feature on with pollerMode 3 (stays one-shot)
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=3 UdpPipeBursts
 */

/*
 * @test id=mode4
 * @summary Torture: UDP and pipe bursts, carrier polling (pollerMode 4), edge-triggered
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 UdpPipeBursts
 */

/*
 * @test id=mode4-p1
 * @summary Torture: UDP and pipe bursts, carrier polling (pollerMode 4), edge-triggered, parallelism 1
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerMode=4 -Djdk.virtualThreadScheduler.parallelism=1 UdpPipeBursts
 */

/*
 * @test id=et-readPollers1
 * @summary Torture: UDP and pipe bursts, edge-triggered read pollers, a single read poller
 * @requires os.family == "linux"
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open java.base/java.io:+open
 *          jdk.management
 * @run main/othervm -Djdk.pollerEdgeTriggered=true -Djdk.readPollers=1 UdpPipeBursts
 */

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

public class UdpPipeBursts {

    // datagrams per burst at most, payload bytes per datagram at most: a burst fits
    // in the receive buffer, so the kernel has no reason to drop a datagram
    static final int MAX_BURST = 32;
    static final int MAX_PAYLOAD = 1000;
    static final int HEADER = 8 + 4 + 4 + 4;   // seq, burst size, index in burst, payload length

    final TortureSupport.Budget budget = new TortureSupport.Budget(20_000, 500_000);
    final TortureSupport.Watchdog watchdog = new TortureSupport.Watchdog("UdpPipeBursts");
    final LongAdder udpBursts = new LongAdder();
    final LongAdder datagrams = new LongAdder();
    final LongAdder udpTimeouts = new LongAdder();
    final LongAdder pipeBursts = new LongAdder();
    final LongAdder pipeBytes = new LongAdder();

    final class Party implements TortureSupport.Watched {
        final String name;
        volatile Thread thread;
        volatile String phase = "starting";
        volatile long progress;
        volatile Throwable failure;

        Party(String name) {
            this.name = name;
        }

        @Override
        public Thread thread() {
            return thread;
        }

        @Override
        public String describe() {
            return name + " at " + progress + ": " + phase;
        }

        Thread start(ThrowingRunnable task) {
            return Thread.ofVirtual().name(name).start(() -> {
                thread = Thread.currentThread();
                watchdog.watch(this);
                try {
                    task.run();
                    phase = "done";
                } catch (Throwable e) {
                    failure = e;
                    phase = "failed: " + e;
                } finally {
                    watchdog.unwatch(this);
                }
            });
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** The receiving end of a UDP pair: DatagramChannel or java.net.DatagramSocket. */
    interface Receiver {
        /** Receives one datagram into the buffer, returns its length, -1 on timeout. */
        int receive(byte[] buf) throws IOException;
        void sendAck(byte[] ack) throws IOException;
    }

    // -- UDP --

    void udpSender(Party p, DatagramChannel dc, long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        ByteBuffer out = ByteBuffer.allocate(HEADER + MAX_PAYLOAD);
        ByteBuffer ack = ByteBuffer.allocate(64);
        long seq = 0;
        while (budget.claim()) {
            int burst = 1 + r.nextInt(MAX_BURST);
            p.phase = "sending a burst of " + burst;
            for (int i = 0; i < burst; i++) {
                int len = r.nextInt(MAX_PAYLOAD + 1);
                out.clear();
                out.putLong(seq).putInt(burst).putInt(i).putInt(len);
                TortureSupport.ByteSeq bytes = new TortureSupport.ByteSeq(seq);
                for (int j = 0; j < len; j++)
                    out.put(bytes.next());
                out.flip();
                dc.write(out);
                seq++;
                if (r.nextInt(8) == 0)
                    Thread.yield();
            }
            p.phase = "waiting for the ack of the burst ending with datagram " + (seq - 1);
            ack.clear();
            int n = dc.read(ack);
            ack.flip();
            if (n != 8 || ack.getLong() != seq - 1)
                throw new RuntimeException(p.name + ": bad ack");
            p.progress = seq;
            budget.done(1);
            udpBursts.increment();
            watchdog.progress();
            if (r.nextInt(4) == 0)
                LockSupport.parkNanos(r.nextInt(300_000));
        }
        // end marker: a burst of size 0
        out.clear();
        out.putLong(seq).putInt(0).putInt(0).putInt(0).flip();
        p.phase = "sending the end marker";
        dc.write(out);
    }

    void udpReceiver(Party p, Receiver rcv) throws IOException {
        byte[] buf = new byte[HEADER + MAX_PAYLOAD + 1];
        long expected = 0;
        while (true) {
            p.phase = "receiving datagram " + expected;
            int n = rcv.receive(buf);
            if (n < 0) {
                udpTimeouts.increment();
                continue;
            }
            ByteBuffer bb = ByteBuffer.wrap(buf, 0, n);
            long seq = bb.getLong();
            int burst = bb.getInt();
            int index = bb.getInt();
            int len = bb.getInt();
            if (seq != expected)
                throw new RuntimeException(p.name + ": datagram " + seq + ", expected " + expected
                        + " (lost or reordered datagram; kernel " + TortureSupport.udpCounters() + ")");
            if (burst == 0)
                return;
            if (n != HEADER + len)
                throw new RuntimeException(p.name + ": datagram " + seq + " has " + n + " bytes, expected "
                        + (HEADER + len));
            new TortureSupport.ByteSeq(seq).verify(buf, HEADER, len, p.name + " datagram " + seq);
            expected++;
            datagrams.increment();
            p.progress = expected;
            if (index == burst - 1) {
                p.phase = "sending the ack for datagram " + seq;
                rcv.sendAck(ByteBuffer.allocate(8).putLong(seq).array());
            }
        }
    }

    static Receiver channelReceiver(DatagramChannel dc, boolean useReceive) {
        return new Receiver() {
            public int receive(byte[] buf) throws IOException {
                ByteBuffer bb = ByteBuffer.wrap(buf);
                if (useReceive) {
                    if (dc.receive(bb) == null)
                        throw new RuntimeException("blocking receive returned null");
                    return bb.position();
                }
                return dc.read(bb);
            }
            public void sendAck(byte[] ack) throws IOException {
                dc.write(ByteBuffer.wrap(ack));
            }
        };
    }

    static Receiver socketReceiver(DatagramSocket ds) {
        return new Receiver() {
            public int receive(byte[] buf) throws IOException {
                DatagramPacket p = new DatagramPacket(buf, buf.length);
                try {
                    ds.receive(p);
                } catch (SocketTimeoutException e) {
                    return -1;
                }
                return p.getLength();
            }
            public void sendAck(byte[] ack) throws IOException {
                ds.send(new DatagramPacket(ack, ack.length));
            }
        };
    }

    // -- pipes --

    void pipeWriter(Party p, Pipe.SinkChannel sink, long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(seed);
        TortureSupport.ByteSeq bytes = new TortureSupport.ByteSeq(seed);
        byte[] buf = new byte[256 * 1024];
        long written = 0;
        while (budget.claim()) {
            // bursts up to 4 times the pipe buffer: the writer parks too
            int len = 1 + r.nextInt(r.nextBoolean() ? 512 : buf.length);
            bytes.fill(buf, 0, len);
            p.phase = "writing a burst of " + len + " bytes";
            ByteBuffer bb = ByteBuffer.wrap(buf, 0, len);
            while (bb.hasRemaining()) {
                // sometimes in small pieces with yields, so the reader sees many edges
                if (r.nextInt(4) == 0) {
                    int piece = Math.min(bb.remaining(), 1 + r.nextInt(100));
                    ByteBuffer slice = bb.slice(bb.position(), piece);
                    while (slice.hasRemaining())
                        sink.write(slice);
                    bb.position(bb.position() + piece);
                    Thread.yield();
                } else {
                    sink.write(bb);
                }
            }
            written += len;
            p.progress = written;
            budget.done(1);
            pipeBursts.increment();
            watchdog.progress();
            p.phase = "pausing";
            switch (r.nextInt(3)) {
                case 0 -> { }
                case 1 -> Thread.yield();
                default -> LockSupport.parkNanos(r.nextInt(500_000));
            }
        }
        p.phase = "closing the sink";
        sink.close();
    }

    void pipeReader(Party p, Pipe.SourceChannel source, long seed) throws IOException {
        SplittableRandom r = new SplittableRandom(~seed);
        TortureSupport.ByteSeq bytes = new TortureSupport.ByteSeq(seed);
        byte[] buf = new byte[128 * 1024];
        long received = 0;
        while (true) {
            int len = 1 + r.nextInt(r.nextBoolean() ? 64 : buf.length);
            p.phase = "reading up to " + len + " bytes";
            int n = source.read(ByteBuffer.wrap(buf, 0, len));
            if (n < 0)
                break;
            bytes.verify(buf, 0, n, p.name);
            received += n;
            pipeBytes.add(n);
            p.progress = received;
        }
        source.close();
    }

    public static void main(String[] args) throws Exception {
        TortureSupport.PollerProbe.Snapshot baseline = TortureSupport.PollerProbe.snapshot();
        int udpPairs = Integer.getInteger("torture.udpPairs", 12);
        int pipes = Integer.getInteger("torture.pipes", 12);
        System.out.println("UdpPipeBursts: " + TortureSupport.config() + ", udpPairs=" + udpPairs
                + ", pipes=" + pipes);
        UdpPipeBursts test = new UdpPipeBursts();
        System.out.println("budget: " + test.budget + " bursts");
        long rcvbufErrorsBefore = TortureSupport.udpRcvbufErrors();
        String pollers;
        try (test.watchdog) {
            List<Party> parties = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            List<AutoCloseable> toClose = new ArrayList<>();
            InetAddress lb = InetAddress.getLoopbackAddress();
            for (int i = 0; i < udpPairs; i++) {
                DatagramChannel a = DatagramChannel.open();
                a.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
                a.bind(new InetSocketAddress(lb, 0));
                Receiver rcv;
                InetSocketAddress rcvAddress;
                int k = i % 3;
                if (k < 2) {
                    DatagramChannel b = DatagramChannel.open();
                    b.setOption(StandardSocketOptions.SO_RCVBUF, 1 << 20);
                    b.bind(new InetSocketAddress(lb, 0));
                    b.connect(a.getLocalAddress());
                    rcv = channelReceiver(b, k == 1);
                    rcvAddress = (InetSocketAddress) b.getLocalAddress();
                    toClose.add(b);
                } else {
                    DatagramSocket ds = new DatagramSocket(new InetSocketAddress(lb, 0));
                    ds.setReceiveBufferSize(1 << 20);
                    ds.connect(a.getLocalAddress());
                    ds.setSoTimeout(1 + i % 5);    // timed receives that often time out
                    rcv = socketReceiver(ds);
                    rcvAddress = (InetSocketAddress) ds.getLocalSocketAddress();
                    toClose.add(ds);
                }
                a.connect(rcvAddress);
                toClose.add(a);
                Party sender = test.new Party("udp-sender-" + i);
                Party receiver = test.new Party("udp-receiver-" + i + (k == 0 ? " (read)" : k == 1 ? " (receive)"
                        : " (DatagramSocket with timeout)"));
                parties.add(sender);
                parties.add(receiver);
                long seed = 77 + i;
                threads.add(receiver.start(() -> test.udpReceiver(receiver, rcv)));
                threads.add(sender.start(() -> test.udpSender(sender, a, seed)));
            }
            for (int i = 0; i < pipes; i++) {
                Pipe pipe = Pipe.open();
                toClose.add(pipe.source());
                toClose.add(pipe.sink());
                Party writer = test.new Party("pipe-writer-" + i);
                Party reader = test.new Party("pipe-reader-" + i);
                parties.add(writer);
                parties.add(reader);
                long seed = 991 + i;
                threads.add(reader.start(() -> test.pipeReader(reader, pipe.source(), seed)));
                threads.add(writer.start(() -> test.pipeWriter(writer, pipe.sink(), seed)));
            }
            for (Thread t : threads)
                test.watchdog.join(t);
            for (Party p : parties) {
                if (p.failure != null)
                    throw new RuntimeException(p.name + " failed", p.failure);
            }
            for (AutoCloseable c : toClose)
                c.close();
            pollers = TortureSupport.PollerProbe.checkAtEnd(baseline);
        }
        long done = test.budget.done();
        System.out.println("bursts=" + done + " (udp " + test.udpBursts.sum() + ", pipe "
                + test.pipeBursts.sum() + ") datagrams=" + test.datagrams.sum() + " pipeBytes="
                + test.pipeBytes.sum() + " udpTimeouts=" + test.udpTimeouts.sum()
                + " kernel RcvbufErrors delta=" + (TortureSupport.udpRcvbufErrors() - rcvbufErrorsBefore));
        System.out.println("pollers: " + pollers);
        if (done == 0 || test.udpBursts.sum() == 0 || test.pipeBursts.sum() == 0)
            throw new RuntimeException("UDP or pipe bursts did not run");
        TortureSupport.summary("UdpPipeBursts", test.budget,
                "udpBursts=" + test.udpBursts.sum() + " datagrams=" + test.datagrams.sum()
                        + " pipeBursts=" + test.pipeBursts.sum() + " pipeBytes=" + test.pipeBytes.sum(),
                pollers);
    }
}
