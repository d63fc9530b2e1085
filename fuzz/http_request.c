/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Requests as the proxy reads them (side_feed(): framing checks, http-parser, heads gathered,
 * bodies of known length handed out without the parser), read whole and again with the bytes
 * arriving in pieces, which must agree; then for every head the target parsed as the proxy does
 * (absolute form, CONNECT authority, origin form inside an intercepted tunnel), the first party
 * inferred, the cookies looked at, and the headers rewritten and serialised (the framing
 * headers as brock forwards them); a chunked body checked ahead as the proxy does before the
 * head goes upstream, which must refuse no body the reading takes. Bodies (chunked or by
 * length) and pipelined requests are read through. The first input byte picks the rewrite
 * flags, the mode and the size of the pieces; the rest is the stream. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <http_parser.h>

#include "brock.h"
#include "engine/engine.h"
#include "engine/evidence.h"
#include "proxy/firstparty.h"
#include "http/head.h"
#include "proxy/rewrite.h"
#include "side_stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct req_ctx {
    unsigned flags;
    int intercepted;
    struct firstparty_memory fp;
    int ahead_bad; /* a chunked body the proxy checks ahead (pump_check_ahead) was refused */
};

/* What the proxy checks of a chunked body before its head goes upstream, run on the whole
 * rest of the stream: a body it refuses there must be refused by the reading too. */
static void check_ahead(struct req_ctx *ctx, const struct side *s, const char *rest,
                        size_t rest_len)
{
    struct framing_chunks fc = s->fc;
    size_t used;

    if (framing_chunks_active(&fc) &&
        framing_chunks_feed(&fc, rest, rest_len, &used) == FRAMING_BAD)
        ctx->ahead_bad = 1;
}

/* A header's value as a NUL-terminated copy in buf, or NULL when absent. */
static const char *header_copy(const struct http_head *hh, const char *name, char *buf, size_t size)
{
    const struct brock_header *h = http_header_find(hh->h, hh->n, name);

    if (!h)
        return NULL;
    snprintf(buf, size, "%.*s", (int)h->value_len, h->value);
    return buf;
}

/* The target as the proxy reads it: an origin-form path inside a tunnel is for the tunnel's
 * host; anything else goes through http_parse_target(). */
static int parse_target(const char *url, size_t len, int is_connect, int intercepted, char *host,
                        char *authority, size_t asize, const char **path, size_t *path_len)
{
    struct http_target t;

    if (intercepted && !is_connect && len > 0 && url[0] == '/') {
        snprintf(host, BROCK_HOST_MAX, "tunnel.example");
        *path = url;
        *path_len = len;
        http_authority(host, 443, 443, authority, asize);
        return 0;
    }
    if (http_parse_target(url, len, is_connect, &t) < 0)
        return -1;
    memcpy(host, t.host, BROCK_HOST_MAX);
    snprintf(authority, asize, "%s", t.authority);
    *path = t.path;
    *path_len = t.path_len;
    return 0;
}

/* What the proxy does with one finished request head. */
static int handle_head(struct side *s, const char *rest, size_t rest_len, void *arg)
{
    struct req_ctx *ctx = arg;
    const http_parser *p = &s->parser;
    const struct http_head *hh = &s->head;
    unsigned flags = ctx->flags;
    int intercepted = ctx->intercepted;
    const char *url = http_head_text(hh);
    const char *method = http_method_str((enum http_method)p->method);
    int is_connect = p->method == HTTP_CONNECT;
    char host[BROCK_HOST_MAX], authority[BROCK_HOST_MAX + 16], site[BROCK_HOST_MAX];
    char ref[2048], org[2048], mode[64], dest[64], fsite[64], acc[512], uir[16], cookie_name[256];
    const char *path = NULL;
    size_t path_len = 0;
    struct rewrite_out rw;
    struct buf out;

    /* The proxy's own pages answer origin-form targets outside a tunnel. */
    if (url[0] == '/' && !is_connect && !intercepted)
        return 0;
    if (parse_target(url, hh->line_len, is_connect, intercepted, host, authority, sizeof(authority),
                     &path, &path_len) < 0)
        return -1; /* 400: the connection ends */
    if (!is_connect) {
        struct firstparty_request r = {
            .host = host,
            .referer = header_copy(hh, "referer", ref, sizeof(ref)),
            .origin = header_copy(hh, "origin", org, sizeof(org)),
            .fetch_mode = header_copy(hh, "sec-fetch-mode", mode, sizeof(mode)),
            .fetch_dest = header_copy(hh, "sec-fetch-dest", dest, sizeof(dest)),
            .fetch_site = header_copy(hh, "sec-fetch-site", fsite, sizeof(fsite)),
            .accept = header_copy(hh, "accept", acc, sizeof(acc)),
            .upgrade_insecure = header_copy(hh, "upgrade-insecure-requests", uir, sizeof(uir)),
        };

        (void)firstparty_infer(&ctx->fp, "127.0.0.1", &r, site);
    }
    (void)brock__has_cookie_tracking(hh->h, hh->n, cookie_name, sizeof(cookie_name));
    if (p->upgrade && !is_connect)
        flags |= REWRITE_UPGRADE;
    if (s->doubtful)
        flags |= REWRITE_CLOSE;
    rewrite_out_init(&rw);
    buf_init(&out, LIMIT_HEAD_BYTES + 4096);
    if (rewrite_request(hh->h, hh->n, method, authority, flags, &rw) == 0 && path) {
        side_rewrite_framing(s, &rw);
        (void)http_write_request(&out, method, path, path_len, rw.h, rw.n);
    }
    buf_cleanup(&out);
    rewrite_out_cleanup(&rw);
    /* After a CONNECT or an upgrade the rest is a tunnel's bytes. */
    if (is_connect || p->upgrade)
        return -1;
    check_ahead(ctx, s, rest, rest_len);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct side_stream whole, split;
    struct req_ctx ctx;
    size_t step;

    if (size < 1)
        return 0;
    ctx.flags = data[0] & (REWRITE_STRIP_COOKIES | REWRITE_NO_SIGNALS);
    ctx.intercepted = (data[0] & 0x80) != 0;
    /* Bits 1 to 4: the pieces are 1, 2, 3 ... 16 bytes. */
    step = ((data[0] >> 1) & 15) + 1;
    ctx.ahead_bad = 0;
    firstparty_memory_init(&ctx.fp);
    side_stream_read(&whole, SIDE_CLIENT, 0, (const char *)data + 1, size - 1, size, handle_head,
                     &ctx);
    side_stream_read(&split, SIDE_CLIENT, 0, (const char *)data + 1, size - 1, step, handle_head,
                     &ctx);
    side_stream_compare(&whole, &split);
    if (ctx.ahead_bad && !whole.failed) {
        fprintf(stderr, "the check ahead refused a chunked body that the reading took\n");
        abort();
    }
    side_stream_cleanup(&whole);
    side_stream_cleanup(&split);
    firstparty_memory_cleanup(&ctx.fp);
    return 0;
}
