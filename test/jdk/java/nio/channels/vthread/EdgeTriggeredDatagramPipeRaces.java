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
 * @summary Close, interrupt and fd-number reuse racing a parked reader and an
 *     incoming edge on DatagramChannel and Pipe.SourceChannel read by virtual
 *     threads. Feature off: behaviour only.
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED EdgeTriggeredDatagramPipeRaces
 */

/*
 * @test id=et-mode1
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 EdgeTriggeredDatagramPipeRaces
 */

/*
 * @test id=et-mode2
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 EdgeTriggeredDatagramPipeRaces
 */

/*
 * @test id=mode4
 * @requires os.family == "linux" & vm.continuations
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerMode=4 EdgeTriggeredDatagramPipeRaces
 */

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.DatagramChannel;
import java.nio.channels.Pipe;
import java.nio.channels.ReadableByteChannel;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import static org.junit.jupiter.api.Assertions.*;

import static etjdk.poller.PollerTestSupport.*;

class EdgeTriggeredDatagramPipeRaces {
    private static int baseline;

    /** A channel read by a virtual thread, and a way to make it readable. */
    interface Source extends Closeable {
        ReadableByteChannel channel();
        void send(byte b) throws IOException;
        default int fd() {
            return fdVal(channel());
        }
    }

    enum Kind {
        DATAGRAM {
            Source open() throws IOException {
                var loopback = InetAddress.getLoopbackAddress();
                DatagramChannel receiver = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0));
                DatagramChannel sender = DatagramChannel.open().bind(new InetSocketAddress(loopback, 0));
                receiver.connect(sender.getLocalAddress());
                sender.connect(receiver.getLocalAddress());
                return new Source() {
                    public ReadableByteChannel channel() { return receiver; }
                    public void send(byte b) throws IOException {
                        sender.write(ByteBuffer.wrap(new byte[] { b }));
                    }
                    public void close() throws IOException {
                        try (receiver; sender) { }
                    }
                };
            }
        },
        PIPE {
            Source open() throws IOException {
                Pipe pipe = Pipe.open();
                return new Source() {
                    public ReadableByteChannel channel() { return pipe.source(); }
                    public void send(byte b) throws IOException {
                        pipe.sink().write(ByteBuffer.wrap(new byte[] { b }));
                    }
                    public void close() throws IOException {
                        try (var source = pipe.source(); var sink = pipe.sink()) { }
                    }
                };
            }
        };

        abstract Source open() throws IOException;
    }

    @BeforeAll
    static void setup() throws Exception {
        for (Kind kind : Kind.values()) {
            try (Source source = kind.open()) {
                readCycle(source, (byte) 1);
            }
        }
        baseline = registeredCount();
        log("edge-triggered requested: %s, pollerMode: '%s', edge-triggered: %s, baseline: %d",
                ET_REQUESTED, POLLER_MODE, edgeTriggered(), baseline);
    }

    @AfterEach
    void checkConsistent(TestInfo info) {
        assertConsistent("after " + info.getDisplayName(), baseline);
    }

    /** Blocking read of one byte in a virtual thread that parks until it is sent. */
    static void readCycle(Source source, byte value) throws Exception {
        int fd = source.fd();
        var reader = startVirtual("reader", () -> readByte(source.channel()));
        awaitParked(reader.thread(), fd, "reader to park (read cycle on fd " + fd + ")");
        source.send(value);
        assertEquals(value, (byte) (int) reader.join("read cycle on fd " + fd + " to complete"));
        if (edgeTriggered()) {
            // POLLED: an edge with no reader waiting, such as a stale event for the
            // number's previous file (Poller's invariant 3: at most a spurious
            // wakeup); seen once in et-mode1, where the iteration before had closed
            // the same number in a race
            State state = state(fd);
            assertTrue(state == State.REGISTERED || state == State.POLLED,
                    "after a read cycle on fd " + fd + ": " + state);
        }
    }

    static int readByte(ReadableByteChannel ch) throws IOException {
        ByteBuffer bb = ByteBuffer.allocate(1);
        int n = ch.read(bb);
        return (n == 1) ? bb.get(0) : n;
    }

    /**
     * Close racing a parked reader and an incoming edge. Every other iteration holds
     * a dup(2) of the fd, so that a registration not removed before close(2) survives
     * in the kernel, where the test finds it. The next iteration reuses the fd
     * numbers, and its first read must register afresh and complete. Iterations: 300.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void testCloseRacingEdgeAndReuse(Kind kind) throws Throwable {
        int iterations = iterations(300);
        Map<String, Integer> outcomes = new TreeMap<>();
        int previousFd = -1, reused = 0;
        for (int i = 0; i < iterations; i++) {
            Source source = kind.open();
            int fd = source.fd();
            if (fd == previousFd) reused++;
            int dupfd = (i % 2 == 1) ? dup(fd) : -1;
            try {
                readCycle(source, (byte) 1);   // registered (afresh if the number was reused)
                var reader = startVirtual("reader", () -> readByte(source.channel()));
                awaitParked(reader.thread(), fd, "iteration " + i + ": reader to park");
                var go = new CountDownLatch(1);
                int spins = ThreadLocalRandom.current().nextInt(200);
                var closer = startVirtual("closer", () -> {
                    go.await();
                    spin(spins);
                    source.channel().close();
                    return null;
                });
                var writer = startVirtual("writer", () -> {
                    go.await();
                    try {
                        source.send((byte) 42);
                    } catch (IOException ignore) { }  // the pipe's read end is closed
                    return null;
                });
                go.countDown();
                closer.join("iteration " + i + ": close");
                writer.join("iteration " + i + ": send");
                Object outcome = reader.outcome("iteration " + i + ": reader racing close to finish");
                String name = switch (outcome) {
                    case Integer n when n == 42 -> "data";
                    case AsynchronousCloseException _ -> "AsynchronousCloseException";
                    case ClosedChannelException _ -> "ClosedChannelException";
                    default -> throw new AssertionError("iteration " + i + ": unexpected outcome "
                            + outcome, (outcome instanceof Throwable t) ? t : null);
                };
                outcomes.merge(name, 1, Integer::sum);
                assertForgotten(fd, "iteration " + i + " (" + (dupfd >= 0 ? "dup held" : "no dup") + ")");
                previousFd = fd;
            } finally {
                if (dupfd >= 0) closeFd(dupfd);
                source.close();
            }
        }
        log("%s: ran %d iterations, reader outcomes %s, %d reused the previous fd number",
                kind, iterations, outcomes, reused);
        assertTrue(reused > iterations / 4, "fd numbers were not reused: " + reused + " of " + iterations);
    }

    /**
     * Interrupt racing a parked reader and an incoming edge. The reader gets the
     * byte or ClosedByInterruptException (the channel is then closed and must be
     * forgotten, also in the kernel while a dup holds the file); after the byte the
     * channel must still work. Iterations: 300.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void testInterruptRacingEdge(Kind kind) throws Throwable {
        int iterations = iterations(300);
        int data = 0, interrupted = 0;
        for (int i = 0; i < iterations; i++) {
            try (Source source = kind.open()) {
                int fd = source.fd();
                // every other iteration holds a dup, so that a registration left
                // after the close survives in the kernel, where the test finds it
                int dupfd = (i % 4 >= 2) ? dup(fd) : -1;
                try {
                if (i % 2 == 1)
                    readCycle(source, (byte) 1);   // registered before the race
                var reader = startVirtual("reader", () -> readByte(source.channel()));
                awaitParked(reader.thread(), fd, "iteration " + i + ": reader to park");
                var go = new CountDownLatch(1);
                int spins = ThreadLocalRandom.current().nextInt(200);
                var interrupter = startVirtual("interrupter", () -> {
                    go.await();
                    spin(spins);
                    reader.thread().interrupt();
                    return null;
                });
                var writer = startVirtual("writer", () -> {
                    go.await();
                    try {
                        source.send((byte) 42);
                    } catch (IOException ignore) { }  // the read end was closed by the interrupt
                    return null;
                });
                go.countDown();
                interrupter.join("iteration " + i + ": interrupt");
                writer.join("iteration " + i + ": send");
                Object outcome = reader.outcome("iteration " + i + ": reader racing interrupt to finish");
                if (outcome instanceof ClosedByInterruptException) {
                    interrupted++;
                    assertFalse(source.channel().isOpen());
                    assertForgotten(fd, "iteration " + i);
                } else {
                    assertEquals(42, outcome, "iteration " + i);
                    data++;
                    assertTrue(source.channel().isOpen());
                    readCycle(source, (byte) 2);
                }
                } finally {
                    if (dupfd >= 0) closeFd(dupfd);
                }
            }
        }
        log("%s: ran %d iterations, %d reads got data, %d closed by interrupt",
                kind, iterations, data, interrupted);
    }
}
