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
 * @summary A short read of a stream socket, or a full read of a TCP socket
 *     that the kernel reports left nothing queued (TCP_INQ), ends its read
 *     readiness (the DRAINED state): the next read may park before it reads, and
 *     does once the channel's read attempts there kept returning EAGAIN; end of
 *     stream, a reset, urgent data, a timeout, close and interrupt still end it.
 *     Feature off: behaviour only.
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open
 * @run junit/othervm/timeout=300 EdgeTriggeredShortReads
 */

/*
 * @test id=et-mode1
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open
 * @run junit/othervm/timeout=300 -Djdk.pollerMode=1 EdgeTriggeredShortReads
 */

/*
 * @test id=et-mode2
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open
 * @run junit/othervm/timeout=300 -Djdk.pollerMode=2 EdgeTriggeredShortReads
 */

/*
 * @test id=mode4
 * @requires os.family == "linux" & vm.continuations
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open
 * @run junit/othervm/timeout=300 -Djdk.pollerMode=4 EdgeTriggeredShortReads
 */

/*
 * @test id=mode4-p1
 * @summary Carrier polling with one carrier: the carrier polls only between tasks
 *     and when idle
 * @requires os.family == "linux" & vm.continuations
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open
 * @run junit/othervm/timeout=300 -Djdk.pollerMode=4
 *     -Djdk.virtualThreadScheduler.parallelism=1 EdgeTriggeredShortReads
 */

import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import static org.junit.jupiter.api.Assertions.*;

import static etjdk.poller.PollerTestSupport.*;

class EdgeTriggeredShortReads {
    private static final int BUFFER = 1024;
    private static ServerSocketChannel listener;
    private static ServerSocket socketListener;

    /** The reader's side of a connection: a SocketChannel or a java.net.Socket. */
    enum Api { CHANNEL, SOCKET }

    /**
     * How a reader sizes its reads: SHORT asks for BUFFER bytes, more than the test
     * writes; FULL asks for exactly what the test writes, and the reader then learns
     * from the kernel (TCP_INQ) whether the read left anything queued.
     */
    enum Reads { SHORT, FULL }

    private static final AtomicInteger CHANNEL_FULL_READS = new AtomicInteger();

    /** The readers of the tests of DRAINED's exits: SocketChannel and Socket, short and full reads. */
    static Stream<Arguments> readers() {
        return Stream.of(Arguments.of(Api.CHANNEL, Reads.SHORT),
                         Arguments.of(Api.CHANNEL, Reads.FULL),
                         Arguments.of(Api.SOCKET, Reads.SHORT),
                         Arguments.of(Api.SOCKET, Reads.FULL));
    }

    /** A connection whose server side a virtual thread reads. */
    private record Connection(Api api, Reads reads, SocketChannel channelPeer,
                              SocketChannel channelReader, Socket socketPeer,
                              Socket socketReader) implements AutoCloseable {
        static Connection open(Api api) throws IOException {
            return open(api, Reads.SHORT);
        }

        static Connection open(Api api, Reads reads) throws IOException {
            if (api == Api.CHANNEL) {
                var pair = ChannelPair.open(listener);
                return new Connection(api, reads, pair.client(), pair.server(), null, null);
            }
            var pair = SocketPair.open(socketListener);
            pair.client().setTcpNoDelay(true);
            return new Connection(api, reads, null, null, pair.client(), pair.server());
        }

        /**
         * Opens a connection whose reader has learnt to park before reading (see
         * Poller.ShortReads.DrainedReads): learningReads() one-byte reads of one-byte
         * writes that come after the reader parked. If edge-triggered, the state is
         * then DRAINED and the next DRAINED_SAMPLE - 1 reads that find DRAINED park
         * first, so that a wrongly entered DRAINED hangs a test instead of costing
         * a read attempt.
         */
        static Connection openLearnt(Api api) throws Exception {
            return openLearnt(api, Reads.SHORT);
        }

        static Connection openLearnt(Api api, Reads reads) throws Exception {
            Connection c = open(api, reads);
            int learningReads = c.learningReads();
            var done = new AtomicInteger();
            var learner = startVirtual("learner", () -> {
                byte[] buf = new byte[2 * BUFFER];
                for (int i = 0; i < learningReads; i++) {
                    assertEquals(1, c.read(buf, 0, 1), "learning read " + (i + 1));
                    done.incrementAndGet();
                }
                return null;
            });
            for (int i = 0; i < learningReads; i++) {
                awaitRead(learner, done, i, c.fd(), "learning read " + (i + 1));
                c.write("x");
            }
            learner.join("the reader to learn to park before reading");
            return c;
        }

        /**
         * The reads, each of a one-byte write that comes after the reader parked,
         * before which no read finds DRAINED: one (it registers the socket), and for
         * full reads a second, since the first turns the queue reports on.
         */
        int emptyingReads() {
            return (reads == Reads.FULL) ? 2 : 1;
        }

        /**
         * The reads, as in emptyingReads, after which the reader parks before reading:
         * DRAINED_LEARN more, each of which finds DRAINED and returns EAGAIN.
         */
        int learningReads() {
            return emptyingReads() + DRAINED_LEARN;
        }

        int fd() {
            return (api == Api.CHANNEL) ? fdVal(channelReader) : fdVal(socketReader);
        }

        /** One read of up to BUFFER bytes into buf at off (off < BUFFER); -1 at end of stream. */
        int read(byte[] buf, int off) throws IOException {
            if (api == Api.CHANNEL)
                return channelReader.read(ByteBuffer.wrap(buf, off, BUFFER));
            InputStream in = socketReader.getInputStream();
            return in.read(buf, off, BUFFER);
        }

        /**
         * One read of {@code len} bytes (FULL) or of up to BUFFER bytes (SHORT) into
         * buf at off; -1 at end of stream. A SocketChannel's full reads go alternately
         * into a heap buffer (which IOUtil reads through a temporary direct one) and
         * into a direct buffer.
         */
        int read(byte[] buf, int off, int len) throws IOException {
            if (reads == Reads.SHORT)
                return read(buf, off);
            if (api == Api.SOCKET)
                return socketReader.getInputStream().read(buf, off, len);
            if ((CHANNEL_FULL_READS.getAndIncrement() & 1) == 0)
                return channelReader.read(ByteBuffer.wrap(buf, off, len));
            ByteBuffer direct = ByteBuffer.allocateDirect(len);
            int n = channelReader.read(direct);
            if (n > 0)
                direct.flip().get(buf, off, n);
            return n;
        }

        /**
         * Checks, after a full read by a virtual thread, that the reader's reads
         * report the receive queue if the reads are edge-triggered, and were never
         * asked to otherwise; aborts the test where TCP_INQ does not work.
         */
        void checkQueueReports() {
            if (reads == Reads.FULL) {
                QueueReports reports = queueReports();
                if (!edgeTriggered()) {
                    assertEquals(QueueReports.NOT_ASKED, reports,
                            "receive queue reports without edge-triggered reads");
                    return;
                }
                Assumptions.assumeTrue(reports != QueueReports.UNAVAILABLE,
                        "TCP_INQ does not work here");
                assertEquals(QueueReports.ON, reports, "receive queue reports after a full read");
            }
        }

        /** The bytes queued for the reader. */
        int available() {
            try {
                return (api == Api.CHANNEL)
                        ? channelReader.socket().getInputStream().available()
                        : socketReader.getInputStream().available();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        /** Whether the reader's reads report the receive queue. */
        QueueReports queueReports() {
            return (api == Api.CHANNEL)
                    ? receiveQueueReports(channelReader)
                    : receiveQueueReports(socketReader);
        }

        void write(String s) throws IOException {
            byte[] b = s.getBytes(StandardCharsets.US_ASCII);
            if (api == Api.CHANNEL) {
                channelPeer.write(ByteBuffer.wrap(b));
            } else {
                socketPeer.getOutputStream().write(b);
            }
        }

        void shutdownPeerOutput() throws IOException {
            if (api == Api.CHANNEL) channelPeer.shutdownOutput(); else socketPeer.shutdownOutput();
        }

        void resetPeer() throws IOException {
            if (api == Api.CHANNEL) {
                channelPeer.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
                channelPeer.close();
            } else {
                socketPeer.setSoLinger(true, 0);
                socketPeer.close();
            }
        }

        void closeReader() throws IOException {
            if (api == Api.CHANNEL) channelReader.close(); else socketReader.close();
        }

        @Override
        public void close() throws IOException {
            try (AutoCloseable a = (channelPeer != null) ? channelPeer : socketPeer;
                 AutoCloseable b = (channelReader != null) ? channelReader : socketReader) {
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
    }

    @BeforeAll
    static void setup() throws Exception {
        listener = openListener();
        socketListener = new ServerSocket(0, 1024, java.net.InetAddress.getLoopbackAddress());
        // start the pollers and load the classes used
        for (Api api : Api.values()) {
            try (var c = Connection.open(api)) {
                var reader = startVirtual("warm-up reader", () -> c.read(new byte[2 * BUFFER], 0));
                awaitParked(reader.thread(), c.fd(), "warm-up reader to park");
                c.write("x");
                reader.join("warm-up read");
            }
        }
    }

    @AfterAll
    static void teardown() throws Exception {
        try (var a = listener; var b = socketListener) { }
    }

    /**
     * Waits until the reader has completed {@code reads} reads (its counter) and is
     * parked reading again.
     */
    private static void awaitRead(VTask<?> reader, AtomicInteger done, int reads, int fd,
                                  String when) {
        await(() -> "the reader to complete " + reads + " reads, " + when + " (done "
                + done.get() + ", reader " + (reader.isDone() ? "ended" : "running") + ")",
                () -> done.get() >= reads || reader.isDone());
        if (reader.isDone())
            return;  // its join reports why
        awaitParked(reader.thread(), fd, "the reader to park, " + when);
    }

    /**
     * Starts a reader that reads a first byte, then {@code expected} bytes, then to
     * the end of stream, and waits until it has read a first byte "a" and parks again.
     * @return the reader, whose result is the number of bytes it read
     */
    private static VTask<Integer> startReadingToTheEnd(Connection c, int expected, String when)
            throws Exception {
        var firstRead = new AtomicInteger();
        var reader = startVirtual("reader", () -> {
            byte[] buf = new byte[2 * BUFFER];
            int total = readUpTo(c, buf, 1);
            firstRead.incrementAndGet();
            total += readUpTo(c, buf, expected);
            int n;
            while ((n = c.read(buf, 0, 1)) > 0) {
                total += n;
            }
            return total;
        });
        awaitParked(reader.thread(), c.fd(), "the reader to park, " + when);
        c.write("a");
        awaitRead(reader, firstRead, 1, c.fd(), when);
        c.checkQueueReports();
        return reader;
    }

    /**
     * Starts a reader that learns to park before reading (see openLearnt) and then
     * reads again, and waits until that read parks (before reading, if
     * edge-triggered).
     * @return the reader, whose result is that of its last read
     */
    private static VTask<Integer> startParkedBeforeReading(Connection c) throws Exception {
        long before = drainedParks();
        int learningReads = c.learningReads();
        var done = new AtomicInteger();
        var reader = startVirtual("reader", () -> {
            byte[] buf = new byte[2 * BUFFER];
            for (int i = 0; i < learningReads; i++) {
                assertEquals(1, c.read(buf, 0, 1));
                done.incrementAndGet();
            }
            return c.read(buf, 0, 1);
        });
        for (int i = 0; i < learningReads; i++) {
            awaitRead(reader, done, i, c.fd(), "read " + (i + 1));
            c.write("x");
        }
        awaitRead(reader, done, learningReads, c.fd(), "the read after " + learningReads
                + " learning reads");
        c.checkQueueReports();
        if (edgeTriggered())
            assertEquals(before + 1, drainedParks(), "parks before reading");
        return reader;
    }

    /** Parks before reading and read attempts in DRAINED, summed over the read pollers. */
    private record DrainedCounts(long parks, long attempts) { }

    /**
     * {@code rounds} one-byte writes, each after the reader parked, read with
     * {@code c.read(buf, 0, 1)}.
     * @return the parks before reading and attempts in DRAINED meanwhile
     */
    private static DrainedCounts oneByteRounds(Connection c, int rounds) throws Exception {
        long before = drainedParks();
        long attemptsBefore = drainedAttempts();
        var done = new AtomicInteger();
        var reader = startVirtual("reader", () -> {
            byte[] buf = new byte[2 * BUFFER];
            for (int i = 0; i < rounds; i++) {
                int n = c.read(buf, 0, 1);
                if (n != 1)
                    throw new AssertionError("round " + i + ": read returned " + n);
                done.incrementAndGet();
            }
            return null;
        });
        for (int i = 0; i < rounds; i++) {
            awaitRead(reader, done, i, c.fd(), "round " + i);
            c.write("x");
        }
        reader.join("the reader to read " + rounds + " one-byte writes");
        return new DrainedCounts(drainedParks() - before, drainedAttempts() - attemptsBefore);
    }

    /**
     * Reads into buf until the reader has {@code expected} bytes or end of stream.
     * @return the number of bytes read
     */
    private static int readUpTo(Connection c, byte[] buf, int expected) throws IOException {
        int total = 0;
        while (total < expected) {
            int n = c.read(buf, total, expected - total);
            if (n < 0)
                break;
            total += n;
        }
        return total;
    }

    /**
     * Reads after short reads park before they read once the channel's attempts
     * returned EAGAIN DRAINED_LEARN times in a row, but for one attempt in every
     * DRAINED_SAMPLE reads: {@code rounds} one-byte writes, each after the reader parked,
     * read with BUFFER-byte reads; all but the first find DRAINED.
     */
    @ParameterizedTest
    @EnumSource(Api.class)
    void testParksBeforeReading(Api api) throws Exception {
        final int rounds = 100;
        try (var c = Connection.open(api)) {
            DrainedCounts counts = oneByteRounds(c, rounds);
            long parks = counts.parks(), attempts = counts.attempts();
            log("%s: %d parks before reading, %d attempts in DRAINED in %d rounds", api, parks,
                    attempts, rounds);
            if (edgeTriggered()) {
                // the model of the rule, pinned for its constants: a change of LEARN
                // or SAMPLE is a change of this test
                assertEquals(90, expectedDrainedParks(99), "parks before reading in 99"
                        + " reads that find DRAINED, LEARN " + DRAINED_LEARN + ", SAMPLE "
                        + DRAINED_SAMPLE);
                // the first round registers the fd and parks after EAGAIN
                assertEquals(expectedDrainedParks(rounds - 1), parks,
                        "parks before reading (from DRAINED)");
                assertEquals(rounds - 1 - parks, attempts, "read attempts in DRAINED");
            } else {
                assertEquals(0, parks);
            }
        }
    }

    /**
     * Data and end of stream arrive together while the reader waits: the read that
     * returns the data is short because it stops at the end of stream, and the edge
     * that reported both was consumed when it woke the reader. The next read must not
     * park (iterations: et.iterations, 300 by default).
     */
    @ParameterizedTest
    @MethodSource("readers")
    void testEndOfStreamWithData(Api api, Reads reads) throws Exception {
        int iterations = iterations(300);
        int conditions = 0;
        for (int i = 0; i < iterations; i++) {
            try (var c = Connection.openLearnt(api, reads)) {
                var reader = startReadingToTheEnd(c, 10, "iteration " + i);
                c.write("0123456789");
                c.shutdownPeerOutput();
                int total = reader.join("the reader to see end of stream after 11 bytes"
                        + " (iteration " + i + " of " + iterations + ")");
                assertEquals(11, total, "bytes read, iteration " + i);
                if (state(c.fd()) == State.POLLED_CONDITION || state(c.fd()) == State.CONDITION)
                    conditions++;
            }
        }
        log("%s, %s reads: %d of %d iterations ended with a condition state", api, reads,
                conditions, iterations);
        if (edgeTriggered())
            assertTrue(conditions > 0, "no iteration saw the end of stream reported in an edge");
    }

    /**
     * A read that fills its buffer does not end readiness: 3 * BUFFER bytes written at
     * once are read with BUFFER-byte reads and no further edge. The first read turns
     * the queue reports on, so the second reports bytes left.
     */
    @ParameterizedTest
    @EnumSource(Api.class)
    void testFullReadsDoNotDrain(Api api) throws Exception {
        try (var c = Connection.openLearnt(api)) {
            var reader = startVirtual("reader", () -> {
                byte[] buf = new byte[2 * BUFFER];
                int total = 0;
                while (total < 3 * BUFFER) {
                    int n = c.read(buf, 0);
                    if (n < 0)
                        throw new AssertionError("end of stream after " + total + " bytes");
                    total += n;
                }
                return total;
            });
            awaitParked(reader.thread(), c.fd(), "the reader to park");
            c.write("x".repeat(3 * BUFFER));
            assertEquals(3 * BUFFER, reader.join("the reader to read " + 3 * BUFFER
                    + " bytes written at once, with " + BUFFER + "-byte reads"));
        }
    }

    /**
     * A read that fills its buffer and leaves nothing queued ends read readiness as a
     * short read does (TCP_INQ): {@code rounds} one-byte writes, each after the reader
     * parked, read with one-byte reads. The first read asks for the reports, the
     * second parks after EAGAIN, every later one finds DRAINED and parks before
     * reading as in testParksBeforeReading.
     */
    @ParameterizedTest
    @EnumSource(Api.class)
    void testFullReadsThatEmptyTheQueue(Api api) throws Exception {
        final int rounds = 100;
        try (var c = Connection.open(api, Reads.FULL)) {
            DrainedCounts counts = oneByteRounds(c, rounds);
            long parks = counts.parks(), attempts = counts.attempts();
            log("%d parks before reading, %d attempts in DRAINED in %d rounds of full reads",
                    parks, attempts, rounds);
            c.checkQueueReports();
            if (edgeTriggered()) {
                int drainedReads = rounds - c.emptyingReads();
                assertEquals(expectedDrainedParks(drainedReads), parks, "parks before reading"
                        + " after full reads that left nothing queued (from DRAINED)");
                assertEquals(drainedReads - parks, attempts, "read attempts in DRAINED");
            } else {
                assertEquals(0, parks);
            }
        }
    }

    /**
     * Reads that never wait do not ask for the queue reports, which would only cost
     * them recvmsg in place of read: {@code reads} one-byte full reads of bytes written
     * before them, by a virtual thread (which never parks, so the socket is not
     * registered with a read poller), by a platform thread, and by a platform thread
     * again once a virtual thread parked in a short read (the socket is registered).
     */
    @ParameterizedTest
    @EnumSource(Api.class)
    void testFullReadsThatNeverWaitDoNotAsk(Api api) throws Exception {
        final int reads = 10;
        try (var c = Connection.open(api, Reads.FULL)) {
            c.write("x".repeat(2 * reads));
            await(() -> "the " + 2 * reads + " bytes to arrive (available " + c.available() + ")",
                    () -> c.available() == 2 * reads);
            Callable<Void> readAll = () -> {
                byte[] buf = new byte[2 * BUFFER];
                for (int i = 0; i < reads; i++)
                    assertEquals(1, c.read(buf, 0, 1), "full read " + (i + 1));
                return null;
            };
            startVirtual("virtual reader", readAll).join("the virtual thread's reads");
            assertEquals(QueueReports.NOT_ASKED, c.queueReports(),
                    "receive queue reports after full reads by a virtual thread that never parked");
            startPlatform("platform reader", readAll).join("the platform thread's reads");
            assertEquals(QueueReports.NOT_ASKED, c.queueReports(),
                    "receive queue reports after full reads by a platform thread");

            var shortRead = startVirtual("short reader", () -> c.read(new byte[BUFFER], 0));
            awaitParked(shortRead.thread(), c.fd(), "the short reader to park");
            c.write("y");
            assertEquals(1, shortRead.join("the short reader to read the byte written after it parked"));
            c.write("x".repeat(reads));
            await(() -> "the " + reads + " bytes to arrive (available " + c.available() + ")",
                    () -> c.available() == reads);
            startPlatform("platform reader", readAll).join("the platform thread's reads, socket registered");
            assertEquals(QueueReports.NOT_ASKED, c.queueReports(),
                    "receive queue reports after full reads by a platform thread of a registered socket");
        }
    }

    /**
     * The edge that reports data and end of stream arrives after a read attempt
     * returned EAGAIN and before the reader parks: the reader consumes it
     * (POLLED_CONDITION), then its read returns the data short, stopped at the end
     * of stream. The next read must not park. White box: the reader calls
     * Poller.poll where a channel does after EAGAIN. Edge-triggered only.
     */
    @ParameterizedTest
    @EnumSource(Api.class)
    void testEndOfStreamBeforePark(Api api) throws Exception {
        if (!edgeTriggered())
            return;
        try (var c = Connection.openLearnt(api)) {
            var firstRead = new AtomicInteger();
            var go = new CountDownLatch(1);
            var reader = startVirtual("reader", () -> {
                byte[] buf = new byte[2 * BUFFER];
                int total = readUpTo(c, buf, 1);
                firstRead.incrementAndGet();
                assertTrue(go.await(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS),
                        "the test to see the end of stream polled");
                pollIn(c.fd(), 0);  // does not park: consumes the edge
                total += readUpTo(c, buf, BUFFER - 1);
                return total;
            });
            awaitParked(reader.thread(), c.fd(), "the reader to park");
            c.write("a");
            await("the reader to read the first byte", () -> firstRead.get() == 1 || reader.isDone());
            c.write("0123456789");
            c.shutdownPeerOutput();
            awaitState(c.fd(), State.POLLED_CONDITION, "the end of stream to be polled while nobody reads");
            go.countDown();
            assertEquals(11, reader.join("the reader to see end of stream after 11 bytes"));
        }
    }

    /**
     * Data, then a reset: the reader gets the data (or the reset at once), then the
     * reset; it never parks with the reset pending (iterations: et.iterations, 300).
     */
    @ParameterizedTest
    @MethodSource("readers")
    void testResetWithData(Api api, Reads reads) throws Exception {
        int iterations = iterations(300);
        for (int i = 0; i < iterations; i++) {
            try (var c = Connection.openLearnt(api, reads)) {
                var reader = startReadingToTheEnd(c, 10, "iteration " + i);
                c.write("0123456789");
                c.resetPeer();
                Object outcome = reader.outcome("the reader to see the reset after the data"
                        + " (iteration " + i + " of " + iterations + ")");
                if (outcome instanceof IOException e) {
                    // ECONNRESET is a ConnectionResetException on the recvmsg path too
                    assertEquals("Connection reset", e.getMessage(), "iteration " + i);
                } else if (!(outcome instanceof Integer)) {
                    fail("iteration " + i + ": unexpected outcome " + outcome);
                }
            }
        }
    }

    /**
     * Urgent data behind normal data: a read stops short at the urgent mark with
     * more to read behind it. The reader must read it all (SO_OOBINLINE off: the
     * urgent byte is dropped). Iterations: et.iterations, 300.
     */
    @ParameterizedTest
    @MethodSource("readers")
    void testUrgentData(Api api, Reads reads) throws Exception {
        readAroundUrgentData(api, reads, false);
    }

    /** As testUrgentData, with SO_OOBINLINE on: the urgent byte is read in line. */
    @ParameterizedTest
    @MethodSource("readers")
    void testUrgentDataInline(Api api, Reads reads) throws Exception {
        readAroundUrgentData(api, reads, true);
    }

    private static void readAroundUrgentData(Api api, Reads reads, boolean inline)
            throws Exception {
        String expected = inline ? "abcUdef" : "abcdef";
        int iterations = iterations(300);
        for (int i = 0; i < iterations; i++) {
            try (var c = Connection.openLearnt(api, reads)) {
                if (api == Api.CHANNEL) {
                    c.channelReader().socket().setOOBInline(inline);
                } else {
                    c.socketReader().setOOBInline(inline);
                }
                var firstRead = new AtomicInteger();
                var reader = startVirtual("reader", () -> {
                    byte[] buf = new byte[2 * BUFFER];
                    int total = readUpTo(c, buf, 1);
                    firstRead.incrementAndGet();
                    total += readUpTo(c, buf, expected.length());
                    return new String(buf, 0, expected.length(), StandardCharsets.US_ASCII)
                            + "/" + total;
                });
                awaitParked(reader.thread(), c.fd(), "the reader to park, iteration " + i);
                c.write("a");
                awaitRead(reader, firstRead, 1, c.fd(), "iteration " + i);
                c.checkQueueReports();
                c.write("abc");
                Socket peer = (api == Api.CHANNEL) ? c.channelPeer().socket() : c.socketPeer();
                peer.sendUrgentData('U');
                c.write("def");
                String got = reader.join("the reader to read the " + expected.length()
                        + " bytes around urgent data (iteration " + i + " of " + iterations + ")");
                assertEquals(expected + "/" + (expected.length() + 1), got, "iteration " + i);
            }
        }
    }

    /**
     * A platform thread reads between the reads of a virtual thread, once after a
     * read of the virtual thread that ended readiness (DRAINED) and once after its
     * own: neither reader waits for data that is already there, nor misses data that
     * comes later ({@code rounds} rounds, two bytes each). With full reads the
     * platform thread reads with the queue reports on.
     */
    @ParameterizedTest
    @MethodSource("readers")
    void testPlatformReadsBetweenVirtualReads(Api api, Reads reads) throws Exception {
        final int rounds = 20;
        try (var c = Connection.openLearnt(api, reads)) {
            c.checkQueueReports();
            for (int i = 0; i < rounds; i++) {
                var virtualRead = startVirtual("virtual reader", () -> readByte(c));
                awaitParked(virtualRead.thread(), c.fd(), "the virtual reader to park, round " + i);
                c.write("v");
                assertEquals('v', virtualRead.join("the virtual thread's read, round " + i));
                // a platform thread reading a socket that a virtual thread has read
                // waits in Net.poll, not in the poller
                var platformRead = startPlatform("platform reader", () -> readByte(c));
                awaitInNetPoll(platformRead.thread(), "the platform reader to wait, round " + i);
                c.write("p");
                assertEquals('p', platformRead.join("the platform thread's read, round " + i));
            }
        }
    }

    /** One read (see Connection.read(buf, off, 1)) that must return exactly one byte. */
    private static char readByte(Connection c) throws IOException {
        byte[] buf = new byte[2 * BUFFER];
        int n = c.read(buf, 0, 1);
        if (n != 1)
            throw new AssertionError("read returned " + n + " where one byte was written");
        return (char) buf[0];
    }

    /**
     * A channel read short in blocking mode (DRAINED) is switched to non-blocking mode
     * and a Selector, then back: a non-blocking read never parks (it returns 0 at
     * once), data that arrives while it is registered with the Selector is selected
     * and read, and a blocking read afterwards gets data already queued at the switch,
     * then parks and gets data that comes later.
     */
    @Test
    void testSelectorBetweenBlockingReads() throws Exception {
        try (var c = Connection.openLearnt(Api.CHANNEL); var selector = java.nio.channels.Selector.open()) {
            SocketChannel sc = c.channelReader();
            var task = startVirtual("reader", () -> {
                assertEquals(1, c.read(new byte[2 * BUFFER], 0));
                sc.configureBlocking(false);
                assertEquals(0, sc.read(ByteBuffer.allocate(BUFFER)),
                        "a non-blocking read after a short blocking read");
                return null;
            });
            awaitParked(task.thread(), c.fd(), "the reader to park");
            c.write("x");
            task.join("a non-blocking read after a short blocking read to return 0 at once");

            var key = sc.register(selector, java.nio.channels.SelectionKey.OP_READ);
            c.write("ab");
            task = startVirtual("selector", () -> {
                assertEquals(1, selector.select());
                ByteBuffer bb = ByteBuffer.allocate(BUFFER);
                assertEquals(2, sc.read(bb), "non-blocking read of the selected channel");
                assertEquals(0, sc.read(bb.clear()), "a second non-blocking read");
                return null;
            });
            task.join("the Selector to select the channel and the reads to return");
            c.write("cd");  // queued while the channel is still non-blocking
            key.cancel();
            selector.selectNow();
            sc.configureBlocking(true);

            var reader = startVirtual("blocking reader", () -> {
                byte[] buf = new byte[2 * BUFFER];
                int n = c.read(buf, 0);
                return new String(buf, 0, n, StandardCharsets.US_ASCII);
            });
            assertEquals("cd", reader.join("a blocking read to return data queued before it"));
            reader = startVirtual("blocking reader", () -> {
                byte[] buf = new byte[2 * BUFFER];
                int n = c.read(buf, 0);
                return new String(buf, 0, n, StandardCharsets.US_ASCII);
            });
            awaitParked(reader.thread(), c.fd(), "the blocking reader to park");
            c.write("e");
            assertEquals("e", reader.join("a blocking read after the Selector to get new data"));
        }
    }

    /** A read of zero bytes returns at once, also after a short read. */
    @Test
    void testZeroLengthReadAfterShortRead() throws Exception {
        try (var c = Connection.openLearnt(Api.CHANNEL)) {
            var reader = startVirtual("reader", () -> {
                assertEquals(1, c.read(new byte[2 * BUFFER], 0));
                return c.channelReader().read(ByteBuffer.allocate(0));
            });
            awaitParked(reader.thread(), c.fd(), "the reader to park");
            c.write("x");
            assertEquals(0, reader.join("a zero-byte read after a short read to return"));
        }
    }

    /**
     * UNIX stream sockets: a read stops short at passed file descriptors, which no
     * event reports, so their reads never park before reading.
     */
    @Test
    void testUnixDomainReadsDoNotDrain() throws Exception {
        var path = java.nio.file.Files.createTempDirectory("short-reads").resolve("sock");
        var address = java.net.UnixDomainSocketAddress.of(path);
        try (var ul = ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
            ul.bind(address);
            try (var client = SocketChannel.open(address); var server = ul.accept()) {
                long before = drainedParks();
                var done = new AtomicInteger();
                var reader = startVirtual("reader", () -> {
                    for (int i = 0; i < 10; i++) {
                        if (server.read(ByteBuffer.allocate(BUFFER)) != 1)
                            throw new AssertionError("round " + i);
                        done.incrementAndGet();
                    }
                    return null;
                });
                for (int i = 0; i < 10; i++) {
                    int round = i;
                    await(() -> "the reader to complete " + round + " reads", () -> done.get() >= round || reader.isDone());
                    awaitParked(reader.thread(), fdVal(server), "the reader to park, round " + i);
                    client.write(ByteBuffer.wrap(new byte[1]));
                }
                reader.join("the reader of a UNIX socket to read 10 bytes");
                assertEquals(before, drainedParks(), "parks before reading on a UNIX socket");
            }
        } finally {
            java.nio.file.Files.deleteIfExists(path);
            java.nio.file.Files.deleteIfExists(path.getParent());
        }
    }

    /** Shutting the input down wakes a reader parked before reading: end of stream. */
    @ParameterizedTest
    @MethodSource("readers")
    void testShutdownInputWhileParkedBeforeReading(Api api, Reads reads) throws Exception {
        try (var c = Connection.open(api, reads)) {
            var reader = startParkedBeforeReading(c);
            if (api == Api.CHANNEL) c.channelReader().shutdownInput(); else c.socketReader().shutdownInput();
            assertEquals(-1, reader.join("the reader to see end of stream when its input is shut down"));
        }
    }

    /**
     * A timed read that parks before reading times out, and the next read parks after
     * EAGAIN and gets data.
     */
    @ParameterizedTest
    @EnumSource(Reads.class)
    void testTimeoutWhileParkedBeforeReading(Reads reads) throws Exception {
        try (var c = Connection.open(Api.SOCKET, reads)) {
            long before = drainedParks();
            int learningReads = c.learningReads();
            var done = new AtomicInteger();
            var reader = startVirtual("reader", () -> {
                byte[] buf = new byte[2 * BUFFER];
                for (int i = 0; i < learningReads; i++) {
                    assertEquals(1, c.read(buf, 0, 1));
                    done.incrementAndGet();
                }
                c.socketReader().setSoTimeout(100);
                assertThrows(SocketTimeoutException.class, () -> c.read(buf, 0, 1));
                c.socketReader().setSoTimeout(0);
                done.incrementAndGet();
                return c.read(buf, 0, 2);
            });
            for (int i = 0; i < learningReads; i++) {
                awaitRead(reader, done, i, c.fd(), "read " + (i + 1));
                c.write("x");
            }
            // the timed read parks (from DRAINED) and times out; the untimed read then
            // parks after EAGAIN
            awaitRead(reader, done, learningReads + 1, c.fd(), "the read after the timeout");
            c.checkQueueReports();
            if (edgeTriggered())
                assertEquals(before + 1, drainedParks(), "parks before reading (the timed read)");
            c.write("yz");
            assertEquals(2, reader.join("the read after the timeout"));
        }
    }

    /**
     * A peer that answers before the reader reads again: the reader writes to its own
     * peer, then reads ({@code rounds} rounds, one byte each). Its reads find
     * the answer there and never park before reading, although the state is DRAINED
     * whenever no poll took the answer's edge in between.
     */
    @ParameterizedTest
    @MethodSource("readers")
    void testFastPeerReadsFirst(Api api, Reads reads) throws Exception {
        final int rounds = 200;
        try (var c = Connection.open(api, reads)) {
            long before = drainedParks();
            long attemptsBefore = drainedAttempts();
            var reader = startVirtual("reader", () -> {
                byte[] buf = new byte[2 * BUFFER];
                assertEquals(1, c.read(buf, 0, 1), "the first read");
                for (int i = 0; i < rounds; i++) {
                    c.write("x");
                    if (c.read(buf, 0, 1) != 1)
                        throw new AssertionError("round " + i + ": not one byte");
                }
                return null;
            });
            awaitParked(reader.thread(), c.fd(), "the reader to park in its first read");
            c.write("a");
            reader.join("the reader to answer itself " + rounds + " times");
            long parks = drainedParks() - before;
            long attempts = drainedAttempts() - attemptsBefore;
            log("%s, %s reads: %d parks before reading, %d attempts in DRAINED in %d rounds",
                    api, reads, parks, attempts, rounds);
            c.checkQueueReports();
            // fewer than one sample's worth: a late loopback delivery may make
            // attempts return EAGAIN, but not 4 in a row every time
            assertTrue(parks < DRAINED_SAMPLE, "parks before reading, with the answer there"
                    + " each time: " + parks + ", expected fewer than " + DRAINED_SAMPLE);
            if (POLLER_MODE.equals("4") && "1".equals(
                    System.getProperty("jdk.virtualThreadScheduler.parallelism"))) {
                // one carrier, busy with the reader: nobody polls the answer's edge
                assertTrue(attempts > 0, "no read found DRAINED with the answer there");
            }
        }
    }

    /**
     * A peer that answers late, then early: after the reader has learnt to park before
     * reading, one sample brings it back to attempting first (phase 1:
     * learningReads() + DRAINED_SAMPLE rounds in which the test writes after the
     * reader parked; phase 2: 4 * DRAINED_SAMPLE rounds in which the reader writes to
     * its own peer before it reads).
     */
    @ParameterizedTest
    @MethodSource("readers")
    void testPeerThatBecomesFast(Api api, Reads reads) throws Exception {
        final int fastRounds = 4 * DRAINED_SAMPLE;
        try (var c = Connection.open(api, reads)) {
            final int slowRounds = c.learningReads() + DRAINED_SAMPLE;
            long before = drainedParks();
            var done = new AtomicInteger();
            var fast = new CountDownLatch(1);
            var reader = startVirtual("reader", () -> {
                byte[] buf = new byte[2 * BUFFER];
                for (int i = 0; i < slowRounds; i++) {
                    assertEquals(1, c.read(buf, 0, 1), "slow round " + i);
                    done.incrementAndGet();
                }
                assertTrue(fast.await(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS),
                        "the test to end the slow rounds");
                for (int i = 0; i < fastRounds; i++) {
                    c.write("x");
                    assertEquals(1, c.read(buf, 0, 1), "fast round " + i);
                }
                return null;
            });
            for (int i = 0; i < slowRounds; i++) {
                awaitRead(reader, done, i, c.fd(), "slow round " + i);
                c.write("x");
            }
            await(() -> "the reader to end the slow rounds (done " + done.get() + ")",
                    () -> done.get() == slowRounds || reader.isDone());
            long slowParks = drainedParks() - before;
            long parksBeforeFast = drainedParks();
            fast.countDown();
            reader.join("the reader to answer itself " + fastRounds + " times");
            long fastParks = drainedParks() - parksBeforeFast;
            log("%s, %s reads: %d parks before reading in %d slow rounds, %d in %d fast rounds",
                    api, reads, slowParks, slowRounds, fastParks, fastRounds);
            c.checkQueueReports();
            if (edgeTriggered()) {
                assertEquals(expectedDrainedParks(slowRounds - c.emptyingReads()), slowParks,
                        "parks before reading in the slow rounds");
                assertTrue(fastParks < 2 * DRAINED_SAMPLE, "parks before reading in the fast"
                        + " rounds: " + fastParks + ", expected fewer than " + 2 * DRAINED_SAMPLE);
            } else {
                assertEquals(0, slowParks + fastParks);
            }
        }
    }

    /** Closing the socket wakes a reader parked before reading. */
    @ParameterizedTest
    @MethodSource("readers")
    void testCloseWhileParkedBeforeReading(Api api, Reads reads) throws Exception {
        try (var c = Connection.open(api, reads)) {
            var reader = startParkedBeforeReading(c);
            c.closeReader();
            Object outcome = reader.outcome("the reader to wake when its socket is closed");
            assertTrue(outcome instanceof IOException, "outcome: " + outcome);
        }
    }

    /** Interrupting a reader parked before reading wakes it. */
    @ParameterizedTest
    @MethodSource("readers")
    void testInterruptWhileParkedBeforeReading(Api api, Reads reads) throws Exception {
        try (var c = Connection.open(api, reads)) {
            var reader = startParkedBeforeReading(c);
            reader.thread().interrupt();
            Object outcome = reader.outcome("the reader to wake when interrupted");
            if (api == Api.CHANNEL) {
                assertTrue(outcome instanceof ClosedByInterruptException, "outcome: " + outcome);
            } else {
                assertTrue(outcome instanceof SocketException, "outcome: " + outcome);
            }
        }
    }
}
