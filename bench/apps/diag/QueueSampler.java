import java.io.*;
import java.lang.reflect.Field;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.locks.LockSupport;

/**
 * Diagnostic: runs AppServer with a platform daemon thread that samples the default
 * virtual-thread scheduler's queued tasks (its queues and submission queues) every
 * 1 ms and appends one line per second to the file named by -Dqs.out:
 * {@code second samples max mean samples-at-zero}. Needs
 * {@code --add-opens java.base/java.lang=ALL-UNNAMED}. Used by queue-length.sh.
 */
public class QueueSampler {
    public static void main(String[] args) throws Exception {
        Field f = Class.forName("java.lang.VirtualThread").getDeclaredField("DEFAULT_SCHEDULER");
        f.setAccessible(true);
        Object s = f.get(null);
        ForkJoinPool pool = (ForkJoinPool) s;
        PrintStream out = new PrintStream(new FileOutputStream(System.getProperty("qs.out")), true);
        Thread t = new Thread(() -> {
            long second = System.nanoTime() / 1_000_000_000L, n = 0, max = 0, sum = 0, zero = 0;
            while (true) {
                long q = pool.getQueuedTaskCount() + pool.getQueuedSubmissionCount();
                long now = System.nanoTime() / 1_000_000_000L;
                if (now != second) {
                    out.printf("%d %d %d %.1f %d%n", second, n, max, n == 0 ? 0.0 : (double) sum / n, zero);
                    second = now; n = max = sum = zero = 0;
                }
                n++; sum += q; if (q > max) max = q; if (q == 0) zero++;
                LockSupport.parkNanos(1_000_000L);
            }
        }, "queue-sampler");
        t.setDaemon(true);
        t.start();
        AppServer.main(args);
    }
}
