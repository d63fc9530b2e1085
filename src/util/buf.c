/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Growable buffers. */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"

void buf_init(struct buf *b, size_t max)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->max = max;
}

void buf_cleanup(struct buf *b)
{
    mem_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

static int reserve(struct buf *b, size_t n)
{
    if (n > b->max || b->len + n > b->max)
        return -1;
    return mem_grow(&b->data, &b->cap, b->len + n + 1, 1);
}

int buf_append(struct buf *b, const void *p, size_t n)
{
    if (reserve(b, n) < 0)
        return -1;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

char *buf_extend(struct buf *b, size_t n)
{
    char *p;

    if (reserve(b, n) < 0)
        return NULL;
    p = b->data + b->len;
    b->len += n;
    b->data[b->len] = '\0';
    return p;
}

int buf_puts(struct buf *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || reserve(b, (size_t)n) < 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

char *buf_detach(struct buf *b, size_t *len)
{
    char *p = b->data;

    if (!p)
        p = mem_calloc(1, 1);
    if (len)
        *len = p ? b->len : 0;
    b->data = NULL;
    b->len = b->cap = 0;
    return p;
}
