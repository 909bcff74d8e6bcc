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

import java.io.Closeable;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import static etjdk.poller.PollerTestSupport.*;

/**
 * The fixture of the edge-triggered poller tests, registered as a static
 * {@code @RegisterExtension} field. Before all tests: a loopback listener and a
 * warm-up read in a virtual thread, which starts the pollers; the number of
 * file descriptors registered then is the baseline. After each test: the
 * pollers are consistent and back to the baseline
 * ({@link PollerTestSupport#assertConsistent}). After all tests: the listener
 * is closed and the pollers are dumped.
 */
public final class PollerFixture<L extends Closeable>
        implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    public interface Opener<L> {
        L open() throws Exception;
    }

    public interface WarmUp<L> {
        void run(L listener) throws Exception;
    }

    private final Opener<L> opener;
    private final WarmUp<L> warmUp;
    private L listener;
    private int baseline;

    private PollerFixture(Opener<L> opener, WarmUp<L> warmUp) {
        this.opener = opener;
        this.warmUp = warmUp;
    }

    /**
     * A fixture whose listener {@code opener} opens and whose warm-up read
     * {@code warmUp} does, with that listener.
     */
    public static <L extends Closeable> PollerFixture<L> of(Opener<L> opener, WarmUp<L> warmUp) {
        return new PollerFixture<>(opener, warmUp);
    }

    /** The listener, open from before the first test to after the last. */
    public L listener() {
        return listener;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        listener = opener.open();
        warmUp.run(listener);
        baseline = registeredCount();
        log("edge-triggered requested: %s, pollerMode: '%s', read pollers: %d, edge-triggered: %s, baseline: %d",
                ET_REQUESTED, POLLER_MODE, readPollers().size(), edgeTriggered(), baseline);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        assertConsistent("after " + context.getDisplayName(), baseline);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (listener != null) {
            listener.close();
        }
        dumpPollers();
    }
}
