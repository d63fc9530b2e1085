/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A side's bytes through its bufferevent: its input fed to side_feed(), bodies written to the
 * other side in the framing chosen for them, tunnels, and the transport's reads and writes done
 * at once where it can. Every write is checked: one that fails (out of memory) is reported,
 * never half-written and ignored. */
#ifndef BROCK_PROXY_PUMP_H
#define BROCK_PROXY_PUMP_H

#include <stddef.h>

#include <event2/bufferevent.h>

#include "proxy/side.h"

enum pump {
    PUMP_MORE,  /* all input consumed; wait for more */
    PUMP_EVENT, /* side_feed() said something: see the event */
    PUMP_FULL,  /* the other side has too much waiting to be written */
    PUMP_NOMEM, /* writing to the other side failed: out of memory */
};

/* Bytes waiting to be written to s (0 without a bufferevent). */
size_t pump_pending(const struct side *s);

/* Feeds s's input to side_feed() until an event, until the input runs dry (PUMP_MORE; an
 * upstream's end of stream is fed too, as responses may end at close) or until to has
 * LIMIT_PENDING_BYTES waiting (PUMP_FULL). Pieces of body go to to's output in framing f, and
 * a chunked body's last chunk when its message ends; with to NULL (or without a bufferevent)
 * each piece is returned instead (PUMP_EVENT, SIDE_BODY), for the caller to keep or drop. */
enum pump pump_read(struct side *s, struct side *to, enum frame f, struct side_event *ev)
    __attribute__((warn_unused_result));

/* A piece of body that pump_read() handed out (to NULL) stays in s's input until the next
 * pump_read(), but libevent may move its bytes meanwhile (more input arrives): its offset in
 * the input finds it again. pump_piece_offset() says where the piece at starts;
 * pump_piece() gives back len bytes at off, or NULL when the input does not hold them. */
size_t pump_piece_offset(const struct side *s, const char *at);
const char *pump_piece(const struct side *s, size_t off, size_t len);

/* Checks, without reading them, what s's input holds of a chunked body whose head side_feed()
 * just gave (SIDE_HEAD): the framing scanner side_feed() will run, run ahead on a copy. Returns
 * 0 when those bytes are fine so far (or the body is not chunked), -1 with *reason (a static
 * sentence) when side_feed() will refuse them. */
int pump_check_ahead(const struct side *s, const char **reason) __attribute__((warn_unused_result));

/* Appends len bytes, or a formatted text, to s's output. Return 0, or -1 when out of memory
 * (then nothing or part of it was added: the connection must close, unflushed). */
int pump_write(struct side *s, const void *p, size_t len) __attribute__((warn_unused_result));
int pump_printf(struct side *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), warn_unused_result));

/* Tunnels: moves what from received to to, within the pending limit. Returns the bytes moved,
 * or -1 when out of memory. */
long pump_move(struct side *from, struct side *to) __attribute__((warn_unused_result));

/* A new side reads (by itself, on a read event of its own, when its transport has fill());
 * it has the bufferevent write only when its transport cannot write at once (see pump_flush).
 * Returns 0, or -1 when out of memory. */
int pump_start(struct side *s) __attribute__((warn_unused_result));

/* s lets go of its bufferevent (freed, pooled, or handed to another transport): its own read
 * event goes. Call before the bufferevent's socket closes or changes hands, and after whatever
 * reads it next (the pool) starts, so that the socket stays watched; again: nothing. */
void pump_stop(struct side *s);

/* Whether the connection wants s read (on: 1) or not (0: an upgrade waits for its answer).
 * Either way s does not read while its input holds LIMIT_PENDING_BYTES (pump_limit). Returns
 * 0, or -1 when out of memory. */
int pump_reading(struct side *s, int on) __attribute__((warn_unused_result));

/* After the connection moved what it could: s stops reading while its input holds
 * LIMIT_PENDING_BYTES, and reads again once it holds less. Returns 0, or -1 when out of
 * memory. */
int pump_limit(struct side *s) __attribute__((warn_unused_result));

/* Writes s's pending output now. Returns 1 when that emptied it, 0 otherwise (the
 * bufferevent then writes the rest), -1 when the write failed. */
int pump_flush(struct side *s) __attribute__((warn_unused_result));

/* From a write callback: the bufferevent wrote what pump_flush() could not. */
void pump_drained(struct bufferevent *bev, const struct side *s);

#endif
