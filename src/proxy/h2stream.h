/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the carrier (h2front.c) and its streams (h2stream.c) share, and nothing else includes:
 * the session, and one request stream from its HEADERS to its last DATA frame. */
#ifndef BROCK_PROXY_H2STREAM_H
#define BROCK_PROXY_H2STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <nghttp2/nghttp2.h>

#include "http/h2req.h"
#include "proxy/conn.h"
#include "proxy/side.h"
#include "util/buf.h"

/* The bytes of a request body answered before it ended that are read and dropped before the
 * client is asked to stop (RST_STREAM of NO_ERROR). */
#define H2_DISCARD_MAX ((size_t)1024 * 1024)

/* Stream ids (odd and even) below the highest whose opening is remembered. */
#define H2_OPENED_WINDOW 2048

struct h2front {
    struct conn *c; /* the carrier */
    nghttp2_session *ng;
    LIST_HEAD(, h2stream) streams; /* every stream with a struct of its own */
    size_t n_streams;
    /* The highest stream id the client opened, and which of the 1024 odd ids up to it it
     * opened (bit (id / 2) % 1024): a HEADERS frame for one it skipped is a stream it may no
     * longer open (RFC 9113 5.1.1), which nghttp2 ignores where the RFC asks for an error. */
    int32_t max_id;
    uint32_t opened[H2_OPENED_WINDOW / 64];
    unsigned kicked : 1;   /* a write event is due, which runs the carrier */
    unsigned stopping : 1; /* GOAWAY sent: no new stream */
    unsigned refused : 1;  /* the session ended for what the client did, said in the log */
};

struct h2stream {
    LIST_ENTRY(h2stream) link;
    struct h2front *f;
    int32_t id;
    struct conn *sc;         /* its stream connection; NULL: none yet, or gone */
    struct bufferevent *end; /* the carrier's end of the pair; NULL: none */

    /* The request, as its header block said. */
    struct h2req req;
    uint64_t got; /* its DATA bytes so far */
    unsigned started : 1, head_sent : 1, chunked : 1, req_ended : 1;
    size_t unconsumed; /* DATA bytes written to the pair not yet given back to the windows */

    /* The response, read from the pair as an upstream's is. */
    struct side resp;
    struct evbuffer *body; /* its body, waiting for the client's window */
    struct buf names;      /* its field names in lower case, for the HEADERS frame */
    unsigned submitted : 1, resp_done : 1, deferred : 1, paused : 1, ng_closed : 1;
    unsigned rst_sent : 1; /* brock reset it */
    unsigned early : 1;    /* its whole response went before its request ended */
    size_t discarded;      /* and the request's bytes dropped since */
};

/* A stream whose HEADERS began (in f->streams). NULL when out of memory. */
struct h2stream *h2stream_new(struct h2front *f, int32_t id);
/* Frees st, its pair end, and its place in the list (NULL: nothing). */
void h2stream_free(struct h2stream *st);

/* One field of its header block (a trailer's too, which is checked and dropped). */
void h2stream_header(struct h2stream *st, const char *name, size_t nlen, const char *value,
                     size_t vlen);
/* Whether its request head was taken (h2stream_start ran). */
int h2stream_started(const struct h2stream *st);
/* The header block ended (ended: with the stream): the request goes to a stream connection,
 * or is answered or reset here. */
void h2stream_start(struct h2stream *st, int ended);
/* The client's half of the stream ended. */
void h2stream_end(struct h2stream *st);
/* A piece of its body. Returns 0 when written to the pair (its window is given back as the
 * stream connection reads it), -1 when nothing takes it. */
int h2stream_data(struct h2stream *st, const char *p, size_t len);
/* nghttp2 closed the stream (error: its code): the stream connection closes, if any. */
void h2stream_closed(struct h2stream *st, uint32_t error);
/* The carrier closes: the stream connection closes, st is freed. */
void h2stream_drop(struct h2stream *st);
/* The stream connection closed by itself: what it wrote is read, and the stream ends with
 * it, whole or reset. */
void h2stream_conn_gone(struct h2stream *st);

/* h2front.c: the carrier runs at the loop's next turn (its frames to write). */
void h2front_kick(struct h2front *f);

#endif
