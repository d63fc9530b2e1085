/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Unambiguous message framing, checked before http-parser (which is lenient in places) sees
 * the bytes: the raw head's syntax, the Content-Length and Transfer-Encoding headers, a
 * request's Host, and the chunked body's lines. A message that fails is refused whole. Pure:
 * no sockets, no logging. */
#ifndef BROCK_PROXY_FRAMING_H
#define BROCK_PROXY_FRAMING_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"
#include "proxy/limits.h"

enum framing_result {
    FRAMING_BAD = -1, /* refused; the scanner's reason says why */
    FRAMING_MORE = 0, /* all bytes given were fine; more are needed */
    FRAMING_DONE = 1, /* the part scanned ended; *used says where */
};

/* An incremental scanner of a head: the start line and the header lines up to the empty line.
 * All-zero storage is a scanner at the start of a head. */
struct framing_head {
    int state;
    const char *reason; /* a static string once FRAMING_BAD was returned */
};

/* An incremental scanner of a chunked body's framing (sizes, extensions, line ends, trailers);
 * the chunk data is skipped, not looked at. All-zero storage is an idle scanner. */
struct framing_chunks {
    int state;
    uint64_t left;   /* of the current chunk's data */
    unsigned digits; /* of the current chunk size */
    struct framing_head trailer;
    const char *reason;
};

/* Starts a head afresh. */
void framing_head_reset(struct framing_head *fh);

/* Scans the next len bytes of a head (p borrowed for the call). Returns FRAMING_MORE when all
 * were part of an unfinished head, FRAMING_DONE with *used the bytes up to and including the
 * head's last line feed (what follows is not looked at), or FRAMING_BAD with fh->reason: a bare
 * CR or LF, obs-fold, a control character, a non-token name character, whitespace before the
 * colon, an empty name. Once done or bad it stays so until reset. */
int framing_head_feed(struct framing_head *fh, const char *p, size_t len, size_t *used)
    __attribute__((warn_unused_result));

/* Arms fc for a chunked body whose head's last line feed comes first (http-parser stops before
 * it and hands it over again with the body). */
void framing_chunks_start(struct framing_chunks *fc);

/* Whether fc scans a body now. */
static inline int framing_chunks_active(const struct framing_chunks *fc)
{
    return fc->state != 0;
}

/* Scans the next len bytes of a chunked body, like framing_head_feed(): FRAMING_DONE with *used
 * once the last chunk and trailers ended (fc then idle), FRAMING_BAD with fc->reason for a
 * chunk size that is not hex, overflows or has junk after it, a chunk extension with a control
 * character, a bare CR or LF, data longer than its size, or a malformed trailer line. */
int framing_chunks_feed(struct framing_chunks *fc, const char *p, size_t len, size_t *used)
    __attribute__((warn_unused_result));

/* Flags for framing_check_headers(). */
#define FRAMING_RESPONSE 1u /* the head is a response's */
#define FRAMING_HTTP10 2u   /* the message is HTTP/1.0 */

/* What framing_check_headers() made of a head's Transfer-Encoding. */
struct framing_te {
    int seen;    /* there is one */
    int chunked; /* its last coding is chunked: the body is chunked */
    int unusual; /* it is not exactly one field saying "chunked": a list, parameters or
                    * whitespace; valid, but read differently by some (normal says it plainly) */
    char normal[LIMIT_TE_BYTES]; /* when seen: the codings in order, ", " between them, each
                                    * with its parameters (";name=value", no whitespace), chunked with none */
    size_t normal_len;
};

/* Checks a finished head's framing headers (h[0..n) borrowed) and says what its
 * Transfer-Encoding is in *te: a request has at most one Host, and no list (a comma) in it; at
 * most one Content-Length with one plain decimal value (no sign, spaces inside, hex, list or
 * overflow; a repeated value is refused even when identical), never with Transfer-Encoding; a
 * Transfer-Encoding is a list of codings (RFC 9110 10.1.4: a token, then parameters
 * ";name=value" with a token or quoted-string value, optional whitespace around commas and
 * semicolons) that ends in exactly one "chunked" (case-insensitive), with no empty element,
 * and is refused in HTTP/1.0 and, for responses, when it does not end in chunked (such a body
 * would end only at close). Returns 0, or FRAMING_BAD with *reason a static string. */
int framing_check_headers(const struct brock_header *h, size_t n, unsigned flags,
                          struct framing_te *te, const char **reason)
    __attribute__((warn_unused_result));

#endif
