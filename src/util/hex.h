/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Hexadecimal digits, as percent-escapes, chunk sizes and string escapes write them. */
#ifndef BROCK_UTIL_HEX_H
#define BROCK_UTIL_HEX_H

#include <stddef.h>

/* The value of the hexadecimal digit c (either case), or -1 when c is not one. */
static inline int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The n bytes at p as 2n lower-case digits and a NUL into out. */
static inline void hex_encode(const unsigned char *p, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";

    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = '\0';
}

#endif
