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
 * @test id=mode4
 * @summary Carrier polling (jdk.pollerMode=4): a carrier that exits (trimmed after
 *     the pool's keep-alive of 30 s) takes neither the poller nor registrations with
 *     it. Readers registered before and while the pool ran a spare carrier are
 *     polled by the carrier that is left, which then blocks in the poller again,
 *     after the compensated block ended and one of the two carriers exited
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.virtualThreadScheduler.parallelism=1 CarrierPollingCarrierExit
 */

/*
 * @test id=mode4-oneshot
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerEdgeTriggered=false
 *     -Djdk.virtualThreadScheduler.parallelism=1 CarrierPollingCarrierExit
 */

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static etjdk.poller.CarrierPollerWaits.*;

// The main thread must be a platform thread (test.thread.factory == null): it
// watches the carriers, which a virtual main thread would hold or need.
public class CarrierPollingCarrierExit {
    // the default scheduler's keep-alive is 30 s: the carrier that is not in the
    // poller exits after that
    private static final long TRIM_WATCHDOG_SECONDS = scaled(150);
    private static final int READERS_PER_PHASE = 4;

    public static void main(String[] args) throws Exception {
        List<Reader> readers = new ArrayList<>();
        Process cat = new ProcessBuilder("cat").start();
        try {
            // readers registered while the pool's only carrier runs
            startReaders(readers, "before the spare");
            if (carriers() != 1) {
                throw new RuntimeException("needs the pool's only carrier, found " + carriers());
            }

            var catValue = new AtomicReference<Integer>();
            Thread catReader = Thread.ofVirtual().start(() -> {
                try {
                    catValue.set(cat.getInputStream().read());   // Blocker: compensated
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            awaitCarriers(2, WATCHDOG_SECONDS, "the pool to start a spare carrier while its"
                    + " only carrier blocks reading a process's output");
            awaitPollerState("BLOCKING", "the spare carrier to block in the poller");

            // readers registered while the spare runs; it then goes idle (last, as
            // the other carrier is blocked) and blocks in the poller again
            startReaders(readers, "while the spare runs");
            awaitPollerState("BLOCKING", "the spare to block in the poller again after"
                    + " the readers it ran parked");

            cat.getOutputStream().write(5);
            cat.getOutputStream().flush();
            join(catReader, "the process reader to read its byte");
            if (catValue.get() == null || catValue.get() != 5) {
                throw new RuntimeException("process reader read " + catValue.get());
            }

            // one of the two idle carriers blocks in the poller; the other parks until
            // the keep-alive ends and exits
            awaitCarriers(1, TRIM_WATCHDOG_SECONDS, "one of the two carriers to exit"
                    + " after the pool's keep-alive (30 s)");
            Set<Thread> left = carrierThreads();
            String before = awaitPollerState("BLOCKING",
                    "the carrier left to block in the poller after the other exited");
            long blockingPolls = counter(before, "blocking polls");
            long watchdogPolls = counter(before, "watchdog polls");

            byte value = 10;
            for (Reader r : readers) {
                r.value = value++;
                r.peer.write(ByteBuffer.wrap(new byte[] { r.value }));
            }
            for (Reader r : readers) {
                join(r.thread, "the reader registered " + r.phase + " to read its byte, after"
                        + " a carrier exited (" + carriers() + " carriers)");
                if (r.readValue.get() == null || r.readValue.get() != r.value) {
                    throw new RuntimeException("the reader registered " + r.phase + " read "
                            + r.readValue.get() + ", expected " + r.value);
                }
            }
            // the carrier left polled them and blocks again; no carrier was started
            String after = awaitBlockingPollsAbove(blockingPolls);
            if (!carrierThreads().equals(left)) {
                throw new RuntimeException("the carriers changed while the readers were"
                        + " polled: " + left + " before, " + carrierThreads() + " after");
            }
            System.out.println("a carrier exited; " + readers.size() + " readers polled by"
                    + " the carrier left (watchdog polls " + watchdogPolls + " -> "
                    + counter(after, "watchdog polls") + "); read pollers: " + after);
        } finally {
            cat.destroy();
            for (Reader r : readers) {
                r.close();
            }
        }
    }

    private static void startReaders(List<Reader> readers, String phase) throws Exception {
        for (int i = 0; i < READERS_PER_PHASE; i++) {
            Reader r = new Reader(phase);
            readers.add(r);
            awaitParked(r.thread, "the reader registered " + phase + " to park in its read");
        }
    }

    /** A virtual thread reading one byte from a connection; the test writes it. */
    static final class Reader implements AutoCloseable {
        final String phase;
        final SocketChannel channel;
        final SocketChannel peer;
        final AtomicReference<Integer> readValue = new AtomicReference<>();
        final Thread thread;
        byte value;

        Reader(String phase) throws IOException {
            this.phase = phase;
            var loopback = InetAddress.getLoopbackAddress();
            try (var listener = ServerSocketChannel.open()
                    .bind(new InetSocketAddress(loopback, 0))) {
                channel = SocketChannel.open(listener.getLocalAddress());
                peer = listener.accept();
            }
            thread = Thread.ofVirtual().start(() -> {
                try {
                    ByteBuffer bb = ByteBuffer.allocate(1);
                    if (channel.read(bb) == 1) {
                        readValue.set((int) bb.get(0));
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
        }

        @Override
        public void close() throws IOException {
            channel.close();
            peer.close();
        }
    }

    static String awaitBlockingPollsAbove(long blockingPolls) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
        String text;
        while (counter(text = sun.nio.ch.Poller.readPollers().toString(), "blocking polls")
                <= blockingPolls || !text.contains("state = BLOCKING")) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for the carrier"
                        + " left to block in the poller again after it polled the readers"
                        + " (blocking polls were " + blockingPolls + "); read pollers: " + text);
            }
            Thread.sleep(1);  // polling a counter, not synchronising
        }
        return text;
    }
}
