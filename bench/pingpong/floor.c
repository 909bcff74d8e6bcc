/*
 * The floor of the single-connection cell (latency.sh) on this machine, in C:
 * the same exchange as Latency.java, 1-byte round trips over loopback TCP
 * (TCP_NODELAY) with a one-thread echo server that waits in epoll_wait, with
 * no JVM in the way. The client thread, once it has written its byte:
 *
 *   epoll  waits in epoll_wait, then reads: it sleeps once per round trip, as a
 *          carrier blocked in the poller does (mode 4), so every round trip
 *          wakes two threads, the server's and the client's;
 *   read   blocks in read(2): the same two wakeups, without epoll;
 *   spin   reads with MSG_DONTWAIT until the reply is there: only the server
 *          sleeps, one wakeup per round trip (what a client that never
 *          sleeps would see).
 *
 * Prints the percentiles of the timed round trips and the context switches
 * per round trip (voluntary + involuntary, the whole process, from getrusage),
 * in the format of Latency.java.
 *
 * With perf stat's control FIFOs (perf stat -D -1 --control fifo:CTL,ACK), perf
 * counts the timed round trips only, as with Latency.java.
 *
 *   floor MODE [roundTrips=200000] [warmup=50000] [CTL ACK]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) {
    fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
    exit(1);
}

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int wait_readable(int ep) {
    struct epoll_event ev;
    for (;;) {
        int n = epoll_wait(ep, &ev, 1, -1);
        if (n > 0)
            return 0;
        if (n < 0 && errno != EINTR)
            die("epoll_wait");
    }
}

static int epoll_for(int fd) {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
        die("epoll");
    return ep;
}

/* The echo server: one connection, waits in epoll_wait, echoes what it reads. */
static void *echo(void *arg) {
    int fd = *(int *)arg, ep = epoll_for(fd);
    char buf[64];
    for (;;) {
        wait_readable(ep);
        ssize_t n = read(fd, buf, sizeof buf);
        if (n == 0)
            return NULL;
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                continue;
            die("echo read");
        }
        if (write(fd, buf, n) != n)
            die("echo write");
    }
}

/* Sends a command to perf stat through its control FIFO and waits for the ack. */
static void perf_command(FILE *ctl, FILE *ack, const char *cmd) {
    char line[64];
    size_t n = 0;
    int c;
    if (fprintf(ctl, "%s\n", cmd) < 0 || fflush(ctl) != 0)
        die("perf control FIFO");
    /* perf writes "ack\n" and its terminating NUL: skip NULs, read to '\n' */
    while ((c = fgetc(ack)) != EOF && c != '\n')
        if (c != '\0' && n < sizeof line - 1)
            line[n++] = (char)c;
    line[n] = '\0';
    if (c == EOF || strstr(line, "ack") == NULL) {
        fprintf(stderr, "floor: perf did not ack '%s'\n", cmd);
        exit(1);
    }
}

static int cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "epoll") && strcmp(argv[1], "read") && strcmp(argv[1], "spin"))) {
        fprintf(stderr, "usage: floor epoll|read|spin [roundTrips=200000] [warmup=50000] [CTL ACK]\n");
        return 2;
    }
    const char *mode = argv[1];
    long rts = argc > 2 ? atol(argv[2]) : 200000, warmup = argc > 3 ? atol(argv[3]) : 50000;
    if (rts <= 0 || warmup < 0) {
        fprintf(stderr, "floor: roundTrips must be > 0 and warmup >= 0\n");
        return 2;
    }
    FILE *ctl = NULL, *ack = NULL;
    if (argc > 5) {
        if ((ctl = fopen(argv[4], "w")) == NULL || (ack = fopen(argv[5], "r")) == NULL)
            die("perf control FIFOs");
    }

    int one = 1, lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof sa;
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(lfd, 1) < 0 ||
        getsockname(lfd, (struct sockaddr *)&sa, &len) < 0)
        die("listen");
    int cfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (cfd < 0 || connect(cfd, (struct sockaddr *)&sa, sizeof sa) < 0)
        die("connect");
    int sfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (sfd < 0)
        die("accept");
    setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(sfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    pthread_t server;
    if (pthread_create(&server, NULL, echo, &sfd) != 0)
        die("pthread_create");

    int ep = epoll_for(cfd);
    long long *ns = malloc(rts * sizeof *ns);
    if (ns == NULL)
        die("malloc");
    struct rusage r0, r1;
    for (long r = -warmup; r < rts; r++) {
        if (r == 0) {
            if (ctl != NULL)
                perf_command(ctl, ack, "enable");
            getrusage(RUSAGE_SELF, &r0);
        }
        unsigned char b = (unsigned char)r, c;
        long long t0 = now_ns();
        if (write(cfd, &b, 1) != 1)
            die("write");
        ssize_t n;
        if (mode[0] == 'e') {
            wait_readable(ep);
            n = recv(cfd, &c, 1, MSG_DONTWAIT);
        } else if (mode[0] == 'r') {
            n = read(cfd, &c, 1);
        } else {
            while ((n = recv(cfd, &c, 1, MSG_DONTWAIT)) < 0 && errno == EAGAIN)
                ;
        }
        if (n != 1 || c != b) {
            fprintf(stderr, "floor: bad reply at round trip %ld\n", r);
            return 1;
        }
        if (r >= 0)
            ns[r] = now_ns() - t0;
    }
    getrusage(RUSAGE_SELF, &r1);
    if (ctl != NULL)
        perf_command(ctl, ack, "disable");
    qsort(ns, rts, sizeof *ns, cmp);
    long cs = (r1.ru_nvcsw - r0.ru_nvcsw) + (r1.ru_nivcsw - r0.ru_nivcsw);
    printf("mode: %s\nround trips: %ld\n", mode, rts);
    const double ps[] = { 50, 90, 99, 99.9 };
    const char *names[] = { "50", "90", "99", "99.9" };
    for (int i = 0; i < 4; i++) {
        long k = (long)(ps[i] / 100 * rts + 0.999999) - 1;
        if (k >= rts) k = rts - 1;
        if (k < 0) k = 0;
        printf("p%s us: %.2f\n", names[i], ns[k] / 1e3);
    }
    printf("max us: %.2f\ncs/rt: %.3f\n", ns[rts - 1] / 1e3, (double)cs / rts);
    close(cfd);
    return 0;
}
