/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Hexadecimal digits, as percent-escapes, chunk sizes and string escapes write them. */
#ifndef BROCK_UTIL_HEX_H
#define BROCK_UTIL_HEX_H

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

#endif
