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


package etjdk.poller;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Rounds of virtual threads that yield in turn until a virtual thread started
 * from the calling platform thread (so in another queue than theirs) sets a
 * flag: each round passes only if a carrier's scan of the scheduler's queues
 * ends while its own queue never empties. The yielders end by a deadline, and
 * every wait is bounded, so a hang ends in a message that says what did not
 * happen.
 */
public final class YieldersInTurn {
    private YieldersInTurn() { }

    /**
     * Runs the rounds; throws RuntimeException, its message starting with what,
     * at the first round that fails.
     */
    public static void run(String what, int rounds, int yielders, long watchdogSeconds)
            throws InterruptedException {
        for (int round = 0; round < rounds; round++) {
            String at = what + ", round " + round + " of " + rounds + ": ";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(watchdogSeconds);
            var released = new AtomicBoolean();
            var yielding = new CountDownLatch(yielders);
            var done = new CountDownLatch(yielders);
            for (int i = 0; i < yielders; i++) {
                Thread.ofVirtual().start(() -> {
                    Thread.yield();
                    yielding.countDown();
                    while (!released.get() && System.nanoTime() - deadline < 0) {
                        Thread.yield();
                    }
                    done.countDown();
                });
            }
            if (!yielding.await(watchdogSeconds, TimeUnit.SECONDS)) {
                throw new RuntimeException(at + "waited " + watchdogSeconds + " s for "
                        + yielders + " virtual threads to yield once, "
                        + yielding.getCount() + " did not");
            }
            Thread releaser = Thread.ofVirtual().start(() -> released.set(true));
            // the yielders end by the deadline; past it, they are not run at all
            if (!done.await(2 * watchdogSeconds, TimeUnit.SECONDS)) {
                throw new RuntimeException(at + "waited " + 2 * watchdogSeconds + " s for "
                        + yielders + " yielders to end (by the flag or their "
                        + watchdogSeconds + " s deadline), " + done.getCount()
                        + " did not (releaser " + releaser.getState() + ")");
            }
            if (!released.get()) {
                throw new RuntimeException(at + "the releaser did not run within "
                        + watchdogSeconds + " s while " + yielders + " virtual threads"
                        + " yielded (releaser " + releaser.getState() + "): a carrier's"
                        + " scan did not end");
            }
            if (!releaser.join(java.time.Duration.ofSeconds(watchdogSeconds))) {
                throw new RuntimeException(at + "waited " + watchdogSeconds
                        + " s for the releaser to end");
            }
        }
    }
}
