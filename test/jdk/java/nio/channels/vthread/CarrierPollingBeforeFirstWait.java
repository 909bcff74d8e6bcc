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
 * @summary Carrier polling (jdk.pollerMode=4) before any virtual thread has waited
 *     in the read poller: a carrier's scan still ends, so virtual threads that
 *     yield in a loop do not keep it from a thread started after them
 * @requires os.family == "linux" & vm.continuations
 * @library lib /test/lib
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4
 *     -Djdk.virtualThreadScheduler.parallelism=1 CarrierPollingBeforeFirstWait
 */

/*
 * @test id=mode4-p2
 * @summary As mode4-p1 with two carriers (a smoke test: an unbounded scan hangs
 *     here only if both carriers are taken by yielders)
 * @requires os.family == "linux" & vm.continuations
 * @library lib /test/lib
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4
 *     -Djdk.virtualThreadScheduler.parallelism=2 CarrierPollingBeforeFirstWait
 */

import etjdk.poller.YieldersInTurn;
import jdk.test.lib.Utils;

/**
 * No I/O in this JVM: the poller never has a waiter. Each round, two virtual threads
 * per carrier yield until a virtual thread, started once they have all yielded, sets
 * a flag. A scan that ran its queue until empty would run two yielders in turn
 * forever (as JDK 27+34 does without carrier polling).
 */
public class CarrierPollingBeforeFirstWait {
    private static final int ROUNDS = 2_000;
    // a round that lasts this long is a hang: the message says what did not happen
    private static final long WATCHDOG_SECONDS = Utils.adjustTimeout(20);

    public static void main(String[] args) throws Exception {
        int yielders = 2 * Integer.getInteger("jdk.virtualThreadScheduler.parallelism", 1);
        YieldersInTurn.run("before the first wait in the poller", ROUNDS, yielders,
                WATCHDOG_SECONDS);
        System.out.println(ROUNDS + " rounds of " + yielders + " yielders and a releaser");
    }
}
