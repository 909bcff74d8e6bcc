/*
 * ET-JDK end-to-end benchmark: open-model HTTP/1.1 load generator.
 *
 * - C keep-alive connections (default 10,000), opened before the clock starts.
 * - Fixed arrival rate R: request number k (over all connections) is intended
 *   to start at t0 + k/R. Connection g (0..C-1) owns every C-th slot, so each
 *   connection sends one request every C/R seconds, phases evenly spread.
 * - No coordinated omission: latency = response time - INTENDED send time.
 *   If a connection is still waiting for its previous response when its next
 *   slot comes, the request is queued and sent as soon as the connection is
 *   free; the queueing delay is part of its latency (as in wrk2).
 * - Send lag is the generator's own delay: from the later of the intended time
 *   and the moment the connection was free (its previous response read, or
 *   connected) to the send. A request queued behind a busy connection is
 *   counted apart ("queued behind a busy connection"): the server's delay, in
 *   its latency, not the generator's.
 * - Requests whose intended time is in [t0, t0+warmup) are warmup and are not
 *   recorded; [t0+warmup, t0+warmup+duration) is the measured window. After it
 *   no new request is scheduled; queued/in-flight measured requests get up to
 *   --drain-s to finish, the rest are reported as "incomplete".
 * - A measured request whose 200 response arrives more than --timeout-s after
 *   it was actually sent counts as a timeout instead of ok (its latency is
 *   still recorded); the connection is kept, so an overloaded server does not
 *   get a reconnect storm on top. Connection errors, EOF and non-200 answers
 *   are errors; the connection is then reopened (counted as a reconnect).
 * - NIO Selector on --threads platform threads (default 1): virtual threads
 *   and the JDK's virtual-thread poller are not used, so the load generator
 *   does not share the code path under test. Run on Temurin 25 by the runner.
 * - --spin-us N: when the next send is due within N us, poll the selector
 *   without blocking rather than select(ms), whose 1 ms granularity is
 *   otherwise the floor of the send lag (bench/apps passes 2000: its load core
 *   has nothing else to run; bench/e2e does not, its backend shares the core).
 * - Every request is "GET <--path, default /> HTTP/1.1" (bench/apps asks for
 *   /plaintext and /json); the response must be 200 with a Content-Length.
 *
 * Prints human text, one line "RESULT_JSON {...}", and writes the latency
 * percentile distribution (HdrHistogram .hgrm format, milliseconds) to --hgrm.
 * Prints "CONNECTED n", "MEASURE_START" and "MEASURE_END" as they happen so
 * that the runner can place its perf window.
 */

import org.HdrHistogram.Histogram;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

public final class E2eLoad {

    // ---- configuration ----
    static String host = "127.0.0.1";
    static int port;
    static int connections = 10_000;
    static double rate = 1000;           // requests per second, all connections together
    static double warmupS = 15, durationS = 30, drainS = 3, timeoutS = 5, connectTimeoutS = 60;
    static int threads = 1;
    static String hgrmFile;
    static String label = "";
    static boolean progress;

    static final long HIGHEST_US = TimeUnit.HOURS.toMicros(1);

    // ---- shared timeline (set once by main before workers start the clock) ----
    static volatile long t0, measureStart, measureEnd, drainEnd;
    static final CountDownLatch connected = new CountDownLatch(1);
    static CountDownLatch workersConnected;
    static final CountDownLatch go = new CountDownLatch(1);

    static String path = "/";            // --path: the request target (bench/apps uses /plaintext, /json)
    // --spin-us: when the next send is due within this many microseconds, poll
    // the selector without blocking instead of select(ms), whose 1 ms granularity
    // is otherwise the floor of the send lag; costs the load core's idle time
    static long spinNs = 0;
    static byte[] REQUEST_BYTES;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--host" -> host = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--connections" -> connections = Integer.parseInt(args[++i]);
                case "--rate" -> rate = Double.parseDouble(args[++i]);
                case "--warmup-s" -> warmupS = Double.parseDouble(args[++i]);
                case "--duration-s" -> durationS = Double.parseDouble(args[++i]);
                case "--drain-s" -> drainS = Double.parseDouble(args[++i]);
                case "--timeout-s" -> timeoutS = Double.parseDouble(args[++i]);
                case "--connect-timeout-s" -> connectTimeoutS = Double.parseDouble(args[++i]);
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--hgrm" -> hgrmFile = args[++i];
                case "--label" -> label = args[++i];
                case "--progress" -> progress = true;
                case "--path" -> path = args[++i];
                case "--spin-us" -> spinNs = TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[++i]));
                default -> fail("unknown argument " + a);
            }
        }
        if (port <= 0) fail("--port is required");
        if (spinNs < 0) fail("--spin-us must not be negative");
        if (!path.startsWith("/") || path.chars().anyMatch(ch -> ch <= ' ' || ch > '~')) fail("--path must be an origin-form target such as /json");
        REQUEST_BYTES = ("GET " + path + " HTTP/1.1\r\nHost: localhost\r\nUser-Agent: et-jdk-e2e\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        if (connections < 1 || rate <= 0 || durationS <= 0 || threads < 1) fail("bad arguments");
        threads = Math.min(threads, connections);

        List<Worker> workers = new ArrayList<>();
        workersConnected = new CountDownLatch(threads);
        for (int w = 0; w < threads; w++) {
            Worker wk = new Worker(w);
            workers.add(wk);
        }
        long connectStart = System.nanoTime();
        for (Worker wk : workers) wk.start();
        if (!workersConnected.await((long) (connectTimeoutS * 1000) + 5000, TimeUnit.MILLISECONDS)) {
            fail("could not open " + connections + " connections within " + connectTimeoutS + " s");
        }
        for (Worker wk : workers) if (wk.connectFailure != null) fail(wk.connectFailure);
        long connectMs = (System.nanoTime() - connectStart) / 1_000_000;
        System.out.println("CONNECTED " + connections + " in " + connectMs + " ms");
        System.out.flush();

        long now = System.nanoTime();
        t0 = now + 50_000_000L;
        measureStart = t0 + (long) (warmupS * 1e9);
        measureEnd = measureStart + (long) (durationS * 1e9);
        drainEnd = measureEnd + (long) (drainS * 1e9);
        go.countDown();

        sleepUntil(measureStart);
        System.out.println("MEASURE_START");
        System.out.flush();
        sleepUntil(measureEnd);
        System.out.println("MEASURE_END");
        System.out.flush();
        for (Worker wk : workers) wk.join();

        // ---- merge and report ----
        Histogram lat = new Histogram(HIGHEST_US, 3);
        Histogram lag = new Histogram(HIGHEST_US, 3);
        long scheduled = 0, ok = 0, errors = 0, timeouts = 0, queued = 0, non200 = 0, inWindow = 0, warmupOk = 0, reconnects = 0;
        for (Worker wk : workers) {
            lat.add(wk.latency);
            lag.add(wk.sendLag);
            scheduled += wk.mScheduled; ok += wk.mOk; errors += wk.mErrors; timeouts += wk.mTimeouts;
            queued += wk.mQueued;
            non200 += wk.non200; inWindow += wk.completedInWindow; warmupOk += wk.warmupOk;
            reconnects += wk.reconnects;
        }
        long incomplete = scheduled - ok - errors - timeouts;
        double achieved = inWindow / durationS;

        if (hgrmFile != null) {
            try (PrintStream ps = new PrintStream(new FileOutputStream(hgrmFile), true, StandardCharsets.US_ASCII)) {
                if (lat.getTotalCount() > 0) lat.outputPercentileDistribution(ps, 5, 1000.0);
            }
        }

        double p50 = ms(lat, 50), p90 = ms(lat, 90), p99 = ms(lat, 99), p999 = ms(lat, 99.9);
        double max = lat.getTotalCount() == 0 ? Double.NaN : lat.getMaxValue() / 1000.0;
        double mean = lat.getTotalCount() == 0 ? Double.NaN : lat.getMean() / 1000.0;
        System.out.printf(Locale.ROOT, "%n=== E2eLoad %s ===%n", label);
        System.out.printf(Locale.ROOT, "connections %d, target rate %.1f req/s, warmup %.1f s, measured %.1f s, connect %d ms%n",
                connections, rate, warmupS, durationS, connectMs);
        System.out.printf(Locale.ROOT, "achieved %.1f req/s (responses received in the measured window)%n", achieved);
        System.out.printf(Locale.ROOT, "measured requests: scheduled %d, ok %d, errors %d (non-200 %d), timeouts %d, incomplete %d%n",
                scheduled, ok, errors, non200, timeouts, incomplete);
        System.out.printf(Locale.ROOT, "latency from intended send time (ms): p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f  mean %.3f%n",
                p50, p90, p99, p999, max, mean);
        System.out.printf(Locale.ROOT, "generator send lag (ms): p99 %.3f  max %.3f; queued behind a busy connection %.2f%%; reconnects %d; warmup ok %d%n",
                ms(lag, 99), lag.getTotalCount() == 0 ? Double.NaN : lag.getMaxValue() / 1000.0,
                scheduled == 0 ? Double.NaN : 100.0 * queued / scheduled, reconnects, warmupOk);

        StringBuilder j = new StringBuilder("{");
        jf(j, "label", label); jf(j, "connections", connections); jf(j, "rate_target", rate);
        jf(j, "warmup_s", warmupS); jf(j, "duration_s", durationS); jf(j, "connect_ms", connectMs);
        jf(j, "achieved_rate", achieved); jf(j, "responses_in_window", inWindow);
        jf(j, "scheduled", scheduled); jf(j, "ok", ok); jf(j, "errors", errors); jf(j, "non200", non200);
        jf(j, "timeouts", timeouts); jf(j, "incomplete", incomplete); jf(j, "reconnects", reconnects);
        jf(j, "p50_ms", p50); jf(j, "p90_ms", p90); jf(j, "p99_ms", p99); jf(j, "p999_ms", p999);
        jf(j, "max_ms", max); jf(j, "mean_ms", mean);
        jf(j, "send_lag_p99_ms", ms(lag, 99));
        jf(j, "send_lag_max_ms", lag.getTotalCount() == 0 ? Double.NaN : lag.getMaxValue() / 1000.0);
        jf(j, "queued_pct", scheduled == 0 ? Double.NaN : 100.0 * queued / scheduled);
        j.setLength(j.length() - 1);
        j.append('}');
        System.out.println("RESULT_JSON " + j);
        System.out.flush();
        System.exit(0);
    }

    static double ms(Histogram h, double pct) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(pct) / 1000.0;
    }

    static void jf(StringBuilder j, String k, Object v) {
        j.append('"').append(k).append("\":");
        if (v instanceof String s) j.append('"').append(s.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        else if (v instanceof Double d) j.append(d.isNaN() || d.isInfinite() ? "null" : String.format(Locale.ROOT, "%.6f", d));
        else j.append(v);
        j.append(',');
    }

    static void sleepUntil(long deadline) throws InterruptedException {
        long d;
        while ((d = deadline - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(d);
        }
    }

    static void fail(String msg) {
        System.err.println("E2eLoad: error: " + msg);
        System.out.println("RESULT_ERROR " + msg);
        System.out.flush();
        System.exit(3);
    }

    // ------------------------------------------------------------------

    static final int CONNECTING = 0, READY = 1, CLOSED = 2;

    static final class Conn {
        final int g;                  // global connection index: owns slots g, g+C, g+2C, ...
        SocketChannel ch;
        SelectionKey key;
        int state = CLOSED;
        long due;                     // requests whose intended time has come
        long sent;                    // requests sent (or failed)
        boolean inFlight;
        long intendedNs, sentNs;
        long freeNs;                  // when the connection last became free to send
        final ByteBuffer rbuf = ByteBuffer.allocate(4096);
        ByteBuffer pendingOut;
        Conn(int g) { this.g = g; }
    }

    static final class Worker extends Thread {
        final int w;
        final Conn[] conns;
        final Selector sel;
        final ByteBuffer req = ByteBuffer.allocateDirect(REQUEST_BYTES.length);
        final Histogram latency = new Histogram(HIGHEST_US, 3);
        final Histogram sendLag = new Histogram(HIGHEST_US, 3);
        long mScheduled, mOk, mErrors, mTimeouts, mQueued, non200, completedInWindow, warmupOk, reconnects;
        long completedTotal, lastCompleted, nextProgress;
        volatile String connectFailure;
        final double nsPerSlot = 1e9 / rate;
        final long timeoutNs = (long) (timeoutS * 1e9);
        final InetSocketAddress addr;

        Worker(int w) throws IOException {
            super("load-" + w);
            this.w = w;
            List<Conn> mine = new ArrayList<>();
            for (int g = w; g < connections; g += threads) mine.add(new Conn(g));
            conns = mine.toArray(new Conn[0]);
            sel = Selector.open();
            req.put(REQUEST_BYTES).flip();
            addr = new InetSocketAddress(host, port);
        }

        long intended(Conn c, long m) {
            return t0 + (long) ((c.g + (double) m * connections) * nsPerSlot);
        }

        @Override
        public void run() {
            try {
                connectAll();
            } catch (Exception e) {
                connectFailure = "connect: " + e;
            }
            workersConnected.countDown();
            if (connectFailure != null) return;
            try {
                go.await();
                loop();
            } catch (Exception e) {
                e.printStackTrace();
                System.exit(4);
            } finally {
                for (Conn c : conns) closeQuietly(c, true);
            }
        }

        void startConnect(Conn c) throws IOException {
            c.ch = SocketChannel.open();
            c.ch.configureBlocking(false);
            c.ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            c.rbuf.clear();
            c.pendingOut = null;
            c.inFlight = false;
            if (c.ch.connect(addr)) {
                c.state = READY;
                c.freeNs = System.nanoTime();
                c.key = c.ch.register(sel, SelectionKey.OP_READ, c);
            } else {
                c.state = CONNECTING;
                c.key = c.ch.register(sel, SelectionKey.OP_CONNECT, c);
            }
        }

        /** Completes a pending connect; returns true if now READY. */
        boolean finishConnect(Conn c) {
            try {
                if (c.ch.finishConnect()) {
                    c.state = READY;
                    c.freeNs = System.nanoTime();
                    c.key.interestOps(SelectionKey.OP_READ);
                    return true;
                }
                return false;
            } catch (IOException e) {
                closeQuietly(c, true);
                return false;
            }
        }

        void connectAll() throws IOException {
            final int maxPending = 256;
            long deadline = System.nanoTime() + (long) (connectTimeoutS * 1e9);
            int next = 0, ready = 0, pending = 0, failures = 0;
            while (ready < conns.length) {
                while (pending < maxPending && next < conns.length) {
                    Conn c = conns[next++];
                    startConnect(c);
                    if (c.state == READY) ready++; else pending++;
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException(ready + " of " + conns.length + " connections of worker " + w
                            + " established within " + connectTimeoutS + " s (" + failures + " failed attempts)");
                }
                if (failures > 1000 && ready == 0) {
                    throw new IOException("the server at " + addr + " refuses connections");
                }
                sel.select(100);
                Iterator<SelectionKey> it = sel.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey k = it.next();
                    it.remove();
                    Conn c = (Conn) k.attachment();
                    if (!k.isValid() || c.key != k || !k.isConnectable()) continue;
                    pending--;
                    if (finishConnect(c)) {
                        ready++;
                    } else if (c.state == CLOSED) {          // refused or reset: try again
                        failures++;
                        startConnect(c);
                        if (c.state == READY) ready++; else pending++;
                    } else {
                        pending++;                            // still in progress
                    }
                }
            }
        }

        long slot;                    // next slot index within this worker
        long nextDue;                 // its intended time
        boolean issuing = true;

        /** Sends every request whose intended time has come on a free connection. */
        void issueDue(long now) {
            final int n = conns.length;
            while (issuing && nextDue <= now) {
                if (nextDue >= measureEnd) { issuing = false; break; }
                Conn c = conns[(int) (slot % n)];
                c.due++;
                if (nextDue >= measureStart) mScheduled++;
                if (c.state == READY && !c.inFlight) send(c, now);
                slot++;
                nextDue = intended(conns[(int) (slot % n)], slot / n);
            }
            if (nextDue >= measureEnd) issuing = false;
        }

        void loop() throws IOException {
            nextDue = intended(conns[0], 0);
            long nextScan = System.nanoTime() + 100_000_000L;
            while (true) {
                long now = System.nanoTime();
                issueDue(now);
                if (now >= nextScan) {
                    nextScan = now + 100_000_000L;
                    if (progress && now >= nextProgress) {
                        nextProgress = now + 1_000_000_000L;
                        long backlog = 0, inflight = 0, ready = 0;
                        for (Conn c : conns) {
                            backlog += c.due - c.sent;
                            if (c.inFlight) inflight++;
                            if (c.state == READY) ready++;
                        }
                        System.err.printf(Locale.ROOT, "[%s t=%.1fs] completed %d, queued %d, in flight %d, ready %d%n",
                                getName(), (now - t0) / 1e9, completedTotal - lastCompleted, backlog, inflight, ready);
                        lastCompleted = completedTotal;
                    }
                    for (Conn c : conns) {
                        if (c.state == CLOSED && now < drainEnd) {
                            reconnects++;
                            startConnect(c);
                            if (c.state == READY && c.sent < c.due) send(c, now);
                        }
                    }
                }
                if (!issuing) {
                    if (now >= drainEnd) break;
                    if (allMeasuredDone()) break;
                }

                long wakeAt = Math.min(nextScan, issuing ? nextDue : drainEnd);
                long waitNs = wakeAt - System.nanoTime();
                if (waitNs <= spinNs) sel.selectNow();
                else if (spinNs > 0) sel.select(Math.max(1, (waitNs - spinNs) / 1_000_000));
                else sel.select(Math.max(1, (waitNs + 999_999) / 1_000_000));

                Iterator<SelectionKey> it = sel.selectedKeys().iterator();
                while (it.hasNext()) {
                    SelectionKey key = it.next();
                    it.remove();
                    Conn c = (Conn) key.attachment();
                    if (!key.isValid() || c.key != key) continue;
                    now = System.nanoTime();
                    if (key.isConnectable()) {
                        if (finishConnect(c) && c.sent < c.due) send(c, now);
                        continue;
                    }
                    if (key.isWritable()) {
                        try {
                            c.ch.write(c.pendingOut);
                            if (!c.pendingOut.hasRemaining()) {
                                c.pendingOut = null;
                                key.interestOps(SelectionKey.OP_READ);
                            }
                        } catch (IOException e) {
                            requestFailed(c);
                            closeQuietly(c, true);
                            continue;
                        }
                    }
                    if (key.isValid() && key.isReadable()) onReadable(c, now);
                    issueDue(System.nanoTime());       // a burst of responses does not delay sends
                }
            }
        }

        boolean allMeasuredDone() {
            if (mOk + mErrors + mTimeouts < mScheduled) return false;
            return true;
        }

        void send(Conn c, long now) {
            long m = c.sent++;
            c.intendedNs = intended(c, m);
            c.sentNs = now;
            c.inFlight = true;
            if (c.intendedNs >= measureStart && c.intendedNs < measureEnd) {
                long sendable = Math.max(c.intendedNs, c.freeNs);
                sendLag.recordValue(Math.min(HIGHEST_US, Math.max(0, (now - sendable) / 1000)));
                if (c.freeNs > c.intendedNs) mQueued++;
            }
            req.rewind();
            try {
                c.ch.write(req);
                if (req.hasRemaining()) {
                    ByteBuffer b = ByteBuffer.allocate(req.remaining());
                    b.put(req).flip();
                    c.pendingOut = b;
                    c.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                }
            } catch (IOException e) {
                requestFailed(c);
                closeQuietly(c, true);
            }
        }

        void onReadable(Conn c, long now) {
            int r;
            try {
                r = c.ch.read(c.rbuf);
            } catch (IOException e) {
                r = -1;
            }
            if (r < 0) {
                requestFailed(c);
                closeQuietly(c, true);
                return;
            }
            // A response is complete when the header block and Content-Length body are in.
            while (true) {
                byte[] a = c.rbuf.array();
                int lim = c.rbuf.position();
                int hdrEnd = -1;
                for (int i = 0; i + 3 < lim; i++) {
                    if (a[i] == '\r' && a[i + 1] == '\n' && a[i + 2] == '\r' && a[i + 3] == '\n') { hdrEnd = i; break; }
                }
                if (hdrEnd < 0) {
                    if (lim == a.length) { requestFailed(c); closeQuietly(c, true); }
                    return;
                }
                if (!c.inFlight) { closeQuietly(c, true); return; }   // unsolicited bytes
                long cl = contentLength(a, hdrEnd);
                if (cl < 0 || hdrEnd + 4 + cl > a.length) { requestFailed(c); closeQuietly(c, true); return; }
                int total = hdrEnd + 4 + (int) cl;
                if (lim < total) return;
                boolean is200 = lim >= 12 && a[9] == '2' && a[10] == '0' && a[11] == '0';
                // consume
                if (!is200) {
                    non200++;
                    requestFailed(c);
                    closeQuietly(c, true);
                    return;
                }
                System.arraycopy(a, total, a, 0, lim - total);
                c.rbuf.position(lim - total);
                c.inFlight = false;
                c.freeNs = now;
                long lat = now - c.intendedNs;
                if (c.intendedNs >= measureStart && c.intendedNs < measureEnd) {
                    latency.recordValue(Math.min(HIGHEST_US, Math.max(0, lat / 1000)));
                    if (now - c.sentNs > timeoutNs) mTimeouts++; else mOk++;
                } else if (c.intendedNs < measureStart) {
                    warmupOk++;
                }
                if (now >= measureStart && now < measureEnd) completedInWindow++;
                completedTotal++;
                if (c.sent < c.due) send(c, now);
                if (c.state != READY || c.rbuf.position() == 0) return;
            }
        }

        /** The in-flight request of c (if any) failed: connection error or bad response. */
        void requestFailed(Conn c) {
            if (!c.inFlight) return;
            c.inFlight = false;
            if (c.intendedNs >= measureStart && c.intendedNs < measureEnd) mErrors++;
        }

        void closeQuietly(Conn c, boolean reset) {
            if (c.ch == null) return;
            c.inFlight = false;
            try {
                if (reset && c.ch.isOpen() && c.state == READY) c.ch.setOption(StandardSocketOptions.SO_LINGER, 0);
            } catch (IOException ignore) { }
            try { c.ch.close(); } catch (IOException ignore) { }
            c.state = CLOSED;
            c.ch = null;
            c.key = null;
        }
    }

    static long contentLength(byte[] a, int hdrEnd) {
        // scan header lines for "content-length:" (case-insensitive)
        final byte[] name = "content-length:".getBytes(StandardCharsets.US_ASCII);
        int i = 0;
        while (i < hdrEnd) {
            int eol = i;
            while (eol < hdrEnd && a[eol] != '\r') eol++;
            if (eol - i > name.length) {
                boolean match = true;
                for (int j = 0; j < name.length; j++) {
                    if (Character.toLowerCase(a[i + j]) != name[j]) { match = false; break; }
                }
                if (match) {
                    long v = 0;
                    boolean digits = false;
                    for (int j = i + name.length; j < eol; j++) {
                        byte b = a[j];
                        if (b >= '0' && b <= '9') { v = v * 10 + (b - '0'); digits = true; }
                        else if (b != ' ' && b != '\t') return -1;
                    }
                    return digits ? v : -1;
                }
            }
            i = eol + 2;
        }
        return 0;
    }
}
