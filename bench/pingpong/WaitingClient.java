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
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

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
        Map<String, String> opts = options(args, "--port", "--clients", "--size", "--read-buffer");
        int port = Integer.parseInt(opts.getOrDefault("--port", "-1"));
        int clients = Integer.parseInt(opts.getOrDefault("--clients", "100"));
        int size = Integer.parseInt(opts.getOrDefault("--size", "1"));
        int readBuffer = Integer.parseInt(opts.getOrDefault("--read-buffer", "0"));
        if (port < 0) throw new IllegalArgumentException("--port is required");
        var loopback = InetAddress.getLoopbackAddress();
        final byte[] request = new byte[size];
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < clients; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try (Socket s = new Socket(loopback, port)) {
                    s.setTcpNoDelay(true);
                    InputStream in = (readBuffer > 0)
                            ? new java.io.BufferedInputStream(s.getInputStream(), readBuffer)
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
        double secs = countedWindow(opts, on -> counting = on);
        long n = done.sum();
        stop = true;
        joinAll(threads, 30, "client did not stop");
        System.out.printf("requests: %d%nseconds: %.3f%nrequests/s: %.0f%n", n, secs, n / secs);
        System.exit(0);
    }

    /**
     * Parses "--name value" pairs into a map. Every name must be one of names
     * or of the counted window's: --warmup-s, --duration-s, --perf-ctl, --perf-ack.
     */
    static Map<String, String> options(String[] args, String... names) {
        Set<String> known = new HashSet<>(List.of(names));
        known.addAll(List.of("--warmup-s", "--duration-s", "--perf-ctl", "--perf-ack"));
        Map<String, String> opts = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!known.contains(args[i])) throw new IllegalArgumentException("unknown option " + args[i]);
            if (i + 1 == args.length) throw new IllegalArgumentException(args[i] + " needs a value");
            opts.put(args[i], args[i + 1]);
        }
        return opts;
    }

    /**
     * The counted window (also used by BulkReader and ComputeTasks): sleeps
     * --warmup-s seconds [3], switches perf on when --perf-ctl is given,
     * calls mark(true), sleeps --duration-s seconds [10], calls mark(false)
     * and switches perf off. Returns the window's length in seconds.
     */
    static double countedWindow(Map<String, String> opts, Consumer<Boolean> mark) throws Exception {
        double warmup = Double.parseDouble(opts.getOrDefault("--warmup-s", "3"));
        double duration = Double.parseDouble(opts.getOrDefault("--duration-s", "10"));
        String ctl = opts.get("--perf-ctl");
        Thread.sleep((long) (warmup * 1000));
        Perf perf = ctl == null ? null : new Perf(ctl, opts.get("--perf-ack"));
        if (perf != null) perf.command("enable");
        mark.accept(true);
        long t0 = System.nanoTime();
        Thread.sleep((long) (duration * 1000));
        mark.accept(false);
        long t1 = System.nanoTime();
        if (perf != null) perf.command("disable");
        return (t1 - t0) / 1e9;
    }

    /** Waits up to seconds for each thread; exits with status 1 naming the first still running. */
    static void joinAll(List<Thread> threads, int seconds, String what) throws InterruptedException {
        for (Thread t : threads) {
            if (!t.join(java.time.Duration.ofSeconds(seconds))) {
                System.err.println(what + " in " + seconds + " s: " + t);
                System.exit(1);
            }
        }
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
