/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Host names as the engine compares them: normalised (lower case, IDNA A-labels), reduced to
 * their base domain with the Public Suffix List (libpsl), and tested for third-party-ness the
 * way Privacy Badger does, multi-domain first parties included.
 */
#include "engine/engine.h"
#include "engine/names.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <idn2.h>
#include <libpsl.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "util/alloc.h"
#include "util/hash.h"
#include "util/strmap.h"

/* A Unicode host may be longer in UTF-8 than in its A-label form; past this it cannot fit. */
#define HOST_UTF8_MAX (4 * BROCK_HOST_MAX)

/* ---- the Public Suffix List ---- */

static pthread_once_t psl_once = PTHREAD_ONCE_INIT;
static const psl_ctx_t *psl_ctx;
static char psl_path[PATH_MAX];     /* the file brock_psl_load() read; "" for the system's list */
static uint64_t psl_generation = 1; /* brock_psl_load() is called before other threads run */

/* The names a rule of the list in use sits one label under ("com" for "blogspot.com" and
 * "*.com"...): a name under any other cannot be a public suffix itself, which lets a base
 * domain be told from its parent's (brock__base). Read from the list's text once; not
 * used (psl_parents_ok 0) when that text is not the compiled list's own. */
static pthread_once_t psl_parents_once = PTHREAD_ONCE_INIT;
static struct strmap psl_parents;
static int psl_parents_ok;
static void psl_parents_read(void);

static void psl_parents_none(void)
{
}

/* Debian's list (private section included) when it loads, else libpsl's built-in copy. The
 * context lives as long as the process: every engine and helper shares it. */
static void psl_setup(void)
{
    psl_ctx = psl_latest(NULL);
    if (!psl_ctx)
        psl_ctx = psl_builtin();
}

static const psl_ctx_t *psl_get(void)
{
    pthread_once(&psl_once, psl_setup);
    return psl_ctx;
}

int brock_psl_load(const char *file)
{
    psl_ctx_t *ctx;
    FILE *f = fopen(file, "r");

    /* libpsl accepts an empty or unreadable file as an empty list: check first. */
    if (!f)
        return BROCK_EIO;
    fclose(f);
    ctx = psl_load_file(file);
    if (!ctx || psl_suffix_count(ctx) <= 0) {
        psl_free(ctx);
        return BROCK_EFORMAT;
    }
    pthread_once(&psl_once, psl_setup);
    if (psl_ctx != psl_builtin())
        psl_free((psl_ctx_t *)(uintptr_t)psl_ctx);
    psl_ctx = ctx;
    if ((size_t)snprintf(psl_path, sizeof(psl_path), "%s", file) >= sizeof(psl_path))
        psl_path[0] = '\0'; /* too long to name again: the system's text is read instead */
    psl_generation++;
    /* the parents of the rules now in use, read at once (no other thread runs yet) */
    pthread_once(&psl_parents_once, psl_parents_none);
    psl_parents_read();
    return 0;
}

uint64_t brock__psl_generation(void)
{
    return psl_generation;
}

int brock__is_public_suffix(const char *host)
{
    const psl_ctx_t *psl = psl_get();

    return psl && strchr(host, '.') && !brock__is_ip(host) && !psl_registrable_domain(psl, host);
}

int brock__is_suffix_name(const char *host)
{
    const psl_ctx_t *psl = psl_get();

    /* libpsl reads "1.2.3.4" as a name under "4": an address is asked about first. */
    return psl && !brock__is_ip(host) && !psl_registrable_domain(psl, host);
}

/* The text of the list in use: the file brock_psl_load() read, else the system's, which
 * Debian keeps as public_suffix_list.dat beside the compiled form libpsl loads. */
static FILE *psl_text_open(char *path, size_t n)
{
    const char *dist = psl_dist_filename();
    size_t len;

    pthread_once(&psl_once, psl_setup);
    if (psl_path[0])
        snprintf(path, n, "%s", psl_path);
    else if (dist && (len = strlen(dist)) > 6 && !strcmp(dist + len - 6, ".dafsa"))
        snprintf(path, n, "%.*s.dat", (int)(len - 6), dist);
    else
        snprintf(path, n, "%s", dist ? dist : "");
    if (!path[0]) {
        snprintf(path, n, "the Public Suffix List");
        errno = ENOENT;
        return NULL;
    }
    return fopen(path, "r");
}

int brock__psl_each(int (*fn)(void *arg, const char *suffix), void *arg, char *why, size_t n)
{
    char path[PATH_MAX], line[1024], host[BROCK_HOST_MAX];
    FILE *f = psl_text_open(path, sizeof(path));
    int rc = 0;

    if (!f) {
        snprintf(why, n, "%s: %s", path, strerror(errno));
        return BROCK_EIO;
    }
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        /* A rule is a line's first word; "//" opens a comment. A "*." rule makes every name
         * one label below its rest a suffix: the rest stands for them. A "!" rule takes a
         * name out, which a rule of the rest already covers. */
        char *r = line + strspn(line, " \t");
        size_t len = strcspn(r, " \t\r\n");

        if (len == 0 || !strncmp(r, "//", 2) || r[0] == '!')
            continue;
        if (!strncmp(r, "*.", 2)) {
            r += 2;
            len -= 2;
        }
        if (brock_host_normalize(r, len, host) > 0 && strchr(host, '.'))
            rc = fn(arg, host);
    }
    if (rc == 0 && ferror(f)) {
        snprintf(why, n, "%s: read error", path);
        rc = BROCK_EIO;
    }
    fclose(f);
    return rc;
}

/* Adds to psl_parents every name the rule r (len bytes, as the text has it; "!" taken off
 * first) is under, as written and normalised. libpsl makes the rest of a "*." rule a suffix
 * too, so that rest's parent has a rule under it in effect: every ancestor is kept. */
static int parents_add(const char *r, size_t len)
{
    char host[BROCK_HOST_MAX];
    const char *dot;
    int n;

    if (*r == '!') {
        r++;
        len--;
    }
    while ((dot = memchr(r, '.', len)) != NULL) {
        len -= (size_t)(dot + 1 - r);
        r = dot + 1;
        if (len >= BROCK_HOST_MAX)
            return -1;
        memcpy(host, r, len);
        host[len] = '\0';
        if (strmap_put(&psl_parents, host, &psl_parents) < 0)
            return -1;
        n = brock_host_normalize(r, len, host);
        if (n > 0 && strmap_put(&psl_parents, host, &psl_parents) < 0)
            return -1;
    }
    return 0;
}

static void psl_parents_read(void)
{
    char path[PATH_MAX], line[1024];
    FILE *f;
    int ok = 1;

    strmap_cleanup(&psl_parents, NULL);
    strmap_init(&psl_parents);
    psl_parents_ok = 0;
    pthread_once(&psl_once, psl_setup);
    /* libpsl's built-in copy is not the text beside the system's compiled list */
    if (!psl_ctx || (!psl_path[0] && psl_ctx == psl_builtin()))
        return;
    f = psl_text_open(path, sizeof(path));
    if (!f)
        return;
    while (ok && fgets(line, sizeof(line), f)) {
        char *r = line + strspn(line, " \t");
        size_t len = strcspn(r, " \t\r\n");

        if (len == 0 || !strncmp(r, "//", 2))
            continue;
        ok = parents_add(r, len) == 0;
    }
    if (ferror(f) || !ok) {
        strmap_cleanup(&psl_parents, NULL);
        strmap_init(&psl_parents);
    } else {
        psl_parents_ok = 1;
    }
    fclose(f);
}

/* ---- normalisation ---- */

static bool is_host_byte(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
}

/* An IPv6 literal (without brackets) in canonical text form, or BROCK_EINVAL. */
static int normalize_ipv6(const char *s, size_t len, char *out)
{
    char tmp[INET6_ADDRSTRLEN + 1];
    struct in6_addr a;

    if (len >= sizeof(tmp))
        return BROCK_EINVAL;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    if (inet_pton(AF_INET6, tmp, &a) != 1 || !inet_ntop(AF_INET6, &a, out, BROCK_HOST_MAX))
        return BROCK_EINVAL;
    return (int)strlen(out);
}

/* The ASCII path: no allocation. Only letters, digits, '-', '_' and dots between non-empty
 * labels pass, so a normalised host is safe to put in a file, a query or a page as it is. */
static int normalize_ascii(const char *s, size_t len, char *out)
{
    size_t label = 0;

    if (memchr(s, ':', len))
        return normalize_ipv6(s, len, out);
    if (len == 0 || len > HOSTNAME_LEN_MAX)
        return BROCK_EINVAL;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!is_host_byte(c))
            return BROCK_EINVAL;
        if (c == '.') {
            if (label == 0)
                return BROCK_EINVAL;
            label = 0;
        } else {
            label++;
        }
        out[i] = (char)(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    }
    if (label == 0)
        return BROCK_EINVAL;
    out[len] = '\0';
    return (int)len;
}

/* Browsers map hosts with UTS #46 non-transitional processing (so "ß" stays "ß"); libidn2
 * does the same mapping, lower-casing and NFC included. */
static int normalize_unicode(const char *s, size_t len, char *dst)
{
    char in[HOST_UTF8_MAX];
    char *ace = NULL;
    int n = BROCK_EINVAL;

    if (len >= sizeof(in) || memchr(s, '\0', len))
        return BROCK_EINVAL;
    memcpy(in, s, len);
    in[len] = '\0';
    if (idn2_to_ascii_8z(in, &ace, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL) != IDN2_OK)
        goto out;
    /* The mapping can turn other dots into '.' and leave a trailing one behind. */
    len = strlen(ace);
    if (len > 0 && ace[len - 1] == '.')
        len--;
    if (memchr(ace, ':', len))
        goto out;
    n = normalize_ascii(ace, len, dst);
out:
    idn2_free(ace);
    return n;
}

static bool has_non_ascii(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)s[i] >= 0x80)
            return true;
    return false;
}

/* What normalize_plain() writes for each byte: letters lower-cased, digits, '-', '_' and '.'
 * as they are, 0 for every other byte. */
static const unsigned char plain_byte[256] = {
    ['-'] = '-', ['.'] = '.', ['_'] = '_', ['0'] = '0', ['1'] = '1', ['2'] = '2', ['3'] = '3',
    ['4'] = '4', ['5'] = '5', ['6'] = '6', ['7'] = '7', ['8'] = '8', ['9'] = '9', ['a'] = 'a',
    ['b'] = 'b', ['c'] = 'c', ['d'] = 'd', ['e'] = 'e', ['f'] = 'f', ['g'] = 'g', ['h'] = 'h',
    ['i'] = 'i', ['j'] = 'j', ['k'] = 'k', ['l'] = 'l', ['m'] = 'm', ['n'] = 'n', ['o'] = 'o',
    ['p'] = 'p', ['q'] = 'q', ['r'] = 'r', ['s'] = 's', ['t'] = 't', ['u'] = 'u', ['v'] = 'v',
    ['w'] = 'w', ['x'] = 'x', ['y'] = 'y', ['z'] = 'z', ['A'] = 'a', ['B'] = 'b', ['C'] = 'c',
    ['D'] = 'd', ['E'] = 'e', ['F'] = 'f', ['G'] = 'g', ['H'] = 'h', ['I'] = 'i', ['J'] = 'j',
    ['K'] = 'k', ['L'] = 'l', ['M'] = 'm', ['N'] = 'n', ['O'] = 'o', ['P'] = 'p', ['Q'] = 'q',
    ['R'] = 'r', ['S'] = 's', ['T'] = 't', ['U'] = 'u', ['V'] = 'v', ['W'] = 'w', ['X'] = 'x',
    ['Y'] = 'y', ['Z'] = 'z',
};

/* Eight bytes at a time: a byte's top bit in BYTES_HIGH, one in each byte in BYTES_LOW. */
#define BYTES_LOW 0x0101010101010101ULL
#define BYTES_HIGH 0x8080808080808080ULL

/* The top bit of each byte of x (every byte under 0x80) in [lo, hi] (hi under 0x80): a byte
 * with its top bit set less lo (or hi + 1) keeps it when it is at least lo (hi + 1), and
 * never borrows from the next. */
static inline uint64_t bytes_in(uint64_t x, uint64_t lo, uint64_t hi)
{
    uint64_t y = x | BYTES_HIGH;

    return (y - lo * BYTES_LOW) & ~(y - (hi + 1) * BYTES_LOW) & BYTES_HIGH;
}

/* Whether the eight bytes in x are each their own normal form (lower-case letters, digits,
 * '-', '_' and '.'), no two dots side by side. */
static inline bool plain_lower_word(uint64_t x)
{
    uint64_t dots;

    if (x & BYTES_HIGH)
        return false;
    dots = bytes_in(x, '.', '.');
    return (bytes_in(x, 'a', 'z') | bytes_in(x, '0', '9') | bytes_in(x, '-', '.') |
            bytes_in(x, '_', '_')) == BYTES_HIGH &&
           !(dots & (dots << 8));
}

#ifdef __SSE2__
/* The bytes of x in [lo, hi] (both under 0x80), 0xff each: a byte of 0x80 or more is
 * negative to the signed comparisons, under lo. */
static inline __m128i bytes_in16(__m128i x, char lo, char hi)
{
    return _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8((char)(lo - 1))),
                         _mm_cmplt_epi8(x, _mm_set1_epi8((char)(hi + 1))));
}

/* plain_lower_word() for the sixteen bytes at s. */
static inline bool plain_lower_16(const char *s)
{
    __m128i x = _mm_loadu_si128((const void *)s);
    __m128i ok = _mm_or_si128(_mm_or_si128(bytes_in16(x, 'a', 'z'), bytes_in16(x, '0', '9')),
                              _mm_or_si128(bytes_in16(x, '-', '.'), bytes_in16(x, '_', '_')));
    unsigned dots = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('.')));

    return _mm_movemask_epi8(ok) == 0xffff && !(dots & (dots >> 1));
}
#endif

/* A name of eight bytes or more that is its own normal form, as normalize_plain() reads it,
 * checked a word at a time and copied whole; -1 for any other, which normalize_plain() then
 * reads byte by byte. The last word overlaps the one before it, so no two dots side by side
 * escape: a pair is in one word, or across two whole words, where it is looked at. */
static int plain_lower_words(const char *s, size_t len, char *out)
{
    uint64_t x;
    size_t i;

    if (len < 8 || len > HOSTNAME_LEN_MAX || s[0] == '.' || s[len - 1] == '.')
        return -1;
    for (i = 0; i + 8 <= len; i += 8) {
        memcpy(&x, s + i, 8);
        if (!plain_lower_word(x) || (i && s[i - 1] == '.' && s[i] == '.'))
            return -1;
    }
    if (i < len) {
        memcpy(&x, s + len - 8, 8);
        if (!plain_lower_word(x))
            return -1;
    }
    memcpy(out, s, len);
    out[len] = '\0';
    return (int)len;
}

/* The same for a name of sixteen bytes or more, sixteen at a time with SSE2; -1 for any
 * other, and always without SSE2. */
static int plain_lower_sse2(const char *s, size_t len, char *out)
{
#ifdef __SSE2__
    size_t i;

    if (len < 16 || len > HOSTNAME_LEN_MAX || s[0] == '.' || s[len - 1] == '.')
        return -1;
    for (i = 0; i + 16 <= len; i += 16)
        if (!plain_lower_16(s + i) || (i && s[i - 1] == '.' && s[i] == '.'))
            return -1;
    if (i < len && !plain_lower_16(s + len - 16))
        return -1;
    memcpy(out, s, len);
    out[len] = '\0';
    return (int)len;
#else
    (void)s;
    (void)len;
    (void)out;
    return -1;
#endif
}

static int plain_lower_copy(const char *s, size_t len, char *out)
{
#ifdef __SSE2__
    if (len >= 16)
        return plain_lower_sse2(s, len, out);
#endif
    return plain_lower_words(s, len, out);
}

/* The common case in one pass, byte by byte: letters, digits, '-', '_' and dots between
 * non-empty labels, nothing else. Returns the length, or -1 for anything else (brackets, a
 * colon, a trailing dot, non-ASCII, an error), which the full path then decides. One table
 * look-up a byte; the labels are checked by where the last dot was. */
static int plain_bytes(const char *s, size_t len, char *out)
{
    size_t dot = (size_t)-1; /* where the label before the current one ended */

    if (len == 0 || len > HOSTNAME_LEN_MAX)
        return -1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = plain_byte[(unsigned char)s[i]];

        if (!c)
            return -1;
        if (c == '.') {
            if (i == dot + 1)
                return -1;
            dot = i;
        }
        out[i] = (char)c;
    }
    if (dot == len - 1)
        return -1;
    out[len] = '\0';
    return (int)len;
}

/* A name already in its normal form a word (or sixteen bytes) at a time, else byte by byte;
 * -1 as plain_bytes(). */
static int normalize_plain(const char *s, size_t len, char *out)
{
    int n;

    if ((n = plain_lower_copy(s, len, out)) >= 0)
        return n;
    return plain_bytes(s, len, out);
}

/* The reference every fast path above stands in for: brackets, a trailing dot, non-ASCII
 * and the ASCII rules, each read by the plain code. */
static int normalize_full(const char *host, size_t len, char *out)
{
    int n;

    if (len > 0 && host[0] == '[') {
        if (len < 2 || host[len - 1] != ']')
            return BROCK_EINVAL;
        n = normalize_ipv6(host + 1, len - 2, out);
    } else {
        if (len > 0 && host[len - 1] == '.')
            len--;
        if (has_non_ascii(host, len))
            n = normalize_unicode(host, len, out);
        else
            n = normalize_ascii(host, len, out);
    }
    return n;
}

int brock_host_normalize(const char *host, size_t len, char *out)
{
    int n;

    if (!out)
        return BROCK_EINVAL;
    out[0] = '\0';
    if (!host)
        return BROCK_EINVAL;
    if ((n = normalize_plain(host, len, out)) >= 0)
        return n;
    out[0] = '\0';
    if ((n = normalize_full(host, len, out)) < 0)
        out[0] = '\0';
    return n;
}

int brock__host_normalize_by(enum brock__norm_path path, const char *host, size_t len, char *out)
{
    int n = -1;

    out[0] = '\0';
    switch (path) {
    case BROCK__NORM_FULL: n = normalize_full(host, len, out); break;
    case BROCK__NORM_BYTES: n = plain_bytes(host, len, out); break;
    case BROCK__NORM_WORDS: n = plain_lower_words(host, len, out); break;
    case BROCK__NORM_SSE2: n = plain_lower_sse2(host, len, out); break;
    }
    if (n < 0)
        out[0] = '\0';
    return n;
}

/* ---- base domains ---- */

/* brock_base_domain(), telling in *is_ps whether host is a public suffix itself. */
static int base_domain(const char *host, char *out, int *is_ps)
{
    const psl_ctx_t *psl;
    const char *base;
    size_t len;

    *is_ps = 0;
    if (!out)
        return BROCK_EINVAL;
    out[0] = '\0';
    if (!host)
        return BROCK_EINVAL;
    len = strlen(host);
    if (len > 0 && host[len - 1] == '.')
        len--;
    if (len == 0 || len >= BROCK_HOST_MAX)
        return BROCK_EINVAL;
    memcpy(out, host, len);
    out[len] = '\0';
    if (brock__is_ip(out))
        return (int)len;
    psl = psl_get();
    if (!psl)
        return BROCK_ENOENT;
    /* NULL for a public suffix: Privacy Badger makes such a name its own base. The answer
     * is always a tail of the name, so it can move down within out. */
    base = psl_registrable_domain(psl, out);
    *is_ps = base == NULL;
    if (base && base != out) {
        size_t blen = strlen(base);
        memmove(out, base, blen + 1);
        len = blen;
    }
    return (int)len;
}

int brock_base_domain(const char *host, char *out)
{
    int is_ps;

    return base_domain(host, out, &is_ps);
}

void brock__base_domain(const char *host, char *out)
{
    if (brock_base_domain(host, out) < 0) {
        /* out holds what could be told: "" for no name, the name itself without a list. */
    }
}

/* ---- third parties ---- */

static size_t strip_dot(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && s[n - 1] == '.' ? n - 1 : n;
}

/* isThirdParty once the site's base is known: a request host is first party when it is the
 * base or ends with "." + base. */
static int third_party_of_base(const char *req, size_t rlen, const char *base, size_t blen)
{
    if (rlen > blen)
        return !(req[rlen - blen - 1] == '.' && memcmp(req + rlen - blen, base, blen) == 0);
    return !(rlen == blen && memcmp(req, base, blen) == 0);
}

int brock__is_third_party(const char *request_host, const char *site_host)
{
    char site[BROCK_HOST_MAX], base[BROCK_HOST_MAX];
    size_t rlen, slen;
    int n;

    if (!request_host || !*request_host || !site_host || !*site_host)
        return 1;
    rlen = strip_dot(request_host);
    slen = strip_dot(site_host);
    if (rlen == slen && memcmp(request_host, site_host, rlen) == 0)
        return 0;
    if (slen >= sizeof(site))
        return 1;
    memcpy(site, site_host, slen);
    site[slen] = '\0';
    n = brock_base_domain(site, base);
    if (n < 0)
        return 1;
    return third_party_of_base(request_host, rlen, base, (size_t)n);
}

int brock__is_mdfp(const struct brock_engine *e, const char *base_a, const char *base_b)
{
    void *ga, *gb;

    if (!e || !base_a || !base_b)
        return 0;
    ga = strmap_get(&e->lists.mdfp, base_a);
    if (!ga)
        return 0;
    gb = strmap_get(&e->lists.mdfp, base_b);
    return ga == gb;
}

int brock__is_third_party_domain(const struct brock_engine *e, const char *a, const char *b)
{
    const char *base_b;

    if (!a || !*a || !b || !*b)
        return 1;
    base_b = brock__base(e, b);
    return brock__is_third_party_bases(e, a, strlen(a), NULL, b, strlen(b), base_b);
}

int brock__is_third_party_bases(const struct brock_engine *e, const char *a, size_t alen,
                                const char *base_a, const char *b, size_t blen, const char *base_b)
{
    if (alen == blen && !memcmp(a, b, alen))
        return 0;
    if (!*base_b)
        return 1;
    if (!third_party_of_base(a, alen, base_b, strlen(base_b)))
        return 0;
    if (!base_a)
        base_a = brock__base(e, a);
    return !*base_a || !brock__is_mdfp(e, base_a, base_b);
}

/* ---- the per-engine base domain cache ---- */

/* libpsl's lookup costs about a microsecond; a decision needs two or three base domains, so a
 * cache of recent hosts keeps decisions well under that: sets of BASE_CACHE_WAYS slots, a
 * cache line each, so that two hosts libpsl was asked for whose hashes pick one set do not
 * push each other out in turn, each then asked again every other time. A slot remembers a
 * host by its 64-bit keyed hash and length, and its base by offset: the base is always a
 * tail of the host. A host not in it whose parent is (or can be worked out so), is no public
 * suffix and has no rule one label under it, has its parent's base: the first name in a new
 * site costs one lookup, its other hosts none. */
struct brock__base_slot {
    uint64_t hash;
    uint16_t len; /* host length + 1; 0: empty */
    uint16_t off;
    uint8_t is_ps; /* whether the host is a public suffix (its own base): PS_* */
    uint8_t asked; /* whether libpsl was asked (else the base came from the parent's) */
};

#define BASE_CACHE_SLOTS 65536
#define BASE_CACHE_WAYS 4

_Static_assert(sizeof(struct brock__base_slot) * BASE_CACHE_WAYS == 64, "a set is a line");

struct brock__base_cache {
    struct brock__base_slot slot[BASE_CACHE_SLOTS];
    uint64_t asked; /* how often libpsl was asked (unit tests watch it) */
};

int brock__base_cache_init(struct brock_engine *e)
{
    e->base_cache = mem_calloc(1, sizeof(*e->base_cache));
    e->psl_gen = psl_generation;
    return e->base_cache ? 0 : BROCK_ENOMEM;
}

uint64_t brock__psl_asked(const struct brock_engine *e)
{
    return e->base_cache ? e->base_cache->asked : 0;
}

void brock__psl_check(struct brock_engine *e)
{
    if (e->psl_gen == psl_generation)
        return;
    if (e->base_cache)
        memset(e->base_cache->slot, 0, sizeof(e->base_cache->slot));
    e->psl_gen = psl_generation;
    brock__answers_forget(e);
}

void brock__base_cache_free(struct brock_engine *e)
{
    mem_free(e->base_cache);
    e->base_cache = NULL;
}

/* Whether host (len bytes) is a plain ASCII name of two labels or more whose base libpsl
 * alone decides: letters, digits, '-' and '_', no A-label (libpsl reads those as the Unicode
 * they stand for), and a last label that starts with a letter. One that starts with a digit
 * may make the name an IPv4 address (every form Privacy Badger reads as one ends so), whose
 * base is the whole address whatever its parent's is, and a parent that is an address is
 * not the public suffix libpsl would call it: such names go to the plain path. */
static int plain_name(const char *host, size_t len)
{
    const char *dot = memchr(host, '.', len), *last;

    if (!dot || dot == host || host[len - 1] == '.')
        return 0;
    last = (const char *)memrchr(host, '.', len) + 1;
    if (*last >= '0' && *last <= '9')
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)host[i];

        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
              (c == '.' && host[i + 1] != '.')))
            return 0;
        if (c == 'x' && (i == 0 || host[i - 1] == '.') && len - i >= 4 &&
            !memcmp(host + i, "xn--", 4))
            return 0;
    }
    return 1;
}

/* Whether a cached host is a public suffix: not known when its base came from its parent's
 * being one (its base is itself either way). */
enum { PS_NO, PS_YES, PS_UNKNOWN };

/* The slot of e's cache that holds the host of hash h and length len, or NULL; *set is the
 * set the hash picks (NULL: no cache to use). */
static inline struct brock__base_slot *base_cache_find(const struct brock_engine *e, uint64_t h,
                                                       size_t len, struct brock__base_slot **set)
{
    struct brock__base_slot *s;

    *set = NULL;
    if (!e->base_cache || e->plain)
        return NULL;
    s = *set = &e->base_cache->slot[h & (BASE_CACHE_SLOTS - BASE_CACHE_WAYS)];
    for (size_t w = 0; w < BASE_CACHE_WAYS; w++)
        if (s[w].hash == h && s[w].len == len + 1)
            return &s[w];
    return NULL;
}

static int base_off(const struct brock_engine *e, const char *host, size_t len, int *is_ps,
                    int need_ps);

/* The base of a plain name (plain_name()) worked out from its parent's, as base_off() says;
 * -1 when libpsl must be asked. *is_ps is set only to PS_UNKNOWN, for a parent that is a
 * public suffix. */
static inline int base_from_parent(const struct brock_engine *e, const char *host, size_t len,
                                   int *is_ps, int need_ps)
{
    const char *parent = (const char *)memchr(host, '.', len) + 1;
    size_t plen = len - (size_t)(parent - host);
    int parent_ps, poff;

    pthread_once(&psl_parents_once, psl_parents_read);
    if (!psl_parents_ok || (poff = base_off(e, parent, plen, &parent_ps, 1)) < 0)
        return -1;
    if (parent_ps == PS_YES && !need_ps) {
        *is_ps = PS_UNKNOWN;
        return 0;
    }
    if (parent_ps == PS_NO && !strmap_getn(&psl_parents, parent, plen))
        return poff + (int)(parent - host);
    return -1;
}

/* Keeps the base of host (hash h, len bytes) in set: in the host's own slot, else an empty
 * one. A base worked out from the parent's costs a look-up to work out again, one libpsl
 * answered (asked) costs libpsl: the first takes only a slot of its kind, the second any:
 * one of the first kind, else the one its hash names. A stream of new hosts under a few
 * sites then leaves their parents' bases in place. */
static inline void base_cache_put(struct brock__base_slot *set, struct brock__base_slot *slot,
                                  uint64_t h, size_t len, int off, int is_ps, int asked)
{
    for (size_t w = 0; !slot && w < BASE_CACHE_WAYS; w++)
        if (!set[w].len)
            slot = &set[w];
    for (size_t w = 0; !slot && w < BASE_CACHE_WAYS; w++)
        if (!set[w].asked)
            slot = &set[w];
    if (!slot && asked)
        slot = &set[(h >> 32) & (BASE_CACHE_WAYS - 1)];
    if (slot) {
        slot->hash = h;
        slot->len = (uint16_t)(len + 1);
        slot->off = (uint16_t)off;
        slot->is_ps = (uint8_t)is_ps;
        slot->asked = (uint8_t)asked;
    }
}

/* The base of host (len bytes, 0 < len < BROCK_HOST_MAX, NUL-terminated) as its offset in
 * host; *is_ps tells whether host is a public suffix (PS_*; never PS_UNKNOWN when need_ps).
 * -1 when it has none (the caller gives ""). libpsl's answer is the name before the longest
 * suffix of host that is a public suffix, or host when it is one itself; so, for a plain
 * name, when its parent is a suffix the answer is host, and when its parent is not one and
 * no rule can make host one, the answer is its parent's. */
static int base_off(const struct brock_engine *e, const char *host, size_t len, int *is_ps,
                    int need_ps)
{
    char tmp[BROCK_HOST_MAX];
    uint64_t h = hash_final(hash_mix(e->actions.seed ^ 0xcbf29ce484222325ULL, host, len));
    struct brock__base_slot *set, *slot = base_cache_find(e, h, len, &set);
    int off = -1, asked = 0;

    if (slot && !(need_ps && slot->is_ps == PS_UNKNOWN)) {
        *is_ps = slot->is_ps;
        return slot->off;
    }
    *is_ps = PS_NO;
    if (set && plain_name(host, len))
        off = base_from_parent(e, host, len, is_ps, need_ps);
    if (off < 0) {
        int n = base_domain(host, tmp, is_ps);

        if (n <= 0 || (size_t)n > len)
            return -1;
        off = (int)(len - (size_t)n);
        asked = 1;
        if (set)
            e->base_cache->asked++;
    }
    if (set)
        base_cache_put(set, slot, h, len, off, *is_ps, asked);
    return off;
}

const char *brock__base(const struct brock_engine *e, const char *host)
{
    return brock__base_len(e, host, strlen(host));
}

const char *brock__base_len(const struct brock_engine *e, const char *host, size_t len)
{
    int is_ps, off;

    if (len == 0 || len >= BROCK_HOST_MAX)
        return host + len;
    off = base_off(e, host, len, &is_ps, 0);
    return off < 0 ? host + len : host + off;
}
