/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Strings that are not Unicode, in a JSON text read a chunk at a time. */
#include "har/json_strict.h"

#include <stdint.h>
#include <string.h>

enum { RUN_OK, RUN_BAD, RUN_MORE };

/* Checks the UTF-8 from p to end: RUN_OK; RUN_BAD at a sequence RFC 3629 does not allow; or
 * RUN_MORE, with *stop at the start of a sequence that end cuts short. */
static int utf8_run(const unsigned char *p, const unsigned char *end, const unsigned char **stop)
{
    while (p < end) {
        const unsigned char *at;
        unsigned c, lo = 0x80, hi = 0xbf;
        size_t more;
        uint64_t w;

        /* Most of a HAR is ASCII: eight bytes at a time while no high bit is set. (The
         * differential fuzz target diff_har holds this reader to jansson's.) */
        while (end - p >= 8 && (memcpy(&w, p, 8), !(w & 0x8080808080808080ULL)))
            p += 8;
        if (p == end)
            break;
        at = p;
        c = *p++;
        if (c < 0x80)
            continue;
        more = c >= 0xc2 && c <= 0xdf   ? 1
               : c >= 0xe0 && c <= 0xef ? 2
               : c >= 0xf0 && c <= 0xf4 ? 3
                                        : 4;
        if (more == 4)
            return RUN_BAD;
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
            if (p + i == end) {
                *stop = at;
                return RUN_MORE;
            }
            if (p[i] < lo || p[i] > hi)
                return RUN_BAD;
        }
        p += more;
    }
    return RUN_OK;
}

int json_utf8_strict(const unsigned char *p, size_t len)
{
    const unsigned char *stop;

    return utf8_run(p, p + len, &stop) == RUN_OK;
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

/* The escape at p (its backslash; avail bytes from there): RUN_OK with its length in *used;
 * RUN_BAD, a surrogate escaped without its pair; or RUN_MORE, cut short. An escape that is no
 * JSON escape is RUN_OK here: yajl refuses it. */
static int esc_check(const char *p, size_t avail, size_t *used)
{
    unsigned u, lo;

    if (avail < 2)
        return RUN_MORE;
    *used = 2;
    if (p[1] != 'u')
        return RUN_OK;
    if (avail < 6)
        return RUN_MORE;
    if (!hex4(p + 2, &u))
        return RUN_OK;
    *used = 6;
    if (u < 0xd800 || u > 0xdfff)
        return RUN_OK;
    if (u >= 0xdc00)
        return RUN_BAD;
    if (avail < 12)
        return RUN_MORE;
    *used = 12;
    return p[6] == '\\' && p[7] == 'u' && hex4(p + 8, &lo) && lo >= 0xdc00 && lo <= 0xdfff
               ? RUN_OK
               : RUN_BAD;
}

/* The escapes of the n bytes at chunk, those cut at its end kept in st. */
static int esc_scan(struct json_strict *st, const char *chunk, size_t n)
{
    const char *p = chunk, *end = chunk + n, *q;
    size_t used = 0;
    int r = RUN_OK;

    if (st->esc_len) {
        char tmp[2 * sizeof(st->esc)];
        size_t take = n < sizeof(st->esc) ? n : sizeof(st->esc);

        memcpy(tmp, st->esc, st->esc_len);
        memcpy(tmp + st->esc_len, chunk, take);
        r = esc_check(tmp, st->esc_len + take, &used);
        if (r == RUN_MORE) {
            /* Still short of its 12 bytes: the chunk was smaller than that. */
            memcpy(st->esc + st->esc_len, chunk, n);
            st->esc_len += n;
            return RUN_OK;
        }
        /* The escape began in what was kept, so it ends past it. */
        p = chunk + (used - st->esc_len);
        st->esc_len = 0;
    }
    while (r == RUN_OK && p < end && (q = memchr(p, '\\', (size_t)(end - p))) != NULL) {
        r = esc_check(q, (size_t)(end - q), &used);
        if (r == RUN_MORE) {
            st->esc_len = (size_t)(end - q);
            memcpy(st->esc, q, st->esc_len);
            return RUN_OK;
        }
        p = q + used;
    }
    return r;
}

/* The UTF-8 of the n bytes at chunk, a sequence cut at its end kept in st. */
static int utf8_scan(struct json_strict *st, const unsigned char *chunk, size_t n)
{
    const unsigned char *p = chunk, *end = chunk + n, *stop;
    int r;

    if (st->u8_len) {
        /* A lead byte utf8_run() took, and what followed it of its sequence. */
        size_t seq = st->u8[0] >= 0xf0 ? 4 : st->u8[0] >= 0xe0 ? 3 : 2;
        size_t need = seq - st->u8_len;
        unsigned char whole[4];

        if (n < need) {
            memcpy(st->u8 + st->u8_len, chunk, n);
            st->u8_len += n;
            return RUN_OK;
        }
        memcpy(whole, st->u8, st->u8_len);
        memcpy(whole + st->u8_len, chunk, need);
        st->u8_len = 0;
        if (!json_utf8_strict(whole, seq))
            return RUN_BAD;
        p += need;
    }
    r = utf8_run(p, end, &stop);
    if (r == RUN_MORE) {
        st->u8_len = (size_t)(end - stop);
        memcpy(st->u8, stop, st->u8_len);
        return RUN_OK;
    }
    return r;
}

int json_strict_scan(struct json_strict *st, const char *chunk, size_t n)
{
    if (utf8_scan(st, (const unsigned char *)chunk, n) != RUN_OK)
        return JSON_STRICT_UTF8;
    if (esc_scan(st, chunk, n) != RUN_OK)
        return JSON_STRICT_SURROGATE;
    return 0;
}
