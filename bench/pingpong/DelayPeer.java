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
import java.util.ArrayDeque;

/**
 * Peer of WaitingClient, run in its own process (source launcher, any JDK 21+):
 * one platform thread busy-polls a Selector with selectNow() and answers every
 * request of SIZE bytes with 1 byte, DELAY microseconds after it arrived. All
 * delays are equal, so a FIFO of (due time, channel) is in due order; it is
 * drained against System.nanoTime() on every turn of the loop.
 *
 *   java DelayPeer.java [--delay-us 50] [--size 1]
 * prints "READY <port>" once listening.
 */
public class DelayPeer {
    public static void main(String[] args) throws Exception {
        long delayNanos = 50_000;
        int size = 1;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--delay-us" -> delayNanos = Long.parseLong(args[i + 1]) * 1000;
                case "--size" -> size = Integer.parseInt(args[i + 1]);
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

        ArrayDeque<long[]> due = new ArrayDeque<>();      // {due nanos, channel index}
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
                            due.add(new long[] {now + delayNanos, idx});
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
