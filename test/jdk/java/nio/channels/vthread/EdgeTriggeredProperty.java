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
 * @summary Test the values of -Djdk.pollerEdgeTriggered: true and false are
 *     accepted in every poller mode, which read pollers use edge-triggered
 *     registrations, and any other value is an error naming the property
 * @requires os.family == "linux"
 * @library /test/lib
 * @modules java.base/sun.nio.ch:+open
 * @run junit/timeout=300 EdgeTriggeredProperty
 */

import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;

import jdk.test.lib.process.OutputAnalyzer;
import jdk.test.lib.process.ProcessTools;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class EdgeTriggeredProperty {

    /**
     * Child: do one blocking read in a virtual thread, then print which read
     * pollers are edge-triggered, e.g. "edge-triggered read pollers: 1 of 1".
     */
    public static void main(String[] args) throws Exception {
        var loopback = InetAddress.getLoopbackAddress();
        try (var listener = ServerSocketChannel.open().bind(new InetSocketAddress(loopback, 0));
             var sc1 = SocketChannel.open(listener.getLocalAddress());
             var sc2 = listener.accept();
             var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            var result = executor.submit(() -> sc1.read(ByteBuffer.allocate(1)));
            sc2.write(ByteBuffer.wrap(new byte[] { 1 }));
            if (result.get() != 1) throw new RuntimeException("read failed");
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
        System.out.println("edge-triggered read pollers: " + edgeTriggered + " of " + readPollers.size());
    }

    private static OutputAnalyzer run(String... options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(options));
        cmd.addAll(List.of("--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
                "-cp", System.getProperty("test.class.path"), "EdgeTriggeredProperty"));
        return ProcessTools.executeTestJava(cmd);
    }

    @ParameterizedTest
    @CsvSource({
        // property, pollerMode, edge-triggered?
        "true,  1, true",
        "true,  2, true",
        "true,  3, false",
        "false, 1, false",
        "false, 2, false",
        "false, 3, false",
    })
    void testAcceptedValues(String value, int mode, boolean expectEdgeTriggered) throws Exception {
        OutputAnalyzer out = run("-Djdk.pollerEdgeTriggered=" + value, "-Djdk.pollerMode=" + mode);
        out.shouldHaveExitValue(0);
        String line = out.firstMatch("edge-triggered read pollers: (\\d+) of (\\d+)", 0);
        long n = Long.parseLong(out.firstMatch("edge-triggered read pollers: (\\d+) of", 1));
        long total = Long.parseLong(out.firstMatch("of (\\d+)", 1));
        if (expectEdgeTriggered ? (n != total || n == 0) : n != 0) {
            throw new RuntimeException("jdk.pollerEdgeTriggered=" + value + ", pollerMode=" + mode
                    + ": unexpected " + line);
        }
    }

    @org.junit.jupiter.api.Test
    void testDefaultIsOff() throws Exception {
        OutputAnalyzer out = run();
        out.shouldHaveExitValue(0);
        out.shouldContain("edge-triggered read pollers: 0 of");
    }

    @ParameterizedTest
    @ValueSource(strings = { "yes", "TRUE", "1", "" })
    void testBadValue(String value) throws Exception {
        OutputAnalyzer out = run("-Djdk.pollerEdgeTriggered=" + value);
        out.shouldNotHaveExitValue(0);
        out.shouldContain("jdk.pollerEdgeTriggered is set to '" + value
                + "', the accepted values are 'true' and 'false'");
    }
}
