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
 * @test id=et
 * @summary A lingering read sub-poller yields between its polls, so other virtual
 *     threads on its carrier still run promptly, and parks once polls keep finding
 *     nothing, so an idle JVM stays idle
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerMode=2 -Djdk.readPollers=1
 *     -Djdk.virtualThreadScheduler.parallelism=1 -Djdk.virtualThreadScheduler.maxPoolSize=1
 *     LingeringSubPoller
 */

/*
 * @test id=oneshot-linger
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=false -Djdk.pollerLinger=true -Djdk.pollerMode=2 -Djdk.readPollers=1
 *     -Djdk.virtualThreadScheduler.parallelism=1 -Djdk.virtualThreadScheduler.maxPoolSize=1
 *     LingeringSubPoller
 */

/*
 * @test id=et-no-linger
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/othervm/timeout=300 --enable-native-access=ALL-UNNAMED
 *     -Djdk.pollerEdgeTriggered=true -Djdk.pollerLinger=false -Djdk.pollerMode=2 -Djdk.readPollers=1
 *     -Djdk.virtualThreadScheduler.parallelism=1 -Djdk.virtualThreadScheduler.maxPoolSize=1
 *     LingeringSubPoller
 */

import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.*;

import static etjdk.poller.PollerTestSupport.*;

class LingeringSubPoller {
    private static final boolean LINGER = !"false".equals(System.getProperty("jdk.pollerLinger"));

    // most sub-poller polls allowed between two turns of a yielding virtual thread
    private static final int MAX_POLLS_PER_TURN = 4;

    private static ServerSocketChannel listener;
    private static Object subPoller;

    @BeforeAll
    static void setup() throws Exception {
        listener = openListener();
        try (var pair = ChannelPair.open(listener)) {
            EdgeTriggeredReadPoller.blockingReadCycle(pair);
        }
        assertEquals(1, readPollers().size(), "expected one read sub-poller");
        subPoller = readPollers().get(0);
        log("linger expected: %s, sub-poller: %s", LINGER, subPoller);
    }

    @AfterAll
    static void finish() throws Exception {
        listener.close();
        dumpPollers();
    }

    /**
     * Runs {@code roundTrips} 1-byte round trips: a virtual thread reads (parks
     * until the reply arrives), a platform thread echoes. Returns the reader.
     */
    private static VTask<Long> pingPong(ChannelPair pair, int roundTrips) throws Exception {
        var echo = startPlatform("echo", () -> {
            ByteBuffer b = ByteBuffer.allocate(1);
            for (int i = 0; i < roundTrips; i++) {
                b.clear();
                if (pair.client().read(b) != 1) throw new AssertionError("echo read");
                b.flip();
                pair.client().write(b);
            }
            return null;
        });
        return startVirtual("reader", () -> {
            ByteBuffer b = ByteBuffer.allocate(1);
            for (int i = 0; i < roundTrips; i++) {
                pair.server().write(ByteBuffer.wrap(new byte[] { (byte) i }));
                b.clear();
                if (pair.server().read(b) != 1 || b.get(0) != (byte) i)
                    throw new AssertionError("round trip " + i);
            }
            echo.join("echo thread");
            return (long) roundTrips;
        });
    }

    /**
     * After a burst of round trips the sub-poller lingers, then parks on the master
     * poller: an unbounded linger would never park. With lingering off, it never
     * lingers.
     */
    @Test
    void testIdleSubPollerParks() throws Exception {
        long lingerPolls0 = pollCounter(subPoller, "lingerPolls");
        try (var pair = ChannelPair.open(listener)) {
            pingPong(pair, 2000).join("2000 round trips");
            await(() -> "sub-poller to park on the master poller once idle: " + subPoller,
                    () -> parkedOnMaster(subPoller));
        }
        long lingered = pollCounter(subPoller, "lingerPolls") - lingerPolls0;
        log("lingering polls during 2000 round trips: %d", lingered);
        if (LINGER) {
            assertTrue(lingered > 0, "sub-poller never lingered: " + subPoller);
        } else {
            assertEquals(0, lingered, "sub-poller lingered with jdk.pollerLinger=false: " + subPoller);
        }
    }

    /**
     * One carrier: a virtual thread that yields in a loop shares it with the
     * sub-poller while round trips keep the sub-poller polling (and lingering). The
     * sub-poller polls once per turn, so the yielding thread sees at most a few polls
     * between two of its turns; a linger that polled without yielding would show its
     * whole linger (up to 16 polls). Round trips: 5000.
     */
    @Test
    void testOtherThreadsRunWhileLingering() throws Exception {
        long lingerPolls0 = pollCounter(subPoller, "lingerPolls");
        try (var pair = ChannelPair.open(listener)) {
            var done = new AtomicBoolean();
            var yielder = startVirtual("yielder", () -> {
                long maxPolls = 0, turns = 0;
                long last = pollCounter(subPoller, "polls");
                while (!done.get()) {
                    Thread.yield();
                    long now = pollCounter(subPoller, "polls");
                    maxPolls = Math.max(maxPolls, now - last);
                    last = now;
                    turns++;
                }
                log("yielder: %d turns, at most %d sub-poller polls between two turns", turns, maxPolls);
                return maxPolls;
            });
            var reader = pingPong(pair, 5000);
            reader.join("5000 round trips");
            done.set(true);
            long maxPolls = yielder.join("yielder to stop");
            assertTrue(maxPolls <= MAX_POLLS_PER_TURN, "sub-poller made " + maxPolls
                    + " polls between two turns of another virtual thread: " + subPoller);
        }
        if (LINGER)
            assertTrue(pollCounter(subPoller, "lingerPolls") > lingerPolls0,
                    "sub-poller never lingered, the test proves nothing: " + subPoller);
    }
}
