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

package etjdk.poller;

import java.io.Closeable;
import java.io.FileDescriptor;
import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketImpl;
import java.nio.ByteBuffer;
import java.nio.channels.Channel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import com.sun.management.HotSpotDiagnosticMXBean;

/**
 * White-box access to the edge-triggered read pollers ({@code sun.nio.ch.Poller})
 * and the watchdog used by the edge-triggered poller tests.
 *
 * <p> Everything internal is reached by reflection, so the tests using this class
 * need {@code @modules java.base/sun.nio.ch:+open} (and {@code java.base/java.net:+open}
 * to find the file descriptor of a {@link Socket}).
 *
 * <p> Every wait is bounded by {@link #TIMEOUT_MILLIS} (30 s scaled by the jtreg
 * timeout factor). When a wait times out, the watchdog prints a thread dump that
 * includes virtual threads and the state of every read poller, then fails the test
 * with a message that names what it was waiting for. A lost edge shows up that way.
 */
public final class PollerTestSupport {
    private PollerTestSupport() { }

    public static final boolean IS_LINUX = System.getProperty("os.name").startsWith("Linux");

    /** the value of -Djdk.pollerMode, or "" if not set */
    public static final String POLLER_MODE = System.getProperty("jdk.pollerMode", "");

    /**
     * true if the test's options ask for edge-triggered read pollers:
     * -Djdk.pollerEdgeTriggered=true, or an explicit -Djdk.pollerMode=1|2|4 with
     * jdk.pollerEdgeTriggered not set (mode 3 read pollers stay one-shot anyway).
     */
    public static final boolean ET_REQUESTED = switch (String.valueOf(
            System.getProperty("jdk.pollerEdgeTriggered"))) {
        case "true" -> true;
        case "null" -> POLLER_MODE.equals("1") || POLLER_MODE.equals("2") || POLLER_MODE.equals("4");
        default -> false;
    };

    /** the bound on every wait in the tests */
    public static final long TIMEOUT_MILLIS = Math.round(30_000 *
            Double.parseDouble(System.getProperty("test.timeout.factor", "1.0")));

    // sun.nio.ch internals
    private static final Method READ_POLLERS;
    private static final Method WRITE_POLLERS;
    private static final Method MASTER_POLLER;
    private static final Method POLL;
    private static final Method POLLER_FDVAL;
    private static final Method SELCH_FDVAL;
    private static final Method IOUTIL_FDVAL;
    private static final Field REGISTRATIONS;
    private static final Method REGISTRATIONS_GET;
    private static final Method REGISTRATIONS_SIZE;
    private static final Field REGISTRATIONS_CHUNKS;
    private static final Field REGISTRATIONS_FD_SHIFT;
    private static final Field STATS;
    private static final Field STATS_REGISTRATIONS;
    private static final Field STATS_REUSED;
    private static final Field STATS_IDLE_EDGES;
    private static final Field STATS_RETRIES;
    private static final Field STATS_DEREGISTRATIONS;
    private static final Field STATS_DRAINED_PARKS;
    private static final Field STATS_DRAINED_ATTEMPTS;
    /** Poller.ShortReads.DrainedReads: attempts that return EAGAIN before parks, one attempt in SAMPLE reads. */
    public static final int DRAINED_LEARN, DRAINED_SAMPLE;
    private static final Object REGISTERED;
    private static final Object POLLED;
    private static final Object DRAINED;
    private static final Object CONDITION;
    private static final Object POLLED_CONDITION;
    private static final Object REGISTERING;
    private static final Object CLOSING;
    private static final int POLLIN;

    static {
        try {
            Class<?> poller = Class.forName("sun.nio.ch.Poller");
            READ_POLLERS = accessible(poller.getDeclaredMethod("readPollers"));
            WRITE_POLLERS = accessible(poller.getDeclaredMethod("writePollers"));
            MASTER_POLLER = accessible(poller.getDeclaredMethod("masterPoller"));
            POLL = accessible(poller.getDeclaredMethod("poll",
                    int.class, int.class, long.class, BooleanSupplier.class));
            POLLER_FDVAL = accessible(poller.getDeclaredMethod("fdVal"));
            REGISTRATIONS = accessible(poller.getDeclaredField("registrations"));
            Class<?> registrations = Class.forName("sun.nio.ch.Poller$Registrations");
            REGISTRATIONS_GET = accessible(registrations.getDeclaredMethod("get", int.class));
            REGISTRATIONS_SIZE = accessible(registrations.getDeclaredMethod("size"));
            REGISTRATIONS_CHUNKS = accessible(registrations.getDeclaredField("chunks"));
            REGISTRATIONS_FD_SHIFT = accessible(registrations.getDeclaredField("fdShift"));
            STATS = accessible(poller.getDeclaredField("stats"));
            REGISTERED = accessible(poller.getDeclaredField("REGISTERED")).get(null);
            POLLED = accessible(poller.getDeclaredField("POLLED")).get(null);
            DRAINED = accessible(poller.getDeclaredField("DRAINED")).get(null);
            CONDITION = accessible(poller.getDeclaredField("CONDITION")).get(null);
            POLLED_CONDITION = accessible(poller.getDeclaredField("POLLED_CONDITION")).get(null);
            REGISTERING = accessible(poller.getDeclaredField("REGISTERING")).get(null);
            CLOSING = accessible(poller.getDeclaredField("CLOSING")).get(null);
            Class<?> stats = Class.forName("sun.nio.ch.Poller$Stats");
            STATS_REGISTRATIONS = accessible(stats.getDeclaredField("registrations"));
            STATS_REUSED = accessible(stats.getDeclaredField("reusedRegistrations"));
            STATS_IDLE_EDGES = accessible(stats.getDeclaredField("idleEdges"));
            STATS_RETRIES = accessible(stats.getDeclaredField("retries"));
            STATS_DEREGISTRATIONS = accessible(stats.getDeclaredField("deregistrations"));
            STATS_DRAINED_PARKS = accessible(stats.getDeclaredField("drainedParks"));
            STATS_DRAINED_ATTEMPTS = accessible(stats.getDeclaredField("drainedAttempts"));
            Class<?> drainedReads = Class.forName("sun.nio.ch.Poller$ShortReads$DrainedReads");
            DRAINED_LEARN = accessible(drainedReads.getDeclaredField("LEARN")).getInt(null);
            DRAINED_SAMPLE = accessible(drainedReads.getDeclaredField("SAMPLE")).getInt(null);
            Class<?> net = Class.forName("sun.nio.ch.Net");
            POLLIN = ((Number) accessible(net.getDeclaredField("POLLIN")).get(null)).intValue();
            SELCH_FDVAL = accessible(Class.forName("sun.nio.ch.SelChImpl").getMethod("getFDVal"));
            IOUTIL_FDVAL = accessible(Class.forName("sun.nio.ch.IOUtil")
                    .getDeclaredMethod("fdVal", FileDescriptor.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static <T extends java.lang.reflect.AccessibleObject> T accessible(T o) {
        o.setAccessible(true);
        return o;
    }

    private static Object invoke(Method m, Object target, Object... args) {
        try {
            return m.invoke(target, args);
        } catch (IllegalAccessException e) {
            throw new RuntimeException(e);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException re) throw re;
            if (cause instanceof Error err) throw err;
            throw new RuntimeException(cause);
        }
    }

    private static Object get(Field f, Object target) {
        try {
            return f.get(target);
        } catch (IllegalAccessException e) {
            throw new RuntimeException(e);
        }
    }

    // -- pollers

    /** The read pollers (a snapshot; per-carrier pollers in pollerMode 3). */
    public static List<?> readPollers() {
        return (List<?>) invoke(READ_POLLERS, null);
    }

    /** The write pollers. */
    public static List<?> writePollers() {
        return (List<?>) invoke(WRITE_POLLERS, null);
    }

    /** The master poller, or null. */
    public static Object masterPoller() {
        return invoke(MASTER_POLLER, null);
    }

    /** true if the poller registers file descriptors edge-triggered. */
    public static boolean isEdgeTriggered(Object poller) {
        return poller != null && get(REGISTRATIONS, poller) != null;
    }

    /**
     * true if the read pollers that serve file descriptors by number (modes 1 and 2)
     * are edge-triggered. Always false in pollerMode 3 (per-carrier read pollers).
     */
    public static boolean edgeTriggered() {
        if (POLLER_MODE.equals("3"))
            return false;
        List<?> pollers = readPollers();
        return !pollers.isEmpty() && pollers.stream().allMatch(PollerTestSupport::isEdgeTriggered);
    }

    /** The read poller for a file descriptor (modes 1 and 2), null in mode 3. */
    public static Object readPollerFor(int fd) {
        if (POLLER_MODE.equals("3"))
            return null;
        List<?> pollers = readPollers();
        if (pollers.isEmpty())
            return null;
        return pollers.get(fd & (pollers.size() - 1));
    }

    /** The poller's edge-triggered registrations (indexed by fd), null if one-shot. */
    private static Object registrations(Object poller) {
        return (poller == null) ? null : get(REGISTRATIONS, poller);
    }

    private static Object stateIn(Object registrations, int fd) {
        return invoke(REGISTRATIONS_GET, registrations, fd);
    }

    /**
     * A copy of the poller's edge-triggered registrations, fd -> state, null if the
     * poller is one-shot. Not atomic: take it when no thread polls. The table is
     * indexed by fd >>> log2(read pollers); the low bits are the poller's index.
     */
    public static Map<Integer, Object> registrationMap(Object poller) {
        Object registrations = registrations(poller);
        if (registrations == null)
            return null;
        int shift = (Integer) get(REGISTRATIONS_FD_SHIFT, registrations);
        int index = readPollers().indexOf(poller);
        if (index < 0)
            throw new IllegalArgumentException(poller + " is not a read poller");
        Map<Integer, Object> map = new TreeMap<>();
        Object[][] chunks = (Object[][]) get(REGISTRATIONS_CHUNKS, registrations);
        for (int c = 0; c < chunks.length; c++) {
            Object[] chunk = chunks[c];
            for (int i = 0; chunk != null && i < chunk.length; i++) {
                if (chunk[i] != null)
                    map.put(((c * chunk.length + i) << shift) | index, chunk[i]);
            }
        }
        return map;
    }

    /**
     * The number of state slots that a poller's edge-triggered registrations table
     * has allocated (its chunks times their size), 0 if the poller is one-shot.
     */
    public static long tableSlots(Object poller) {
        Object registrations = registrations(poller);
        if (registrations == null)
            return 0;
        long slots = 0;
        for (Object[] chunk : (Object[][]) get(REGISTRATIONS_CHUNKS, registrations)) {
            if (chunk != null)
                slots += chunk.length;
        }
        return slots;
    }

    /** The state of a file descriptor in its edge-triggered read poller. */
    public enum State {
        NOT_EDGE_TRIGGERED, ABSENT, REGISTERED, POLLED, DRAINED, CONDITION, POLLED_CONDITION,
        THREAD, REGISTERING, CLOSING;

        /** Registered, no thread waiting, no edge since the last read attempt. */
        public boolean isIdle() {
            return this == REGISTERED || this == DRAINED || this == CONDITION;
        }

        /** Registered, no thread waiting, an edge not consumed. */
        public boolean isPolled() {
            return this == POLLED || this == POLLED_CONDITION;
        }
    }

    /** The raw state: null, a Poller.State or a Thread; null if not edge-triggered. */
    public static Object rawState(int fd) {
        Object registrations = registrations(readPollerFor(fd));
        return (registrations == null) ? null : stateIn(registrations, fd);
    }

    public static State state(int fd) {
        Object registrations = registrations(readPollerFor(fd));
        if (registrations == null)
            return State.NOT_EDGE_TRIGGERED;
        return stateOf(stateIn(registrations, fd));
    }

    private static State stateOf(Object s) {
        if (s == null) return State.ABSENT;
        if (s == REGISTERED) return State.REGISTERED;
        if (s == POLLED) return State.POLLED;
        if (s == DRAINED) return State.DRAINED;
        if (s == CONDITION) return State.CONDITION;
        if (s == POLLED_CONDITION) return State.POLLED_CONDITION;
        if (s == REGISTERING) return State.REGISTERING;
        if (s == CLOSING) return State.CLOSING;
        if (s instanceof Thread) return State.THREAD;
        throw new AssertionError("unknown state " + s);
    }

    /** Number of registered file descriptors over all edge-triggered read pollers. */
    public static int registeredCount() {
        int n = 0;
        for (Object p : readPollers()) {
            Object registrations = registrations(p);
            if (registrations != null) n += (Integer) invoke(REGISTRATIONS_SIZE, registrations);
        }
        return n;
    }

    /**
     * A poll loop counter of an edge-triggered poller: "polls", "events" or
     * "masterParks"; -1 if the poller keeps no counters (one-shot pollers don't).
     */
    public static long pollCounter(Object poller, String name) {
        Object stats = get(STATS, poller);
        if (stats == null)
            return -1;
        try {
            Field f = stats.getClass().getDeclaredField(name);
            f.setAccessible(true);
            return f.getLong(stats);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** true if the poller keeps counters (edge-triggered read pollers only). */
    public static boolean hasCounters(Object poller) {
        return get(STATS, poller) != null;
    }

    /** true if the sub-poller is parked on the master poller (mode 2 and 3). */
    public static boolean parkedOnMaster(Object subPoller) {
        Object master = masterPoller();
        if (master == null)
            return false;
        try {
            Field f = Class.forName("sun.nio.ch.Poller").getDeclaredField("map");
            f.setAccessible(true);
            return ((Map<?, ?>) f.get(master)).containsKey(epfd(subPoller));
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** Edge-triggered poller counters. */
    public record Counters(long registrations, long reused, long idleEdges,
                           long retries, long deregistrations) {
        public Counters minus(Counters other) {
            return new Counters(registrations - other.registrations,
                    reused - other.reused,
                    idleEdges - other.idleEdges,
                    retries - other.retries,
                    deregistrations - other.deregistrations);
        }
        public Counters plus(Counters other) {
            return new Counters(registrations + other.registrations,
                    reused + other.reused,
                    idleEdges + other.idleEdges,
                    retries + other.retries,
                    deregistrations + other.deregistrations);
        }
        static final Counters ZERO = new Counters(0, 0, 0, 0, 0);
    }

    private static long sum(Field f, Object stats) {
        return ((LongAdder) get(f, stats)).sum();
    }

    public static Counters counters(Object poller) {
        Object stats = (poller == null) ? null : get(STATS, poller);
        if (stats == null)
            return Counters.ZERO;
        return new Counters(sum(STATS_REGISTRATIONS, stats), sum(STATS_REUSED, stats),
                sum(STATS_IDLE_EDGES, stats), sum(STATS_RETRIES, stats),
                sum(STATS_DEREGISTRATIONS, stats));
    }

    /** The counters of the read poller of a file descriptor (zero if not edge-triggered). */
    public static Counters counters(int fd) {
        return counters(readPollerFor(fd));
    }

    /** Parks before a read attempt (from DRAINED), summed over all read pollers. */
    public static long drainedParks() {
        return sumOverReadPollers(STATS_DRAINED_PARKS);
    }

    /** Read attempts made in DRAINED instead of a park, summed over all read pollers. */
    public static long drainedAttempts() {
        return sumOverReadPollers(STATS_DRAINED_ATTEMPTS);
    }

    private static long sumOverReadPollers(Field counter) {
        long n = 0;
        for (Object p : readPollers()) {
            Object stats = get(STATS, p);
            if (stats != null) n += sum(counter, stats);
        }
        return n;
    }

    /**
     * The parks before reading that Poller.ShortReads.DrainedReads allows a new channel
     * in {@code reads} reads that find DRAINED, if all its read attempts return EAGAIN
     * (the peer answers after the reader reads again): none in the first
     * DRAINED_LEARN, then all but one in every DRAINED_SAMPLE.
     */
    public static int expectedDrainedParks(int reads) {
        int eagainAttempts = 0, parksSinceAttempt = 0, parks = 0;
        for (int i = 0; i < reads; i++) {
            if (eagainAttempts >= DRAINED_LEARN && parksSinceAttempt < DRAINED_SAMPLE - 1) {
                parksSinceAttempt++;
                parks++;
            } else {
                parksSinceAttempt = 0;
                eagainAttempts = Math.min(eagainAttempts + 1, DRAINED_LEARN);
            }
        }
        return parks;
    }

    /** The counters summed over all read pollers. */
    public static Counters counters() {
        long a = 0, b = 0, c = 0, d = 0, e = 0;
        for (Object p : readPollers()) {
            Counters cs = counters(p);
            a += cs.registrations(); b += cs.reused(); c += cs.idleEdges();
            d += cs.retries(); e += cs.deregistrations();
        }
        return new Counters(a, b, c, d, e);
    }

    /**
     * Invokes sun.nio.ch.Poller.poll(fd, POLLIN, nanos, () -> true) directly, as a
     * channel does after its read attempt returned EAGAIN.
     */
    public static void pollIn(int fd, long nanos) throws IOException {
        pollIn(fd, nanos, () -> true);
    }

    /**
     * Invokes sun.nio.ch.Poller.poll(fd, POLLIN, nanos, isOpen) directly, as a
     * channel does after its read attempt returned EAGAIN.
     */
    public static void pollIn(int fd, long nanos, BooleanSupplier isOpen) throws IOException {
        try {
            POLL.invoke(null, fd, POLLIN, nanos, isOpen);
        } catch (IllegalAccessException e) {
            throw new RuntimeException(e);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof IOException ioe) throw ioe;
            if (e.getCause() instanceof RuntimeException re) throw re;
            if (e.getCause() instanceof Error err) throw err;
            throw new RuntimeException(e.getCause());
        }
    }

    /**
     * Invokes sun.nio.ch.Poller.Deregistration.beforeClose(fd), as a channel does
     * once it is marked closed, before it closes the fd or dup2's over it.
     */
    public static void beforeClose(int fd) {
        try {
            Method m = Class.forName("sun.nio.ch.Poller$Deregistration")
                    .getDeclaredMethod("beforeClose", FileDescriptor.class);
            FileDescriptor fdObj = new FileDescriptor();
            Method set = accessible(Class.forName("sun.nio.ch.IOUtil")
                    .getDeclaredMethod("setfdVal", FileDescriptor.class, int.class));
            set.invoke(null, fdObj, fd);
            invoke(accessible(m), null, fdObj);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * Invokes the poll callback of the fd's read poller, as the poller thread does
     * for an event of epoll_wait: here, a stale event for the number's previous file.
     */
    public static void polled(int fd) {
        try {
            Method m = Class.forName("sun.nio.ch.Poller").getDeclaredMethod("polled", int.class);
            invoke(accessible(m), readPollerFor(fd), fd);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    // -- file descriptors

    /** The file descriptor of a channel. */
    public static int fdVal(Channel ch) {
        return (Integer) invoke(SELCH_FDVAL, ch);
    }

    /** The file descriptor of a java.net.Socket (needs java.base/java.net:+open). */
    public static int fdVal(Socket s) {
        return fdValOfImpl(Socket.class, s);
    }

    /** The file descriptor of a java.net.ServerSocket (needs java.base/java.net:+open). */
    public static int fdVal(ServerSocket s) {
        return fdValOfImpl(ServerSocket.class, s);
    }

    private static SocketImpl implOf(Class<?> clazz, Object s) throws ReflectiveOperationException {
        return (SocketImpl) accessible(clazz.getDeclaredField("impl")).get(s);
    }

    private static int fdValOfImpl(Class<?> clazz, Object s) {
        try {
            SocketImpl impl = implOf(clazz, s);
            Method getfd = accessible(SocketImpl.class.getDeclaredMethod("getFileDescriptor"));
            FileDescriptor fd = (FileDescriptor) getfd.invoke(impl);
            return (Integer) invoke(IOUTIL_FDVAL, null, fd);
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** Whether the reads of a TCP socket report if they emptied its receive queue. */
    public enum QueueReports { NOT_ASKED, ON, UNAVAILABLE }

    /** The receive queue reports of a SocketChannel's blocking reads (needs java.base/sun.nio.ch:+open). */
    public static QueueReports receiveQueueReports(SocketChannel ch) {
        return queueReportsOf(ch);
    }

    /** The receive queue reports of a java.net.Socket (needs java.base/java.net:+open too). */
    public static QueueReports receiveQueueReports(Socket s) {
        try {
            return queueReportsOf(implOf(Socket.class, s));
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** The reports of a channel or SocketImpl, whose field queueReports is null until it asks. */
    private static QueueReports queueReportsOf(Object owner) {
        try {
            Object reports = accessible(owner.getClass().getDeclaredField("queueReports"))
                    .get(owner);
            if (reports == null)
                return QueueReports.NOT_ASKED;
            boolean on = accessible(reports.getClass().getDeclaredField("on")).getBoolean(reports);
            return on ? QueueReports.ON : QueueReports.UNAVAILABLE;
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
    }

    /** The inode of the file that a file descriptor refers to, -1 if not open. */
    public static long inode(int fd) {
        try {
            return (Long) Files.getAttribute(Path.of("/proc/self/fd/" + fd), "unix:ino");
        } catch (NoSuchFileException e) {
            return -1;
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
    }

    /**
     * The registrations of an epoll instance as the kernel reports them in
     * /proc/self/fdinfo: target file descriptor number -> inodes of the registered
     * files (more than one if registrations for an old file survived under the number).
     */
    public static Map<Integer, List<Long>> epollTargets(int epfd) {
        Map<Integer, List<Long>> result = new TreeMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(Path.of("/proc/self/fdinfo/" + epfd));
        } catch (IOException e) {
            throw new RuntimeException(e);
        }
        for (String line : lines) {
            if (!line.startsWith("tfd:"))
                continue;
            String[] tokens = line.trim().split("\\s+");
            Integer tfd = null;
            Long ino = null;
            for (int i = 0; i < tokens.length; i++) {
                if (tokens[i].equals("tfd:")) tfd = Integer.valueOf(tokens[i + 1]);
                if (tokens[i].startsWith("ino:")) ino = Long.parseLong(tokens[i].substring(4), 16);
            }
            result.computeIfAbsent(Objects.requireNonNull(tfd, line), _ -> new ArrayList<>())
                    .add(Objects.requireNonNull(ino, line));
        }
        return result;
    }

    /** The epoll file descriptor of a poller. */
    public static int epfd(Object poller) {
        return (Integer) invoke(POLLER_FDVAL, poller);
    }

    /**
     * The registrations of a poller's epoll instance, without its own wakeup
     * eventfd (pollerMode 4's read poller, pollerMode 3's sub-pollers).
     */
    public static Map<Integer, List<Long>> pollerTargets(Object poller) {
        Map<Integer, List<Long>> targets = epollTargets(epfd(poller));
        try {
            Field f = poller.getClass().getDeclaredField("eventfd");
            f.setAccessible(true);
            Object eventfd = f.get(poller);
            if (eventfd != null) {
                Method efd = eventfd.getClass().getDeclaredMethod("efd");
                efd.setAccessible(true);
                targets.remove((Integer) efd.invoke(eventfd));
            }
        } catch (NoSuchFieldException e) {
            // not an EPollPoller
        } catch (ReflectiveOperationException e) {
            throw new RuntimeException(e);
        }
        return targets;
    }

    /**
     * Checks, for the edge-triggered read poller of a closed fd, that the kernel has
     * no registration under that number. Returns null if fine, else a description of
     * the problem. Always fine when not edge-triggered.
     */
    public static String kernelRegistrationProblem(int fd) {
        Object poller = readPollerFor(fd);
        if (!IS_LINUX || !isEdgeTriggered(poller))
            return null;
        List<Long> inodes = epollTargets(epfd(poller)).get(fd);
        return (inodes == null) ? null
                : "epoll instance " + epfd(poller) + " still has a registration for fd "
                  + fd + " (inodes " + inodes + ", fd now refers to inode " + inode(fd) + ")";
    }

    /**
     * Checks, for the edge-triggered read poller of an open fd, that the kernel has
     * no registration under that number for another file than the one it refers to
     * now. Returns null if fine, else a description of the problem.
     */
    public static String staleRegistrationProblem(int fd) {
        Object poller = readPollerFor(fd);
        if (!IS_LINUX || !isEdgeTriggered(poller))
            return null;
        long now = inode(fd);
        List<Long> inodes = epollTargets(epfd(poller)).getOrDefault(fd, List.of());
        return inodes.stream().allMatch(ino -> ino == now) ? null
                : "epoll instance " + epfd(poller) + " has registrations for fd " + fd
                  + " of inodes " + inodes + " but the fd refers to inode " + now;
    }

    /**
     * Checks that the edge-triggered read pollers and the kernel agree, when no
     * thread is in a read operation: every map entry names an open file descriptor
     * and is REGISTERED or POLLED; the epoll instance has exactly the file
     * descriptors in the map, each registered for the file that the number refers
     * to now (no registration outlived its file); registrations - deregistrations ==
     * map size. Returns the problems found, empty if none.
     */
    public static List<String> consistencyProblems() {
        List<String> problems = new ArrayList<>();
        for (Object p : readPollers()) {
            Map<Integer, Object> snapshot = registrationMap(p);
            if (snapshot == null)
                continue;
            for (var e : snapshot.entrySet()) {
                int fd = e.getKey();
                State s = stateOf(e.getValue());
                if (s == State.THREAD)
                    problems.add("fd " + fd + " has a waiter while no read is in progress: " + e.getValue());
                if (s == State.REGISTERING || s == State.CLOSING)
                    problems.add("fd " + fd + " is " + s + " while no read or close is in progress");
                if (IS_LINUX && inode(fd) < 0)
                    problems.add("map entry for closed fd " + fd + " (" + s + ")");
            }
            if (IS_LINUX) {
                int epfd = epfd(p);
                Map<Integer, List<Long>> kernel = pollerTargets(p);
                if (!kernel.keySet().equals(snapshot.keySet())) {
                    var onlyKernel = new TreeSet<>(kernel.keySet());
                    onlyKernel.removeAll(snapshot.keySet());
                    var onlyMap = new TreeSet<>(snapshot.keySet());
                    onlyMap.removeAll(kernel.keySet());
                    problems.add("epoll instance " + epfd + " and map disagree: only in kernel "
                            + onlyKernel + ", only in map " + onlyMap);
                }
                for (var e : kernel.entrySet()) {
                    long now = inode(e.getKey());
                    if (e.getValue().size() != 1 || e.getValue().get(0) != now)
                        problems.add("epoll instance " + epfd + " has a registration for fd "
                                + e.getKey() + " of inodes " + e.getValue()
                                + " but the fd now refers to inode " + now);
                }
            }
            Counters c = counters(p);
            if (c.registrations() - c.deregistrations() != snapshot.size())
                problems.add("counters inconsistent with map size " + snapshot.size() + ": " + c);
            if (c.registrations() < c.deregistrations())
                problems.add("more deregistrations than registrations: " + c);
        }
        return problems;
    }

    /**
     * Asserts that the pollers are consistent (see consistencyProblems) and that the
     * registered count is the baseline. Retries briefly: a reader that was woken may
     * still be finishing a deferred close.
     */
    public static void assertConsistent(String when, int baseline) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.min(TIMEOUT_MILLIS, 10_000));
        List<String> problems;
        for (int i = 0; ; i++) {
            problems = new ArrayList<>(consistencyProblems());
            int count = registeredCount();
            if (count != baseline)
                problems.add("registered count " + count + " != baseline " + baseline);
            if (problems.isEmpty())
                return;
            if (System.nanoTime() - deadline > 0)
                break;
            pause(i);
        }
        dumpPollers();
        throw new AssertionError(when + ": " + String.join("; ", problems));
    }

    /** After the fd was closed: no table entry and no kernel registration for it. */
    public static void assertForgotten(int fd, String when) {
        if (edgeTriggered()) {
            Object st = rawState(fd);
            if (st != null)
                throw new AssertionError(when + ": map entry survived close of fd " + fd + ": " + st);
            String problem = kernelRegistrationProblem(fd);
            if (problem != null)
                throw new AssertionError(when + ": " + problem);
        }
    }

    // -- watchdog

    public static void log(String fmt, Object... args) {
        System.out.println(String.format(fmt, args));
        System.out.flush();
    }

    private static void pause(int i) {
        if (i < 100) {
            Thread.yield();
        } else {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }
    }

    /** Waits until the condition holds, fails with a thread dump after TIMEOUT_MILLIS. */
    public static void await(String what, BooleanSupplier condition) {
        await(() -> what, condition);
    }

    public static void await(Supplier<String> what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        for (int i = 0; !condition.getAsBoolean(); i++) {
            if (System.nanoTime() - deadline > 0)
                throw timeout(what.get());
            pause(i);
        }
    }

    /** Waits until the thread is parked in a read on fd (white box: its state is the thread). */
    public static void awaitParked(Thread thread, int fd, String what) {
        await(() -> what + " (thread " + thread + " to park reading fd " + fd + ", state now "
                        + state(fd) + ", thread state " + thread.getState() + ")",
                () -> isParked(thread, fd));
    }

    /**
     * Waits until a platform thread is blocked in sun.nio.ch.Net.poll, as a platform
     * thread reading a non-blocking channel or socket does (a channel that a virtual
     * thread has read is non-blocking). Closing the channel then takes the pre-close
     * dup2 path.
     */
    public static void awaitInNetPoll(Thread thread, String what) {
        await(() -> what + " (thread " + thread + " to block in Net.poll)", () -> {
            for (StackTraceElement e : thread.getStackTrace()) {
                if (e.getClassName().equals("sun.nio.ch.Net") && e.getMethodName().equals("poll"))
                    return true;
            }
            return false;
        });
    }

    public static boolean isParked(Thread thread, int fd) {
        Thread.State ts = thread.getState();
        if (ts != Thread.State.WAITING && ts != Thread.State.TIMED_WAITING)
            return false;
        return !edgeTriggered() || rawState(fd) == thread;
    }

    /** Waits until the file descriptor is in the given state (edge-triggered only). */
    public static void awaitState(int fd, State expected, String what) {
        await(() -> what + " (fd " + fd + " to become " + expected + ", is " + state(fd) + ")",
                () -> state(fd) == expected);
    }

    /**
     * Returns once the read poller of fd has handled every event that it took from
     * the kernel before this call (edge-triggered only). An event taken before the
     * data it reports was read is otherwise handled late: it wakes the next reader
     * or leaves POLLED after that reader emptied the queue. A reader of another
     * connection served by the same poller parks, its data arrives, and its read
     * returns when the poller has handled that event, which it took from the
     * kernel in a later batch than any event taken before the data was written.
     * @return what the poller's counters moved by meanwhile: the other connection's
     *     registration, park and deregistration, when nothing else used the poller
     */
    public static Counters awaitReadPollerCaughtUp(int fd, ServerSocketChannel listener)
            throws Exception {
        Object poller = readPollerFor(fd);
        Counters before = counters(poller);
        List<ChannelPair> opened = new ArrayList<>();
        try {
            ChannelPair fence = null;
            for (int attempt = 1; fence == null; attempt++) {
                ChannelPair pair = ChannelPair.open(listener);
                opened.add(pair);
                if (readPollerFor(fdVal(pair.server())) == poller) {
                    fence = pair;
                } else if (attempt == 16) {
                    throw new AssertionError("no connection of 16 is served by the read poller of fd " + fd);
                }
            }
            SocketChannel sc = fence.server();
            int fenceFd = fdVal(sc);
            var reader = startVirtual("fence reader", () -> sc.read(ByteBuffer.allocate(1)));
            awaitParked(reader.thread(), fenceFd, "the fence reader to park (fd " + fenceFd + ")");
            fence.client().write(ByteBuffer.wrap(new byte[] { 1 }));
            reader.join("the read poller of fd " + fd + " to handle the event of fence fd " + fenceFd);
        } finally {
            for (ChannelPair pair : opened) pair.close();
        }
        return counters(poller).minus(before);
    }

    /** Prints a thread dump and the pollers, returns the error to throw. */
    public static AssertionError timeout(String what) {
        String msg = "Watchdog: timed out after " + TIMEOUT_MILLIS + " ms waiting for " + what;
        System.out.println(msg);
        dumpThreads();
        dumpPollers();
        return new AssertionError(msg);
    }

    /**
     * Prints all threads, including virtual threads. The full dump goes to a file in
     * the scratch directory; the output shows each distinct stack once, with the
     * threads that have it, so that a thousand parked readers stay readable.
     */
    public static void dumpThreads() {
        try {
            Path file = Path.of("threads-" + ProcessHandle.current().pid() + "-"
                    + System.nanoTime() + ".txt").toAbsolutePath();
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.TEXT_PLAIN);
            // group the threads by stack
            Map<String, List<String>> byStack = new java.util.LinkedHashMap<>();
            String header = null;
            StringBuilder stack = new StringBuilder();
            List<String> lines = new ArrayList<>(Files.readAllLines(file));
            lines.add("");
            for (String line : lines) {
                if (line.startsWith("#")) {
                    header = line;
                    stack.setLength(0);
                } else if (line.isBlank()) {
                    if (header != null)
                        byStack.computeIfAbsent(stack.toString(), _ -> new ArrayList<>()).add(header);
                    header = null;
                } else if (header != null) {
                    stack.append(line).append('\n');
                }
            }
            StringBuilder sb = new StringBuilder();
            sb.append("---- thread dump, full dump in ").append(file).append(" ----\n");
            for (var e : byStack.entrySet()) {
                List<String> threads = e.getValue();
                sb.append(threads.size()).append(threads.size() == 1 ? " thread: " : " threads: ");
                sb.append(String.join(", ", threads.subList(0, Math.min(3, threads.size()))));
                if (threads.size() > 3) sb.append(", ...");
                sb.append('\n').append(e.getKey()).append('\n');
                if (sb.length() > 60_000) {
                    sb.append("... (truncated, see the file)\n");
                    break;
                }
            }
            sb.append("---- end of thread dump ----");
            System.out.println(sb);
        } catch (Throwable e) {
            System.out.println("dumpThreads failed: " + e + ", platform threads only:");
            Thread.getAllStackTraces().forEach((t, st) -> {
                System.out.println(t);
                for (StackTraceElement ste : st) System.out.println("    at " + ste);
            });
        }
        System.out.flush();
    }

    /** Prints the read pollers, their counters and their registrations. */
    public static void dumpPollers() {
        System.out.println("---- pollers (edge-triggered requested: " + ET_REQUESTED
                + ", pollerMode: '" + POLLER_MODE + "') ----");
        System.out.println("master: " + masterPoller());
        for (Object p : readPollers()) {
            System.out.println("read poller: " + p);
            Map<Integer, Object> map = registrationMap(p);
            if (map != null) {
                Map<Integer, String> states = new TreeMap<>();
                map.forEach((fd, s) -> states.put(fd,
                        (s instanceof Thread t) ? t.toString() : stateOf(s).toString()));
                System.out.println("  registrations: " + states);
                if (IS_LINUX)
                    System.out.println("  kernel (fd -> inode): " + epollTargets(epfd(p)));
            }
        }
        for (Object p : writePollers()) {
            System.out.println("write poller: " + p);
        }
        System.out.println("----");
        System.out.flush();
    }

    // -- threads

    /** A task running in its own (virtual or platform) thread. */
    public static final class VTask<T> {
        private final Thread thread;
        private final CompletableFuture<T> future;

        private VTask(Thread thread, CompletableFuture<T> future) {
            this.thread = thread;
            this.future = future;
        }

        public Thread thread() {
            return thread;
        }

        public boolean isDone() {
            return future.isDone();
        }

        /** Waits for the task, with the watchdog; returns its result or throws its exception. */
        public T join(String what) throws Exception {
            try {
                return awaitResult();
            } catch (WatchdogTimeout e) {
                throw timeout(what);
            }
        }

        /**
         * Waits for a long task, with the watchdog bounding the time between increases
         * of {@code progress}, which never decreases, rather than the whole run.
         */
        public T joinWhileProgressing(String what, java.util.function.LongSupplier progress)
                throws Exception {
            long last = progress.getAsLong();
            while (true) {
                try {
                    return awaitResult();
                } catch (WatchdogTimeout e) {
                    long now = progress.getAsLong();
                    if (now <= last)
                        throw timeout(what + " (no progress for at least " + TIMEOUT_MILLIS
                                + " ms, progress " + now + ")");
                    last = now;
                }
            }
        }

        private static final class WatchdogTimeout extends Exception { }

        private T awaitResult() throws Exception {
            try {
                return future.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw new WatchdogTimeout();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Exception ex) throw ex;
                if (e.getCause() instanceof Error err) throw err;
                throw e;
            }
        }

        /** Waits for the task, with the watchdog; returns its result or its exception. */
        public Object outcome(String what) throws InterruptedException {
            try {
                return future.get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                throw timeout(what);
            } catch (ExecutionException e) {
                return e.getCause();
            }
        }
    }

    /** Starts a virtual thread to run the task. */
    public static <T> VTask<T> startVirtual(String name, Callable<T> task) {
        return start(Thread.ofVirtual().name(name), task);
    }

    /** Starts a platform thread to run the task. */
    public static <T> VTask<T> startPlatform(String name, Callable<T> task) {
        return start(Thread.ofPlatform().daemon().name(name), task);
    }

    private static <T> VTask<T> start(Thread.Builder builder, Callable<T> task) {
        var future = new CompletableFuture<T>();
        Thread thread = builder.unstarted(() -> {
            try {
                future.complete(task.call());
            } catch (Throwable e) {
                future.completeExceptionally(e);
            }
        });
        thread.start();
        return new VTask<>(thread, future);
    }

    /** Joins a thread, with the watchdog. */
    public static void join(Thread thread, String what) throws InterruptedException {
        if (!thread.join(Duration.ofMillis(TIMEOUT_MILLIS)))
            throw timeout(what);
    }

    /**
     * Busy-waits for about the given time (not a synchronisation: used to land an
     * event near a timeout's expiry, where the race is).
     */
    public static void spinFor(long nanos) {
        long start = System.nanoTime();
        while (System.nanoTime() - start < nanos)
            Thread.onSpinWait();
    }

    /** Spins n times (moves the timing of a race; not a synchronisation). */
    public static void spin(int n) {
        for (int i = 0; i < n; i++)
            Thread.onSpinWait();
    }

    /** A delay of about the given timeout, jittered by up to 0.5 ms either way. */
    public static long aroundTimeout(long millis) {
        long nanos = TimeUnit.MILLISECONDS.toNanos(millis)
                + ThreadLocalRandom.current().nextLong(-500_000, 500_000);
        return Math.max(0, nanos);
    }

    public static int iterations(int defaultValue) {
        return Integer.getInteger("et.iterations", defaultValue);
    }

    // -- connections

    /** A loopback TCP connection made of channels. */
    public record ChannelPair(SocketChannel client, SocketChannel server) implements Closeable {
        public static ChannelPair open(ServerSocketChannel listener) throws IOException {
            return connect(SocketChannel.open(), listener);
        }

        /** Connects an open, unconnected channel to the listener. */
        public static ChannelPair connect(SocketChannel client, ServerSocketChannel listener)
                throws IOException {
            try {
                client.connect(listener.getLocalAddress());
                SocketChannel server = listener.accept();
                return new ChannelPair(client, server);
            } catch (Throwable e) {
                client.close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            try (client; server) { }
        }
    }

    /** A loopback TCP connection made of java.net.Sockets. */
    public record SocketPair(Socket client, Socket server) implements Closeable {
        public static SocketPair open(ServerSocket listener) throws IOException {
            Socket client = new Socket();
            try {
                client.connect(listener.getLocalSocketAddress());
                Socket server = listener.accept();
                return new SocketPair(client, server);
            } catch (Throwable e) {
                client.close();
                throw e;
            }
        }

        @Override
        public void close() throws IOException {
            try (client; server) { }
        }
    }

    public static ServerSocketChannel openListener() throws IOException {
        ServerSocketChannel listener = ServerSocketChannel.open();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        return listener;
    }

    // -- native dup/close (for duplicated open file descriptions)

    @SuppressWarnings("restricted")
    private static class Native {
        static final MethodHandle DUP;
        static final MethodHandle CLOSE;
        static {
            Linker linker = Linker.nativeLinker();
            var lookup = linker.defaultLookup();
            var desc = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT);
            DUP = linker.downcallHandle(lookup.find("dup").orElseThrow(), desc);
            CLOSE = linker.downcallHandle(lookup.find("close").orElseThrow(), desc);
        }
    }

    /** dup(2): another file descriptor for the same open file description. */
    public static int dup(int fd) throws Throwable {
        int newfd = (int) Native.DUP.invokeExact(fd);
        if (newfd < 0) throw new IOException("dup failed");
        return newfd;
    }

    /** close(2) of a file descriptor created by dup. */
    public static void closeFd(int fd) throws Throwable {
        int ret = (int) Native.CLOSE.invokeExact(fd);
        if (ret != 0) throw new IOException("close failed");
    }
}
