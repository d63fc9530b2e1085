/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's string measures, computed as JavaScript computes them, over UTF-16 code
 * units: estimateMaxEntropy (section 3.4) and findCommonSubstrings (section 3.7), the two
 * halves of the pixel cookie sharing rule.
 */
#include "engine/evidence.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "util/alloc.h"

/* ---- UTF-8 to UTF-16 and back ---- */

/* The UTF-16 units len bytes of UTF-8 decode to, counted chunk by chunk, each a byte and the
 * continuation bytes after it, where no sequence crosses from one chunk to the next. */
static size_t utf16_count(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    uint16_t scratch[4]; /* a chunk is at most 4 bytes, so 4 units */
    size_t i = 0, count = 0;

    while (i < len) {
        size_t k = i + 1;

        while (k < len && k - i < 4 && (p[k] & 0xc0) == 0x80)
            k++;
        count += brock__utf16_from_utf8(s + i, k - i, scratch);
        i = k;
    }
    return count;
}

/* A lead byte c of a sequence of 2 to 4 bytes: how many continuation bytes it needs, its
 * bits of the code point, and the range its first continuation byte must be in (*lo, *hi:
 * no overlong form, surrogate or code point past U+10FFFF). Returns 0 for a byte that leads
 * none. */
static inline int utf8_lead(unsigned c, unsigned *need, uint32_t *cp, unsigned *lo, unsigned *hi)
{
    if (c >= 0xc2 && c <= 0xdf) {
        *need = 1;
        *cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        *need = 2;
        *cp = c & 0x0f;
        *lo = c == 0xe0 ? 0xa0 : 0x80;
        *hi = c == 0xed ? 0x9f : 0xbf;
    } else if (c >= 0xf0 && c <= 0xf4) {
        *need = 3;
        *cp = c & 0x07;
        *lo = c == 0xf0 ? 0x90 : 0x80;
        *hi = c == 0xf4 ? 0x8f : 0xbf;
    } else {
        return 0;
    }
    return 1;
}

/* Code point cp as one UTF-16 unit or a surrogate pair into out. Returns how many. */
static inline size_t utf16_put(uint16_t *out, uint32_t cp)
{
    if (cp < 0x10000) {
        out[0] = (uint16_t)cp;
        return 1;
    }
    cp -= 0x10000;
    out[0] = (uint16_t)(0xd800 + (cp >> 10));
    out[1] = (uint16_t)(0xdc00 + (cp & 0x3ff));
    return 2;
}

/* WHATWG's UTF-8 decoder: a malformed sequence becomes one U+FFFD for its maximal valid
 * prefix (a lone continuation byte, an overlong or surrogate lead, a cut sequence), so that
 * text reads as a browser's TextDecoder and URLSearchParams read it. */
size_t brock__utf16_from_utf8(const char *s, size_t len, uint16_t *out)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, n = 0;

    if (!out)
        return utf16_count(s, len);

    while (i < len) {
        unsigned c = p[i], need, lo = 0x80, hi = 0xbf;
        uint32_t cp;

        if (c < 0x80) {
            out[n++] = (uint16_t)c;
            i++;
            continue;
        }
        if (!utf8_lead(c, &need, &cp, &lo, &hi)) {
            out[n++] = 0xfffd;
            i++;
            continue;
        }
        i++;
        for (; need > 0; need--) {
            if (i >= len || p[i] < lo || p[i] > hi)
                break;
            cp = (cp << 6) | (p[i] & 0x3fu);
            lo = 0x80;
            hi = 0xbf;
            i++;
        }
        /* A cut sequence: the byte that broke it starts the next one. */
        n += utf16_put(out + n, need > 0 ? 0xfffd : cp);
    }
    return n;
}

static bool is_high(uint16_t u)
{
    return u >= 0xd800 && u <= 0xdbff;
}

static bool is_low(uint16_t u)
{
    return u >= 0xdc00 && u <= 0xdfff;
}

size_t brock__utf8_from_utf16(const uint16_t *s, size_t n, char *out)
{
    unsigned char *w = (unsigned char *)out;

    for (size_t i = 0; i < n; i++) {
        uint32_t cp = s[i];

        if (is_high(s[i]) && i + 1 < n && is_low(s[i + 1])) {
            cp = 0x10000 + (((uint32_t)s[i] - 0xd800) << 10) + ((uint32_t)s[i + 1] - 0xdc00);
            i++;
        } else if (is_high(s[i]) || is_low(s[i])) {
            cp = 0xfffd; /* half of a pair, cut off */
        }
        if (cp < 0x80) {
            *w++ = (unsigned char)cp;
        } else if (cp < 0x800) {
            *w++ = (unsigned char)(0xc0 | (cp >> 6));
            *w++ = (unsigned char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
            *w++ = (unsigned char)(0xe0 | (cp >> 12));
            *w++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
            *w++ = (unsigned char)(0x80 | (cp & 0x3f));
        } else {
            *w++ = (unsigned char)(0xf0 | (cp >> 18));
            *w++ = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
            *w++ = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
            *w++ = (unsigned char)(0x80 | (cp & 0x3f));
        }
    }
    *w = '\0';
    return (size_t)((char *)w - out);
}

char *brock__utf8_dup(const char *s)
{
    size_t len = strlen(s), n;
    uint16_t *units;
    char *out;

    /* Valid text, the common case, is copied as it is. */
    n = brock__utf16_from_utf8(s, len, NULL);
    if (!(units = mem_malloc((n ? n : 1) * sizeof(*units))))
        return NULL;
    n = brock__utf16_from_utf8(s, len, units);
    if ((out = mem_malloc(3 * n + 1)) != NULL)
        brock__utf8_from_utf16(units, n, out);
    mem_free(units);
    return out;
}

/* ---- case, as String.prototype.toLowerCase and toUpperCase see it ---- */

/* The letters of ASCII, Latin-1, Latin Extended-A, Greek and Cyrillic whose case maps one
 * code unit to one: enough for the text cookies and URLs carry. Every other code unit is
 * taken to have no case (JavaScript's full mapping changes a few more, and the length of a
 * handful, which this never does). */
uint16_t brock__lower16(uint16_t c)
{
    if (c < 0x80)
        return c >= 'A' && c <= 'Z' ? (uint16_t)(c + 32) : c;
    if ((c >= 0xc0 && c <= 0xde && c != 0xd7) || (c >= 0x391 && c <= 0x3ab && c != 0x3a2) ||
        (c >= 0x410 && c <= 0x42f))
        return (uint16_t)(c + 32);
    if (c >= 0x400 && c <= 0x40f)
        return (uint16_t)(c + 80);
    if (c == 0x178)
        return 0xff;
    if (((c >= 0x100 && c <= 0x12f) || (c >= 0x132 && c <= 0x137) || (c >= 0x14a && c <= 0x177)) &&
        !(c & 1))
        return (uint16_t)(c + 1);
    if (((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17e)) && (c & 1))
        return (uint16_t)(c + 1);
    return c;
}

uint16_t brock__upper16(uint16_t c)
{
    if (c < 0x80)
        return c >= 'a' && c <= 'z' ? (uint16_t)(c - 32) : c;
    if ((c >= 0xe0 && c <= 0xfe && c != 0xf7) || (c >= 0x3b1 && c <= 0x3cb && c != 0x3c2) ||
        (c >= 0x430 && c <= 0x44f))
        return (uint16_t)(c - 32);
    if (c >= 0x450 && c <= 0x45f)
        return (uint16_t)(c - 80);
    switch (c) {
    case 0xb5: return 0x39c;  /* micro sign: Greek capital mu */
    case 0xff: return 0x178;  /* y with diaeresis */
    case 0x3c2: return 0x3a3; /* final sigma */
    default: break;
    }
    if (((c >= 0x101 && c <= 0x12f) || (c >= 0x133 && c <= 0x137) || (c >= 0x14b && c <= 0x177)) &&
        (c & 1))
        return (uint16_t)(c - 1);
    if (((c >= 0x13a && c <= 0x148) || (c >= 0x17a && c <= 0x17e)) && !(c & 1))
        return (uint16_t)(c - 1);
    return c;
}

/* ---- estimateMaxEntropy ---- */

/* Strings longer than this are not measured: their length is returned, 1 bit a unit. */
#define ENTROPY_LEN_MAX 256

enum { CL_BIN, CL_DEC, CL_HEX, CL_ALPHA, CL_ALNUM, CL_B64, CL_URL, CL_COUNT };

static const unsigned class_size[CL_COUNT] = {2, 10, 16, 26, 36, 64, 64};

/* The classes (in Privacy Badger's order) an ASCII character belongs to, with the separators
 * "._-x" that every class admits, as a bit mask. */
static unsigned char_classes(uint16_t c)
{
    const unsigned all = (1u << CL_COUNT) - 1;

    if (c == '.' || c == '_' || c == '-' || c == 'x')
        return all;
    if (c == '0' || c == '1')
        return all;
    if (c >= '2' && c <= '9')
        return all & ~(1u << CL_BIN);
    if (c >= 'a' && c <= 'f')
        return all & ~(1u << CL_BIN | 1u << CL_DEC);
    if (c >= 'g' && c <= 'z')
        return all & ~(1u << CL_BIN | 1u << CL_DEC | 1u << CL_HEX);
    if (c >= 'A' && c <= 'Z')
        return 1u << CL_B64 | 1u << CL_URL;
    if (c == '/' || c == '+')
        return 1u << CL_B64;
    if (c == '~' || c == '%')
        return 1u << CL_URL;
    return 0; /* anything else, every non-ASCII unit included */
}

double brock__max_entropy16(const uint16_t *s, size_t n)
{
    uint16_t t[ENTROPY_LEN_MAX];
    bool lower = true, upper = true;
    unsigned classes = (1u << CL_COUNT) - 1, symbols = 0;

    if (n > ENTROPY_LEN_MAX)
        return (double)n;
    for (size_t i = 0; i < n; i++) {
        lower = lower && brock__lower16(s[i]) == s[i];
        upper = upper && brock__upper16(s[i]) == s[i];
    }
    for (size_t i = 0; i < n; i++) {
        t[i] = lower || upper ? brock__lower16(s[i]) : s[i];
        classes &= char_classes(t[i]);
    }
    for (unsigned k = 0; k < CL_COUNT && !symbols; k++)
        if (classes & (1u << k))
            symbols = class_size[k];
    if (!symbols) {
        uint16_t lo = t[0], hi = t[0];
        for (size_t i = 1; i < n; i++) {
            lo = t[i] < lo ? t[i] : lo;
            hi = t[i] > hi ? t[i] : hi;
        }
        symbols = (unsigned)(hi - lo) + 1;
    }
    return log((double)symbols) / M_LN2 * (double)n;
}

double brock_max_entropy(const char *s)
{
    uint16_t buf[ENTROPY_LEN_MAX + 1];
    size_t len = s ? strlen(s) : 0, n;

    if (len <= ENTROPY_LEN_MAX) {
        n = brock__utf16_from_utf8(s, len, buf);
        return brock__max_entropy16(buf, n);
    }
    /* Past the cap only the length in UTF-16 units counts. */
    return (double)brock__utf16_from_utf8(s, len, NULL);
}

/* ---- findCommonSubstrings ---- */

void brock__lcs_cleanup(struct brock__lcs *w)
{
    mem_free(w->row);
    mem_free(w->v);
    memset(w, 0, sizeof(*w));
}

/* Suffix-match lengths row by row (a outer, b inner, two rows kept). A run reaching the
 * minimum appends its text; a run growing past it replaces whatever was appended last, so
 * that runs on different diagonals growing in the same rows overwrite one another, exactly
 * as Privacy Badger's procedure does. */
int brock__lcs_run(struct brock__lcs *w, const uint16_t *a, size_t n, const uint16_t *b, size_t m)
{
    uint32_t *prev, *cur;

    w->n = 0;
    if (m == 0 || n == 0)
        return 0;
    if (m > SIZE_MAX / 2 - 1 || mem_grow(&w->row, &w->row_cap, 2 * m, sizeof(*w->row)) < 0)
        return BROCK_ENOMEM;
    prev = w->row;
    cur = w->row + m;
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < m; j++) {
            uint32_t len = 0;

            if (a[i] == b[j])
                len = i == 0 || j == 0 ? 1 : prev[j - 1] + 1;
            cur[j] = len;
            if (len < BROCK__COMMON_MIN)
                continue;
            if (len > BROCK__COMMON_MIN && w->n > 0)
                w->n--;
            if (mem_grow(&w->v, &w->cap, w->n + 1, sizeof(*w->v)) < 0)
                return BROCK_ENOMEM;
            w->v[w->n].off = i + 1 - len;
            w->v[w->n].len = len;
            w->n++;
        }
        uint32_t *t = prev;
        prev = cur;
        cur = t;
    }
    return 0;
}

int brock_common_substrings(const char *a, const char *b,
                            int (*cb)(void *arg, const char *s, size_t len), void *arg)
{
    struct brock__lcs w = {0};
    size_t alen = strlen(a), blen = strlen(b), n, m;
    uint16_t *a16 = mem_malloc((alen + blen) * sizeof(*a16)), *b16;
    char *out = NULL;
    int rc = BROCK_ENOMEM;

    if (!a16)
        return BROCK_ENOMEM;
    n = brock__utf16_from_utf8(a, alen, a16);
    b16 = a16 + n;
    m = brock__utf16_from_utf8(b, blen, b16);
    if (brock__lcs_run(&w, a16, n, b16, m) < 0)
        goto out;
    /* A unit is at most three bytes of UTF-8 (a pair, two units, is four). */
    out = mem_malloc(3 * n + 1);
    if (!out)
        goto out;
    rc = 0;
    for (size_t k = 0; k < w.n && rc == 0; k++) {
        size_t len = brock__utf8_from_utf16(a16 + w.v[k].off, w.v[k].len, out);
        if (cb)
            rc = cb(arg, out, len);
    }
    if (rc == 0)
        rc = w.n > INT32_MAX ? INT32_MAX : (int)w.n;
out:
    mem_free(out);
    mem_free(a16);
    brock__lcs_cleanup(&w);
    return rc;
}
