/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Cookie and Set-Cookie headers as Privacy Badger reads them: split into name=value views
 * without allocating, and judged identifying unless every value is in its small table of
 * low-entropy values and their bits add up to no more than 12.
 */
#include "engine/engine.h"
#include "engine/evidence.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- parsing ---- */

/* The ASCII part of what JavaScript's String.prototype.trim() removes. */
static bool is_trim(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

static void trim(const char **s, size_t *n)
{
    while (*n > 0 && is_trim((*s)[0])) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && is_trim((*s)[*n - 1]))
        (*n)--;
}

static const char *const cookie_attributes[] = {
    "domain", "expires", "httponly", "max-age", "path", "samesite", "secure",
};

static bool is_attribute(const char *name, size_t n)
{
    for (size_t i = 0; i < sizeof(cookie_attributes) / sizeof(cookie_attributes[0]); i++)
        if (strlen(cookie_attributes[i]) == n && strncasecmp(name, cookie_attributes[i], n) == 0)
            return true;
    return false;
}

int brock__cookie_parse(const char *s, size_t len,
                        int (*cb)(void *arg, const char *name, size_t nlen, const char *val,
                                  size_t vlen),
                        void *arg)
{
    int pairs = 0;

    if (!s)
        return 0;
    /* Only ';' and '\n' end a piece, so "expires=Wed, 29 Jan 2014 ..." stays whole. */
    for (size_t start = 0; start <= len;) {
        size_t end = start;
        const char *eq, *name, *val;
        size_t nlen, vlen;
        int r;

        while (end < len && s[end] != ';' && s[end] != '\n')
            end++;
        eq = memchr(s + start, '=', end - start);
        name = s + start;
        start = end + 1;
        if (!eq)
            continue;
        nlen = (size_t)(eq - name);
        val = eq + 1;
        vlen = (size_t)(s + end - val);
        trim(&name, &nlen);
        trim(&val, &vlen);
        /* Privacy Badger drops the first and the last character, whatever the last is. */
        if (vlen > 0 && val[0] == '"') {
            val++;
            vlen = vlen >= 2 ? vlen - 2 : 0;
        }
        if (is_attribute(name, nlen))
            continue;
        if (pairs < INT_MAX)
            pairs++;
        if (cb && (r = cb(arg, name, nlen, val, vlen)) != 0)
            return r;
    }
    return pairs;
}

/* ---- the low-entropy table ---- */

struct low_entropy {
    const char *value;
    int bits;
};

/* Privacy Badger's lowEntropyCookieValues, sorted by strcmp() for bsearch(). */
static const struct low_entropy low_entropy[] = {
    {"", 3},       {"0", 4},       {"1", 4},      {"2", 4},   {"3", 4},       {"4", 4},
    {"5", 4},      {"6", 4},       {"7", 4},      {"8", 4},   {"9", 4},       {"aa", 8},
    {"ab", 8},     {"ae", 8},      {"af", 8},     {"ak", 8},  {"am", 8},      {"an", 8},
    {"ar", 8},     {"as", 8},      {"av", 8},     {"ay", 8},  {"az", 8},      {"ba", 8},
    {"be", 8},     {"bg", 8},      {"bh", 8},     {"bi", 8},  {"bm", 8},      {"bn", 8},
    {"bo", 8},     {"br", 8},      {"bs", 8},     {"by", 8},  {"ca", 8},      {"ce", 8},
    {"ch", 8},     {"co", 8},      {"cr", 8},     {"cs", 8},  {"cu", 8},      {"cv", 8},
    {"cy", 8},     {"da", 8},      {"de", 8},     {"dnt", 3}, {"dv", 8},      {"dz", 8},
    {"ee", 8},     {"el", 8},      {"en", 8},     {"eo", 8},  {"es", 8},      {"et", 8},
    {"eu", 8},     {"fa", 8},      {"false", 3},  {"ff", 8},  {"fi", 8},      {"fj", 8},
    {"fo", 8},     {"fr", 8},      {"fy", 8},     {"ga", 8},  {"gd", 8},      {"gl", 8},
    {"gn", 8},     {"gu", 8},      {"gv", 8},     {"ha", 8},  {"he", 8},      {"hi", 8},
    {"ho", 8},     {"hr", 8},      {"ht", 8},     {"hu", 8},  {"hy", 8},      {"hz", 8},
    {"ia", 8},     {"id", 8},      {"ie", 8},     {"ig", 8},  {"ii", 8},      {"ik", 8},
    {"in", 8},     {"io", 8},      {"is", 8},     {"it", 8},  {"iu", 8},      {"ja", 8},
    {"jv", 8},     {"ka", 8},      {"kg", 8},     {"ki", 8},  {"kj", 8},      {"kk", 8},
    {"kl", 8},     {"km", 8},      {"kn", 8},     {"ko", 8},  {"kr", 8},      {"ks", 8},
    {"ku", 8},     {"kv", 8},      {"kw", 8},     {"ky", 8},  {"la", 8},      {"lb", 8},
    {"lg", 8},     {"li", 8},      {"ln", 8},     {"lo", 8},  {"lt", 8},      {"lu", 8},
    {"lv", 8},     {"mg", 8},      {"mh", 8},     {"mi", 8},  {"mk", 8},      {"ml", 8},
    {"mn", 8},     {"mr", 8},      {"ms", 8},     {"mt", 8},  {"my", 8},      {"na", 8},
    {"nb", 8},     {"nd", 8},      {"ne", 8},     {"ng", 8},  {"nl", 8},      {"nn", 8},
    {"no", 3},     {"no_data", 3}, {"nodata", 3}, {"nr", 8},  {"nv", 8},      {"ny", 8},
    {"oc", 8},     {"of", 8},      {"oj", 8},     {"om", 8},  {"opt-out", 3}, {"opt_out", 3},
    {"optout", 3}, {"or", 8},      {"os", 8},     {"pa", 8},  {"pi", 8},      {"pl", 8},
    {"ps", 8},     {"pt", 8},      {"qu", 8},     {"rm", 8},  {"rn", 8},      {"ro", 8},
    {"ru", 8},     {"rw", 8},      {"sa", 8},     {"sc", 8},  {"sd", 8},      {"se", 8},
    {"sg", 8},     {"si", 8},      {"sk", 8},     {"sl", 8},  {"sm", 8},      {"sn", 8},
    {"so", 8},     {"sq", 8},      {"sr", 8},     {"ss", 8},  {"st", 8},      {"su", 8},
    {"sv", 8},     {"sw", 8},      {"ta", 8},     {"te", 8},  {"tg", 8},      {"th", 8},
    {"ti", 8},     {"tk", 8},      {"tl", 8},     {"tn", 8},  {"to", 8},      {"tr", 8},
    {"true", 3},   {"ts", 8},      {"tt", 8},     {"tw", 8},  {"ty", 8},      {"ug", 8},
    {"uk", 8},     {"ur", 8},      {"uz", 8},     {"ve", 8},  {"vi", 8},      {"vo", 8},
    {"wa", 8},     {"wo", 8},      {"xh", 8},     {"yes", 3}, {"yi", 8},      {"yo", 8},
    {"za", 8},     {"zh", 8},      {"zu", 8},
};

/* The longest value in the table ("no_data", "opt-out", "opt_out"). */
#define LOW_ENTROPY_LEN_MAX 7

static int low_entropy_cmp(const void *key, const void *elem)
{
    return strcmp(key, ((const struct low_entropy *)elem)->value);
}

int brock__cookie_value_bits(const char *val, size_t vlen)
{
    char lower[LOW_ENTROPY_LEN_MAX + 1];
    const struct low_entropy *hit;

    if (vlen > LOW_ENTROPY_LEN_MAX || (vlen && !val))
        return -1;
    for (size_t i = 0; i < vlen; i++) {
        char c = val[i];
        if (c == '\0')
            return -1;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        lower[i] = c;
    }
    lower[vlen] = '\0';
    hit = bsearch(lower, low_entropy, sizeof(low_entropy) / sizeof(low_entropy[0]),
                  sizeof(low_entropy[0]), low_entropy_cmp);
    return hit ? hit->bits : -1;
}

/* ---- hasCookieTracking ---- */

/* Every counted name carries at least 3 bits, so five distinct names already pass 12: the
 * outcome of a header never depends on names past the first few, and keeping this many
 * (for the evidence's name) is enough. */
#define COOKIE_NAMES_MAX 16

struct cookie_view {
    const char *name, *val;
    size_t nlen, vlen;
};

/* One header's pairs after Privacy Badger's parse into an object: a name keeps the place of
 * its first appearance and the value of its last. */
struct cookie_set {
    struct cookie_view v[COOKIE_NAMES_MAX];
    size_t n;
};

static int on_pair(void *arg, const char *name, size_t nlen, const char *val, size_t vlen)
{
    struct cookie_set *set = arg;
    struct cookie_view *c;

    /* Cloudflare's bot-management cookie, exactly as Privacy Badger names it. */
    if (nlen == 7 && memcmp(name, "__cf_bm", 7) == 0)
        return 0;
    for (size_t i = 0; i < set->n; i++) {
        c = &set->v[i];
        if (c->nlen == nlen && memcmp(c->name, name, nlen) == 0) {
            c->val = val;
            c->vlen = vlen;
            return 0;
        }
    }
    if (set->n == COOKIE_NAMES_MAX)
        return 0;
    c = &set->v[set->n++];
    c->name = name;
    c->nlen = nlen;
    c->val = val;
    c->vlen = vlen;
    return 0;
}

static bool is_cookie_header(const struct brock_header *h)
{
    return h->name && ((h->name_len == 6 && strncasecmp(h->name, "cookie", 6) == 0) ||
                       (h->name_len == 10 && strncasecmp(h->name, "set-cookie", 10) == 0));
}

static void copy_name(char *out, size_t size, const char *name, size_t n)
{
    if (!out || size == 0)
        return;
    if (n > size - 1)
        n = size - 1;
    memcpy(out, name, n);
    out[n] = '\0';
}

int brock__has_cookie_tracking(const struct brock_header *h, size_t n, char *name, size_t name_size)
{
    struct cookie_set set;
    struct cookie_view over = {0};
    int bits = 0;

    copy_name(name, name_size, "", 0);
    for (size_t i = 0; h && i < n; i++) {
        if (!is_cookie_header(&h[i]) || !h[i].value)
            continue;
        set.n = 0;
        (void)brock__cookie_parse(h[i].value, h[i].value_len, on_pair, &set);
        for (size_t k = 0; k < set.n; k++) {
            int b = brock__cookie_value_bits(set.v[k].val, set.v[k].vlen);
            if (b < 0) {
                copy_name(name, name_size, set.v[k].name, set.v[k].nlen);
                return 1;
            }
            /* Bits are summed over every header; an unknown value anywhere still wins, so
             * the sum is judged only at the end. */
            bits += b;
            if (bits > BROCK__MAX_COOKIE_ENTROPY && !over.name)
                over = set.v[k];
        }
    }
    if (bits <= BROCK__MAX_COOKIE_ENTROPY)
        return 0;
    copy_name(name, name_size, over.name, over.nlen);
    return 1;
}
