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
 * @summary Close, interrupt and read timeout racing an incoming edge and a parked
 *     reader on channels read by virtual threads; stale events for closed and
 *     reused fds. Feature off: behaviour only.
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED EdgeTriggeredCloseRaces
 */

/*
 * @test id=et-mode1
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 EdgeTriggeredCloseRaces
 */

/*
 * @test id=et-mode2
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 EdgeTriggeredCloseRaces
 */

/*
 * @test id=mode4
 * @requires os.family == "linux" & vm.continuations
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerMode=4 EdgeTriggeredCloseRaces
 */

/*
 * @test id=et-mode3
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=3 EdgeTriggeredCloseRaces
 */

/*
 * @test id=et-shared
 * @summary Edge-triggered, all file descriptors share one read sub-poller
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 -Djdk.readPollers=1 EdgeTriggeredCloseRaces
 */

import java.io.IOException;
import java.io.InputStream;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import static org.junit.jupiter.api.Assertions.*;

import etjdk.poller.PollerFixture;

import static etjdk.poller.PollerTestSupport.*;

class EdgeTriggeredCloseRaces {
    @RegisterExtension
    static final PollerFixture<ServerSocketChannel> FIXTURE = PollerFixture.of(
            () -> openListener(),
            l -> {
                try (var pair = ChannelPair.open(l)) {
                    readCycle(pair, (byte) 1);
                }
            });

    private static ServerSocketChannel listener() {
        return FIXTURE.listener();
    }

    /** Blocking read of one byte in a virtual thread that parks until it is written. */
    static void readCycle(ChannelPair pair, byte value) throws Exception {
        SocketChannel sc = pair.server();
        int fd = fdVal(sc);
        var reader = startVirtual("reader", () -> readByte(sc));
        awaitParked(reader.thread(), fd, "reader to park (read cycle)");
        write(pair.client(), value);
        assertEquals(value, (byte) (int) reader.join("read cycle on fd " + fd + " to complete"));
    }

    static int readByte(SocketChannel sc) throws IOException {
        ByteBuffer bb = ByteBuffer.allocate(1);
        int n = sc.read(bb);
        return (n == 1) ? bb.get(0) : n;
    }

    static void write(SocketChannel sc, byte value) throws IOException {
        ByteBuffer bb = ByteBuffer.wrap(new byte[] { value });
        while (bb.hasRemaining()) sc.write(bb);
    }

    enum Scenario {
        /** reader parked, close */
        PARKED_CLOSE,
        /** reader parked, close and an edge at the same time */
        PARKED_CLOSE_AND_EDGE,
        /** nobody waits (REGISTERED), close and an edge at the same time */
        IDLE_CLOSE_AND_EDGE,
        /** reader in a timed read, close as the timeout expires */
        TIMED_READER_CLOSE,
        /** platform thread blocked in read (pre-close dup2 path), close and an edge */
        PLATFORM_READER_CLOSE_AND_EDGE,
        /**
         * platform thread blocked in write (pre-close dup2 path), close racing a
         * virtual thread that starts a read: its registration must not survive the
         * dup2 (the closer marks the channel closed before it removes the state,
         * the reader stores its state before it checks the channel is open)
         */
        VIRTUAL_READER_PLATFORM_WRITER_CLOSE,
    }

    /**
     * Close racing a parked reader and/or an incoming edge (400 iterations per
     * scenario). On every other iteration
     * the file stays open through a dup(2) (as in a child process in the fork/exec
     * window), so that a registration that is not removed before close(2) or the
     * pre-close dup2 survives in the kernel, where the test finds it. The next
     * iteration's connection reuses the fd numbers.
     */
    @ParameterizedTest
    @EnumSource(Scenario.class)
    void testCloseRacing(Scenario scenario) throws Throwable {
        int iterations = iterations(400);
        Map<String, Integer> outcomes = new TreeMap<>();
        Set<Integer> closedFds = new HashSet<>();
        int reusedFds = 0;
        for (int i = 0; i < iterations; i++) {
            var pair = ChannelPair.open(listener());
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            if (closedFds.contains(fd)) reusedFds++;
            int dupfd = (i % 2 == 1) ? dup(fd) : -1;
            try {
                if (scenario == Scenario.VIRTUAL_READER_PLATFORM_WRITER_CLOSE) {
                    // non-blocking (a virtual thread read it) but not registered: the
                    // virtual reader of the race must go through the registration
                    write(pair.client(), (byte) i);
                    assertEquals((byte) i, (byte) (int) startVirtual("reader", () -> readByte(sc))
                            .join("iteration " + i + ": a read that finds data"));
                    if (edgeTriggered())
                        assertEquals(State.ABSENT, state(fd), "iteration " + i + ": state before the race");
                } else {
                    readCycle(pair, (byte) i);   // registered
                }
                VTask<Integer> reader = null;
                VTask<Integer> blockedWriter = null;
                var go = new CountDownLatch(1);
                int spins = ThreadLocalRandom.current().nextInt(200);
                int timeout = 1 + (i % 3);
                long delay = (scenario == Scenario.TIMED_READER_CLOSE) ? aroundTimeout(timeout) : 0;
                switch (scenario) {
                    case PARKED_CLOSE, PARKED_CLOSE_AND_EDGE -> {
                        reader = startVirtual("reader", () -> readByte(sc));
                        awaitParked(reader.thread(), fd, "iteration " + i + ": reader to park");
                    }
                    case IDLE_CLOSE_AND_EDGE -> { }
                    case PLATFORM_READER_CLOSE_AND_EDGE -> {
                        reader = startPlatform("reader", () -> readByte(sc));
                        awaitInNetPoll(reader.thread(), "iteration " + i + ": platform reader to block");
                    }
                    case VIRTUAL_READER_PLATFORM_WRITER_CLOSE -> {
                        // the channel is non-blocking (a virtual thread read it), so a
                        // platform thread's blocking write waits in Net.poll
                        blockedWriter = startPlatform("blocked writer", () -> {
                            ByteBuffer bb = ByteBuffer.allocateDirect(1 << 20);
                            while (true) sc.write(bb.clear());  // until the buffers are full
                        });
                        awaitInNetPoll(blockedWriter.thread(), "iteration " + i + ": platform writer to block");
                        reader = startVirtual("reader", () -> {
                            go.await();
                            return readByte(sc);
                        });
                    }
                    case TIMED_READER_CLOSE -> {
                        sc.socket().setSoTimeout(timeout);
                        InputStream in = sc.socket().getInputStream();
                        reader = startVirtual("reader", () -> {
                            go.await();
                            return in.read();
                        });
                    }
                }
                var closer = startVirtual("closer", () -> {
                    go.await();
                    spin(spins);
                    spinFor(delay);  // lands the close near the read timeout
                    sc.close();
                    return null;
                });
                VTask<Void> writer = null;
                if (scenario == Scenario.PARKED_CLOSE_AND_EDGE || scenario == Scenario.IDLE_CLOSE_AND_EDGE
                        || scenario == Scenario.PLATFORM_READER_CLOSE_AND_EDGE) {
                    writer = startVirtual("writer", () -> {
                        go.await();
                        try {
                            write(pair.client(), (byte) 42);
                        } catch (IOException ignore) { }  // peer closed and reset
                        return null;
                    });
                }
                go.countDown();
                closer.join("iteration " + i + ": close");
                if (writer != null)
                    writer.join("iteration " + i + ": write");
                if (blockedWriter != null) {
                    Object outcome = blockedWriter.outcome("iteration " + i + ": blocked writer to finish");
                    assertInstanceOf(AsynchronousCloseException.class, outcome, "iteration " + i + ": blocked writer");
                }
                if (reader != null) {
                    Object outcome = reader.outcome("iteration " + i + ": reader racing close to finish");
                    String name = switch (outcome) {
                        case Integer n when n == 42 -> "data";
                        case AsynchronousCloseException _ -> "AsynchronousCloseException";
                        case ClosedChannelException _ -> "ClosedChannelException";
                        case SocketTimeoutException _ -> "SocketTimeoutException";
                        case SocketException e when String.valueOf(e.getMessage())
                                .toLowerCase().contains("closed") -> "SocketException(closed)";
                        default -> throw new AssertionError("iteration " + i + ": unexpected outcome "
                                + outcome, (outcome instanceof Throwable t) ? t : null);
                    };
                    outcomes.merge(name, 1, Integer::sum);
                }
                assertForgotten(fd, "iteration " + i + " (" + (dupfd >= 0 ? "dup held" : "no dup") + ")");
                closedFds.add(fd);
            } finally {
                if (dupfd >= 0) closeFd(dupfd);
                pair.close();
            }
        }
        log("%s: ran %d iterations, reader outcomes %s, %d connections reused a closed fd number",
                scenario, iterations, outcomes, reusedFds);
    }

    enum InterruptScenario { INTERRUPT, INTERRUPT_AND_EDGE }

    /**
     * Interrupt racing a parked reader and an incoming edge. The reader gets the
     * byte or ClosedByInterruptException (the channel is then closed and must be
     * forgotten). When it got the byte the channel must still work: another read
     * cycle on it must complete.
     */
    @ParameterizedTest
    @EnumSource(InterruptScenario.class)
    void testInterruptRacing(InterruptScenario scenario) throws Throwable {
        int iterations = iterations(400);
        int data = 0, interrupted = 0;
        for (int i = 0; i < iterations; i++) {
            try (var pair = ChannelPair.open(listener())) {
                SocketChannel sc = pair.server();
                int fd = fdVal(sc);
                if (i % 2 == 1)
                    readCycle(pair, (byte) 1);   // registered before the race
                var reader = startVirtual("reader", () -> readByte(sc));
                awaitParked(reader.thread(), fd, "iteration " + i + ": reader to park");
                var go = new CountDownLatch(1);
                int spins = ThreadLocalRandom.current().nextInt(200);
                var interrupter = startVirtual("interrupter", () -> {
                    go.await();
                    spin(spins);
                    reader.thread().interrupt();
                    return null;
                });
                VTask<Void> writer = null;
                if (scenario == InterruptScenario.INTERRUPT_AND_EDGE) {
                    writer = startVirtual("writer", () -> {
                        go.await();
                        write(pair.client(), (byte) 42);
                        return null;
                    });
                }
                go.countDown();
                interrupter.join("iteration " + i + ": interrupt");
                if (writer != null)
                    writer.join("iteration " + i + ": write");
                Object outcome = reader.outcome("iteration " + i + ": reader racing interrupt to finish");
                if (outcome instanceof ClosedByInterruptException) {
                    interrupted++;
                    assertFalse(sc.isOpen());
                    assertForgotten(fd, "iteration " + i);
                } else {
                    assertEquals(42, outcome, "iteration " + i);
                    data++;
                    assertTrue(sc.isOpen());
                    readCycle(pair, (byte) 2);
                }
            }
        }
        log("%s: ran %d iterations, %d reads got data, %d closed by interrupt",
                scenario, iterations, data, interrupted);
    }

    /**
     * Read timeout racing an incoming edge, on one long-lived connection: each timed
     * read gets the byte or times out; after a timeout the byte must be read by the
     * next read. No waiter may be left behind by a timed-out read.
     */
    @Test
    void testTimeoutRacingEdge() throws Exception {
        int iterations = iterations(400);
        int data = 0, timeouts = 0;
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            InputStream in = sc.socket().getInputStream();
            for (int i = 0; i < iterations; i++) {
                int timeout = 1 + (i % 4);
                sc.socket().setSoTimeout(timeout);
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
                byte value = (byte) (i & 0x7f);
                var writer = startVirtual("writer", () -> {
                    go.await();
                    spinFor(delay);  // lands the edge near the read timeout
                    write(pair.client(), value);
                    return null;
                });
                go.countDown();
                writer.join("iteration " + i + ": write");
                int n = reader.join("iteration " + i + ": timed read racing an edge");
                if (n == -2) {
                    timeouts++;
                    sc.socket().setSoTimeout((int) TIMEOUT_MILLIS);
                    int iteration = i;
                    var reader2 = startVirtual("reader2", () -> {
                        try {
                            return in.read();
                        } catch (SocketTimeoutException e) {
                            throw timeout("iteration " + iteration + ": the byte that arrived as a read timed out");
                        }
                    });
                    n = reader2.join("iteration " + i + ": read after a timeout");
                } else {
                    data++;
                }
                assertEquals(value, n, "iteration " + i);
                if (edgeTriggered()) {
                    State s = state(fd);
                    assertTrue(s == State.REGISTERED || s == State.POLLED || s == State.ABSENT,
                            "iteration " + i + ": state after timed read: " + s);
                }
            }
        }
        log("ran %d iterations, %d reads got data, %d timed out first", iterations, data, timeouts);
    }

    /**
     * Hazard 5: stale events. Edges arrive for a set of registered fds while they
     * are closed and their numbers reused by new connections whose readers park.
     * A stale event may wake a new reader spuriously; every new reader must still
     * be woken by its own data and read its own byte.
     */
    @Test
    void testStaleEventsForReusedFds() throws Exception {
        int rounds = iterations(400) / 10;
        int connections = 32;
        int reused = 0;
        for (int round = 0; round < rounds; round++) {
            List<ChannelPair> old = new ArrayList<>();
            Set<Integer> oldFds = new HashSet<>();
            for (int i = 0; i < connections; i++) {
                var pair = ChannelPair.open(listener());
                old.add(pair);
                oldFds.add(fdVal(pair.server()));
                oldFds.add(fdVal(pair.client()));
            }
            // all registered: park a reader on each and wake it
            for (var pair : old) readCycle(pair, (byte) 3);

            var go = new CountDownLatch(1);
            var writer = startVirtual("writer", () -> {
                go.await();
                for (var pair : old) {
                    try {
                        write(pair.client(), (byte) 4);
                    } catch (IOException ignore) { }  // peer may be closed already
                }
                return null;
            });
            List<ChannelPair> fresh = new ArrayList<>();
            List<VTask<Integer>> readers = new ArrayList<>();
            var closer = startVirtual("closer", () -> {
                go.await();
                for (var pair : old) {
                    pair.close();
                    var p = ChannelPair.open(listener());
                    fresh.add(p);
                    SocketChannel sc = p.server();
                    readers.add(startVirtual("reader", () -> readByte(sc)));
                }
                return null;
            });
            go.countDown();
            writer.join("round " + round + ": writes to the old connections");
            closer.join("round " + round + ": close and reconnect");
            for (int i = 0; i < connections; i++) {
                var p = fresh.get(i);
                int fd = fdVal(p.server());
                if (oldFds.contains(fd)) reused++;
                awaitParked(readers.get(i).thread(), fd, "round " + round + ": new reader " + i + " to park");
            }
            for (int i = 0; i < connections; i++)
                write(fresh.get(i).client(), (byte) (10 + i));
            for (int i = 0; i < connections; i++) {
                int fd = fdVal(fresh.get(i).server());
                assertEquals(10 + i, readers.get(i).join("round " + round + ": new reader on fd " + fd));
            }
            for (var p : fresh) p.close();
        }
        log("ran %d rounds of %d connections (%d iterations), %d new connections reused an old fd number",
                rounds, connections, rounds * connections, reused);
    }
}
