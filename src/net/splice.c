/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A tunnel's bytes moved in the kernel: each way reads its socket into a pipe and writes the
 * pipe into the other socket with splice(2). A way alternates: while its pipe holds bytes it
 * waits for room in the socket it writes, else for bytes in the one it reads; so a peer that
 * stops reading stops the other from being read, holding no more than the pipe. */
#include "net/splice.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "util/alloc.h"

/* Pipe-fulls a way moves in one wakeup before the loop serves others. */
#define WAY_ROUNDS 4

struct way {
    struct splice_pair *p;
    evutil_socket_t from, to;
    int pipe[2];
    size_t in_pipe;        /* read from `from`, not yet written to `to` */
    uint64_t moved;        /* written to `to` */
    int eof;               /* `from` closed its end */
    int done;              /* and all of it went, and `to`'s write half is shut */
    struct event *rd, *wr; /* `from` readable, `to` writable */
};

struct splice_pair {
    struct way w[2];
    size_t pipe_size;
    int read_any; /* a byte was read from either socket */
    int err;
    void (*on_news)(void *arg, enum splice_news news);
    void *arg;
};

/* Waits for what the way needs next: room to write what its pipe holds, or bytes to read. */
static int way_wait(struct way *w, int writing)
{
    struct event *on = writing ? w->wr : w->rd, *off = writing ? w->rd : w->wr;

    if (event_add(on, NULL) < 0 || event_del(off) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* The way's end came and its pipe is empty: the other end learns it. */
static int way_end(struct way *w)
{
    w->done = 1;
    /* The peer may be gone already; then there is no one left to tell. */
    (void)shutdown(w->to, SHUT_WR);
    (void)event_del(w->rd);
    (void)event_del(w->wr);
    return 0;
}

/* Moves what it can; returns 0, or -1 with errno set when a read or a write failed. */
static int way_run(struct way *w)
{
    const unsigned flags = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;

    for (int round = 0; round < 2 * WAY_ROUNDS; round++) {
        ssize_t n;

        if (w->in_pipe > 0) {
            n = splice(w->pipe[0], NULL, w->to, NULL, w->in_pipe, flags);
            if (n < 0 && (errno == EAGAIN || errno == EINTR))
                return way_wait(w, 1);
            if (n == 0)
                errno = EPIPE;
            if (n <= 0)
                return -1;
            w->in_pipe -= (size_t)n;
            w->moved += (uint64_t)n;
            continue;
        }
        if (w->eof)
            return w->done ? 0 : way_end(w);
        n = splice(w->from, NULL, w->pipe[1], NULL, w->p->pipe_size, flags);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return way_wait(w, 0);
        if (n < 0)
            return -1;
        if (n == 0)
            w->eof = 1;
        w->in_pipe += (size_t)n;
        w->p->read_any |= n > 0;
    }
    /* More to do: at the loop's next turn, once others had theirs. */
    return way_wait(w, w->in_pipe > 0);
}

static void on_ready(evutil_socket_t fd, short what, void *arg)
{
    struct way *w = arg;
    struct splice_pair *p = w->p;
    uint64_t before = w->moved;

    (void)fd;
    (void)what;
    if (way_run(w) < 0) {
        p->err = errno;
        p->on_news(p->arg, SPLICE_FAILED);
        return;
    }
    if (p->w[0].done && p->w[1].done)
        p->on_news(p->arg, SPLICE_DONE);
    else if (w->moved != before)
        p->on_news(p->arg, SPLICE_MOVED);
}

static int way_init(struct splice_pair *p, struct way *w, struct event_base *base,
                    evutil_socket_t from, evutil_socket_t to)
{
    w->p = p;
    w->from = from;
    w->to = to;
    if (pipe2(w->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
        return -1;
    /* A pipe holds 64 KiB unless asked; the size asked bounds what brock holds each way. Too
     * much for the system's limits: the default size serves as well. */
    (void)fcntl(w->pipe[1], F_SETPIPE_SZ, (int)p->pipe_size);
    w->rd = event_new(base, from, EV_READ | EV_PERSIST, on_ready, w);
    w->wr = event_new(base, to, EV_WRITE | EV_PERSIST, on_ready, w);
    if (!w->rd || !w->wr) {
        errno = ENOMEM;
        return -1;
    }
    if (event_add(w->rd, NULL) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

struct splice_pair *splice_pair_new(struct event_base *base, evutil_socket_t a, evutil_socket_t b,
                                    size_t pipe_size,
                                    void (*on_news)(void *arg, enum splice_news news), void *arg)
{
    struct splice_pair *p = mem_calloc(1, sizeof(*p));
    int err;

    if (!p) {
        errno = ENOMEM;
        return NULL;
    }
    p->pipe_size = pipe_size;
    p->on_news = on_news;
    p->arg = arg;
    for (int i = 0; i < 2; i++)
        p->w[i].pipe[0] = p->w[i].pipe[1] = -1;
    if (way_init(p, &p->w[0], base, a, b) < 0 || way_init(p, &p->w[1], base, b, a) < 0) {
        err = errno;
        splice_pair_free(p);
        errno = err;
        return NULL;
    }
    return p;
}

void splice_pair_free(struct splice_pair *p)
{
    if (!p)
        return;
    for (int i = 0; i < 2; i++) {
        struct way *w = &p->w[i];

        if (w->rd)
            event_free(w->rd);
        if (w->wr)
            event_free(w->wr);
        if (w->pipe[0] >= 0)
            close(w->pipe[0]);
        if (w->pipe[1] >= 0)
            close(w->pipe[1]);
    }
    mem_free(p);
}

uint64_t splice_pair_moved(const struct splice_pair *p, int way)
{
    return p->w[way ? 1 : 0].moved;
}

int splice_pair_errno(const struct splice_pair *p)
{
    return p->err;
}

int splice_pair_untouched(const struct splice_pair *p)
{
    return !p->read_any;
}
