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
        int port = -1, readers = 1, readBuffer = 8192;
        double warmup = 3, duration = 10;
        String ctl = null, ack = null;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(v);
                case "--readers" -> readers = Integer.parseInt(v);
                case "--read-buffer" -> readBuffer = Integer.parseInt(v);
                case "--warmup-s" -> warmup = Double.parseDouble(v);
                case "--duration-s" -> duration = Double.parseDouble(v);
                case "--perf-ctl" -> ctl = v;
                case "--perf-ack" -> ack = v;
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (port < 0) throw new IllegalArgumentException("--port is required");
        var loopback = InetAddress.getLoopbackAddress();
        final int fport = port, fbuffer = readBuffer;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < readers; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                byte[] buf = new byte[fbuffer];
                try (Socket s = new Socket(loopback, fport); InputStream in = s.getInputStream()) {
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
        Thread.sleep((long) (warmup * 1000));
        var perf = ctl == null ? null : new WaitingClient.Perf(ctl, ack);
        if (perf != null) perf.command("enable");
        counting = true;
        long t0 = System.nanoTime();
        Thread.sleep((long) (duration * 1000));
        counting = false;
        long t1 = System.nanoTime();
        if (perf != null) perf.command("disable");
        stop = true;
        for (Thread t : threads) {
            if (!t.join(java.time.Duration.ofSeconds(30))) {
                System.err.println("reader did not stop in 30 s: " + t);
                System.exit(1);
            }
        }
        double secs = (t1 - t0) / 1e9, mib = bytes.sum() / 1048576.0;
        System.out.printf("MiB: %.3f%nseconds: %.3f%nMiB/s: %.1f%nreads: %d%nbytes/read: %.0f%n",
                mib, secs, mib / secs, reads.sum(), bytes.sum() / (double) Math.max(1, reads.sum()));
        System.exit(0);
    }
}
