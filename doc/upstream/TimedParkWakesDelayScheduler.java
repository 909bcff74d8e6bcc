/*
 * Reproducer (ET-JDK, doc/upstream/README.md): a virtual thread's timed park
 * that is unparked before its timeout wakes the scheduler's delayScheduler
 * thread up to twice, once to add the timeout task and once to remove it.
 *
 *   javac -d /tmp/tp TimedParkWakesDelayScheduler.java
 *   java -cp /tmp/tp -Djdk.virtualThreadScheduler.parallelism=1 TimedParkWakesDelayScheduler [ROUND_TRIPS [PAUSE_US]]
 *
 * A virtual thread sends requests to a platform thread that answers each after
 * PAUSE_US (default 20,000 round trips, 100 us); the virtual thread waits for
 * each answer with LockSupport.parkNanos(60 s) ("timed", as a socket read with
 * a timeout does) or LockSupport.park() ("untimed", the control). The counts
 * are the delayScheduler thread's context switches, read from
 * /proc/self/task/TID/status, so Linux only.
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

public class TimedParkWakesDelayScheduler {
    static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(60);

    static volatile int request, answer;
    static volatile Thread server;

    public static void main(String[] args) throws Exception {
        int roundTrips = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        long pauseNanos = TimeUnit.MICROSECONDS.toNanos(args.length > 1 ? Long.parseLong(args[1]) : 100);

        // The first timed park starts the delay scheduler. HotSpot names the
        // native thread "ForkJoinPool-1-delayScheduler" abbreviated to 15 chars.
        Thread.ofVirtual().start(() -> LockSupport.parkNanos(1_000_000)).join();
        List<String> found = tasks().stream().filter(tid -> comm(tid).equals("ForkJoi..eduler")).toList();
        if (found.size() != 1)
            throw new AssertionError("expected one thread named ForkJoi..eduler (the delay scheduler), found " + found);
        String delayScheduler = found.get(0);

        for (boolean timed : new boolean[] { true, false, true, false }) {
            long[] s0 = switches(delayScheduler);
            long p0 = processSwitches();
            long parks = play(roundTrips, pauseNanos, timed);
            long p1 = processSwitches();
            long[] s1 = switches(delayScheduler);
            long slept = s1[0] - s0[0], preempted = s1[1] - s0[1];
            System.out.printf("%-7s %,d round trips, %,d parks: delayScheduler slept %,d times (%.2f per park),"
                              + " preempted %,d; process switched %.2f times per park%n",
                    timed ? "timed" : "untimed", roundTrips, parks, slept, (double) slept / parks, preempted,
                    (double) (p1 - p0) / parks);
        }
    }

    /**
     * A virtual thread sends roundTrips requests to a platform thread that
     * answers each after pauseNanos (a database's think time); the virtual
     * thread waits for each answer parked. Returns the number of its parks.
     */
    static long play(int roundTrips, long pauseNanos, boolean timed) throws InterruptedException {
        long[] parks = new long[1];
        Thread client = Thread.ofVirtual().unstarted(() -> {
            for (int r = 1; r <= roundTrips; r++) {
                request = r;
                LockSupport.unpark(server);
                while (answer != r) {
                    parks[0]++;
                    if (timed)
                        LockSupport.parkNanos(TIMEOUT_NANOS);
                    else
                        LockSupport.park();
                }
            }
        });
        server = Thread.ofPlatform().daemon().unstarted(() -> {
            for (int r = 1; r <= roundTrips; r++) {
                while (request != r)
                    LockSupport.park();
                long end = System.nanoTime() + pauseNanos;
                while (System.nanoTime() < end)
                    LockSupport.parkNanos(end - System.nanoTime());
                answer = r;
                LockSupport.unpark(client);
            }
        });
        request = answer = 0;
        server.start();
        client.start();
        if (!client.join(Duration.ofMinutes(5)))
            throw new AssertionError("not done after 5 minutes: the client waits for answer "
                                     + (answer + 1) + ", the server for request " + request);
        return parks[0];
    }

    static Set<String> tasks() throws Exception {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/task"))) {
            Set<String> tids = new HashSet<>();
            s.forEach(p -> tids.add(p.getFileName().toString()));
            return tids;
        }
    }

    static String comm(String tid) {
        try {
            return Files.readString(Path.of("/proc/self/task", tid, "comm")).strip();
        } catch (Exception e) {
            return "";
        }
    }

    /** Context switches of every thread of this process (threads that exited not counted). */
    static long processSwitches() throws Exception {
        long sum = 0;
        for (String tid : tasks()) {
            try {
                long[] s = switches(tid);
                sum += s[0] + s[1];
            } catch (java.io.IOException e) {
                // the thread exited
            }
        }
        return sum;
    }

    /** {voluntary, nonvoluntary} context switches of a thread. */
    static long[] switches(String tid) throws Exception {
        List<String> lines = Files.readAllLines(Path.of("/proc/self/task", tid, "status"));
        long[] r = new long[2];
        for (String l : lines) {
            if (l.startsWith("voluntary_ctxt_switches:"))
                r[0] = Long.parseLong(l.split("\\s+")[1]);
            else if (l.startsWith("nonvoluntary_ctxt_switches:"))
                r[1] = Long.parseLong(l.split("\\s+")[1]);
        }
        return r;
    }
}
