/*
 * ET-JDK end-to-end benchmark: the mock backend.
 *
 * One platform thread, one NIO Selector. Each 16-byte request frame is
 * answered with a 64-byte reply (the first 8 bytes echo the request id) after
 * a fixed think time. Because the think time is constant, due times are in
 * arrival order, so a FIFO queue is the whole timer; the selector's select
 * timeout wakes the thread for the next due reply (millisecond granularity,
 * so a reply leaves 0-1 ms after its due time).
 *
 * It does not use virtual threads, so the JDK's virtual-thread poller is not
 * involved; run on Temurin 25 by the runner.
 */

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.Iterator;

public final class E2eBackend {

    static final int REQ = 16;
    static final int REPLY = 64;

    static final class Conn {
        final SocketChannel ch;
        SelectionKey key;
        final ByteBuffer in = ByteBuffer.allocate(REQ * 64);
        ByteBuffer pendingOut;           // unwritten reply bytes (rare: socket buffer full)
        Conn(SocketChannel ch) { this.ch = ch; }
    }

    /** A reply due at a given time. */
    record Due(long atNanos, Conn conn, long id) { }

    public static void main(String[] args) throws Exception {
        int port = 0, backlog = 4096;
        double thinkMs = 30;
        String bind = "127.0.0.1";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--bind" -> bind = args[++i];
                case "--think-ms" -> thinkMs = Double.parseDouble(args[++i]);
                case "--backlog" -> backlog = Integer.parseInt(args[++i]);
                default -> { System.err.println("E2eBackend: unknown argument " + args[i]); System.exit(2); }
            }
        }
        final long thinkNanos = (long) (thinkMs * 1_000_000L);

        Selector sel = Selector.open();
        ServerSocketChannel ssc = ServerSocketChannel.open();
        ssc.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        ssc.bind(new InetSocketAddress(InetAddress.getByName(bind), port), backlog);
        ssc.configureBlocking(false);
        ssc.register(sel, SelectionKey.OP_ACCEPT);

        System.out.println("E2eBackend think-ms=" + thinkMs + " java.version=" + System.getProperty("java.version"));
        System.out.println("READY " + ((InetSocketAddress) ssc.getLocalAddress()).getPort());
        System.out.flush();

        long[] stats = new long[2]; // replies, connections
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
                System.out.println("E2eBackend exiting: replies=" + stats[0] + " connections=" + stats[1])));

        ArrayDeque<Due> due = new ArrayDeque<>();
        ByteBuffer reply = ByteBuffer.allocateDirect(REPLY);

        while (true) {
            long now = System.nanoTime();
            Due head = due.peekFirst();
            if (head == null) {
                sel.select();
            } else if (head.atNanos() <= now) {
                sel.selectNow();
            } else {
                long ms = (head.atNanos() - now + 999_999) / 1_000_000;
                sel.select(Math.max(1, ms));
            }

            Iterator<SelectionKey> it = sel.selectedKeys().iterator();
            while (it.hasNext()) {
                SelectionKey k = it.next();
                it.remove();
                if (!k.isValid()) continue;
                if (k.isAcceptable()) {
                    SocketChannel ch;
                    while ((ch = ssc.accept()) != null) {
                        ch.configureBlocking(false);
                        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                        Conn c = new Conn(ch);
                        c.key = ch.register(sel, SelectionKey.OP_READ, c);
                        stats[1]++;
                    }
                    continue;
                }
                Conn c = (Conn) k.attachment();
                if (k.isWritable()) {
                    try {
                        c.ch.write(c.pendingOut);
                        if (!c.pendingOut.hasRemaining()) {
                            c.pendingOut = null;
                            k.interestOps(SelectionKey.OP_READ);
                        }
                    } catch (IOException e) {
                        close(c);
                        continue;
                    }
                }
                if (k.isValid() && k.isReadable()) {
                    int n;
                    try {
                        n = c.ch.read(c.in);
                    } catch (IOException e) {
                        n = -1;
                    }
                    if (n < 0) {
                        close(c);
                        continue;
                    }
                    c.in.flip();
                    long at = System.nanoTime() + thinkNanos;
                    while (c.in.remaining() >= REQ) {
                        long id = c.in.getLong();
                        c.in.position(c.in.position() + (REQ - 8));
                        due.addLast(new Due(at, c, id));
                    }
                    c.in.compact();
                }
            }

            now = System.nanoTime();
            while ((head = due.peekFirst()) != null && head.atNanos() <= now) {
                due.pollFirst();
                Conn c = head.conn();
                if (!c.ch.isOpen()) continue;
                reply.clear();
                reply.putLong(head.id());
                while (reply.hasRemaining()) reply.put((byte) 'b');
                reply.flip();
                try {
                    if (c.pendingOut != null) {
                        ByteBuffer nb = ByteBuffer.allocate(c.pendingOut.remaining() + REPLY);
                        nb.put(c.pendingOut).put(reply).flip();
                        c.pendingOut = nb;
                    } else {
                        c.ch.write(reply);
                        if (reply.hasRemaining()) {
                            ByteBuffer nb = ByteBuffer.allocate(reply.remaining());
                            nb.put(reply).flip();
                            c.pendingOut = nb;
                            c.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                        }
                    }
                    stats[0]++;
                } catch (IOException e) {
                    close(c);
                }
            }
        }
    }

    static void close(Conn c) {
        try { c.ch.close(); } catch (IOException ignore) { }
    }
}
