/* SPDX-License-Identifier: GPL-3.0-or-later */
/* One exchange learned from, as the proxy and a recording's learning both learn from it
 * (brock_exchange_*): which exchanges teach and which cookies are the page's own, then what a
 * request and its answer teach. */
#include "test.h"

#include "engine/engine.h"

#define HDR(n, v)                                                                                  \
    {                                                                                              \
        n, sizeof(n) - 1, v, sizeof(v) - 1                                                         \
    }

/* A request decided as the proxy decides it, and the exchange around it. */
struct ex {
    struct brock_request r;
    struct brock_decision d;
    struct brock_exchange x;
};

static void decide(struct brock_engine *e, struct ex *t, const char *url, const char *site,
                   enum brock_resource_type type, int page_known, struct brock_site_cookies *sc)
{
    memset(t, 0, sizeof(*t));
    t->r.url = url;
    t->r.site = site;
    t->r.type = type;
    assert_int_equal(brock_decide_request(e, &t->r, &t->d), 0);
    t->x.request = &t->r;
    t->x.decision = &t->d;
    t->x.page_known = page_known;
    t->x.sc = sc;
    t->x.client = "10.0.0.7";
    t->x.time_ms = 1780000000000;
}

static unsigned flags_of(struct brock_engine *e, const char *url, const char *site, int page_known)
{
    struct ex t;

    decide(e, &t, url, site, BROCK_RESOURCE_IMAGE, page_known, NULL);
    return brock_exchange_flags(e, &t.x);
}

/* The sites tracker (a base domain) was seen on, comma-joined, in the order seen. */
static const char *sites(struct brock_engine *e, const char *tracker)
{
    static char out[512];
    const struct snitch *s = brock__snitch_get(e, tracker);

    out[0] = '\0';
    for (size_t i = 0; s && i < s->n; i++) {
        if (i)
            strncat(out, ",", sizeof(out) - strlen(out) - 1);
        strncat(out, s->v[i].site, sizeof(out) - strlen(out) - 1);
    }
    return out;
}

/* Evidence comes from a third party on a known page that was let through, disabled site and
 * site fix included (Privacy Badger's learning asks neither); never from a denied request, a
 * guessed page, a private address or a first party. The page's own cookies come from its
 * requests to its own site, a guessed page's too. */
static void test_flags(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, test_data("privacybadger"), 1);
    struct brock_config off = {.no_learn = 1};
    struct brock_engine *quiet;

    (void)state;
    assert_int_equal(flags_of(e, "https://px.tracker.net/a", "www.one.com", 1),
                     BROCK_EXCHANGE_EVIDENCE);
    assert_int_equal(flags_of(e, "https://px.tracker.net/a", "www.one.com", 0), 0);
    assert_int_equal(flags_of(e, "https://px.tracker.net/a", NULL, 1), 0);
    assert_int_equal(flags_of(e, "https://cdn.one.com/a", "www.one.com", 1),
                     BROCK_EXCHANGE_SITE_COOKIES);
    assert_int_equal(flags_of(e, "https://cdn.one.com/a", "www.one.com", 0),
                     BROCK_EXCHANGE_SITE_COOKIES);
    assert_int_equal(flags_of(e, "http://127.0.0.1/a", "www.one.com", 1), 0);
    /* Another of one owner's domains is a first party, but not the page's own site. */
    assert_int_equal(flags_of(e, "https://www.youtube.com/a", "www.google.com", 1), 0);

    assert_int_equal(brock_site_set_disabled(e, "two.com", 1), 0);
    assert_int_equal(flags_of(e, "https://px.tracker.net/a", "www.two.com", 1),
                     BROCK_EXCHANGE_EVIDENCE);
    /* pbconfig.json's site fixes leave velocityweather.com alone on baynews9.com. */
    assert_int_equal(flags_of(e, "https://x.velocityweather.com/a", "baynews9.com", 1),
                     BROCK_EXCHANGE_EVIDENCE);
    assert_int_equal(brock_set_site_action(e, "three.com", "tracker.net", BROCK_USER_BLOCK), 0);
    assert_int_equal(flags_of(e, "https://px.tracker.net/a", "www.three.com", 1), 0);
    assert_int_equal(brock_set_site_action(e, "four.com", "tracker.net", BROCK_USER_COOKIEBLOCK),
                     0);
    assert_int_equal(flags_of(e, "https://px.tracker.net/a", "www.four.com", 1),
                     BROCK_EXCHANGE_EVIDENCE);
    brock_engine_free(e);

    quiet = test_engine_with(&off);
    assert_int_equal(flags_of(quiet, "https://px.tracker.net/a", "www.one.com", 1), 0);
    assert_int_equal(flags_of(quiet, "https://cdn.one.com/a", "www.one.com", 1), 0);
    brock_engine_free(quiet);
}

/* A request's cookies, and its answer's, as evidence; a ping without cookies. */
static void test_evidence(void **state)
{
    static const struct brock_header cookie[] = {HDR("Cookie", "uid=8f3a9c2e1b7d")};
    static const struct brock_header set[] = {HDR("Set-Cookie", "id=77aa11bb22cc; Path=/")};
    static const struct brock_header none[] = {HDR("Accept", "*/*")};
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock_learned l;
    struct ex t;

    (void)state;
    decide(e, &t, "https://px.tracker.net/a", "www.one.com", BROCK_RESOURCE_IMAGE, 1, NULL);
    assert_int_equal(brock_exchange_request(e, &t.x, brock_exchange_flags(e, &t.x), cookie, 1, &l),
                     0);
    assert_true(l.recorded);
    assert_string_equal(l.tracker, "tracker.net");

    decide(e, &t, "https://px.tracker.net/a", "www.two.com", BROCK_RESOURCE_IMAGE, 1, NULL);
    assert_int_equal(brock_exchange_request(e, &t.x, brock_exchange_flags(e, &t.x), none, 1, &l),
                     0);
    assert_false(l.recorded);
    assert_int_equal(brock_exchange_response(e, &t.x, brock_exchange_flags(e, &t.x), set, 1, &l),
                     0);
    assert_true(l.recorded);
    /* The flags say what is taken: without them, nothing. */
    decide(e, &t, "https://px.tracker.net/a", "www.three.com", BROCK_RESOURCE_IMAGE, 1, NULL);
    assert_int_equal(brock_exchange_response(e, &t.x, 0, set, 1, &l), 0);
    assert_false(l.recorded);
    assert_string_equal(sites(e, "tracker.net"), "one.com,two.com");

    decide(e, &t, "https://b.metrics.net/c", "www.one.com", BROCK_RESOURCE_PING, 1, NULL);
    assert_int_equal(brock_exchange_request(e, &t.x, brock_exchange_flags(e, &t.x), none, 1, &l),
                     0);
    assert_true(l.recorded);
    assert_string_equal(sites(e, "metrics.net"), "one.com");
    brock_engine_free(e);
}

/* The page's own cookies, from its requests to its own site and their answers, are what an
 * image's URL is checked against; the page's URL is the image's Referer when it names the
 * page. */
static void test_site_cookies_and_pixels(void **state)
{
#define UID "5d41402abc4b2a76b9719d911017c592"
    static const struct brock_header doc_req[] = {HDR("Cookie", "lang=en")};
    static const struct brock_header doc_resp[] = {
        HDR("Set-Cookie", "uid=" UID "; Path=/"),
        HDR("Set-Cookie", "sid=" UID "0; HttpOnly"),
    };
    static const struct brock_header img[] = {HDR("Referer", "https://www.one.com/article")};
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock_site_cookies *sc = brock_site_cookies_new();
    char got[BROCK_SC_TEXT_MAX];
    struct brock_learned l;
    struct ex t;

    (void)state;
    assert_non_null(sc);
    decide(e, &t, "https://www.one.com/article", "www.one.com", BROCK_RESOURCE_MAIN_FRAME, 1, sc);
    assert_int_equal(brock_exchange_flags(e, &t.x), BROCK_EXCHANGE_SITE_COOKIES);
    assert_int_equal(brock_exchange_request(e, &t.x, BROCK_EXCHANGE_SITE_COOKIES, doc_req, 1, &l),
                     0);
    assert_int_equal(brock_exchange_response(e, &t.x, BROCK_EXCHANGE_SITE_COOKIES, doc_resp, 2, &l),
                     0);
    assert_true(brock_site_cookies_get(sc, "10.0.0.7", "one.com", got, sizeof(got)) > 0);
    assert_string_equal(got, "lang=en; uid=" UID);
    /* Another client's pages are not this one's. */
    assert_int_equal(brock_site_cookies_get(sc, "10.0.0.8", "one.com", got, sizeof(got)), 0);

    decide(e, &t, "https://px.share.net/p.gif?u=" UID, "www.one.com", BROCK_RESOURCE_IMAGE, 1, sc);
    assert_int_equal(brock_exchange_request(e, &t.x, brock_exchange_flags(e, &t.x), img, 1, &l), 0);
    assert_true(l.recorded);
    assert_string_equal(sites(e, "share.net"), "one.com");
    assert_int_equal(brock__snitch_get(e, "share.net")->v[0].kind, BROCK_EVIDENCE_PIXEL);
    brock_site_cookies_free(sc);
    brock_engine_free(e);
#undef UID
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flags),
        cmocka_unit_test(test_evidence),
        cmocka_unit_test(test_site_cookies_and_pixels),
    };

    return cmocka_run_group_tests_name("exchange", tests, NULL, NULL);
}
