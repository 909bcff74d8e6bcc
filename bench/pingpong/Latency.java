/*
 * Copyright (c) 2026, ET-JDK contributors. All rights reserved.
 * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.
 *
 * This code is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License version 2 only, as
 * published by the Free Software Foundation.
 */

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.util.Arrays;

/**
 * Single-connection latency: one virtual-thread client with a java.net.Socket
 * writes one byte and blocks reading the reply from PingPong's one-thread Selector
 * echo server; WARMUP round trips, then ROUND_TRIPS timed ones, each timed with
 * System.nanoTime. Prints the percentiles of the timed round trips. With perf stat's
 * control FIFOs (perf stat -D -1 --control fifo:CTL,ACK), perf counts the timed
 * round trips only.
 * <p>
 * With BUSY_US > 0 the carriers are kept busy meanwhile: a feeder virtual
 * thread keeps 2 x parallelism + 2 short virtual threads started, each
 * spinning BUSY_US microseconds, so that no carrier ever runs out of work
 * and the client's wakeups queue behind CPU-bound tasks.
 * <p>
 * With LONG_US > 0 a virtual thread on a second connection runs LONG_US
 * microseconds of CPU for every byte it reads, and a platform thread sends it a
 * byte every LONG_EVERY_MS milliseconds: a carrier that polls that reader runs
 * its long task while the client's replies keep arriving (the long-task cell).
 * <p>
 * It also prints how many warm-up round trips it made and how long they and the
 * timed round trips took, and how much CPU the JIT compiler threads and the GC
 * threads used during the timed ones (ThreadCpu): a run whose timed round trips
 * overlap compilation shares its CPUs with the compiler.
 * <p>
 * With -DLatency.warmupMillis=MS the warm-up goes on, past WARMUP round trips,
 * until MS milliseconds have passed since the client connected, so that every
 * variant's timed round trips start as long after its JVM did: a variant with
 * fast round trips does WARMUP of them while the JIT still compiles.
 * <p>
 * With -DLatency.timedMillis=MS the timed part lasts at least MS milliseconds
 * instead of ROUND_TRIPS round trips (whole batches of 1,000, so up to one batch
 * more), however many round trips that takes: a fast variant is then not timed
 * over a fraction of a second of a machine whose speed drifts. Its arrays are
 * sized from the warm-up's rate before the timed part starts.
 * <p>
 * With -DLatency.idleConnections=N, N more connections are open meanwhile, each
 * with a virtual thread parked in a read that never returns, so that more file
 * descriptors are registered with the read poller than there are carriers, as in
 * a server with many connections.
 * <p>
 * With -DLatency.readBuffer=N the client reads through a BufferedInputStream of N
 * bytes, as client libraries do: its reads of the one-byte replies are then short.
 * <p>
 * With -DLatency.slowest=N it also prints the N slowest timed round trips, each
 * with the System.nanoTime at its start, to be set beside a VM log decorated
 * with timenanos (latency.sh --max-cause).
 *
 *   java Latency [roundTrips=200000] [warmup=50000] [CTL ACK | - -] [BUSY_US=0]
 *                [LONG_US=0 LONG_EVERY_MS]
 */
public class Latency {
    public static void main(String[] args) throws Exception {
        int roundTrips = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        WaitingClient.Perf perf = args.length > 3 && !args[2].equals("-")
                ? new WaitingClient.Perf(args[2], args[3]) : null;
        long busyNanos = args.length > 4 ? Long.parseLong(args[4]) * 1000 : 0;
        if (busyNanos > 0) {
            startBusyTasks(busyNanos);
        }
        long longNanos = args.length > 6 ? Long.parseLong(args[5]) * 1000 : 0;
        if (longNanos > 0) {
            startLongTasks(longNanos, Long.parseLong(args[6]));
        }

        int idleConnections = Integer.getInteger("Latency.idleConnections", 0);
        if (idleConnections > 0) {
            startIdleConnections(idleConnections);
        }

        var loopback = InetAddress.getLoopbackAddress();
        var listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0));
        var selector = Selector.open();
        Thread.ofPlatform().name("echo-server").daemon().start(() -> PingPong.echo(listener, selector));

        long warmupMillis = Long.getLong("Latency.warmupMillis", 0);
        long timedMillis = Long.getLong("Latency.timedMillis", 0);
        if (timedMillis < 0 || warmupMillis < 0) {
            throw new IllegalArgumentException("Latency.timedMillis and Latency.warmupMillis must not be negative");
        }
        int slowestWanted = Integer.getInteger("Latency.slowest", 0);
        int readBuffer = Integer.getInteger("Latency.readBuffer", 0);
        // the timed round trips' times and starts; a timed part of fixed duration grows them
        var times = new Object() {
            long[] nanos = new long[timedMillis > 0 ? BATCH : roundTrips];
            long[] starts = slowestWanted > 0 ? new long[nanos.length] : null;
            int count;
        };
        long[] timed = new long[3];  // warm-up start, timed start, timed end (System.nanoTime)
        long[] warmupRoundTrips = new long[1];
        var cpuAtStart = new java.util.HashMap<String, Long>();
        var cpuAtEnd = new java.util.HashMap<String, Long>();
        Thread client = Thread.ofVirtual().start(() -> {
            try (Socket s = new Socket(loopback, listener.socket().getLocalPort())) {
                s.setTcpNoDelay(true);
                InputStream in = (readBuffer > 0)
                        ? new java.io.BufferedInputStream(s.getInputStream(), readBuffer)
                        : s.getInputStream();
                OutputStream out = s.getOutputStream();
                ThreadCpu.snapshot(cpuAtStart);  // loads its classes before the round trips
                timed[0] = System.nanoTime();
                long warmupEnd = timed[0] + warmupMillis * 1_000_000L;
                // The warm-up runs the same method as the timed round trips, into scratch
                // arrays, so that the timed ones start in the code it compiled: a branch
                // that only the timed part takes would deoptimize the client's loop there.
                long[] scratch = new long[BATCH];
                long[] scratchStarts = times.starts != null ? new long[BATCH] : null;
                while (warmupRoundTrips[0] < warmup || System.nanoTime() - warmupEnd < 0) {
                    long left = warmup - warmupRoundTrips[0];
                    int n = (int) (left > 0 ? Math.min(BATCH, left) : BATCH);
                    roundTrips(in, out, scratch, scratchStarts, 0, n);
                    warmupRoundTrips[0] += n;
                }
                if (timedMillis > 0) {
                    // sized from the warm-up's rate, so that the timed part rarely grows them
                    long warmupNanos = Math.max(1, System.nanoTime() - timed[0]);
                    long expected = warmupRoundTrips[0] * timedMillis * 1_500_000L / warmupNanos;
                    int capacity = (int) Math.min(1 << 28, Math.max(BATCH, (expected / BATCH + 1) * BATCH));
                    times.nanos = new long[capacity];
                    if (times.starts != null) times.starts = new long[capacity];
                }
                ThreadCpu.snapshot(cpuAtStart);
                if (perf != null) perf.command("enable");
                timed[1] = System.nanoTime();
                if (timedMillis == 0) {
                    roundTrips(in, out, times.nanos, times.starts, 0, roundTrips);
                    times.count = roundTrips;
                } else {
                    long timedEnd = timed[1] + timedMillis * 1_000_000L;
                    do {
                        if (times.count == times.nanos.length) {
                            times.nanos = Arrays.copyOf(times.nanos, 2 * times.count);
                            if (times.starts != null) times.starts = Arrays.copyOf(times.starts, 2 * times.count);
                        }
                        roundTrips(in, out, times.nanos, times.starts, times.count, BATCH);
                        times.count += BATCH;
                    } while (System.nanoTime() - timedEnd < 0);
                }
                timed[2] = System.nanoTime();
                if (perf != null) perf.command("disable");
                ThreadCpu.snapshot(cpuAtEnd);
            } catch (Exception e) {
                e.printStackTrace();
                System.exit(1);
            }
        });
        // watchdog: the warm-up and timed parts asked for, plus 10 minutes
        var limit = java.time.Duration.ofMillis(warmupMillis + timedMillis).plusMinutes(10);
        if (!client.join(limit)) {
            System.err.println("client did not finish its round trips in " + limit.toSeconds() + " s");
            System.exit(1);
        }
        int count = times.count;
        long[] nanos = Arrays.copyOf(times.nanos, count);
        if (times.starts != null) {
            printSlowest(nanos, Arrays.copyOf(times.starts, count), Math.min(count, slowestWanted));
        }
        Arrays.sort(nanos);
        if (busyNanos > 0) {
            System.out.printf("busy tasks: %d%n", busyTasks.sum());
        }
        if (!idleReaders.isEmpty()) {
            System.out.printf("idle connections still read: %d%n",
                    idleReaders.stream().filter(Thread::isAlive).count());
        }
        if (longNanos > 0) {
            System.out.printf("long tasks: %d%n", longTasks.sum());
        }
        System.out.printf("round trips: %d%n", count);
        // the nearest-rank percentile, in whole per-mille: 99.9 / 100 in doubles is above 0.999
        for (int perMille : new int[] { 500, 900, 990, 999 }) {
            int i = (int) Math.min(count - 1, (perMille * (long) count + 999) / 1000 - 1);
            System.out.printf("p%s us: %.2f%n", perMille == 999 ? "99.9" : Integer.toString(perMille / 10),
                    nanos[i] / 1e3);
        }
        System.out.printf("max us: %.2f%n", nanos[count - 1] / 1e3);
        System.out.printf("warmup round trips: %d%n", warmupRoundTrips[0]);
        System.out.printf("warmup ms: %.1f%n", (timed[1] - timed[0]) / 1e6);
        System.out.printf("timed ms: %.1f%n", (timed[2] - timed[1]) / 1e6);
        for (String group : ThreadCpu.GROUPS) {
            System.out.printf("%s cpu ms in timed: %s%n", group, ThreadCpu.used(group, cpuAtStart, cpuAtEnd));
        }
        System.exit(0);
    }

    /** Round trips per batch of the warm-up and of a timed part of fixed duration. */
    private static final int BATCH = 1000;

    /**
     * Does n round trips; the time of round trip k goes to nanos[from + k], and its
     * start to starts[from + k] unless starts is null.
     */
    private static void roundTrips(InputStream in, OutputStream out, long[] nanos, long[] starts,
                                   int from, int n) throws java.io.IOException {
        for (int k = from; k < from + n; k++) {
            long t0 = System.nanoTime();
            out.write(k);
            if (in.read() != (k & 0xff)) throw new RuntimeException("bad reply");
            nanos[k] = System.nanoTime() - t0;
            if (starts != null) starts[k] = t0;
        }
    }

    /** Prints the n slowest round trips, slowest first: "slow round trip: START_NS US". */
    private static void printSlowest(long[] nanos, long[] starts, int n) {
        Integer[] order = new Integer[nanos.length];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, (a, b) -> Long.compare(nanos[b], nanos[a]));
        for (int k = 0; k < n; k++) {
            System.out.printf("slow round trip: %d %.2f%n", starts[order[k]], nanos[order[k]] / 1e3);
        }
    }

    static final java.util.concurrent.atomic.LongAdder busyTasks = new java.util.concurrent.atomic.LongAdder();
    static final java.util.concurrent.atomic.LongAdder longTasks = new java.util.concurrent.atomic.LongAdder();

    private static final java.util.List<Socket> idlePeers = new java.util.ArrayList<>();
    private static final java.util.List<Thread> idleReaders = new java.util.ArrayList<>();

    /**
     * Opens count connections, each read by a virtual thread that parks until the
     * JVM exits (the peers, kept in idlePeers, never write).
     */
    private static void startIdleConnections(int count) throws Exception {
        var loopback = InetAddress.getLoopbackAddress();
        try (var listener = new java.net.ServerSocket(0, count, loopback)) {
            var parked = new java.util.concurrent.CountDownLatch(count);
            for (int i = 0; i < count; i++) {
                Socket reader = new Socket(loopback, listener.getLocalPort());
                idlePeers.add(listener.accept());
                idleReaders.add(Thread.ofVirtual().start(() -> {
                    try (InputStream in = reader.getInputStream()) {
                        parked.countDown();
                        if (in.read() >= 0) {
                            throw new IllegalStateException("an idle connection read a byte");
                        }
                    } catch (Exception e) {
                        e.printStackTrace();
                        System.exit(1);
                    }
                }));
            }
            parked.await();     // started; their reads park shortly after
        }
    }

    private static void startLongTasks(long longNanos, long everyMillis) throws Exception {
        var loopback = InetAddress.getLoopbackAddress();
        var listener = new java.net.ServerSocket(0, 1, loopback);
        Socket ticker = new Socket(loopback, listener.getLocalPort());
        Socket reader = listener.accept();
        listener.close();
        ticker.setTcpNoDelay(true);
        Thread.ofVirtual().start(() -> {
            try (InputStream in = reader.getInputStream()) {
                while (in.read() >= 0) {
                    long end = System.nanoTime() + longNanos;
                    while (System.nanoTime() - end < 0) {
                        Thread.onSpinWait();
                    }
                    longTasks.increment();
                }
            } catch (Exception e) {
                e.printStackTrace();
                System.exit(1);
            }
        });
        Thread.ofPlatform().name("long-task-ticker").daemon().start(() -> {
            try (OutputStream out = ticker.getOutputStream()) {
                while (true) {
                    Thread.sleep(everyMillis);  // pacing the stimulus
                    out.write(1);
                }
            } catch (Exception e) {
                e.printStackTrace();
                System.exit(1);
            }
        });
    }

    private static void startBusyTasks(long busyNanos) {
        int parallelism = Integer.getInteger("jdk.virtualThreadScheduler.parallelism",
                Runtime.getRuntime().availableProcessors());
        var inFlight = new java.util.concurrent.Semaphore(2 * parallelism + 2);
        Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    inFlight.acquire();
                    Thread.ofVirtual().start(() -> {
                        long end = System.nanoTime() + busyNanos;
                        while (System.nanoTime() - end < 0) {
                            Thread.onSpinWait();
                        }
                        busyTasks.increment();
                        inFlight.release();
                    });
                }
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
    }

    /**
     * CPU time of the JVM's own compiler and GC threads, from
     * /proc/self/task/TID/schedstat (its first field: nanoseconds on a CPU), keyed by
     * group and thread id. Names are as the kernel has them, 15 characters at most,
     * which JDK 27 shortens in the middle ("C2 Comp..hread0") and JDK 25 at the end
     * ("C2 CompilerThre"). GC threads: G1's and Parallel's ("GC Thread#0", "G1 ...");
     * Serial GC runs in the VM thread, ZGC's are not matched. It reads with java.io,
     * not NIO: a file read in NIO's read path, which the sockets use, would change the
     * type profiles of the round trips' compiled code.
     */
    static final class ThreadCpu {
        static final String[] GROUPS = { "compiler", "gc" };

        static void snapshot(java.util.Map<String, Long> nanos) {
            nanos.clear();
            String[] tasks = new java.io.File("/proc/self/task").list();
            for (String tid : tasks != null ? tasks : new String[0]) {
                String group = group(read("/proc/self/task/" + tid + "/comm"));
                String schedstat = read("/proc/self/task/" + tid + "/schedstat");
                if (group != null && !schedstat.isEmpty()) {
                    nanos.put(group + "/" + tid, Long.parseLong(schedstat.split(" ")[0]));
                }
            }
        }

        /**
         * The CPU ms the group's threads used between the two snapshots, summed per
         * thread (a thread that ended meanwhile counts nothing), or "n/a" if no thread
         * of the group was found.
         */
        static String used(String group, java.util.Map<String, Long> start, java.util.Map<String, Long> end) {
            long nanos = 0;
            boolean found = false;
            for (var e : end.entrySet()) {
                if (e.getKey().startsWith(group + "/")) {
                    found = true;
                    nanos += e.getValue() - start.getOrDefault(e.getKey(), 0L);
                }
            }
            return found ? String.format("%.1f", nanos / 1e6) : "n/a";
        }

        private static String group(String comm) {
            if (comm.startsWith("C1 Comp") || comm.startsWith("C2 Comp")) return "compiler";
            if (comm.startsWith("GC Thread") || comm.startsWith("G1 ")) return "gc";
            return null;
        }

        private static String read(String path) {
            try (var in = new java.io.FileInputStream(path)) {
                return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII).trim();
            } catch (java.io.IOException e) {
                return "";  // the thread ended meanwhile
            }
        }
    }
}
