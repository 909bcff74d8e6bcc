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

/*
 * @test
 * @summary Test how jdk.pollerEdgeTriggered and jdk.pollerMode choose the read
 *     pollers: every combination, checked through the pollers themselves and the
 *     first line of jcmd Thread.vthread_pollers; a bad value is one error naming
 *     the property, where the pollers start, and platform-thread I/O is unaffected;
 *     only edge-triggered read pollers keep and print counters; the same for
 *     jdk.pollerSpinMicros (mode 4); short reads on platform threads do not
 *     initialize Poller
 * @requires os.family == "linux"
 * @library /test/lib
 * @modules java.base/sun.nio.ch:+open java.base/jdk.internal.misc
 * @run junit/timeout=600 EdgeTriggeredProperty
 */

import java.lang.management.ManagementFactory;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.management.ObjectName;

import jdk.test.lib.process.OutputAnalyzer;
import jdk.test.lib.process.ProcessTools;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import static org.junit.jupiter.api.Assertions.*;

class EdgeTriggeredProperty {

    /**
     * Child: do one blocking read in a virtual thread, then print which read pollers
     * are edge-triggered ("edge-triggered read pollers: 1 of 2") and the first
     * line of jcmd Thread.vthread_pollers.
     */
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("platform-io")) {
            platformIoAroundVirtualRead();
            return;
        }
        if (args.length > 0 && args[0].equals("platform-reads")) {
            platformReads();
            return;
        }
        var loopback = InetAddress.getLoopbackAddress();
        try (var listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0));
             var sc1 = SocketChannel.open(listener.getLocalAddress());
             var sc2 = listener.accept()) {
            int[] n = new int[1];
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    n[0] = sc1.read(ByteBuffer.allocate(1));
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            // write only once the reader is parked, so that it polls (and, in
            // pollerMode 3, starts its carrier's read poller)
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (reader.getState() != Thread.State.WAITING) {
                if (System.nanoTime() - deadline > 0)
                    throw new RuntimeException("reader did not park within 30 s: " + reader.getState());
                Thread.sleep(1);
            }
            sc2.write(ByteBuffer.wrap(new byte[] { 1 }));
            reader.join();
            if (n[0] != 1) throw new RuntimeException("read failed");
        }
        Class<?> pollerClass = Class.forName("sun.nio.ch.Poller");
        Field registrations = pollerClass.getDeclaredField("registrations");
        registrations.setAccessible(true);
        @SuppressWarnings("unchecked")
        var readPollers = (List<Object>) pollerClass.getMethod("readPollers").invoke(null);
        long edgeTriggered = 0;
        for (Object poller : readPollers) {
            if (registrations.get(poller) != null) edgeTriggered++;
        }
        Object master = pollerClass.getMethod("masterPoller").invoke(null);
        if (master != null && registrations.get(master) != null) {
            throw new RuntimeException("master poller is edge-triggered");
        }
        @SuppressWarnings("unchecked")
        var writePollers = (List<Object>) pollerClass.getMethod("writePollers").invoke(null);
        for (Object poller : writePollers) {
            if (registrations.get(poller) != null)
                throw new RuntimeException("write poller is edge-triggered");
        }
        System.out.println("edge-triggered read pollers: " + edgeTriggered + " of " + readPollers.size());
        String jcmd = (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"),
                "threadVthreadPollers", new Object[] { null },
                new String[] { String[].class.getName() });
        System.out.println("jcmd: " + jcmd.lines().findFirst().orElse(""));
        jcmd.lines().forEach(line -> System.out.println("jcmd-line: " + line));
        Field stats = pollerClass.getDeclaredField("stats");
        stats.setAccessible(true);
        List<String> withCounters = new ArrayList<>();
        for (var list : List.of(readPollers, writePollers, (master != null) ? List.of(master) : List.of())) {
            for (Object poller : list) {
                if (stats.get(poller) != null)
                    withCounters.add(((list == readPollers) ? "read " : (list == writePollers) ? "write " : "master ")
                            + (registrations.get(poller) != null ? "edge-triggered" : "one-shot"));
            }
        }
        System.out.println("pollers with counters: " + withCounters);
    }

    /**
     * Child: socket I/O on platform threads, then a blocking read in a virtual
     * thread, then platform-thread I/O again. Prints "platform I/O before: ok",
     * "virtual-thread read: <outcome>", "platform I/O after: ok".
     */
    private static void platformIoAroundVirtualRead() throws Exception {
        platformIo("before");
        var loopback = InetAddress.getLoopbackAddress();
        try (var listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0));
             var sc1 = SocketChannel.open(listener.getLocalAddress());
             var sc2 = listener.accept()) {
            Throwable[] failure = new Throwable[1];
            Thread reader = Thread.ofVirtual().unstarted(() -> {
                try {
                    sc1.read(ByteBuffer.allocate(1));
                } catch (Throwable e) {
                    failure[0] = e;
                }
            });
            reader.start();
            // the read fails without parking when the pollers cannot start
            if (!reader.join(java.time.Duration.ofSeconds(30))) {
                sc2.write(ByteBuffer.wrap(new byte[] { 1 }));
                reader.join();
            }
            Throwable e = failure[0];
            StringBuilder sb = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause())
                sb.append(t).append(" | ");
            System.out.println("virtual-thread read: " + (e == null ? "ok" : sb));
        }
        platformIo("after");
    }

    /** Opens, uses and closes 100 connections on the current (platform) thread. */
    private static void platformIo(String when) throws Exception {
        var loopback = InetAddress.getLoopbackAddress();
        try (var listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0))) {
            for (int i = 0; i < 100; i++) {
                try (var sc1 = SocketChannel.open(listener.getLocalAddress());
                     var sc2 = listener.accept()) {
                    sc2.write(ByteBuffer.wrap(new byte[] { (byte) i }));
                    ByteBuffer bb = ByteBuffer.allocate(1);
                    if (sc1.read(bb) != 1 || bb.get(0) != (byte) i)
                        throw new RuntimeException("platform-thread read failed");
                }
            }
        }
        System.out.println("platform I/O " + when + ": ok");
    }

    /**
     * Child: short and full reads of Sockets (untimed and timed) and blocking
     * SocketChannels on platform threads, then closes; prints "Poller initialized:
     * <true|false>".
     */
    private static void platformReads() throws Exception {
        var loopback = InetAddress.getLoopbackAddress();
        try (var listener = new java.net.ServerSocket(0, 10, loopback)) {
            for (int timeout : new int[] { 0, 60_000 }) {
                try (var s1 = new java.net.Socket(loopback, listener.getLocalPort());
                     var s2 = listener.accept()) {
                    s1.setSoTimeout(timeout);
                    s2.getOutputStream().write(new byte[] { 1, 2, 3 });
                    byte[] buf = new byte[1024];
                    if (s1.getInputStream().read(buf, 0, 1) != 1)
                        throw new RuntimeException("platform-thread full read failed");
                    int total = 1;
                    while (total < 3) {
                        total += s1.getInputStream().read(buf, total, buf.length - total);
                    }
                }
            }
        }
        try (var listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0));
             var sc1 = SocketChannel.open(listener.getLocalAddress());
             var sc2 = listener.accept()) {
            sc2.write(ByteBuffer.wrap(new byte[] { 1, 2 }));
            if (sc1.read(ByteBuffer.allocate(1)) != 1)
                throw new RuntimeException("platform-thread channel full read failed");
            if (sc1.read(ByteBuffer.allocate(1024)) != 1)
                throw new RuntimeException("platform-thread channel read failed");
        }
        Class<?> poller = Class.forName("sun.nio.ch.Poller", false, null);
        boolean initialized = !jdk.internal.misc.Unsafe.getUnsafe().shouldBeInitialized(poller);
        System.out.println("Poller initialized: " + initialized);
    }

    /**
     * Short and full reads on platform threads do not initialize Poller (no
     * edge-triggered registration exists, so the bookkeeping of emptying reads is
     * skipped), with neither property set, as in upstream, and with edge-triggered
     * read pollers.
     */
    @ParameterizedTest
    @ValueSource(strings = { "unset", "2", "4" })
    void testPlatformReadsLeavePollerUninitialized(String mode) throws Exception {
        List<String> options = options(mode.equals("unset") ? null : mode, null);
        options.add("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED");
        OutputAnalyzer out = run(options, "platform-reads");
        out.shouldHaveExitValue(0);
        out.shouldContain("Poller initialized: false");
    }

    private static OutputAnalyzer run(List<String> options, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(options);
        cmd.addAll(List.of("--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-cp", System.getProperty("test.class.path"), "EdgeTriggeredProperty"));
        cmd.addAll(List.of(args));
        OutputAnalyzer out = ProcessTools.executeTestJava(cmd);
        System.out.println(options + " -> " + out.getStdout().lines()
                .filter(l -> l.contains(": ")).toList());
        return out;
    }

    private static List<String> options(String mode, String edgeTriggered) {
        List<String> options = new ArrayList<>();
        if (mode != null) options.add("-Djdk.pollerMode=" + mode);
        if (edgeTriggered != null) options.add("-Djdk.pollerEdgeTriggered=" + edgeTriggered);
        return options;
    }

    /**
     * Every combination of jdk.pollerMode (unset, 1, 2, 3) and jdk.pollerEdgeTriggered
     * (unset, true, false), with the expected read pollers and jcmd reason.
     */
    static Stream<Arguments> combinations() {
        List<Arguments> list = new ArrayList<>();
        for (String mode : new String[] { null, "1", "2", "3" }) {
            for (String et : new String[] { null, "true", "false" }) {
                boolean expected;
                String reason;
                if ("3".equals(mode)) {
                    expected = false;
                    reason = "one-shot, jdk.pollerMode=3";
                } else if (et != null) {
                    expected = Boolean.parseBoolean(et);
                    reason = "jdk.pollerEdgeTriggered=" + et;
                } else if (mode != null) {
                    expected = true;
                    reason = "edge-triggered, jdk.pollerMode=" + mode + " set explicitly";
                } else {
                    expected = false;
                    reason = "one-shot, jdk.pollerEdgeTriggered and jdk.pollerMode not set";
                }
                list.add(Arguments.of(mode, et, expected, reason));
            }
        }
        return list.stream();
    }

    @ParameterizedTest
    @MethodSource("combinations")
    void testCombination(String mode, String et, boolean expected, String reason) throws Exception {
        OutputAnalyzer out = run(options(mode, et));
        out.shouldHaveExitValue(0);
        long n = Long.parseLong(out.firstMatch("edge-triggered read pollers: (\\d+) of", 1));
        long total = Long.parseLong(out.firstMatch("edge-triggered read pollers: \\d+ of (\\d+)", 1));
        String what = "jdk.pollerMode=" + mode + " jdk.pollerEdgeTriggered=" + et;
        assertTrue(total > 0, what + ": no read pollers");
        assertEquals(expected ? total : 0, n, what + ": edge-triggered read pollers");
        out.shouldMatch("jcmd: Read pollers: .*" + reason.replace(".", "\\."));
    }

    /**
     * A bad value fails the first virtual-thread read, where the pollers start, with
     * an error that names the property and the accepted values; socket I/O on
     * platform threads, before and after, is unaffected.
     */
    @ParameterizedTest
    @ValueSource(strings = { "yes", "TRUE", "1", "" })
    void testBadValue(String value) throws Exception {
        for (String mode : new String[] { null, "1", "2", "3" }) {
            OutputAnalyzer out = run(options(mode, value), "platform-io");
            out.shouldHaveExitValue(0);
            out.shouldContain("platform I/O before: ok");
            out.shouldMatch("virtual-thread read: .*jdk\\.pollerEdgeTriggered is set to '" + value
                    + "', the accepted values are 'true' and 'false'");
            out.shouldContain("platform I/O after: ok");
        }
    }

    /**
     * jdk.pollerSpinMicros, how long an idle carrier polls without blocking before it
     * blocks (mode 4): an accepted value above 0 shows in jcmd with its counters, as
     * the default, 50, does when the property is not set; 0 shows no spin.
     */
    @ParameterizedTest
    @ValueSource(strings = { "unset", "0", "50", "1000" })
    void testSpinValue(String value) throws Exception {
        boolean unset = value.equals("unset");
        OutputAnalyzer out = run(unset
                ? List.of("-Djdk.pollerMode=4")
                : List.of("-Djdk.pollerMode=4", "-Djdk.pollerSpinMicros=" + value));
        out.shouldHaveExitValue(0);
        Assumptions.assumeFalse(out.getStdout().contains("no carrier polling ("),
                "mode 4 fell back to platform read pollers (no continuations?)");
        out.shouldMatch("jcmd-line: .*idle carriers \\[state = ");
        if (value.equals("0")) {
            out.shouldNotContain("spins");
        } else {
            out.shouldMatch("jcmd-line: .*idle carriers \\[.*, spins of up to " + (unset ? "50" : value)
                    + " us = \\d+, spins ended by events = \\d+, spins ended by wakeups = \\d+,");
        }
    }

    /**
     * A bad jdk.pollerSpinMicros fails the first virtual-thread read in every mode, as
     * a bad jdk.pollerEdgeTriggered does, with an error that names the property and
     * the accepted values; platform-thread I/O, before and after, is unaffected.
     */
    @ParameterizedTest
    @ValueSource(strings = { "-1", "1001", "50us", "+5", "0x10", "" })
    void testSpinBadValue(String value) throws Exception {
        for (String mode : new String[] { null, "1", "4" }) {
            List<String> options = options(mode, null);
            options.add("-Djdk.pollerSpinMicros=" + value);
            OutputAnalyzer out = run(options, "platform-io");
            out.shouldHaveExitValue(0);
            out.shouldContain("platform I/O before: ok");
            out.shouldMatch("virtual-thread read: .*jdk\\.pollerSpinMicros is set to '"
                    + java.util.regex.Pattern.quote(value)
                    + "', the accepted values are 0 to 1000 \\(microseconds\\)");
            out.shouldContain("platform I/O after: ok");
        }
    }

    /**
     * Only edge-triggered read pollers keep counters, so that with neither property
     * set (or with jdk.pollerEdgeTriggered=false) the pollers are upstream's and
     * jcmd prints upstream's lines; "parks on master" is printed for sub-pollers only.
     */
    @ParameterizedTest
    @MethodSource("combinations")
    void testCounters(String mode, String et, boolean expected, String reason) throws Exception {
        OutputAnalyzer out = run(options(mode, et));
        out.shouldHaveExitValue(0);
        String what = "jdk.pollerMode=" + mode + " jdk.pollerEdgeTriggered=" + et;
        String pollers = out.firstMatch("pollers with counters: \\[(.*)\\]", 1);
        for (String p : pollers.isEmpty() ? new String[0] : pollers.split(", ")) {
            assertEquals("read edge-triggered", p, what + ": a poller other than an edge-triggered "
                    + "read poller keeps counters");
        }
        assertEquals(expected, !pollers.isEmpty(), what + ": edge-triggered read pollers keep counters");
        String section = "";
        for (String line : out.getStdout().lines().filter(l -> l.startsWith("jcmd-line: ")).toList()) {
            line = line.substring("jcmd-line: ".length());
            if (line.endsWith(":")) {
                section = line;
            } else if (line.contains("owner = ")) {
                boolean counted = line.contains("polls = ");
                assertEquals(expected && section.startsWith("Read"), counted,
                        what + ": counters in '" + section + "' line: " + line);
                boolean virtualOwner = line.contains("owner = VirtualThread");
                assertEquals(counted && virtualOwner, line.contains("parks on master"),
                        what + ": 'parks on master' in '" + section + "' line: " + line);
            }
        }
    }
}
