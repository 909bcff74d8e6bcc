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
 * @test id=mode4-p2
 * @summary Carrier polling (jdk.pollerMode=4): two readers made ready together
 *     run on both carriers, also when one carrier polls them in two polls and
 *     then runs its own queue: the one that resumes first holds its carrier until
 *     the other has resumed, which needs the idle carrier to be signalled
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.virtualThreadScheduler.parallelism=2 CarrierPollingBatch
 */

/*
 * @test id=mode4-oneshot-p2
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.pollerEdgeTriggered=false -Djdk.virtualThreadScheduler.parallelism=2
 *     CarrierPollingBatch
 */

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static etjdk.poller.CarrierPollerWaits.*;

public class CarrierPollingBatch {
    private static final int ROUNDS = Integer.getInteger("rounds", 2_000);
    private static final long HOLD_SECONDS = WATCHDOG_SECONDS / 2;

    public static void main(String[] args) throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel[] readers = new SocketChannel[2];
            SocketChannel[] writers = new SocketChannel[2];
            for (int i = 0; i < 2; i++) {
                writers[i] = SocketChannel.open(listener.getLocalAddress());
                readers[i] = listener.accept();
            }
            // resumed[i]: the rounds reader i has resumed in
            AtomicInteger[] resumed = { new AtomicInteger(), new AtomicInteger() };
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] threads = new Thread[2];
            for (int i = 0; i < 2; i++) {
                int me = i, other = 1 - i;
                threads[i] = Thread.ofVirtual().name("reader-" + i).start(() -> {
                    try {
                        ByteBuffer bb = ByteBuffer.allocate(1);
                        for (int round = 0; round < ROUNDS; round++) {
                            bb.clear();
                            if (readers[me].read(bb) != 1 || bb.get(0) != (byte) round) {
                                throw new RuntimeException("reader " + me + ", round " + round
                                        + ": read " + bb.position() + " byte(s), "
                                        + (bb.position() > 0 ? bb.get(0) : -1));
                            }
                            resumed[me].incrementAndGet();
                            // hold this carrier, without parking or yielding, until the
                            // other reader has resumed on the other one; the bound is half
                            // the main thread's, so that this message is the one reported
                            long deadline = System.nanoTime()
                                    + TimeUnit.SECONDS.toNanos(HOLD_SECONDS);
                            while (resumed[other].get() <= round) {
                                if (System.nanoTime() - deadline > 0) {
                                    throw new RuntimeException("round " + round + " of "
                                            + ROUNDS + ": reader " + me + " resumed and held"
                                            + " its carrier " + HOLD_SECONDS + " s, and"
                                            + " reader " + other + " did not resume: polled"
                                            + " with it, it waited on that carrier's queue"
                                            + " while the other carrier idled (no signal);"
                                            + " read pollers: " + readPollers());
                                }
                                Thread.onSpinWait();
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            for (int round = 0; round < ROUNDS; round++) {
                int r = round;
                await(() -> failure.get() != null
                        || resumed[0].get() == r && resumed[1].get() == r
                        && threads[0].getState() == Thread.State.WAITING
                        && threads[1].getState() == Thread.State.WAITING,
                        "both readers to park in their reads for round " + round);
                if (failure.get() != null) {
                    break;
                }
                // both at once: one carrier blocked in the poller, the other parked,
                // usually polls both
                for (SocketChannel w : writers) {
                    w.write(ByteBuffer.wrap(new byte[] { (byte) round }));
                }
            }
            Throwable failed = failure.get();
            if (failed != null) {
                // a reader failed: the other may be parked in a read that gets no byte
                for (int i = 0; i < 2; i++) {
                    readers[i].close();
                }
            }
            for (int i = 0; i < 2; i++) {
                Thread t = threads[i];
                if (!t.join(Duration.ofSeconds(WATCHDOG_SECONDS))) {
                    throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for reader "
                            + i + " to end after round " + resumed[i].get() + "; read pollers: "
                            + readPollers(), failed);
                }
            }
            if (failed != null) {
                throw new RuntimeException(failed.getMessage(), failed);
            }
            for (int i = 0; i < 2; i++) {
                readers[i].close();
                writers[i].close();
            }
        }
        System.out.println(ROUNDS + " rounds of two readers made ready together; read pollers: "
                + readPollers());
    }
}
