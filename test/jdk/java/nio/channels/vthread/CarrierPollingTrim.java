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
 * @test id=mode4-p3
 * @summary Carrier polling (jdk.pollerMode=4): every parked carrier times out at the
 *     pool's keep-alive (30 s), also one that went idle while another carrier was
 *     active; the carrier that goes idle last usually blocks in the poller and never
 *     times out, so the trim cannot wait for it. Three carriers: one blocks in the
 *     poller while two run spinning virtual threads; the spinners end 2 s apart;
 *     each carrier that parks must park with a deadline, also the first one after it
 *     times out while not on top of the idle stack, and both must exit
 * @requires os.family == "linux" & vm.continuations
 * @modules java.base/sun.nio.ch
 * @library lib
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.virtualThreadScheduler.parallelism=3 CarrierPollingTrim
 */

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static etjdk.poller.CarrierPollerWaits.*;

public class CarrierPollingTrim {
    // the default scheduler's keep-alive is 30 s
    private static final long TRIM_WATCHDOG_SECONDS = 150;
    // how much later the second carrier goes idle than the first
    private static final long GAP_SECONDS = 2;

    public static void main(String[] args) throws Exception {
        var loopback = InetAddress.getLoopbackAddress();
        SocketChannel channel, peer;
        try (var listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0))) {
            channel = SocketChannel.open(listener.getLocalAddress());
            peer = listener.accept();
        }
        try (channel; peer) {
            // a reader waits all along, so that an idle carrier blocks in the poller
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    channel.read(ByteBuffer.allocate(1));
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            awaitParked(reader, "the reader to park in its read");
            await(() -> pollerCarriers().size() == 1, "a carrier to block in the poller");

            var stop1 = new AtomicLong(Long.MAX_VALUE);
            var stop2 = new AtomicLong(Long.MAX_VALUE);
            var started = new CountDownLatch(2);
            Thread spinner1 = startSpinner(started, stop1);
            Thread spinner2 = startSpinner(started, stop2);
            if (!started.await(WATCHDOG_SECONDS, TimeUnit.SECONDS)) {
                throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for the two"
                        + " spinners to start: " + describe());
            }
            await(() -> carriers() == 3 && pollerCarriers().size() == 1,
                    "three carriers: one in the poller, two running the spinners");

            // the carrier of spinner 2 goes idle while spinner 1's is active
            stop2.set(System.nanoTime());
            join(spinner2, "spinner 2 to end");
            checkParkedWithDeadline(1, "went idle while another carrier was active");

            // the other goes idle last, with the poller still held, on top of the idle
            // stack; it spins 2 s longer, so that the first one's keep-alive ends 2 s
            // before its own, while it is not on top
            stop1.set(System.nanoTime() + TimeUnit.SECONDS.toNanos(GAP_SECONDS));
            join(spinner1, "spinner 1 to end");
            checkParkedWithDeadline(2, "went idle last");

            // until both have exited, none may park without a deadline: the first one
            // to time out is not on top, and must wait another keep-alive
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TRIM_WATCHDOG_SECONDS);
            while (carriers() > 1) {
                checkNoneParkedWithoutDeadline("timed out while not on top of the idle stack");
                if (System.nanoTime() > deadline) {
                    throw new RuntimeException("waited " + TRIM_WATCHDOG_SECONDS + " s for the"
                            + " two parked carriers to exit after the keep-alive (30 s): "
                            + describe());
                }
                Thread.sleep(100);  // sampling the carriers' states, not synchronising
            }
            if (pollerCarriers().size() != 1) {
                throw new RuntimeException("the carrier left is not in the poller: " + describe());
            }
            peer.write(ByteBuffer.wrap(new byte[] { 1 }));
            join(reader, "the reader to read its byte after two carriers exited");
            System.out.println("two parked carriers timed out and exited: " + describe());
        }
    }

    /** Starts a virtual thread that spins until System.nanoTime() passes stopAt. */
    private static Thread startSpinner(CountDownLatch started, AtomicLong stopAt) {
        return Thread.ofVirtual().start(() -> {
            started.countDown();
            while (System.nanoTime() - stopAt.get() < 0) {
                Thread.onSpinWait();
            }
        });
    }

    /**
     * Waits until n carriers are parked in the pool (in awaitWork, not in the
     * poller), then checks that each is parked with a deadline (TIMED_WAITING): a
     * carrier parked without one (WAITING) is trimmed only if the carrier above it
     * on the idle stack times out.
     */
    private static void checkParkedWithDeadline(int n, String what) throws InterruptedException {
        try {
            await(() -> parkedCarriers().size() == n, n + " carrier(s) to park after the"
                    + " last " + what);
        } catch (RuntimeException e) {
            throw new RuntimeException(e.getMessage() + "; " + describe(), e);
        }
        checkNoneParkedWithoutDeadline(what);
    }

    private static void checkNoneParkedWithoutDeadline(String what) {
        for (Thread t : parkedCarriers()) {
            if (t.getState() == Thread.State.WAITING) {
                throw new RuntimeException("the carrier that " + what + " parked without a"
                        + " keep-alive deadline (WAITING) while a carrier blocks in the poller: "
                        + describe());
            }
        }
    }

    private static boolean inFrame(Thread t, String method) {
        return Arrays.stream(t.getStackTrace())
                .anyMatch(f -> f.getMethodName().equals(method)
                        && f.getClassName().equals("java.util.concurrent.ForkJoinPool"));
    }

    private static boolean inPoller(Thread t) {
        return inFrame(t, "awaitIO");
    }

    private static List<Thread> parkedCarriers() {
        return carrierThreads().stream()
                .filter(t -> (t.getState() == Thread.State.WAITING
                        || t.getState() == Thread.State.TIMED_WAITING)
                        && inFrame(t, "awaitWork") && !inPoller(t))
                .collect(Collectors.toList());
    }

    private static List<Thread> pollerCarriers() {
        return carrierThreads().stream().filter(CarrierPollingTrim::inPoller)
                .collect(Collectors.toList());
    }

    private static String describe() {
        return carrierThreads().stream()
                .map(t -> t.getName() + " " + t.getState()
                        + (inPoller(t) ? " (in the poller)"
                                : inFrame(t, "awaitWork") ? " (parked)" : ""))
                .collect(Collectors.joining(", ", "carriers [", "]"));
    }
}
