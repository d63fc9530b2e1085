/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Gathering http-parser's fragments into heads, and writing heads back out. */
#include "http/head.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <http_parser.h>

#include "util/alloc.h"
#include "util/decimal.h"

void http_head_init(struct http_head *hh)
{
    buf_init(&hh->raw, LIMIT_HEAD_BYTES);
    hh->span = NULL;
    hh->h = NULL;
    hh->cap = 0;
    http_head_reset(hh);
}

void http_head_cleanup(struct http_head *hh)
{
    buf_cleanup(&hh->raw);
    mem_free(hh->span);
    mem_free(hh->h);
    hh->span = NULL;
    hh->h = NULL;
    hh->cap = 0;
}

/* The arrays grow with the head instead of being LIMIT_HEADERS long in every head: an idle
 * keep-alive connection holds two heads, and 2,000 of them at 8 KiB each was most of brock's
 * memory. A typical head fits the first 16 entries. */
static int grow(struct http_head *hh)
{
    size_t cap = hh->cap ? hh->cap * 2 : 16;
    struct http_head_span *span;
    struct brock_header *h;

    if (cap > LIMIT_HEADERS)
        cap = LIMIT_HEADERS;
    span = mem_realloc(hh->span, cap * sizeof(*span));
    if (!span)
        return HTTP_HEAD_TOO_BIG;
    hh->span = span;
    h = mem_realloc(hh->h, cap * sizeof(*h));
    if (!h)
        return HTTP_HEAD_TOO_BIG;
    hh->h = h;
    hh->cap = cap;
    return HTTP_HEAD_OK;
}

void http_head_reset(struct http_head *hh)
{
    buf_reset(&hh->raw);
    hh->line_len = 0;
    hh->n = 0;
    hh->in_value = 0;
}

/* NUL separators keep every piece a C string of its own once finished. */
static int add(struct http_head *hh, const char *at, size_t len)
{
    return buf_append(&hh->raw, at, len) < 0 ? HTTP_HEAD_TOO_BIG : HTTP_HEAD_OK;
}

int http_head_line(struct http_head *hh, const char *at, size_t len)
{
    int rc = add(hh, at, len);

    if (rc == HTTP_HEAD_OK)
        hh->line_len += len;
    return rc;
}

int http_head_field(struct http_head *hh, const char *at, size_t len)
{
    struct http_head_span *s;

    if (hh->n == 0 || hh->in_value) {
        if (hh->n == LIMIT_HEADERS)
            return HTTP_HEAD_TOO_MANY;
        /* Terminates the line or the previous value. */
        if (hh->n == hh->cap && grow(hh) < 0)
            return HTTP_HEAD_TOO_BIG;
        if (add(hh, "", 1) < 0)
            return HTTP_HEAD_TOO_BIG;
        s = &hh->span[hh->n++];
        s->name_off = hh->raw.len;
        s->name_len = 0;
        s->value_off = 0;
        s->value_len = 0;
        hh->in_value = 0;
    }
    s = &hh->span[hh->n - 1];
    if (add(hh, at, len) < 0)
        return HTTP_HEAD_TOO_BIG;
    s->name_len += len;
    return HTTP_HEAD_OK;
}

int http_head_value(struct http_head *hh, const char *at, size_t len)
{
    struct http_head_span *s;

    if (hh->n == 0)
        return HTTP_HEAD_TOO_BIG;
    s = &hh->span[hh->n - 1];
    if (!hh->in_value) {
        if (add(hh, "", 1) < 0)
            return HTTP_HEAD_TOO_BIG;
        s->value_off = hh->raw.len;
        hh->in_value = 1;
    }
    if (add(hh, at, len) < 0)
        return HTTP_HEAD_TOO_BIG;
    s->value_len += len;
    return HTTP_HEAD_OK;
}

void http_head_finish(struct http_head *hh)
{
    const char *base;

    /* An empty buffer still needs a byte for the views to point at. */
    if (add(hh, "", 1) < 0 && !hh->raw.data) {
        hh->n = 0;
        return;
    }
    base = hh->raw.data;
    for (size_t i = 0; i < hh->n; i++) {
        const struct http_head_span *s = &hh->span[i];

        hh->h[i].name = base + s->name_off;
        hh->h[i].name_len = s->name_len;
        /* A header without a value has value_off 0; point it at an empty string instead. */
        hh->h[i].value = s->value_len ? base + s->value_off : base + s->name_off + s->name_len;
        hh->h[i].value_len = s->value_len;
    }
}

const struct brock_header *http_header_find(const struct brock_header *h, size_t n,
                                            const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (http_name_is(h[i].name, h[i].name_len, name))
            return &h[i];
    return NULL;
}

int http_list_has(const char *value, size_t len, const char *token)
{
    return http_list_has_n(value, len, token, strlen(token));
}

int http_list_has_n(const char *value, size_t len, const char *token, size_t tlen)
{
    size_t i = 0;

    while (i < len) {
        size_t start, end;

        while (i < len && (value[i] == ' ' || value[i] == '\t' || value[i] == ','))
            i++;
        start = i;
        while (i < len && value[i] != ',')
            i++;
        end = i;
        while (end > start && (value[end - 1] == ' ' || value[end - 1] == '\t'))
            end--;
        if (end - start == tlen && tlen && strncasecmp(value + start, token, tlen) == 0)
            return 1;
    }
    return 0;
}

/* Heads are written from pieces of known length, no printf: the whole length is made room for
 * at once (or refused, nothing written), then each piece copied. */
static size_t headers_len(const struct brock_header *h, size_t n)
{
    size_t len = 2;

    for (size_t i = 0; i < n; i++)
        len += h[i].name_len + 2 + h[i].value_len + 2;
    return len;
}

static char *put(char *p, const void *s, size_t n)
{
    memcpy(p, s, n);
    return p + n;
}

/* The headers and the empty line after the start-line at p. */
static void put_headers(char *p, const struct brock_header *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p = put(p, h[i].name, h[i].name_len);
        p = put(p, ": ", 2);
        p = put(p, h[i].value, h[i].value_len);
        p = put(p, "\r\n", 2);
    }
    put(p, "\r\n", 2);
}

int http_write_request(struct buf *out, const char *method, const char *target, size_t tlen,
                       const struct brock_header *h, size_t n)
{
    size_t mlen = strlen(method);
    char *p = buf_extend(out, mlen + 1 + tlen + 11 + headers_len(h, n));

    if (!p)
        return -1;
    p = put(p, method, mlen);
    *p++ = ' ';
    p = put(p, target, tlen);
    put_headers(put(p, " HTTP/1.1\r\n", 11), h, n);
    return 0;
}

int http_write_response(struct buf *out, int status, const char *reason, size_t rlen,
                        const struct brock_header *h, size_t n)
{
    unsigned code = status < 0 ? 0 : status > 999 ? 999 : (unsigned)status;
    char *p = buf_extend(out, 13 + rlen + 2 + headers_len(h, n));

    if (!p)
        return -1;
    p = put(p, "HTTP/1.1 ", 9);
    *p++ = (char)('0' + code / 100);
    *p++ = (char)('0' + code / 10 % 10);
    *p++ = (char)('0' + code % 10);
    *p++ = ' ';
    p = put(p, reason, rlen);
    put_headers(put(p, "\r\n", 2), h, n);
    return 0;
}

const char *http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 204: return "No Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Content Too Large";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    }
    return "Unknown";
}

void http_authority(const char *host, int port, int default_port, char *out, size_t size)
{
    char text[BROCK_HOST_MAX + 4 + DECIMAL_MAX];
    size_t hl = strnlen(host, BROCK_HOST_MAX), n = 0;
    int v6 = memchr(host, ':', hl) != NULL;

    if (size == 0)
        return;
    if (v6)
        text[n++] = '[';
    memcpy(text + n, host, hl);
    n += hl;
    if (v6)
        text[n++] = ']';
    if (port != default_port) {
        text[n++] = ':';
        n += decimal_put(text + n, port);
    }
    /* Cut to size, as snprintf() would. */
    if (n >= size)
        n = size - 1;
    memcpy(out, text, n);
    out[n] = '\0';
}

int http_parse_target(const char *url, size_t len, int is_connect, struct http_target *t)
{
    struct http_parser_url u;
    int default_port;

    memset(t, 0, sizeof(*t));
    http_parser_url_init(&u);
    if (http_parser_parse_url(url, len, is_connect, &u) != 0 || !(u.field_set & (1 << UF_HOST)))
        return -1;
    if (!is_connect) {
        size_t slen = u.field_data[UF_SCHEMA].len;

        if (!(u.field_set & (1 << UF_SCHEMA)) || (slen != 4 && slen != 5) ||
            strncasecmp(url + u.field_data[UF_SCHEMA].off, "https", slen) != 0)
            return -1;
        t->is_https = slen == 5;
        if (u.field_set & (1 << UF_PATH)) {
            size_t off = u.field_data[UF_PATH].off;

            t->path = url + off;
            /* The path and the query; a fragment is never sent. */
            t->path_len = (u.field_set & (1 << UF_FRAGMENT))
                              ? (size_t)u.field_data[UF_FRAGMENT].off - 1 - off
                              : len - off;
        } else {
            t->path = "/";
            t->path_len = 1;
        }
    }
    if (brock_host_normalize(url + u.field_data[UF_HOST].off, u.field_data[UF_HOST].len, t->host) <
        0)
        return -1;
    default_port = t->is_https ? 443 : 80;
    t->port = (u.field_set & (1 << UF_PORT)) ? u.port : default_port;
    http_authority(t->host, t->port, default_port, t->authority, sizeof(t->authority));
    return 0;
}
