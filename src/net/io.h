/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The transports a connection's side can run over. The HTTP handling only sees the
 * bufferevent a transport gives it, so TLS (interception, upstream https) is another entry
 * in this table rather than another copy of the state machine. */
#ifndef BROCK_NET_IO_H
#define BROCK_NET_IO_H

#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/util.h>

/* The most a transport reads or writes in one call (libevent's default is 4 KiB for reads). */
#define IO_MAX_SINGLE ((size_t)256 * 1024)

/* What fill() returns at the end of the stream, and when reading failed. */
#define IO_EOF (-1)
#define IO_ERROR (-2)

struct io_ops {
    const char *name;
    /* 1: the bytes are TLS records, and tls.h's helpers (close_notify, the handshake's
     * state, why it failed) apply to the bufferevent; 0: plain bytes. */
    int tls;
    /* 1: a plain socket, whose bytes may move to another such socket with splice(2)
     * (net/splice.h) when nothing needs to see them. */
    int splice;
    /* A bufferevent over fd: an accepted socket, or -1 for one connect() will open. The
     * bufferevent owns fd. NULL when out of memory. */
    struct bufferevent *(*open)(struct event_base *base, evutil_socket_t fd, void *arg);
    /* Starts connecting bev (from open with -1) to sa. Returns 0, or -1 with errno set;
     * the result arrives as BEV_EVENT_CONNECTED or BEV_EVENT_ERROR. */
    int (*connect)(struct bufferevent *bev, const struct sockaddr *sa, int len);
    /* Reads what the transport has ready, up to max bytes, into the bufferevent's input, in
     * as few system calls as it can. Returns the bytes read; 0 when nothing is ready;
     * IO_EOF at end of stream; IO_ERROR with errno set when the read failed or the input
     * could not grow (ENOMEM). A transport with fill is read by its owner on a read event of
     * its own (proxy/pump.c), never by the bufferevent, whose reader asks the socket how much
     * it holds (ioctl FIONREAD) before every read and takes 4 KiB at most (libevent 2.1).
     * NULL: the bufferevent reads. */
    long (*fill)(struct bufferevent *bev, size_t max);
    /* Writes what the output holds now rather than at the loop's next turn, which saves
     * enabling and disabling the write event for every small response. Returns 1 when the
     * output is empty after, 0 when some remains (the caller then enables EV_WRITE and the
     * bufferevent writes the rest), -1 on a write error. NULL: always leave writing to the
     * bufferevent. */
    int (*flush)(struct bufferevent *bev);
    /* 1 when the transport holds bytes it read from the socket that fill() has not handed out
     * yet (TLS reads ahead): no read event will say so. NULL: it never does. */
    int (*buffered)(struct bufferevent *bev);
    /* 1 while the bufferevent must do the reading (a TLS handshake under way); fill() then
     * reads nothing, and the owner starts reading itself once the transport is ready. NULL:
     * never. */
    int (*busy)(struct bufferevent *bev);
};

extern const struct io_ops io_tcp;

/* What every transport does on a socket (io_tcp.c): TCP_NODELAY on fd (when >= 0), and a
 * connect that sets it on the socket the bufferevent opened. */
void io_nodelay(evutil_socket_t fd);
int io_socket_connect(struct bufferevent *bev, const struct sockaddr *sa, int len);

/* TLS over a socket (io_tls.c). open()'s arg is the SSL, handed over: a server SSL accepts
 * on the given socket, a client SSL connects through connect(). */
extern const struct io_ops io_tls;

#endif
