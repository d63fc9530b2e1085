/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pixel cookie sharing (Privacy Badger's pixelCookieShareAccounting, section 3.7): a first
 * party's cookie value copied into a third-party image's URL identifies the visitor to the
 * third party without any cookie of its own. Strings are compared as JavaScript compares
 * them, in UTF-16 code units, with the URL's parameters read as URLSearchParams reads them.
 */
#include "engine/evidence.h"

#include <string.h>

#include "util/alloc.h"
#include "util/hex.h"

/* Privacy Badger's TRACKER_ENTROPY_THRESHOLD: more bits than this identify. */
#define PIXEL_BITS 33

/* Privacy Badger's lowEntropyQueryValues, in its order: each is looked for, once, in the
 * lower-cased substring and cut out of it. "%3A%2F%2F" has capitals and so is never found in
 * a lower-cased text; it stays, as in Privacy Badger. */
static const char *const low_entropy_query[] = {
    "https",         "http",          "://",      "%3A%2F%2F", "www",       "url",
    "undefined",     "impression",    "session",  "homepage",  "client",    "version",
    "business",      "title",         "get",      "site",      "name",      "category",
    "account_id",    "smartadserver", "front",    "page",      "view",      "first",
    "visit",         "platform",      "language", "automatic", "disabled",  "landing",
    "entertainment", "amazon",        "official", "webvisor",  "anonymous", "across",
    "narrative",     "\":null",       "\":false", "\":\"",     "\",\"",
};

/* A cookie or a parameter: its name as it came (a view into the input) and its value,
 * decoded, as units in the pool. */
struct item {
    const char *name;
    size_t name_len;
    size_t off, len;
};

struct items {
    struct item *v;
    size_t n, cap;
};

struct pixel {
    uint16_t *pool; /* every decoded string, one after another */
    size_t used;
    char *bytes; /* scratch: a parameter percent-decoded */
    struct items params, cookies;
    size_t tab, tab_len, ua, ua_len; /* in the pool */
    uint16_t *s, *lower;             /* scratch: the substring being judged */
    struct brock__lcs lcs;
};

/* ---- reading the inputs ---- */

static size_t add_utf8(struct pixel *p, const char *s, size_t len)
{
    size_t off = p->used;

    p->used += brock__utf16_from_utf8(s, len, p->pool + off);
    return off;
}

size_t brock__form_decode(const char *s, size_t len, char *out)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        int hi, lo;

        if (s[i] == '+') {
            out[n++] = ' ';
        } else if (s[i] == '%' && i + 2 < len && (hi = hex_digit(s[i + 1])) >= 0 &&
                   (lo = hex_digit(s[i + 2])) >= 0) {
            out[n++] = (char)(hi << 4 | lo);
            i += 2;
        } else {
            out[n++] = s[i];
        }
    }
    return n;
}

static int push(struct items *it, const char *name, size_t name_len, size_t off, size_t len)
{
    if (mem_grow(&it->v, &it->cap, it->n + 1, sizeof(*it->v)) < 0)
        return BROCK_ENOMEM;
    it->v[it->n++] = (struct item){name, name_len, off, len};
    return 0;
}

/* The query's parameters, in order, duplicates kept: what follows the first '?' up to a
 * '#', split at '&' (empty pieces skipped), each at its first '='. */
static int read_params(struct pixel *p, const char *url, size_t len)
{
    const char *q = memchr(url, '?', len), *end;

    if (!q)
        return 0;
    q++;
    end = memchr(q, '#', (size_t)(url + len - q));
    if (!end)
        end = url + len;
    while (q < end) {
        const char *amp = memchr(q, '&', (size_t)(end - q)), *eq;
        size_t plen = (size_t)((amp ? amp : end) - q), nlen, vlen, off;

        if (plen) {
            eq = memchr(q, '=', plen);
            nlen = eq ? (size_t)(eq - q) : plen;
            vlen = eq ? plen - nlen - 1 : 0;
            off = add_utf8(p, p->bytes, eq ? brock__form_decode(eq + 1, vlen, p->bytes) : 0);
            if (push(&p->params, q, nlen, off, p->used - off) < 0)
                return BROCK_ENOMEM;
        }
        q += plen + 1;
    }
    return 0;
}

static int is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* A Cookie header's pairs, in order: pieces between ';', trimmed, each split at its first
 * '='; a piece without one is a value with no name, as browsers send a nameless cookie.
 * Values stay as they came, quotes and all, as a browser's cookie store gives them. */
static int read_cookies(struct pixel *p, const char *s, size_t len)
{
    const char *end = s + len;

    while (s < end) {
        const char *semi = memchr(s, ';', (size_t)(end - s)), *stop = semi ? semi : end;
        const char *a = s, *b = stop, *eq, *name = s, *val;
        size_t nlen = 0, off;

        while (a < b && is_ows(*a))
            a++;
        while (b > a && is_ows(b[-1]))
            b--;
        if (a < b) {
            eq = memchr(a, '=', (size_t)(b - a));
            val = eq ? eq + 1 : a;
            if (eq) {
                name = a;
                nlen = (size_t)(eq - a);
                while (nlen && is_ows(name[nlen - 1]))
                    nlen--;
                while (val < b && is_ows(*val))
                    val++;
            }
            off = add_utf8(p, val, (size_t)(b - val));
            if (push(&p->cookies, name, nlen, off, p->used - off) < 0)
                return BROCK_ENOMEM;
        }
        s = stop + 1;
    }
    return 0;
}

/* ---- judging one common substring ---- */

/* indexOf: where n units of needle first occur in h units of hay, or -1. */
static long find16(const uint16_t *hay, size_t h, const uint16_t *needle, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; n <= h && i <= h - n; i++)
        if (hay[i] == needle[0] && !memcmp(hay + i + 1, needle + 1, (n - 1) * sizeof(*hay)))
            return (long)i;
    return -1;
}

static long find_ascii(const uint16_t *hay, size_t h, const char *needle)
{
    size_t n = strlen(needle);

    for (size_t i = 0; n <= h && i <= h - n; i++) {
        size_t k = 0;

        while (k < n && hay[i + k] == (unsigned char)needle[k])
            k++;
        if (k == n)
            return (long)i;
    }
    return -1;
}

/* String.prototype.replace(sub, "") for sub = s[from, from + n): its first occurrence,
 * which may come before from, is cut out of s. */
static void cut_first(uint16_t *s, size_t *len, size_t from, size_t n)
{
    long at = find16(s, *len, s + from, n);

    if (n == 0 || at < 0)
        return;
    memmove(s + at, s + at + n, (*len - (size_t)at - n) * sizeof(*s));
    *len -= n;
}

/* The loop body of pixelCookieShareAccounting for one substring s (n units, already copied
 * into p->s): 1 when it identifies. */
static int identifies(struct pixel *p, size_t n)
{
    const uint16_t *tab = p->pool + p->tab, *ua = p->pool + p->ua;
    uint16_t *s = p->s;
    long at;
    size_t len;

    /* The page's own address, and the browser's name, are no secret. */
    if (find16(tab, p->tab_len, s, n) >= 0 || (p->ua_len && find16(ua, p->ua_len, s, n) >= 0))
        return 0;
    at = find16(s, n, tab, p->tab_len);
    if (at >= 0) {
        memmove(s + at, s + at + p->tab_len, (n - (size_t)at - p->tab_len) * sizeof(*s));
        n -= p->tab_len;
    }
    /* Lower-cased once: a word's place is found in that text, while the cuts are made in
     * the substring as it is by then, so a cut can take other text than the word. */
    len = n;
    for (size_t i = 0; i < n; i++)
        p->lower[i] = brock__lower16(s[i]);
    for (size_t k = 0; k < sizeof(low_entropy_query) / sizeof(low_entropy_query[0]); k++) {
        long start = find_ascii(p->lower, n, low_entropy_query[k]);
        size_t from, to;

        if (start < 0)
            continue;
        /* substring() clamps both ends to the current length. */
        from = (size_t)start < len ? (size_t)start : len;
        to = (size_t)start + strlen(low_entropy_query[k]);
        to = to < len ? to : len;
        cut_first(s, &len, from, to - from);
    }
    return len >= BROCK__COMMON_MIN && brock__max_entropy16(s, len) > PIXEL_BITS;
}

/* ---- the rule ---- */

/* The name of a cookie or parameter as valid UTF-8 in out (size bytes, cut at a character);
 * a parameter's name is form-decoded first. */
static void name_text(struct pixel *p, const struct item *it, int form, char *out, size_t size)
{
    uint16_t units[128];
    char enc[13];
    /* At most one UTF-16 unit a byte: as many bytes as units has elements, not bytes. */
    const size_t cap = sizeof(units) / sizeof(units[0]);
    size_t n, w = 0, blen = it->name_len < cap ? it->name_len : cap;

    if (form)
        blen = brock__form_decode(it->name, blen, p->bytes);
    else
        memcpy(p->bytes, it->name, blen);
    n = brock__utf16_from_utf8(p->bytes, blen, units);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t k = i + 1 < n && units[i] >= 0xd800 && units[i] <= 0xdbff ? 2 : 1;
        size_t len = brock__utf8_from_utf16(units + i, k, enc);

        if (w + len >= size)
            break;
        memcpy(out + w, enc, len + 1);
        w += len;
        i += k - 1;
    }
}

static int share_found(struct pixel *p, struct brock__pixel_hit *hit)
{
    size_t cells = 0;

    for (size_t i = 0; i < p->params.n; i++) {
        const struct item *v = &p->params.v[i];

        if (v->len < BROCK__COMMON_MIN)
            continue;
        for (size_t j = 0; j < p->cookies.n; j++) {
            const struct item *c = &p->cookies.v[j];

            if (c->len < BROCK__COMMON_MIN)
                continue;
            cells += c->len * v->len;
            if (cells > BROCK__PIXEL_CELLS_MAX)
                return 0;
            if (brock__lcs_run(&p->lcs, p->pool + c->off, c->len, p->pool + v->off, v->len) < 0)
                return BROCK_ENOMEM;
            for (size_t k = 0; k < p->lcs.n; k++) {
                const struct brock__span *sp = &p->lcs.v[k];

                memcpy(p->s, p->pool + c->off + sp->off, sp->len * sizeof(*p->s));
                if (!identifies(p, sp->len))
                    continue;
                name_text(p, c, 0, hit->cookie, sizeof(hit->cookie));
                name_text(p, v, 1, hit->param, sizeof(hit->param));
                return 1;
            }
        }
    }
    return 0;
}

int brock__pixel_share(const struct brock__pixel_in *in, struct brock__pixel_hit *hit)
{
    struct pixel p;
    size_t units = in->url_len + in->tab_url_len + in->ua_len + in->cookies_len, longest = 0;
    int rc = BROCK_ENOMEM;

    memset(&p, 0, sizeof(p));
    p.pool = mem_malloc(units * sizeof(*p.pool));
    p.bytes = mem_malloc(in->url_len + 128);
    if (!p.pool || !p.bytes)
        goto out;
    p.tab = add_utf8(&p, in->tab_url, in->tab_url_len);
    p.tab_len = p.used - p.tab;
    p.ua = add_utf8(&p, in->ua, in->ua ? in->ua_len : 0);
    p.ua_len = p.used - p.ua;
    if (read_params(&p, in->url, in->url_len) < 0 ||
        read_cookies(&p, in->cookies, in->cookies_len) < 0)
        goto out;
    for (size_t j = 0; j < p.cookies.n; j++)
        longest = p.cookies.v[j].len > longest ? p.cookies.v[j].len : longest;
    p.s = mem_malloc(2 * longest * sizeof(*p.s));
    if (!p.s)
        goto out;
    p.lower = p.s + longest;
    rc = share_found(&p, hit);
out:
    brock__lcs_cleanup(&p.lcs);
    mem_free(p.s);
    mem_free(p.params.v);
    mem_free(p.cookies.v);
    mem_free(p.bytes);
    mem_free(p.pool);
    return rc;
}
