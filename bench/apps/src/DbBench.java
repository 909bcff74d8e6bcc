/*
 * ET-JDK third-party stack benchmark (bench/apps): MariaDB Connector/J on
 * virtual threads against a real MariaDB server, checking every result.
 *
 *   DbBench --setup --url URL [--rows 10000] [--owners 1000]
 *       creates database "bench" and table item(id, val, pad): rows 1..rows with
 *       val = 7*id and pad = "row-<id>" (never written by the workload), and
 *       one row per thread, id OWNER_BASE + t, that thread t alone updates
 *   DbBench --url URL --tx select|update --mode direct|hikari [--threads 100]
 *       [--pool 16] [--rows 10000] [--warmup-s 5] [--duration-s 15]
 *       [--perf-ctl FIFO --perf-ack FIFO] [--nonce N]
 *
 * Transactions (one per loop iteration of each virtual thread):
 *   select  SELECT id, val, pad FROM item WHERE id = ? with a random id in
 *           1..rows; a result that is not exactly that row is BAD
 *   update  in one transaction: UPDATE item SET val = ? WHERE id = <own row>
 *           (update count must be 1), SELECT val of that row (must be the value
 *           just written), COMMIT. After the run every thread's row must hold
 *           the last value the thread committed: one that does not is a LOST
 *           update. Values are nonce * 1e9 + a counter, so a value left by an
 *           earlier run never matches.
 * Connections: direct = one Connector/J connection per thread, opened before
 * the clock starts; hikari = a HikariCP pool of --pool connections (filled
 * before the clock starts) shared by the threads, one borrow per transaction.
 *
 * Timeline: warmup, then the measured window. With --perf-ctl/--perf-ack
 * (perf stat --control fifo:CTL,ACK) the counters are enabled at the start of
 * the window and disabled at its end; the transactions completed between the
 * two acks are the ones the counts are divided by. Latency: transactions that
 * completed inside the window, from the start of the transaction (borrowing
 * the connection included) to its last result; so a thread that waited long for
 * a pooled connection shows as a long latency. A thread that completed no
 * transaction inside the window is counted as STARVED.
 *
 * Prints "MEASURE_START", "MEASURE_END" and one line
 *   RESULT tx=N seconds=S rate=R p50_ms=.. p99_ms=.. p999_ms=.. max_ms=.. errors=N bad=N lost=N ...
 * Exits 0 when it ran (errors and bad results are in RESULT; the runner fails
 * the run on bad or lost), non-zero when it could not run.
 */

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

public final class DbBench {

    static final int OWNER_BASE = 1_000_000;

    static String url;
    static String tx = "select", mode = "direct";
    static int threads = 100, pool = 16, rows = 10_000, owners = 1_000;
    static double warmupS = 5, durationS = 15;
    static String perfCtl, perfAck;
    static long nonce = System.currentTimeMillis() / 1000;

    static volatile long measureStart, measureEnd;
    static volatile boolean stop;
    static final LongAdder completed = new LongAdder();
    static final LongAdder errors = new LongAdder();
    static final LongAdder bad = new LongAdder();
    static final AtomicLong firstError = new AtomicLong();
    static volatile String firstErrorText, firstBadText;

    public static void main(String[] args) throws Exception {
        boolean setup = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--setup" -> setup = true;
                case "--url" -> url = args[++i];
                case "--tx" -> tx = args[++i];
                case "--mode" -> mode = args[++i];
                case "--threads" -> threads = Integer.parseInt(args[++i]);
                case "--pool" -> pool = Integer.parseInt(args[++i]);
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--owners" -> owners = Integer.parseInt(args[++i]);
                case "--warmup-s" -> warmupS = Double.parseDouble(args[++i]);
                case "--duration-s" -> durationS = Double.parseDouble(args[++i]);
                case "--perf-ctl" -> perfCtl = args[++i];
                case "--perf-ack" -> perfAck = args[++i];
                case "--nonce" -> nonce = Long.parseLong(args[++i]);
                default -> fail("unknown argument " + a);
            }
        }
        if (url == null) fail("--url is required");
        if (setup) { setup(); return; }
        if (!tx.equals("select") && !tx.equals("update")) fail("--tx must be select or update");
        if (!mode.equals("direct") && !mode.equals("hikari")) fail("--mode must be direct or hikari");
        if (threads < 1 || threads > owners || pool < 1 || rows < 1 || durationS <= 0) fail("bad arguments");
        run();
    }

    static void fail(String msg) {
        System.err.println("DbBench: error: " + msg);
        System.exit(2);
    }

    // ------------------------------------------------------------ setup

    static void setup() throws SQLException {
        String server = url.replaceFirst("/bench\\b", "/");
        try (Connection c = DriverManager.getConnection(server); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS bench");
            s.execute("CREATE DATABASE bench");
            s.execute("CREATE TABLE bench.item (id INT NOT NULL PRIMARY KEY, val BIGINT NOT NULL, "
                    + "pad VARCHAR(64) NOT NULL) ENGINE=InnoDB");
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO bench.item (id, val, pad) VALUES (?, ?, ?)")) {
                for (int id = 1; id <= rows; id++) {
                    ps.setInt(1, id); ps.setLong(2, 7L * id); ps.setString(3, "row-" + id);
                    ps.addBatch();
                    if (id % 1000 == 0) ps.executeBatch();
                }
                for (int t = 0; t < owners; t++) {
                    ps.setInt(1, OWNER_BASE + t); ps.setLong(2, 0); ps.setString(3, "owner-" + t);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
            try (ResultSet r = s.executeQuery("SELECT COUNT(*), VERSION() FROM bench.item")) {
                r.next();
                if (r.getLong(1) != rows + owners) throw new SQLException("setup: " + r.getLong(1) + " rows");
                System.out.println("SETUP rows=" + rows + " owners=" + owners + " server=" + r.getString(2));
            }
        }
    }

    // ------------------------------------------------------------ workload

    interface Source extends AutoCloseable {
        Connection borrow(int t) throws SQLException;
        void giveBack(int t, Connection c, boolean broken);
        @Override void close();
    }

    /** One connection per thread, kept; reopened after an error breaks it. */
    static final class Direct implements Source {
        final Connection[] conns = new Connection[threads];
        Direct() throws SQLException {
            for (int t = 0; t < threads; t++) conns[t] = open();
        }
        Connection open() throws SQLException {
            Connection c = DriverManager.getConnection(url);
            c.setAutoCommit(tx.equals("select"));
            return c;
        }
        public Connection borrow(int t) throws SQLException {
            if (conns[t] == null) conns[t] = open();
            return conns[t];
        }
        public void giveBack(int t, Connection c, boolean broken) {
            if (broken) { closeQuietly(c); conns[t] = null; }
        }
        public void close() { for (Connection c : conns) closeQuietly(c); }
    }

    /** A HikariCP pool smaller than the thread count. */
    static final class Pool implements Source {
        final HikariDataSource ds;
        Pool() throws SQLException {
            HikariConfig cfg = new HikariConfig();
            cfg.setJdbcUrl(url);
            cfg.setPoolName("bench");
            cfg.setMaximumPoolSize(pool);
            cfg.setMinimumIdle(pool);
            cfg.setAutoCommit(tx.equals("select"));
            cfg.setConnectionTimeout(30_000);
            ds = new HikariDataSource(cfg);
            // fill the pool before the clock starts: hold every connection at once
            List<Connection> held = new ArrayList<>();
            try {
                for (int i = 0; i < pool; i++) held.add(ds.getConnection());
            } finally {
                for (Connection c : held) closeQuietly(c);
            }
        }
        public Connection borrow(int t) throws SQLException { return ds.getConnection(); }
        public void giveBack(int t, Connection c, boolean broken) {
            if (broken) {
                try { ds.evictConnection(c); } catch (RuntimeException ignore) { }
            }
            closeQuietly(c);  // back to the pool
        }
        public void close() { ds.close(); }
    }

    static void closeQuietly(Connection c) {
        if (c != null) try { c.close(); } catch (SQLException ignore) { }
    }

    static final class Worker implements Runnable {
        final int t;
        final Source src;
        long[] lat = new long[1024];
        int n;
        long lastCommitted = Long.MIN_VALUE;   // update: the value this thread last committed
        long inDoubt = Long.MIN_VALUE;         // written by a transaction that then failed: may have committed
        long counter;

        Worker(int t, Source src) { this.t = t; this.src = src; }

        public void run() {
            while (!stop) {
                long start = System.nanoTime();
                boolean ok = tx.equals("select") ? select() : update();
                long end = System.nanoTime();
                if (!ok) continue;
                completed.increment();
                if (end >= measureStart && end < measureEnd) {
                    if (n == lat.length) lat = Arrays.copyOf(lat, n * 2);
                    lat[n++] = end - start;
                }
            }
        }

        boolean select() {
            int id = ThreadLocalRandom.current().nextInt(1, rows + 1);
            Connection c = null;
            boolean broken = false;
            try {
                c = src.borrow(t);
                try (PreparedStatement ps = c.prepareStatement("SELECT id, val, pad FROM item WHERE id = ?")) {
                    ps.setInt(1, id);
                    try (ResultSet r = ps.executeQuery()) {
                        if (!r.next()) { badResult("select id " + id + ": no row"); return true; }
                        int gotId = r.getInt(1);
                        long val = r.getLong(2);
                        String pad = r.getString(3);
                        if (gotId != id || val != 7L * id || !("row-" + id).equals(pad)) {
                            badResult("select id " + id + ": got (" + gotId + ", " + val + ", " + pad + ")");
                        } else if (r.next()) {
                            badResult("select id " + id + ": more than one row");
                        }
                    }
                }
                return true;
            } catch (SQLException e) {
                broken = true;
                error(e);
                return false;
            } finally {
                if (c != null) src.giveBack(t, c, broken);
            }
        }

        boolean update() {
            int id = OWNER_BASE + t;
            long value = nonce * 1_000_000_000L + (++counter);
            Connection c = null;
            boolean broken = false;
            try {
                c = src.borrow(t);
                try (PreparedStatement up = c.prepareStatement("UPDATE item SET val = ? WHERE id = ?");
                     PreparedStatement get = c.prepareStatement("SELECT val FROM item WHERE id = ?")) {
                    up.setLong(1, value);
                    up.setInt(2, id);
                    int count = up.executeUpdate();
                    get.setInt(1, id);
                    long readBack;
                    try (ResultSet r = get.executeQuery()) {
                        readBack = r.next() ? r.getLong(1) : Long.MIN_VALUE;
                    }
                    c.commit();
                    lastCommitted = value;
                    if (count != 1) badResult("update id " + id + ": update count " + count);
                    else if (readBack != value) badResult("update id " + id + ": wrote " + value + ", read back " + readBack);
                }
                return true;
            } catch (SQLException e) {
                broken = true;
                inDoubt = value;
                try { if (c != null) c.rollback(); } catch (SQLException ignore) { }
                error(e);
                return false;
            } finally {
                if (c != null) src.giveBack(t, c, broken);
            }
        }
    }

    static void badResult(String what) {
        bad.increment();
        if (firstBadText == null) firstBadText = what;
    }

    static void error(SQLException e) {
        errors.increment();
        if (firstError.getAndIncrement() == 0) firstErrorText = e.toString();
        try { Thread.sleep(10); } catch (InterruptedException ignore) { }
    }

    static void run() throws Exception {
        long setupStart = System.nanoTime();
        Source src = mode.equals("direct") ? new Direct() : new Pool();
        System.out.printf(Locale.ROOT, "CONNECTED %s: %d %s in %d ms%n", mode,
                mode.equals("direct") ? threads : pool, "connections",
                (System.nanoTime() - setupStart) / 1_000_000);
        System.out.flush();

        Perf perf = perfCtl == null ? null : new Perf(perfCtl, perfAck);
        long t0 = System.nanoTime() + 50_000_000L;
        measureStart = t0 + (long) (warmupS * 1e9);
        measureEnd = measureStart + (long) (durationS * 1e9);
        Worker[] workers = new Worker[threads];
        Thread[] vts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Worker(t, src);
            vts[t] = Thread.ofVirtual().name("db-" + t).unstarted(workers[t]);
        }
        sleepUntil(t0);
        for (Thread v : vts) v.start();

        sleepUntil(measureStart);
        if (perf != null) perf.command("enable");
        long c0 = completed.sum(), w0 = System.nanoTime();
        System.out.println("MEASURE_START");
        System.out.flush();
        sleepUntil(measureEnd);
        long c1 = completed.sum(), w1 = System.nanoTime();
        if (perf != null) perf.command("disable");
        System.out.println("MEASURE_END");
        System.out.flush();
        stop = true;
        for (Thread v : vts) v.join();

        // lost updates: every owned row must hold the last value its thread committed
        long lost = 0, checked = 0;
        if (tx.equals("update")) {
            try (Connection c = DriverManager.getConnection(url);
                 PreparedStatement ps = c.prepareStatement("SELECT id, val FROM item WHERE id >= ? AND id < ?")) {
                ps.setInt(1, OWNER_BASE);
                ps.setInt(2, OWNER_BASE + threads);
                long[] got = new long[threads];
                Arrays.fill(got, Long.MIN_VALUE);
                try (ResultSet r = ps.executeQuery()) {
                    while (r.next()) got[r.getInt(1) - OWNER_BASE] = r.getLong(2);
                }
                for (int t = 0; t < threads; t++) {
                    Worker w = workers[t];
                    if (w.lastCommitted == Long.MIN_VALUE) continue;
                    checked++;
                    // a failed transaction after the last commit may have committed before failing
                    boolean doubt = w.inDoubt > w.lastCommitted && got[t] == w.inDoubt;
                    if (got[t] != w.lastCommitted && !doubt) {
                        lost++;
                        if (firstBadText == null) {
                            firstBadText = "lost update: row " + (OWNER_BASE + t) + " holds " + got[t]
                                    + ", thread committed " + workers[t].lastCommitted;
                        }
                    }
                }
            }
        }
        src.close();

        int total = 0, starved = 0, minPer = Integer.MAX_VALUE, maxPer = 0;
        for (Worker w : workers) {
            total += w.n;
            if (w.n == 0) starved++;
            minPer = Math.min(minPer, w.n);
            maxPer = Math.max(maxPer, w.n);
        }
        long[] all = new long[total];
        int k = 0;
        for (Worker w : workers) { System.arraycopy(w.lat, 0, all, k, w.n); k += w.n; }
        Arrays.sort(all);
        double secs = (w1 - w0) / 1e9;
        long tx = c1 - c0;
        System.out.printf(Locale.ROOT,
                "RESULT tx=%d seconds=%.6f rate=%.3f p50_ms=%.4f p99_ms=%.4f p999_ms=%.4f max_ms=%.4f "
                        + "latency_n=%d errors=%d bad=%d lost=%d rows_checked=%d threads=%d mode=%s pool=%d "
                        + "starved=%d per_thread_min=%d per_thread_max=%d%n",
                tx, secs, tx / secs, pct(all, 50), pct(all, 99), pct(all, 99.9),
                total == 0 ? Double.NaN : all[total - 1] / 1e6, total, errors.sum(), bad.sum(), lost, checked,
                threads, DbBench.mode, DbBench.mode.equals("hikari") ? pool : threads, starved, minPer, maxPer);
        if (firstErrorText != null) System.out.println("FIRST_ERROR " + firstErrorText);
        if (firstBadText != null) System.out.println("FIRST_BAD " + firstBadText);
        System.out.flush();
        System.exit(0);
    }

    /** Nearest-rank percentile of sorted nanoseconds, in ms. */
    static double pct(long[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))] / 1e6;
    }

    static void sleepUntil(long deadline) throws InterruptedException {
        long d;
        while ((d = deadline - System.nanoTime()) > 0) TimeUnit.NANOSECONDS.sleep(d);
    }

    /** perf stat --control fifo:CTL,ACK: write a command, wait for perf's "ack". */
    static final class Perf {
        final OutputStream ctl;
        final BufferedReader ack;
        Perf(String ctlPath, String ackPath) throws Exception {
            ctl = new FileOutputStream(ctlPath);
            ack = new BufferedReader(new InputStreamReader(new FileInputStream(ackPath), StandardCharsets.US_ASCII));
        }
        void command(String c) throws Exception {
            ctl.write((c + "\n").getBytes(StandardCharsets.US_ASCII));
            ctl.flush();
            String line = ack.readLine();
            if (line == null || !line.contains("ack")) throw new IllegalStateException("perf answered " + line + " to " + c);
        }
    }
}
