/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The first parties' cookies per client and site, for pixel cookie sharing. */
#include "engine/sitecookies.h"

#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/clock.h"

_Static_assert(BROCK_SC_SITES <= 4096, "brock_site_cookies holds its sites in an array");

struct sc_cookie {
    char *name;
    char *value; /* "" for an HttpOnly one: only its name matters */
    int http_only;
};

struct sc_site {
    char client[64];
    char site[BROCK_HOST_MAX];
    uint64_t used;
    size_t n, bytes; /* cookies, and the bytes of their names and values */
    struct sc_cookie v[BROCK_SC_COOKIES];
};

struct brock_site_cookies *brock_site_cookies_new(void)
{
    return mem_calloc(1, sizeof(struct brock_site_cookies));
}

static void site_clear(struct sc_site *s)
{
    for (size_t i = 0; i < s->n; i++) {
        mem_free(s->v[i].name);
        mem_free(s->v[i].value);
    }
    memset(s, 0, sizeof(*s));
}

void brock_site_cookies_free(struct brock_site_cookies *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++) {
        site_clear(m->sites[i]);
        mem_free(m->sites[i]);
    }
    mem_free(m);
}

static struct sc_site *site_get(struct brock_site_cookies *m, const char *client, const char *site,
                                int create)
{
    struct sc_site *s = NULL;
    size_t oldest = 0;

    for (size_t i = 0; i < m->n; i++) {
        s = m->sites[i];
        if (!strcmp(s->site, site) && !strcmp(s->client, client)) {
            s->used = ++m->tick;
            return s;
        }
        if (s->used < m->sites[oldest]->used)
            oldest = i;
    }
    if (!create || strlen(client) >= sizeof(s->client) || strlen(site) >= sizeof(s->site))
        return NULL;
    if (m->n < BROCK_SC_SITES) {
        s = mem_calloc(1, sizeof(*s));
        if (!s)
            return NULL;
        m->sites[m->n++] = s;
    } else {
        s = m->sites[oldest];
        site_clear(s);
    }
    memcpy(s->client, client, strlen(client) + 1);
    memcpy(s->site, site, strlen(site) + 1);
    s->used = ++m->tick;
    return s;
}

/* ---- one site's cookies ---- */

static struct sc_cookie *cookie_find(struct sc_site *s, const char *name, size_t nlen)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->v[i].name) == nlen && !memcmp(s->v[i].name, name, nlen))
            return &s->v[i];
    return NULL;
}

static void cookie_drop(struct sc_site *s, size_t i)
{
    s->bytes -= strlen(s->v[i].name) + strlen(s->v[i].value);
    mem_free(s->v[i].name);
    mem_free(s->v[i].value);
    memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(s->v[0]));
    s->n--;
}

static void cookie_remove(struct sc_site *s, const char *name, size_t nlen)
{
    struct sc_cookie *c = cookie_find(s, name, nlen);

    if (c)
        cookie_drop(s, (size_t)(c - s->v));
}

/* Makes room for need more bytes (and, when add, one more cookie) by forgetting the oldest
 * cookies other than keep (an index, or s->n for none). Returns keep's index now. */
static size_t make_room(struct sc_site *s, size_t need, int add, size_t keep)
{
    for (;;) {
        size_t victim = keep == 0 ? 1 : 0;

        if (s->bytes + need <= BROCK_SC_BYTES && (!add || s->n < BROCK_SC_COOKIES))
            return keep;
        if (victim >= s->n)
            return keep;
        cookie_drop(s, victim);
        if (keep > victim)
            keep--;
    }
}

/* Sets a cookie, keeping the place of one of the same name, as browsers keep a cookie's
 * creation time when it is overwritten; room is made by forgetting the oldest. */
static void cookie_set(struct sc_site *s, const char *name, size_t nlen, const char *val,
                       size_t vlen, int http_only)
{
    struct sc_cookie *c;
    char *n = NULL, *v;
    size_t i;

    if (http_only)
        vlen = 0;
    if (nlen + vlen > BROCK_SC_BYTES || (!nlen && !vlen))
        return;
    c = cookie_find(s, name, nlen);
    if (c && c->http_only == http_only && strlen(c->value) == vlen && !memcmp(c->value, val, vlen))
        return;
    v = mem_strndup(val, vlen);
    if (!v || (!c && !(n = mem_strndup(name, nlen)))) {
        mem_free(v);
        return;
    }
    if (c) {
        i = (size_t)(c - s->v);
        s->bytes -= strlen(c->value);
        mem_free(c->value);
        c->value = v;
        c->http_only = http_only;
        i = make_room(s, vlen, 0, i);
        s->bytes += vlen;
        if (s->bytes > BROCK_SC_BYTES) /* it alone is too large with its name */
            cookie_drop(s, i);
        return;
    }
    (void)make_room(s, nlen + vlen, 1, s->n);
    s->v[s->n++] = (struct sc_cookie){n, v, http_only};
    s->bytes += nlen + vlen;
}

/* ---- the headers ---- */

static int is_ows(char c)
{
    return c == ' ' || c == '\t';
}

static void trim(const char **s, size_t *n)
{
    while (*n && is_ows(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_ows((*s)[*n - 1]))
        (*n)--;
}

/* A name=value piece, trimmed; with no '=', a value with no name (RFC 6265bis). */
static void split_pair(const char *p, size_t len, const char **name, size_t *nlen, const char **val,
                       size_t *vlen)
{
    const char *eq;

    trim(&p, &len);
    eq = memchr(p, '=', len);
    *name = p;
    *nlen = eq ? (size_t)(eq - p) : 0;
    *val = eq ? eq + 1 : p;
    *vlen = eq ? len - *nlen - 1 : len;
    trim(name, nlen);
    trim(val, vlen);
}

void brock_site_cookies_request(struct brock_site_cookies *m, const char *client, const char *site,
                                const char *value, size_t len)
{
    const char *end = value + len;
    struct sc_site *s = site_get(m, client, site, 1);

    while (s && value < end) {
        const char *semi = memchr(value, ';', (size_t)(end - value));
        const char *stop = semi ? semi : end, *name, *val;
        size_t nlen, vlen;
        struct sc_cookie *c;

        split_pair(value, (size_t)(stop - value), &name, &nlen, &val, &vlen);
        c = cookie_find(s, name, nlen);
        if ((nlen || vlen) && !(c && c->http_only))
            cookie_set(s, name, nlen, val, vlen, 0);
        value = stop + 1;
    }
}

/* Max-Age's value (RFC 6265 5.2.2): whether it says the cookie is gone; -1 when it is not a
 * Max-Age at all (then ignored). */
static int max_age_expired(const char *v, size_t n)
{
    size_t i;
    int nonzero = 0;

    if (!v || !n)
        return -1;
    i = v[0] == '-';
    if (i == n)
        return -1;
    for (; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        nonzero |= v[i] != '0';
    }
    return v[0] == '-' || !nonzero;
}

void brock_site_cookies_response(struct brock_site_cookies *m, const char *client, const char *site,
                                 const char *value, size_t len, int64_t now_s)
{
    const char *end = value + len, *semi = memchr(value, ';', len), *name, *val;
    size_t nlen, vlen;
    int http_only = 0, gone = -1, expired = 0;
    struct sc_site *s;

    split_pair(value, (size_t)((semi ? semi : end) - value), &name, &nlen, &val, &vlen);
    if (!nlen && !vlen)
        return;
    for (const char *a = semi; a && a < end;) {
        const char *next = memchr(a + 1, ';', (size_t)(end - a - 1)), *an, *av;
        size_t anl, avl;

        split_pair(a + 1, (size_t)((next ? next : end) - a - 1), &an, &anl, &av, &avl);
        if (anl == 0 && avl == 8 && !strncasecmp(av, "httponly", 8))
            http_only = 1;
        else if (anl == 7 && !strncasecmp(an, "max-age", 7) && max_age_expired(av, avl) >= 0)
            gone = max_age_expired(av, avl);
        else if (anl == 7 && !strncasecmp(an, "expires", 7)) {
            int64_t t = brock__cookie_date(av, avl);
            if (t >= 0)
                expired = t <= now_s;
        }
        a = next;
    }
    if (gone < 0)
        gone = expired;
    s = site_get(m, client, site, !gone);
    if (s && gone)
        cookie_remove(s, name, nlen);
    else if (s)
        cookie_set(s, name, nlen, val, vlen, http_only);
}

size_t brock_site_cookies_get(struct brock_site_cookies *m, const char *client, const char *site,
                              char *out, size_t size)
{
    struct sc_site *s = site_get(m, client, site, 0);
    size_t w = 0;

    if (size)
        out[0] = '\0';
    for (size_t i = 0; s && i < s->n; i++) {
        const struct sc_cookie *c = &s->v[i];
        size_t nlen = strlen(c->name), vlen = strlen(c->value);
        size_t need = (w ? 2 : 0) + nlen + (nlen ? 1 : 0) + vlen;

        if (c->http_only || w + need + 1 > size)
            continue;
        if (w) {
            memcpy(out + w, "; ", 2);
            w += 2;
        }
        memcpy(out + w, c->name, nlen);
        w += nlen;
        if (nlen)
            out[w++] = '=';
        memcpy(out + w, c->value, vlen);
        w += vlen;
        out[w] = '\0';
    }
    return w;
}

/* ---- cookie dates (RFC 6265 5.1.1) ---- */

static int is_delimiter(unsigned char c)
{
    return c == 0x09 || (c >= 0x20 && c <= 0x2f) || (c >= 0x3b && c <= 0x40) ||
           (c >= 0x5b && c <= 0x60) || (c >= 0x7b && c <= 0x7e);
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* min to max digits, then the token's end or a non-digit; the number into *v. Returns the
 * digits read, 0 when the token does not start so. */
static size_t digits(const char *t, size_t n, size_t min, size_t max, int *v)
{
    size_t i = 0;

    *v = 0;
    while (i < n && i < max && is_digit(t[i]))
        *v = *v * 10 + (t[i++] - '0');
    if (i < min || (i < n && is_digit(t[i])))
        return 0;
    return i;
}

static int is_time(const char *t, size_t n, int hms[3])
{
    size_t at = 0;

    for (int k = 0; k < 3; k++) {
        size_t d = digits(t + at, n - at, 1, 2, &hms[k]);

        if (!d)
            return 0;
        at += d;
        if (k < 2 && (at >= n || t[at] != ':'))
            return 0;
        at += k < 2;
    }
    return 1;
}

static int month_of(const char *t, size_t n)
{
    static const char names[] = "janfebmaraprmayjunjulaugsepoctnovdec";

    for (size_t i = 0; n >= 3 && i < 12; i++)
        if (!strncasecmp(t, names + 3 * i, 3))
            return (int)i + 1;
    return 0;
}

int64_t brock__cookie_date(const char *s, size_t len)
{
    int hms[3] = {0}, day = 0, month = 0, year = 0, have_time = 0, have_day = 0, have_year = 0;
    size_t i = 0;

    while (i < len) {
        size_t start, n;
        int v;

        while (i < len && is_delimiter((unsigned char)s[i]))
            i++;
        start = i;
        while (i < len && !is_delimiter((unsigned char)s[i]))
            i++;
        n = i - start;
        if (!n)
            continue;
        if (!have_time && is_time(s + start, n, hms))
            have_time = 1;
        else if (!have_day && digits(s + start, n, 1, 2, &v)) {
            have_day = 1;
            day = v;
        } else if (!month && month_of(s + start, n)) {
            month = month_of(s + start, n);
        } else if (!have_year && digits(s + start, n, 2, 4, &v)) {
            have_year = 1;
            year = v;
        }
    }
    if (have_year && year >= 70 && year <= 99)
        year += 1900;
    else if (have_year && year <= 69)
        year += 2000;
    if (!have_time || !have_day || !month || !have_year || day < 1 || day > 31 || year < 1601 ||
        hms[0] > 23 || hms[1] > 59 || hms[2] > 59)
        return -1;
    return clock_days_from_civil(year, month, day) * 86400 + (int64_t)hms[0] * 3600 +
           (int64_t)hms[1] * 60 + hms[2];
}
