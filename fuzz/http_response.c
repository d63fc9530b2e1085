/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Responses as the proxy reads them from an upstream (side_feed(): framing checks,
 * http-parser, heads gathered, bodies of known length handed out without the parser, the end
 * of the stream ending a body read until close), read whole and again with the bytes arriving
 * in pieces, which must agree; the framing chosen as the proxy chooses it
 * (side_response_frame()), the headers rewritten (Set-Cookie stripped when cookieblocked,
 * hop-by-hop headers dropped) and serialised, the cookies looked at; bodies and interim
 * responses read through. The first input byte picks the request it answers (HEAD or not,
 * HTTP/1.0 client, cookieblocked, keep-alive) and the size of the pieces; the rest is the
 * stream. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <http_parser.h>

#include "brock.h"
#include "engine/engine.h"
#include "engine/evidence.h"
#include "http/head.h"
#include "proxy/rewrite.h"
#include "side_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct resp_ctx {
    int cookieblocked;
    unsigned req; /* SIDE_REQ_* */
};

static int handle_head(struct side *s, const char *rest, size_t rest_len, void *arg)
{
    const struct resp_ctx *ctx = arg;
    const http_parser *p = &s->parser;
    const struct http_head *hh = &s->head;
    unsigned flags = 0;
    int must_close = 0;
    char cookie_name[256];
    struct rewrite_out rw;
    struct buf out;

    /* Interim responses go out as they are; a final one's framing is chosen. */
    if (p->status_code / 100 != 1 || p->status_code == 101) {
        (void)side_response_frame(s, ctx->req, &flags, &must_close);
        if (ctx->cookieblocked)
            flags |= REWRITE_STRIP_COOKIES;
    }
    (void)brock__has_cookie_tracking(hh->h, hh->n, cookie_name, sizeof(cookie_name));
    rewrite_out_init(&rw);
    buf_init(&out, LIMIT_HEAD_BYTES + 4096);
    (void)rest;
    (void)rest_len;
    (void)rewrite_response(hh->h, hh->n, flags, &rw);
    side_rewrite_framing(s, &rw);
    (void)http_write_response(&out, p->status_code, http_head_text(hh), hh->line_len, rw.h, rw.n);
    buf_cleanup(&out);
    rewrite_out_cleanup(&rw);
    /* After 101 the rest belongs to the tunnel. */
    return p->status_code == 101 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct side_stream whole, split;
    struct resp_ctx ctx;
    int is_head;
    size_t step;

    if (size < 1)
        return 0;
    is_head = data[0] & 1;
    ctx.cookieblocked = (data[0] & 2) != 0;
    ctx.req = (is_head ? SIDE_REQ_HEAD : 0) | ((data[0] & 4) ? SIDE_REQ_HTTP10 : 0) |
              ((data[0] & 8) ? SIDE_REQ_CLOSE : 0) | SIDE_REQ_UPGRADE;
    /* Bits 4 to 7: the pieces are 1, 2, 3 ... 16 bytes. */
    step = (size_t)(data[0] >> 4) + 1;
    side_stream_read(&whole, SIDE_UPSTREAM, is_head, (const char *)data + 1, size - 1, size,
                     handle_head, &ctx);
    side_stream_read(&split, SIDE_UPSTREAM, is_head, (const char *)data + 1, size - 1, step,
                     handle_head, &ctx);
    side_stream_compare(&whole, &split);
    side_stream_cleanup(&whole);
    side_stream_cleanup(&split);
    return 0;
}
