/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An HTTP/2 request's header block checked field by field, and written as one HTTP/1.1 head
 * (h2req.h). */
#include "http/h2req.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "http/head.h"

void h2req_init(struct h2req *r)
{
    memset(r, 0, sizeof(*r));
    buf_init(&r->path, LIMIT_HEAD_BYTES);
    buf_init(&r->fields, LIMIT_HEAD_BYTES);
    buf_init(&r->cookie, LIMIT_HEAD_BYTES);
}

void h2req_cleanup(struct h2req *r)
{
    buf_cleanup(&r->path);
    buf_cleanup(&r->fields);
    buf_cleanup(&r->cookie);
}

/* A token of RFC 9110 (tchar): a method, or a field name, which HTTP/2 has in lower case. */
static int token_ok(const char *p, size_t len, int lower)
{
    static const char extra[] = "!#$%&'*+-.^_`|~";

    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)p[i];

        if (!((ch >= 'a' && ch <= 'z') || (!lower && ch >= 'A' && ch <= 'Z') ||
              (ch >= '0' && ch <= '9') || (ch && strchr(extra, ch))))
            return 0;
    }
    return 1;
}

static int name_ok(const char *p, size_t len)
{
    return token_ok(p, len, 1);
}

/* A field value as RFC 9110 writes one (visible characters, obs-text, spaces and tabs
 * between them), which HTTP/1.1 reads as that one value: no NUL, CR or LF (RFC 9113 8.2.1),
 * nor any other control character, nor a space or tab at either end. */
static int value_ok(const char *p, size_t len)
{
    if (len > 0 && (p[0] == ' ' || p[0] == '\t' || p[len - 1] == ' ' || p[len - 1] == '\t'))
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)p[i];

        if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
            return 0;
    }
    return 1;
}

/* Fields that belong to one HTTP/1.1 connection, which HTTP/2 forbids (RFC 9113 8.2.2). */
int h2req_connection_specific(const char *name, size_t len)
{
    return http_name_is(name, len, "connection") || http_name_is(name, len, "keep-alive") ||
           http_name_is(name, len, "proxy-connection") ||
           http_name_is(name, len, "transfer-encoding") || http_name_is(name, len, "upgrade");
}

/* brock answers the stream itself with status (the first refusal stands). */
static void refuse(struct h2req *r, int status, const char *why)
{
    if (!r->refuse && !r->reset) {
        r->refuse = status;
        r->why = why;
    }
}

static int copy_field(char *out, size_t size, const char *p, size_t len)
{
    if (len == 0 || len >= size)
        return -1;
    memcpy(out, p, len);
    out[len] = '\0';
    return 0;
}

/* A :path HTTP/1.1 reads as the same request target: origin form ("/" first), or "*";
 * no space or control character. */
static int path_ok(const char *v, size_t vlen)
{
    if (vlen == 0 || (v[0] != '/' && !(vlen == 1 && v[0] == '*')))
        return 0;
    for (size_t i = 0; i < vlen; i++) {
        unsigned char ch = (unsigned char)v[i];

        if (ch <= ' ' || ch == 0x7f)
            return 0;
    }
    return 1;
}

static void pseudo_header(struct h2req *r, const char *name, size_t nlen, const char *v,
                          size_t vlen)
{
    /* Pseudo-headers come first, each once (RFC 9113 8.3). */
    if (r->n_regular) {
        r->reset = H2REQ_PROTOCOL_ERROR;
        return;
    }
    if (http_name_is(name, nlen, ":method")) {
        if (r->method[0] || !token_ok(v, vlen, 0) ||
            copy_field(r->method, sizeof(r->method), v, vlen) < 0)
            r->reset = H2REQ_PROTOCOL_ERROR;
    } else if (http_name_is(name, nlen, ":scheme")) {
        if (r->scheme_seen++) {
            r->reset = H2REQ_PROTOCOL_ERROR;
            return;
        }
        r->scheme_ok = http_name_is(v, vlen, "https");
        if (!r->scheme_ok)
            refuse(r, 400, "only https requests are served inside an HTTPS tunnel");
    } else if (http_name_is(name, nlen, ":authority")) {
        if (r->authority[0])
            r->reset = H2REQ_PROTOCOL_ERROR;
        else if (copy_field(r->authority, sizeof(r->authority), v, vlen) < 0)
            refuse(r, 400, "the request's :authority is empty or too long");
    } else if (http_name_is(name, nlen, ":path")) {
        if (r->path.len || !path_ok(v, vlen) || buf_append(&r->path, v, vlen) < 0)
            r->reset = H2REQ_PROTOCOL_ERROR;
    } else {
        /* :protocol (extended CONNECT, never offered) or one HTTP/2 does not define. */
        r->reset = H2REQ_PROTOCOL_ERROR;
    }
}

/* A Content-Length: digits only, the same number if repeated. */
static void content_length(struct h2req *r, const char *v, size_t vlen)
{
    uint64_t n = 0;

    if (vlen == 0 || vlen > 19) {
        r->reset = H2REQ_PROTOCOL_ERROR;
        return;
    }
    for (size_t i = 0; i < vlen; i++) {
        if (v[i] < '0' || v[i] > '9') {
            r->reset = H2REQ_PROTOCOL_ERROR;
            return;
        }
        n = n * 10 + (uint64_t)(v[i] - '0');
    }
    if (r->has_length && n != r->length)
        r->reset = H2REQ_PROTOCOL_ERROR;
    r->has_length = 1;
    r->length = n;
}

static void regular_header(struct h2req *r, const char *name, size_t nlen, const char *v,
                           size_t vlen)
{
    r->n_regular++;
    if (!name_ok(name, nlen) || !value_ok(v, vlen) || h2req_connection_specific(name, nlen) ||
        (http_name_is(name, nlen, "te") && !http_name_is(v, vlen, "trailers"))) {
        r->reset = H2REQ_PROTOCOL_ERROR;
        return;
    }
    if (http_name_is(name, nlen, "te"))
        return;
    if (http_name_is(name, nlen, "content-length")) {
        content_length(r, v, vlen);
        return;
    }
    if (http_name_is(name, nlen, "host")) {
        if (copy_field(r->host, sizeof(r->host), v, vlen) < 0)
            refuse(r, 400, "the request's Host is empty or too long");
        return;
    }
    /* Cookie fields may come one pair each (RFC 9113 8.2.3): HTTP/1.1 has them in one. */
    if (http_name_is(name, nlen, "cookie")) {
        if ((r->cookie.len && buf_append(&r->cookie, "; ", 2) < 0) ||
            buf_append(&r->cookie, v, vlen) < 0)
            refuse(r, 431, "the request's header list is too large");
        return;
    }
    if (buf_append(&r->fields, name, nlen) < 0 || buf_append(&r->fields, ": ", 2) < 0 ||
        buf_append(&r->fields, v, vlen) < 0 || buf_append(&r->fields, "\r\n", 2) < 0)
        refuse(r, 431, "the request's header list is too large");
}

void h2req_field(struct h2req *r, const char *name, size_t nlen, const char *value, size_t vlen)
{
    r->head_bytes += nlen + vlen + 32;
    if (++r->n_fields > LIMIT_HEADERS || r->head_bytes > LIMIT_HEAD_BYTES)
        refuse(r, 431, "the request's header list is too large");
    if (r->refuse || r->reset)
        return;
    if (nlen > 0 && name[0] == ':')
        pseudo_header(r, name, nlen, value, vlen);
    else
        regular_header(r, name, nlen, value, vlen);
}

int h2req_trailer_ok(const char *name, size_t nlen, const char *value, size_t vlen)
{
    return name_ok(name, nlen) && value_ok(value, vlen);
}

/* Whether the request's authority is the tunnel's host and port: the stream connection
 * serves that one alone (else 421, RFC 9110 15.5.20: the browser asks on another
 * connection). */
static int authority_ours(const struct h2req *r, const char *tunnel_host, int tunnel_port)
{
    char url[H2REQ_AUTHORITY_MAX + 16];
    struct http_target t;
    int n = snprintf(url, sizeof(url), "https://%s/", r->authority);

    return n > 0 && (size_t)n < sizeof(url) && http_parse_target(url, (size_t)n, 0, &t) == 0 &&
           strcmp(t.host, tunnel_host) == 0 && t.port == tunnel_port;
}

int h2req_check(struct h2req *r, int ended, const char *tunnel_host, int tunnel_port,
                const char **why, uint32_t *code)
{
    *code = r->reset;
    *why = r->why;
    if (r->reset)
        return -1;
    if (r->refuse)
        return r->refuse;
    if (strcmp(r->method, "CONNECT") == 0) {
        *why = "CONNECT is not served inside an HTTPS tunnel";
        return 405;
    }
    if (!r->method[0] || !r->path.len || !r->scheme_ok ||
        (r->path.data[0] == '*' && strcmp(r->method, "OPTIONS") != 0)) {
        *code = H2REQ_PROTOCOL_ERROR;
        return -1;
    }
    if (!r->authority[0])
        memcpy(r->authority, r->host, sizeof(r->authority));
    *why = "the request names no authority, or a Host other than its :authority";
    if (!r->authority[0] || (r->host[0] && strcasecmp(r->host, r->authority) != 0))
        return 400;
    *why = "this connection serves the host its tunnel was opened to alone";
    if (!authority_ours(r, tunnel_host, tunnel_port))
        return 421;
    if (ended && r->has_length && r->length != 0) {
        *code = H2REQ_PROTOCOL_ERROR;
        return -1;
    }
    return 0;
}

int h2req_write_head(const struct h2req *r, enum h2req_body body, struct buf *out)
{
    int rc = buf_puts(out, r->method) | buf_append(out, " ", 1) |
             buf_append(out, r->path.data, r->path.len) | buf_puts(out, " HTTP/1.1\r\nhost: ") |
             buf_puts(out, r->authority) | buf_append(out, "\r\n", 2) |
             (r->fields.len ? buf_append(out, r->fields.data, r->fields.len) : 0);

    if (r->cookie.len)
        rc |= buf_puts(out, "cookie: ") | buf_append(out, r->cookie.data, r->cookie.len) |
              buf_append(out, "\r\n", 2);
    if (body == H2REQ_LENGTH)
        rc |= buf_printf(out, "content-length: %" PRIu64 "\r\n", r->length);
    else if (body == H2REQ_CHUNKED)
        rc |= buf_puts(out, "transfer-encoding: chunked\r\n");
    return rc | buf_append(out, "\r\n", 2) ? -1 : 0;
}
