/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Base domains and third parties (src/engine/domain.c): Privacy Badger's cases from its
 * rules, section 1, and the Public Suffix List's own test vectors. Normalising a host and a
 * URL's host: test_normalize.c.
 */
#include "test.h"

#include <pthread.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/names.h"
#include "util/hash.h"

/* ---- brock_base_domain ---- */

static void check_base(const char *host, const char *want)
{
    char out[BROCK_HOST_MAX];
    int n = brock_base_domain(host, out);

    if (n < 0)
        fail_msg("no base for \"%s\" (%d)", host, n);
    if (strcmp(out, want) != 0)
        fail_msg("base of \"%s\" is \"%s\", want \"%s\"", host, out, want);
    assert_int_equal(n, strlen(want));
}

static void test_base_domain(void **state)
{
    char out[BROCK_HOST_MAX];

    (void)state;
    /* Privacy Badger's cases (its rules, section 1.2). */
    check_base("com", "com");
    check_base("www.example.bl.uk", "bl.uk");
    check_base("1.2.3.4.bg", "3.4.bg");
    check_base("1.2.3", "2.3");
    check_base("foo.bar.2001::7334", "bar.2001::7334");
    check_base("ajax.googleapis.com", "ajax.googleapis.com");
    check_base("x.cloudfront.net", "x.cloudfront.net");
    check_base("efforg.github.io", "efforg.github.io");
    check_base("example.googlecode.com", "example.googlecode.com");
    check_base("1.2.3.4", "1.2.3.4");
    /* Public suffixes are their own base; libpsl would have none. */
    check_base("co.uk", "co.uk");
    check_base("github.io", "github.io");
    check_base("www.bbc.co.uk", "bbc.co.uk");
    check_base("static.bbc.co.uk", "bbc.co.uk");
    check_base("a.b.example.com", "example.com");
    check_base("example.com.", "example.com");
    check_base("xn--bcher-kva.de", "xn--bcher-kva.de");
    check_base("www.xn--bcher-kva.de", "xn--bcher-kva.de");
    /* IP addresses are their own base, whatever libpsl would make of them. */
    check_base("10.0.0.1", "10.0.0.1");
    check_base("0x7f000001", "0x7f000001");
    check_base("0x7f.0.0.1", "0x7f.0.0.1");
    check_base("12345", "12345");
    check_base("2001:db8::1", "2001:db8::1");
    check_base("::1", "::1");
    check_base("localhost", "localhost");
    /* A base always fits where it came from: the longest host gives a shorter base. */
    memset(out, 'x', sizeof(out));
    assert_int_equal(brock_base_domain(NULL, out), BROCK_EINVAL);
    assert_string_equal(out, "");
    assert_int_equal(brock_base_domain("", out), BROCK_EINVAL);
    assert_int_equal(brock_base_domain(".", out), BROCK_EINVAL);
    assert_int_equal(brock_base_domain("com", NULL), BROCK_EINVAL);
}

/* The Public Suffix List's vectors. "null" as input is no host at all; an input with a
 * leading dot is not a host and brock_host_normalize() refuses it; any other input whose
 * expected registrable domain is null is a public suffix, and Privacy Badger (so brock) makes
 * it its own base. That last choice is checked two ways: the base is the host itself, and
 * one label more makes a name that is its own base too, which only holds below a suffix. */
static void test_psl_vectors(void **state)
{
    FILE *f = fopen(test_data("publicsuffix-tests/tests.txt"), "r");
    char line[512];
    int vectors = 0, nulls = 0, refused = 0;

    (void)state;
    if (!f)
        fail_msg("cannot open %s", test_data("publicsuffix-tests/tests.txt"));
    while (fgets(line, sizeof(line), f)) {
        char in[256], want[256], host[BROCK_HOST_MAX], base[BROCK_HOST_MAX];
        char wnorm[BROCK_HOST_MAX], longer[BROCK_HOST_MAX + 2];
        int n;

        if (line[0] == '\n' || strncmp(line, "//", 2) == 0)
            continue;
        if (sscanf(line, "%255s %255s", in, want) != 2)
            fail_msg("bad vector line: %s", line);
        vectors++;
        if (strcmp(in, "null") == 0) {
            assert_int_equal(brock_host_normalize(NULL, 0, host), BROCK_EINVAL);
            assert_int_equal(brock_base_domain(NULL, base), BROCK_EINVAL);
            refused++;
            continue;
        }
        n = brock_host_normalize(in, strlen(in), host);
        if (in[0] == '.') {
            assert_string_equal(want, "null");
            if (n != BROCK_EINVAL)
                fail_msg("\"%s\" was accepted as \"%s\"", in, host);
            refused++;
            continue;
        }
        if (n < 0)
            fail_msg("vector \"%s\": host refused", in);
        n = brock_base_domain(host, base);
        assert_true(n > 0);
        if (strcmp(want, "null") == 0) {
            if (strcmp(base, host) != 0)
                fail_msg("vector \"%s\" (a public suffix): base \"%s\"", in, base);
            snprintf(longer, sizeof(longer), "x.%s", host);
            assert_true(brock_base_domain(longer, base) > 0);
            if (strcmp(base, longer) != 0)
                fail_msg("vector \"%s\": \"%s\" has base \"%s\"", in, longer, base);
            nulls++;
            continue;
        }
        assert_true(brock_host_normalize(want, strlen(want), wnorm) > 0);
        if (strcmp(base, wnorm) != 0)
            fail_msg("vector \"%s\": base \"%s\", want \"%s\" (%s)", in, base, want, wnorm);
    }
    fclose(f);
    assert_int_equal(vectors, 78);
    assert_int_equal(refused, 5);
    assert_int_equal(nulls, 21);
}

/* The engine's base domains (brock__base: a cache, and a name's base told from its parent's
 * when no rule can make the name a suffix) are libpsl's, for every rule of the list in use
 * and the names one, two and three labels under it, asked from the top down for some rules
 * and from the bottom up for others; and for the names under an exception. */
struct base_walk {
    struct brock_engine *e;
    size_t n, checked;
};

static void check_engine_base(struct base_walk *w, const char *host)
{
    char want[BROCK_HOST_MAX];
    const char *got = brock__base(w->e, host);

    if (brock_base_domain(host, want) < 0)
        want[0] = '\0';
    if (strcmp(got, want) != 0)
        fail_msg("\"%s\": the engine's base is \"%s\", libpsl's \"%s\"", host, got, want);
    w->checked++;
}

static int base_walk_rule(void *arg, const char *suffix)
{
    static const char *const under[] = {"", "a.", "b.a.", "c.b.a."};
    struct base_walk *w = arg;
    char host[BROCK_HOST_MAX + 8];

    for (int k = 0; k < 4; k++) {
        int i = w->n % 2 ? 3 - k : k;

        snprintf(host, sizeof(host), "%s%s", under[i], suffix);
        if (strlen(host) < BROCK_HOST_MAX)
            check_engine_base(w, host);
    }
    w->n++;
    return 0;
}

static void test_engine_base_is_libpsl(void **state)
{
    static const char *const exceptions[] = {"www.ck", "a.www.ck", "b.a.www.ck", "x.ck",
                                             "a.x.ck", "nom.br",   "a.nom.br",   "b.a.nom.br"};
    struct base_walk w = {test_engine_open(NULL, NULL, 1), 0, 0};
    char why[256];

    (void)state;
    assert_int_equal(brock__psl_each(base_walk_rule, &w, why, sizeof(why)), 0);
    for (size_t i = 0; i < sizeof(exceptions) / sizeof(exceptions[0]); i++)
        check_engine_base(&w, exceptions[i]);
    for (size_t i = sizeof(exceptions) / sizeof(exceptions[0]); i-- > 0;)
        check_engine_base(&w, exceptions[i]);
    assert_true(w.checked > 20000);
    brock_engine_free(w.e);
}

/* Names where a fast path could part from the plain one: IPv4 addresses in every form
 * Privacy Badger reads, dotted numbers that are not addresses, names under an address,
 * IPv6, numeric and hex-looking labels, punycode, public suffixes and names under
 * wildcards and exceptions. Each with its base as Privacy Badger gives it (section 1.2). */
static const struct {
    const char *host, *base;
} tricky[] = {
    {"1.2.3.4", "1.2.3.4"},
    {"2.2.3.4", "2.2.3.4"},
    {"10.0.0.1", "10.0.0.1"},
    {"255.255.255.255", "255.255.255.255"},
    {"1.2.0x3.0x4", "1.2.0x3.0x4"},
    {"0x7f.0.0.1", "0x7f.0.0.1"},
    {"0177.0.0.01", "0177.0.0.01"},
    {"1.2.3.0xab", "1.2.3.0xab"},
    {"0x7f000001", "0x7f000001"},
    {"12345", "12345"},
    {"1.2.3", "2.3"},
    {"2.3", "2.3"},
    {"3", "3"},
    {"a.1.2.3.4", "3.4"},
    {"1.2.3.4.5", "4.5"},
    {"256.1.1.1", "1.1"},
    {"1.2.3.4.bg", "3.4.bg"},
    {"x.3.4.bg", "3.4.bg"},
    {"foo.1e100.net", "1e100.net"},
    {"a.b.123abc", "b.123abc"},
    {"www.0x12.example", "0x12.example"},
    {"::1", "::1"},
    {"2001:db8::1", "2001:db8::1"},
    {"com", "com"},
    {"example.com", "example.com"},
    {"www.example.com", "example.com"},
    {"a.b.c.example.co.uk", "example.co.uk"},
    {"co.uk", "co.uk"},
    {"x.github.io", "x.github.io"},
    {"a.x.github.io", "x.github.io"},
    {"www.ck", "www.ck"},
    {"a.www.ck", "www.ck"},
    {"x.ck", "x.ck"},
    {"a.x.ck", "a.x.ck"},
    {"xn--bcher-kva.de", "xn--bcher-kva.de"},
    {"www.xn--bcher-kva.de", "xn--bcher-kva.de"},
    {"a.b.xn--p1ai", "b.xn--p1ai"},
    {"localhost", "localhost"},
    {"a_b.example.com", "example.com"},
};

#define TRICKY_N (sizeof(tricky) / sizeof(tricky[0]))

static void check_engine_tricky(struct brock_engine *e, size_t i)
{
    char want[BROCK_HOST_MAX];
    const char *got = brock__base(e, tricky[i].host);

    assert_true(brock_base_domain(tricky[i].host, want) > 0);
    if (strcmp(want, tricky[i].base) != 0)
        fail_msg("\"%s\": libpsl's base is \"%s\", want \"%s\"", tricky[i].host, want,
                 tricky[i].base);
    if (strcmp(got, want) != 0)
        fail_msg("\"%s\": the engine's base is \"%s\", libpsl's \"%s\"", tricky[i].host, got, want);
}

/* The engine's base of each tricky name is libpsl's and Privacy Badger's, however the cache
 * was filled: each name alone, all of them top down, bottom up, and each after its parents
 * and grandparents were asked (which is where a base told from a parent's could go wrong). */
static void test_engine_base_tricky(void **state)
{
    struct brock_engine *e;

    (void)state;
    for (size_t i = 0; i < TRICKY_N; i++) {
        e = test_engine_open(NULL, NULL, 1);
        check_engine_tricky(e, i);
        brock_engine_free(e);
    }
    e = test_engine_open(NULL, NULL, 1);
    for (size_t i = 0; i < TRICKY_N; i++)
        check_engine_tricky(e, i);
    for (size_t i = TRICKY_N; i-- > 0;)
        check_engine_tricky(e, i);
    brock_engine_free(e);
    for (size_t i = 0; i < TRICKY_N; i++) {
        const char *p = tricky[i].host;
        char want[BROCK_HOST_MAX];

        e = test_engine_open(NULL, NULL, 1);
        /* the parents, shortest first */
        for (const char *q = strrchr(p, '.'); q; q = memrchr(p, '.', (size_t)(q - p))) {
            if (brock_base_domain(q + 1, want) <= 0)
                continue;
            if (strcmp(brock__base(e, q + 1), want) != 0)
                fail_msg("\"%s\": the engine's base is \"%s\", libpsl's \"%s\"", q + 1,
                         brock__base(e, q + 1), want);
        }
        check_engine_tricky(e, i);
        brock_engine_free(e);
    }
}

/* The engine's third-party test (bases from the cache, compared as lengths) is Privacy
 * Badger's isThirdParty on every pair of tricky names, and two addresses are two parties. */
static void test_engine_third_party_tricky(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    (void)state;
    for (size_t i = 0; i < TRICKY_N; i++)
        for (size_t j = 0; j < TRICKY_N; j++) {
            const char *a = tricky[i].host, *b = tricky[j].host;
            int want = brock__is_third_party(a, b);

            if (brock__is_third_party_domain(e, a, b) != want)
                fail_msg("\"%s\" on \"%s\": the engine says %s party", a, b,
                         want ? "first" : "third");
        }
    assert_int_equal(brock__is_third_party_domain(e, "1.2.3.4", "2.2.3.4"), 1);
    assert_int_equal(brock__is_third_party_domain(e, "1.2.3.4", "1.2.3.4"), 0);
    assert_int_equal(brock__is_third_party_domain(e, "x.1.2.3.4", "1.2.3.4"), 0);
    brock_engine_free(e);
}

/* Two names libpsl is asked about whose hashes pick one slot of the base cache (as domain.c
 * hashes them) are both kept: asked again, libpsl is not. A cache of one slot a hash had
 * each push the other out. */
static void test_base_cache_keeps_both(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    static unsigned first[65536];
    char a[16] = "", b[16] = "";
    uint64_t asked;

    (void)state;
    memset(first, 0xff, sizeof(first));
    /* one label: no parent to tell its base from, so libpsl is asked */
    for (unsigned i = 0; i < 100000 && !*b; i++) {
        char name[16];
        uint64_t h;
        size_t slot;

        snprintf(name, sizeof(name), "q%05u", i);
        h = hash_final(hash_mix(e->actions.seed ^ 0xcbf29ce484222325ULL, name, 6));
        slot = (size_t)(h & 65535);
        if (first[slot] == 0xffffffffu) {
            first[slot] = i;
            continue;
        }
        snprintf(a, sizeof(a), "q%05u", first[slot]);
        memcpy(b, name, sizeof(name));
    }
    assert_true(*b);
    assert_string_equal(brock__base(e, a), a);
    assert_string_equal(brock__base(e, b), b);
    asked = brock__psl_asked(e);
    assert_true(asked >= 2);
    for (int round = 0; round < 3; round++) {
        assert_string_equal(brock__base(e, a), a);
        assert_string_equal(brock__base(e, b), b);
    }
    if (brock__psl_asked(e) != asked)
        fail_msg("%s and %s: libpsl asked %llu more times", a, b,
                 (unsigned long long)(brock__psl_asked(e) - asked));
    brock_engine_free(e);
}

struct base_job {
    const char *host, *want;
    char out[BROCK_HOST_MAX];
};

static void *base_thread(void *arg)
{
    struct base_job *j = arg;

    if (brock_base_domain(j->host, j->out) < 0)
        j->out[0] = '\0';
    return NULL;
}

/* Runs first: several threads making the first call at once share one list, correctly. */
static void test_base_domain_threads(void **state)
{
    struct base_job jobs[] = {
        {"www.example.co.uk", "example.co.uk", ""},
        {"a.b.test.ck", "b.test.ck", ""},
        {"www.www.ck", "www.ck", ""},
        {"x.efforg.github.io", "efforg.github.io", ""},
    };
    pthread_t t[4];

    (void)state;
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, base_thread, &jobs[i]), 0);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_string_equal(jobs[i].out, jobs[i].want);
    }
}

/* ---- IP addresses, private hosts ---- */

static void test_is_ip(void **state)
{
    static const char *const ips[] = {
        "1.2.3.4",
        "255.255.255.255",
        "0.0.0.0",
        "199.99.9.0",
        "0x7f.0.0.1",
        "0X7F.0xa.0.1",
        "0177.0.0.01",
        "0377.0377.0377.0377",
        /* Privacy Badger's pattern takes any three octal digits after a 0, even past 255. */
        "0400.0.0.1",
        "1.2.3.08",
        "0x7f000001",
        "0XDEADBEEF",
        "1234",
        "0",
        "::1",
        "2001:db8::1",
        "::ffff:192.0.2.1",
        "fe80::1:2:3:4",
    };
    static const char *const not_ips[] = {
        "256.1.1.1",
        "1.2.3",
        "1.2.3.4.5",
        "1.2.3.",
        ".1.2.3",
        "1..2.3",
        "0x7f00001",
        "0x7f0000011",
        "0x1g.0.0.1",
        "0x123.0.0.1",
        "1.2.3.0778",
        "1.2.3.0o7",
        "01777.0.0.1",
        "1.2.3.4.bg",
        "a.b.c.d",
        "example.com",
        "foo.bar.2001::7334",
        "1.2.3.-4",
        "",
        NULL,
    };

    (void)state;
    for (size_t i = 0; i < sizeof(ips) / sizeof(ips[0]); i++)
        if (!brock__is_ip(ips[i]))
            fail_msg("\"%s\" is an IP address", ips[i]);
    for (size_t i = 0; i < sizeof(not_ips) / sizeof(not_ips[0]); i++)
        if (brock__is_ip(not_ips[i]))
            fail_msg("\"%s\" is not an IP address", not_ips[i]);
}

static void test_is_private(void **state)
{
    static const char *const priv[] = {
        "localhost",  "127.0.0.1",      "127.255.255.255", "10.0.0.0",        "10.1.2.3",
        "172.16.0.1", "172.31.255.255", "192.168.0.1",     "192.168.255.255", "010.0.0.1",
    };
    static const char *const pub[] = {
        "172.15.255.255",
        "172.32.0.0",
        "192.169.0.1",
        "192.167.255.255",
        "11.0.0.1",
        "8.8.8.8",
        "128.0.0.1",
        "9.255.255.255",
        "::1",
        "[::1]",
        "localhost.localdomain",
        "my.localhost",
        "LOCALHOST",
        "10.0.0",
        "10.0.0.256",
        "10.0.0.1.5",
        "0x0a.0.0.1",
        "10.0.0.1a",
        "example.com",
        "",
        NULL,
    };

    (void)state;
    for (size_t i = 0; i < sizeof(priv) / sizeof(priv[0]); i++)
        if (!brock__is_private(priv[i]))
            fail_msg("\"%s\" is private", priv[i]);
    for (size_t i = 0; i < sizeof(pub) / sizeof(pub[0]); i++)
        if (brock__is_private(pub[i]))
            fail_msg("\"%s\" is not private", pub[i] ? pub[i] : "(null)");
    /* The shortcut on the first byte never changes the answer. */
    for (size_t i = 0; i < sizeof(priv) / sizeof(priv[0]); i++)
        assert_int_equal(brock__is_private_plain(priv[i]), 1);
    for (size_t i = 0; i < sizeof(pub) / sizeof(pub[0]); i++)
        assert_int_equal(brock__is_private_plain(pub[i]), 0);
    for (size_t i = 0; i < TRICKY_N; i++)
        assert_int_equal(brock__is_private(tricky[i].host),
                         brock__is_private_plain(tricky[i].host));
}

/* ---- third parties and multi-domain first parties ---- */

static void check_tp(const char *req, const char *site, int want)
{
    if (brock__is_third_party(req, site) != want)
        fail_msg("isThirdParty(\"%s\", \"%s\") should be %s", req ? req : "(null)",
                 site ? site : "(null)", want ? "true" : "false");
}

static void test_is_third_party(void **state)
{
    (void)state;
    check_tp(NULL, "example.com", 1);
    check_tp("example.com", NULL, 1);
    check_tp("", "example.com", 1);
    check_tp("example.com", "", 1);
    check_tp(NULL, NULL, 1);
    check_tp("example.com", "example.com", 0);
    check_tp("example.com.", "example.com", 0);
    check_tp("example.com", "example.com.", 0);
    check_tp("www.example.com", "example.com", 0);
    check_tp("example.com", "www.example.com", 0);
    check_tp("cdn.example.com", "www.example.com", 0);
    check_tp("a.b.c.example.com", "x.y.example.com", 0);
    check_tp("notexample.com", "example.com", 1);
    check_tp("example.org", "example.com", 1);
    check_tp("example.com.evil.net", "example.com", 1);
    check_tp("tracker.net", "www.example.com", 1);
    check_tp("www.bbc.co.uk", "news.bbc.co.uk", 0);
    check_tp("www.itv.co.uk", "news.bbc.co.uk", 1);
    /* Private-section suffixes: two GitHub Pages sites are two parties. */
    check_tp("other.github.io", "efforg.github.io", 1);
    check_tp("www.efforg.github.io", "efforg.github.io", 0);
    check_tp("a.cloudfront.net", "b.cloudfront.net", 1);
    /* IP addresses are their own base: only the same address (or a name ending in it,
     * which is how Privacy Badger's suffix test reads) is first party. */
    check_tp("1.2.3.4", "1.2.3.4", 0);
    check_tp("2.3.4", "1.2.3.4", 1);
    check_tp("1.2.3.5", "1.2.3.4", 1);
    check_tp("5.1.2.3.4", "1.2.3.4", 0);
    /* A public suffix as the site is its own base, so everything under it is "first
     * party" to it, as in Privacy Badger. */
    check_tp("example.com", "com", 0);
    check_tp("example.org", "com", 1);
}

static void test_mdfp(void **state)
{
    static const char *const groups[][4] = {
        {"google.com", "youtube.com", "google.co.uk", "gstatic.com"},
        {"amazon.com", "amazon.ca", "amazon.co.jp", "media-amazon.com"},
    };
    struct brock_engine *e = calloc(1, sizeof(*e));

    (void)state;
    assert_non_null(e);
    strmap_init(&e->lists.mdfp);
    for (uintptr_t g = 0; g < 2; g++)
        for (int i = 0; i < 4; i++)
            assert_int_equal(strmap_put(&e->lists.mdfp, groups[g][i], (void *)(g + 1)), 0);

    assert_true(brock__is_mdfp(e, "google.com", "youtube.com"));
    assert_true(brock__is_mdfp(e, "youtube.com", "google.com"));
    assert_true(brock__is_mdfp(e, "gstatic.com", "google.co.uk"));
    assert_true(brock__is_mdfp(e, "amazon.co.jp", "amazon.com"));
    assert_true(brock__is_mdfp(e, "google.com", "google.com"));
    assert_false(brock__is_mdfp(e, "google.com", "amazon.com"));
    assert_false(brock__is_mdfp(e, "google.com", "example.com"));
    assert_false(brock__is_mdfp(e, "example.com", "google.com"));
    assert_false(brock__is_mdfp(e, "example.com", "example.net"));
    assert_false(brock__is_mdfp(e, "example.com", "example.com"));
    assert_false(brock__is_mdfp(e, "www.google.com", "youtube.com"));
    assert_false(brock__is_mdfp(e, NULL, "google.com"));
    assert_false(brock__is_mdfp(e, "google.com", NULL));
    assert_false(brock__is_mdfp(NULL, "google.com", "youtube.com"));

    /* isThirdPartyDomain = isThirdParty and not one owner's domains. */
    assert_false(brock__is_third_party_domain(e, "i.ytimg.youtube.com", "www.google.com"));
    assert_false(brock__is_third_party_domain(e, "www.google.co.uk", "maps.google.com"));
    assert_false(brock__is_third_party_domain(e, "fonts.gstatic.com", "www.youtube.com"));
    assert_false(brock__is_third_party_domain(e, "m.media-amazon.com", "www.amazon.com"));
    assert_true(brock__is_third_party_domain(e, "s.amazon-adsystem.com", "www.amazon.com"));
    assert_true(brock__is_third_party_domain(e, "www.google.com", "www.amazon.com"));
    assert_true(brock__is_third_party_domain(e, "tracker.net", "example.com"));
    assert_false(brock__is_third_party_domain(e, "cdn.example.com", "example.com"));
    assert_true(brock__is_third_party_domain(e, "google.com", NULL));
    assert_true(brock__is_third_party_domain(e, NULL, "google.com"));
    /* Privacy Badger's merge example: of amazon.com's sites amazon.ca, amazon.co.jp and
     * amazing.com, only amazing.com is a third party. */
    assert_false(brock__is_third_party_domain(e, "amazon.ca", "amazon.com"));
    assert_false(brock__is_third_party_domain(e, "amazon.co.jp", "amazon.com"));
    assert_true(brock__is_third_party_domain(e, "amazing.com", "amazon.com"));

    strmap_cleanup(&e->lists.mdfp, NULL);
    free(e);
}

/* ---- names ---- */

static void test_parent(void **state)
{
    const char *p;

    (void)state;
    p = hostname_parent("a.b.example.com");
    assert_string_equal(p, "b.example.com");
    p = hostname_parent(p);
    assert_string_equal(p, "example.com");
    p = hostname_parent(p);
    assert_string_equal(p, "com");
    assert_null(hostname_parent(p));
    assert_null(hostname_parent("localhost"));
    assert_null(hostname_parent("a."));
    assert_null(hostname_parent(""));
    assert_null(hostname_parent(NULL));
}

static void test_valid_domain(void **state)
{
    static const char *const good[] = {
        "example.com", "a_b-c.example.com", "com", "1.2.3.4", "xn--bcher-kva.de", "-a-.b",
    };
    static const char *const bad[] = {
        "",
        "Example.com",
        "a..b",
        ".a",
        "a.",
        "a b.com",
        "a/b",
        "::1",
        "b\xc3\xbc"
        "cher.de",
        "a*.example",
        NULL,
    };
    char name[300];

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        if (!hostname_valid(good[i]))
            fail_msg("\"%s\" is valid", good[i]);
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (hostname_valid(bad[i]))
            fail_msg("\"%s\" is not valid", bad[i] ? bad[i] : "(null)");
    memset(name, 'a', sizeof(name));
    name[3] = '.';
    name[253] = '\0';
    assert_true(hostname_valid(name));
    name[253] = 'a';
    name[254] = '\0';
    assert_false(hostname_valid(name));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_domain_threads),
        cmocka_unit_test(test_base_cache_keeps_both),
        cmocka_unit_test(test_base_domain),
        cmocka_unit_test(test_psl_vectors),
        cmocka_unit_test(test_engine_base_is_libpsl),
        cmocka_unit_test(test_engine_base_tricky),
        cmocka_unit_test(test_engine_third_party_tricky),
        cmocka_unit_test(test_is_ip),
        cmocka_unit_test(test_is_private),
        cmocka_unit_test(test_is_third_party),
        cmocka_unit_test(test_mdfp),
        cmocka_unit_test(test_parent),
        cmocka_unit_test(test_valid_domain),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
