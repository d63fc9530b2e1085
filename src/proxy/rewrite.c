/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Header lists rewritten on the way up and on the way down. */
#include "proxy/rewrite.h"

#include <string.h>
#include <strings.h>

#include "http/head.h"

void rewrite_out_init(struct rewrite_out *o)
{
    o->n = 0;
    buf_init(&o->scratch, LIMIT_HEAD_BYTES);
}

void rewrite_out_cleanup(struct rewrite_out *o)
{
    buf_cleanup(&o->scratch);
}

static void put_header(struct rewrite_out *o, const char *name, size_t nlen, const char *value,
                       size_t vlen)
{
    if (o->n == sizeof(o->h) / sizeof(o->h[0]))
        return;
    o->h[o->n].name = name;
    o->h[o->n].name_len = nlen;
    o->h[o->n].value = value;
    o->h[o->n].value_len = vlen;
    o->n++;
}

/* name is a literal: its length is known when compiled. */
#define PUT(o, name, value, vlen) put_header((o), name, sizeof(name) - 1, (value), (vlen))

static void keep(struct rewrite_out *o, const struct brock_header *h)
{
    if (o->n < sizeof(o->h) / sizeof(o->h[0]))
        o->h[o->n++] = *h;
}

/* Hop-by-hop: the fixed set (RFC 9110 7.6.1 plus Proxy-*) and whatever Connection names. */
static int is_hop_by_hop(const struct brock_header *h, const struct brock_header *in, size_t n,
                         unsigned flags)
{
    static const struct {
        const char *name;
        size_t len;
    } fixed[] = {
#define NAME(s) {s, sizeof(s) - 1}
        NAME("connection"),
        NAME("keep-alive"),
        NAME("proxy-connection"),
        NAME("proxy-authorization"),
        NAME("proxy-authenticate"),
        NAME("te"),
        NAME("trailer"),
#undef NAME
    };

    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
        if (h->name_len == fixed[i].len && strncasecmp(h->name, fixed[i].name, h->name_len) == 0)
            return 1;
    if (http_name_is(h->name, h->name_len, "upgrade"))
        return !(flags & REWRITE_UPGRADE);
    /* Framing headers stay, whatever a Connection header says about them. */
    if (http_name_is(h->name, h->name_len, "content-length") ||
        http_name_is(h->name, h->name_len, "transfer-encoding") ||
        http_name_is(h->name, h->name_len, "host") || h->name_len >= 128)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (http_name_is(in[i].name, in[i].name_len, "connection") &&
            http_list_has_n(in[i].value, in[i].value_len, h->name, h->name_len))
            return 1;
    return 0;
}

/* A header that carries cookies one way: name, or its RFC 2965 form name2 (Cookie2,
 * Set-Cookie2), obsolete but still read by some clients and sent by some servers. Stripping
 * one and passing the other would let a cookieblocked tracker keep its identifier. */
static int is_cookie_header(const struct brock_header *h, const char *name, const char *name2)
{
    return http_name_is(h->name, h->name_len, name) || http_name_is(h->name, h->name_len, name2);
}

int rewrite_referer_origin(const char *ref, size_t len, char *out, size_t size)
{
    const char *p = memchr(ref, ':', len);
    size_t end;

    if (!p || (size_t)(p - ref) + 3 > len || p[1] != '/' || p[2] != '/')
        return -1;
    end = (size_t)(p - ref) + 3;
    while (end < len && ref[end] != '/' && ref[end] != '?' && ref[end] != '#')
        end++;
    if (end + 2 > size)
        return -1;
    memcpy(out, ref, end);
    out[end] = '/';
    out[end + 1] = '\0';
    return (int)end + 1;
}

int rewrite_request(const struct brock_header *in, size_t n, const char *method,
                    const char *authority, unsigned flags, struct rewrite_out *o)
{
    int strip = (flags & REWRITE_STRIP_COOKIES) != 0;
    size_t ref_off = 0, ref_len = 0;
    int have_ref = 0;

    o->n = 0;
    buf_reset(&o->scratch);
    PUT(o, "Host", authority, strlen(authority));
    for (size_t i = 0; i < n; i++) {
        const struct brock_header *h = &in[i];

        if (is_hop_by_hop(h, in, n, flags) || http_name_is(h->name, h->name_len, "host"))
            continue;
        if (!(flags & REWRITE_NO_SIGNALS) && (http_name_is(h->name, h->name_len, "dnt") ||
                                              http_name_is(h->name, h->name_len, "sec-gpc")))
            continue;
        if (strip && is_cookie_header(h, "cookie", "cookie2"))
            continue;
        if (strip && http_name_is(h->name, h->name_len, "referer")) {
            char cut[LIMIT_HEAD_BYTES < 8192 ? LIMIT_HEAD_BYTES : 8192];
            int len;

            if (strcmp(method, "GET") != 0 || have_ref)
                continue;
            len = rewrite_referer_origin(h->value, h->value_len, cut, sizeof(cut));
            if (len < 0)
                continue;
            ref_off = o->scratch.len;
            ref_len = (size_t)len;
            if (buf_append(&o->scratch, cut, ref_len) < 0)
                return -1;
            have_ref = 1;
            /* The view is set once scratch stops growing. */
            PUT(o, "Referer", "", 0);
            continue;
        }
        keep(o, h);
    }
    if (have_ref) {
        for (size_t i = 0; i < o->n; i++)
            if (o->h[i].value_len == 0 && http_name_is(o->h[i].name, o->h[i].name_len, "referer")) {
                o->h[i].value = o->scratch.data + ref_off;
                o->h[i].value_len = ref_len;
            }
    }
    if (flags & REWRITE_UPGRADE)
        PUT(o, "Connection", "Upgrade", 7);
    else if (flags & REWRITE_CLOSE)
        PUT(o, "Connection", "close", 5);
    if (!(flags & REWRITE_NO_SIGNALS)) {
        PUT(o, "DNT", "1", 1);
        PUT(o, "Sec-GPC", "1", 1);
    }
    PUT(o, "Via", REWRITE_VIA, strlen(REWRITE_VIA));
    return 0;
}

int rewrite_response(const struct brock_header *in, size_t n, unsigned flags, struct rewrite_out *o)
{
    o->n = 0;
    buf_reset(&o->scratch);
    for (size_t i = 0; i < n; i++) {
        const struct brock_header *h = &in[i];

        if (is_hop_by_hop(h, in, n, flags))
            continue;
        if ((flags & REWRITE_STRIP_COOKIES) && is_cookie_header(h, "set-cookie", "set-cookie2"))
            continue;
        if ((flags & (REWRITE_CHUNKED | REWRITE_UNCHUNKED)) &&
            http_name_is(h->name, h->name_len, "transfer-encoding"))
            continue;
        keep(o, h);
    }
    if (flags & REWRITE_CHUNKED)
        PUT(o, "Transfer-Encoding", "chunked", 7);
    if (flags & REWRITE_UPGRADE)
        PUT(o, "Connection", "Upgrade", 7);
    else if (flags & REWRITE_CLOSE)
        PUT(o, "Connection", "close", 5);
    PUT(o, "Via", REWRITE_VIA, strlen(REWRITE_VIA));
    return 0;
}
