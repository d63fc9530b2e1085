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

/* The room the first read of a wakeup asks for: a request head or a small response fits, and
 * an input that holds a few bytes (a head arriving slowly) does not hold a large block with
 * them. Just under 16 KiB, as libevent counts its chain header in the block. A read that fills
 * it goes on with room for the rest of what the caller allows. */
#define TCP_READ_FIRST ((size_t)16 * 1024 - 128)

/* Cuts the reserved room v[0..n) to at most max bytes; returns how many vectors remain. */
static int clip(struct evbuffer_iovec *v, int n, size_t max)
{
    if (v[0].iov_len >= max) {
        v[0].iov_len = max;
        return 1;
    }
    if (n == 2 && v[0].iov_len + v[1].iov_len > max)
        v[1].iov_len = max - v[0].iov_len;
    return n;
}

/* readv(2) straight into the input's free room: one system call a read, where libevent's
 * evbuffer_read() asks FIONREAD first. */
static long tcp_read_into(struct evbuffer *in, evutil_socket_t fd, size_t max)
{
    size_t total = 0;

    if (fd < 0) {
        errno = EBADF;
        return IO_ERROR;
    }
    while (total < max) {
        struct evbuffer_iovec v[2];
        size_t want = max - total, room;
        ssize_t got;
        int n, err;

        n = evbuffer_reserve_space(
            in, (ev_ssize_t)(total == 0 && want > TCP_READ_FIRST ? TCP_READ_FIRST : want), v, 2);
        if (n <= 0) {
            errno = ENOMEM;
            return total ? (long)total : IO_ERROR;
        }
        n = clip(v, n, want);
        room = v[0].iov_len + (n == 2 ? v[1].iov_len : 0);
        got = readv(fd, v, n);
        err = errno;
        if (got <= 0) {
            evbuffer_commit_space(in, v, 0);
            /* What was read goes first; an end or an error is found again at the next read. */
            if (total)
                return (long)total;
            if (got == 0)
                return IO_EOF;
            errno = err;
            return err == EAGAIN || err == EWOULDBLOCK || err == EINTR ? 0 : IO_ERROR;
        }
        if ((size_t)got <= v[0].iov_len) {
            v[0].iov_len = (size_t)got;
            n = 1;
        } else {
            v[1].iov_len = (size_t)got - v[0].iov_len;
        }
        if (evbuffer_commit_space(in, v, n) < 0) {
            errno = ENOMEM;
            return IO_ERROR;
        }
        total += (size_t)got;
        if ((size_t)got < room)
            break;
    }
    return (long)total;
}

static long tcp_fill(struct bufferevent *bev, size_t max)
{
    struct evbuffer *in = bufferevent_get_input(bev);
    long total;
    int err;

    /* A bufferevent keeps the end of its input frozen outside its own reads. */
    evbuffer_unfreeze(in, 0);
    total = tcp_read_into(in, bufferevent_getfd(bev), max);
    err = errno;
    evbuffer_freeze(in, 0);
    errno = err;
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
    .splice = 1,
    .open = tcp_open,
    .connect = io_socket_connect,
    .fill = tcp_fill,
    .flush = tcp_flush,
};
