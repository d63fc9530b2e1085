/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Plain TCP, the transport of every side until TLS arrives. */
#include "net/io.h"

#include <errno.h>
#include <netinet/in.h>
#include <sys/uio.h>
#include <unistd.h>
#include <netinet/tcp.h>

#include <event2/buffer.h>

void io_nodelay(evutil_socket_t fd)
{
    int one = 1;

    /* Heads and small bodies go out as soon as they are written. */
    if (fd >= 0)
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

int io_socket_connect(struct bufferevent *bev, const struct sockaddr *sa, int len)
{
    int rc = bufferevent_socket_connect(bev, sa, len);

    if (rc == 0)
        io_nodelay(bufferevent_getfd(bev));
    return rc;
}

static struct bufferevent *tcp_open(struct event_base *base, evutil_socket_t fd, void *arg)
{
    struct bufferevent *bev;

    (void)arg;
    io_nodelay(fd);
    bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
    if (bev) {
        /* libevent's default of 16 KiB a call would cost a loop iteration per 16 KiB. */
        bufferevent_set_max_single_read(bev, IO_MAX_SINGLE);
        bufferevent_set_max_single_write(bev, IO_MAX_SINGLE);
    }
    return bev;
}

static long tcp_read_into(struct evbuffer *in, evutil_socket_t fd, size_t max);

static long tcp_fill(struct bufferevent *bev, size_t max)
{
    struct evbuffer *in = bufferevent_get_input(bev);
    long total;

    /* A bufferevent keeps the end of its input frozen outside its own reads. */
    evbuffer_unfreeze(in, 0);
    total = tcp_read_into(in, bufferevent_getfd(bev), max);
    evbuffer_freeze(in, 0);
    return total;
}

static long tcp_read_into(struct evbuffer *in, evutil_socket_t fd, size_t max)
{
    struct evbuffer_iovec v[2];
    long total = 0;

    while (fd >= 0 && (size_t)total < max) {
        size_t want = max - (size_t)total;
        int n = evbuffer_reserve_space(in, (ev_ssize_t)want, v, 2);
        ssize_t got;

        if (n <= 0)
            break;
        if (v[0].iov_len > want)
            v[0].iov_len = want;
        if (n == 2 && v[0].iov_len + v[1].iov_len > want)
            v[1].iov_len = want - v[0].iov_len;
        got = readv(fd, v, n);
        if (got <= 0) {
            evbuffer_commit_space(in, v, 0);
            /* EOF and errors are left for the bufferevent to find and report. */
            return total ? total : (got == 0 || (errno != EAGAIN && errno != EINTR)) ? -1 : 0;
        }
        if ((size_t)got <= v[0].iov_len) {
            v[0].iov_len = (size_t)got;
            n = 1;
        } else {
            v[1].iov_len = (size_t)got - v[0].iov_len;
        }
        evbuffer_commit_space(in, v, n);
        total += got;
        if ((size_t)got < want)
            break;
    }
    return total;
}

static int tcp_flush(struct bufferevent *bev)
{
    struct evbuffer *out = bufferevent_get_output(bev);
    evutil_socket_t fd = bufferevent_getfd(bev);
    int rc = 1;

    /* A bufferevent keeps the front of its output frozen outside its own writes. */
    evbuffer_unfreeze(out, 1);
    while (evbuffer_get_length(out) > 0) {
        int n = evbuffer_write(out, fd);

        if (n < 0) {
            rc = errno == EAGAIN || errno == EINTR ? 0 : -1;
            break;
        }
        if (n == 0) {
            rc = 0;
            break;
        }
    }
    evbuffer_freeze(out, 1);
    return rc;
}

const struct io_ops io_tcp = {
    .name = "tcp",
    .tls = 0,
    .open = tcp_open,
    .connect = io_socket_connect,
    .fill = tcp_fill,
    .flush = tcp_flush,
};
