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
import java.util.Map;
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
        Map<String, String> opts = WaitingClient.options(args, "--roots", "--depth", "--leaf-iters");
        int roots = Integer.parseInt(opts.getOrDefault("--roots", "4"));
        int depth = Integer.parseInt(opts.getOrDefault("--depth", "10"));
        int leafIters = Integer.parseInt(opts.getOrDefault("--leaf-iters", "5000"));
        List<Thread> drivers = new ArrayList<>();
        for (int r = 0; r < roots; r++) {
            drivers.add(Thread.ofVirtual().start(() -> {
                try {
                    while (!stop) {
                        node(depth, leafIters);
                    }
                } catch (Throwable e) {
                    e.printStackTrace();
                    System.exit(1);
                }
            }));
        }
        long[] leavesAt = new long[2];  // at the window's start and end
        double secs = WaitingClient.countedWindow(opts, on -> leavesAt[on ? 0 : 1] = leaves.sum());
        stop = true;
        WaitingClient.joinAll(drivers, 60, "driver did not finish its tree");
        long n = leavesAt[1] - leavesAt[0];
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
