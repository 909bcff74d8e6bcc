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
 * @summary White-box test of the edge-triggered read poller state machine: an edge
 *     between EAGAIN and the poll, an fd already readable when added, POLLED
 *     consumed, close and reuse of the fd number, duplicated file descriptions,
 *     switching between blocking reads and a Selector. Feature off: behaviour only.
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED EdgeTriggeredReadPoller
 */

/*
 * @test id=et-mode1
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=1 EdgeTriggeredReadPoller
 */

/*
 * @test id=et-mode2
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 EdgeTriggeredReadPoller
 */

/*
 * @test id=mode4
 * @requires os.family == "linux" & vm.continuations
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerMode=4 EdgeTriggeredReadPoller
 */

/*
 * @test id=et-mode3
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=3 EdgeTriggeredReadPoller
 */

/*
 * @test id=et-shared
 * @summary Edge-triggered, all file descriptors share one read sub-poller
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 -Djdk.readPollers=1 EdgeTriggeredReadPoller
 */

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;
import static org.junit.jupiter.api.Assertions.*;

import etjdk.poller.PollerFixture;

import static etjdk.poller.PollerTestSupport.*;

class EdgeTriggeredReadPoller {
    @RegisterExtension
    static final PollerFixture<ServerSocketChannel> FIXTURE = PollerFixture.of(
            () -> openListener(),
            l -> {
                // start the pollers and load the classes used
                try (var pair = ChannelPair.open(l)) {
                    blockingReadCycle(pair);
                }
            });

    private static ServerSocketChannel listener() {
        return FIXTURE.listener();
    }

    /**
     * Reads one byte in a virtual thread that parks until the peer writes it.
     * Leaves the reader's fd in the state of {@link #afterFullRead} when
     * edge-triggered.
     */
    static void blockingReadCycle(ChannelPair pair) throws Exception {
        SocketChannel sc = pair.server();
        int fd = fdVal(sc);
        QueueReports reports = receiveQueueReports(sc);
        var reader = startVirtual("reader", () -> sc.read(ByteBuffer.allocate(1)));
        awaitParked(reader.thread(), fd, "read cycle");
        pair.client().write(ByteBuffer.wrap(new byte[] { 1 }));
        assertEquals(1, reader.join("blocking read to complete when data arrives"));
        if (edgeTriggered())
            assertEquals(afterFullRead(reports), state(fd));
    }

    /**
     * The state of an edge-triggered fd after a virtual thread's read that filled its
     * buffer and emptied the queue: DRAINED if the channel's reads reported the queue
     * before the read (TCP_INQ, asked for after its first such read), else REGISTERED.
     */
    static State afterFullRead(QueueReports reportsBeforeTheRead) {
        return (reportsBeforeTheRead == QueueReports.ON) ? State.DRAINED : State.REGISTERED;
    }

    /**
     * Blocking read of one byte in a virtual thread, expected to return without
     * waiting for new data.
     */
    static int readByte(SocketChannel sc, String what) throws Exception {
        return startVirtual("reader", () -> readByteNow(sc)).join(what);
    }

    /** Blocking read of one byte in the current thread. */
    static int readByteNow(SocketChannel sc) throws IOException {
        ByteBuffer bb = ByteBuffer.allocate(1);
        int n = sc.read(bb);
        return (n == 1) ? bb.get(0) : n;
    }

    static void write(SocketChannel sc, String s) throws IOException {
        ByteBuffer bb = ByteBuffer.wrap(s.getBytes("ISO-8859-1"));
        while (bb.hasRemaining()) sc.write(bb);
    }

    /**
     * The pollers are configured as requested: edge-triggered read pollers in modes
     * 1 and 2 with the property set, one-shot otherwise; the master poller and the
     * write pollers are always one-shot.
     */
    @Test
    void testConfiguration() throws Exception {
        // a blocking read in a virtual thread starts a per-carrier poller in mode 3
        try (var pair = ChannelPair.open(listener())) {
            blockingReadCycle(pair);
        }
        boolean expected = ET_REQUESTED && !POLLER_MODE.equals("3");
        List<?> pollers = readPollers();
        assertFalse(pollers.isEmpty(), "no read pollers");
        for (Object p : pollers) {
            assertEquals(expected, isEdgeTriggered(p), "read poller " + p);
        }
        assertEquals(expected, edgeTriggered());
        Object master = masterPoller();
        if (master != null)
            assertFalse(isEdgeTriggered(master), "master poller " + master);
        for (Object p : writePollers())
            assertFalse(isEdgeTriggered(p), "write poller " + p);
        if (expected && System.getProperty("jdk.readPollers") != null)
            assertEquals(Integer.getInteger("jdk.readPollers"), pollers.size());
    }

    /**
     * Hazard 1: an edge arrives between the read that returned EAGAIN and the start
     * of the poll. The poll must not park: the fd goes POLLED -> REGISTERED and the
     * caller retries its read, which returns the byte.
     */
    @Test
    void testEdgeBeforePoll() throws Exception {
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            blockingReadCycle(pair);
            boolean et = edgeTriggered();

            Counters before = counters(fd);
            write(pair.client(), "x");
            if (et)
                awaitState(fd, State.POLLED, "the edge to be polled while nobody waits");

            // the reader: its read saw EAGAIN before the write, now it polls
            var poll = startVirtual("poll", () -> { pollIn(fd, 0); return null; });
            poll.join("Poller.poll of an fd in state POLLED to return without parking");
            if (et) {
                assertEquals(State.REGISTERED, state(fd));
                Counters delta = counters(fd).minus(before);
                assertEquals(1, delta.idleEdges(), delta.toString());
                assertEquals(1, delta.retries(), delta.toString());
                assertEquals(0, delta.reused(), "parked instead of retrying: " + delta);
                assertEquals(0, delta.registrations(), delta.toString());
            }
            assertEquals('x', readByte(sc, "the retried read to return the byte"));
        }
    }

    /**
     * Hazard 6, the pre-close race, one interleaving made deterministic: the closer
     * marks the channel closed and removes the registration (beforeClose, then it
     * would dup2 over the fd); a reader whose read saw EAGAIN before the close polls
     * only now. It must not register the fd: the registration would outlive the
     * file behind the dup2. A dup(2) holds the file, so a registration made here
     * would stay in the kernel, where the test looks for it.
     */
    @Test
    void testRegistrationAfterPreClose() throws Throwable {
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            blockingReadCycle(pair);   // registered
            int dupfd = dup(fd);
            try {
                // the closer marks the channel closed (isOpen is false from now on),
                beforeClose(fd);       // then removes the registration
                if (edgeTriggered())
                    assertEquals(State.ABSENT, state(fd), "state after beforeClose");
                var poll = startVirtual("poll", () -> { pollIn(fd, 0, () -> false); return null; });
                poll.join("Poller.poll of a closed channel's fd to return without parking");
                if (edgeTriggered()) {
                    assertEquals(State.ABSENT, state(fd), "a poll after beforeClose registered the fd");
                    assertNull(staleOrAnyRegistration(fd), "a poll after beforeClose registered the fd");
                }
            } finally {
                closeFd(dupfd);
            }
        }
    }

    /**
     * Hazard 6, the pre-close race, the other interleaving made deterministic: the
     * reader has stored REGISTERING and is about to epoll_ctl(ADD) (it is in the
     * channel's isOpen check, which still says open) when the closer runs
     * beforeClose. The closer must wait until the reader has added and removed the
     * registration: after beforeClose returns (it would then dup2), no registration
     * may remain. With a stale event for the number arriving in that window too
     * (an event for its previous file, in the poller's batch), which must not make
     * the closer think the registration is complete. A dup(2) holds the file.
     */
    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void testPreCloseWhileRegistering(boolean staleEvent) throws Throwable {
        Assumptions.assumeTrue(edgeTriggered(), "edge-triggered read pollers only");
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            assertEquals(State.ABSENT, state(fd));
            int dupfd = dup(fd);
            try {
                var closer = new java.util.concurrent.atomic.AtomicReference<VTask<Void>>();
                java.util.function.BooleanSupplier isOpen = () -> {
                    assertEquals(State.REGISTERING, state(fd), "state during the isOpen check");
                    if (staleEvent)
                        polled(fd);
                    closer.set(startPlatform("closer", () -> { beforeClose(fd); return null; }));
                    await("the closer to see the registration in progress (state " + state(fd) + ")",
                            () -> state(fd) == State.CLOSING || closer.get().isDone());
                    return true;
                };
                var poll = startVirtual("poll", () -> { pollIn(fd, 0, isOpen); return null; });
                poll.join("Poller.poll racing beforeClose to return without parking");
                closer.get().join("beforeClose to return once the reader has deregistered");
                assertEquals(State.ABSENT, state(fd), "state after beforeClose");
                assertNull(staleOrAnyRegistration(fd), "registration left after beforeClose");
            } finally {
                closeFd(dupfd);
            }
        }
    }

    /** The kernel's registration of fd in its read poller's epoll set, null if none. */
    private static String staleOrAnyRegistration(int fd) {
        var targets = epollTargets(epfd(readPollerFor(fd))).get(fd);
        return (targets == null) ? null : "epoll set has fd " + fd + " registered (inodes " + targets + ")";
    }

    /**
     * Hazard 1, racing: one byte per round trip, written at a random moment of the
     * reader's next read, so that some edges land between the read that returns
     * EAGAIN and the start of the poll. A lost edge => the reader hangs => watchdog.
     */
    @Test
    void testEdgeRacingPollStart() throws Exception {
        int iterations = iterations(300) * 100;
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            Counters before = counters(fd);
            var progress = new java.util.concurrent.atomic.AtomicInteger();
            var reader = startVirtual("reader", () -> {
                ByteBuffer bb = ByteBuffer.allocate(1);
                for (int i = 0; i < iterations; i++) {
                    bb.clear();
                    assertEquals(1, sc.read(bb));
                    assertEquals((byte) i, bb.get(0));
                    progress.set(i + 1);
                }
                return null;
            });
            // a platform thread: a virtual one would hold the only carrier of a
            // 1-CPU machine while it waits for the reader
            var writer = startPlatform("writer", () -> {
                var random = java.util.concurrent.ThreadLocalRandom.current();
                ByteBuffer bb = ByteBuffer.allocate(1);
                for (int i = 0; i < iterations; i++) {
                    // wait for the reader to take the previous byte (condition poll;
                    // the yield gives the reader's carrier the CPU when they share one)
                    long deadline = System.nanoTime() + TIMEOUT_MILLIS * 1_000_000L;
                    while (progress.get() < i) {
                        if (reader.isDone())
                            return null;  // reader.join reports why
                        if (System.nanoTime() - deadline > 0)
                            throw timeout("the reader to read byte " + (i - 1) + " of " + iterations
                                    + " (state " + state(fd) + ")");
                        Thread.yield();
                    }
                    int spins = random.nextInt(300);
                    for (int s = 0; s < spins; s++) Thread.onSpinWait();
                    bb.clear().put((byte) i).flip();
                    pair.client().write(bb);
                }
                return null;
            });
            writer.joinWhileProgressing("the writer to write " + iterations + " bytes",
                    progress::get);
            reader.join("the reader to read " + iterations + " bytes");
            Counters delta = counters(fd).minus(before);
            log("ran %d iterations (round trips), counters %s", iterations, delta);
        }
    }

    /**
     * Hazard 2: the fd is already readable when it is added to the epoll instance:
     * the poll returns without parking (a reader that has just registered retries
     * its read; the kernel's immediate event is ignored while the registration is
     * in progress, or leaves POLLED_CONDITION after it), and the read returns the byte.
     */
    @Test
    void testReadableWhenAdded() throws Exception {
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            Counters before = counters(fd);
            write(pair.client(), "y");
            var poll = startVirtual("poll", () -> { pollIn(fd, 0); return null; });
            poll.join("Poller.poll of an fd readable when first added to return");
            if (edgeTriggered()) {
                State s = state(fd);
                // CONDITION or POLLED_CONDITION: events were ignored while registering
                assertTrue(s == State.CONDITION || s == State.POLLED_CONDITION, "state after the poll: " + s);
                assertEquals(1, counters(fd).minus(before).registrations());
            }
            assertEquals('y', readByte(sc, "the read after the poll to return the byte"));
        }
    }

    /**
     * Hazard 2: data written before the first blocking read of a fresh connection:
     * the read returns it without registering; the next read registers, parks and
     * is woken by new data.
     */
    @Test
    void testDataBeforeFirstRead() throws Exception {
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            Counters before = counters(fd);
            write(pair.client(), "a");
            assertEquals('a', readByte(sc, "first read of data written before it"));
            if (edgeTriggered()) {
                assertEquals(State.ABSENT, state(fd));
                assertEquals(0, counters(fd).minus(before).registrations());
            }
            var reader = startVirtual("reader", () -> sc.read(ByteBuffer.allocate(1)));
            awaitParked(reader.thread(), fd, "second read to park");
            write(pair.client(), "b");
            assertEquals(1, reader.join("second read to complete when data arrives"));
            if (edgeTriggered())
                assertEquals(1, counters(fd).minus(before).registrations());
        }
    }

    /**
     * Hazard 2, racing: the first read of a fresh connection whose data arrives at
     * about the time the fd is added. Lost edge => the read hangs => watchdog.
     */
    @Test
    void testDataArrivesAtFirstAdd() throws Exception {
        int iterations = iterations(300);
        int parked = 0;
        Counters before = counters();
        for (int i = 0; i < iterations; i++) {
            try (var pair = ChannelPair.open(listener())) {
                SocketChannel sc = pair.server();
                var go = new CountDownLatch(1);
                int spins = i % 50;
                var reader = startVirtual("reader", () -> {
                    go.await();
                    return sc.read(ByteBuffer.allocate(1));
                });
                var writer = startVirtual("writer", () -> {
                    go.await();
                    for (int spin = 0; spin < spins; spin++) Thread.onSpinWait();
                    return pair.client().write(ByteBuffer.wrap(new byte[] { 7 }));
                });
                go.countDown();
                writer.join("writer");
                assertEquals(1, reader.join("iteration " + i + ": read racing the first add to complete"));
            }
        }
        if (edgeTriggered())
            parked = (int) counters().minus(before).registrations();
        log("ran %d iterations, %d reads registered their fd", iterations, parked);
    }

    /**
     * Hazard 3: POLLED consumed. Two bytes arrive while nobody waits (POLLED); two
     * reads return them without a new write; the third read consumes POLLED, retries,
     * and then parks until new data arrives.
     */
    @Test
    void testPolledConsumedByRead() throws Exception {
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            blockingReadCycle(pair);
            boolean et = edgeTriggered();

            write(pair.client(), "ab");
            if (et)
                awaitState(fd, State.POLLED, "two bytes arriving while nobody waits");
            Counters before = counters(fd);
            assertEquals('a', readByte(sc, "read of the first byte"));
            assertEquals('b', readByte(sc, "read of the second byte, no new write"));
            if (et)
                assertEquals(State.POLLED, state(fd));

            var reader = startVirtual("reader", () -> readByteNow(sc));
            awaitParked(reader.thread(), fd, "third read to park until new data");
            assertFalse(reader.isDone());
            if (et) {
                Counters delta = counters(fd).minus(before);
                assertEquals(1, delta.retries(), "POLLED not consumed by a retry: " + delta);
                assertEquals(1, delta.reused(), delta.toString());
            }
            write(pair.client(), "c");
            assertEquals('c', reader.join("third read to complete when new data arrives"));
        }
    }

    /**
     * Hazard 3: POLLED consumed by a poll (the retry path) while data remains: later
     * blocking reads must return the data without a new write, and the read after
     * that blocks until new data.
     */
    @Test
    void testPolledConsumedByPoll() throws Exception {
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            blockingReadCycle(pair);
            boolean et = edgeTriggered();

            write(pair.client(), "de");
            if (et)
                awaitState(fd, State.POLLED, "two bytes arriving while nobody waits");
            var poll = startVirtual("poll", () -> { pollIn(fd, 0); return null; });
            poll.join("Poller.poll of an fd in state POLLED to return without parking");
            if (et)
                assertEquals(State.REGISTERED, state(fd));
            assertEquals('d', readByte(sc, "read after POLLED was consumed, no new write"));
            assertEquals('e', readByte(sc, "second read after POLLED was consumed, no new write"));

            var reader = startVirtual("reader", () -> readByteNow(sc));
            awaitParked(reader.thread(), fd, "read of an empty socket to park");
            write(pair.client(), "f");
            assertEquals('f', reader.join("read to complete when new data arrives"));
        }
    }

    enum Before { NEVER_POLLED, REGISTERED, POLLED, PARKED_READER }

    /**
     * Hazard 4: close in each state, then a new socket gets the same fd number. No map
     * entry or kernel registration survives the close; the new socket's first blocking
     * read must register afresh and complete when its data arrives.
     */
    @ParameterizedTest
    @EnumSource(Before.class)
    void testCloseAndReuse(Before before) throws Exception {
        boolean et = edgeTriggered();
        var pair = ChannelPair.open(listener());
        SocketChannel sc = pair.server();
        int fd = fdVal(sc);
        VTask<Integer> reader = null;
        switch (before) {
            case NEVER_POLLED -> { }
            case REGISTERED -> blockingReadCycle(pair);
            case POLLED -> {
                blockingReadCycle(pair);
                write(pair.client(), "p");
                if (et) awaitState(fd, State.POLLED, "edge while nobody waits");
            }
            case PARKED_READER -> {
                reader = startVirtual("reader", () -> sc.read(ByteBuffer.allocate(1)));
                awaitParked(reader.thread(), fd, "reader to park before close");
            }
        }
        if (et)
            assertEquals(before != Before.NEVER_POLLED, rawState(fd) != null);
        Counters c0 = counters(fd);
        sc.close();
        if (reader != null) {
            Object outcome = reader.outcome("parked reader to be woken by close");
            assertTrue(outcome instanceof AsynchronousCloseException, "reader: " + outcome);
        }
        if (et) {
            assertNull(rawState(fd), "map entry survived close of fd " + fd);
            assertNull(kernelRegistrationProblem(fd));
            long expected = (before == Before.NEVER_POLLED) ? 0 : 1;
            assertEquals(expected, counters(fd).minus(c0).deregistrations());
        }

        // reuse the fd number
        try (var reused = reuse(fd); var pair2 = ChannelPair.connect(reused, listener())) {
            Counters c1 = counters(fd);
            var reader2 = startVirtual("reader2", () -> {
                ByteBuffer bb = ByteBuffer.allocate(1);
                int n = reused.read(bb);
                return (n == 1) ? bb.get(0) : n;
            });
            awaitParked(reader2.thread(), fd, "reader of the reused fd to park");
            if (et)
                assertEquals(1, counters(fd).minus(c1).registrations(),
                        "the reused fd was not registered afresh");
            write(pair2.server(), "n");
            assertEquals('n', reader2.join("read on reused fd " + fd + " to complete"));
        } finally {
            pair.close();
        }
    }

    /**
     * Opens a SocketChannel right after fd was closed and returns it if it got the
     * same number; retries a bounded number of times, keeping the channels that got
     * another number open meanwhile so that they don't get it again.
     */
    static SocketChannel reuse(int fd) throws IOException {
        List<SocketChannel> others = new ArrayList<>();
        try {
            for (int attempt = 1; attempt <= 16; attempt++) {
                SocketChannel sc = SocketChannel.open();
                if (fdVal(sc) == fd) {
                    if (attempt > 1)
                        log("fd %d reused after %d attempts", fd, attempt);
                    return sc;
                }
                others.add(sc);
            }
            fail("fd " + fd + " was not reused, got " + others.stream().map(s -> fdVal(s)).toList());
            return null;
        } finally {
            for (SocketChannel sc : others) sc.close();
        }
    }

    enum ClosePath {
        /** nobody reads: close(2) */
        CLOSE,
        /** a virtual thread is parked in read: it is woken and closes the fd */
        VIRTUAL_READER,
        /** a platform thread is blocked in read (Net.poll): pre-close dup2, then close */
        PLATFORM_READER
    }

    /**
     * Hazard 6: the open file description outlives the fd number (here a dup(2), as
     * a child process in the fork/exec window would hold). The registration must be
     * removed before close(2), and before the pre-close dup2 when a platform thread
     * is blocked reading, otherwise the kernel keeps it for the old file under a
     * number that a new socket then owns. Then data on the old file must not disturb
     * the new owner of the number.
     */
    @ParameterizedTest
    @EnumSource(ClosePath.class)
    void testCloseWithDuplicatedFile(ClosePath path) throws Throwable {
        boolean et = edgeTriggered();
        var pair = ChannelPair.open(listener());
        SocketChannel sc = pair.server();
        int fd = fdVal(sc);
        long ino = inode(fd);
        blockingReadCycle(pair);
        int dupfd = dup(fd);
        try {
            VTask<Integer> reader = null;
            if (path == ClosePath.VIRTUAL_READER) {
                reader = startVirtual("reader", () -> sc.read(ByteBuffer.allocate(1)));
                awaitParked(reader.thread(), fd, "reader to park before close");
            } else if (path == ClosePath.PLATFORM_READER) {
                reader = startPlatform("reader", () -> sc.read(ByteBuffer.allocate(1)));
                awaitInNetPoll(reader.thread(), "platform reader to block before close");
            }
            sc.close();
            if (reader != null) {
                Object outcome = reader.outcome("blocked reader to be woken by close");
                assertTrue(outcome instanceof AsynchronousCloseException, "reader: " + outcome);
            }
            assertEquals(ino, inode(dupfd), "the duplicate no longer refers to the file");
            if (et) {
                assertNull(rawState(fd), "map entry survived close");
                assertNull(kernelRegistrationProblem(fd));
            }

            try (var reused = reuse(fd); var pair2 = ChannelPair.connect(reused, listener())) {
                var reader2 = startVirtual("reader2", () -> readByteNow(reused));
                awaitParked(reader2.thread(), fd, "reader of the reused fd to park");
                // data for the old file, still open through the duplicate
                write(pair.client(), "o");
                // a registration that survived for the old file would report this
                // event under fd, and stay in the kernel
                assertNull(staleRegistrationProblem(fd));
                write(pair2.server(), "n");
                assertEquals('n', reader2.join("read on reused fd " + fd + " to complete"));
            }
        } finally {
            closeFd(dupfd);
            pair.close();
        }
    }

    /**
     * Hazard 11: a channel switched between blocking reads and a Selector. The fd
     * stays registered with its read poller meanwhile. An edge whose data is still
     * there when the read poller looks leaves the fd POLLED (the kernel drops an
     * edge-triggered event whose data was already read, so the test leaves the last
     * byte for the Selector phase unread until the read poller has seen it). The
     * blocking read afterwards consumes POLLED, finds no data and parks until new
     * data arrives.
     */
    @Test
    void testSwitchBetweenBlockingAndSelector() throws Exception {
        try (var pair = ChannelPair.open(listener())) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            boolean et = edgeTriggered();
            blockingReadCycle(pair);
            Counters before = counters(fd);

            for (int round = 0; round < 3; round++) {
                sc.configureBlocking(false);
                try (Selector sel = Selector.open()) {
                    SelectionKey key = sc.register(sel, SelectionKey.OP_READ);
                    ByteBuffer bb = ByteBuffer.allocate(10);

                    // data first, then select (in a virtual thread)
                    write(pair.client(), "s");
                    var select = startVirtual("select", () -> sel.select());
                    assertEquals(1, select.join("select of a readable channel"));
                    assertEquals(1, sc.read(bb));
                    assertEquals(0, sc.read(bb));
                    sel.selectedKeys().clear();

                    // select first, then data
                    var select2 = startVirtual("select2", () -> sel.select());
                    await("select to park", () -> select2.thread().getState() == Thread.State.WAITING);
                    write(pair.client(), "t");
                    assertEquals(1, select2.join("select to wake when data arrives"));
                    sel.selectedKeys().clear();
                    bb.clear();
                    assertEquals(1, sc.read(bb));
                    assertEquals('t', bb.get(0));

                    // an edge seen by the read poller while the channel is non-blocking
                    write(pair.client(), "v");
                    if (et)
                        awaitState(fd, State.POLLED, "an edge while the channel is used with a Selector");
                    assertEquals(1, sel.selectNow());
                    bb.clear();
                    assertEquals(1, sc.read(bb));
                    assertEquals('v', bb.get(0));
                    // an event for s, t or v that the poller took before its byte
                    // was read must not reach the blocking read below
                    if (et)
                        before = before.plus(awaitReadPollerCaughtUp(fd, listener()));

                    key.cancel();
                    sel.selectNow();
                }
                sc.configureBlocking(true);
                if (et)
                    assertEquals(State.POLLED, state(fd));

                QueueReports reports = receiveQueueReports(sc);
                var reader = startVirtual("reader", () -> readByteNow(sc));
                awaitParked(reader.thread(), fd, "blocking read after the Selector to park");
                write(pair.client(), "u");
                assertEquals('u', reader.join("blocking read after the Selector to complete"));
                if (et)
                    assertEquals(afterFullRead(reports), state(fd), "after the last one-byte read");
            }
            if (et) {
                Counters delta = counters(fd).minus(before);
                assertEquals(0, delta.registrations(), "fd registered again: " + delta);
                assertEquals(3, delta.retries(), delta.toString());
            }
        }
    }

    /**
     * A channel closed while registered with a Selector: the close is deferred until
     * the key is flushed; the registration must be gone once the fd is closed.
     */
    @Test
    void testCloseWhileRegisteredWithSelector() throws Exception {
        var pair = ChannelPair.open(listener());
        try (pair; Selector sel = Selector.open()) {
            SocketChannel sc = pair.server();
            int fd = fdVal(sc);
            long ino = inode(fd);
            blockingReadCycle(pair);
            sc.configureBlocking(false);
            sc.register(sel, SelectionKey.OP_READ);
            write(pair.client(), "z");
            assertEquals(1, sel.selectNow());
            sc.close();
            sel.selectNow();  // flushes the cancelled key, closes the fd
            assertNotEquals(ino, inode(fd), "fd not closed");
            if (edgeTriggered()) {
                assertNull(rawState(fd), "map entry survived the deferred close");
                assertNull(kernelRegistrationProblem(fd));
            }
        }
    }
}
