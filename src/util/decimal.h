/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Numbers written in decimal without printf, for text built on every request. */
#ifndef BROCK_UTIL_DECIMAL_H
#define BROCK_UTIL_DECIMAL_H

#include <stddef.h>

/* The longest text decimal_put() writes: a sign and twenty digits. */
#define DECIMAL_MAX 21

/* Writes v in decimal at out (DECIMAL_MAX bytes at most, no NUL); returns the length. */
static inline size_t decimal_put(char *out, long long v)
{
    char digits[DECIMAL_MAX];
    size_t n = 0, len = 0;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;

    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        out[len++] = '-';
    while (n)
        out[len++] = digits[--n];
    return len;
}

#endif
