/*
 * Copyright (c) 2026, ET-JDK contributors. All rights reserved.
 * DO NOT ALTER OR REMOVE COPYRIGHT NOTICES OR THIS FILE HEADER.
 *
 * This code is free software; you can redistribute it and/or modify it
 * under the terms of the GNU General Public License version 2 only, as
 * published by the Free Software Foundation.
 */

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.locks.LockSupport;

/**
 * Peer of BulkReader, run in its own process (source launcher, any JDK 21+):
 * for every connection it accepts, a platform thread writes CHUNK-byte writes
 * until the reader closes it: as fast as the connection takes them, or at RATE
 * MiB/s (2^20 bytes) per connection when given, so that a reader that keeps up
 * always finds the receive buffer drained (its reads are short).
 *
 *   java BulkPeer.java [--chunk 1024] [--rate 0]
 * prints "READY <port>" once listening.
 */
public class BulkPeer {
    public static void main(String[] args) throws Exception {
        int chunk = 1024;
        double rate = 0;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--chunk" -> chunk = Integer.parseInt(args[i + 1]);
                case "--rate" -> rate = Double.parseDouble(args[i + 1]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        final byte[] data = new byte[chunk];
        // nanoseconds per chunk at the given rate; 0: unpaced
        final double nanosPerChunk = (rate > 0) ? chunk * 1e9 / (rate * 1048576) : 0;
        try (var listener = new ServerSocket(0, 4096, InetAddress.getLoopbackAddress())) {
            System.out.println("READY " + listener.getLocalPort());
            System.out.flush();
            while (true) {
                Socket s = listener.accept();
                s.setTcpNoDelay(true);
                Thread.ofPlatform().daemon().start(() -> {
                    try (s; OutputStream out = s.getOutputStream()) {
                        long start = System.nanoTime();
                        for (long chunks = 0; ; chunks++) {
                            long ahead = start + (long) (chunks * nanosPerChunk) - System.nanoTime();
                            if (ahead > 0) {
                                LockSupport.parkNanos(ahead);
                            }
                            out.write(data);
                        }
                    } catch (IOException e) {
                        // the reader closed the connection
                    }
                });
            }
        }
    }
}
