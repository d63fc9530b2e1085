/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One side of a connection (client or upstream): its bytes fed to http-parser, bodies moved
 * to the other side, and reads and writes through its transport. */
#ifndef BROCK_PROXY_SIDE_H
#define BROCK_PROXY_SIDE_H

#include <stddef.h>
#include <stdint.h>

#include <event2/bufferevent.h>
#include <http_parser.h>

struct side;

enum pump {
    PUMP_MORE,   /* all input consumed; wait for more */
    PUMP_PAUSED, /* the parser stopped at a head or at the end of a message */
    PUMP_FULL,   /* the other side has too much waiting to be written */
    PUMP_ERROR,  /* the bytes are not HTTP, or a limit was passed */
};

/* Parser callbacks for a connection's requests (client side) and responses (upstream). The
 * parser's data is the struct conn. Each stops the parser after a head and after a whole
 * message (PAUSE_HEAD, PAUSE_DONE); bodies go to the other side as they arrive. */
extern const http_parser_settings side_request_settings;
extern const http_parser_settings side_response_settings;

/* Bytes waiting to be written to s (0 without a bufferevent). */
size_t side_pending(const struct side *s);

/* Feeds s's input to its parser until it pauses, errs, runs dry, or to has
 * LIMIT_PENDING_BYTES waiting. An upstream's end of stream is fed too (read-until-close). */
enum pump side_pump(struct side *s, const http_parser_settings *set, const struct side *to);

/* Starts s's framing checks afresh, for a new message (done by the parser callbacks at the end of
 * each message; also for a parser set up anew). */
void side_framing_reset(struct side *s);

/* Lets a paused parser go on. */
void side_resume(struct side *s);

/* After a head with a body of len bytes (len > 0): consumes the head's last line feed and
 * moves the body without parsing from then on (side_pump_raw). Returns 0, or -1 if the
 * parser refuses the line feed. */
int side_start_raw(struct side *s, const http_parser_settings *set, uint64_t len)
    __attribute__((warn_unused_result));

/* Moves the rest of a raw body to to (dropped when to has no bufferevent); PUMP_PAUSED with
 * PAUSE_DONE once it is all through. */
enum pump side_pump_raw(struct side *s, const struct side *to);

/* Tunnels: moves what from received to to, within the pending limit. */
void side_move(struct side *from, struct side *to);

/* A new side reads; it has the bufferevent write only when its transport cannot write at
 * once (see side_flush). */
void side_start_events(struct side *s);

/* Writes s's pending output now. Returns 1 when that emptied it, 0 otherwise (the
 * bufferevent then writes the rest), -1 when the write failed. */
int side_flush(struct side *s);

/* Reads what else s's socket holds now, within the input limit. */
void side_fill(struct side *s);

/* From a write callback: the bufferevent wrote what side_flush() could not. */
void side_write_drained(struct bufferevent *bev, const struct side *s);

#endif
