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
 */

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Heap retained per registered connection: the server side of N connections, each
 * read once by a virtual thread that parked (so the read poller registered it), the
 * reader gone, the connection still open. The clients live in a child process (the
 * same java, no options), so only the server's objects are counted.
 *
 * <pre>
 * java [poller options] -XX:+UseSerialGC RegisteredConnectionHeap.java N
 * </pre>
 * prints "connections=N heapBefore=B heapAfter=B bytesPerConnection=X".
 */
public class RegisteredConnectionHeap {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("client")) {
            client(Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            return;
        }
        int n = Integer.parseInt(args[0]);
        var loopback = InetAddress.getLoopbackAddress();
        try (var listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(loopback, 0), n);
            // warm up: one registered connection, so that the pollers exist
            Process warm = startClient(listener, 1);
            List<SocketChannel> warmChannels = acceptAndRead(listener, 1, warm);
            long before = usedHeap();

            Process client = startClient(listener, n);
            List<SocketChannel> channels = acceptAndRead(listener, n, client);
            long after = usedHeap();
            System.out.printf("connections=%d heapBefore=%d heapAfter=%d bytesPerConnection=%.1f%n",
                    n, before, after, (after - before) / (double) n);
            for (SocketChannel sc : channels) sc.close();
            for (SocketChannel sc : warmChannels) sc.close();
            client.getOutputStream().close();
            warm.getOutputStream().close();
            if (!client.waitFor(60, TimeUnit.SECONDS) || !warm.waitFor(60, TimeUnit.SECONDS))
                throw new RuntimeException("client did not exit");
        }
    }

    private static Process startClient(ServerSocketChannel listener, int n) throws Exception {
        int port = ((InetSocketAddress) listener.getLocalAddress()).getPort();
        String java = ProcessHandle.current().info().command().orElseThrow();
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                RegisteredConnectionHeap.class.getName(), "client", "" + port, "" + n)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
    }

    /**
     * Accepts n connections, parks a virtual-thread reader on each, tells the client
     * to write a byte on each, and waits for every reader to finish.
     */
    private static List<SocketChannel> acceptAndRead(ServerSocketChannel listener, int n, Process client)
            throws Exception {
        List<SocketChannel> channels = new ArrayList<>();
        for (int i = 0; i < n; i++)
            channels.add(listener.accept());
        List<Thread> readers = new ArrayList<>();
        for (SocketChannel sc : channels) {
            readers.add(Thread.ofVirtual().start(() -> {
                try {
                    if (sc.read(ByteBuffer.allocate(1)) != 1)
                        throw new RuntimeException("read failed");
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            }));
        }
        // every reader parked before the data is sent, so that each registered its fd
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        for (Thread t : readers) {
            while (t.getState() != Thread.State.WAITING) {
                if (System.nanoTime() > deadline)
                    throw new RuntimeException("reader did not park within 120 s: " + t);
                Thread.sleep(1);
            }
        }
        client.getOutputStream().write('w');
        client.getOutputStream().flush();
        for (Thread t : readers) {
            if (!t.join(java.time.Duration.ofSeconds(120)))
                throw new RuntimeException("reader did not finish within 120 s: " + t);
        }
        return channels;
    }

    private static long usedHeap() throws InterruptedException {
        var memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            Thread.sleep(100);
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** Child: connects n times, writes one byte on each when told, exits at end of input. */
    private static void client(int port, int n) throws Exception {
        var loopback = InetAddress.getLoopbackAddress();
        List<SocketChannel> channels = new ArrayList<>();
        for (int i = 0; i < n; i++)
            channels.add(SocketChannel.open(new InetSocketAddress(loopback, port)));
        var in = new BufferedReader(new InputStreamReader(System.in));
        int c;
        while ((c = in.read()) != -1) {
            if (c == 'w') {
                for (SocketChannel sc : channels)
                    sc.write(ByteBuffer.wrap(new byte[] { 1 }));
            }
        }
        for (SocketChannel sc : channels) sc.close();
    }
}
