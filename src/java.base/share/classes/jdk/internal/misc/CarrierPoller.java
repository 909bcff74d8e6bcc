/*
 * Copyright (c) 2026, ET-JDK contributors. All rights reserved.
 * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.
 *
 * This code is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License version 2 only, as
 * published by the Free Software Foundation.  Oracle designates this
 * particular file as subject to the "Classpath" exception as provided
 * by Oracle in the LICENSE file that accompanied this code.
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
 *
 * Please contact Oracle, 500 Oracle Parkway, Redwood Shores, CA 94065 USA
 * or visit www.oracle.com if you need additional information or have any
 * questions.
 */
package jdk.internal.misc;

/**
 * An I/O poller that the idle carrier threads of the default virtual-thread scheduler
 * wait in ({@code -Djdk.pollerMode=4}), so that a virtual thread whose file
 * descriptor becomes ready is continued by the carrier that polled it, with no
 * poller thread in between. {@code ForkJoinPool} calls it; {@code sun.nio.ch.Poller}
 * implements it and installs it when the pollers start.
 *
 * <p> At most one thread at a time holds the poller: a carrier that blocks in it
 * or a thread that polls it without blocking. The wake protocol, which keeps a
 * queued task from waiting behind a carrier blocked in the poller:
 * <ol>
 * <li> An idle carrier takes the poller ({@link #tryBlock()}, a full fence) before
 *      it leaves the pool's idle stack, and then blocks ({@link #poll(boolean)}).
 *      An implementation may have it poll without blocking first, or yield its
 *      CPU; it then ends that with a compare-and-set that fails once the carrier
 *      was woken, so that the carrier does not block then.
 * <li> A thread that queues a task and finds no idle carrier on the stack to release,
 *      and either no room to start one or a carrier it starts that fails to start
 *      or to register ({@code ForkJoinPool.signalWork, deregisterWorker}), calls
 *      {@link #wakeup()}, which wakes the blocked poll, at most once per block: it
 *      marks the carrier woken, and writes the poller's eventfd only if the
 *      carrier may be blocked in the kernel.
 * <li> A carrier that blocks in a compensated operation and finds no idle carrier
 *      on the stack to take its place ({@code ForkJoinPool.tryCompensate}) wakes
 *      the carrier blocked in the poller instead, if there is one.
 * </ol>
 * A releaser that still finds the carrier on the stack releases it, and the carrier
 * then does not block; one that no longer finds it there sees the poller taken.
 */
public abstract class CarrierPoller {
    /**
     * True if {@code -Djdk.pollerMode=4}. When false, a constant, so the pool's
     * checks fold away.
     */
    public static final boolean ENABLED = "4".equals(System.getProperty("jdk.pollerMode"));

    private static volatile CarrierPoller instance;

    protected CarrierPoller() { }

    /**
     * Returns the carrier poller, or null if it is not installed (yet).
     */
    public static CarrierPoller instance() {
        return instance;
    }

    /**
     * Installs the carrier poller.
     * @throws IllegalStateException if already installed
     */
    public static synchronized void install(CarrierPoller poller) {
        if (instance != null)
            throw new IllegalStateException();
        instance = poller;
    }

    /**
     * Returns true if a virtual thread ever waited for a file descriptor with this
     * poller, and polling has not failed; otherwise an idle carrier parks rather
     * than polls, and busy carriers do not poll (see
     * ForkJoinPool.CARRIER_POLL_SCAN_MAX).
     */
    public abstract boolean hasWaiters();

    /**
     * Takes the poller, to block in it, if no other thread holds it. If this method
     * returns true, the caller then calls {@link #poll(boolean)} or
     * {@link #cancelBlock()}.
     * @return true if taken
     */
    public abstract boolean tryBlock();

    /**
     * Polls, blocking unless {@code block} is false or {@link #wakeup()} was
     * called since {@link #tryBlock()}, then releases the poller. The virtual
     * threads whose file descriptors are ready are made runnable on the current
     * carrier's queue without signalling another carrier. Invoked only by the
     * thread whose {@code tryBlock} returned true; does not throw.
     * @return the number of file descriptors polled
     */
    public abstract int poll(boolean block);

    /**
     * Releases the poller taken by {@link #tryBlock()} without polling. Invoked only
     * by the thread whose {@code tryBlock} returned true.
     */
    public abstract void cancelBlock();

    /**
     * Returns true if a carrier is blocked (or about to block) in the poller and
     * was not woken since.
     */
    public abstract boolean isBlocked();

    /**
     * Wakes the blocked poll, if a carrier is blocked (or about to block) in it
     * and was not woken since.
     */
    public abstract void wakeup();

    /**
     * Polls without blocking, if no other thread holds the poller and either
     * {@code idle} is true or the last poll is long enough ago; the virtual threads
     * whose file descriptors are ready are made runnable on the current carrier's
     * queue, as by {@link #poll(boolean)}. Invoked by a carrier when it starts a scan
     * of the pool's queues for a task and every so many tasks in it (see
     * ForkJoinPool.CARRIER_POLL_STAY), or with {@code idle} true when it found no
     * task to run and is about to go idle; does not throw.
     */
    public abstract void pollBetweenTasks(boolean idle);

    /**
     * Invoked by a carrier each time a backlog holds its poll between tasks back
     * until its turn (see ForkJoinPool.CarrierPollTurn), so that a poller that
     * polls when no carrier has for a while may leave the poll to it, for a bounded
     * time, rather than take readiness in ahead of the backlog. Does not throw.
     */
    public abstract void deferPoll();
}
