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
 * @summary Carrier polling (jdk.pollerMode=4): when the pool cannot start a
 *     carrier for a task (the process's thread limit is reached), the carrier
 *     blocked in the poller is woken and runs it. Needs root and the cgroup v1
 *     pids controller (skipped otherwise)
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library lib /test/lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.virtualThreadScheduler.parallelism=2 -XX:+UseSerialGC
 *     -XX:-UseDynamicNumberOfCompilerThreads CarrierPollingCreateWorkerFails
 */

/*
 * @test id=mode4-oneshot-p2
 * @requires os.family == "linux" & vm.continuations
 * @requires test.thread.factory == null
 * @library lib /test/lib
 * @modules java.base/sun.nio.ch
 * @run main/othervm/timeout=300 -Djdk.pollerMode=4 -Djdk.pollerSpinMicros=0
 *     -Djdk.pollerEdgeTriggered=false -Djdk.virtualThreadScheduler.parallelism=2
 *     -XX:+UseSerialGC -XX:-UseDynamicNumberOfCompilerThreads
 *     CarrierPollingCreateWorkerFails
 */

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

import jtreg.SkippedException;

import static etjdk.poller.CarrierPollerWaits.*;

/**
 * The pool's only carrier blocks in the poller, one below parallelism, so a task
 * submitted from outside makes the pool start a carrier rather than wake it. The
 * test moves the process into a pids cgroup whose limit is the threads it has,
 * so that start fails, and unparks a parked virtual thread from a platform
 * thread. The virtual thread must run: the failed start wakes the carrier in the
 * poller. Without that wakeup nothing else would: no I/O comes and the watchdog
 * leaves a poller held by a blocked carrier alone.
 */
// The main thread must be a platform thread (test.thread.factory == null): it
// watches the carriers, which a virtual main thread would hold or need.
public class CarrierPollingCreateWorkerFails {
    private static final Path PIDS = Path.of("/sys/fs/cgroup/pids");

    public static void main(String[] args) throws Exception {
        Path home = pidsCgroup();
        if (home == null || !Files.isWritable(home.resolve("cgroup.procs"))) {
            throw new SkippedException("needs root and the cgroup v1 pids controller at "
                    + PIDS + " to limit the process's threads");
        }
        ThreadLimit.removeStale(home);

        // the first virtual thread starts the pool's only carrier; it parks
        var unparked = new AtomicBoolean();
        Thread parked = Thread.ofVirtual().start(() -> {
            while (!unparked.get()) {
                LockSupport.park();
            }
        });
        awaitParked(parked, "the first virtual thread to park");
        // the reader's start must release that carrier, not start a second one
        await(() -> carrierThreads().stream().allMatch(t ->
                        t.getState() == Thread.State.WAITING
                        || t.getState() == Thread.State.TIMED_WAITING),
                "the pool's only carrier to park idle");
        try (var reader = new Reader()) {
            awaitParked(reader.thread, "the reader to park in its read");
            awaitPollerState("BLOCKING", "the only carrier to block in the poller after"
                    + " the reader parked");
            if (carriers() != 1) {
                throw new RuntimeException("needs the pool's only carrier, found "
                        + carriers() + "; read pollers: " + readPollers());
            }

            var go = new CountDownLatch(1);
            Thread unparker = Thread.ofPlatform().name("unparker").daemon().start(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
                // the pool's start of a carrier fails; unpark retries every 100 ms
                // until a start succeeds, after the test has left the cgroup
                unparked.set(true);
                LockSupport.unpark(parked);
            });

            try (var limit = ThreadLimit.enter(home)) {
                limit.check();
                go.countDown();
                join(parked, "the virtual thread unparked while the pool could not start"
                        + " a carrier to run when its only carrier, blocked in the poller,"
                        + " is woken");
                if (carriers() != 1) {
                    throw new RuntimeException("the pool started a carrier in " + limit
                            + ": " + carrierThreads());
                }
            }
            join(unparker, "the unpark to return after the process left the cgroup");
            if (carriers() != 1 && carriers() != 2) {
                throw new RuntimeException("carriers: " + carriers());
            }

            reader.peer.write(ByteBuffer.wrap(new byte[] { 7 }));
            join(reader.thread, "the reader to read its byte");
            System.out.println("ran the unparked virtual thread while no carrier could be"
                    + " started; read pollers: " + readPollers());
        }
    }

    /** The process's cgroup in the v1 pids hierarchy, or null if there is none. */
    static Path pidsCgroup() throws IOException {
        if (!Files.isDirectory(PIDS)) {
            return null;
        }
        for (String line : Files.readAllLines(Path.of("/proc/self/cgroup"))) {
            String[] f = line.split(":", 3);   // id:controllers:path
            if (f.length == 3 && List.of(f[1].split(",")).contains("pids")) {
                return Path.of(PIDS + f[2]);
            }
        }
        return null;
    }

    /**
     * The process in a new pids cgroup, a child of its own, limited to its threads
     * at entry, so that no thread can start; close moves it back and removes the
     * cgroup.
     */
    static final class ThreadLimit implements AutoCloseable {
        private static final String PREFIX = "et-jdk-create-worker-fails-";
        private final Path home;
        private final Path dir;

        private ThreadLimit(Path home, Path dir) {
            this.home = home;
            this.dir = dir;
        }

        /** Removes the empty cgroups of earlier runs that were killed. */
        static void removeStale(Path home) throws IOException {
            try (var dirs = Files.newDirectoryStream(home, PREFIX + "*")) {
                for (Path d : dirs) {
                    try {
                        Files.delete(d);
                    } catch (IOException e) {
                        System.out.println("left " + d + ": " + e);   // still in use
                    }
                }
            }
        }

        static ThreadLimit enter(Path home) throws IOException {
            Path dir = home.resolve(PREFIX + ProcessHandle.current().pid());
            Files.createDirectory(dir);
            var limit = new ThreadLimit(home, dir);
            try {
                String pid = Long.toString(ProcessHandle.current().pid());
                Files.writeString(dir.resolve("cgroup.procs"), pid);
                String current = Files.readString(dir.resolve("pids.current")).strip();
                Files.writeString(dir.resolve("pids.max"), current);
            } catch (IOException | RuntimeException e) {
                try {
                    limit.close();
                } catch (IOException | RuntimeException e2) {
                    e.addSuppressed(e2);
                }
                throw e;
            }
            return limit;
        }

        /** Checks that a thread cannot start. */
        void check() {
            try {
                Thread t = new Thread(() -> { });
                t.start();
            } catch (OutOfMemoryError expected) {
                return;
            }
            throw new RuntimeException("a thread started in " + dir
                    + " limited to the process's threads");
        }

        @Override
        public String toString() {
            return dir.toString();
        }

        @Override
        public void close() throws IOException {
            String pid = Long.toString(ProcessHandle.current().pid());
            Files.writeString(home.resolve("cgroup.procs"), pid);
            Files.delete(dir);
        }
    }

    /** A virtual thread reading one byte from a connection; the test writes it. */
    static final class Reader implements AutoCloseable {
        final SocketChannel channel;
        final SocketChannel peer;
        final Thread thread;

        Reader() throws IOException {
            var loopback = InetAddress.getLoopbackAddress();
            try (var listener = ServerSocketChannel.open()
                    .bind(new InetSocketAddress(loopback, 0))) {
                channel = SocketChannel.open(listener.getLocalAddress());
                peer = listener.accept();
            }
            thread = Thread.ofVirtual().start(() -> {
                try {
                    channel.read(ByteBuffer.allocate(1));
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
        }

        @Override
        public void close() throws IOException {
            channel.close();
            peer.close();
        }
    }
}
