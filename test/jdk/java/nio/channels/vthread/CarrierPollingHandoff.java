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
 * @summary Carrier polling (jdk.pollerMode=4): while the carrier that polled a
 *     reader runs it for long, the watchdog hands the poller to the carrier that
 *     idles, and readiness meanwhile wakes that carrier
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.virtualThreadScheduler.parallelism=2 CarrierPollingHandoff
 */

/*
 * @test id=mode4-oneshot-p2
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.pollerEdgeTriggered=false -Djdk.virtualThreadScheduler.parallelism=2
 *     CarrierPollingHandoff
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static etjdk.poller.CarrierPollerWaits.*;

/**
 * Each round: a carrier blocks in the poller and the other has parked; a byte wakes
 * reader 0, which then holds its carrier, spinning, until reader 1 has resumed.
 * The idle carrier must take the poller meanwhile (the watchdog's handoff, counted
 * by the poller); only then is reader 1's byte written, and reader 1 must resume.
 * Without the handoff nobody blocks in the poller until reader 0 ends its hold,
 * and the wait for it fails after 60 s.
 */
public class CarrierPollingHandoff {
    private static final int ROUNDS = Integer.getInteger("rounds", 100);
    private static final long HOLD_SECONDS = WATCHDOG_SECONDS * 2;
    private static final Pattern HANDOFFS = Pattern.compile("handoffs to idle carriers = (\\d+)");

    public static void main(String[] args) throws Exception {
        startBothCarriers();
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel[] readers = new SocketChannel[2];
            SocketChannel[] writers = new SocketChannel[2];
            for (int i = 0; i < 2; i++) {
                writers[i] = SocketChannel.open(listener.getLocalAddress());
                readers[i] = listener.accept();
            }
            AtomicInteger[] resumed = { new AtomicInteger(), new AtomicInteger() };
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] threads = new Thread[2];
            for (int i = 0; i < 2; i++) {
                int me = i;
                threads[i] = Thread.ofVirtual().name("reader-" + i).start(() -> {
                    try {
                        ByteBuffer bb = ByteBuffer.allocate(1);
                        for (int round = 0; round < ROUNDS; round++) {
                            bb.clear();
                            if (readers[me].read(bb) != 1 || bb.get(0) != (byte) round) {
                                throw new RuntimeException("reader " + me + ", round " + round
                                        + ": read " + bb.position() + " byte(s)");
                            }
                            resumed[me].incrementAndGet();
                            if (me == 0) {
                                // hold this carrier, without parking or yielding, until
                                // reader 1 has resumed; bounded, past the main thread's
                                // waits, which report the failure
                                long deadline = System.nanoTime()
                                        + TimeUnit.SECONDS.toNanos(HOLD_SECONDS);
                                while (resumed[1].get() <= round
                                        && System.nanoTime() - deadline < 0) {
                                    Thread.onSpinWait();
                                }
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            try {
                for (int round = 0; round < ROUNDS && failure.get() == null; round++) {
                    int r = round;
                    // a handoff counted after this, also a late one of the round
                    // before, passes the check below: the poller state is the witness
                    long handoffs = handoffs();
                    await(() -> failure.get() != null
                            || resumed[0].get() == r && resumed[1].get() == r
                            && threads[0].getState() == Thread.State.WAITING
                            && threads[1].getState() == Thread.State.WAITING,
                            "round " + round + ": both readers to park in their reads");
                    if (failure.get() != null) {
                        break;
                    }
                    awaitPollerState("BLOCKING", "round " + round
                            + ": a carrier to block in the poller");
                    // the other must have parked, or it takes the poller by itself
                    await(() -> carrierThreads().stream()
                            .anyMatch(t -> t.getState() != Thread.State.RUNNABLE),
                            "round " + round + ": the other carrier to park");
                    writers[0].write(ByteBuffer.wrap(new byte[] { (byte) round }));
                    await(() -> failure.get() != null || resumed[0].get() == r + 1,
                            "round " + round + ": reader 0 to resume");
                    if (failure.get() != null) {
                        break;
                    }
                    // reader 0 holds its carrier: only the other may block in the poller
                    awaitPollerState("BLOCKING", "round " + round + ": the idle carrier to"
                            + " take the poller while reader 0 holds the other (handoffs "
                            + handoffs + " before the round)");
                    // the watchdog counts a handoff after the release
                    await(() -> handoffs() > handoffs, "round " + round + ": the handoff"
                            + " to be counted (the idle carrier took the poller; handoffs "
                            + handoffs + " before the round)");
                    writers[1].write(ByteBuffer.wrap(new byte[] { (byte) round }));
                    await(() -> failure.get() != null || resumed[1].get() == r + 1,
                            "round " + round + ": reader 1 to resume while reader 0 holds"
                            + " its carrier");
                }
            } finally {
                if (failure.get() != null || resumed[1].get() < ROUNDS) {
                    // let reader 0 end its hold and both readers end their reads
                    resumed[1].set(Integer.MAX_VALUE);
                    for (SocketChannel reader : readers) {
                        reader.close();
                    }
                }
            }
            for (int i = 0; i < 2; i++) {
                if (!threads[i].join(Duration.ofSeconds(WATCHDOG_SECONDS))) {
                    throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for reader "
                            + i + " to end; read pollers: " + readPollers());
                }
            }
            if (failure.get() != null) {
                throw new RuntimeException(failure.get().getMessage(), failure.get());
            }
            for (int i = 0; i < 2; i++) {
                readers[i].close();
                writers[i].close();
            }
        }
        System.out.println(ROUNDS + " rounds handed the poller to the idle carrier; read"
                + " pollers: " + readPollers());
    }

    /**
     * Makes the pool start its second carrier: two virtual threads each spin
     * until the other runs.
     */
    private static void startBothCarriers() throws Exception {
        AtomicInteger running = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
        Thread[] spinners = new Thread[2];
        for (int i = 0; i < 2; i++) {
            spinners[i] = Thread.ofVirtual().start(() -> {
                running.incrementAndGet();
                while (running.get() < 2 && System.nanoTime() - deadline < 0) {
                    Thread.onSpinWait();
                }
            });
        }
        for (Thread t : spinners) {
            if (!t.join(Duration.ofSeconds(2 * WATCHDOG_SECONDS))) {
                throw new RuntimeException("a spinner did not end by its deadline");
            }
        }
        if (running.get() < 2) {
            throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for two virtual"
                    + " threads to run at once (parallelism 2)");
        }
        awaitCarriers(2, WATCHDOG_SECONDS, "the pool's two carriers");
    }

    private static long handoffs() {
        String text = readPollers();
        Matcher m = HANDOFFS.matcher(text);
        if (!m.find()) {
            throw new RuntimeException("no handoff counter in: " + text);
        }
        return Long.parseLong(m.group(1));
    }
}
