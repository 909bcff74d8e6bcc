/*
 * What a read that finds nothing costs, beside a read with recvmsg and TCP_INQ
 * (Linux >= 4.18), on a loopback TCP connection; for the 300 us peer cell, whose
 * clients pay one EAGAIN read per request (doc/carrier-polling.md, "Not done").
 * A probe, not a benchmark of the JDK: run it alone.
 *
 *   gcc -O2 -o inq-probe inq-probe.c && ./inq-probe [iterations=1000000]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#ifndef TCP_INQ
#define TCP_INQ 36
#define TCP_CM_INQ TCP_INQ
#endif

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void die(const char *what) { perror(what); exit(1); }

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t al = sizeof a;
    if (l < 0 || bind(l, (void *) &a, sizeof a) || listen(l, 1) || getsockname(l, (void *) &a, &al))
        die("listen");
    int w = socket(AF_INET, SOCK_STREAM, 0);
    if (w < 0 || connect(w, (void *) &a, sizeof a)) die("connect");
    int r = accept(l, NULL, NULL);
    if (r < 0) die("accept");
    int one = 1;
    setsockopt(w, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (setsockopt(r, IPPROTO_TCP, TCP_INQ, &one, sizeof one)) die("TCP_INQ");
    fcntl(r, F_SETFL, fcntl(r, F_GETFL) | O_NONBLOCK);
    char b;

    double t0 = now();
    for (long i = 0; i < n; i++)
        if (read(r, &b, 1) != -1 || errno != EAGAIN) die("read: expected EAGAIN");
    double eagain = (now() - t0) / n;

    double rd = 0, rm = 0;
    long inqZero = 0;
    for (long i = 0; i < n; i++) {
        if (write(w, &b, 1) != 1) die("write");
        char peek;      /* wait for the byte, untimed, without consuming it */
        while (recv(r, &peek, 1, MSG_PEEK) != 1)
            ;
        if (i & 1) {
            double s = now();
            if (read(r, &b, 1) != 1) die("read");
            rd += now() - s;
        } else {
            char cbuf[CMSG_SPACE(sizeof(int))];
            struct iovec v = { &b, 1 };
            struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = cbuf,
                                .msg_controllen = sizeof cbuf };
            double s = now();
            if (recvmsg(r, &m, 0) != 1) die("recvmsg");
            int inq = -1;
            for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
                if (c->cmsg_level == SOL_TCP && c->cmsg_type == TCP_CM_INQ)
                    memcpy(&inq, CMSG_DATA(c), sizeof inq);
            rm += now() - s;
            if (inq == 0) inqZero++;
        }
    }
    printf("iterations %ld: read finding nothing (EAGAIN) %.0f ns; 1-byte read %.0f ns;"
           " 1-byte recvmsg with TCP_INQ %.0f ns (0 bytes left reported in %ld of %ld)\n",
           n, eagain, rd / (n / 2), rm / (n - n / 2), inqZero, n - n / 2);
    return 0;
}
