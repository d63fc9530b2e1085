/* SPDX-License-Identifier: GPL-3.0-or-later */
/* TLS, the transport of intercepted clients and of https:// upstreams: libevent's OpenSSL
 * bufferevent straight on the socket, so that an empty output means the bytes reached the
 * kernel, as with plain TCP, and the state machine above needs no change. */
#include "net/io.h"

#include <event2/bufferevent_ssl.h>
#include <openssl/ssl.h>


/* arg is the connection's SSL (tls_upstream_ssl_new(), or interception's), handed over: a
 * server SSL accepts on fd, a client SSL connects once io_tls.connect() is called. */
static struct bufferevent *tls_open(struct event_base *base, evutil_socket_t fd, void *arg)
{
    SSL *ssl = arg;
    struct bufferevent *bev;

    if (!ssl)
        return NULL;
    io_nodelay(fd);
    bev = bufferevent_openssl_socket_new(base, fd, ssl,
                                         SSL_is_server(ssl) ? BUFFEREVENT_SSL_ACCEPTING
                                                            : BUFFEREVENT_SSL_CONNECTING,
                                         BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        SSL_free(ssl);
        return NULL;
    }
    /* Where a body ends is the HTTP parser's call; peers that skip close_notify are many. */
    bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    bufferevent_set_max_single_read(bev, IO_MAX_SINGLE);
    bufferevent_set_max_single_write(bev, IO_MAX_SINGLE);
    return bev;
}

/* No fill or flush: records are read and written whole by the bufferevent, which already
 * reads as much as the limit allows each time. */
const struct io_ops io_tls = {
    .name = "tls",
    .tls = 1,
    .splice = 0,
    .open = tls_open,
    .connect = io_socket_connect, /* the handshake follows, driven by the bufferevent */
    .fill = NULL,
    .flush = NULL,
};
