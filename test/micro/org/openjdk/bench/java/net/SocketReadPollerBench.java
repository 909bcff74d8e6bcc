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
 *
 * You should have received a copy of the GNU General Public License version
 * 2 along with this work; if not, write to the Free Software Foundation,
 * Inc., 51 Franklin St, Fifth Floor, Boston, MA 02110-1301 USA.
 */
package org.openjdk.bench.java.net;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * RPC round trips through the virtual-thread read poller.
 *
 * <p>Each benchmark thread owns one loopback TCP connection. An operation
 * writes a one-byte request and blocks reading the whole response of
 * {@code readSize} bytes. Run the benchmark threads as virtual threads with
 * many of them, so that most reads find no data and park in the read poller:
 * <pre>
 *   java -jar benchmarks.jar SocketReadPollerBench -t 100 \
 *       -jvmArgsAppend "-Djmh.executor=VIRTUAL -Djdk.virtualThreadScheduler.parallelism=1"
 * </pre>
 * ({@code jmh.executor} is read by the JMH harness in the JVM that runs the
 * benchmark, that is, in the forked JVM: pass it with the forked JVM's
 * options. Setting {@code -DSocketReadPollerBench.requireVirtual=true} makes
 * the setup fail if the benchmark threads are not virtual threads.)
 *
 * <p>The peers are {@code serverCount} response servers. Each is one platform
 * thread running a {@link Selector} loop that blocks in {@code select(timeout)}
 * and, for every request byte it reads, writes back {@code readSize} bytes,
 * registering {@code OP_WRITE} when the socket send buffer is full. The
 * servers use no poller (a platform thread blocking in a Selector), so only
 * the client side goes through the virtual-thread poller.
 *
 * <p>{@code transport} selects the client API: {@code socket} uses
 * {@link Socket} streams, {@code channel} a blocking {@link SocketChannel}
 * with direct buffers. The measured method allocates nothing itself.
 *
 * <p>Setup and teardown bound every blocking step with a timeout so that a
 * broken poller fails the trial instead of hanging it. The measured reads have
 * no timeout (a timed read takes another path through the poller); a hang
 * there is ended by JMH's iteration timeout ({@code -to}), which interrupts
 * the benchmark threads.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3)
@Threads(100)
@State(Scope.Benchmark)
public class SocketReadPollerBench {

    /** Bound of every blocking step in setup and teardown, in milliseconds. */
    static final int SETUP_TIMEOUT_MILLIS = 30_000;

    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    static final boolean REQUIRE_VIRTUAL =
            Boolean.getBoolean("SocketReadPollerBench.requireVirtual");

    @Param({"1", "64", "1024", "16384"})
    public int readSize;

    @Param({"socket", "channel"})
    public String transport;

    @Param({"1"})
    public int serverCount;

    ResponseServer[] servers;
    final AtomicInteger nextServer = new AtomicInteger();
    ScheduledExecutorService watchdog;

    @Setup(Level.Trial)
    public void startServers() throws Exception {
        if (readSize < 1) {
            throw new IllegalArgumentException("readSize must be >= 1: " + readSize);
        }
        if (serverCount < 1) {
            throw new IllegalArgumentException("serverCount must be >= 1: " + serverCount);
        }
        if (!transport.equals("socket") && !transport.equals("channel")) {
            throw new IllegalArgumentException("transport must be socket or channel: " + transport);
        }
        watchdog = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "SocketReadPollerBench-watchdog");
            t.setDaemon(true);
            return t;
        });
        servers = new ResponseServer[serverCount];
        for (int i = 0; i < serverCount; i++) {
            servers[i] = new ResponseServer(i, readSize);
        }
        for (ResponseServer s : servers) {
            s.start();
        }
    }

    @TearDown(Level.Trial)
    public void stopServers() throws Exception {
        Exception failure = null;
        if (servers != null) {
            for (ResponseServer s : servers) {
                if (s == null) continue;
                try {
                    s.shutdown();
                } catch (Exception e) {
                    if (failure == null) failure = e; else failure.addSuppressed(e);
                }
            }
            servers = null;
        }
        if (watchdog != null) {
            watchdog.shutdownNow();
            watchdog = null;
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Runs {@code action}; if it has not finished after the setup timeout,
     * closes {@code resource} (which wakes a thread blocked on it) so that the
     * action fails instead of hanging.
     */
    <T> T withTimeout(String what, AutoCloseable resource, IOCallable<T> action) throws IOException {
        ScheduledFuture<?> alarm = watchdog.schedule(() -> {
            try {
                resource.close();
            } catch (Exception ignore) {
            }
        }, SETUP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        try {
            return action.call();
        } catch (IOException e) {
            if (alarm.isDone()) {
                throw new IOException(what + " did not complete in " + SETUP_TIMEOUT_MILLIS + " ms", e);
            }
            throw e;
        } finally {
            alarm.cancel(false);
        }
    }

    interface IOCallable<T> {
        T call() throws IOException;
    }

    /** One client connection per benchmark thread. */
    @State(Scope.Thread)
    public static class Connection {
        int readSize;
        boolean useChannel;

        // socket transport
        Socket socket;
        InputStream in;
        OutputStream out;
        byte[] request;
        byte[] response;

        // channel transport
        SocketChannel channel;
        ByteBuffer requestBuffer;
        ByteBuffer responseBuffer;

        @Setup(Level.Trial)
        public void connect(SocketReadPollerBench bench) throws IOException {
            if (REQUIRE_VIRTUAL && !Thread.currentThread().isVirtual()) {
                throw new IllegalStateException("benchmark thread " + Thread.currentThread()
                        + " is not a virtual thread: run with -Djmh.executor=VIRTUAL in the"
                        + " JVM that runs the benchmark (e.g. -jvmArgsAppend)");
            }
            readSize = bench.readSize;
            useChannel = bench.transport.equals("channel");
            ResponseServer server = bench.servers[
                    Math.floorMod(bench.nextServer.getAndIncrement(), bench.servers.length)];
            InetSocketAddress address = new InetSocketAddress(LOOPBACK, server.port());
            if (useChannel) {
                channel = SocketChannel.open();
                channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                bench.withTimeout("connect", channel, () -> channel.connect(address));
                requestBuffer = ByteBuffer.allocateDirect(1);
                requestBuffer.put(0, (byte) 1);
                responseBuffer = ByteBuffer.allocateDirect(readSize);
            } else {
                socket = new Socket();
                socket.setTcpNoDelay(true);
                socket.connect(address, SETUP_TIMEOUT_MILLIS);
                in = socket.getInputStream();
                out = socket.getOutputStream();
                request = new byte[] { 1 };
                response = new byte[readSize];
            }
            // one round trip proves the connection works before measuring
            AutoCloseable resource = useChannel ? channel : socket;
            bench.withTimeout("first round trip", resource, () -> {
                int b = roundTrip();
                if (b != ResponseServer.RESPONSE_BYTE) {
                    throw new IOException("unexpected response byte " + b);
                }
                return null;
            });
        }

        @TearDown(Level.Trial)
        public void close() throws IOException {
            // close() does not block on a connected TCP socket without SO_LINGER
            if (channel != null) {
                channel.close();
                channel = null;
            }
            if (socket != null) {
                socket.close();
                socket = null;
            }
        }

        /** Sends one request and reads the whole response; returns its last byte. */
        int roundTrip() throws IOException {
            if (useChannel) {
                ByteBuffer req = requestBuffer;
                req.clear();
                do {
                    channel.write(req);
                } while (req.hasRemaining());
                ByteBuffer resp = responseBuffer;
                resp.clear();
                do {
                    if (channel.read(resp) < 0) {
                        throw new EOFException("server closed the connection");
                    }
                } while (resp.hasRemaining());
                return resp.get(readSize - 1);
            } else {
                out.write(request, 0, 1);
                byte[] resp = response;
                int size = readSize;
                int off = 0;
                while (off < size) {
                    int n = in.read(resp, off, size - off);
                    if (n < 0) {
                        throw new EOFException("server closed the connection");
                    }
                    off += n;
                }
                return resp[size - 1];
            }
        }
    }

    @Benchmark
    public int roundTrip(Connection c) throws IOException {
        return c.roundTrip();
    }

    /**
     * A single platform thread serving any number of connections with a
     * Selector: for each request byte read it sends {@code responseSize} bytes.
     */
    static final class ResponseServer implements Runnable {
        static final byte RESPONSE_BYTE = 42;
        static final long SELECT_TIMEOUT_MILLIS = 1000;
        static final int IO_BUFFER_SIZE = 64 * 1024;

        final int id;
        final int responseSize;
        final ServerSocketChannel listener;
        final Selector selector;
        final Thread thread;
        final CountDownLatch started = new CountDownLatch(1);
        final List<SocketChannel> accepted = new ArrayList<>();
        final ByteBuffer readBuffer = ByteBuffer.allocateDirect(IO_BUFFER_SIZE);
        // response bytes; a response larger than this is sent in several slices
        final ByteBuffer writeBuffer;
        final Consumer<SelectionKey> handler = this::handle;
        volatile boolean shutdown;
        volatile Throwable failure;

        /** Per-connection state: response bytes still to send. */
        static final class Peer {
            long pending;
        }

        ResponseServer(int id, int responseSize) throws IOException {
            this.id = id;
            this.responseSize = responseSize;
            int n = Math.max(IO_BUFFER_SIZE, responseSize);
            ByteBuffer wb = ByteBuffer.allocateDirect(n);
            for (int i = 0; i < n; i++) {
                wb.put(i, RESPONSE_BYTE);
            }
            this.writeBuffer = wb;
            this.selector = Selector.open();
            ServerSocketChannel ssc = null;
            try {
                ssc = ServerSocketChannel.open();
                ssc.bind(new InetSocketAddress(LOOPBACK, 0), 4096);
                ssc.configureBlocking(false);
                ssc.register(selector, SelectionKey.OP_ACCEPT);
            } catch (IOException e) {
                if (ssc != null) ssc.close();
                selector.close();
                throw e;
            }
            this.listener = ssc;
            this.thread = new Thread(this, "SocketReadPollerBench-server-" + id);
            this.thread.setDaemon(true);
        }

        int port() {
            return listener.socket().getLocalPort();
        }

        void start() throws InterruptedException {
            thread.start();
            if (!started.await(SETUP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(thread.getName() + " did not start");
            }
        }

        @Override
        public void run() {
            started.countDown();
            try {
                while (!shutdown) {
                    selector.select(handler, SELECT_TIMEOUT_MILLIS);
                }
            } catch (Throwable e) {
                if (!shutdown) {
                    failure = e;
                    e.printStackTrace();
                }
            }
        }

        private void handle(SelectionKey key) {
            try {
                if (!key.isValid()) {
                    return;
                }
                if (key.isAcceptable()) {
                    accept();
                    return;
                }
                SocketChannel ch = (SocketChannel) key.channel();
                Peer peer = (Peer) key.attachment();
                if (key.isReadable()) {
                    ByteBuffer rb = readBuffer;
                    rb.clear();
                    int n = ch.read(rb);
                    if (n < 0) {
                        key.cancel();
                        ch.close();
                        return;
                    }
                    peer.pending += (long) n * responseSize;
                }
                if (peer.pending > 0) {
                    send(key, ch, peer);
                }
            } catch (IOException e) {
                // a client went away (e.g. reset at teardown): drop it
                key.cancel();
                try {
                    key.channel().close();
                } catch (IOException ignore) {
                }
            }
        }

        private void accept() throws IOException {
            SocketChannel ch;
            while ((ch = listener.accept()) != null) {
                ch.configureBlocking(false);
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ch.register(selector, SelectionKey.OP_READ, new Peer());
                accepted.add(ch);
            }
        }

        /** Writes pending bytes until done or the send buffer is full. */
        private void send(SelectionKey key, SocketChannel ch, Peer peer) throws IOException {
            ByteBuffer wb = writeBuffer;
            while (peer.pending > 0) {
                int len = (int) Math.min(peer.pending, wb.capacity());
                wb.limit(len).position(0);
                int n = ch.write(wb);
                peer.pending -= n;
                if (n < len) {
                    break;          // send buffer full
                }
            }
            int ops = (peer.pending > 0)
                    ? SelectionKey.OP_READ | SelectionKey.OP_WRITE
                    : SelectionKey.OP_READ;
            if (key.interestOps() != ops) {
                key.interestOps(ops);
            }
        }

        void shutdown() throws IOException, InterruptedException {
            shutdown = true;
            selector.wakeup();
            thread.join(SETUP_TIMEOUT_MILLIS);
            if (thread.isAlive()) {
                // leave its channels alone (daemon thread, the fork exits)
                throw new IllegalStateException(thread.getName() + " did not stop in "
                        + SETUP_TIMEOUT_MILLIS + " ms");
            }
            // the server thread is gone: its channels are ours to close
            IOException closeFailure = null;
            for (SocketChannel ch : accepted) {
                try {
                    ch.close();
                } catch (IOException e) {
                    closeFailure = e;
                }
            }
            accepted.clear();
            try {
                listener.close();
            } catch (IOException e) {
                closeFailure = e;
            }
            try {
                selector.close();
            } catch (IOException e) {
                closeFailure = e;
            }
            if (failure != null) {
                throw new IllegalStateException(thread.getName() + " failed", failure);
            }
            if (closeFailure != null) {
                throw closeFailure;
            }
        }
    }
}
