/*
 * Copyright (c) 2026, ET-JDK contributors. All rights reserved.
 * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.
 *
 * This code is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License version 2 only, as
 * published by the Free Software Foundation.
 */

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * No I/O, all CPU: ROOTS driver threads each run fork/join trees of virtual
 * threads, one after another. A tree node starts a virtual thread for each of
 * its two children and joins both; a leaf (a "task") computes LEAF_ITERS steps
 * of an integer hash. No sockets are opened, so any cost a poller mode adds
 * here is a cost for applications that do no I/O. After WARMUP seconds it
 * switches perf's counters on through perf stat's control FIFO (when given),
 * counts the leaves completed for DURATION seconds, switches them off and
 * prints the count.
 *
 *   java ComputeTasks [--roots 4] [--depth 10] [--leaf-iters 5000]
 *        [--warmup-s 3] [--duration-s 10] [--perf-ctl FIFO --perf-ack FIFO]
 */
public class ComputeTasks {
    static volatile boolean stop;
    static final LongAdder leaves = new LongAdder();
    static volatile long sink;

    public static void main(String[] args) throws Exception {
        int roots = 4, depth = 10, leafIters = 5_000;
        double warmup = 3, duration = 10;
        String ctl = null, ack = null;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--roots" -> roots = Integer.parseInt(v);
                case "--depth" -> depth = Integer.parseInt(v);
                case "--leaf-iters" -> leafIters = Integer.parseInt(v);
                case "--warmup-s" -> warmup = Double.parseDouble(v);
                case "--duration-s" -> duration = Double.parseDouble(v);
                case "--perf-ctl" -> ctl = v;
                case "--perf-ack" -> ack = v;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        final int fdepth = depth, fiters = leafIters;
        List<Thread> drivers = new ArrayList<>();
        for (int r = 0; r < roots; r++) {
            drivers.add(Thread.ofVirtual().start(() -> {
                try {
                    while (!stop) {
                        node(fdepth, fiters);
                    }
                } catch (Throwable e) {
                    e.printStackTrace();
                    System.exit(1);
                }
            }));
        }
        Thread.sleep((long) (warmup * 1000));
        WaitingClient.Perf perf = ctl == null ? null : new WaitingClient.Perf(ctl, ack);
        if (perf != null) perf.command("enable");
        long n0 = leaves.sum();
        long t0 = System.nanoTime();
        Thread.sleep((long) (duration * 1000));
        long n1 = leaves.sum();
        long t1 = System.nanoTime();
        if (perf != null) perf.command("disable");
        stop = true;
        for (Thread t : drivers) {
            if (!t.join(java.time.Duration.ofSeconds(60))) {
                System.err.println("driver did not finish its tree in 60 s: " + t);
                System.exit(1);
            }
        }
        double secs = (t1 - t0) / 1e9;
        long n = n1 - n0;
        System.out.printf("tasks: %d%nseconds: %.3f%ntasks/s: %.0f%n", n, secs, n / secs);
        System.exit(0);
    }

    static void node(int depth, int iters) throws InterruptedException {
        if (depth == 0) {
            leaf(iters);
            return;
        }
        Thread left = Thread.ofVirtual().start(() -> subtree(depth - 1, iters));
        Thread right = Thread.ofVirtual().start(() -> subtree(depth - 1, iters));
        left.join();
        right.join();
    }

    static void subtree(int depth, int iters) {
        try {
            node(depth, iters);
        } catch (InterruptedException e) {
            throw new IllegalStateException("interrupted", e);
        }
    }

    static void leaf(int iters) {
        long h = Thread.currentThread().threadId();
        for (int i = 0; i < iters; i++) {
            h = h * 6364136223846793005L + 1442695040888963407L;
            h ^= h >>> 29;
        }
        sink = h;
        leaves.increment();
    }
}
