/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * A CONNECT tunnel's throughput through a proxy: each of CONNS processes opens a tunnel to
 * ORIGIN_PORT on loopback through the proxy on PROXY_PORT, then fetches PATH over it again
 * and again (keep-alive) for SECONDS, reading the bodies into nothing. Prints the bytes of
 * body received a second, in MiB/s, and in all, in MiB. Used by bench/syscalls; not a test.
 *
 *   tunnel PROXY_PORT ORIGIN_PORT PATH CONNS SECONDS
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fanout.h"

#define BUF_SIZE (256 * 1024)

static int send_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Reads a head into buf (up to its blank line); returns its length and leaves *extra bytes
 * after it in buf + length, or -1. */
static long read_head(int fd, char *buf, size_t size, size_t *extra)
{
    size_t have = 0;

    for (;;) {
        char *end;
        ssize_t n = recv(fd, buf + have, size - 1 - have, 0);

        if (n <= 0)
            return -1;
        have += (size_t)n;
        buf[have] = '\0';
        end = strstr(buf, "\r\n\r\n");
        if (end) {
            size_t head = (size_t)(end + 4 - buf);

            *extra = have - head;
            return (long)head;
        }
        if (have + 1 >= size)
            return -1;
    }
}

/* One tunnel's fetches until the deadline; returns the body bytes read, or -1. */
static long long run_one(int proxy_port, int origin_port, const char *path, double until)
{
    static char buf[BUF_SIZE];
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)proxy_port)};
    char req[512];
    long long total = 0;
    size_t extra;
    long head;
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        return -1;
    snprintf(req, sizeof(req), "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
             origin_port, origin_port);
    if (send_all(fd, req, strlen(req)) < 0 || read_head(fd, buf, 4096, &extra) < 0 ||
        strncmp(buf + 9, "200", 3) != 0 || extra != 0) {
        close(fd);
        return -1;
    }
    snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", path, origin_port);
    while (now_s() < until) {
        const char *cl;
        long long left;

        if (send_all(fd, req, strlen(req)) < 0 || (head = read_head(fd, buf, 4096, &extra)) < 0 ||
            !(cl = strcasestr(buf, "\r\nContent-Length:")))
            break;
        left = atoll(cl + 17) - (long long)extra;
        total += (long long)extra;
        while (left > 0) {
            ssize_t n = recv(fd, buf, left < BUF_SIZE ? (size_t)left : BUF_SIZE, 0);

            if (n <= 0) {
                close(fd);
                return -1;
            }
            left -= n;
            total += n;
        }
    }
    close(fd);
    return total;
}

struct tunnel_args {
    int proxy_port, origin_port;
    const char *path;
    double until;
};

static long long one_client(int i, void *arg)
{
    const struct tunnel_args *a = arg;

    (void)i;
    return run_one(a->proxy_port, a->origin_port, a->path, a->until);
}

int main(int argc, char **argv)
{
    struct tunnel_args a;
    int conns, failed;
    double seconds, start;
    long long sum;

    if (argc != 6 || (conns = atoi(argv[4])) < 1 || (seconds = atof(argv[5])) <= 0) {
        fprintf(stderr, "usage: tunnel PROXY_PORT ORIGIN_PORT PATH CONNS SECONDS\n");
        return 2;
    }
    a.proxy_port = atoi(argv[1]);
    a.origin_port = atoi(argv[2]);
    a.path = argv[3];
    start = now_s();
    a.until = start + seconds;
    if ((sum = fanout(conns, one_client, &a, &failed)) < 0)
        return 1;
    if (failed) {
        fprintf(stderr, "tunnel: %d of %d tunnels failed\n", failed, conns);
        return 1;
    }
    printf("%.1f %.1f\n", (double)sum / (now_s() - start) / (1024.0 * 1024.0),
           (double)sum / (1024.0 * 1024.0));
    return 0;
}
