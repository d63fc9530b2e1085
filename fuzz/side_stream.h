/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The HTTP targets' way of reading a byte stream: src/proxy/side.c's side_feed() itself, as the
 * proxy's pump calls it, with the bytes arriving step at a time, each event logged. A stream
 * read whole and read in pieces must give the same events; the targets check that. */
#ifndef BROCK_FUZZ_SIDE_STREAM_H
#define BROCK_FUZZ_SIDE_STREAM_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/side.h"
#include "util/buf.h"

struct side_stream {
    struct buf log; /* the events: a letter each, a head's line and headers, body bytes */
    int failed;     /* the stream ended in SIDE_ERROR */
};

static inline void side_stream_log(struct side_stream *st, const struct side *s,
                                   const struct side_event *ev)
{
    static const char letter[] = {'m', 'H', 'b', 'D', 'U', 'E'};
    int ok = 0;

    /* Pieces of body are one stream whatever their boundaries: only their bytes are logged;
     * and how often more bytes were wanted depends on the pieces alone. */
    if (ev->type == SIDE_MORE)
        return;
    if (ev->type == SIDE_BODY) {
        ok = buf_append(&st->log, ev->at, ev->len);
    } else {
        ok = buf_append(&st->log, &letter[ev->type], 1);
        if (ok == 0 && ev->type == SIDE_HEAD) {
            ok = buf_append(&st->log, http_head_text(&s->head), s->head.line_len);
            for (size_t i = 0; ok == 0 && i < s->head.n; i++)
                if (buf_append(&st->log, s->head.h[i].name, s->head.h[i].name_len) < 0 ||
                    buf_append(&st->log, ":", 1) < 0 ||
                    buf_append(&st->log, s->head.h[i].value, s->head.h[i].value_len) < 0)
                    ok = -1;
        }
    }
    if (ok < 0)
        abort(); /* the log's limit is far above what 8 KiB of input makes */
}

/* Reads in[0..len) as one side in role, bytes arriving step at a time; the end of the stream
 * is told as the pump tells it (responses only). on_head is what the target does with a
 * finished head, given the rest of the stream (rest[0..rest_len), whether it arrived yet or
 * not): it returns 0 to read on, -1 to stop (a tunnel follows). */
static inline void side_stream_read(struct side_stream *st, enum side_role role, int no_body,
                                    const char *in, size_t len, size_t step,
                                    int (*on_head)(struct side *s, const char *rest,
                                                   size_t rest_len, void *arg),
                                    void *arg)
{
    struct side s;
    struct side_event ev;
    size_t off = 0, have = step < len ? step : len;

    memset(&s, 0, sizeof(s));
    memset(st, 0, sizeof(*st));
    buf_init(&st->log, (size_t)64 << 20);
    side_init(&s);
    side_start(&s, role);
    s.no_body = no_body;
    for (;;) {
        off += side_feed(&s, in + off, have - off, &ev);
        side_stream_log(st, &s, &ev);
        if (ev.type == SIDE_ERROR) {
            st->failed = 1;
            goto out;
        }
        if (ev.type == SIDE_HEAD && on_head(&s, in + off, len - off, arg) < 0)
            goto out;
        if (ev.type != SIDE_MORE)
            continue;
        if (have == len)
            break;
        have = len - have < step ? len : have + step;
    }
    if (role == SIDE_UPSTREAM) {
        side_end(&s, 0, &ev);
        side_stream_log(st, &s, &ev);
        st->failed = ev.type == SIDE_ERROR;
    }
out:
    side_cleanup(&s);
}

/* Two readings of one stream agree: the same events, or both refused (where the refusal comes
 * may differ by a piece of body: read whole, a chunked body's framing is checked to its end
 * before any of it is handed out). */
static inline void side_stream_compare(const struct side_stream *whole,
                                       const struct side_stream *split)
{
    if (whole->failed != split->failed ||
        (!whole->failed &&
         (whole->log.len != split->log.len ||
          (whole->log.len && memcmp(whole->log.data, split->log.data, whole->log.len) != 0)))) {
        fprintf(stderr, "side_feed: the stream read whole and in pieces differ\n");
        abort();
    }
}

static inline void side_stream_cleanup(struct side_stream *st)
{
    buf_cleanup(&st->log);
}

#endif
