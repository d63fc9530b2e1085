/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Keep-alive HTTPS requests, straight to a TLS origin or intercepted by a proxy: each of CONNS
 * processes opens one connection (to ORIGIN_PORT; or to PROXY_PORT, a CONNECT to ORIGIN_PORT
 * on loopback and TLS inside it), then GETs PATH again and again for SECONDS. The server's
 * certificate is not checked: the figure is speed. Prints the requests a second and in all.
 * Used by bench/syscalls; not a test.
 *
 *   tls PROXY_PORT|direct ORIGIN_PORT PATH CONNS SECONDS
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "fanout.h"

#define BUF_SIZE (64 * 1024)

/* A head ending in a blank line, read a byte at a time from fd: no byte of TLS is taken. */
static int read_plain_head(int fd, char *buf, size_t size)
{
    size_t have = 0;

    while (have + 1 < size) {
        ssize_t n = recv(fd, buf + have, 1, 0);

        if (n <= 0)
            return -1;
        have++;
        buf[have] = '\0';
        if (have >= 4 && memcmp(buf + have - 4, "\r\n\r\n", 4) == 0)
            return 0;
    }
    return -1;
}

static int connect_to(int port, int origin_port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    char buf[1024];
    int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
        goto fail;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (port == origin_port)
        return fd;
    snprintf(buf, sizeof(buf), "CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n",
             origin_port, origin_port);
    if (send(fd, buf, strlen(buf), MSG_NOSIGNAL) != (ssize_t)strlen(buf) ||
        read_plain_head(fd, buf, sizeof(buf)) < 0 || strncmp(buf + 9, "200", 3) != 0)
        goto fail;
    return fd;
fail:
    if (fd >= 0)
        close(fd);
    return -1;
}

/* One connection's requests until the deadline; returns how many were answered, or -1. */
static long run_one(int port, int origin_port, const char *path, double until)
{
    static char buf[BUF_SIZE];
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    SSL *ssl = NULL;
    char req[512];
    long done = -1;
    int fd = connect_to(port, origin_port);

    if (fd < 0 || !ctx || !(ssl = SSL_new(ctx)) || !SSL_set_fd(ssl, fd) || SSL_connect(ssl) != 1)
        goto out;
    snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", path, origin_port);
    done = 0;
    while (now_s() < until) {
        size_t have = 0;
        long long left = -1;

        if (SSL_write(ssl, req, (int)strlen(req)) <= 0)
            break;
        /* The head, then what is left of the body after it. */
        while (left < 0) {
            const char *end, *cl;
            int n = SSL_read(ssl, buf + have, (int)(sizeof(buf) - 1 - have));

            if (n <= 0)
                goto out;
            have += (size_t)n;
            buf[have] = '\0';
            end = strstr(buf, "\r\n\r\n");
            if (!end)
                continue;
            cl = strcasestr(buf, "\r\nContent-Length:");
            if (!cl)
                goto out;
            left = atoll(cl + 17) - (long long)(have - (size_t)(end + 4 - buf));
        }
        while (left > 0) {
            int n = SSL_read(ssl, buf, left < BUF_SIZE ? (int)left : BUF_SIZE);

            if (n <= 0)
                goto out;
            left -= n;
        }
        done++;
    }
out:
    SSL_free(ssl);
    SSL_CTX_free(ctx);
    if (fd >= 0)
        close(fd);
    return done;
}

struct tls_args {
    int port, origin_port;
    const char *path;
    double until;
};

static long long one_client(int i, void *arg)
{
    const struct tls_args *a = arg;

    (void)i;
    return run_one(a->port, a->origin_port, a->path, a->until);
}

int main(int argc, char **argv)
{
    struct tls_args a;
    int conns, failed;
    double seconds, start;
    long long sum;

    if (argc != 6 || (conns = atoi(argv[4])) < 1 || (seconds = atof(argv[5])) <= 0) {
        fprintf(stderr, "usage: tls PROXY_PORT|direct ORIGIN_PORT PATH CONNS SECONDS\n");
        return 2;
    }
    a.origin_port = atoi(argv[2]);
    a.port = strcmp(argv[1], "direct") == 0 ? a.origin_port : atoi(argv[1]);
    a.path = argv[3];
    start = now_s();
    a.until = start + seconds;
    if ((sum = fanout(conns, one_client, &a, &failed)) < 0)
        return 1;
    if (failed) {
        fprintf(stderr, "tls: %d of %d connections failed\n", failed, conns);
        return 1;
    }
    printf("%.0f %lld\n", (double)sum / (now_s() - start), sum);
    return 0;
}
