/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The head of a response that came from an origin over HTTP/2, written as HTTP/1.1 for the
 * connection that asked (proxy/h2up.c reads it back into the proxy with side_feed(), as from
 * any origin). nghttp2 checked the fields first (RFC 9113 8.2 and 8.3: names in lower case and
 * tokens, no NUL, CR or LF in a value and no space at either end, no connection-specific
 * field, :status three digits, a Content-Length that agrees with the DATA frames); this writes
 * them one a line, and frames the body: by its Content-Length when it has one, else chunked.
 * Pure: no sockets, no nghttp2. */
#ifndef BROCK_HTTP_H2RESP_H
#define BROCK_HTTP_H2RESP_H

#include <stddef.h>

#include "util/buf.h"

struct h2resp {
    struct buf fields; /* "name: value\r\n" each, as they came; at most LIMIT_HEAD_BYTES */
    int status;        /* from :status; 0 until it came */
    int has_length;    /* a content-length field came */
};

void h2resp_init(struct h2resp *r);
void h2resp_cleanup(struct h2resp *r);
/* Ready for the next head of the same response (after an interim one). */
void h2resp_reset(struct h2resp *r);

/* One field of the header block: :status is kept as the status, another pseudo-header is
 * dropped, the rest appended. Returns 0, or -1 past LIMIT_HEAD_BYTES or out of memory. */
int h2resp_field(struct h2resp *r, const char *name, size_t nlen, const char *value, size_t vlen)
    __attribute__((warn_unused_result));

/* Whether a final head's body goes chunked: it has one (the request was not HEAD, no_body,
 * and the status is not 204 or 304) and no Content-Length says how long it is. */
int h2resp_chunked(const struct h2resp *r, int no_body);

/* Appends "HTTP/1.1 STATUS REASON", the fields, "transfer-encoding: chunked" when chunked, and
 * the empty line to out. Returns 0, or -1 when out of memory or past out's limit. */
int h2resp_write(const struct h2resp *r, int chunked, struct buf *out)
    __attribute__((warn_unused_result));

#endif
