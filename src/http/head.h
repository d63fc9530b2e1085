/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP/1.1 heads as http-parser delivers them: the fragments of the target (or reason
 * phrase) and of each header, gathered into one bounded buffer and then handed out as
 * (pointer, length) views. Also the serialisation of heads. Pure: no sockets. */
#ifndef BROCK_HTTP_HEAD_H
#define BROCK_HTTP_HEAD_H

#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "brock.h"
#include "util/buf.h"

/* A request or response head (request line or status line plus headers): past it, 431. */
#define LIMIT_HEAD_BYTES ((size_t)64 * 1024)

/* Headers in one head: past it, 431. */
#define LIMIT_HEADERS 128

enum http_head_error {
    HTTP_HEAD_OK = 0,
    HTTP_HEAD_TOO_BIG = -1,  /* past LIMIT_HEAD_BYTES (or out of memory): 431 */
    HTTP_HEAD_TOO_MANY = -2, /* past LIMIT_HEADERS: 431 */
};

struct http_head_span {
    size_t name_off, name_len, value_off, value_len;
};

struct http_head {
    struct buf raw;              /* the start-line text, then each name and value */
    size_t line_len;             /* the target (requests) or reason phrase (responses) */
    struct http_head_span *span; /* owned; cap entries, grown on demand up to LIMIT_HEADERS */
    size_t n, cap;
    int in_value;           /* the last fragment was a value */
    struct brock_header *h; /* owned, cap entries: views, valid after http_head_finish() */
};

void http_head_init(struct http_head *hh);
void http_head_cleanup(struct http_head *hh);
void http_head_reset(struct http_head *hh);

/* Add a fragment of the start-line text, of a header name, of a header value. Return
 * HTTP_HEAD_OK or a negative enum http_head_error. */
int http_head_line(struct http_head *hh, const char *at, size_t len)
    __attribute__((warn_unused_result));
int http_head_field(struct http_head *hh, const char *at, size_t len)
    __attribute__((warn_unused_result));
int http_head_value(struct http_head *hh, const char *at, size_t len)
    __attribute__((warn_unused_result));

/* Makes the views in hh->h (and the line) point into the gathered bytes; call once all
 * fragments are in. The views stay valid until the next reset. */
void http_head_finish(struct http_head *hh);

/* The start-line text (NUL-terminated) of a finished head. */
static inline const char *http_head_text(const struct http_head *hh)
{
    return hh->raw.data ? hh->raw.data : "";
}

/* The first header called name (case-insensitive) among h, or NULL. */
const struct brock_header *http_header_find(const struct brock_header *h, size_t n,
                                            const char *name);

/* Whether a name equals s, ignoring case. Inline: with s a literal, its length is known
 * when compiled, and most names differ from s in length alone. */
static inline int http_name_is(const char *name, size_t len, const char *s)
{
    return strlen(s) == len && strncasecmp(name, s, len) == 0;
}

/* Whether the comma-separated list value contains token (case-insensitive). */
int http_list_has(const char *value, size_t len, const char *token);
/* The same with the token's length given (it need not end with a NUL). */
int http_list_has_n(const char *value, size_t len, const char *token, size_t tlen);

/* Appends "METHOD TARGET HTTP/1.1", the headers and the empty line to out. */
int http_write_request(struct buf *out, const char *method, const char *target, size_t tlen,
                       const struct brock_header *h, size_t n) __attribute__((warn_unused_result));

/* Appends "HTTP/1.1 STATUS REASON", the headers and the empty line to out. */
int http_write_response(struct buf *out, int status, const char *reason, size_t rlen,
                        const struct brock_header *h, size_t n) __attribute__((warn_unused_result));

/* What a request target names: an absolute-form URL (http:// or https://) or, with
 * is_connect, a CONNECT authority. path points into the URL (the path and query, never the
 * fragment; "/" when it has none; NULL for CONNECT). */
struct http_target {
    char host[BROCK_HOST_MAX]; /* normalized (brock_host_normalize) */
    int port;
    int is_https;
    char authority[BROCK_HOST_MAX + 8]; /* host[:port], brackets for IPv6, default port left out */
    const char *path;
    size_t path_len;
};

/* Parses url[0..len) into t. Returns 0, or -1 when it is not such a target. */
int http_parse_target(const char *url, size_t len, int is_connect, struct http_target *t)
    __attribute__((warn_unused_result));

/* "host[:port]" into out: brackets around an IPv6 host, the port left out when it is
 * default_port. */
void http_authority(const char *host, int port, int default_port, char *out, size_t size);

/* The standard reason phrase of a status brock answers with itself. */
const char *http_reason(int status);

#endif
