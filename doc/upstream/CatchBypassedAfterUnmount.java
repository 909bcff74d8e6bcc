// A caught IOException escapes its handler: see README.md in this directory.
// javac -d /tmp/cb CatchBypassedAfterUnmount.java && java -cp /tmp/cb -Djdk.virtualThreadScheduler.parallelism=1 CatchBypassedAfterUnmount 2000
import java.io.IOException;
import java.net.*;
import java.nio.ByteBuffer;
import java.nio.channels.*;
import java.util.*;
import java.util.concurrent.atomic.*;
public class CatchBypassedAfterUnmount {
    static final AtomicBoolean stop = new AtomicBoolean();
    static final AtomicLong trips = new AtomicLong();
    static void chat(SocketChannel ch, boolean first) {
        ByteBuffer bb = ByteBuffer.allocate(1);
        try {
            if (first) ch.write(bb.put((byte) 1).flip());
            while (!stop.get()) {
                bb.clear();
                if (ch.read(bb) != 1) return;
                long end = System.nanoTime() + 100_000;
                while (System.nanoTime() < end) Thread.onSpinWait();
                trips.incrementAndGet();
                ch.write(bb.flip());
            }
        } catch (IOException e) {
            // expected after close
        }
    }
    public static void main(String[] a) throws Exception {
        int n = 16;
        List<Thread> ts = new ArrayList<>(); List<SocketChannel> chs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            SocketChannel c, p;
            try (var l = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                c = SocketChannel.open(l.getLocalAddress()); p = l.accept();
            }
            chs.add(c); chs.add(p);
            ts.add(Thread.ofVirtual().start(() -> chat(p, false)));
            ts.add(Thread.ofVirtual().start(() -> chat(c, true)));
        }
        while (trips.get() < Long.parseLong(a[0])) Thread.sleep(10);
        stop.set(true);
        for (var ch : chs) ch.close();
        for (var t : ts) t.join();
        System.out.println("trips " + trips.get());
    }
}
