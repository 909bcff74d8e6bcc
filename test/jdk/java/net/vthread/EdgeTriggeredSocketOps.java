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
 * @summary Virtual threads reading java.net.Socket and accepting on
 *     java.net.ServerSocket with edge-triggered read pollers: an edge before the
 *     poll, data then FIN or RST while nobody waits, timeouts, interrupt and close
 *     racing edges, close and reuse, sockets closed by their Cleaner, accept bursts.
 *     Feature off: behaviour only.
 * @requires os.family == "linux"
 * @library /test/lib /java/nio/channels/vthread/lib
 * @modules java.base/java.net:+open java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED EdgeTriggeredSocketOps
 */

/*
 * @test id=et-mode1
 * @requires os.family == "linux"
 * @library /test/lib /java/nio/channels/vthread/lib
 * @modules java.base/java.net:+open java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 EdgeTriggeredSocketOps
 */

/*
 * @test id=et-mode2
 * @requires os.family == "linux"
 * @library /test/lib /java/nio/channels/vthread/lib
 * @modules java.base/java.net:+open java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 EdgeTriggeredSocketOps
 */

/*
 * @test id=et-mode3
 * @requires os.family == "linux"
 * @library /test/lib /java/nio/channels/vthread/lib
 * @modules java.base/java.net:+open java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=3 EdgeTriggeredSocketOps
 */

/*
 * @test id=et-shared
 * @summary Edge-triggered, all file descriptors share one read sub-poller
 * @requires os.family == "linux"
 * @library /test/lib /java/nio/channels/vthread/lib
 * @modules java.base/java.net:+open java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 -Djdk.readPollers=1 EdgeTriggeredSocketOps
 */

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import static org.junit.jupiter.api.Assertions.*;

import etjdk.poller.PollerFixture;

import static etjdk.poller.PollerTestSupport.*;

class EdgeTriggeredSocketOps {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    @RegisterExtension
    static final PollerFixture<ServerSocket> FIXTURE = PollerFixture.of(
            () -> new ServerSocket(0, 1024, LOOPBACK),
            l -> {
                try (var pair = SocketPair.open(l)) {
                    readCycle(pair, 1);
                }
            });

    private static ServerSocket listener() {
        return FIXTURE.listener();
    }

    /** A virtual thread reads one byte from the server socket, parking until it arrives. */
    static void readCycle(SocketPair pair, int value) throws Exception {
        Socket s = pair.server();
        int fd = fdVal(s);
        InputStream in = s.getInputStream();
        var reader = startVirtual("reader", () -> in.read());
        awaitParked(reader.thread(), fd, "reader to park (read cycle)");
        pair.client().getOutputStream().write(value);
        assertEquals(value, reader.join("read cycle on fd " + fd + " to complete"));
        if (edgeTriggered()) {
            // POLLED: a stale edge of the file that had this fd before, polled by
            // mode 1's poller thread before that file was closed (a retried read);
            // DRAINED: the one-byte read emptied the queue, reported since an earlier
            // full read of this socket turned TCP_INQ on
            State st = state(fd);
            assertTrue(st == State.REGISTERED || st == State.POLLED || st == State.DRAINED,
                    "fd " + fd + " after a read cycle: " + rawState(fd));
        }
    }

    static int readInVirtual(InputStream in, String what) throws Exception {
        return startVirtual("reader", () -> in.read()).join(what);
    }

    /**
     * Hazard 1 on a Socket: an edge arrives between EAGAIN and the poll; the poll
     * returns without parking and the read returns the byte.
     */
    @Test
    void testEdgeBeforePoll() throws Exception {
        try (var pair = SocketPair.open(listener())) {
            int fd = fdVal(pair.server());
            readCycle(pair, 1);
            boolean et = edgeTriggered();
            Counters before = counters(fd);
            pair.client().getOutputStream().write('x');
            if (et)
                awaitState(fd, State.POLLED, "the edge to be polled while nobody waits");
            startVirtual("poll", () -> { pollIn(fd, 0); return null; })
                    .join("Poller.poll of an fd in state POLLED to return without parking");
            if (et) {
                Counters delta = counters(fd).minus(before);
                assertEquals(State.REGISTERED, state(fd));
                assertEquals(1, delta.retries(), delta.toString());
                assertEquals(0, delta.reused(), "parked instead of retrying: " + delta);
            }
            assertEquals('x', readInVirtual(pair.server().getInputStream(), "read after the poll"));
        }
    }

    enum Eof { FIN_ONLY, DATA_SHUTDOWN_OUTPUT, DATA_CLOSE }

    /**
     * Hazard 8: data followed by FIN arriving while nobody waits (the event reports
     * EPOLLRDHUP: POLLED_CONDITION). The next reads return the data, then -1,
     * without hanging.
     */
    @ParameterizedTest
    @EnumSource(Eof.class)
    void testDataThenFinWhileNobodyWaits(Eof eof) throws Exception {
        try (var pair = SocketPair.open(listener())) {
            int fd = fdVal(pair.server());
            readCycle(pair, 1);
            OutputStream out = pair.client().getOutputStream();
            byte[] data = (eof == Eof.FIN_ONLY) ? new byte[0] : "abc".getBytes("ISO-8859-1");
            out.write(data);
            if (eof == Eof.DATA_CLOSE) {
                pair.client().close();
            } else {
                pair.client().shutdownOutput();
            }
            if (edgeTriggered())
                awaitState(fd, State.POLLED_CONDITION, "data and FIN to arrive while nobody waits");
            InputStream in = pair.server().getInputStream();
            for (byte b : data)
                assertEquals(b, readInVirtual(in, "read of data before FIN"));
            assertEquals(-1, readInVirtual(in, "read at EOF"));
            assertEquals(-1, readInVirtual(in, "second read at EOF"));
        }
    }

    /**
     * Hazard 8: data followed by RST arriving while nobody waits: the next reads
     * return any data that the kernel kept and then throw "Connection reset",
     * without hanging.
     */
    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void testResetWhileNobodyWaits(boolean withData) throws Exception {
        try (var pair = SocketPair.open(listener())) {
            int fd = fdVal(pair.server());
            readCycle(pair, 1);
            Socket peer = pair.client();
            peer.setSoLinger(true, 0);
            if (withData)
                peer.getOutputStream().write("abc".getBytes("ISO-8859-1"));
            peer.close();  // RST
            if (edgeTriggered())
                awaitState(fd, State.POLLED_CONDITION, "RST to arrive while nobody waits");
            InputStream in = pair.server().getInputStream();
            var reader = startVirtual("reader", () -> {
                StringBuilder sb = new StringBuilder();
                try {
                    int b;
                    while ((b = in.read()) >= 0) sb.append((char) b);
                    return sb + "<EOF>";
                } catch (SocketException e) {
                    return sb + "<" + e.getMessage() + ">";
                }
            });
            String result = reader.join("reads after RST to finish");
            log("reads after RST (withData=%s): %s", withData, result);
            assertTrue(result.endsWith("<Connection reset>"), result);
            assertTrue("abc".startsWith(result.substring(0, result.indexOf('<'))), result);
            String again = startVirtual("reader", () -> {
                try {
                    return "read returned " + in.read();
                } catch (SocketException e) {
                    return e.getMessage();
                }
            }).join("read after the reset was reported");
            assertEquals("Connection reset", again);
        }
    }

    /**
     * Hazard 7: Socket.setSoTimeout read racing an incoming edge on one long-lived
     * connection. After a timeout the byte must be read by the next read; a timed
     * out read leaves no waiter behind.
     */
    @Test
    void testTimedReadRacingEdge() throws Exception {
        int iterations = iterations(400);
        int data = 0, timeouts = 0;
        try (var pair = SocketPair.open(listener())) {
            Socket s = pair.server();
            int fd = fdVal(s);
            InputStream in = s.getInputStream();
            OutputStream out = pair.client().getOutputStream();
            for (int i = 0; i < iterations; i++) {
                int timeout = 1 + (i % 4);
                s.setSoTimeout(timeout);
                var go = new CountDownLatch(1);
                long delay = aroundTimeout(timeout);
                var reader = startVirtual("reader", () -> {
                    go.await();
                    try {
                        return in.read();
                    } catch (SocketTimeoutException e) {
                        return -2;
                    }
                });
                int value = i & 0x7f;
                var writer = startVirtual("writer", () -> {
                    go.await();
                    spinFor(delay);  // lands the edge near the read timeout
                    out.write(value);
                    return null;
                });
                go.countDown();
                writer.join("iteration " + i + ": write");
                int n = reader.join("iteration " + i + ": timed read racing an edge");
                if (n == -2) {
                    timeouts++;
                    s.setSoTimeout(0);
                    n = readInVirtual(in, "iteration " + i + ": read of the byte after a timeout");
                } else {
                    data++;
                }
                assertEquals(value, n, "iteration " + i);
                if (edgeTriggered()) {
                    State st = state(fd);
                    assertTrue(st != State.THREAD, "iteration " + i + ": waiter left behind: " + rawState(fd));
                }
            }
        }
        log("ran %d iterations, %d reads got data, %d timed out first", iterations, data, timeouts);
    }

    enum Race { CLOSE, CLOSE_AND_EDGE, INTERRUPT, INTERRUPT_AND_EDGE, PLATFORM_READER_CLOSE_AND_EDGE }

    /**
     * Hazard 7: close or interrupt racing a parked reader, with or without an edge
     * at the same time. With PLATFORM_READER_CLOSE_AND_EDGE the reader is a platform
     * thread blocked in poll(2) after virtual threads read the socket (registered),
     * and the close takes the pre-close dup2 path. The reader gets the byte or a SocketException; when the
     * socket was closed its fd is forgotten (on every other iteration with the file
     * kept open by a dup(2)); when the reader got the byte the socket still works.
     */
    @ParameterizedTest
    @EnumSource(Race.class)
    void testRacingParkedReader(Race race) throws Throwable {
        int iterations = iterations(400);
        Map<String, Integer> outcomes = new TreeMap<>();
        for (int i = 0; i < iterations; i++) {
            var pair = SocketPair.open(listener());
            Socket s = pair.server();
            int fd = fdVal(s);
            int dupfd = (i % 2 == 1) ? dup(fd) : -1;
            try {
                if (i % 4 >= 2)
                    readCycle(pair, 1);
                InputStream in = s.getInputStream();
                VTask<Integer> reader;
                if (race == Race.PLATFORM_READER_CLOSE_AND_EDGE) {
                    if (i % 4 < 2)
                        readCycle(pair, 1);   // a virtual thread made the socket non-blocking
                    reader = startPlatform("reader", () -> in.read());
                    awaitInNetPoll(reader.thread(), "iteration " + i + ": platform reader to block");
                } else {
                    reader = startVirtual("reader", () -> in.read());
                    awaitParked(reader.thread(), fd, "iteration " + i + ": reader to park");
                }
                var go = new CountDownLatch(1);
                int spins = ThreadLocalRandom.current().nextInt(200);
                boolean close = (race == Race.CLOSE || race == Race.CLOSE_AND_EDGE
                        || race == Race.PLATFORM_READER_CLOSE_AND_EDGE);
                var actor = startVirtual(close ? "closer" : "interrupter", () -> {
                    go.await();
                    spin(spins);
                    if (close) {
                        s.close();
                    } else {
                        reader.thread().interrupt();
                    }
                    return null;
                });
                VTask<Void> writer = null;
                if (race == Race.CLOSE_AND_EDGE || race == Race.INTERRUPT_AND_EDGE
                        || race == Race.PLATFORM_READER_CLOSE_AND_EDGE) {
                    OutputStream out = pair.client().getOutputStream();
                    writer = startVirtual("writer", () -> {
                        go.await();
                        try {
                            out.write(42);
                        } catch (IOException ignore) { }  // reset by the closed peer
                        return null;
                    });
                }
                go.countDown();
                actor.join("iteration " + i + ": " + race);
                if (writer != null)
                    writer.join("iteration " + i + ": write");
                Object outcome = reader.outcome("iteration " + i + ": reader racing " + race + " to finish");
                if (outcome instanceof SocketException e) {
                    outcomes.merge("SocketException(" + e.getMessage() + ")", 1, Integer::sum);
                    assertTrue(s.isClosed(), "iteration " + i + ": " + e + " but socket open");
                    assertForgotten(fd, "iteration " + i);
                } else if (outcome instanceof Integer n && n == 42) {
                    outcomes.merge("data", 1, Integer::sum);
                    if (!s.isClosed()) {
                        readCycle(pair, 2);
                    } else {
                        assertForgotten(fd, "iteration " + i);
                    }
                } else {
                    throw new AssertionError("iteration " + i + ": unexpected outcome " + outcome,
                            (outcome instanceof Throwable t) ? t : null);
                }
            } finally {
                if (dupfd >= 0) closeFd(dupfd);
                pair.close();
            }
        }
        log("%s: ran %d iterations, reader outcomes %s", race, iterations, outcomes);
    }

    /**
     * Hazard 4 on Sockets: close a registered socket, a new Socket gets the same fd
     * number; its first blocking read must register afresh and complete.
     */
    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void testCloseAndReuse(boolean polled) throws Exception {
        boolean et = edgeTriggered();
        var pair = SocketPair.open(listener());
        Socket s = pair.server();
        int fd = fdVal(s);
        readCycle(pair, 1);
        if (polled) {
            pair.client().getOutputStream().write('p');
            if (et) awaitState(fd, State.POLLED, "edge while nobody waits");
        }
        s.close();
        assertForgotten(fd, "after close");
        Socket reused = reuse(fd);
        try (reused; Socket peer = acceptFor(reused)) {
            Counters c0 = counters(fd);
            var reader = startVirtual("reader", () -> reused.getInputStream().read());
            awaitParked(reader.thread(), fd, "reader of the reused fd to park");
            if (et)
                assertEquals(1, counters(fd).minus(c0).registrations(), "reused fd not registered afresh");
            peer.getOutputStream().write('n');
            assertEquals('n', reader.join("read on reused fd " + fd + " to complete"));
        } finally {
            pair.close();
        }
    }

    /** A new Socket, bound right away, that got fd number fd (bounded retries). */
    static Socket reuse(int fd) throws IOException {
        List<Socket> others = new ArrayList<>();
        try {
            for (int attempt = 1; attempt <= 16; attempt++) {
                Socket s = new Socket();
                s.bind(new InetSocketAddress(LOOPBACK, 0));
                if (fdVal(s) == fd) {
                    if (attempt > 1)
                        log("fd %d reused after %d attempts", fd, attempt);
                    return s;
                }
                others.add(s);
            }
            fail("fd " + fd + " was not reused, got " + others.stream().map(s -> fdVal(s)).toList());
            return null;
        } finally {
            for (Socket s : others) s.close();
        }
    }

    static Socket acceptFor(Socket client) throws IOException {
        client.connect(listener().getLocalSocketAddress());
        return listener().accept();
    }

    /**
     * Invariant 3: a registered socket that becomes unreachable is closed by its
     * Cleaner, which must remove the registration too.
     */
    @Test
    void testSocketClosedByCleaner() throws Exception {
        try (Socket client = new Socket()) {
            client.connect(listener().getLocalSocketAddress());
            long[] fdAndInode = registeredServerSocket(client);
            int fd = (int) fdAndInode[0];
            long ino = fdAndInode[1];
            await("the Cleaner to close the unreachable socket, fd " + fd, () -> {
                System.gc();
                return inode(fd) != ino;
            });
            assertForgotten(fd, "after the Cleaner closed the socket");
        }
    }

    /**
     * Accepts a connection from client, does a read cycle on the accepted socket, and
     * forgets it. Returns its fd and inode.
     */
    private static long[] registeredServerSocket(Socket client) throws Exception {
        Socket s = listener().accept();
        int fd = fdVal(s);
        long ino = inode(fd);
        InputStream in = s.getInputStream();
        var reader = startVirtual("reader", () -> in.read());
        awaitParked(reader.thread(), fd, "reader to park");
        client.getOutputStream().write(1);
        assertEquals(1, reader.join("read cycle"));
        if (edgeTriggered())
            assertEquals(State.REGISTERED, state(fd));
        return new long[] { fd, ino };
    }

    /**
     * Hazard 9: an accept burst on a ServerSocket, one acceptor virtual thread, 1000
     * connections made by two virtual threads at once.
     */
    @Test
    void testAcceptBurst() throws Exception {
        int connections = 1000;
        try (ServerSocket ss = new ServerSocket(0, 1024, LOOPBACK)) {
            int fd = fdVal(ss);
            SocketAddress address = ss.getLocalSocketAddress();
            var accepted = new AtomicInteger();
            var acceptor = startVirtual("acceptor", () -> {
                while (accepted.get() < connections) {
                    ss.accept().close();
                    accepted.incrementAndGet();
                }
                return null;
            });
            awaitParked(acceptor.thread(), fd, "acceptor to park");
            var go = new CountDownLatch(1);
            List<VTask<List<Socket>>> connectors = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                connectors.add(startVirtual("connector", () -> {
                    go.await();
                    List<Socket> list = new ArrayList<>();
                    for (int i = 0; i < connections / 2; i++) {
                        Socket s = new Socket();
                        list.add(s);
                        s.connect(address);
                    }
                    return list;
                }));
            }
            go.countDown();
            List<Socket> clients = new ArrayList<>();
            try {
                for (var c : connectors)
                    clients.addAll(c.join("connects to complete"));
                acceptor.join("acceptor to accept " + connections + " connections, accepted " + accepted);
            } finally {
                for (var s : clients) s.close();
            }
            assertEquals(connections, accepted.get());
            log("accepted %d connections", accepted.get());
        }
    }

    /**
     * Hazard 7 on a listener: ServerSocket.setSoTimeout accept racing a connect.
     * After a timeout the connection must be accepted by the next accept.
     */
    @Test
    void testTimedAcceptRacingConnect() throws Exception {
        int iterations = iterations(400);
        int accepted = 0, timeouts = 0;
        try (ServerSocket ss = new ServerSocket(0, 1024, LOOPBACK)) {
            int fd = fdVal(ss);
            for (int i = 0; i < iterations; i++) {
                int timeout = 1 + (i % 4);
                ss.setSoTimeout(timeout);
                var go = new CountDownLatch(1);
                long delay = aroundTimeout(timeout);
                var acceptor = startVirtual("acceptor", () -> {
                    go.await();
                    try {
                        return ss.accept();
                    } catch (SocketTimeoutException e) {
                        return null;
                    }
                });
                var connector = startVirtual("connector", () -> {
                    go.await();
                    spinFor(delay);  // lands the connection near the accept timeout
                    Socket s = new Socket();
                    s.connect(ss.getLocalSocketAddress());
                    return s;
                });
                go.countDown();
                try (Socket client = connector.join("iteration " + i + ": connect")) {
                    Socket s = acceptor.join("iteration " + i + ": timed accept racing a connect");
                    if (s == null) {
                        timeouts++;
                        ss.setSoTimeout(0);
                        s = startVirtual("acceptor2", () -> ss.accept())
                                .join("iteration " + i + ": accept after a timeout");
                    } else {
                        accepted++;
                    }
                    try (Socket peer = s) {
                        assertEquals(client.getLocalPort(), peer.getPort(), "iteration " + i);
                    }
                }
                if (edgeTriggered())
                    assertTrue(state(fd) != State.THREAD, "iteration " + i + ": waiter left behind");
            }
        }
        log("ran %d iterations, %d accepted at once, %d timed out first", iterations, accepted, timeouts);
    }
}
