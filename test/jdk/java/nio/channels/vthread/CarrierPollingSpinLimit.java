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
 * @test id=mode4-p1
 * @summary Carrier polling (jdk.pollerMode=4): an idle carrier spins before it
 *     blocks (jdk.pollerSpinMicros, 50 us by default) only while no more file
 *     descriptors are registered with the read poller than there are carriers,
 *     and yields its CPU before it blocks only while more are registered
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch
 * @library /test/lib
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4
 *     -Djdk.virtualThreadScheduler.parallelism=1 CarrierPollingSpinLimit
 */

/*
 * @test id=mode4-p2
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch
 * @library /test/lib
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4
 *     -Djdk.virtualThreadScheduler.parallelism=2 CarrierPollingSpinLimit
 */

/*
 * @test id=mode4-nospin
 * @summary With -Djdk.pollerSpinMicros=0 an idle carrier never spins, and still
 *     yields before it blocks while more file descriptors are registered than
 *     there are carriers
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch
 * @library /test/lib
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.virtualThreadScheduler.parallelism=1 CarrierPollingSpinLimit
 */

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import jdk.test.lib.Utils;

/**
 * One connection does 1-byte round trips with an echo on a platform thread (which
 * does not use the read poller) while 0, then carriers + 1, then 0 other
 * connections are registered too, each with a virtual thread parked in a read. The
 * spins and yields of idle carriers are counted by the read poller
 * (Thread.vthread_pollers). It checks the decisions by those counts, not the calls:
 * a carrier that counted a yield but did not yield would pass.
 */
public class CarrierPollingSpinLimit {
    private static final int ROUND_TRIPS = 2_000;
    private static final int MAX_BATCHES_WITH_MANY = 20;    // of ROUND_TRIPS
    private static final int CARRIERS =
            Integer.getInteger("jdk.virtualThreadScheduler.parallelism", 1);
    private static final int SPIN_MICROS = Integer.getInteger("jdk.pollerSpinMicros", 50);
    // a wait that ends here is a hang: the message says what did not happen
    private static final Duration WATCHDOG = Duration.ofSeconds(Utils.adjustTimeout(60));
    private static final AtomicReference<Throwable> READER_FAILURE = new AtomicReference<>();

    public static void main(String[] args) throws Exception {
        try (var listener = ServerSocketChannel.open();
             var connection = new Connection(listener)) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            connection.connect();

            long[] few = spinsDuring("1 connection registered", connection);

            List<Connection> others = new ArrayList<>();
            List<Thread> readers = new ArrayList<>();
            try {
                for (int i = 0; i < CARRIERS + 1; i++) {
                    Connection c = new Connection(listener);
                    others.add(c);
                    c.connect();
                    readers.add(Thread.ofVirtual().start(c::readUntilClosed));
                }
                awaitRegistered(1 + others.size());
            } catch (Throwable e) {
                others.forEach(Connection::close);
                throw e;
            }
            // a spin that found nothing skips up to 64 blocking polls, whatever is
            // registered: go on until one of them had to decide, and a carrier yielded
            long[] many = new long[3];
            for (int batch = 0; batch < MAX_BATCHES_WITH_MANY
                    && ((SPIN_MICROS > 0 && many[0] + many[1] == 0) || many[2] == 0); batch++) {
                long[] b = spinsDuring((1 + others.size()) + " connections registered",
                        connection);
                for (int i = 0; i < many.length; i++) {
                    many[i] += b[i];
                }
            }

            others.forEach(Connection::close);
            for (Thread t : readers) {
                if (!t.join(WATCHDOG)) {
                    throw new RuntimeException("a reader did not see its connection closed in "
                            + WATCHDOG + ": " + pollers());
                }
            }
            if (READER_FAILURE.get() != null) {
                throw new RuntimeException("a reader failed", READER_FAILURE.get());
            }
            awaitRegistered(1);
            long[] fewAgain = spinsDuring("1 connection registered again", connection);

            System.out.printf("spins (skipped for registrations) [yields before blocking]"
                    + " with 1, %d, 1 connections registered, %d carriers: %d (%d) [%d],"
                    + " %d (%d) [%d], %d (%d) [%d]%n",
                    1 + others.size(), CARRIERS, few[0], few[1], few[2], many[0], many[1],
                    many[2], fewAgain[0], fewAgain[1], fewAgain[2]);
            if (few[2] != 0 || fewAgain[2] != 0) {
                throw new RuntimeException("with 1 connection registered and " + CARRIERS
                        + " carriers, an idle carrier must not yield before it blocks;"
                        + " yields: " + few[2] + ", after closing the others: "
                        + fewAgain[2] + ": " + pollers());
            }
            if (many[2] == 0) {
                throw new RuntimeException("with " + (1 + others.size()) + " connections"
                        + " registered and " + CARRIERS + " carriers, up to "
                        + MAX_BATCHES_WITH_MANY + " x " + ROUND_TRIPS + " round trips must"
                        + " yield before blocking at least once: " + pollers());
            }
            if (SPIN_MICROS == 0) {
                if (pollers().contains("spins")) {
                    throw new RuntimeException("jdk.pollerSpinMicros=0, but the poller counts"
                            + " spins: " + pollers());
                }
            } else {
                if (few[0] == 0 || fewAgain[0] == 0 || few[1] != 0 || fewAgain[1] != 0) {
                    throw new RuntimeException("with 1 connection registered and " + CARRIERS
                            + " carriers, " + ROUND_TRIPS + " round trips must spin and skip"
                            + " no spin for registrations; spins (skipped): " + few[0] + " ("
                            + few[1] + "), after closing the others: " + fewAgain[0] + " ("
                            + fewAgain[1] + "): " + pollers());
                }
                if (many[0] != 0 || many[1] == 0) {
                    throw new RuntimeException("with " + (1 + others.size()) + " connections"
                            + " registered and " + CARRIERS + " carriers, up to "
                            + MAX_BATCHES_WITH_MANY + " x " + ROUND_TRIPS + " round trips"
                            + " must skip spins for registrations and not spin;"
                            + " spins (skipped): " + many[0] + " (" + many[1] + "): "
                            + pollers());
                }
            }
        }
    }

    /**
     * Returns the spins of idle carriers, the spins they skipped because of the
     * registrations, and their yields before blocking, while a virtual thread does
     * ROUND_TRIPS round trips on the connection.
     */
    private static long[] spinsDuring(String what, Connection connection) throws Exception {
        long before = spins();
        long skippedBefore = skipped();
        long yieldsBefore = counter("yields before blocking");
        AtomicInteger done = new AtomicInteger();
        Thread client = Thread.ofVirtual().start(() -> connection.roundTrips(ROUND_TRIPS, done));
        if (!client.join(WATCHDOG)) {
            throw new RuntimeException(what + ": " + done.get() + " of " + ROUND_TRIPS
                    + " round trips in " + WATCHDOG + ": " + pollers());
        }
        if (done.get() != ROUND_TRIPS) {
            throw new RuntimeException(what + ": the client failed after " + done.get()
                    + " round trips; see its stack trace above");
        }
        return new long[] { spins() - before, skipped() - skippedBefore,
                counter("yields before blocking") - yieldsBefore };
    }

    /**
     * Waits until the read poller has counted the given number of file descriptors
     * registered (its registrations less its deregistrations, as the limit counts).
     */
    private static void awaitRegistered(int expected) throws InterruptedException {
        long deadline = System.nanoTime() + WATCHDOG.toNanos();
        while (counter("edge-triggered: registrations") - counter("deregistered on close")
                != expected) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException("the read poller did not reach " + expected
                        + " registered file descriptors in " + WATCHDOG + ": " + pollers());
            }
            Thread.sleep(1);    // polls a count; not a synchronisation
        }
    }

    private static String pollers() {
        return sun.nio.ch.Poller.readPollers().toString();
    }

    private static long spins() {
        return (SPIN_MICROS == 0) ? 0 : counter("spins of up to " + SPIN_MICROS + " us");
    }

    private static long skipped() {
        return (SPIN_MICROS == 0) ? 0 : counter("spins skipped for registrations");
    }

    private static long counter(String name) {
        String s = pollers();
        Matcher m = Pattern.compile(Pattern.quote(name) + " = (\\d+)").matcher(s);
        if (!m.find()) {
            throw new RuntimeException("no '" + name + "' in " + s);
        }
        return Long.parseLong(m.group(1));
    }

    /**
     * A loopback connection: the client end is read by virtual threads; the server
     * end is served by a platform thread, so that only the client end is
     * registered with the read poller.
     */
    private static class Connection implements AutoCloseable {
        private final ServerSocketChannel listener;
        private SocketChannel client, server;
        private Thread echo;

        Connection(ServerSocketChannel listener) {
            this.listener = listener;
        }

        void connect() throws IOException {
            client = SocketChannel.open(listener.getLocalAddress());
            server = listener.accept();
            echo = Thread.ofPlatform().daemon().start(this::echo);
        }

        private void echo() {
            ByteBuffer b = ByteBuffer.allocate(1);
            try {
                while (server.read(b.clear()) > 0) {
                    server.write(b.flip());
                }
            } catch (IOException e) {
                // closed
            }
        }

        void roundTrips(int count, AtomicInteger done) {
            ByteBuffer b = ByteBuffer.allocate(1);
            try {
                for (int i = 0; i < count; i++) {
                    client.write(b.clear().put(0, (byte) i));
                    if (client.read(b.clear()) != 1 || b.get(0) != (byte) i) {
                        throw new RuntimeException("round trip " + i + ": read "
                                + b.position() + " bytes, " + b.get(0));
                    }
                    done.incrementAndGet();
                }
            } catch (Exception e) {
                e.printStackTrace();
            }
        }

        void readUntilClosed() {
            try {
                int n = client.read(ByteBuffer.allocate(1));
                if (n != -1) {
                    READER_FAILURE.set(new RuntimeException("read " + n
                            + " bytes from an idle connection"));
                }
            } catch (IOException e) {
                // closed
            }
        }

        @Override
        public void close() {
            try {
                if (server != null) server.close();   // the reader reads -1
                if (client != null) client.close();
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
