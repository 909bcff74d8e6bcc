import java.io.*;
import java.net.*;
import java.util.concurrent.atomic.*;

/** Experiment: java Bulk serve CHUNK | java Bulk read PORT BUFFER SECONDS */
public class Bulk {
    public static void main(String[] a) throws Exception {
        if (a[0].equals("serve")) {
            int chunk = Integer.parseInt(a[1]);
            try (ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                System.out.println(ss.getLocalPort());
                System.out.flush();
                try (Socket s = ss.accept()) {
                    s.setTcpNoDelay(true);
                    OutputStream out = s.getOutputStream();
                    byte[] b = new byte[chunk];
                    while (true) out.write(b);
                } catch (IOException e) { }
            }
            return;
        }
        int port = Integer.parseInt(a[1]), buffer = Integer.parseInt(a[2]);
        double seconds = Double.parseDouble(a[3]);
        AtomicLong bytes = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
        Thread t = Thread.ofVirtual().start(() -> {
            byte[] b = new byte[buffer];
            try (InputStream in = s.getInputStream()) {
                int n;
                while ((n = in.read(b)) > 0) { bytes.addAndGet(n); reads.incrementAndGet(); }
            } catch (IOException e) { }
        });
        Thread.sleep(2000);
        long b0 = bytes.get(), r0 = reads.get(), t0 = System.nanoTime();
        Thread.sleep((long) (seconds * 1000));
        long b1 = bytes.get(), r1 = reads.get(), t1 = System.nanoTime();
        double secs = (t1 - t0) / 1e9;
        System.out.printf("MB/s %.1f  reads/s %.0f  bytes/read %.0f%n", (b1 - b0) / secs / 1e6, (r1 - r0) / secs, (double) (b1 - b0) / (r1 - r0));
        System.exit(0);
    }
}
