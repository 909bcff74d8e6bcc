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
 * @summary The edge-triggered registrations table, indexed by file descriptor:
 *     reuse of a high fd number, growth while readers are parked, close racing
 *     growth. Feature off: behaviour only.
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED EdgeTriggeredFdTable
 */

/*
 * @test id=et-mode1
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 EdgeTriggeredFdTable
 */

/*
 * @test id=et-mode2
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 -Djdk.readPollers=1 EdgeTriggeredFdTable
 */

/*
 * @test id=et-mode1-32-pollers
 * @summary The registrations table of each of 32 read pollers holds only the file
 *     descriptors that poller owns
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 -Djdk.readPollers=32 EdgeTriggeredFdTable
 */

/*
 * @test id=et-mode2-32-pollers
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 -Djdk.readPollers=32 EdgeTriggeredFdTable
 */

import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import static org.junit.jupiter.api.Assertions.*;

import static etjdk.poller.PollerTestSupport.*;

class EdgeTriggeredFdTable {
    // file descriptors per chunk of the table (Poller.Registrations.CHUNK_SHIFT)
    private static final int CHUNK = 1024;

    private static ServerSocketChannel listener;
    private static int baseline;

    // file descriptors held open to push new channels to high numbers
    private static final List<Integer> fillers = new ArrayList<>();

    @BeforeAll
    static void setup() throws Exception {
        listener = openListener();
        try (var pair = ChannelPair.open(listener)) {
            EdgeTriggeredReadPoller.blockingReadCycle(pair);
        }
        baseline = registeredCount();
        log("edge-triggered: %s, pollerMode: '%s', baseline: %d", edgeTriggered(), POLLER_MODE, baseline);
    }

    @AfterAll
    static void finish() throws Throwable {
        listener.close();
        dumpPollers();
    }

    @AfterEach
    void checkConsistent(TestInfo info) throws Throwable {
        // each test starts from low fd numbers
        for (int fd : fillers)
            closeFd(fd);
        fillers.clear();
        assertConsistent("after " + info.getDisplayName(), baseline);
    }

    /**
     * Holds file descriptors open until the next one the process opens is at least
     * {@code fd}.
     */
    private static void fillUpTo(int fd) throws Throwable {
        int listenerFd = fdVal(listener);
        int next;
        while ((next = dup(listenerFd)) < fd - 1) {
            fillers.add(next);
        }
        fillers.add(next);
    }

    /** The number the process's next file descriptor gets. */
    private static int nextFd() throws Throwable {
        int fd = dup(fdVal(listener));
        closeFd(fd);
        return fd;
    }

    /** Opens a pair whose server channel is at fd {@code fd} or above. */
    private static ChannelPair openAbove(int fd) throws Throwable {
        fillUpTo(fd);
        var pair = ChannelPair.open(listener);
        assertTrue(fdVal(pair.server()) >= fd, "fd " + fdVal(pair.server()) + " below " + fd);
        return pair;
    }

    /**
     * Table memory is proportional to the file descriptors each poller owns: with n
     * read pollers, a poller's table holds slots for fd >>> log2(n), not for every fd
     * number up to the highest. Registers both ends of 32 consecutive connections at
     * each of 5 chunk boundaries (fd numbers 0 to about 4.2K), so that every poller
     * owns a file descriptor in each of those chunks, and checks each table's slots.
     */
    @Test
    void testTableSizeProportionalToOwnedFds() throws Throwable {
        List<ChannelPair> pairs = new ArrayList<>();
        int maxFd = 0;
        try {
            for (int k = 0; k < 5; k++) {
                if (nextFd() < k * CHUNK)
                    fillUpTo(k * CHUNK);
                for (int i = 0; i < 32; i++) {
                    var pair = ChannelPair.open(listener);
                    pairs.add(pair);
                    for (SocketChannel sc : List.of(pair.client(), pair.server())) {
                        SocketChannel peer = (sc == pair.client()) ? pair.server() : pair.client();
                        int fd = fdVal(sc);
                        maxFd = Math.max(maxFd, fd);
                        var reader = startVirtual("reader", () -> sc.read(ByteBuffer.allocate(1)));
                        awaitParked(reader.thread(), fd, "reader of fd " + fd);
                        peer.write(ByteBuffer.wrap(new byte[] { 1 }));
                        assertEquals(1, reader.join("read of fd " + fd));
                    }
                }
            }
            List<?> pollers = readPollers();
            int shift = Integer.numberOfTrailingZeros(pollers.size());
            long chunksNeeded = ((maxFd >>> shift) / CHUNK) + 1;
            long total = 0;
            for (Object p : pollers) {
                long slots = tableSlots(p);
                total += slots;
                // (with one poller, other tests' registrations at higher numbers count too)
                if (edgeTriggered() && pollers.size() > 1) {
                    assertTrue(slots <= chunksNeeded * CHUNK, "read poller " + pollers.indexOf(p)
                            + " of " + pollers.size() + " has " + slots + " slots; highest fd " + maxFd
                            + " needs at most " + chunksNeeded * CHUNK);
                }
            }
            log("%d read pollers, %d registrations, highest fd %d: %d table slots in all",
                    pollers.size(), pairs.size() * 2, maxFd, total);
        } finally {
            for (var pair : pairs)
                pair.close();
        }
    }

    /**
     * A channel at a high fd number is registered (growing the table), closed, and
     * the number reused by a new channel, whose first blocking read must register
     * afresh rather than find a state left by the closed one.
     */
    @Test
    void testHighFdReuse() throws Throwable {
        int fd;
        try (var pair = openAbove(3 * CHUNK + 100)) {
            fd = fdVal(pair.server());
            EdgeTriggeredReadPoller.blockingReadCycle(pair);
            assertEquals(edgeTriggered() ? State.REGISTERED : State.NOT_EDGE_TRIGGERED, state(fd));
        }
        if (edgeTriggered())
            assertEquals(State.ABSENT, state(fd), "state of closed fd " + fd);
        var c0 = counters(fd);
        try (var pair = ChannelPair.open(listener)) {
            assertEquals(fd, fdVal(pair.server()), "fd number not reused");
            EdgeTriggeredReadPoller.blockingReadCycle(pair);
            if (edgeTriggered())
                assertEquals(1, counters(fd).minus(c0).registrations(), "reused fd not registered afresh");
        }
    }

    /**
     * Readers parked on low fd numbers keep their state while registrations at
     * higher and higher numbers grow the table (4 growths), and all wake when
     * their data arrives; a ping-pong on a low fd runs throughout.
     */
    @Test
    void testGrowthWhilePolling() throws Throwable {
        int parkedReaders = 8;
        List<ChannelPair> low = new ArrayList<>();
        List<VTask<Integer>> readers = new ArrayList<>();
        try (var pingPong = ChannelPair.open(listener)) {
            for (int i = 0; i < parkedReaders; i++) {
                var pair = ChannelPair.open(listener);
                low.add(pair);
                readers.add(startVirtual("parked reader " + i, () -> pair.server().read(ByteBuffer.allocate(1))));
            }
            for (int i = 0; i < parkedReaders; i++)
                awaitParked(readers.get(i).thread(), fdVal(low.get(i).server()), "reader " + i + " before growth");

            // ping-pong on a low fd while the table grows: the virtual thread's reads
            // park until a platform thread has echoed its byte, so they go through the
            // read poller and leave its carrier to the test's other threads
            var stop = new java.util.concurrent.atomic.AtomicBoolean();
            var echo = startPlatform("echo", () -> {
                ByteBuffer b = ByteBuffer.allocate(1);
                while (pingPong.client().read(b.clear()) == 1)
                    pingPong.client().write(b.flip());
                return null;
            });
            var pinger = startVirtual("ping-pong", () -> {
                long roundTrips = 0;
                ByteBuffer b = ByteBuffer.allocate(1);
                while (!stop.get() || roundTrips == 0) {
                    pingPong.server().write(ByteBuffer.wrap(new byte[] { 1 }));
                    if (pingPong.server().read(b.clear()) != 1) throw new AssertionError("ping");
                    roundTrips++;
                }
                pingPong.server().shutdownOutput();
                return roundTrips;
            });
            int grown = 0;
            for (int fd = CHUNK + 10; fd < 9 * CHUNK; fd *= 2) {
                try (var high = openAbove(fd)) {
                    EdgeTriggeredReadPoller.blockingReadCycle(high);
                }
                grown++;
            }
            stop.set(true);
            log("ping-pong round trips during %d growths: %d", grown, pinger.join("ping-pong to finish"));
            echo.join("echo to see the ping-pong's end of stream");

            for (int i = 0; i < parkedReaders; i++) {
                int fd = fdVal(low.get(i).server());
                if (edgeTriggered())
                    assertEquals(State.THREAD, state(fd), "parked reader " + i + " lost its state in growth");
                low.get(i).client().write(ByteBuffer.wrap(new byte[] { 1 }));
                assertEquals(1, readers.get(i).join("parked reader " + i + " to wake after growth"));
            }
        } finally {
            for (var pair : low)
                pair.close();
        }
    }

    /**
     * Channels registered in one chunk are closed while another thread registers a
     * channel in a new chunk (creating the chunk, and growing the table when the
     * chunk's index reaches its length). Iterations: 5, one new chunk each.
     */
    @Test
    void testCloseRacingGrowth() throws Throwable {
        int perChunk = 16;
        for (int chunk = 1; chunk <= 5; chunk++) {
            // channels to close, registered
            List<ChannelPair> closing = new ArrayList<>();
            for (int i = 0; i < perChunk; i++) {
                var pair = ChannelPair.open(listener);
                closing.add(pair);
                EdgeTriggeredReadPoller.blockingReadCycle(pair);
            }
            // a channel in the next chunk, not registered yet
            var growing = openAbove((nextFd() / CHUNK + 1) * CHUNK + 1);
            var start = new CountDownLatch(1);
            var closer = startPlatform("closer", () -> {
                start.await();
                for (var pair : closing)
                    pair.close();
                return null;
            });
            var grower = startVirtual("grower", () -> {
                start.await();
                try (growing) {
                    EdgeTriggeredReadPoller.blockingReadCycle(growing);
                }
                return null;
            });
            start.countDown();
            closer.join("closer, chunk " + chunk);
            grower.join("grower, chunk " + chunk);
            assertConsistent("close racing the creation of chunk " + chunk, baseline);
        }
    }
}
