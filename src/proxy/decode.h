/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A response body's Content-Encoding undone as it streams (gzip, deflate, br), so that brock
 * can add to the document inside; the output of each step is bounded by the caller's room,
 * whatever the input expands to. Pure: no sockets, no logging. */
#ifndef BROCK_PROXY_DECODE_H
#define BROCK_PROXY_DECODE_H

#include <stddef.h>

enum decode_coding {
    DECODE_IDENTITY, /* no Content-Encoding, or "identity" */
    DECODE_GZIP,     /* gzip, x-gzip: one member or several */
    DECODE_DEFLATE,  /* deflate: zlib-wrapped as RFC 9110 says, or raw as some servers send */
    DECODE_BR,       /* br: Brotli */
};

/* The coding a Content-Encoding value (v[0..len), borrowed) names, or -1 for any other, or a
 * list of several (which brock passes on as it is). */
int decode_coding_parse(const char *v, size_t len);

struct decoder;

/* A decoder for one body; NULL when out of memory. */
struct decoder *decoder_new(enum decode_coding coding) __attribute__((warn_unused_result));

/* NULL is a no-op. */
void decoder_free(struct decoder *d);

/* Decodes from *in (*in_len bytes; both are moved past what was used) into out[0..room).
 * Returns the bytes written to out, or -1 with *reason (a static sentence) when the body is not
 * in its coding. Call again while input is left or decoder_has_more() says so: a full out may
 * leave output inside the decoder. Bytes after the end of the stream are dropped, as browsers
 * drop them. */
long decoder_run(struct decoder *d, const char **in, size_t *in_len, char *out, size_t room,
                 const char **reason) __attribute__((warn_unused_result));

/* Whether the last decoder_run() filled out, so that more may come without input. */
int decoder_has_more(const struct decoder *d);

/* The body ended: returns 0 when the stream ended too (or the body was empty), -1 with *reason
 * when it was cut short. */
int decoder_finish(const struct decoder *d, const char **reason)
    __attribute__((warn_unused_result));

#endif
