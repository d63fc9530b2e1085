/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Pixel cookie sharing (section 3.7): estimateMaxEntropy and findCommonSubstrings as
 * Privacy Badger's JavaScript computes them (src/engine/entropy.c), the rule itself
 * (src/engine/pixel.c), and the evidence it leaves through brock_observe().
 */
#include "test.h"

#include <math.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/evidence.h"

/* ---- brock_max_entropy ---- */

static void check_bits(const char *s, double want)
{
    double got = brock_max_entropy(s);

    if (fabs(got - want) > 1e-9 * (want > 1 ? want : 1))
        fail_msg("\"%s\": %.17g bits, want %.17g", s, got, want);
}

/* How a row's bits are compared. */
enum how {
    CLOSE, /* within a billionth */
    EXACT, /* the very double, as the same double operations give */
    BELOW, /* fewer bits */
};

/* A text (NULL too), and the bits estimateMaxEntropy gives it. */
struct entropy_case {
    const char *s;
    double bits;
    enum how how;
};

static void entropy_rows(const struct entropy_case *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct entropy_case *c = &rows[i];
        double got = brock_max_entropy(c->s), want = c->bits;
        int ok = c->how == EXACT   ? got == want
                 : c->how == BELOW ? got < want
                                   : fabs(got - want) <= 1e-9 * (want > 1 ? want : 1);

        if (!ok)
            fail_msg("row %zu \"%s\": %.17g bits, want %s%.17g", i, c->s ? c->s : "(null)", got,
                     c->how == EXACT   ? "exactly "
                     : c->how == BELOW ? "below "
                                       : "",
                     want);
    }
}

#define ROWS(a) (a), sizeof(a) / sizeof((a)[0])

/* Privacy Badger's own vectors (its src/tests/tests/utils.js). */
static const struct entropy_case privacy_badger_cases[] = {
    {"03899029.01_293", 49.82892142331044, EXACT},
    {"fizzBUZZ012345", 84, CLOSE},
    {"fizz/buzz+fizzy~buzzy%", 142.82076811925285, EXACT},
    {"google.com/0191/_-google/analytics.fizz?buzz=foobar", 320.55551316197466, CLOSE},
    {"1280x720", 32, BELOW},
    {"", 0, CLOSE},
    {NULL, 0, EXACT},
};

static void test_entropy_privacy_badger(void **state)
{
    (void)state;
    entropy_rows(ROWS(privacy_badger_cases));
}

/* Values computed with a JavaScript engine's estimateMaxEntropy. */
static const struct entropy_case class_cases[] = {
    {"0101", 4, CLOSE},                 /* binary */
    {"2468", 13.28771237954945, CLOSE}, /* decimal */
    {"deadbeef", 32, CLOSE},            /* hex */
    {"ABCDEF0123", 40, CLOSE},          /* all upper: lower-cased, hex */
    {"zzzz", 18.80175887256437, CLOSE}, /* a-z */
    {"ZZZZZZZZ", 37.60351774512874, CLOSE},
    {"abcDEF", 36, CLOSE},                         /* mixed case: base 64 */
    {"MiXeD/Case+64==", 92.84736838320026, CLOSE}, /* '=' is in no class: the range */
    {"xx", 2, CLOSE},                              /* separators alone: binary */
    {"_-.x", 4, CLOSE},
    {"hello wörld", 85.23012134548405, CLOSE}, /* the range of the code units */
    {"Привет", 31.019550008653873, CLOSE},
    {"ÄÖÜäöü", 34.99734008498845, CLOSE},   /* mixed case in Latin-1 */
    {"Straße12", 59.60968889465864, CLOSE}, /* 'ß' upper-cases to "SS": mixed */
    {"Aµ", 13.74072943916681, CLOSE},       /* 'µ' upper-cases to Greek 'Μ' */
    /* A character outside the Basic Multilingual Plane is two units, both counted. */
    {"\xf0\x9f\x98\x80"
     "abc",
     78.95988410449345, CLOSE},
};

static void test_entropy_classes(void **state)
{
    (void)state;
    entropy_rows(ROWS(class_cases));
}

static void test_entropy_long(void **state)
{
    char s[1200];

    (void)state;
    memset(s, 'a', 300);
    s[300] = '\0';
    check_bits(s, 300); /* past 256 units: the length */
    memset(s, 'z', 256);
    s[256] = '\0';
    check_bits(s, 256 * log(26) / M_LN2); /* 256 units: still measured */
    /* 257 two-byte characters are 257 units; 129 four-byte ones are 258. */
    for (int i = 0; i < 257; i++)
        memcpy(s + 2 * i, "\xc3\xa9", 2);
    s[514] = '\0';
    check_bits(s, 257);
    for (int i = 0; i < 129; i++)
        memcpy(s + 4 * i, "\xf0\x9f\x98\x80", 4);
    s[516] = '\0';
    check_bits(s, 258);
    /* Malformed UTF-8 decodes as a browser decodes it: one U+FFFD a broken sequence. */
    check_bits("\x80\x80\x80\x80\x80\x80\x80\x80", 0);
    check_bits("ab\xe2\x82", 3 * log(0xfffd - 'a' + 1) / M_LN2); /* "ab" and one U+FFFD */
}

/* ---- brock_common_substrings ---- */

#define SUBS_MAX 8

struct subs {
    int n;
    char s[SUBS_MAX][64];
};

static int on_sub(void *arg, const char *s, size_t len)
{
    struct subs *x = arg;

    assert_true(x->n < SUBS_MAX);
    assert_int_equal(strlen(s), len);
    snprintf(x->s[x->n++], sizeof(x->s[0]), "%s", s);
    return 0;
}

static void check_subs(const char *a, const char *b, const char *const *want)
{
    struct subs x = {0};
    int n = brock_common_substrings(a, b, on_sub, &x), w = 0;

    while (want[w])
        w++;
    if (n != w || x.n != w)
        fail_msg("(\"%s\", \"%s\"): %d substrings, want %d", a, b, n, w);
    for (int i = 0; i < w; i++)
        if (strcmp(x.s[i], want[i]))
            fail_msg("(\"%s\", \"%s\"): [%d] is \"%s\", want \"%s\"", a, b, i, x.s[i], want[i]);
}

#define SUBS(a, b, ...) check_subs((a), (b), (const char *const[]){__VA_ARGS__, NULL})
#define SUBS_NONE(a, b) check_subs((a), (b), (const char *const[]){NULL})

static void test_common_substrings(void **state)
{
    (void)state;
    /* Privacy Badger's fixture. */
    SUBS("418299633.1535508492", "418299633.15", "418299633.15");
    SUBS("abcdefgh", "abcdefgh", "abcdefgh");
    SUBS_NONE("abcdefg", "abcdefg"); /* 7 is too short */
    SUBS_NONE("", "abcdefgh");
    SUBS_NONE("abcdefgh", "");
    /* Two runs in rows of their own: each its own entry, in a's order. */
    SUBS("abcdefgh-12345678", "12345678+abcdefgh", "abcdefgh", "12345678");
    SUBS("0123456789abcdef", "9abcdef0123456789", "0123456789");
}

/* Runs on two diagonals growing in the same rows: each growth replaces the last entry,
 * whichever run put it there. Worked through by hand, and checked with JavaScript. */
static void test_common_substrings_interleaved(void **state)
{
    (void)state;
    /* b holds a twice: both diagonals reach 8 in row 7 ([A8, B8]); then in each row A's
     * growth replaces B's entry and B's replaces A's, so A's first entry stays as it was. */
    SUBS("abcdefghijk", "abcdefghijkabcdefghijk", "abcdefgh", "abcdefghijk");
    /* The whole of a (diagonal B) reaches 8 two rows before a[2..] (diagonal A) does:
     * row 7 [B8], row 8 [B9], row 9 [B9, A8] then [B9, B10], row 10 [B9, A9] then
     * [B9, B11]: "cdefghijk" is lost, the stale "abcdefghi" stays. */
    SUBS("abcdefghijk", "cdefghijkXabcdefghijk", "abcdefghi", "abcdefghijk");
    /* A run of one letter: every diagonal is a run. */
    SUBS("xxxxxxxxxx", "xxxxxxxxx", "xxxxxxxx", "xxxxxxxx", "xxxxxxxxx", "xxxxxxxxx");
}

static void test_common_substrings_utf16(void **state)
{
    (void)state;
    /* Lengths are UTF-16 units: nine 'é' (18 bytes) against eight. */
    SUBS("ééééééééé", "éééééééé", "éééééééé", "éééééééé");
    /* Four emoji are eight units, so a match. */
    SUBS("😀😀😀😀x", "😀😀😀😀y", "😀😀😀😀");
    SUBS_NONE("😀😀😀x", "😀😀😀y");
}

static int stop_at_first(void *arg, const char *s, size_t len)
{
    (void)arg;
    (void)s;
    (void)len;
    return 42;
}

static void test_common_substrings_stop(void **state)
{
    (void)state;
    assert_int_equal(
        brock_common_substrings("abcdefgh-12345678", "12345678+abcdefgh", stop_at_first, NULL), 42);
    assert_int_equal(brock_common_substrings("abcdefgh-12345678", "12345678+abcdefgh", NULL, NULL),
                     2);
}

/* ---- the rule ---- */

#define UA                                                                                         \
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "                      \
    "Chrome/120.0.0.0 Safari/537.36"

static int rule(const char *url, const char *tab, const char *cookies, struct brock__pixel_hit *hit)
{
    struct brock__pixel_in in = {url, strlen(url), tab,     strlen(tab),
                                 UA,  strlen(UA),  cookies, strlen(cookies)};
    int r;

    memset(hit, 0, sizeof(*hit));
    r = brock__pixel_share(&in, hit);
    assert_true(r == 0 || r == 1);
    return r;
}

static void check_hit(const char *url, const char *cookies, const char *cookie, const char *param)
{
    struct brock__pixel_hit hit;

    if (!rule(url, "https://site.example/", cookies, &hit))
        fail_msg("%s with %s: no sharing found", url, cookies);
    assert_string_equal(hit.cookie, cookie);
    assert_string_equal(hit.param, param);
}

static void check_none(const char *url, const char *tab, const char *cookies)
{
    struct brock__pixel_hit hit;

    if (rule(url, tab, cookies, &hit))
        fail_msg("%s with %s: sharing found (%s, %s)", url, cookies, hit.cookie, hit.param);
}

/* Outcomes checked with a JavaScript restatement of pixelCookieShareAccounting. */
static void test_rule(void **state)
{
    (void)state;
    /* Privacy Badger's fixture: 12 decimal characters, 39.9 bits. */
    check_hit("https://pixel.example/p.gif?cookie=418299633.15", "uid=418299633.1535508492", "uid",
              "cookie");
    check_hit("https://pixel.example/p.gif?a=x&id=GA1.2.1234567890.1600000000",
              "_ga=GA1.2.1234567890.1600000000; other=short", "_ga", "id");
    check_hit("https://pixel.example/p.gif?id=a3f9c2e7b1d4", "x=a3f9c2e7b1d4", "x", "id");
    /* Eight decimal digits are 26.6 bits: not enough. */
    check_none("https://pixel.example/p.gif?a=1&u=12345678&x=1", "https://site.example/",
               "n=12345678");
    /* Short values, on either side, are not compared. */
    check_none("https://pixel.example/p.gif?u=a3f9c2e", "https://site.example/", "x=a3f9c2e");
    /* The page's URL, and the browser's name, are not secrets. */
    check_none("https://pixel.example/p.gif?u=https%3A%2F%2Fsite.example%2Fpage",
               "https://site.example/page", "ref=https://site.example/page");
    check_none("https://pixel.example/p.gif?ua=Mozilla%2F5.0+(X11%3B+Linux",
               "https://site.example/", "ua=Mozilla/5.0 (X11; Linux x86_64)");
    /* Without '?', no parameters; a fragment is not the query. */
    check_none("https://pixel.example/p.gif#id=a3f9c2e7b1d4", "https://site.example/",
               "x=a3f9c2e7b1d4");
}

static void test_rule_low_entropy_words(void **state)
{
    (void)state;
    /* "session" is cut, "Xq9Zr4Tk" (48 bits) stays. */
    check_hit("https://pixel.example/p.gif?s=sessionXq9Zr4Tk", "sid=sessionXq9Zr4Tk", "sid", "s");
    /* "homepage" cut leaves "1234": too short. */
    check_none("https://pixel.example/p.gif?s=homepage1234", "https://site.example/",
               "v=homepage1234");
    /* Words are found in the text lower-cased once and cut from the text as it is by then:
     * "page" cuts "PAGE", then "view" (at 4 in the lower-cased text) cuts "qZ8k", leaving
     * "ViewLm3Nw". Privacy Badger does the same. */
    check_hit("https://pixel.example/p.gif?id=PAGEViewqZ8kLm3Nw", "x=PAGEViewqZ8kLm3Nw", "x", "id");
    check_hit("https://pixel.example/p.gif?s=getsitename%3Ah7Kq2pZx9w", "v=getsitename:h7Kq2pZx9w",
              "v", "s");
    /* UTF-16: "étéétéé" is 7 units, too short, though 14 bytes. */
    check_none("https://pixel.example/p.gif?id=%C3%A9t%C3%A9%C3%A9t%C3%A9%C3%A9",
               "https://site.example/", "x=\xc3\xa9t\xc3\xa9\xc3\xa9t\xc3\xa9\xc3\xa9");
}

static void test_rule_names(void **state)
{
    (void)state;
    /* Parameters are form-decoded: '+' and %XX in names and values. */
    check_hit("https://pixel.example/p.gif?my+id%21=418299633.15", "uid=418299633.1535508492",
              "uid", "my id!");
    /* A nameless cookie, as a browser sends one. */
    check_hit("https://pixel.example/p.gif?c=418299633.15", "a=1; 418299633.1535508492", "", "c");
    /* Values keep their quotes, as a cookie store has them. */
    check_hit("https://pixel.example/p.gif?c=%22418299633.15", "q=\"418299633.1535508492\"", "q",
              "c");
}

/* ---- through brock_observe() ---- */

static int pixel_seen(struct brock_engine *e, const char *site, const char *url,
                      enum brock_resource_type type, const char *cookies)
{
    struct brock_header h = {"User-Agent", 10, UA, strlen(UA)};
    struct brock_observation o = {.host = "px.pixel.test",
                                  .site = site,
                                  .headers = &h,
                                  .n_headers = 1,
                                  .time_ms = 1700000000000,
                                  .url = url,
                                  .type = type,
                                  .site_cookies = cookies};
    struct brock_learned l;

    assert_int_equal(brock_observe(e, &o, &l), 0);
    return l.recorded + l.blocked;
}

#define PIXEL_URL "http://px.pixel.test/p.gif?u=Zk3q9TmW2xR7&x=1"

static void test_observe(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    const struct tracking *t;
    const struct snitch *s;

    (void)state;
    /* Not an image, no query, no cookies, a first party: nothing. */
    assert_int_equal(
        pixel_seen(e, "a.example", PIXEL_URL, BROCK_RESOURCE_SCRIPT, "id=Zk3q9TmW2xR7"), 0);
    assert_int_equal(pixel_seen(e, "a.example", "http://px.pixel.test/p.gif", BROCK_RESOURCE_IMAGE,
                                "id=Zk3q9TmW2xR7"),
                     0);
    assert_int_equal(pixel_seen(e, "a.example", PIXEL_URL, BROCK_RESOURCE_IMAGE, NULL), 0);
    assert_int_equal(
        pixel_seen(e, "www.pixel.test", PIXEL_URL, BROCK_RESOURCE_IMAGE, "id=Zk3q9TmW2xR7"), 0);
    /* A low-entropy value is not learned. */
    assert_int_equal(pixel_seen(e, "a.example", "http://px.pixel.test/p.gif?u=12345678",
                                BROCK_RESOURCE_IMAGE, "n=12345678"),
                     0);
    assert_null(brock__snitch_get(e, "pixel.test"));
    /* Three sites: blocked. */
    assert_int_equal(
        pixel_seen(e, "a.example", PIXEL_URL, BROCK_RESOURCE_IMAGE, "lang=en; id=Zk3q9TmW2xR7"), 1);
    assert_int_equal(pixel_seen(e, "https://www.b.example/x?y", PIXEL_URL, BROCK_RESOURCE_IMAGE,
                                "id=Zk3q9TmW2xR7"),
                     1);
    assert_int_equal(brock__best_action(e, "px.pixel.test", NULL), BROCK_ALLOW);
    assert_int_equal(pixel_seen(e, "c.example", PIXEL_URL, BROCK_RESOURCE_IMAGE, "id=Zk3q9TmW2xR7"),
                     2);
    assert_int_equal(brock__best_action(e, "px.pixel.test", NULL), BROCK_BLOCK);
    s = brock__snitch_get(e, "pixel.test");
    assert_int_equal(s->n, 3);
    assert_int_equal(s->v[0].kind, BROCK_EVIDENCE_PIXEL);
    assert_string_equal(s->v[0].detail, "id");
    assert_string_equal(s->v[0].param, "u");
    assert_string_equal(s->v[1].site, "b.example");
    t = strmap_get(&e->tracking, "pixel.test");
    assert_non_null(t);
    assert_int_equal(t->n, 3);
    assert_int_equal(t->v[2].kinds, BROCK__TRACK_PIXEL);
    assert_string_equal(brock_evidence_kind_name(BROCK_EVIDENCE_PIXEL), "pixelcookieshare");
    brock_engine_free(e);
}

/* The page's URL: given, or the site when it is one, or "https://site/". */
static void test_observe_site_url(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_header h = {"User-Agent", 10, UA, strlen(UA)};
    struct brock_observation o = {.host = "px.pixel.test",
                                  .site = "a.example",
                                  .headers = &h,
                                  .n_headers = 1,
                                  .url = "http://px.pixel.test/p.gif?r=a.example%2FZk3q9TmW",
                                  .type = BROCK_RESOURCE_IMAGE,
                                  .site_cookies = "last=https://a.example/Zk3q9TmW"};
    struct brock_learned l;

    (void)state;
    /* "a.example/Zk3q9TmW" is in the page's URL. */
    o.site_url = "http://a.example/Zk3q9TmW";
    assert_int_equal(brock_observe(e, &o, &l), 0);
    assert_false(l.recorded);
    o.site_url = NULL;
    o.site = "https://a.example/Zk3q9TmW";
    assert_int_equal(brock_observe(e, &o, &l), 0);
    assert_false(l.recorded);
    /* "https://a.example/" alone does not hold it. */
    o.site = "a.example";
    assert_int_equal(brock_observe(e, &o, &l), 0);
    assert_true(l.recorded);
    brock_engine_free(e);
}

/* A temporary folder for the engine's state, removed by test_fixture_teardown. */
static int setup(void **state)
{
    *state = test_fixture_new("pixel");
    return 0;
}

static void test_store_and_export(void **state)
{
    const struct test_fixture *f = *state;
    struct brock_engine *e = test_fixture_open(f, NULL, 0);
    const struct snitch *s;
    char *out = NULL;
    size_t len;

    assert_int_equal(pixel_seen(e, "a.example", PIXEL_URL, BROCK_RESOURCE_IMAGE, "id=Zk3q9TmW2xR7"),
                     1);
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);
    e = test_fixture_open(f, NULL, 0);
    s = brock__snitch_get(e, "pixel.test");
    assert_non_null(s);
    assert_int_equal(s->v[0].kind, BROCK_EVIDENCE_PIXEL);
    assert_string_equal(s->v[0].detail, "id");
    assert_string_equal(s->v[0].param, "u");
    assert_int_equal(brock_export(e, "pb", &out, &len), 0);
    assert_non_null(strstr(out, "\"pixelcookieshare\""));
    brock_free(out);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entropy_privacy_badger),
        cmocka_unit_test(test_entropy_classes),
        cmocka_unit_test(test_entropy_long),
        cmocka_unit_test(test_common_substrings),
        cmocka_unit_test(test_common_substrings_interleaved),
        cmocka_unit_test(test_common_substrings_utf16),
        cmocka_unit_test(test_common_substrings_stop),
        cmocka_unit_test(test_rule),
        cmocka_unit_test(test_rule_low_entropy_words),
        cmocka_unit_test(test_rule_names),
        cmocka_unit_test(test_observe),
        cmocka_unit_test(test_observe_site_url),
        cmocka_unit_test_setup_teardown(test_store_and_export, setup, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
