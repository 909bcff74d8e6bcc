/*
 * Copyright (c) 2026, ET-JDK contributors. All rights reserved.
 * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.
 *
 * This code is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License version 2 only, as
 * published by the Free Software Foundation.
 */

import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bulk reader: READERS virtual threads, each with its own java.net.Socket
 * to a peer in another process (BulkPeer) that streams data, read it with
 * reads of BUFFER bytes. After WARMUP seconds it switches perf's counters on
 * through perf stat's control FIFO (when given), counts the bytes and reads
 * for DURATION seconds, switches them off and prints the counts (MiB = 2^20
 * bytes).
 *
 *   java BulkReader --port P [--readers 1] [--read-buffer 8192] [--warmup-s 3]
 *        [--duration-s 10] [--perf-ctl FIFO --perf-ack FIFO]
 */
public class BulkReader {
    static volatile boolean counting, stop;
    static final LongAdder bytes = new LongAdder(), reads = new LongAdder();

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = WaitingClient.options(args, "--port", "--readers", "--read-buffer");
        int port = Integer.parseInt(opts.getOrDefault("--port", "-1"));
        int readers = Integer.parseInt(opts.getOrDefault("--readers", "1"));
        int readBuffer = Integer.parseInt(opts.getOrDefault("--read-buffer", "8192"));
        if (port < 0) throw new IllegalArgumentException("--port is required");
        var loopback = InetAddress.getLoopbackAddress();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                byte[] buf = new byte[readBuffer];
                try (Socket s = new Socket(loopback, port); InputStream in = s.getInputStream()) {
                    while (!stop) {
                        int n = in.read(buf);
                        if (n < 0) throw new RuntimeException("peer closed the connection");
                        if (counting) {
                            bytes.add(n);
                            reads.increment();
                        }
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                    System.exit(1);
                }
            }));
        }
        double secs = WaitingClient.countedWindow(opts, on -> counting = on);
        stop = true;
        WaitingClient.joinAll(threads, 30, "reader did not stop");
        double mib = bytes.sum() / 1048576.0;
        System.out.printf("MiB: %.3f%nseconds: %.3f%nMiB/s: %.1f%nreads: %d%nbytes/read: %.0f%n",
                mib, secs, mib / secs, reads.sum(), bytes.sum() / (double) Math.max(1, reads.sum()));
        System.exit(0);
    }
}
