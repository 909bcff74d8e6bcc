/*
 * ET-JDK third-party stack benchmark (bench/apps): a Jetty 12 server on
 * virtual threads with the two TechEmpower-style endpoints.
 *
 *   GET /plaintext  200, text/plain, "Hello, World!"
 *   GET /json       200, application/json, {"message":"Hello, World!"} (an
 *                   object serialized per request by the small writer below)
 *
 * Jetty runs every task on a virtual thread (org.eclipse.jetty.util.thread.
 * VirtualThreadPool): the acceptor (blocking ServerSocketChannel.accept), the
 * selector (Selector.select, which on a virtual thread parks on the JDK's read
 * poller) and the handlers. The handler is a blocking Handler.Abstract, so
 * each request runs in a virtual thread of its own.
 *
 * Prints "READY <port>" and "ADMIN <port>" when it listens. The admin port
 * (a platform thread, plain ServerSocket) answers every connection with the
 * number of requests handled so far and closes it: the runner reads it around
 * the perf window. Stops on SIGTERM (Jetty's stop, then exit).
 *
 *   java -cp <jetty jars>:<classes> AppServer [--port 0] [--selectors 1] [--acceptors 1]
 */

import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.VirtualThreadPool;

import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

public final class AppServer {

    static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
    static final LongAdder handled = new LongAdder();

    public static void main(String[] args) throws Exception {
        int port = 0, selectors = 1, acceptors = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--selectors" -> selectors = Integer.parseInt(args[++i]);
                case "--acceptors" -> acceptors = Integer.parseInt(args[++i]);
                default -> { System.err.println("AppServer: unknown argument " + args[i]); System.exit(2); }
            }
        }
        if (!Thread.ofVirtual().unstarted(() -> { }).isVirtual()) throw new IllegalStateException("no virtual threads");

        VirtualThreadPool pool = new VirtualThreadPool();
        pool.setName("app-vt");
        Server server = new Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.setSendServerVersion(false);
        http.setSendXPoweredBy(false);
        ServerConnector connector = new ServerConnector(server, acceptors, selectors, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        connector.setAcceptQueueSize(4096);
        connector.setIdleTimeout(120_000);
        server.addConnector(connector);
        server.setHandler(new Endpoints());
        server.setStopTimeout(2_000);
        server.start();

        ServerSocket admin = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("admin").start(() -> serveAdmin(admin));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try { server.stop(); } catch (Exception ignore) { }
        }));
        System.out.println("READY " + connector.getLocalPort());
        System.out.println("ADMIN " + admin.getLocalPort());
        System.out.println("JETTY " + Server.getVersion() + ", thread pool " + pool.getClass().getSimpleName()
                + ", acceptors " + acceptors + ", selectors " + selectors);
        System.out.flush();
        server.join();
    }

    static void serveAdmin(ServerSocket ss) {
        while (true) {
            try (Socket s = ss.accept(); OutputStream out = s.getOutputStream()) {
                out.write(Long.toString(handled.sum()).getBytes(StandardCharsets.US_ASCII));
            } catch (Exception e) {
                if (ss.isClosed()) return;
            }
        }
    }

    /** The two endpoints; anything else is 404. Blocking handler: a virtual thread per request. */
    static final class Endpoints extends Handler.Abstract {
        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            String path = Request.getPathInContext(request);
            byte[] body;
            String type;
            switch (path) {
                case "/plaintext" -> { body = HELLO; type = "text/plain"; }
                case "/json" -> {
                    Map<String, Object> message = new LinkedHashMap<>();
                    message.put("message", "Hello, World!");
                    body = Json.write(message).getBytes(StandardCharsets.UTF_8);
                    type = "application/json";
                }
                default -> {
                    Response.writeError(request, response, callback, 404);
                    return true;
                }
            }
            handled.increment();
            response.setStatus(200);
            response.getHeaders().put(HttpHeader.CONTENT_TYPE, type);
            response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
            response.write(true, ByteBuffer.wrap(body), callback);
            return true;
        }
    }

    /** A minimal JSON writer: maps, strings, numbers, booleans, null. */
    static final class Json {
        static String write(Object v) {
            StringBuilder sb = new StringBuilder(32);
            value(sb, v);
            return sb.toString();
        }

        static void value(StringBuilder sb, Object v) {
            if (v == null) {
                sb.append("null");
            } else if (v instanceof String s) {
                string(sb, s);
            } else if (v instanceof Number || v instanceof Boolean) {
                sb.append(v);
            } else if (v instanceof Map<?, ?> m) {
                sb.append('{');
                boolean first = true;
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    if (!first) sb.append(',');
                    first = false;
                    string(sb, String.valueOf(e.getKey()));
                    sb.append(':');
                    value(sb, e.getValue());
                }
                sb.append('}');
            } else {
                throw new IllegalArgumentException("not JSON: " + v.getClass());
            }
        }

        static void string(StringBuilder sb, String s) {
            sb.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                switch (c) {
                    case '"' -> sb.append("\\\"");
                    case '\\' -> sb.append("\\\\");
                    case '\n' -> sb.append("\\n");
                    case '\r' -> sb.append("\\r");
                    case '\t' -> sb.append("\\t");
                    default -> {
                        if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                        else sb.append(c);
                    }
                }
            }
            sb.append('"');
        }
    }
}
