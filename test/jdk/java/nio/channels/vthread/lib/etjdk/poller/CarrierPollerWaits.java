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

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Bounded waits of the carrier-polling tests (jdk.pollerMode=4). A wait that runs
 * out is a hang: it throws, saying what it waited for, with the read pollers'
 * counters. Tests using it need {@code @modules java.base/sun.nio.ch}.
 */
public final class CarrierPollerWaits {
    /** jtreg's timeout factor (1 when not run by jtreg). */
    public static final double TIMEOUT_FACTOR =
            Double.parseDouble(System.getProperty("test.timeout.factor", "1.0"));

    /** How long any single wait may take: 60 s scaled by the timeout factor. */
    public static final long WATCHDOG_SECONDS = scaled(60);

    /** The given number of seconds scaled by the timeout factor. */
    public static long scaled(long seconds) {
        return Math.round(seconds * TIMEOUT_FACTOR);
    }

    private CarrierPollerWaits() { }

    /** The read pollers and their counters, as text. */
    public static String readPollers() {
        return sun.nio.ch.Poller.readPollers().toString();
    }

    /** The live carriers of the default scheduler. */
    public static Set<Thread> carrierThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("ForkJoinPool-")
                        && t.getName().contains("-worker-"))
                .collect(Collectors.toSet());
    }

    /** The number of live carriers of the default scheduler. */
    public static long carriers() {
        return carrierThreads().size();
    }

    /**
     * Waits while the pool has fewer (n > 1) or more (n = 1) carriers than n, then
     * checks that it has n.
     */
    public static void awaitCarriers(int n, long seconds, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        long c;
        while ((n > 1) ? (c = carriers()) < n : (c = carriers()) > n) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException("waited " + seconds + " s for " + what + ": "
                        + c + " carriers, expected " + n + "; read pollers: "
                        + readPollers());
            }
            Thread.sleep(100);  // polling the thread count, not synchronising
        }
        if (c != n) {
            throw new RuntimeException(what + ": " + c + " carriers, expected " + n);
        }
    }

    /** Waits until the condition holds; the text says what was waited for. */
    public static void await(BooleanSupplier condition, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for " + what
                        + "; read pollers: " + readPollers());
            }
            Thread.sleep(10);  // polling the condition, not synchronising
        }
    }

    /**
     * Waits until the idle carriers' poller is in the given state; returns its
     * counters then.
     */
    public static String awaitPollerState(String state, String what)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
        String text;
        while (!(text = readPollers()).contains("state = " + state)) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for " + what
                        + "; read pollers: " + text);
            }
            Thread.sleep(1);  // polling the state, not synchronising
        }
        return text;
    }

    /** Waits until the thread is parked (WAITING). */
    public static void awaitParked(Thread t, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WATCHDOG_SECONDS);
        while (t.getState() != Thread.State.WAITING) {
            if (System.nanoTime() - deadline > 0) {
                throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for " + what
                        + ", state " + t.getState());
            }
            Thread.sleep(1);  // polling the state, not synchronising
        }
    }

    /** Waits for the thread to end. */
    public static void join(Thread t, String what) throws InterruptedException {
        if (!t.join(Duration.ofSeconds(WATCHDOG_SECONDS))) {
            throw new RuntimeException("waited " + WATCHDOG_SECONDS + " s for " + what
                    + "; read pollers: " + readPollers());
        }
    }

    /** The value of the counter "name = N" in the read pollers' text. */
    public static long counter(String text, String name) {
        Matcher m = Pattern.compile(Pattern.quote(name) + " = (\\d+)").matcher(text);
        if (!m.find()) {
            throw new RuntimeException("no counter '" + name + "' in " + text);
        }
        return Long.parseLong(m.group(1));
    }
}
