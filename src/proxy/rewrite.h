/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Header rewriting, header list in, header list out: hop-by-hop headers removed, Via added,
 * DNT and GPC set, and for cookieblocked third parties the cookies and referrer taken away
 * (PRIVACY-BADGER.md sections 7 and 8). Pure: no sockets, clock or logging. */
#ifndef BROCK_PROXY_REWRITE_H
#define BROCK_PROXY_REWRITE_H

#include <stddef.h>

#include "brock.h"
#include "http/head.h"
#include "util/buf.h"

#define REWRITE_VIA "1.1 brock"

enum rewrite_flags {
    REWRITE_STRIP_COOKIES = 1, /* cookieblock: no Cookie / Set-Cookie; Referer cut */
    REWRITE_UPGRADE = 2,       /* keep Upgrade and say Connection: upgrade (WebSocket) */
    REWRITE_CHUNKED = 4,       /* responses: the client gets Transfer-Encoding: chunked */
    REWRITE_UNCHUNKED = 8,     /* responses: the client gets the body without chunking */
    REWRITE_CLOSE = 16,        /* Connection: close (for a request: unless an upgrade) */
    REWRITE_NO_SIGNALS = 32,   /* requests: no DNT or Sec-GPC of brock's; the client's stay */
};

/* The rewritten list. Views point into the input headers, into scratch or at static text;
 * valid while both the input and this struct are. */
struct rewrite_out {
    struct brock_header h[LIMIT_HEADERS + 8];
    size_t n;
    struct buf scratch;
};

void rewrite_out_init(struct rewrite_out *o);
void rewrite_out_cleanup(struct rewrite_out *o);

/* Rewrites a request's headers for sending upstream. authority ("host[:port]") becomes the
 * Host header; method decides how a cookieblocked Referer is cut. Returns 0, or -1 when out
 * of memory. */
int rewrite_request(const struct brock_header *in, size_t n, const char *method,
                    const char *authority, unsigned flags, struct rewrite_out *o)
    __attribute__((warn_unused_result));

/* Rewrites a response's headers for the client. Returns 0 (it cannot fail). */
int rewrite_response(const struct brock_header *in, size_t n, unsigned flags,
                     struct rewrite_out *o);

/* Referer cut to its origin and "/" (Privacy Badger's GET rule) into out (size bytes).
 * Returns the length, or -1 when the value has no "scheme://" or does not fit. */
int rewrite_referer_origin(const char *ref, size_t len, char *out, size_t size);

#endif
