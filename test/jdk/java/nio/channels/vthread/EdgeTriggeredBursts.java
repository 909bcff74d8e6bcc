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
 * @summary Bursts of edges on channels read by virtual threads: accept bursts, UDP
 *     datagrams, many small pipe writes, more ready fds than one epoll_wait
 *     returns. Feature off: behaviour only.
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 EdgeTriggeredBursts
 */

/*
 * @test id=et-mode1
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 EdgeTriggeredBursts
 */

/*
 * @test id=et-mode2
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 EdgeTriggeredBursts
 */

/*
 * @test id=et-mode3
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=3 EdgeTriggeredBursts
 */

/*
 * @test id=et-shared
 * @summary Edge-triggered, all file descriptors share one read (sub-)poller
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2
 *     -Djdk.readPollers=1 EdgeTriggeredBursts
 * @run junit/othervm/timeout=300 -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1
 *     -Djdk.readPollers=1 EdgeTriggeredBursts
 */

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import static org.junit.jupiter.api.Assertions.*;

import etjdk.poller.PollerFixture;

import static etjdk.poller.PollerTestSupport.*;

class EdgeTriggeredBursts {
    @RegisterExtension
    static final PollerFixture<ServerSocketChannel> FIXTURE = PollerFixture.of(
            () -> openListener(),
            l -> {
                try (var pair = ChannelPair.open(l)) {
                    var reader = startVirtual("reader", () -> pair.server().read(ByteBuffer.allocate(1)));
                    awaitParked(reader.thread(), fdVal(pair.server()), "warm-up reader to park");
                    pair.client().write(ByteBuffer.wrap(new byte[1]));
                    reader.join("warm-up read");
                }
            });

    private static ServerSocketChannel listener() {
        return FIXTURE.listener();
    }

    /**
     * Hazard 9: an accept burst. One acceptor virtual thread, 1000 connections made
     * by two virtual threads at once. With {@code early} the connections queue up
     * before the acceptor starts (the listener is readable when first added).
     */
    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void testAcceptBurst(boolean early) throws Exception {
        int connections = 1000;
        try (ServerSocketChannel ssc = openListener()) {
            int fd = fdVal(ssc);
            SocketAddress address = ssc.getLocalAddress();
            List<SocketChannel> clients = new ArrayList<>();
            var accepted = new AtomicInteger();
            var acceptorGo = new CountDownLatch(1);
            var acceptor = startVirtual("acceptor", () -> {
                acceptorGo.await();
                while (accepted.get() < connections) {
                    ssc.accept().close();
                    accepted.incrementAndGet();
                }
                return null;
            });
            if (!early) {
                acceptorGo.countDown();
                awaitParked(acceptor.thread(), fd, "acceptor to park");
            }
            var go = new CountDownLatch(1);
            List<VTask<List<SocketChannel>>> connectors = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                connectors.add(startVirtual("connector", () -> {
                    go.await();
                    List<SocketChannel> list = new ArrayList<>();
                    for (int i = 0; i < connections / 2; i++)
                        list.add(SocketChannel.open(address));
                    return list;
                }));
            }
            go.countDown();
            try {
                for (var c : connectors)
                    clients.addAll(c.join("connects to complete"));
                acceptorGo.countDown();
                acceptor.join("acceptor to accept " + connections + " connections, accepted " + accepted);
            } finally {
                for (var c : clients) c.close();
            }
            assertEquals(connections, accepted.get());
            if (edgeTriggered() && !early)
                assertNotEquals(State.ABSENT, state(fd));  // the acceptor parked first
            log("accepted %d connections (%s)", accepted.get(), early ? "queued before the first accept" : "acceptor waiting");
        }
    }

    enum DatagramApi { CHANNEL_RECEIVE, CHANNEL_READ, SOCKET_RECEIVE }

    /**
     * Hazard 9: UDP, one edge per datagram. A virtual thread receives many small
     * datagrams with blocking receives; the sender keeps at most 32 in flight so that
     * none is dropped. A lost edge => the receiver hangs => watchdog.
     */
    @ParameterizedTest
    @EnumSource(DatagramApi.class)
    void testDatagramBurst(DatagramApi api) throws Exception {
        int count = iterations(20_000);
        InetAddress lb = InetAddress.getLoopbackAddress();
        try (DatagramChannel receiver = DatagramChannel.open();
             DatagramChannel sender = DatagramChannel.open()) {
            receiver.setOption(StandardSocketOptions.SO_RCVBUF, 256 * 1024);
            receiver.bind(new InetSocketAddress(lb, 0));
            sender.bind(new InetSocketAddress(lb, 0));
            sender.connect(receiver.getLocalAddress());
            if (api == DatagramApi.CHANNEL_READ)
                receiver.connect(sender.getLocalAddress());
            int fd = fdVal(receiver);
            Semaphore window = new Semaphore(32);
            BitSet seen = new BitSet(count);
            var received = new AtomicInteger();
            var task = startVirtual("receiver", () -> {
                DatagramSocket socket = receiver.socket();
                ByteBuffer bb = ByteBuffer.allocate(16);
                DatagramPacket p = new DatagramPacket(new byte[16], 16);
                while (received.get() < count) {
                    int seq;
                    switch (api) {
                        case CHANNEL_RECEIVE -> {
                            bb.clear();
                            assertNotNull(receiver.receive(bb));
                            seq = bb.flip().getInt();
                        }
                        case CHANNEL_READ -> {
                            bb.clear();
                            assertEquals(4, receiver.read(bb));
                            seq = bb.flip().getInt();
                        }
                        default -> {
                            socket.receive(p);
                            assertEquals(4, p.getLength());
                            seq = ByteBuffer.wrap(p.getData()).getInt();
                        }
                    }
                    assertFalse(seen.get(seq), "duplicate datagram " + seq);
                    seen.set(seq);
                    received.incrementAndGet();
                    window.release();
                }
                return null;
            });
            awaitParked(task.thread(), fd, "the receiver to park before the first datagram");
            ByteBuffer out = ByteBuffer.allocate(4);
            for (int i = 0; i < count; i++) {
                if (!window.tryAcquire(TIMEOUT_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS))
                    throw timeout("the receiver to take datagram " + (i - 32) + ", received " + received);
                out.clear();
                sender.write(out.putInt(i).flip());
            }
            task.join("the receiver to receive " + count + " datagrams, received " + received);
            assertEquals(count, seen.cardinality());
            if (edgeTriggered())
                assertNotEquals(State.ABSENT, state(fd));
            log("%s: received %d datagrams", api, count);
        }
    }

    /**
     * Hazard 9: a pipe with many small writes, read by a virtual thread with a small
     * buffer. The writer is a platform thread or a virtual thread.
     */
    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void testPipeSmallWrites(boolean virtualWriter) throws Exception {
        int total = iterations(20_000) * 10;
        Pipe pipe = Pipe.open();
        try (Pipe.SinkChannel sink = pipe.sink(); Pipe.SourceChannel source = pipe.source()) {
            int fd = fdVal(source);
            var read = new AtomicInteger();
            var reader = startVirtual("reader", () -> {
                ByteBuffer bb = ByteBuffer.allocate(5);
                int expected = 0;
                while (expected < total) {
                    bb.clear();
                    int n = source.read(bb);
                    assertTrue(n > 0, "read returned " + n);
                    for (int i = 0; i < n; i++) {
                        assertEquals((byte) expected, bb.get(i), "byte " + expected);
                        expected++;
                    }
                    read.set(expected);
                }
                return null;
            });
            Runnable writeAll = () -> {
                try {
                    int next = 0;
                    while (next < total) {
                        int len = Math.min(1 + (next % 3), total - next);
                        ByteBuffer bb = ByteBuffer.allocate(len);
                        for (int i = 0; i < len; i++) bb.put((byte) (next + i));
                        bb.flip();
                        while (bb.hasRemaining()) sink.write(bb);
                        next += len;
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            };
            awaitParked(reader.thread(), fd, "the reader to park before the first write");
            Thread writer = virtualWriter ? Thread.ofVirtual().start(writeAll) : Thread.ofPlatform().start(writeAll);
            join(writer, "the writer to write " + total + " bytes");
            reader.join("the reader to read " + total + " bytes, read " + read);
            if (edgeTriggered())
                assertNotEquals(State.ABSENT, state(fd));
            log("read %d bytes written in 1..3 byte writes by a %s thread", total,
                    virtualWriter ? "virtual" : "platform");
        }
    }

    /**
     * Hazard 10: more ready fds than one epoll_wait returns (16 events for a
     * sub-poller, 64 for a platform poller). 1000 readers park on 1000 connections
     * and are woken at once by writes from one thread; three rounds: fresh fds (first
     * add), registered fds, and half of the fds readable before their reader starts.
     * Each fd is registered once for all rounds.
     */
    @org.junit.jupiter.api.Test
    void testMoreReadyFdsThanOneBatch() throws Exception {
        int n = 1000;
        List<ChannelPair> pairs = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++)
                pairs.add(ChannelPair.open(listener()));
            Counters before = counters();
            for (int round = 0; round < 3; round++) {
                int early = (round == 2) ? n / 2 : 0;
                // round 2: data for the first half before their readers start
                for (int i = 0; i < early; i++)
                    pairs.get(i).client().write(ByteBuffer.wrap(new byte[] { (byte) i }));
                List<VTask<Integer>> readers = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    SocketChannel sc = pairs.get(i).server();
                    readers.add(startVirtual("reader-" + i, () -> {
                        ByteBuffer bb = ByteBuffer.allocate(1);
                        int r = sc.read(bb);
                        return (r == 1) ? bb.get(0) : r;
                    }));
                }
                for (int i = early; i < n; i++) {
                    awaitParked(readers.get(i).thread(), fdVal(pairs.get(i).server()),
                            "round " + round + ": reader " + i + " to park");
                }
                for (int i = early; i < n; i++)
                    pairs.get(i).client().write(ByteBuffer.wrap(new byte[] { (byte) i }));
                for (int i = 0; i < n; i++) {
                    assertEquals((byte) i, (byte) (int) readers.get(i).join(
                            "round " + round + ": reader " + i + " of " + n + " to be woken"));
                }
                log("round %d: %d readers woken (%d had data before they started)", round, n, early);
            }
            if (edgeTriggered()) {
                Counters delta = counters().minus(before);
                log("counters for 3 rounds: %s", delta);
                assertEquals(n, delta.registrations(), "each fd registered once: " + delta);
                assertTrue(delta.reused() >= n + n / 2, delta.toString());
            }
        } finally {
            for (var p : pairs) p.close();
        }
    }
}
