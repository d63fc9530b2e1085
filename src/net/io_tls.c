/* SPDX-License-Identifier: GPL-3.0-or-later */
/* TLS, the transport of intercepted clients and of https:// upstreams: libevent's OpenSSL
 * bufferevent straight on the socket, so that an empty output means the bytes reached the
 * kernel, as with plain TCP, and the state machine above needs no change. */
#include "net/io.h"

#include <errno.h>

#include <event2/buffer.h>
#include <event2/bufferevent_ssl.h>
#include <event2/event.h>
#include <openssl/err.h>
#include <openssl/ssl.h>

/* An output this small goes out as one record: a response's head and a small body, written
 * one after the other, make one record and one write(2) rather than one of each. */
#define TLS_ONE_RECORD ((size_t)16 * 1024)

/* arg is the connection's SSL (tls_upstream_ssl_new(), or interception's), handed over: a
 * server SSL accepts on fd, a client SSL connects once io_tls.connect() is called. */
static struct bufferevent *tls_open(struct event_base *base, evutil_socket_t fd, void *arg)
{
    SSL *ssl = arg;
    struct bufferevent *bev;

    if (!ssl)
        return NULL;
    io_nodelay(fd);
    bev = bufferevent_openssl_socket_new(
        base, fd, ssl, SSL_is_server(ssl) ? BUFFEREVENT_SSL_ACCEPTING : BUFFEREVENT_SSL_CONNECTING,
        BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        SSL_free(ssl);
        return NULL;
    }
    /* Where a body ends is the HTTP parser's call; peers that skip close_notify are many. */
    bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    bufferevent_set_max_single_read(bev, IO_MAX_SINGLE);
    bufferevent_set_max_single_write(bev, IO_MAX_SINGLE);
    /* A write that could not finish is retried by whoever writes next, tls_flush() or the
     * bufferevent, from the output's front, which may have moved in between. */
    SSL_set_mode(ssl, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    return bev;
}

/* Encrypts what the output holds now, straight to the socket, rather than at the loop's next
 * turn: a small output as one record. Before the handshake is done, the bufferevent writes. */
static int tls_flush(struct bufferevent *bev)
{
    struct evbuffer *out = bufferevent_get_output(bev);
    SSL *ssl = bufferevent_openssl_get_ssl(bev);
    size_t len = evbuffer_get_length(out);
    int rc = 1;

    if (!ssl || !SSL_is_init_finished(ssl))
        return len ? 0 : 1;
    /* A bufferevent keeps the front of its output frozen outside its own writes. */
    evbuffer_unfreeze(out, 1);
    if (len > 0 && len <= TLS_ONE_RECORD && !evbuffer_pullup(out, (ev_ssize_t)len)) {
        evbuffer_freeze(out, 1);
        errno = ENOMEM;
        return -1;
    }
    while (evbuffer_get_length(out) > 0) {
        struct evbuffer_iovec v;
        int n;

        if (evbuffer_peek(out, -1, NULL, &v, 1) < 1 || v.iov_len == 0)
            break;
        n = SSL_write(ssl, v.iov_base,
                      v.iov_len > IO_MAX_SINGLE ? (int)IO_MAX_SINGLE : (int)v.iov_len);
        if (n > 0) {
            evbuffer_drain(out, (size_t)n);
            continue;
        }
        switch (SSL_get_error(ssl, n)) {
        case SSL_ERROR_WANT_WRITE:
        case SSL_ERROR_WANT_READ:
            /* The bufferevent retries it once the socket has room. */
            rc = 0;
            break;
        default: rc = -1; break;
        }
        ERR_clear_error();
        break;
    }
    evbuffer_freeze(out, 1);
    /* Adding to an empty output had the bufferevent watch for room to write: unwatched in the
     * same loop iteration, the pair costs no epoll_ctl(2) (the loop's change list). */
    if (rc == 1)
        bufferevent_disable(bev, EV_WRITE);
    return rc;
}

/* The room each SSL_read() is given: a whole record's plaintext. */
#define TLS_READ_ROOM ((size_t)16 * 1024)

/* Decrypts what has arrived into the input, up to max bytes, until OpenSSL holds nothing it
 * read ahead: the next bytes then come with a read event (the socket is watched for reading).
 * Records are read ahead (several, or a header and its body, in one read(2)); the bufferevent,
 * which reads during the handshake, never reads ahead, as it would not see what OpenSSL holds
 * beyond the current record. */
static long tls_fill(struct bufferevent *bev, size_t max)
{
    struct evbuffer *in = bufferevent_get_input(bev);
    SSL *ssl = bufferevent_openssl_get_ssl(bev);
    size_t total = 0;
    long rc = 0;

    if (!ssl || !SSL_is_init_finished(ssl))
        return 0;
    if (!SSL_get_read_ahead(ssl))
        SSL_set_read_ahead(ssl, 1);
    /* SSL_get_error() reads the queue: nothing another connection left may remain in it. */
    ERR_clear_error();
    /* A bufferevent keeps the end of its input frozen outside its own reads. */
    evbuffer_unfreeze(in, 0);
    while (total < max) {
        struct evbuffer_iovec v;
        size_t want = max - total < TLS_READ_ROOM ? max - total : TLS_READ_ROOM;
        int n;

        if (evbuffer_reserve_space(in, (ev_ssize_t)want, &v, 1) < 1) {
            errno = ENOMEM;
            rc = IO_ERROR;
            break;
        }
        n = SSL_read(ssl, v.iov_base, (int)(v.iov_len < want ? v.iov_len : want));
        if (n > 0) {
            v.iov_len = (size_t)n;
            if (evbuffer_commit_space(in, &v, 1) < 0) {
                errno = ENOMEM;
                rc = IO_ERROR;
                break;
            }
            total += (size_t)n;
            /* Nothing read ahead left: the socket's next bytes raise a read event, and asking
             * now would mostly cost a read(2) that finds none. */
            if (!SSL_has_pending(ssl))
                break;
            continue;
        }
        evbuffer_commit_space(in, &v, 0);
        switch (SSL_get_error(ssl, n)) {
        case SSL_ERROR_WANT_READ:
        case SSL_ERROR_WANT_WRITE: break;
        case SSL_ERROR_ZERO_RETURN:
            /* close_notify, or a close without it (SSL_OP_IGNORE_UNEXPECTED_EOF). */
            rc = IO_EOF;
            break;
        case SSL_ERROR_SYSCALL:
            if (errno == 0)
                errno = ECONNRESET;
            rc = IO_ERROR;
            break;
        default:
            /* OpenSSL's queue says why (tls_error_describe). */
            errno = EPROTO;
            rc = IO_ERROR;
            break;
        }
        break;
    }
    evbuffer_freeze(in, 0);
    /* What was read goes first; an end or an error is found again at the next read. */
    return total ? (long)total : rc;
}

static int tls_buffered(struct bufferevent *bev)
{
    SSL *ssl = bufferevent_openssl_get_ssl(bev);

    return ssl && SSL_is_init_finished(ssl) && SSL_has_pending(ssl);
}

static int tls_busy(struct bufferevent *bev)
{
    SSL *ssl = bufferevent_openssl_get_ssl(bev);

    return ssl && !SSL_is_init_finished(ssl);
}

/* fill reads once the handshake is done, before which the bufferevent reads; flush writes at
 * once (see tls_flush). */
const struct io_ops io_tls = {
    .name = "tls",
    .tls = 1,
    .splice = 0,
    .open = tls_open,
    .connect = io_socket_connect, /* the handshake follows, driven by the bufferevent */
    .fill = tls_fill,
    .flush = tls_flush,
    .buffered = tls_buffered,
    .busy = tls_busy,
};
