/* SPDX-License-Identifier: GPL-3.0-or-later */
/* An HTTP/2 request's header block, field by field, checked and written as one HTTP/1.1
 * request head (proxy/h2stream.c hands it to a stream connection that way). Pure: no
 * sockets, no nghttp2; the fuzz target fuzz/h2req.c reads every head it writes back with the
 * proxy's own reader and checks that it is exactly one request with the fields it was given.
 *
 * What HTTP/1.1 would read differently from HTTP/2 is refused: a name that is not a lower-case
 * token (a colon, upper case, a space), a value with NUL, CR, LF or another control character
 * or with a space at either end, a pseudo-header HTTP/2 does
 * not define or out of place, a path with a control character or a space, a connection-specific
 * field (Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade, a TE other than
 * "trailers"), a Content-Length that is not one number. */
#ifndef BROCK_HTTP_H2REQ_H
#define BROCK_HTTP_H2REQ_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"
#include "util/buf.h"

/* RFC 9113's error codes that a refused request is reset with. */
#define H2REQ_PROTOCOL_ERROR 0x1u

#define H2REQ_AUTHORITY_MAX (BROCK_HOST_MAX + 8)

struct h2req {
    char method[24];
    char authority[H2REQ_AUTHORITY_MAX];
    char host[H2REQ_AUTHORITY_MAX]; /* a Host field, when there was one */
    struct buf path;
    struct buf fields; /* the other fields, "name: value\r\n" each */
    struct buf cookie; /* the cookie fields, joined with "; " (RFC 9113 8.2.3) */
    size_t head_bytes, n_fields;
    uint64_t length; /* its Content-Length, when has_length */
    int has_length, scheme_ok, scheme_seen;
    size_t n_regular; /* fields that are not pseudo-headers, so far */
    int refuse;       /* a status to answer it with instead (the first refusal stands); 0 */
    const char *why;  /* and why (a static sentence) */
    uint32_t reset;   /* or the error code to reset it with; 0 */
};

/* Whether a field belongs to one HTTP/1.1 connection, which HTTP/2 forbids (RFC 9113 8.2.2):
 * Connection, Keep-Alive, Proxy-Connection, Transfer-Encoding, Upgrade. */
int h2req_connection_specific(const char *name, size_t len);

void h2req_init(struct h2req *r);
void h2req_cleanup(struct h2req *r);

/* One field of the request's header block, in order (the pseudo-headers first, as HTTP/2
 * asks; nghttp2 checks that order). Sets refuse or reset when it is refused; past
 * LIMIT_HEADERS fields or LIMIT_HEAD_BYTES (counted as HTTP/2 counts a header list: name,
 * value and 32 each) it is 431. */
void h2req_field(struct h2req *r, const char *name, size_t nlen, const char *value, size_t vlen);

/* Whether a trailer field may be read (it is then dropped: the body goes without trailers). */
int h2req_trailer_ok(const char *name, size_t nlen, const char *value, size_t vlen);

/* The header block ended (ended: with the stream). Returns 0 when the request goes on, a
 * status brock answers it with (*why: a static sentence), or -1 when it is reset (*code). A
 * request for another host or port than the tunnel's (tunnel_host, normalised, and
 * tunnel_port) is 421; one with no authority, or a Host other than its :authority, 400. */
int h2req_check(struct h2req *r, int ended, const char *tunnel_host, int tunnel_port,
                const char **why, uint32_t *code) __attribute__((warn_unused_result));

/* How the body follows the head. */
enum h2req_body {
    H2REQ_NO_BODY, /* none */
    H2REQ_LENGTH,  /* the Content-Length it declared */
    H2REQ_CHUNKED, /* of unknown length: chunked */
};

/* Appends the request as one HTTP/1.1 head to out: its line, Host (its authority), its
 * fields, its cookies in one field, and its framing. Returns 0, or -1 when out of memory (or
 * past out's limit). */
int h2req_write_head(const struct h2req *r, enum h2req_body body, struct buf *out)
    __attribute__((warn_unused_result));

#endif
