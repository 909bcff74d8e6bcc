/*
 * What a JDK read that finds nothing costs: a non-blocking SocketChannel read of a
 * connected loopback socket that returns 0 (EAGAIN), timed over n reads, 5 rounds;
 * beside inq-probe.c's system call alone, for the DRAINED rule's sample read (one in
 * 16, doc/carrier-polling.md, "Not done"). A probe, not a benchmark: run it alone.
 *
 *   taskset -c 0 JDK/bin/java EagainRead.java [n=2000000]
 */
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

public class EagainRead {
    public static void main(String[] args) throws Exception {
        int n = (args.length > 0) ? Integer.parseInt(args[0]) : 2_000_000;
        var loopback = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        try (var listener = ServerSocketChannel.open().bind(loopback);
             var client = SocketChannel.open(listener.getLocalAddress());
             var server = listener.accept()) {
            server.configureBlocking(false);
            ByteBuffer buf = ByteBuffer.allocate(1);
            for (int round = 0; round < 5; round++) {
                long start = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    if (server.read(buf) != 0)
                        throw new AssertionError("read found data");
                }
                long nanos = System.nanoTime() - start;
                System.out.printf("round %d: %.1f ns per read returning 0 (%d reads)%n",
                        round, nanos / (double) n, n);
            }
        }
    }
}
