/*
 * ET-JDK end-to-end benchmark: the server under test.
 *
 * Thread-per-connection on virtual threads with plain blocking JDK sockets
 * (java.net.ServerSocket / java.net.Socket streams), HTTP/1.1 keep-alive.
 * For each request it borrows a connection from a bounded pool of blocking
 * Socket connections to the mock backend, sends a fixed 16-byte request,
 * waits for the fixed 64-byte reply, returns the connection to the pool and
 * answers "200 OK" with a small body and Content-Length.
 *
 * Every blocking read here parks a virtual thread on the JDK's read poller,
 * which is what -Djdk.pollerEdgeTriggered=true|false changes.
 *
 * The number of requests served so far is written to any connection to the
 * admin port (printed as "ADMIN <port>"; a platform thread, not a virtual
 * thread); the runner reads it before and after the perf window. GET /__stats
 * on the HTTP port answers the same (it does not call the backend).
 *
 * Only java.base APIs; compiled and run with the JDK under test.
 */

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

public final class E2eServer {

    static final int BACKEND_REQ = 16;   // bytes sent to the backend per request
    static final int BACKEND_REPLY = 64; // bytes the backend answers

    static final LongAdder served = new LongAdder();
    static final LongAdder backendErrors = new LongAdder();
    static final AtomicLong seq = new AtomicLong();

    static String backendHost = "127.0.0.1";
    static int backendPort;
    static ArrayBlockingQueue<BackendConn> pool;
    static byte[] okResponse;

    public static void main(String[] args) throws Exception {
        int port = 0, poolSize = 1000, backlog = 4096, bodySize = 13;
        String bind = "127.0.0.1";
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--bind" -> bind = args[++i];
                case "--backend" -> {
                    String hp = args[++i];
                    int c = hp.lastIndexOf(':');
                    backendHost = hp.substring(0, c);
                    backendPort = Integer.parseInt(hp.substring(c + 1));
                }
                case "--pool" -> poolSize = Integer.parseInt(args[++i]);
                case "--backlog" -> backlog = Integer.parseInt(args[++i]);
                case "--body-size" -> bodySize = Integer.parseInt(args[++i]);
                default -> { System.err.println("E2eServer: unknown argument " + a); System.exit(2); }
            }
        }
        if (backendPort == 0) { System.err.println("E2eServer: --backend HOST:PORT is required"); System.exit(2); }
        if (poolSize < 1) { System.err.println("E2eServer: --pool must be >= 1"); System.exit(2); }

        byte[] body = new byte[bodySize];
        for (int i = 0; i < bodySize; i++) body[i] = (byte) ('a' + i % 26);
        if (bodySize > 0) body[bodySize - 1] = '\n';
        byte[] head = ("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + bodySize + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        okResponse = new byte[head.length + body.length];
        System.arraycopy(head, 0, okResponse, 0, head.length);
        System.arraycopy(body, 0, okResponse, head.length, body.length);

        // Pre-connect the whole pool so that no connect happens in the measured window.
        pool = new ArrayBlockingQueue<>(poolSize);
        for (int i = 0; i < poolSize; i++) pool.add(new BackendConn());

        ServerSocket ss = new ServerSocket();
        ss.setReuseAddress(true);
        ss.bind(new InetSocketAddress(InetAddress.getByName(bind), port), backlog);

        System.out.println("E2eServer java.version=" + System.getProperty("java.version")
                + " jdk.pollerEdgeTriggered=" + System.getProperty("jdk.pollerEdgeTriggered")
                + " jdk.pollerMode=" + System.getProperty("jdk.pollerMode", "(unset: JDK default)")
                + " availableProcessors=" + Runtime.getRuntime().availableProcessors()
                + " pool=" + poolSize + " backlog=" + backlog);
        // The request counter is served on a separate admin port by a platform thread, so that
        // the runner can read it promptly even when the virtual-thread scheduler is overloaded.
        ServerSocket admin = new ServerSocket(0, 50, InetAddress.getByName(bind));
        Thread.ofPlatform().daemon().name("admin").start(() -> adminLoop(admin));
        System.out.println("ADMIN " + admin.getLocalPort());
        System.out.println("READY " + ss.getLocalPort());
        System.out.flush();

        Runtime.getRuntime().addShutdownHook(new Thread(() ->
                System.out.println("E2eServer exiting: served=" + served.sum()
                        + " backendErrors=" + backendErrors.sum())));

        Thread.Builder vb = Thread.ofVirtual().name("conn-", 0);
        long acceptErrors = 0;
        while (true) {
            Socket s;
            try {
                s = ss.accept();
            } catch (IOException e) {
                // e.g. EMFILE: keep serving the connections we have
                if (acceptErrors++ % 1000 == 0) System.out.println("E2eServer: accept failed (" + acceptErrors + "): " + e);
                Thread.sleep(10);
                continue;
            }
            vb.start(() -> handle(s));
        }
    }

    /** Admin port: each connection gets the number of requests served so far, then is closed. */
    static void adminLoop(ServerSocket admin) {
        while (true) {
            try (Socket s = admin.accept()) {
                s.getOutputStream().write((served.sum() + "\n").getBytes(StandardCharsets.US_ASCII));
            } catch (IOException e) {
                // ignore and go on
            }
        }
    }

    /** One pooled blocking connection to the backend. */
    static final class BackendConn {
        final Socket s;
        final InputStream in;
        final OutputStream out;
        final byte[] req = new byte[BACKEND_REQ];
        final byte[] reply = new byte[BACKEND_REPLY];

        BackendConn() throws IOException {
            s = new Socket();
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(backendHost, backendPort));
            in = s.getInputStream();
            out = s.getOutputStream();
        }

        void call() throws IOException {
            long id = seq.incrementAndGet();
            for (int i = 0; i < 8; i++) req[i] = (byte) (id >>> (8 * (7 - i)));
            out.write(req, 0, BACKEND_REQ);
            int n = in.readNBytes(reply, 0, BACKEND_REPLY);
            if (n != BACKEND_REPLY) throw new IOException("backend closed the connection");
            for (int i = 0; i < 8; i++) {
                if (reply[i] != req[i]) throw new IOException("backend reply out of sequence");
            }
        }

        void close() {
            try { s.close(); } catch (IOException ignore) { }
        }
    }

    static void callBackend() throws IOException, InterruptedException {
        BackendConn c = pool.take();
        try {
            c.call();
        } catch (IOException e) {
            backendErrors.increment();
            c.close();
            try {
                c = new BackendConn();
            } catch (IOException e2) {
                c = null;
            }
            throw e;
        } finally {
            if (c != null) pool.put(c);
        }
    }

    static final byte[] STATS_PATH = "/__stats".getBytes(StandardCharsets.US_ASCII);

    static void handle(Socket s) {
        byte[] buf = new byte[8192];
        int start = 0, end = 0;   // unconsumed bytes are buf[start, end)
        try (s) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (true) {
                // Find the end of the header block (CRLFCRLF), reading more as needed.
                int hdrEnd;
                int scanFrom = start;
                while ((hdrEnd = indexOfCrlfCrlf(buf, scanFrom, end)) < 0) {
                    scanFrom = Math.max(start, end - 3);
                    if (end == buf.length) {
                        if (start == 0) { sendError(out, 431, "Request Header Fields Too Large"); return; }
                        System.arraycopy(buf, start, buf, 0, end - start);
                        scanFrom -= start; end -= start; start = 0;
                    }
                    int n = in.read(buf, end, buf.length - end);
                    if (n < 0) return; // client closed the connection
                    end += n;
                }
                int reqStart = start;
                int next = hdrEnd + 4;

                // Request line: METHOD SP PATH SP VERSION
                int lineEnd = indexOf(buf, (byte) '\r', reqStart, hdrEnd + 1);
                int sp1 = indexOf(buf, (byte) ' ', reqStart, lineEnd);
                int sp2 = sp1 < 0 ? -1 : indexOf(buf, (byte) ' ', sp1 + 1, lineEnd);
                if (sp1 < 0 || sp2 < 0) { sendError(out, 400, "Bad Request"); return; }
                boolean http10 = regionEqualsIgnoreCase(buf, sp2 + 1, lineEnd, "HTTP/1.0");

                // Headers: only Content-Length and Connection matter.
                long contentLength = 0;
                boolean close = http10;
                int p = lineEnd + 2;
                while (p < hdrEnd + 2) {
                    int e = indexOf(buf, (byte) '\r', p, hdrEnd + 2);
                    if (e < 0) e = hdrEnd;
                    int colon = indexOf(buf, (byte) ':', p, e);
                    if (colon > 0) {
                        if (regionEqualsIgnoreCase(buf, p, colon, "content-length")) {
                            contentLength = Long.parseLong(trim(buf, colon + 1, e));
                        } else if (regionEqualsIgnoreCase(buf, p, colon, "connection")) {
                            String v = trim(buf, colon + 1, e);
                            if (v.equalsIgnoreCase("close")) close = true;
                            else if (v.equalsIgnoreCase("keep-alive")) close = false;
                        }
                    }
                    p = e + 2;
                }
                boolean stats = (sp2 - sp1 - 1) == STATS_PATH.length
                        && regionEquals(buf, sp1 + 1, STATS_PATH);

                // Discard a request body if there is one (GETs from the load generator have none).
                start = next;
                long toSkip = contentLength;
                while (toSkip > 0) {
                    if (start < end) {
                        int k = (int) Math.min(toSkip, end - start);
                        start += k; toSkip -= k;
                    } else {
                        start = end = 0;
                        int n = in.read(buf, 0, buf.length);
                        if (n < 0) return;
                        end = n;
                    }
                }
                if (start == end) start = end = 0;

                if (stats) {
                    byte[] b = (served.sum() + "\n").getBytes(StandardCharsets.US_ASCII);
                    out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + b.length
                            + "\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.write(b);
                } else {
                    try {
                        callBackend();
                    } catch (IOException e) {
                        sendError(out, 502, "Bad Gateway");
                        return;
                    }
                    out.write(okResponse);
                    served.increment();
                }
                if (close) return;
            }
        } catch (SocketException e) {
            // connection reset by the client: normal at the end of a run
        } catch (IOException | InterruptedException | RuntimeException e) {
            // malformed request or similar: drop the connection
        }
    }

    static void sendError(OutputStream out, int code, String reason) {
        try {
            out.write(("HTTP/1.1 " + code + " " + reason + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
        } catch (IOException ignore) { }
    }

    static int indexOfCrlfCrlf(byte[] b, int from, int to) {
        for (int i = from; i + 3 < to; i++) {
            if (b[i] == '\r' && b[i + 1] == '\n' && b[i + 2] == '\r' && b[i + 3] == '\n') return i;
        }
        return -1;
    }

    static int indexOf(byte[] b, byte c, int from, int to) {
        for (int i = from; i < to; i++) if (b[i] == c) return i;
        return -1;
    }

    static boolean regionEquals(byte[] b, int from, byte[] s) {
        for (int i = 0; i < s.length; i++) if (b[from + i] != s[i]) return false;
        return true;
    }

    static boolean regionEqualsIgnoreCase(byte[] b, int from, int to, String s) {
        if (to - from != s.length()) return false;
        for (int i = 0; i < s.length(); i++) {
            if (Character.toLowerCase((char) b[from + i]) != Character.toLowerCase(s.charAt(i))) return false;
        }
        return true;
    }

    static String trim(byte[] b, int from, int to) {
        return new String(b, from, to - from, StandardCharsets.US_ASCII).trim();
    }
}
