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
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * 1-byte blocking ping-pong: CLIENTS virtual threads, each with its own
 * java.net.Socket, write one byte and block reading the one-byte reply from a
 * one-thread Selector echo server (a platform thread, so only the clients use
 * the virtual-thread poller). Each client does ROUND_TRIPS round trips; the
 * total is printed so that perf stat counts can be divided by it.
 *
 * The echo server runs in the same JVM, or, with --port, in a process of its
 * own started with --serve, so that counters of the clients' JVM leave it out.
 * <p>
 * With --warmup N every client first does N untimed round trips; once all have,
 * the timed round trips start together, and with --perf-ctl/--perf-ack perf
 * stat's control FIFOs (perf stat -D -1 --control fifo:CTL,ACK) count them
 * only, not the JVM's start-up and the JIT's first compilations. Without
 * --warmup the whole run is timed, connections included.
 *
 *   java PingPong.java [clients=100] [roundTripsPerClient=10000] [--port PORT]
 *                      [--warmup N] [--perf-ctl CTL --perf-ack ACK]
 *   java PingPong.java --serve     (the echo server alone; prints "READY <port>";
 *                                   the source launcher of JDK 22 or later, which
 *                                   compiles WaitingClient.java beside it too)
 */
public class PingPong {
    public static void main(String[] args) throws Exception {
        List<String> counts = new ArrayList<>();
        int port = -1, warmup = 0;
        String perfCtl = null, perfAck = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--serve" -> {
                    var listener = ServerSocketChannel.open()
                            .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
                    var selector = Selector.open();
                    System.out.println("READY " + listener.socket().getLocalPort());
                    System.out.flush();
                    echo(listener, selector);
                    return;
                }
                case "--port" -> port = Integer.parseInt(value(args, i++));
                case "--warmup" -> warmup = Integer.parseInt(value(args, i++));
                case "--perf-ctl" -> perfCtl = value(args, i++);
                case "--perf-ack" -> perfAck = value(args, i++);
                default -> counts.add(args[i]);
            }
        }
        System.out.println("pid: " + ProcessHandle.current().pid()); // for perf's map of the JIT's code
        int clients = counts.size() > 0 ? Integer.parseInt(counts.get(0)) : 100;
        int roundTrips = counts.size() > 1 ? Integer.parseInt(counts.get(1)) : 10_000;

        var loopback = InetAddress.getLoopbackAddress();
        if (port < 0) {
            var listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0), clients);
            var selector = Selector.open();
            Thread.ofPlatform().name("echo-server").daemon().start(() -> echo(listener, selector));
            port = listener.socket().getLocalPort();
        }
        int serverPort = port;
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup must be 0 or more round trips, got " + warmup);
        }
        if ((perfCtl == null) != (perfAck == null) || (perfCtl != null && warmup == 0)) {
            throw new IllegalArgumentException("--perf-ctl and --perf-ack go together, with --warmup");
        }
        WaitingClient.Perf perf = perfCtl != null ? new WaitingClient.Perf(perfCtl, perfAck) : null;
        int warmupRoundTrips = warmup;
        var warmedUp = new CountDownLatch(clients);
        var timed = new CountDownLatch(1);

        List<Thread> threads = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            threads.add(Thread.ofVirtual().start(() -> {
                try (Socket s = new Socket(loopback, serverPort)) {
                    s.setTcpNoDelay(true);
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    for (int r = -warmupRoundTrips; r < roundTrips; r++) {
                        if (r == 0 && warmupRoundTrips > 0) {
                            warmedUp.countDown();
                            timed.await();
                        }
                        out.write(r);
                        if (in.read() != (r & 0xff)) throw new RuntimeException("bad reply");
                    }
                } catch (Exception e) {
                    e.printStackTrace();
                    System.exit(1);
                }
            }));
        }
        if (warmup > 0) {
            if (!warmedUp.await(10, TimeUnit.MINUTES)) {
                System.err.println("the clients did not finish their warm-up in 10 minutes: "
                        + warmedUp.getCount() + " of " + clients + " still warming up");
                System.exit(1);
            }
            if (perf != null) perf.command("enable");
            start = System.nanoTime();
            timed.countDown();
        }
        for (Thread t : threads) {
            if (!t.join(java.time.Duration.ofMinutes(10))) {
                System.err.println("client did not finish in 10 minutes: " + t);
                System.exit(1);
            }
        }
        long nanos = System.nanoTime() - start;
        if (perf != null) perf.command("disable");
        long total = (long) clients * roundTrips;
        double seconds = nanos / (double) TimeUnit.SECONDS.toNanos(1);
        System.out.printf("round trips: %d%nround trips/s: %.0f%nseconds: %.3f%n", total, total / seconds, seconds);
        if (Boolean.getBoolean("PingPong.printPollers")) {
            // what jcmd <pid> Thread.vthread_pollers prints: the poll loop counters
            System.out.print(java.lang.management.ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"),
                    "threadVthreadPollers", new Object[] { null },
                    new String[] { String[].class.getName() }));
        }
        System.exit(0);
    }

    /** The value after the option at args[i]. */
    private static String value(String[] args, int i) {
        if (i + 1 == args.length) throw new IllegalArgumentException(args[i] + " needs a value");
        return args[i + 1];
    }

    static void echo(ServerSocketChannel listener, Selector selector) {
        try {
            listener.configureBlocking(false);
            listener.register(selector, SelectionKey.OP_ACCEPT);
            ByteBuffer buf = ByteBuffer.allocateDirect(64);
            while (true) {
                selector.select(1000);
                for (SelectionKey key : selector.selectedKeys()) {
                    if (key.isAcceptable()) {
                        SocketChannel sc;
                        while ((sc = listener.accept()) != null) {
                            sc.configureBlocking(false);
                            sc.socket().setTcpNoDelay(true);
                            sc.register(selector, SelectionKey.OP_READ);
                        }
                    } else if (key.isReadable()) {
                        SocketChannel sc = (SocketChannel) key.channel();
                        buf.clear();
                        int n = sc.read(buf);
                        if (n < 0) {
                            key.cancel();
                            sc.close();
                        } else if (n > 0) {
                            buf.flip();
                            // 1-byte replies to 1-byte requests always fit the send buffer
                            sc.write(buf);
                        }
                    }
                }
                selector.selectedKeys().clear();
            }
        } catch (Exception e) {
            e.printStackTrace();
            System.exit(1);
        }
    }
}
