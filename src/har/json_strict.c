/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Strings that are not Unicode, in a JSON text read a chunk at a time. */
#include "har/json_strict.h"

#include <string.h>

int json_utf8_strict(const unsigned char *p, size_t len)
{
    const unsigned char *end = p + len;

    while (p < end) {
        unsigned c = *p++;
        size_t more = c < 0x80                 ? 0
                      : c >= 0xc2 && c <= 0xdf ? 1
                      : c >= 0xe0 && c <= 0xef ? 2
                      : c >= 0xf0 && c <= 0xf4 ? 3
                                               : 4;
        unsigned lo = 0x80, hi = 0xbf;

        if (more == 4 || (size_t)(end - p) < more)
            return 0;
        /* The second byte's range narrows for the leads that could say too little or too
         * much (RFC 3629, section 4). */
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
        else if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
        for (size_t i = 0; i < more; i++, lo = 0x80, hi = 0xbf) {
            if (p[i] < lo || p[i] > hi)
                return 0;
        }
        p += more;
    }
    return 1;
}

/* Four hex digits at p into *v. Returns 1, or 0 when they are not. */
static int hex4(const char *p, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        int d = p[i] >= '0' && p[i] <= '9'   ? p[i] - '0'
                : p[i] >= 'a' && p[i] <= 'f' ? p[i] - 'a' + 10
                : p[i] >= 'A' && p[i] <= 'F' ? p[i] - 'A' + 10
                                             : -1;

        if (d < 0)
            return 0;
        *v = *v << 4 | (unsigned)d;
    }
    return 1;
}

enum { ESC_OK, ESC_BAD, ESC_MORE };

/* The escape at p (its backslash; avail bytes from there): ESC_OK with its length in *used;
 * ESC_BAD, a surrogate escaped without its pair; or ESC_MORE, cut short. An escape that is no
 * JSON escape is ESC_OK here: yajl refuses it. */
static int esc_check(const char *p, size_t avail, size_t *used)
{
    unsigned u, lo;

    if (avail < 2)
        return ESC_MORE;
    *used = 2;
    if (p[1] != 'u')
        return ESC_OK;
    if (avail < 6)
        return ESC_MORE;
    if (!hex4(p + 2, &u))
        return ESC_OK;
    *used = 6;
    if (u < 0xd800 || u > 0xdfff)
        return ESC_OK;
    if (u >= 0xdc00)
        return ESC_BAD;
    if (avail < 12)
        return ESC_MORE;
    *used = 12;
    return p[6] == '\\' && p[7] == 'u' && hex4(p + 8, &lo) && lo >= 0xdc00 && lo <= 0xdfff
               ? ESC_OK
               : ESC_BAD;
}

int json_esc_scan(struct json_esc *st, const char *chunk, size_t n)
{
    const char *p = chunk, *end = chunk + n, *q;
    size_t used = 0;
    int r = ESC_OK;

    if (st->cut_len) {
        char tmp[2 * sizeof(st->cut)];
        size_t take = n < sizeof(st->cut) ? n : sizeof(st->cut);

        memcpy(tmp, st->cut, st->cut_len);
        memcpy(tmp + st->cut_len, chunk, take);
        r = esc_check(tmp, st->cut_len + take, &used);
        if (r == ESC_MORE) {
            /* Still short of its 12 bytes: the chunk was smaller than that. */
            memcpy(st->cut + st->cut_len, chunk, n);
            st->cut_len += n;
            return 0;
        }
        /* The escape began in the cut, so it ends past it. */
        p = chunk + (used - st->cut_len);
        st->cut_len = 0;
    }
    while (r == ESC_OK && p < end && (q = memchr(p, '\\', (size_t)(end - p))) != NULL) {
        r = esc_check(q, (size_t)(end - q), &used);
        if (r == ESC_MORE) {
            st->cut_len = (size_t)(end - q);
            memcpy(st->cut, q, st->cut_len);
            return 0;
        }
        p = q + used;
    }
    return r == ESC_BAD ? -1 : 0;
}
