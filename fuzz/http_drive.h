/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The proxy's way of reading one side of a connection, for the HTTP targets: each piece of
 * input checked by the strict framing scanners (proxy/framing.h) before http-parser sees it;
 * http-parser with the callbacks' shape of src/proxy/side.c gathering each head (proxy/http.h)
 * and checking its framing headers; a stop after each head (where the target does what the
 * proxy does with it) and after each message; a body of known length moved without the
 * parser, which then starts afresh, as side_start_raw() and side_pump_raw() do. */
#ifndef BROCK_FUZZ_HTTP_DRIVE_H
#define BROCK_FUZZ_HTTP_DRIVE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <http_parser.h>

#include "proxy/framing.h"
#include "proxy/http.h"

enum drive_pause { DRIVE_NONE, DRIVE_HEAD, DRIVE_DONE };

struct drive {
    http_parser parser;
    enum http_parser_type type;
    struct http_head head;
    struct framing_head fh;
    struct framing_chunks fc;
    const char *frame_err;
    int head_err;
    enum drive_pause pause;
    int is_head; /* responses: the request was HEAD */
    /* What the target does with a finished head; returns 0 to go on, -1 to stop (a tunnel,
     * or a head the proxy refuses). */
    int (*on_head)(struct drive *d, void *arg);
    void *arg;
};

static inline struct drive *drive_of(http_parser *p)
{
    return p->data;
}

static inline void drive_framing_reset(struct drive *d)
{
    framing_head_reset(&d->fh);
    memset(&d->fc, 0, sizeof(d->fc));
}

static inline void drive_parser_init(struct drive *d)
{
    http_parser_init(&d->parser, d->type);
    d->parser.data = d;
    drive_framing_reset(d);
}

static int drive_on_begin(http_parser *p)
{
    http_head_reset(&drive_of(p)->head);
    drive_of(p)->head_err = 0;
    return 0;
}

static int drive_on_line(http_parser *p, const char *at, size_t len)
{
    int rc = http_head_line(&drive_of(p)->head, at, len);

    return rc ? (drive_of(p)->head_err = rc, -1) : 0;
}

static int drive_on_field(http_parser *p, const char *at, size_t len)
{
    int rc = http_head_field(&drive_of(p)->head, at, len);

    return rc ? (drive_of(p)->head_err = rc, -1) : 0;
}

static int drive_on_value(http_parser *p, const char *at, size_t len)
{
    int rc = http_head_value(&drive_of(p)->head, at, len);

    return rc ? (drive_of(p)->head_err = rc, -1) : 0;
}

static int drive_on_headers_complete(http_parser *p)
{
    struct drive *d = drive_of(p);
    unsigned flags = d->type == HTTP_RESPONSE ? FRAMING_RESPONSE : 0;
    int skip = d->type == HTTP_RESPONSE && d->is_head;

    http_head_finish(&d->head);
    if (p->http_major < 1 || (p->http_major == 1 && p->http_minor == 0))
        flags |= FRAMING_HTTP10;
    if (framing_check_headers(d->head.h, d->head.n, flags, &d->frame_err) < 0)
        return -1;
    if ((p->flags & F_CHUNKED) && !skip)
        framing_chunks_start(&d->fc);
    d->pause = DRIVE_HEAD;
    http_parser_pause(p, 1);
    return skip ? 1 : 0;
}

static int drive_on_body(http_parser *p, const char *at, size_t len)
{
    (void)p;
    (void)at;
    (void)len;
    return 0;
}

static int drive_on_complete(http_parser *p)
{
    struct drive *d = drive_of(p);

    drive_framing_reset(d);
    /* An interim response is followed by the real one, at once. */
    if (d->type == HTTP_RESPONSE && p->status_code / 100 == 1 && p->status_code != 101) {
        http_parser_pause(p, 1);
        return 0;
    }
    d->pause = DRIVE_DONE;
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings drive_settings = {
    .on_message_begin = drive_on_begin,
    .on_url = drive_on_line,
    .on_status = drive_on_line,
    .on_header_field = drive_on_field,
    .on_header_value = drive_on_value,
    .on_headers_complete = drive_on_headers_complete,
    .on_body = drive_on_body,
    .on_message_complete = drive_on_complete,
};

/* The framing scan of a piece about to be parsed, as side_scan() does it. */
static int drive_scan(struct drive *d, const char *p, size_t len)
{
    size_t used;

    if (framing_chunks_active(&d->fc)) {
        if (framing_chunks_feed(&d->fc, p, len, &used) == FRAMING_BAD) {
            d->frame_err = d->fc.reason;
            return -1;
        }
    } else if (framing_head_feed(&d->fh, p, len, &used) == FRAMING_BAD) {
        d->frame_err = d->fh.reason;
        return -1;
    }
    return 0;
}

static inline void drive_init(struct drive *d, enum http_parser_type type,
                              int (*on_head)(struct drive *, void *), void *arg)
{
    memset(d, 0, sizeof(*d));
    d->type = type;
    d->on_head = on_head;
    d->arg = arg;
    http_head_init(&d->head);
    drive_parser_init(d);
}

static inline void drive_cleanup(struct drive *d)
{
    http_head_cleanup(&d->head);
}

/* Reads the whole stream in..len as one connection's side, then its end. */
static inline void drive_run(struct drive *d, const char *in, size_t left)
{
    while (left > 0) {
        size_t used;
        enum http_errno err;

        if (drive_scan(d, in, left) < 0)
            return;
        used = http_parser_execute(&d->parser, &drive_settings, in, left);
        in += used;
        left -= used;
        err = HTTP_PARSER_ERRNO(&d->parser);
        if (err == HPE_PAUSED && d->pause == DRIVE_NONE) {
            http_parser_pause(&d->parser, 0); /* after an interim response */
            continue;
        }
        if (err == HPE_PAUSED && d->pause == DRIVE_HEAD) {
            http_parser *p = &d->parser;
            int chunked = (p->flags & F_CHUNKED) != 0;
            uint64_t clen = p->content_length;
            int bodyless = (d->type == HTTP_RESPONSE &&
                            (d->is_head || p->status_code == 204 || p->status_code == 304 ||
                             p->status_code / 100 == 1));

            d->pause = DRIVE_NONE;
            if (d->on_head(d, d->arg) < 0)
                return;
            http_parser_pause(p, 0);
            if (!chunked && !bodyless && clen != ULLONG_MAX && clen > 0 && left > 0) {
                /* A body of known length: the head's last line feed to the parser, then the
                 * body moved as it is; the parser starts afresh after it. */
                if (http_parser_execute(p, &drive_settings, in, 1) != 1 ||
                    HTTP_PARSER_ERRNO(p) != HPE_OK)
                    return;
                in++;
                left--;
                used = clen < left ? (size_t)clen : left;
                in += used;
                left -= used;
                drive_parser_init(d);
            }
            continue;
        }
        if (err == HPE_PAUSED && d->pause == DRIVE_DONE) {
            d->pause = DRIVE_NONE;
            http_parser_pause(&d->parser, 0);
            continue;
        }
        if (err != HPE_OK)
            return;
    }
    (void)http_parser_execute(&d->parser, &drive_settings, NULL, 0); /* the end of the stream */
}

#endif
