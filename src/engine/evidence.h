/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The evidence in a request's bytes, by pure functions of them (cookie.c, entropy.c,
 * pixel.c): cookies and whether they identify, Privacy Badger's entropy estimate and common
 * substrings over UTF-16 as its JavaScript counts them, and pixel cookie sharing.
 */
#ifndef BROCK_ENGINE_EVIDENCE_H
#define BROCK_ENGINE_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"
#include "util/attr.h"

/* ---- cookie.c: Cookie and Set-Cookie ---- */

/* Calls cb for each name=value piece of one header value in Privacy Badger's parseCookie
 * with noDecode, skipAttributes and skipNonValues: `\n` separates like `;`, name and value
 * trimmed, one pair of quotes removed from the value. Views point into s. cb returns 0 to
 * go on. Returns the number of pairs, or cb's non-zero value. */
int brock__cookie_parse(const char *s, size_t len,
                        int (*cb)(void *arg, const char *name, size_t nlen, const char *val,
                                  size_t vlen),
                        void *arg);

/* The bits a low-entropy cookie value carries, or -1 when the value (lower-cased) is not
 * in Privacy Badger's table and so identifies. */
int brock__cookie_value_bits(const char *val, size_t vlen);

/* hasCookieTracking over the Cookie and Set-Cookie headers among h. Returns 1 when they
 * identify (copying the first identifying cookie's name into name, if not NULL), else 0. */
int brock__has_cookie_tracking(const struct brock_header *h, size_t n, char *name,
                               size_t name_size);

/* ---- entropy.c: estimateMaxEntropy and findCommonSubstrings, over UTF-16 ---- */

/* findCommonSubstrings' shortest substring, and the pixel rule's shortest value. */
#define BROCK__COMMON_MIN 8

/* Decodes len bytes of UTF-8 as WHATWG's decoder does (each malformed sequence one U+FFFD)
 * into out, which holds len units (UTF-16 never needs more); with out NULL only counts.
 * Returns the number of units. */
size_t brock__utf16_from_utf8(const char *s, size_t len, uint16_t *out);

/* Encodes n units as UTF-8 into out (3 * n + 1 bytes), NUL-terminated; half a surrogate pair
 * becomes U+FFFD. Returns the bytes written, without the NUL. */
size_t brock__utf8_from_utf16(const uint16_t *s, size_t n, char *out);

/* A copy of s (mem_free() it) that is valid UTF-8: each malformed sequence becomes U+FFFD, as
 * a browser reads the bytes. What brock keeps of a request's bytes (a cookie's name, a script's
 * path) goes through it, for the state's readers need text: PostgreSQL refuses anything else,
 * and JSON cannot carry it. NULL when out of memory. */
char *brock__utf8_dup(const char *s);

/* One unit lower- or upper-cased, as JavaScript does for the letters it covers. */
uint16_t brock__lower16(uint16_t c);
uint16_t brock__upper16(uint16_t c);

/* estimateMaxEntropy of n units. */
double brock__max_entropy16(const uint16_t *s, size_t n);

/* A piece of a string: offset and length, in units. */
struct brock__span {
    size_t off, len;
};

/* findCommonSubstrings' working memory and result: v[0..n) are substrings of a. */
struct brock__lcs {
    uint32_t *row;
    size_t row_cap;
    struct brock__span *v;
    size_t n, cap;
};

/* findCommonSubstrings(a, b) into w (reused across calls; brock__lcs_cleanup() frees it).
 * Returns 0 or BROCK_ENOMEM. */
int brock__lcs_run(struct brock__lcs *w, const uint16_t *a, size_t n, const uint16_t *b,
                   size_t m) BROCK_NODISCARD_INTERNAL;
void brock__lcs_cleanup(struct brock__lcs *w);

/* ---- pixel.c: pixel cookie sharing (section 3.7) ---- */

/* application/x-www-form-urlencoded's byte decoding: '+' is a space, %XX a byte, a '%' not
 * followed by two hex digits itself. out holds len bytes. Returns the bytes written. */
size_t brock__form_decode(const char *s, size_t len, char *out);

/* What the rule reads; strings as (pointer, length), none needs a NUL. */
struct brock__pixel_in {
    const char *url; /* the image's URL */
    size_t url_len;
    const char *tab_url; /* the top-level page's URL */
    size_t tab_url_len;
    const char *ua; /* the User-Agent; NULL: none */
    size_t ua_len;
    const char *cookies; /* the page's script-readable cookies, "a=1; b=2" */
    size_t cookies_len;
};

/* The first cookie and URL parameter found shared, as UTF-8. */
struct brock__pixel_hit {
    char cookie[128];
    char param[128];
};

/* The cells of findCommonSubstrings' table one check may fill, over all its pairs of a
 * cookie and a parameter: past them the check gives up, finding nothing. */
#define BROCK__PIXEL_CELLS_MAX ((size_t)1 << 24)

/* Privacy Badger's pixelCookieShareAccounting without the recording: whether a parameter
 * of in->url carries a high-entropy piece of one of in->cookies. Returns 1 (with *hit
 * filled), 0, or BROCK_ENOMEM. */
int brock__pixel_share(const struct brock__pixel_in *in,
                       struct brock__pixel_hit *hit) BROCK_NODISCARD_INTERNAL;

#endif
