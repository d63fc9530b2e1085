/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Responses as the proxy reads them from an upstream (http_drive.h: framing checks,
 * http-parser, heads gathered), the framing chosen as conn.c chooses it (chunked, by length,
 * until close, none), the headers rewritten (Set-Cookie stripped when cookieblocked,
 * hop-by-hop headers dropped) and serialised, the cookies looked at; bodies and interim
 * responses read through. The first input byte picks the request it answers (HEAD or not,
 * HTTP/1.0 client, cookieblocked); the rest is the stream. */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <http_parser.h>

#include "brock.h"
#include "engine/engine.h"
#include "http_drive.h"
#include "proxy/http.h"
#include "proxy/rewrite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct resp_ctx {
    int cookieblocked, client_http10, keepalive;
};

/* The flags conn.c's conn_response_head() gives the rewrite of this head. */
static unsigned response_flags(const http_parser *p, int cookieblocked, int client_http10,
                               int keepalive)
{
    int status = p->status_code;
    unsigned flags = cookieblocked ? REWRITE_STRIP_COOKIES : 0;
    int must_close = !keepalive;

    if (status / 100 == 1 && status != 101)
        return flags;
    if (status == 101) {
        flags |= REWRITE_UPGRADE;
    } else if (status == 204 || status == 304 || (p->flags & F_SKIPBODY)) {
        /* no body */
    } else if (p->flags & F_CHUNKED) {
        if (client_http10) {
            flags |= REWRITE_UNCHUNKED;
            must_close = 1;
        }
    } else if (p->content_length != ULLONG_MAX) {
        /* by length */
    } else if (client_http10) {
        must_close = 1;
    } else {
        flags |= REWRITE_CHUNKED;
    }
    if (must_close && !(flags & REWRITE_UPGRADE))
        flags |= REWRITE_CLOSE;
    return flags;
}

static int handle_head(struct drive *d, void *arg)
{
    const struct resp_ctx *ctx = arg;
    http_parser *p = &d->parser;
    const struct http_head *hh = &d->head;
    unsigned flags = response_flags(p, ctx->cookieblocked, ctx->client_http10, ctx->keepalive);
    char cookie_name[256];
    struct rewrite_out rw;
    struct buf out;

    (void)brock__has_cookie_tracking(hh->h, hh->n, cookie_name, sizeof(cookie_name));
    rewrite_out_init(&rw);
    buf_init(&out, LIMIT_HEAD_BYTES + 4096);
    (void)rewrite_response(hh->h, hh->n, flags, &rw);
    (void)http_write_response(&out, p->status_code, http_head_text(hh), hh->line_len, rw.h,
                              rw.n);
    buf_cleanup(&out);
    rewrite_out_cleanup(&rw);
    /* After 101 the rest belongs to the tunnel. */
    return p->status_code == 101 ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct resp_ctx ctx;
    struct drive d;

    if (size < 1)
        return 0;
    ctx.cookieblocked = (data[0] & 2) != 0;
    ctx.client_http10 = (data[0] & 4) != 0;
    ctx.keepalive = (data[0] & 8) == 0;
    drive_init(&d, HTTP_RESPONSE, handle_head, &ctx);
    d.is_head = data[0] & 1;
    drive_run(&d, (const char *)data + 1, size - 1);
    drive_cleanup(&d);
    return 0;
}
