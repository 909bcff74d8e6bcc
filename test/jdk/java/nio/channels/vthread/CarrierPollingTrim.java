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
 * @summary Carrier polling (jdk.pollerMode=4): carriers that go idle while another is
 *     active park with a deadline and exit after the pool's keep-alive (30 s), also
 *     when the carrier that goes idle last blocks in the poller, where it never times
 *     out. Three carriers run spinning virtual threads, with no thread yet waiting in
 *     the poller; two spinners end 2 s apart, then the third does the program's first
 *     read, so that its carrier goes idle last and takes the poller. Each carrier that
 *     parks must park with a deadline, also the first after it times out while not on
 *     top of the idle stack; neither may exit within 20 s of the first park, and both
 *     must exit
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
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
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static etjdk.poller.CarrierPollerWaits.*;

// The main thread must be a platform thread (test.thread.factory == null): it
// watches the carriers, which a virtual main thread would hold or need.
public class CarrierPollingTrim {
    // the default scheduler's keep-alive is 30 s
    private static final long TRIM_WATCHDOG_SECONDS = scaled(150);
    // a parked carrier that exits sooner after it parked did not wait the keep-alive
    private static final long TRIM_EARLIEST_SECONDS = 20;
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
            var stop1 = new AtomicLong(Long.MAX_VALUE);
            var stop2 = new AtomicLong(Long.MAX_VALUE);
            var stopReader = new AtomicLong(Long.MAX_VALUE);
            var started = new CountDownLatch(3);
            Thread spinner1 = startSpinner(started, stop1);
            Thread spinner2 = startSpinner(started, stop2);
            // spins, then does the first read of the program
            Thread reader = Thread.ofVirtual().start(() -> {
                started.countDown();
                spin(stopReader);
                try {
                    channel.read(ByteBuffer.allocate(1));
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            if (!started.await(WATCHDOG_SECONDS, TimeUnit.SECONDS)) {
                throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for the three"
                        + " spinners to start: " + describe());
            }
            await(() -> carriers() == 3, "three carriers running the spinners");

            // the carrier of spinner 2 goes idle while the others are active
            stop2.set(System.nanoTime());
            join(spinner2, "spinner 2 to end");
            checkParkedWithDeadline(1, "went idle while other carriers were active");
            long firstParked = System.nanoTime();

            // spinner 1's goes idle 2 s later, on top of the idle stack, so that the
            // first one's keep-alive ends 2 s before its own, while it is not on top
            stop1.set(System.nanoTime() + TimeUnit.SECONDS.toNanos(GAP_SECONDS));
            join(spinner1, "spinner 1 to end");
            checkParkedWithDeadline(2, "went idle while another carrier was active");

            // the reader's carrier goes idle last, with a waiter now, and takes the poller
            stopReader.set(System.nanoTime());
            awaitParked(reader, "the reader to park in its read");
            await(() -> pollerCarriers().size() == 1, "the reader's carrier, idle last,"
                    + " to block in the poller");

            // until both have exited, none may park without a deadline: the first one
            // to time out is not on top, and must wait another keep-alive
            long deadline = firstParked + TimeUnit.SECONDS.toNanos(TRIM_WATCHDOG_SECONDS);
            while (carriers() > 1) {
                checkNoneParkedWithoutDeadline("timed out while not on top of the idle stack");
                long now = System.nanoTime();
                if (carriers() < 3 && now - firstParked
                        < TimeUnit.SECONDS.toNanos(TRIM_EARLIEST_SECONDS)) {
                    throw new RuntimeException("a parked carrier exited "
                            + TimeUnit.NANOSECONDS.toMillis(now - firstParked) + " ms after the"
                            + " first parked, before the keep-alive (30 s): " + describe());
                }
                if (now - deadline > 0) {
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
            System.out.println("two parked carriers timed out and exited "
                    + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - firstParked)
                    + " s after the first parked: " + describe());
        }
    }

    /** Spins until System.nanoTime() passes stopAt. */
    private static void spin(AtomicLong stopAt) {
        while (System.nanoTime() - stopAt.get() < 0) {
            Thread.onSpinWait();
        }
    }

    private static Thread startSpinner(CountDownLatch started, AtomicLong stopAt) {
        return Thread.ofVirtual().start(() -> {
            started.countDown();
            spin(stopAt);
        });
    }

    /**
     * Waits until n carriers are parked in the pool (in awaitWork, not in the
     * poller), then checks that none has exited and none is parked without a
     * deadline.
     */
    private static void checkParkedWithDeadline(int n, String what) throws InterruptedException {
        try {
            await(() -> parkedCarriers().size() == n || carriers() < 3, n + " carrier(s) to"
                    + " park after the last " + what);
        } catch (RuntimeException e) {
            throw new RuntimeException(e.getMessage() + "; " + describe(), e);
        }
        if (carriers() < 3) {
            throw new RuntimeException("a carrier exited as soon as it parked, before the"
                    + " keep-alive (30 s), after the last " + what + ": " + describe());
        }
        checkNoneParkedWithoutDeadline(what);
    }

    /**
     * A carrier parked without a deadline (WAITING, before and after its stack is
     * taken) is trimmed only if the trim of a carrier above it on the idle stack
     * cascades down to it.
     */
    private static void checkNoneParkedWithoutDeadline(String what) {
        for (Thread t : carrierThreads()) {
            if (t.getState() == Thread.State.WAITING && parked(t)
                    && t.getState() == Thread.State.WAITING) {
                throw new RuntimeException("the carrier that " + what + " parked without a"
                        + " keep-alive deadline (WAITING) while a carrier blocks in the poller: "
                        + describe());
            }
        }
    }

    /** The methods of ForkJoinPool on the thread's stack. */
    private static Set<String> poolFrames(Thread t) {
        return Arrays.stream(t.getStackTrace())
                .filter(f -> f.getClassName().equals("java.util.concurrent.ForkJoinPool"))
                .map(StackTraceElement::getMethodName)
                .collect(Collectors.toSet());
    }

    private static boolean inPoller(Thread t) {
        return poolFrames(t).contains("awaitIO");
    }

    /** In awaitWork, not in the poller. */
    private static boolean parked(Thread t) {
        Set<String> frames = poolFrames(t);
        return frames.contains("awaitWork") && !frames.contains("awaitIO");
    }

    private static List<Thread> parkedCarriers() {
        return carrierThreads().stream()
                .filter(t -> t.getState() != Thread.State.RUNNABLE && parked(t))
                .collect(Collectors.toList());
    }

    private static List<Thread> pollerCarriers() {
        return carrierThreads().stream().filter(CarrierPollingTrim::inPoller)
                .collect(Collectors.toList());
    }

    private static String describe() {
        return carrierThreads().stream()
                .map(t -> t.getName() + " " + t.getState()
                        + (inPoller(t) ? " (in the poller)" : parked(t) ? " (parked)" : ""))
                .collect(Collectors.joining(", ", "carriers [", "]"));
    }
}
