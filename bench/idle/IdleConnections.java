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
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An idle JVM with many open, silent connections: CONNECTIONS virtual threads each
 * block reading a java.net.Socket connected to a peer process that never writes
 * (java IdleConnections.java peer PORTFILE). After a short burst of 1-byte round
 * trips on every connection (so read pollers have registered them and sub-pollers
 * have lingered), the program prints its CPU time (utime + stime from
 * /proc/self/stat) over SECONDS seconds of silence. With CONNECTIONS = 0 it is a
 * JVM with nothing to do (PORT is then not used). With perf stat's control
 * FIFOs (perf stat -D -1 --control fifo:CTL,ACK), perf counts the silent
 * window only.
 *
 *   java IdleConnections.java peer PORTFILE
 *   java IdleConnections client PORT [connections=10000] [seconds=60] [CTL ACK]
 */
public class IdleConnections {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("peer")) {
            peer(Path.of(args[1]));
        } else {
            client(Integer.parseInt(args[1]),
                    args.length > 2 ? Integer.parseInt(args[2]) : 10_000,
                    args.length > 3 ? Integer.parseInt(args[3]) : 60,
                    args.length > 5 ? new WaitingClient.Perf(args[4], args[5]) : null);
        }
    }

    // accepts connections, echoes each connection's first byte, then stays silent
    private static void peer(Path portFile) throws Exception {
        var loopback = InetAddress.getLoopbackAddress();
        try (var listener = new java.net.ServerSocket()) {
            listener.bind(new InetSocketAddress(loopback, 0), 1024);
            Files.writeString(portFile, Integer.toString(listener.getLocalPort()));
            List<Socket> held = new ArrayList<>();
            while (true) {
                Socket s = listener.accept();
                held.add(s);
                Thread.ofVirtual().start(() -> {
                    try {
                        int b = s.getInputStream().read();
                        s.getOutputStream().write(b);
                    } catch (Exception e) {
                        // client went away
                    }
                });
            }
        }
    }

    private static void client(int port, int connections, int seconds, WaitingClient.Perf perf)
            throws Exception {
        var loopback = InetAddress.getLoopbackAddress();
        var answered = new CountDownLatch(connections);
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            Socket s = new Socket(loopback, port);
            readers.add(Thread.ofVirtual().start(() -> {
                try {
                    InputStream in = s.getInputStream();
                    s.getOutputStream().write(1);
                    if (in.read() != 1) throw new RuntimeException("no echo");
                    answered.countDown();
                    in.read();   // blocks: the peer stays silent
                } catch (Exception e) {
                    e.printStackTrace();
                    System.exit(1);
                }
            }));
        }
        if (!answered.await(5, TimeUnit.MINUTES)) {
            System.err.println("not every connection answered within 5 minutes: "
                    + answered.getCount() + " left");
            System.exit(1);
        }
        if (perf != null) perf.command("enable");
        long t0 = cpuTicks();
        long n0 = System.nanoTime();
        Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));   // the measured idle window
        long ticks = cpuTicks() - t0;
        double wall = (System.nanoTime() - n0) / 1e9;
        if (perf != null) perf.command("disable");
        double cpu = ticks / 100.0;   // USER_HZ
        System.out.printf("connections: %d%nidle seconds: %.1f%ncpu seconds: %.2f%ncpu share of a core: %.4f%n",
                connections, wall, cpu, cpu / wall);
        System.exit(0);
    }

    private static long cpuTicks() throws Exception {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);   // utime, stime
    }
}
