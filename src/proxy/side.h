/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One side of a connection read as HTTP/1.1: requests from the client, responses from the
 * upstream. Its bytes pass the strict framing scanners (proxy/framing.h), then http-parser with
 * one set of callbacks for both roles, and come out as events: a head with its headers, pieces
 * of body, the end of a message. Pure: no sockets, no bufferevents, no clock; the transport's
 * fields below are the connection's (proxy/pump.h) and side.c never touches them. */
#ifndef BROCK_PROXY_SIDE_H
#define BROCK_PROXY_SIDE_H

#include <stddef.h>
#include <stdint.h>

#include <http_parser.h>

#include "proxy/framing.h"
#include "http/head.h"
#include "proxy/rewrite.h"

struct bufferevent;
struct event;
struct io_ops;

enum side_role {
    SIDE_CLIENT,   /* reads requests */
    SIDE_UPSTREAM, /* reads responses */
};

enum side_event_type {
    SIDE_MORE,    /* every byte given was taken; more are needed */
    SIDE_HEAD,    /* a head ended: s->head holds it, s->parser its method or status, version,
                     * flags and Content-Length */
    SIDE_BODY,    /* a piece of body: at, len */
    SIDE_DONE,    /* a message ended */
    SIDE_UPGRADE, /* a message ended, and what follows may be another protocol: a CONNECT, a
                     * request asking to upgrade, a 101 that agrees (side_feed() reads it as HTTP
                     * only if given it) */
    SIDE_ERROR,   /* the bytes are not HTTP, or a limit was passed: error, reason */
};

enum side_error {
    SIDE_ERR_NONE,
    SIDE_ERR_FRAMING, /* the strict framing checks refused the message */
    SIDE_ERR_HEAD,    /* the head passed LIMIT_HEAD_BYTES or LIMIT_HEADERS */
    SIDE_ERR_PARSE,   /* http-parser refused it (its errno stays in s->parser) */
    SIDE_ERR_END,     /* the stream ended in the middle of a message */
};

struct side_event {
    enum side_event_type type;
    const char *at; /* SIDE_BODY: a view into the bytes given, valid as they are */
    size_t len;
    int plain;             /* SIDE_BODY: the piece is exactly the bytes consumed (a body of
                              * known length, not parsed), so it may be moved as it is */
    enum side_error error; /* SIDE_ERROR */
    const char *reason;    /* SIDE_ERROR: a static sentence */
};

/* How a body is framed on its way out to the other side. */
enum frame {
    FRAME_NONE,    /* no body */
    FRAME_LENGTH,  /* Content-Length: as received */
    FRAME_CHUNKED, /* chunked: re-chunked as it streams */
    FRAME_CLOSE,   /* until the connection closes */
};

struct side {
    /* The transport: the connection's (pump.h, conn.c, upstream.c). */
    struct bufferevent *bev;
    const struct io_ops *io;
    int eof;          /* the peer closed its end */
    int broken;       /* and not cleanly: a reset, or a read or write that failed */
    int eof_fed;      /* and side_end() was told */
    size_t held;      /* input side_feed() consumed that a caller still reads (a piece
                         * of body handed out): drained at the next pump_read() */
    int want_read;    /* the connection wants the side read (pump_reading) */
    int in_full;      /* its input holds LIMIT_PENDING_BYTES: reading waits */
    struct event *rd; /* a transport with fill(): the read event on its socket, as
                         * the side reads it itself; NULL: the bufferevent reads */
    int rd_end;       /* and it found the end of the stream, or an error: no more */

    /* The reader: side.c's. */
    enum side_role role;
    int no_body;        /* upstream: the request was HEAD, so the response has no body
                           * whatever its head says (set before the response comes) */
    http_parser parser; /* its data is the side */
    struct http_head head;
    struct {                        /* the head's Transfer-Encoding, as the framing check read it */
        int seen, chunked, unusual; /* as struct framing_te's */
        char *normal;               /* unusual: framing_te.normal, allocated (held by every
                                       * connection, the check's buffer would cost it 256 bytes); else
                                       * NULL: the coding is chunked alone */
        size_t normal_len;
    } te;
    int doubtful;             /* the head's framing is one brock reads, and passes on, but would
                                 * not bet a connection on (side_feed sets it at each SIDE_HEAD):
                                 * a Transfer-Encoding other than one plain chunked; a request
                                 * whose method has no use for a body (GET, HEAD, DELETE,
                                 * OPTIONS, TRACE) with one; a 1xx or 204 announcing a body */
    struct framing_head fh;   /* the head's bytes, checked before the parser sees them */
    struct framing_chunks fc; /* and a chunked body's framing */
    size_t scanned;           /* bytes past the parser's position already checked */
    int rearmed;              /* a scanner started afresh at the parser's position */
    int raw;                  /* a body of known length moves without the parser */
    int raw_lf;               /* and the head's last line feed is still the parser's */
    uint64_t raw_left;        /* of that body */
    int keep_alive;           /* after SIDE_DONE: the message lets the connection persist */
    int head_err;             /* an enum http_head_error from a callback */
    const char *frame_err;    /* why the framing was refused (static), or NULL */
    struct side_event ev;     /* what the callbacks made of the last bytes */
    struct side_event failed; /* the error, once there was one; it stays */
};

/* Readies s's head (init) or releases it (cleanup); cleanup leaves s unusable. */
void side_init(struct side *s);
/* Frees what the side's last head held, ready for the next: an idle connection keeps none. */
void side_release(struct side *s);
void side_cleanup(struct side *s);

/* Starts s reading a new stream in role: the parser, the scanners and any error afresh. The
 * transport's fields and no_body are left alone. */
void side_start(struct side *s, enum side_role role);

/* Reads what it can of p[0..len) (borrowed for the call) up to the next event, which it
 * writes to *ev; returns the bytes consumed. The bytes not consumed must be given again, at the
 * start of the next call, with any that came since; call again after every event but
 * SIDE_MORE and SIDE_ERROR, even with no bytes (the end of a body may be due). After
 * SIDE_ERROR every call returns it again and consumes nothing. */
size_t side_feed(struct side *s, const char *p, size_t len, struct side_event *ev)
    __attribute__((warn_unused_result));

/* The peer closed its end, and every byte it sent was given to side_feed(): a response read
 * until close ends here (SIDE_DONE), unless the stream broke (broken: a reset, a failed read),
 * which cuts it (SIDE_ERROR); between messages nothing happens (SIDE_MORE); in the middle of
 * one it is SIDE_ERROR. Returns ev->type. */
enum side_event_type side_end(struct side *s, int broken, struct side_event *ev);

/* What the request that a response answers says about the response's framing. */
#define SIDE_REQ_HEAD 1u    /* it was HEAD */
#define SIDE_REQ_UPGRADE 2u /* it asked to upgrade the connection */
#define SIDE_REQ_HTTP10 4u  /* the client speaks HTTP/1.0 */
#define SIDE_REQ_CLOSE 8u   /* the client's connection does not persist */

/* After SIDE_HEAD, with o the head's headers as rewrite_request() or rewrite_response() made
 * them: the framing headers as brock forwards them. A Transfer-Encoding brock accepted but
 * others may read differently (framing_te.unusual) becomes one in plain words (s->te.normal,
 * which the views then point to: valid while s's head is); a 1xx or 204 response, which has
 * no body, loses any Content-Length or Transfer-Encoding (RFC 9110 8.6, RFC 9112 6.1), lest a
 * lenient client wait for a body brock never sends. HEAD and 304 keep theirs: there they say
 * what a GET would get. */
void side_rewrite_framing(const struct side *s, struct rewrite_out *o);

/* After SIDE_HEAD of a final response (not 1xx, or 101): how its body goes to the client, and
 * the rewrite flags (REWRITE_UPGRADE, _CHUNKED, _UNCHUNKED, _CLOSE) that make its head say so.
 * *must_close is set when the client's connection must close after it. */
enum frame side_response_frame(const struct side *u, unsigned req, unsigned *rewrite_flags,
                               int *must_close);

#endif
