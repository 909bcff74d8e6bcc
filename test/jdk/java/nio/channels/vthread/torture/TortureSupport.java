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

import java.io.Closeable;
import java.io.EOFException;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.StandardSocketOptions;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import com.sun.management.HotSpotDiagnosticMXBean;
import sun.nio.ch.Poller;
import sun.nio.ch.SelChImpl;

/**
 * Support code shared by the torture tests in this directory (not a test itself).
 *
 * <p> System properties read by all torture tests:
 * <ul>
 * <li> {@code torture.long=true}: long mode (the iteration counts of the long runs,
 *      no time cap); the default is a short run of a few seconds.
 * <li> {@code torture.iterations=N}: number of iterations (overrides the default of
 *      the mode).
 * <li> {@code torture.seconds=S}: stop after S seconds even if the iterations are not
 *      done (default 3 in short mode, none in long mode; 0 = none).
 * <li> {@code torture.stallSeconds=S}: the watchdog declares a hang when no progress
 *      was made for S seconds (default 60).
 * </ul>
 */
final class TortureSupport {
    private TortureSupport() { }

    static final boolean LONG = Boolean.getBoolean("torture.long");
    static final long STALL_SECONDS = Long.getLong("torture.stallSeconds", 60);

    /**
     * Describes the poller configuration of this JVM.
     */
    static String config() {
        return "jdk.pollerEdgeTriggered=" + System.getProperty("jdk.pollerEdgeTriggered", "(unset)")
                + " jdk.pollerMode=" + System.getProperty("jdk.pollerMode", "(unset)")
                + " jdk.readPollers=" + System.getProperty("jdk.readPollers", "(unset)")
                + " parallelism=" + System.getProperty("jdk.virtualThreadScheduler.parallelism", "(unset)")
                + " mode=" + (LONG ? "long" : "short");
    }

    /**
     * True if the read pollers of this JVM are expected to be edge-triggered: the
     * poller mode is 1, 2 (the default on Linux) or 4, and jdk.pollerEdgeTriggered
     * is true, or not set while the mode is set explicitly.
     */
    static boolean expectEdgeTriggered() {
        String et = System.getProperty("jdk.pollerEdgeTriggered");
        String mode = System.getProperty("jdk.pollerMode");
        boolean on = (et != null) ? et.equals("true") : (mode != null);
        String m = (mode != null) ? mode : "2";
        return on && (m.equals("1") || m.equals("2") || m.equals("4"));
    }

    /**
     * Pauses a loop that waits for another thread to reach a state, after its
     * {@code check}-th check (from 0). Yielding alone can livelock: two virtual
     * threads that yield in turn on one carrier's local queue keep that carrier
     * to themselves (the scheduler of JDK 27+34: four yield-spinning threads hung
     * FdReuseChurn#default with two carriers). So the first 64 checks yield, and
     * later ones park for 100 us, which frees the carrier.
     */
    static void pauseWhileWaiting(int check) {
        if (check < 64) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(100_000L);
        }
    }

    // -- iteration budget --

    /**
     * An iteration budget shared by worker threads: a number of iterations and an
     * optional time cap.
     */
    static final class Budget {
        final long iterations;
        final long maxNanos;             // 0 = no time cap
        final long startNanos = System.nanoTime();
        private final AtomicLong claimed = new AtomicLong();
        private final LongAdder done = new LongAdder();
        private volatile boolean timeUp;

        Budget(long shortIterations, long longIterations) {
            this.iterations = Long.getLong("torture.iterations", LONG ? longIterations : shortIterations);
            long seconds = Long.getLong("torture.seconds", LONG ? 0 : 3);
            this.maxNanos = TimeUnit.SECONDS.toNanos(seconds);
        }

        /** Claims one iteration, returns false when the budget is used up. */
        boolean claim() {
            return claim(1) == 1;
        }

        /** Claims up to n iterations, returns the number claimed (0 when used up). */
        long claim(long n) {
            if (timeUp || (maxNanos > 0 && System.nanoTime() - startNanos > maxNanos)) {
                timeUp = true;
                return 0;
            }
            long before = claimed.getAndAdd(n);
            if (before >= iterations)
                return 0;
            return Math.min(n, iterations - before);
        }

        void done(long n) {
            done.add(n);
        }

        long done() {
            return done.sum();
        }

        boolean stoppedByTime() {
            return timeUp;
        }

        double seconds() {
            return (System.nanoTime() - startNanos) / 1e9;
        }

        @Override
        public String toString() {
            return "iterations=" + iterations + (maxNanos > 0
                    ? " (or " + TimeUnit.NANOSECONDS.toSeconds(maxNanos) + " s)" : "");
        }
    }

    // -- watchdog --

    /**
     * Something the watchdog can describe when it detects a hang: normally a worker
     * that says what it is waiting for.
     */
    interface Watched {
        Thread thread();
        String describe();
    }

    /**
     * A watchdog (platform daemon thread) that detects a lack of progress. On a stall
     * it prints what each watched worker was waiting for, the read pollers' state and
     * a thread dump that includes virtual threads, then interrupts the main thread so
     * that the test fails (and halts the VM if the main thread does not react).
     */
    static final class Watchdog implements AutoCloseable {
        private final String name;
        private final Thread mainThread = Thread.currentThread();
        private final LongAdder progress = new LongAdder();
        private final Set<Watched> watched = ConcurrentHashMap.newKeySet();
        private final Thread thread;
        private volatile boolean closed;
        private volatile String failure;

        Watchdog(String name) {
            this.name = name;
            this.thread = Thread.ofPlatform().daemon().name("torture-watchdog").start(this::run);
        }

        void progress() {
            progress.increment();
        }

        void watch(Watched w) {
            watched.add(w);
        }

        void unwatch(Watched w) {
            watched.remove(w);
        }

        /** Throws if the watchdog fired. */
        void check() {
            String f = failure;
            if (f != null)
                throw new RuntimeException(f);
        }

        /** Waits for a thread to terminate, failing if the watchdog fires. */
        void join(Thread t) {
            try {
                while (!t.join(java.time.Duration.ofMillis(500))) {
                    check();
                }
            } catch (InterruptedException e) {
                check();
                throw new RuntimeException(e);
            }
            check();
        }

        /** Waits for a future, failing if the watchdog fires. */
        <T> T await(CompletableFuture<T> f) {
            while (true) {
                try {
                    return f.get(500, TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.TimeoutException e) {
                    check();
                } catch (InterruptedException e) {
                    check();
                    throw new RuntimeException(e);
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new RuntimeException(e.getCause());
                }
            }
        }

        private void run() {
            long stallNanos = TimeUnit.SECONDS.toNanos(STALL_SECONDS);
            long last = -1;
            long lastChange = System.nanoTime();
            while (!closed) {
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException e) {
                    continue;
                }
                long p = progress.sum();
                long now = System.nanoTime();
                if (p != last) {
                    last = p;
                    lastChange = now;
                } else if (now - lastChange > stallNanos && !closed) {
                    fire(p);
                    return;
                }
            }
        }

        private void fire(long p) {
            StringBuilder sb = new StringBuilder();
            String msg = "HANG in " + name + ": no progress for " + STALL_SECONDS
                    + " s (progress count " + p + "), " + watched.size() + " workers waiting";
            sb.append("\n=== ").append(msg).append(" ===\n");
            sb.append("config: ").append(config()).append('\n');
            int n = 0;
            String firstWait = null;
            for (Watched w : watched) {
                Thread t = w.thread();
                String d = w.describe();
                if (firstWait == null)
                    firstWait = d;
                if (n++ >= 40) {
                    sb.append("  ... (more workers)\n");
                    break;
                }
                sb.append("  waiting: ").append(d);
                if (t != null) {
                    sb.append("\n    ").append(t).append(" state=").append(t.getState()).append('\n');
                    for (StackTraceElement e : t.getStackTrace())
                        sb.append("      at ").append(e).append('\n');
                } else {
                    sb.append('\n');
                }
            }
            sb.append("read pollers:\n").append(PollerProbe.describeAll());
            sb.append("udp: ").append(udpCounters()).append('\n');
            System.out.println(sb);
            System.out.println(dumpThreads());
            System.out.flush();
            failure = msg + (firstWait != null ? "; e.g. " + firstWait : "");
            mainThread.interrupt();
            try {
                Thread.sleep(30_000);
            } catch (InterruptedException ignore) { }
            if (!closed) {
                System.out.println("main thread did not terminate, halting the VM");
                System.out.flush();
                Runtime.getRuntime().halt(97);
            }
        }

        @Override
        public void close() {
            closed = true;
            thread.interrupt();
        }
    }

    /**
     * Dumps all threads, including virtual threads, to a file in the current directory
     * and returns its first lines.
     */
    static String dumpThreads() {
        try {
            Path file = Path.of("threads-" + ProcessHandle.current().pid()
                    + "-" + System.nanoTime() + ".txt").toAbsolutePath();
            HotSpotDiagnosticMXBean bean = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            bean.dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
            List<String> lines = Files.readAllLines(file);
            int max = 4000;
            StringBuilder sb = new StringBuilder("=== thread dump (" + file + ", "
                    + lines.size() + " lines) ===\n");
            for (int i = 0; i < Math.min(max, lines.size()); i++)
                sb.append(lines.get(i)).append('\n');
            if (lines.size() > max)
                sb.append("... truncated, see ").append(file).append('\n');
            return sb.toString();
        } catch (Exception e) {
            return "thread dump failed: " + e;
        }
    }

    /**
     * Returns the kernel's UDP counters (a dropped datagram is the kernel's doing, not
     * the poller's).
     */
    static String udpCounters() {
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/net/snmp"));
            String names = null;
            for (String l : lines) {
                if (l.startsWith("Udp:")) {
                    if (names == null) {
                        names = l;
                    } else {
                        String[] k = names.split("\\s+");
                        String[] v = l.split("\\s+");
                        StringBuilder sb = new StringBuilder();
                        for (int i = 1; i < Math.min(k.length, v.length); i++) {
                            if (k[i].contains("Errors"))
                                sb.append(k[i]).append('=').append(v[i]).append(' ');
                        }
                        return sb.toString().trim();
                    }
                }
            }
        } catch (Exception e) {
            return "n/a (" + e + ")";
        }
        return "n/a";
    }

    static long udpRcvbufErrors() {
        for (String kv : udpCounters().split(" ")) {
            if (kv.startsWith("RcvbufErrors="))
                return Long.parseLong(kv.substring("RcvbufErrors=".length()));
        }
        return -1;
    }

    // -- white box: the read pollers --

    /**
     * White-box access to the read pollers ({@code sun.nio.ch.Poller}): the
     * edge-triggered registration map, the one-shot map and the statistics.
     */
    static final class PollerProbe {
        private static final Field REGISTRATIONS;
        private static final Field MAP;
        private static final Field STATS;
        private static final String[] STAT_NAMES = {
            "registrations", "reusedRegistrations", "idleEdges", "retries", "deregistrations"
        };
        static {
            try {
                REGISTRATIONS = Poller.class.getDeclaredField("registrations");
                REGISTRATIONS.setAccessible(true);
                MAP = Poller.class.getDeclaredField("map");
                MAP.setAccessible(true);
                STATS = Poller.class.getDeclaredField("stats");
                STATS.setAccessible(true);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        /** A copy of the edge-triggered registrations, fd -> state; null if one-shot. */
        static Map<Integer, Object> registrations(Poller p) {
            try {
                Object registrations = REGISTRATIONS.get(p);
                if (registrations == null)
                    return null;
                Field f = registrations.getClass().getDeclaredField("chunks");
                f.setAccessible(true);
                Object[][] chunks = (Object[][]) f.get(registrations);
                // indexed by fd >>> log2(read pollers); the low bits are the poller's index
                Field shiftField = registrations.getClass().getDeclaredField("fdShift");
                shiftField.setAccessible(true);
                int shift = shiftField.getInt(registrations);
                int index = Poller.readPollers().indexOf(p);
                Map<Integer, Object> map = new TreeMap<>();
                for (int c = 0; c < chunks.length; c++) {
                    Object[] chunk = chunks[c];
                    for (int i = 0; chunk != null && i < chunk.length; i++) {
                        if (chunk[i] != null)
                            map.put(((c * chunk.length + i) << shift) | index, chunk[i]);
                    }
                }
                return map;
            } catch (ReflectiveOperationException e) {
                throw new RuntimeException(e);
            }
        }

        static Map<?, ?> oneShotMap(Poller p) {
            try {
                return (Map<?, ?>) MAP.get(p);
            } catch (IllegalAccessException e) {
                throw new RuntimeException(e);
            }
        }

        /** Returns the statistics, in the order of STAT_NAMES, or null. */
        static long[] stats(Poller p) {
            try {
                Object stats = STATS.get(p);
                if (stats == null)
                    return null;
                long[] values = new long[STAT_NAMES.length];
                for (int i = 0; i < STAT_NAMES.length; i++) {
                    Field f = stats.getClass().getDeclaredField(STAT_NAMES[i]);
                    f.setAccessible(true);
                    values[i] = ((LongAdder) f.get(stats)).sum();
                }
                return values;
            } catch (ReflectiveOperationException e) {
                throw new RuntimeException(e);
            }
        }

        /** A snapshot of the read pollers. */
        record Snapshot(int pollers, int edgeTriggered, Map<Integer, String> registered,
                        int oneShot, long[] stats) {
            long stat(String name) {
                for (int i = 0; i < STAT_NAMES.length; i++)
                    if (STAT_NAMES[i].equals(name))
                        return stats[i];
                throw new IllegalArgumentException(name);
            }

            String statsString() {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < STAT_NAMES.length; i++)
                    sb.append(i == 0 ? "" : " ").append(STAT_NAMES[i]).append('=').append(stats[i]);
                return sb.toString();
            }
        }

        static Snapshot snapshot() {
            List<Poller> pollers = Poller.readPollers();
            int et = 0;
            int oneShot = 0;
            Map<Integer, String> registered = new TreeMap<>();
            long[] stats = new long[STAT_NAMES.length];
            for (Poller p : pollers) {
                oneShot += oneShotMap(p).size();
                Map<Integer, Object> regs = registrations(p);
                if (regs != null) {
                    et++;
                    regs.forEach((fd, state) -> registered.put(fd, stateName(state)));
                    long[] s = stats(p);
                    for (int i = 0; i < s.length; i++)
                        stats[i] += s[i];
                }
            }
            return new Snapshot(pollers.size(), et, registered, oneShot, stats);
        }

        private static String stateName(Object state) {
            if (state instanceof Thread t)
                return "Thread[" + t.threadId() + "," + t.getState() + "]";
            // REGISTERED and POLLED are distinguished by identity only
            return "state@" + Integer.toHexString(System.identityHashCode(state));
        }

        static String describeAll() {
            StringBuilder sb = new StringBuilder();
            try {
                for (Poller p : Poller.readPollers()) {
                    sb.append("  ").append(p).append('\n');
                    Map<Integer, Object> regs = registrations(p);
                    if (regs != null && !regs.isEmpty()) {
                        Map<Integer, String> m = new TreeMap<>();
                        regs.forEach((fd, s) -> m.put(fd, stateName(s)));
                        sb.append("    registrations: ").append(m).append('\n');
                    }
                    Map<?, ?> map = oneShotMap(p);
                    if (!map.isEmpty())
                        sb.append("    one-shot map: ").append(map).append('\n');
                }
            } catch (Throwable e) {
                sb.append("  (failed: ").append(e).append(")\n");
            }
            return sb.toString();
        }

        /**
         * Checks the read pollers once everything the test opened is closed and all
         * its threads have terminated: the configuration is the expected one, no
         * registration or parked thread is left behind beyond the baseline, and the
         * counters balance: registrations - deregistrations == registered now.
         * Returns a one-line summary.
         */
        static String checkAtEnd(Snapshot baseline) throws InterruptedException {
            Snapshot s = snapshot();
            // the last readers may still be on their way out of the poller
            for (int i = 0; i < 100 && !settled(baseline, s); i++) {
                Thread.sleep(50);
                s = snapshot();
            }
            boolean expectET = expectEdgeTriggered();
            List<String> errors = new ArrayList<>();
            if (expectET && s.edgeTriggered() == 0)
                errors.add("expected edge-triggered read pollers, found none");
            if (!expectET && s.edgeTriggered() != 0)
                errors.add("expected one-shot read pollers only, found " + s.edgeTriggered()
                        + " edge-triggered");
            if (expectET && s.stat("registrations") == 0)
                errors.add("edge-triggered pollers made no registration: the test did not exercise them");
            if (!s.registered().keySet().equals(baseline.registered().keySet()))
                errors.add("registrations left behind: baseline " + baseline.registered()
                        + ", now " + s.registered());
            if (s.oneShot() != baseline.oneShot())
                errors.add("one-shot poll map size " + s.oneShot() + ", baseline " + baseline.oneShot());
            long balance = s.stat("registrations") - s.stat("deregistrations");
            if (balance != s.registered().size())
                errors.add("counters do not balance: registrations - deregistrations = "
                        + balance + " but " + s.registered().size() + " registered");
            String summary = "pollers=" + s.pollers() + " edgeTriggered=" + s.edgeTriggered()
                    + " registeredAtEnd=" + s.registered().size()
                    + " (baseline " + baseline.registered().size() + ") " + s.statsString();
            if (!errors.isEmpty()) {
                System.out.println(describeAll());
                throw new RuntimeException("poller check failed: " + errors + "; " + summary);
            }
            return summary;
        }

        private static boolean settled(Snapshot baseline, Snapshot s) {
            return s.registered().keySet().equals(baseline.registered().keySet())
                    && s.oneShot() == baseline.oneShot();
        }
    }

    // -- checksummed byte streams --

    /**
     * A deterministic pseudo-random byte stream (xorshift64*): a sender generates
     * bytes with it, the receiver verifies them with another instance of the same seed.
     */
    static final class ByteSeq {
        private long state;
        private long word;
        private int left;
        private long position;

        ByteSeq(long seed) {
            this.state = (seed * 0x9E3779B97F4A7C15L) ^ 0xD1B54A32D192ED03L;
            if (state == 0)
                state = 1;
        }

        byte next() {
            if (left == 0) {
                long x = state;
                x ^= x >>> 12;
                x ^= x << 25;
                x ^= x >>> 27;
                state = x;
                word = x * 0x2545F4914F6CDD1DL;
                left = 8;
            }
            byte b = (byte) word;
            word >>>= 8;
            left--;
            position++;
            return b;
        }

        int nextInt(int bound) {
            int v = ((next() & 0xff) << 16) | ((next() & 0xff) << 8) | (next() & 0xff);
            return v % bound;
        }

        void fill(byte[] b, int off, int len) {
            for (int i = 0; i < len; i++)
                b[off + i] = next();
        }

        /** Verifies bytes, throws on the first mismatch saying where. */
        void verify(byte[] b, int off, int len, String what) {
            for (int i = 0; i < len; i++) {
                long pos = position;
                byte expected = next();
                if (b[off + i] != expected) {
                    throw new RuntimeException(what + ": byte " + pos + " is " + (b[off + i] & 0xff)
                            + ", expected " + (expected & 0xff) + " (lost, reordered or corrupt data)");
                }
            }
        }

        long position() {
            return position;
        }
    }

    // -- connections --

    enum Kind {
        /** java.nio SocketChannel over TCP, channel reads. */
        TCP_CHANNEL,
        /** java.nio SocketChannel over TCP, reads via its socket adaptor (timed reads). */
        TCP_ADAPTOR,
        /** java.net.Socket (NioSocketImpl) over TCP. */
        TCP_SOCKET,
        /** java.nio SocketChannel over a Unix domain socket. */
        UNIX_CHANNEL
    }

    /**
     * One end of a connection, with a uniform blocking API over SocketChannel and
     * Socket.
     */
    abstract static class Conn implements Closeable {
        final Kind kind;
        final int fd;

        Conn(Kind kind, int fd) {
            this.kind = kind;
            this.fd = fd;
        }

        abstract int read(byte[] b, int off, int len) throws IOException;
        abstract void write(byte[] b, int off, int len) throws IOException;
        abstract void shutdownOutput() throws IOException;
        abstract boolean isOpen();
        abstract void setReadTimeout(int millis) throws IOException;
        abstract void setLingerZero() throws IOException;

        void readFully(byte[] b, int off, int len) throws IOException {
            while (len > 0) {
                int n = read(b, off, len);
                if (n < 0)
                    throw new EOFException("EOF with " + len + " bytes to read");
                off += n;
                len -= n;
            }
        }

        void writeLong(long v) throws IOException {
            write(ByteBuffer.allocate(8).putLong(v).array(), 0, 8);
        }

        long readLong() throws IOException {
            byte[] b = new byte[8];
            readFully(b, 0, 8);
            return ByteBuffer.wrap(b).getLong();
        }

        @Override
        public String toString() {
            return kind + " fd " + fd;
        }
    }

    static final class ChannelConn extends Conn {
        final SocketChannel sc;
        private InputStream in;
        private OutputStream out;

        ChannelConn(SocketChannel sc, Kind kind) {
            super(kind, ((SelChImpl) sc).getFDVal());
            this.sc = sc;
            if (kind == Kind.TCP_ADAPTOR) {
                try {
                    in = sc.socket().getInputStream();
                    out = sc.socket().getOutputStream();
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }
        }

        @Override
        int read(byte[] b, int off, int len) throws IOException {
            if (in != null)
                return in.read(b, off, len);
            return sc.read(ByteBuffer.wrap(b, off, len));
        }

        @Override
        void write(byte[] b, int off, int len) throws IOException {
            if (out != null) {
                out.write(b, off, len);
                return;
            }
            ByteBuffer bb = ByteBuffer.wrap(b, off, len);
            while (bb.hasRemaining())
                sc.write(bb);
        }

        @Override
        void shutdownOutput() throws IOException {
            sc.shutdownOutput();
        }

        @Override
        boolean isOpen() {
            return sc.isOpen();
        }

        @Override
        void setReadTimeout(int millis) throws IOException {
            if (in == null)
                throw new UnsupportedOperationException("channel reads have no timeout");
            sc.socket().setSoTimeout(millis);
        }

        @Override
        void setLingerZero() throws IOException {
            if (kind != Kind.UNIX_CHANNEL)
                sc.setOption(StandardSocketOptions.SO_LINGER, 0);
        }

        @Override
        public void close() throws IOException {
            sc.close();
        }
    }

    static final class SocketConn extends Conn {
        final Socket s;
        private final InputStream in;
        private final OutputStream out;

        SocketConn(Socket s) throws IOException {
            super(Kind.TCP_SOCKET, fdVal(s));
            this.s = s;
            this.in = s.getInputStream();
            this.out = s.getOutputStream();
        }

        @Override
        int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, len);
        }

        @Override
        void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        void shutdownOutput() throws IOException {
            s.shutdownOutput();
        }

        @Override
        boolean isOpen() {
            return !s.isClosed();
        }

        @Override
        void setReadTimeout(int millis) throws IOException {
            s.setSoTimeout(millis);
        }

        @Override
        void setLingerZero() throws IOException {
            s.setSoLinger(true, 0);
        }

        @Override
        public void close() throws IOException {
            s.close();
        }
    }

    private static final Field SOCKET_IMPL;
    private static final Field FD_FD;
    static {
        try {
            SOCKET_IMPL = Socket.class.getDeclaredField("impl");
            SOCKET_IMPL.setAccessible(true);
            FD_FD = FileDescriptor.class.getDeclaredField("fd");
            FD_FD.setAccessible(true);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The file descriptor number of a connected java.net.Socket: the "fd" field of its
     * platform SocketImpl (sun.nio.ch.NioSocketImpl), which the Socket's SocksSocketImpl
     * wraps (java.net.DelegatingSocketImpl's "delegate" field).
     */
    static int fdVal(Socket s) {
        try {
            Object impl = SOCKET_IMPL.get(s);
            while (true) {
                Field delegate = findField(impl.getClass(), "delegate");
                if (delegate == null)
                    break;
                impl = delegate.get(impl);
            }
            Field f = findField(impl.getClass(), "fd");
            if (f != null && f.get(impl) instanceof FileDescriptor fd)
                return FD_FD.getInt(fd);
            throw new RuntimeException("no file descriptor in " + impl.getClass().getName());
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    private static Field findField(Class<?> c, String name) {
        for (; c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f;
            } catch (NoSuchFieldException e) {
                // try the superclass
            }
        }
        return null;
    }

    /**
     * Loopback servers (TCP ServerSocketChannel, TCP java.net.ServerSocket, Unix domain
     * ServerSocketChannel), each accepting in a virtual thread. A client connects and
     * writes an 8-byte id; a virtual thread reads the id and completes the future the
     * test obtains with {@link #accepted(long)}.
     */
    static final class Servers implements Closeable {
        private final Watchdog watchdog;
        private final ServerSocketChannel tcp;
        private final ServerSocket tcpSocket;
        private final ServerSocketChannel unix;
        private final Path unixPath;
        private final List<Thread> acceptors = new ArrayList<>();
        private final Map<Long, CompletableFuture<Conn>> pending = new ConcurrentHashMap<>();
        private final LongAdder accepted = new LongAdder();
        private volatile boolean closed;

        Servers(Watchdog watchdog) throws IOException {
            this.watchdog = watchdog;
            InetAddress lb = InetAddress.getLoopbackAddress();
            tcp = ServerSocketChannel.open();
            tcp.bind(new InetSocketAddress(lb, 0), 4096);
            tcpSocket = new ServerSocket();
            tcpSocket.bind(new InetSocketAddress(lb, 0), 4096);
            unixPath = Path.of(System.getProperty("java.io.tmpdir"),
                    "torture-" + ProcessHandle.current().pid() + "-" + System.nanoTime() + ".sock");
            unix = ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX);
            unix.bind(UnixDomainSocketAddress.of(unixPath), 4096);
            acceptors.add(Thread.ofVirtual().name("acceptor-tcp").start(() -> acceptLoop(tcp)));
            acceptors.add(Thread.ofVirtual().name("acceptor-unix").start(() -> acceptLoop(unix)));
            acceptors.add(Thread.ofVirtual().name("acceptor-socket").start(this::acceptLoopSocket));
        }

        private void acceptLoop(ServerSocketChannel ssc) {
            while (!closed) {
                try {
                    SocketChannel sc = ssc.accept();
                    accepted.increment();
                    Kind kind = (ssc == unix) ? Kind.UNIX_CHANNEL : Kind.TCP_CHANNEL;
                    Thread.ofVirtual().start(() -> handshake(new ChannelConn(sc, kind)));
                } catch (IOException e) {
                    if (!closed)
                        e.printStackTrace();
                }
            }
        }

        private void acceptLoopSocket() {
            while (!closed) {
                try {
                    Socket s = tcpSocket.accept();
                    accepted.increment();
                    Conn c = new SocketConn(s);
                    Thread.ofVirtual().start(() -> handshake(c));
                } catch (IOException e) {
                    if (!closed)
                        e.printStackTrace();
                }
            }
        }

        private void handshake(Conn c) {
            long id;
            try {
                id = c.readLong();
            } catch (IOException e) {
                System.out.println("server handshake failed on " + c + ": " + e);
                try {
                    c.close();
                } catch (IOException ignore) { }
                return;
            }
            pending.computeIfAbsent(id, k -> new CompletableFuture<>()).complete(c);
        }

        /**
         * Connects a client of the given kind and sends the id.
         */
        Conn connect(Kind kind, long id) throws IOException {
            Conn c;
            switch (kind) {
                case TCP_CHANNEL, TCP_ADAPTOR -> c = new ChannelConn(SocketChannel.open(tcp.getLocalAddress()), kind);
                case UNIX_CHANNEL -> c = new ChannelConn(SocketChannel.open(unix.getLocalAddress()), kind);
                case TCP_SOCKET -> {
                    Socket s = new Socket();
                    try {
                        s.connect(tcpSocket.getLocalSocketAddress());
                    } catch (IOException e) {
                        s.close();
                        throw e;
                    }
                    c = new SocketConn(s);
                }
                default -> throw new AssertionError();
            }
            c.writeLong(id);
            return c;
        }

        /** Returns the server end of the connection whose client sent the id. */
        Conn accepted(long id) {
            CompletableFuture<Conn> f = pending.computeIfAbsent(id, k -> new CompletableFuture<>());
            Conn c = watchdog.await(f);
            pending.remove(id);
            return c;
        }

        long acceptedCount() {
            return accepted.sum();
        }

        @Override
        public void close() throws IOException {
            closed = true;
            tcp.close();
            tcpSocket.close();
            unix.close();
            for (Thread t : acceptors)
                watchdog.join(t);
            Files.deleteIfExists(unixPath);
            for (CompletableFuture<Conn> f : pending.values()) {
                Conn c = f.getNow(null);
                if (c != null)
                    c.close();
            }
        }
    }

    static void closeQuietly(Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignore) { }
        }
    }

    /**
     * Returns " spins=N" with the number of spins of idle carriers (mode 4, see
     * jdk.pollerSpinMicros), or "" if they do not spin.
     * @throws RuntimeException if the test sets jdk.pollerSpinMicros above 0 and
     * no idle carrier spun
     */
    private static String carrierSpins() {
        String pollers = Poller.readPollers().toString();
        var m = java.util.regex.Pattern.compile("spins of up to \\d+ us = (\\d+)")
                .matcher(pollers);
        long spins = m.find() ? Long.parseLong(m.group(1)) : -1;
        if (Integer.getInteger("jdk.pollerSpinMicros", 0) > 0 && spins <= 0) {
            throw new RuntimeException("jdk.pollerSpinMicros is set, but no idle carrier"
                    + " spun: the test did not exercise the spin: " + pollers);
        }
        return (spins >= 0) ? " spins=" + spins : "";
    }

    /** Prints the machine-readable result line that tools/torture.sh collects. */
    static void summary(String test, Budget budget, String extra, String pollers) {
        double secs = budget.seconds();
        long done = budget.done();
        String line = String.format("TORTURE-SUMMARY test=%s iterations=%d seconds=%.1f rate=%.0f/s"
                        + " stoppedByTime=%s %s | %s | %s",
                test, done, secs, done / Math.max(secs, 1e-9), budget.stoppedByTime(),
                extra, pollers + carrierSpins(), config());
        System.out.println(line);
    }
}
