/*
 * Copyright (c) 2026, ET-JDK contributors. All rights reserved.
 * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.
 *
 * This code is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License version 2 only, as
 * published by the Free Software Foundation.
 */

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The "waiting client": CLIENTS virtual threads, each with its own
 * java.net.Socket to a peer in another process (DelayPeer), write a request
 * of SIZE bytes and block reading the 1-byte reply (through a BufferedInputStream
 * of BUFFER bytes, as client libraries read, if BUFFER > 0), which the peer sends after
 * a fixed delay, so that the JVM idles between replies. After WARMUP seconds
 * it switches perf's counters on through perf stat's control FIFO (when
 * given), counts the requests completed for DURATION seconds, switches them
 * off and prints the count.
 *
 *   java WaitingClient --port P [--clients 100] [--size 1] [--read-buffer 0] [--warmup-s 3]
 *        [--duration-s 10] [--perf-ctl FIFO --perf-ack FIFO]
 */
public class WaitingClient {
    static volatile boolean counting, stop;
    static final LongAdder done = new LongAdder();

    public static void main(String[] args) throws Exception {
        int port = -1, clients = 100, size = 1, readBuffer = 0;
        double warmup = 3, duration = 10;
        String ctl = null, ack = null;
        for (int i = 0; i < args.length; i += 2) {
            String v = args[i + 1];
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(v);
                case "--clients" -> clients = Integer.parseInt(v);
                case "--size" -> size = Integer.parseInt(v);
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
        final int fport = port;
        final byte[] request = new byte[size];
        final int fbuffer = readBuffer;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try (Socket s = new Socket(loopback, fport)) {
                    s.setTcpNoDelay(true);
                    InputStream in = (fbuffer > 0)
                            ? new java.io.BufferedInputStream(s.getInputStream(), fbuffer)
                            : s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    while (!stop) {
                        out.write(request);
                        if (in.read() < 0) throw new RuntimeException("peer closed the connection");
                        if (counting) done.increment();
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                    System.exit(1);
                }
            }));
        }
        Thread.sleep((long) (warmup * 1000));
        Perf perf = ctl == null ? null : new Perf(ctl, ack);
        if (perf != null) perf.command("enable");
        counting = true;
        long t0 = System.nanoTime();
        Thread.sleep((long) (duration * 1000));
        counting = false;
        long t1 = System.nanoTime();
        if (perf != null) perf.command("disable");
        long n = done.sum();
        stop = true;
        for (Thread t : threads) {
            if (!t.join(java.time.Duration.ofSeconds(30))) {
                System.err.println("client did not stop in 30 s: " + t);
                System.exit(1);
            }
        }
        double secs = (t1 - t0) / 1e9;
        System.out.printf("requests: %d%nseconds: %.3f%nrequests/s: %.0f%n", n, secs, n / secs);
        System.exit(0);
    }

    /** perf stat --control fifo:CTL,ACK: write a command, wait for "ack". */
    static final class Perf {  // also used by Latency
        final OutputStream ctl;
        final BufferedReader ack;
        Perf(String ctlPath, String ackPath) throws Exception {
            ctl = new FileOutputStream(ctlPath);
            ack = new BufferedReader(new InputStreamReader(new FileInputStream(ackPath), StandardCharsets.US_ASCII));
        }
        void command(String c) throws Exception {
            ctl.write((c + "\n").getBytes(StandardCharsets.US_ASCII));
            ctl.flush();
            String line = ack.readLine();
            if (line == null || !line.contains("ack")) throw new IllegalStateException("perf answered " + line + " to " + c);
        }
    }
}
