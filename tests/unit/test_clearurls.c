/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ClearURLs' rules (tests/data/clearurls/data.min.json): every expression compiles, a table of
 * real-shaped URLs comes out as it should (tracking parameters out, wrappers unwrapped, the
 * rest byte for byte, the exceptions left alone), and a broken file changes nothing.
 */
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brock.h"
#include "engine/engine.h"
#include "fixture.h"
#include "util/alloc.h"
#include "util/file.h"

static char *rules;
static size_t rules_len;

static struct brock_engine *engine_with_rules(void)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    assert_int_equal(brock_clearurls_load(e, rules, rules_len), 0);
    return e;
}

static void test_every_rule_compiles(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    (void)state;
    assert_int_equal(brock_clearurls_providers(e, NULL), 0);
    assert_int_equal(brock_clearurls_load(e, rules, rules_len), 0);
    assert_int_equal(brock_clearurls_providers(e, NULL), 205);
    brock_engine_free(e);
}

static const struct {
    const char *url, *want;
    int result;
    const char *removed;
} cases[] = {
    /* Campaign parameters out, the rest kept. */
    {"https://example.com/page?utm_source=news&utm_medium=email&id=42",
     "https://example.com/page?id=42", BROCK_CLEAN_STRIPPED, "utm_source,utm_medium"},
    {"https://news.example/article?fbclid=IwAR0abc", "https://news.example/article",
     BROCK_CLEAN_STRIPPED, "fbclid"},
    /* What stays is as it came: no re-encoding. */
    {"https://example.com/?q=a%20b+c&utm_source=x", "https://example.com/?q=a%20b+c",
     BROCK_CLEAN_STRIPPED, "utm_source"},
    /* A parameter in the fragment. */
    {"https://example.com/#utm_source=x&section=2", "https://example.com/#section=2",
     BROCK_CLEAN_STRIPPED, "utm_source"},
    /* Facebook's outbound link and Google's result link: the address inside. */
    {"https://l.facebook.com/l.php?u=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1&h=AT0abc",
     "https://example.com/a?b=1", BROCK_CLEAN_REDIRECT, ""},
    {"https://www.google.com/url?q=https://example.org/x&sa=D&source=editors&ust=1&usg=AOvVaw",
     "https://example.org/x", BROCK_CLEAN_REDIRECT, ""},
    /* A Google search: its tracking fields out, the query kept. */
    {"https://www.google.com/search?q=brock&ei=abc&ved=0ahUKE&oq=brock",
     "https://www.google.com/search?q=brock", BROCK_CLEAN_STRIPPED, "ei,ved,oq"},
    /* An Amazon product: the path's ref= (a raw rule) and the search's fields. */
    {"https://www.amazon.com/dp/B08N5WRWNW/ref=sr_1_1?keywords=foo&qid=1611234567&sr=8-1",
     "https://www.amazon.com/dp/B08N5WRWNW", BROCK_CLEAN_STRIPPED, "keywords,qid,sr"},
    /* A mailing list's unsubscribe link keeps what identifies the subscription. */
    {"https://list.example.org/unsubscribe?email=a%40b.example&token=abc123&utm_campaign=x",
     "https://list.example.org/unsubscribe?email=a%40b.example&token=abc123", BROCK_CLEAN_STRIPPED,
     "utm_campaign"},
    /* Sign-in: an OAuth request (an exception of Google's) and a callback with its state. */
    {"https://accounts.google.com/o/oauth2/auth?client_id=x&state=abc&source=y",
     "https://accounts.google.com/o/oauth2/auth?client_id=x&state=abc&source=y", BROCK_CLEAN_NONE,
     ""},
    {"https://app.example.com/callback?code=x&state=y",
     "https://app.example.com/callback?code=x&state=y", BROCK_CLEAN_NONE, ""},
    {"https://example.com/", "https://example.com/", BROCK_CLEAN_NONE, ""},
    /* Empty parts and empty parameters stay as they are; a part emptied goes with its mark. */
    {"https://example.com/?", "https://example.com/?", BROCK_CLEAN_NONE, ""},
    {"https://example.com/?a=1&&b#", "https://example.com/?a=1&&b#", BROCK_CLEAN_NONE, ""},
    {"https://example.com/p#&x=1&utm_source=y&", "https://example.com/p#&x=1&",
     BROCK_CLEAN_STRIPPED, "utm_source"},
    {"https://example.com/p?utm_source=y#utm_medium=z", "https://example.com/p",
     BROCK_CLEAN_STRIPPED, "utm_medium,utm_source"},
};

static void test_table(void **state)
{
    struct brock_engine *e = engine_with_rules();
    char out[BROCK_URL_MAX];
    struct brock_clean c;

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc = brock_clean_url(e, cases[i].url, out, sizeof(out), &c);

        if (rc != cases[i].result || strcmp(out, cases[i].want) != 0 ||
            strcmp(c.removed, cases[i].removed) != 0)
            fail_msg("%s: %d %s {%s}, not %d %s {%s}", cases[i].url, rc, out, c.removed,
                     cases[i].result, cases[i].want, cases[i].removed);
        assert_int_equal(c.result, rc);
    }
    brock_engine_free(e);
}

static void test_bad_input(void **state)
{
    struct brock_engine *e = engine_with_rules();
    char out[BROCK_URL_MAX], *longer = malloc(BROCK_URL_MAX + 16);
    struct brock_clean c;

    (void)state;
    assert_int_equal(brock_clean_url(e, "ftp://example.com/", out, sizeof(out), &c), BROCK_EINVAL);
    assert_int_equal(brock_clean_url(e, "example.com/?utm_source=x", out, sizeof(out), &c),
                     BROCK_EINVAL);
    assert_int_equal(brock_clean_url(e, "https://example.com/?utm_source=x", out, 10, &c),
                     BROCK_EINVAL);
    assert_non_null(longer);
    memcpy(longer, "https://example.com/?", 21);
    memset(longer + 21, 'a', BROCK_URL_MAX - 21);
    longer[BROCK_URL_MAX + 10] = '\0';
    memset(longer + BROCK_URL_MAX, 'a', 10);
    assert_int_equal(brock_clean_url(e, longer, out, sizeof(out), &c), BROCK_EINVAL);
    free(longer);

    /* A broken file is refused, naming what is wrong, and the rules in force stay. */
    static const struct {
        const char *json, *why;
    } bad[] = {
        {"{", "not JSON"},
        {"{\"providers\": []}", "no \"providers\" object"},
        {"{\"providers\": {\"p\": {\"urlPattern\": \"(\"}}}", "provider \"p\", urlPattern"},
        {"{\"providers\": {\"p\": {\"urlPattern\": \".*\", \"rules\": [\"a\", \"[\"]}}}",
         "provider \"p\", rules"},
        {"{\"providers\": {\"p\": {\"urlPattern\": \".*\", \"exceptions\": \"x\"}}}",
         "exceptions is not a list"},
        {"{\"providers\": {\"p\": {\"rules\": []}}}", "with a urlPattern"},
        {"{\"providers\": {\"p\": {\"urlPattern\": \".*\", \"completeProvider\": 1}}}",
         "completeProvider"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(brock_clearurls_load(e, bad[i].json, strlen(bad[i].json)), BROCK_EFORMAT);
        if (!strstr(brock_engine_errmsg(e), bad[i].why))
            fail_msg("%s: %s", bad[i].json, brock_engine_errmsg(e));
        assert_int_equal(brock_clearurls_providers(e, NULL), 205);
    }
    assert_int_equal(brock_clean_url(e, cases[0].url, out, sizeof(out), &c), BROCK_CLEAN_STRIPPED);
    brock_engine_free(e);
}

/* A provider of its own: a whole host that only tracks, and a raw rule cut out everywhere. */
static void test_own_rules(void **state)
{
    static const char own[] =
        "{\"providers\": {"
        "\"tracker\": {\"urlPattern\": \"^https?://(?:[a-z0-9-]+\\\\.)*?tracker\\\\.example\","
        " \"completeProvider\": true},"
        "\"shop\": {\"urlPattern\": \"^https?://shop\\\\.example\", \"rawRules\": "
        "[\"/ref=[^/?]*\"],"
        " \"rules\": [\"tag\"], \"exceptions\": [\"^https?://shop\\\\.example/keep\"]}}}";
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    char out[BROCK_URL_MAX];
    struct brock_clean c;

    (void)state;
    assert_int_equal(brock_clearurls_load(e, own, strlen(own)), 0);
    assert_int_equal(brock_clean_url(e, "https://px.tracker.example/p?x=1", out, sizeof(out), &c),
                     BROCK_CLEAN_BLOCK);
    assert_string_equal(out, "https://px.tracker.example/p?x=1");
    assert_string_equal(c.provider, "tracker");
    assert_int_equal(
        brock_clean_url(e, "https://shop.example/a/ref=x1/b/ref=y?TAG=z&q=1", out, sizeof(out), &c),
        BROCK_CLEAN_STRIPPED);
    assert_string_equal(out, "https://shop.example/a/b?q=1");
    assert_int_equal(c.n_removed, 1);
    assert_int_equal(
        brock_clean_url(e, "https://shop.example/keep/ref=x?tag=z", out, sizeof(out), &c),
        BROCK_CLEAN_NONE);
    assert_string_equal(out, "https://shop.example/keep/ref=x?tag=z");
    brock_engine_free(e);
}

/* An expression that backtracks without end on a URL a page chose gives up at its bound: the
 * URL is left as it was, at once. */
static void test_backtracking_bounded(void **state)
{
    static const char slow[] =
        "{\"providers\": {\"slow\": {\"urlPattern\": \"^https://(a+)+$\", \"rules\": [\"x\"]}}}";
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    char url[128], out[BROCK_URL_MAX];
    struct brock_clean c;

    (void)state;
    assert_int_equal(brock_clearurls_load(e, slow, strlen(slow)), 0);
    snprintf(url, sizeof(url), "https://%s!?x=1", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    assert_int_equal(brock_clean_url(e, url, out, sizeof(out), &c), BROCK_CLEAN_NONE);
    assert_string_equal(out, url);
    brock_engine_free(e);
}

/* The fast path (each provider passed over when the URL lacks its pattern's literal) against
 * the plain one (every expression run), over URLs on each provider's site: the table's, and
 * for every provider's name a few made with its parameters and paths. */
static void same_both_ways(struct brock_engine *e, const char *url)
{
    char fast[BROCK_URL_MAX], plain[BROCK_URL_MAX];
    struct brock_clean a, b;
    int x = brock_clean_url(e, url, fast, sizeof(fast), &a);
    int y = brock__clean_url_plain(e, url, plain, sizeof(plain), &b);

    if (x != y || (x >= 0 && (strcmp(fast, plain) != 0 || strcmp(a.removed, b.removed) != 0 ||
                              strcmp(a.provider, b.provider) != 0)))
        fail_msg("%s: fast %d %s {%s}, plain %d %s {%s}", url, x, fast, a.removed, y, plain,
                 b.removed);
}

static void test_fast_as_plain(void **state)
{
    static const char *const hosts[] = {
        "www.amazon.com",   "www.amazon.co.uk",
        "smile.amazon.de",  "www.google.com",
        "www.google.co.jp", "news.google.com",
        "mail.google.com",  "www.youtube.com",
        "youtu.be",         "www.facebook.com",
        "l.facebook.com",   "lm.facebook.com",
        "www.bing.com",     "x.com",
        "twitter.com",      "www.ebay.com",
        "www.ebay.de",      "yandex.ru",
        "www.reddit.com",   "www.linkedin.com",
        "www.netflix.com",  "www.aliexpress.com",
        "example.com",      "a.b.c.d",
        "AMAZON.COM",       "www.GOOGLE.com",
    };
    static const char *const tails[] = {
        "/",
        "/?utm_source=a&id=1",
        "/s?k=x&ref=sr_nr&qid=1&sprefix=a",
        "/dp/B0/ref=x?th=1",
        "/url?q=https://example.org/&sa=D",
        "/search?q=a&ei=b&ved=c#utm_medium=d",
        "/l.php?u=https%3A%2F%2Fexample.com%2F&h=x",
        "/watch?v=a&feature=share&si=b",
        "/o/oauth2/auth?state=1&source=2",
        "/p?fbclid=1&gclid=2&mc_eid=3&REF=4",
    };
    struct brock_engine *e = engine_with_rules();
    char url[BROCK_URL_MAX];

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        same_both_ways(e, cases[i].url);
    for (size_t h = 0; h < sizeof(hosts) / sizeof(hosts[0]); h++)
        for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
            snprintf(url, sizeof(url), "https://%s%s", hosts[h], tails[t]);
            same_both_ways(e, url);
            snprintf(url, sizeof(url), "http://%s%s", hosts[h], tails[t]);
            same_both_ways(e, url);
        }
    brock_engine_free(e);
}

/* The interpreter (BROCK_PCRE2_JIT=0, as under valgrind) cleans as the JIT does. */
static void test_interpreter_as_jit(void **state)
{
    struct brock_engine *jit = engine_with_rules(), *interp;
    char a[BROCK_URL_MAX], b[BROCK_URL_MAX];
    struct brock_clean ia, ib;

    (void)state;
    assert_int_equal(setenv("BROCK_PCRE2_JIT", "0", 1), 0);
    interp = engine_with_rules();
    assert_int_equal(unsetenv("BROCK_PCRE2_JIT"), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int x = brock_clean_url(jit, cases[i].url, a, sizeof(a), &ia);
        int y = brock_clean_url(interp, cases[i].url, b, sizeof(b), &ib);

        assert_int_equal(x, y);
        if (x >= 0) {
            assert_string_equal(a, b);
            assert_string_equal(ia.removed, ib.removed);
        }
    }
    brock_engine_free(jit);
    brock_engine_free(interp);
}

/* The rules given at open serve until an update; an update's are kept in the state and come
 * back at the next open, over the given ones; a bad update changes nothing. */
static void test_given_and_updated(void **state)
{
    struct test_fixture *f = test_fixture_new("clearurls");
    static const char own[] = "{\"providers\": {\"own\": {\"urlPattern\": "
                              "\"^https?://own\\\\.example\", \"rules\": [\"keep\"]}}}";
    struct brock_config cfg = {
        .state_dir = f->state, .no_seed = 1, .clearurls = rules, .clearurls_len = rules_len};
    struct brock_engine *e = test_engine_with(&cfg);
    struct brock_clean info;
    char out[BROCK_URL_MAX];
    int64_t when = -1;

    (void)state;
    assert_int_equal(brock_clearurls_providers(e, &when), 205);
    assert_int_equal(when, 0);
    assert_int_equal(
        brock_clean_url(e, "https://own.example/?keep=1&utm_source=2", out, sizeof(out), &info),
        BROCK_CLEAN_STRIPPED);
    assert_string_equal(out, "https://own.example/?keep=1");
    assert_int_equal(brock_clearurls_update(e, "{\"providers\": 1}", 16, 1000), BROCK_EFORMAT);
    assert_int_equal(brock_clearurls_update(e, own, strlen(own), 1000), 0);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);

    e = test_engine_with(&cfg);
    assert_int_equal(brock_clearurls_providers(e, &when), 1);
    assert_int_equal(when, 1000);
    assert_int_equal(
        brock_clean_url(e, "https://own.example/?keep=1&utm_source=2", out, sizeof(out), &info),
        BROCK_CLEAN_STRIPPED);
    assert_string_equal(out, "https://own.example/?utm_source=2");
    /* Rules loaded for this engine alone are not an update's. */
    assert_int_equal(brock_clearurls_load(e, rules, rules_len), 0);
    assert_int_equal(brock_clearurls_providers(e, &when), 205);
    assert_int_equal(when, 0);
    brock_engine_free(e);
    assert_int_equal(test_fixture_free(f), 0);
}

/* What the proxy cleans: not with the switch off, not on a site turned off (nor under it),
 * not where brock is off for the request; everywhere else as brock_clean_url() does. */
static void test_request_switches(void **state)
{
    struct brock_engine *e = engine_with_rules();
    struct brock_request r = {.url = "https://shop.example/p?utm_source=x&id=1",
                              .site = "shop.example"};
    struct brock_clean info;
    char out[BROCK_URL_MAX];
    const char *want = "https://shop.example/p?id=1";
    char *text = NULL;
    size_t len = 0;

    (void)state;
    assert_int_equal(brock_request_clean(e, &r, out, sizeof(out), &info), BROCK_CLEAN_STRIPPED);
    assert_string_equal(out, want);
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_CLEAN_URLS, 0), 0);
    assert_int_equal(brock_request_clean(e, &r, out, sizeof(out), &info), BROCK_CLEAN_NONE);
    assert_string_equal(out, r.url);
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_CLEAN_URLS, 1), 0);

    assert_int_equal(brock_clean_site_set(e, "com", 1), BROCK_EINVAL);
    assert_int_equal(brock_clean_site_set(e, "not a site", 1), BROCK_EINVAL);
    assert_int_equal(brock_clean_site_set(e, "https://shop.example/", 1), 0);
    assert_int_equal(brock_clean_site_set(e, "shop.example", 1), 0); /* once on the list */
    assert_true(brock_clean_site_off(e, "shop.example"));
    assert_true(brock_clean_site_off(e, "www.shop.example"));
    assert_false(brock_clean_site_off(e, "myshop.example"));
    assert_int_equal(brock_request_clean(e, &r, out, sizeof(out), &info), BROCK_CLEAN_NONE);
    assert_int_equal(brock_settings_json(e, &text, &len), 0);
    assert_non_null(strstr(text, "\"clean_urls_off\":[\"shop.example\"]"));
    assert_non_null(strstr(text, "\"clean_urls\":true"));
    brock_free(text);
    assert_int_equal(brock_clean_site_set(e, "shop.example", 0), 0);
    assert_false(brock_clean_site_off(e, "shop.example"));

    assert_int_equal(brock_site_set_disabled(e, "shop.example", 1), 0);
    assert_int_equal(brock_request_clean(e, &r, out, sizeof(out), &info), BROCK_CLEAN_NONE);
    assert_int_equal(brock_site_set_disabled(e, "shop.example", 0), 0);
    assert_int_equal(brock_client_pause(e, "laptop", BROCK_NO_END), 0);
    r.client = "laptop";
    assert_int_equal(brock_request_clean(e, &r, out, sizeof(out), &info), BROCK_CLEAN_NONE);
    r.client = "phone";
    assert_int_equal(brock_request_clean(e, &r, out, sizeof(out), &info), BROCK_CLEAN_STRIPPED);
    r.url = NULL;
    assert_int_equal(brock_request_clean(e, &r, out, sizeof(out), &info), BROCK_EINVAL);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_rule_compiles), cmocka_unit_test(test_table),
        cmocka_unit_test(test_bad_input),           cmocka_unit_test(test_own_rules),
        cmocka_unit_test(test_fast_as_plain),       cmocka_unit_test(test_backtracking_bounded),
        cmocka_unit_test(test_given_and_updated),   cmocka_unit_test(test_request_switches),
        cmocka_unit_test(test_interpreter_as_jit),
    };

    if (file_read(test_data("clearurls/data.min.json"), (size_t)1 << 24, &rules, &rules_len) != 0)
        return 1;
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    mem_free(rules);
    return rc;
}
