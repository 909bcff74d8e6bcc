/*
 * Copyright (c) 2026, ET-JDK contributors. All rights reserved.
 * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.
 *
 * This code is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License version 2 only, as
 * published by the Free Software Foundation.
 */

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Peer of WaitingClient, run in its own process (source launcher, any JDK 21+):
 * one platform thread busy-polls a Selector with selectNow() and answers every
 * request of SIZE bytes with 1 byte, DELAY microseconds after it arrived, or
 * with --delay-dist exp after a delay drawn from the exponential distribution
 * of mean DELAY (so that replies to many clients do not come in waves). Replies
 * wait in a queue ordered by due time, drained against System.nanoTime() on
 * every turn of the loop.
 *
 *   java DelayPeer.java [--delay-us 50] [--delay-dist fixed|exp] [--size 1]
 * prints "READY <port>" once listening.
 */
public class DelayPeer {
    public static void main(String[] args) throws Exception {
        long delayNanos = 50_000;
        boolean exponential = false;
        int size = 1;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--delay-us" -> delayNanos = Long.parseLong(args[i + 1]) * 1000;
                case "--size" -> size = Integer.parseInt(args[i + 1]);
                case "--delay-dist" -> exponential = switch (args[i + 1]) {
                    case "fixed" -> false;
                    case "exp" -> true;
                    default -> throw new IllegalArgumentException("--delay-dist fixed or exp, got " + args[i + 1]);
                };
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        var listener = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4096);
        listener.configureBlocking(false);
        var selector = Selector.open();
        listener.register(selector, SelectionKey.OP_ACCEPT);
        System.out.println("READY " + listener.socket().getLocalPort());
        System.out.flush();

        // {due nanos, channel index}, earliest first
        var due = new java.util.PriorityQueue<long[]>((a, b) -> Long.compare(a[0] - b[0], 0));
        var random = new java.util.SplittableRandom(42);
        var channels = new java.util.ArrayList<SocketChannel>();
        var pending = new java.util.ArrayList<int[]>();   // bytes received per channel, not yet a full request
        ByteBuffer in = ByteBuffer.allocateDirect(64 * 1024);
        ByteBuffer out = ByteBuffer.allocateDirect(1);
        while (true) {
            if (selector.selectNow() > 0) {
                long now = System.nanoTime();
                for (SelectionKey key : selector.selectedKeys()) {
                    if (key.isAcceptable()) {
                        SocketChannel sc;
                        while ((sc = listener.accept()) != null) {
                            sc.configureBlocking(false);
                            sc.socket().setTcpNoDelay(true);
                            sc.register(selector, SelectionKey.OP_READ, channels.size());
                            channels.add(sc);
                            pending.add(new int[1]);
                        }
                    } else if (key.isReadable()) {
                        int idx = (Integer) key.attachment();
                        SocketChannel sc = channels.get(idx);
                        in.clear();
                        int n = sc.read(in);
                        if (n < 0) {
                            key.cancel();
                            sc.close();
                            continue;
                        }
                        int[] p = pending.get(idx);
                        p[0] += n;
                        while (p[0] >= size) {
                            p[0] -= size;
                            long d = exponential
                                    ? (long) (-Math.log(1.0 - random.nextDouble()) * delayNanos)
                                    : delayNanos;
                            due.add(new long[] {now + d, idx});
                        }
                    }
                }
                selector.selectedKeys().clear();
            }
            long now = System.nanoTime();
            long[] head;
            while ((head = due.peek()) != null && head[0] - now <= 0) {
                due.poll();
                SocketChannel sc = channels.get((int) head[1]);
                if (!sc.isOpen()) continue;
                out.clear();
                out.put((byte) 1).flip();
                // 1-byte replies to a client waiting for each one always fit the send buffer
                sc.write(out);
            }
            if (due.isEmpty()) Thread.onSpinWait();
        }
    }
}
