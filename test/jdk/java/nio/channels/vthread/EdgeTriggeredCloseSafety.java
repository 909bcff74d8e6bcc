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
 * @summary With edge-triggered read pollers requested, closing a socket never starts
 *     the pollers and always closes the file descriptor: at EMFILE (where starting the
 *     pollers would fail), in a JVM that has done no virtual-thread I/O yet, and after
 *     virtual-thread I/O; the pollers start, edge-triggered, at the first
 *     virtual-thread read after such closes.
 * @requires os.family == "linux"
 * @library /test/lib lib
 * @modules java.base/sun.nio.ch:+open java.base/java.net:+open
 * @run junit/othervm/timeout=300 EdgeTriggeredCloseSafety
 */

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import jdk.test.lib.process.OutputAnalyzer;
import jdk.test.lib.process.ProcessTools;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import static org.junit.jupiter.api.Assertions.*;

import static etjdk.poller.PollerTestSupport.*;

class EdgeTriggeredCloseSafety {

    // the child's file descriptor limit: small, so that EMFILE comes quickly
    private static final int FD_LIMIT = 256;

    // platform threads that exist only once the pollers have started
    private static final Set<String> POLLER_THREADS = Set.of("Master-Poller", "Read-Poller", "Write-Poller");

    /**
     * Child. args[0]: "vthread-first" to do a virtual-thread read before exhausting
     * the file descriptors, "platform-only" not to. Opens sockets from platform
     * threads until EMFILE, closes them all, then checks that sockets can be opened
     * again. Prints "closes failed: N of M", "reopened: true|false", "pollers started
     * before the virtual-thread read: true|false", and then, after a virtual-thread
     * read on a new connection, "edge-triggered: true|false" and "registered: N".
     */
    public static void main(String[] args) throws Exception {
        boolean vthreadFirst = args[0].equals("vthread-first");
        var loopback = InetAddress.getLoopbackAddress();
        try (var listener = new ServerSocket(0, 1000, loopback)) {
            if (vthreadFirst)
                readInVirtualThread(listener);

            // exhaust the file descriptors (each connection takes two)
            List<Socket> sockets = new ArrayList<>();
            try {
                while (true) {
                    Socket s = new Socket(loopback, listener.getLocalPort());
                    sockets.add(s);
                    sockets.add(listener.accept());
                }
            } catch (IOException e) {
                System.out.println("opened " + sockets.size() + " sockets until: " + e);
            }
            // close them all; each close must close its fd whatever happens
            int failed = 0;
            Throwable first = null;
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (Throwable e) {
                    failed++;
                    if (first == null) first = e;
                }
            }
            System.out.println("closes failed: " + failed + " of " + sockets.size());
            if (first != null) first.printStackTrace(System.out);

            boolean reopened;
            try (var s = new Socket(loopback, listener.getLocalPort()); var peer = listener.accept()) {
                reopened = true;
            } catch (Throwable e) {
                e.printStackTrace(System.out);
                reopened = false;
            }
            System.out.println("reopened: " + reopened);
            System.out.println("pollers started before the virtual-thread read: " + pollerThreadsStarted());
        }

        // the first virtual-thread read after such closes starts edge-triggered pollers
        try (var listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(loopback, 0));
            try (var pair = ChannelPair.open(listener)) {
                SocketChannel sc = pair.server();
                int fd = fdVal(sc);
                var reader = startVirtual("reader", () -> sc.read(ByteBuffer.allocate(1)));
                awaitParked(reader.thread(), fd, "the first virtual-thread reader to park");
                pair.client().write(ByteBuffer.wrap(new byte[] { 1 }));
                check(reader.join("the first virtual-thread read") == 1, "the first virtual-thread read");
                System.out.println("edge-triggered: " + edgeTriggered());
                System.out.println("registered: " + registeredCount());
            }
        }
    }

    /** A blocking read in a virtual thread, which starts the pollers. */
    private static void readInVirtualThread(ServerSocket listener) throws Exception {
        try (var s = new Socket(listener.getInetAddress(), listener.getLocalPort());
             var peer = listener.accept()) {
            var reader = startVirtual("reader", () -> s.getInputStream().read());
            awaitParked(reader.thread(), fdVal(s), "a virtual-thread reader to park");
            peer.getOutputStream().write(1);
            check(reader.join("a virtual-thread read") == 1, "a virtual-thread read");
        }
    }

    // the child has no JUnit on its class path
    private static void check(boolean ok, String what) {
        if (!ok) throw new RuntimeException(what + " failed");
    }

    private static boolean pollerThreadsStarted() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> POLLER_THREADS.contains(t.getName()));
    }

    static Stream<Arguments> configs() {
        List<Arguments> list = new ArrayList<>();
        for (String option : List.of("-Djdk.pollerMode=1", "-Djdk.pollerMode=2", "-Djdk.pollerEdgeTriggered=true")) {
            for (String order : List.of("platform-only", "vthread-first")) {
                list.add(Arguments.of(option, order));
            }
        }
        return list.stream();
    }

    @ParameterizedTest
    @MethodSource("configs")
    void testCloseAtEmfile(String option, String order) throws Exception {
        ProcessBuilder pb = ProcessTools.createTestJavaProcessBuilder(
                option, "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "--add-opens", "java.base/java.net=ALL-UNNAMED",
                "-XX:-MaxFDLimit",
                "-cp", System.getProperty("test.class.path"),
                "EdgeTriggeredCloseSafety", order);
        // run the child with a small file descriptor limit
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c",
                "ulimit -n " + FD_LIMIT + " && exec \"$@\"", "sh"));
        command.addAll(pb.command());
        pb.command(command);
        OutputAnalyzer out = ProcessTools.executeProcess(pb);
        String what = option + ", " + order + ": ";
        System.out.println(what + out.getStdout());
        System.err.println(out.getStderr());
        out.shouldHaveExitValue(0);
        out.shouldMatch("opened \\d+ sockets until: .*Too many open files");
        out.shouldMatch("closes failed: 0 of \\d+");
        out.shouldContain("reopened: true");
        // a close must not start the pollers; a virtual-thread read before does
        out.shouldContain("pollers started before the virtual-thread read: " + order.equals("vthread-first"));
        out.shouldContain("edge-triggered: true");
        out.shouldContain("registered: 1");
    }
}
