/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Gathering http-parser's fragments into heads, and writing heads back out. */
#include "proxy/http.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <http_parser.h>

#include "util/alloc.h"

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

int http_name_is(const char *name, size_t len, const char *s)
{
    return strlen(s) == len && strncasecmp(name, s, len) == 0;
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
        if (end > start && http_name_is(value + start, end - start, token))
            return 1;
    }
    return 0;
}

static int write_headers(struct buf *out, const struct brock_header *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf_append(out, h[i].name, h[i].name_len) < 0 || buf_append(out, ": ", 2) < 0 ||
            buf_append(out, h[i].value, h[i].value_len) < 0 || buf_append(out, "\r\n", 2) < 0)
            return -1;
    }
    return buf_append(out, "\r\n", 2);
}

int http_write_request(struct buf *out, const char *method, const char *target, size_t tlen,
                       const struct brock_header *h, size_t n)
{
    if (buf_printf(out, "%s ", method) < 0 || buf_append(out, target, tlen) < 0 ||
        buf_puts(out, " HTTP/1.1\r\n") < 0)
        return -1;
    return write_headers(out, h, n);
}

int http_write_response(struct buf *out, int status, const char *reason, size_t rlen,
                        const struct brock_header *h, size_t n)
{
    if (buf_printf(out, "HTTP/1.1 %03d ", status) < 0 || buf_append(out, reason, rlen) < 0 ||
        buf_puts(out, "\r\n") < 0)
        return -1;
    return write_headers(out, h, n);
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
    if (strchr(host, ':'))
        snprintf(out, size, port == default_port ? "[%s]" : "[%s]:%d", host, port);
    else
        snprintf(out, size, port == default_port ? "%s" : "%s:%d", host, port);
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
    if (brock_host_normalize(url + u.field_data[UF_HOST].off, u.field_data[UF_HOST].len,
                             t->host) < 0)
        return -1;
    default_port = t->is_https ? 443 : 80;
    t->port = (u.field_set & (1 << UF_PORT)) ? u.port : default_port;
    http_authority(t->host, t->port, default_port, t->authority, sizeof(t->authority));
    return 0;
}
