/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A growable byte buffer with a maximum size set at init; always NUL-terminated. */
#ifndef BROCK_UTIL_BUF_H
#define BROCK_UTIL_BUF_H

#include <stddef.h>

struct buf {
    char *data; /* NULL until the first append */
    size_t len;
    size_t cap;
    size_t max; /* appends that would pass this fail */
};

void buf_init(struct buf *b, size_t max);
void buf_cleanup(struct buf *b);
void buf_reset(struct buf *b);

/* Append bytes, a string, or printf output. Return 0, or -1 when out of memory or past
 * the maximum (the buffer is then unchanged). */
int buf_append(struct buf *b, const void *p, size_t n) __attribute__((warn_unused_result));
/* Makes n more bytes part of b and returns where they start, for the caller to fill (the NUL
 * after them is set); NULL when out of memory or past the maximum, b unchanged. */
char *buf_extend(struct buf *b, size_t n) __attribute__((warn_unused_result));
int buf_puts(struct buf *b, const char *s) __attribute__((warn_unused_result));
int buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), warn_unused_result));

/* Hands the contents over (free with mem_free) and leaves b empty. Never NULL unless out
 * of memory. */
char *buf_detach(struct buf *b, size_t *len);

#endif
