/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * CNAME chains from live DNS (src/engine/uncloak.c): a first-party host aliased to a tracker
 * is decided as the tracker, and no evidence is read through a chain; every name is judged, the
 * strongest decides; a name on the cookieblock list, allowed by the user or turned off ends
 * the walk; the user's own choice for the host, the page's own host, a paused brock and the
 * switch turned off leave the host as it is; a chain replaced or emptied is forgotten.
 */
#include "test.h"

#include <string.h>

#include "brock.h"
#include "engine/engine.h"
#include "fixture.h"

/* An engine with no lists: nothing on the cookieblock list but what a test adds. */
static struct brock_engine *bare(void)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    assert_non_null(e);
    return e;
}

static void chain(struct brock_engine *e, const char *host, const char *a, const char *b)
{
    const char *names[] = {a, b};

    assert_int_equal(brock_cname_chain_set(e, host, names, b ? 2 : a ? 1 : 0), 0);
}

static struct brock_decision decide(struct brock_engine *e, const char *host, const char *site)
{
    struct brock_decision d;

    assert_int_equal(brock_decide(e, host, site, &d), 0);
    return d;
}

/* Cookies sent to host from a page of site: identifying ones, evidence. */
static int tracked(struct brock_engine *e, const char *host, const char *site)
{
    static const char cookie[] = "uid=4f9a8c2e7b1d3a6f5e0c";
    struct brock_header h = {"Cookie", 6, cookie, sizeof(cookie) - 1};
    struct brock_observation o = {
        .host = host, .site = site, .headers = &h, .n_headers = 1, .time_ms = 1700000000000};
    struct brock_learned l;

    assert_int_equal(brock_observe(e, &o, &l), 0);
    return l.recorded;
}

static void test_first_party_alias_is_the_tracker(void **state)
{
    struct brock_engine *e = bare();
    struct brock_decision d;

    (void)state;
    assert_int_equal(brock_set_user_action(e, "eulerian.net", BROCK_USER_BLOCK), 0);
    d = decide(e, "metrics.shop.example", "www.shop.example");
    assert_int_equal(d.effect, BROCK_PASS);
    assert_int_equal(d.reason, BROCK_WHY_FIRST_PARTY);

    chain(e, "metrics.shop.example", "shop.example.eulerian.net", "edge.eulerian.net");
    d = decide(e, "metrics.shop.example", "www.shop.example");
    assert_int_equal(d.effect, BROCK_DENY);
    assert_true(d.via_dns);
    assert_true(d.third_party);
    assert_string_equal(d.host, "metrics.shop.example");
    assert_string_equal(d.tracker, "edge.eulerian.net"); /* the later name on a tie */
    assert_string_equal(d.base, "eulerian.net");
    /* Asked again, the kept answer says the same. */
    d = decide(e, "metrics.shop.example", "www.shop.example");
    assert_int_equal(d.effect, BROCK_DENY);
    assert_true(d.via_dns);
    assert_string_equal(d.tracker, "edge.eulerian.net");

    /* The chain forgotten: the host is first party again. */
    chain(e, "metrics.shop.example", NULL, NULL);
    d = decide(e, "metrics.shop.example", "www.shop.example");
    assert_int_equal(d.effect, BROCK_PASS);
    assert_false(d.via_dns);
    brock_engine_free(e);
}

static void test_strongest_name_decides(void **state)
{
    struct brock_engine *e = bare();
    struct brock_decision d;

    (void)state;
    assert_int_equal(brock_set_user_action(e, "cookies.example", BROCK_USER_COOKIEBLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "blocked.example", BROCK_USER_BLOCK), 0);
    chain(e, "m.shop.example", "x.blocked.example", "y.cookies.example");
    d = decide(e, "m.shop.example", "shop.example");
    assert_int_equal(d.effect, BROCK_DENY);
    assert_string_equal(d.tracker, "x.blocked.example");

    /* A blocked host stays blocked behind a chain to nothing known. */
    assert_int_equal(brock_set_user_action(e, "ads.other.example", BROCK_USER_BLOCK), 0);
    chain(e, "ads.other.example", "ads.other.example.cdn.example", NULL);
    d = decide(e, "ads.other.example", "shop.example");
    assert_int_equal(d.effect, BROCK_DENY);
    assert_false(d.via_dns);
    assert_string_equal(d.tracker, "ads.other.example");
    brock_engine_free(e);
}

static void test_walk_ends(void **state)
{
    struct brock_engine *e = bare();
    struct brock_decision d;

    (void)state;
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);

    /* A CDN on the cookieblock list ends the walk before the tracker behind it. */
    assert_int_equal(strmap_put(&e->lists.yellow, "cdn.example", (void *)1), 0);
    brock__answers_forget(e);
    chain(e, "static.shop.example", "shop.edge.cdn.example", "t.tracker.example");
    d = decide(e, "static.shop.example", "shop.example");
    assert_int_equal(d.effect, BROCK_PASS);
    assert_false(d.via_dns);

    /* Allowed by the user. */
    chain(e, "img.shop.example", "img.allowed.example", "t.tracker.example");
    assert_int_equal(brock_set_user_action(e, "allowed.example", BROCK_USER_ALLOW), 0);
    d = decide(e, "img.shop.example", "shop.example");
    assert_int_equal(d.effect, BROCK_PASS);

    /* Turned off for one target, and its names. */
    chain(e, "m.shop.example", "m.tracker.example", NULL);
    assert_int_equal(decide(e, "m.shop.example", "shop.example").effect, BROCK_DENY);
    assert_int_equal(brock_cname_target_set(e, "tracker.example", 1), 0);
    assert_true(brock_cname_target_off(e, "m.tracker.example"));
    assert_int_equal(decide(e, "m.shop.example", "shop.example").effect, BROCK_PASS);
    assert_int_equal(brock_cname_target_set(e, "*.tracker.example", 0), 0);
    assert_false(brock_cname_target_off(e, "m.tracker.example"));
    assert_int_equal(decide(e, "m.shop.example", "shop.example").effect, BROCK_DENY);
    assert_int_equal(brock_cname_target_set(e, "com", 1), BROCK_EINVAL);

    /* Off entirely. */
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_UNCLOAK, 0), 0);
    assert_int_equal(decide(e, "m.shop.example", "shop.example").effect, BROCK_PASS);
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_UNCLOAK, 1), 0);
    assert_int_equal(decide(e, "m.shop.example", "shop.example").effect, BROCK_DENY);
    brock_engine_free(e);
}

static void test_host_stands(void **state)
{
    struct brock_engine *e = bare();
    struct brock_decision d;

    (void)state;
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);
    chain(e, "m.shop.example", "m.tracker.example", NULL);
    chain(e, "www.shop.example", "www.tracker.example", NULL);

    /* The page's own host is never another's. */
    assert_int_equal(decide(e, "www.shop.example", "www.shop.example").effect, BROCK_PASS);
    /* Names of the host's own base are skipped, not judged. */
    chain(e, "a.own.example", "b.own.example", NULL);
    assert_int_equal(brock_set_user_action(e, "b.own.example", BROCK_USER_BLOCK), 0);
    d = decide(e, "a.own.example", "shop.example");
    assert_int_equal(d.effect, BROCK_PASS);
    assert_false(d.via_dns);

    /* The user's choice for the host itself stands. */
    assert_int_equal(brock_set_user_action(e, "m.shop.example", BROCK_USER_ALLOW), 0);
    assert_int_equal(decide(e, "m.shop.example", "other.example").effect, BROCK_PASS);
    assert_int_equal(brock_set_user_action(e, "m.shop.example", BROCK_NOACTION), 0);
    assert_int_equal(decide(e, "m.shop.example", "other.example").effect, BROCK_DENY);

    /* Disabled there. */
    assert_int_equal(brock_site_set_disabled(e, "shop.example", 1), 0);
    assert_int_equal(decide(e, "m.shop.example", "shop.example").effect, BROCK_PASS);
    brock_engine_free(e);
}

/* Cookies sent to aliases are no evidence against what DNS points them at: a site's DNS could
 * point them anywhere. What brock knows of the target applies to them all the same. */
static void test_not_learned_through_dns(void **state)
{
    struct brock_engine *e = bare();
    const char *sites[] = {"one.example", "two.example", "three.example"};
    char alias[64];

    (void)state;
    for (size_t i = 0; i < 3; i++) {
        snprintf(alias, sizeof(alias), "metrics.%s", sites[i]);
        chain(e, alias, "collect.victim.example", NULL);
        assert_false(tracked(e, alias, sites[i]));
        /* The same cookies sent to another site's host are evidence, against that host. */
        assert_true(tracked(e, "px.tracker.example", sites[i]));
    }
    assert_int_equal(brock__best_action(e, "victim.example", NULL), BROCK_NOACTION);
    assert_int_equal(brock__best_action(e, "tracker.example", NULL), BROCK_BLOCK);
    assert_int_equal(decide(e, "metrics.one.example", "one.example").effect, BROCK_PASS);
    /* A target brock knows is a tracker blocks its aliases, a fourth site's the moment its
     * chain is known. */
    chain(e, "stats.four.example", "c.tracker.example", NULL);
    assert_int_equal(decide(e, "stats.four.example", "four.example").effect, BROCK_DENY);
    brock_engine_free(e);
}

static void test_bad_input(void **state)
{
    struct brock_engine *e = bare();
    const char *names[BROCK_CNAME_CHAIN_MAX + 1], *got[BROCK_CNAME_CHAIN_MAX];
    const char *bad[] = {"ok.example", "not a name"};

    (void)state;
    for (size_t i = 0; i <= BROCK_CNAME_CHAIN_MAX; i++)
        names[i] = "n.example";
    assert_int_equal(brock_cname_chain_set(e, "h.example", names, BROCK_CNAME_CHAIN_MAX + 1),
                     BROCK_EINVAL);
    assert_int_equal(brock_cname_chain_set(e, "h.example", bad, 2), BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "not a name"));
    assert_int_equal(brock_cname_chain_set(e, "", names, 1), BROCK_EINVAL);
    assert_int_equal(brock_cname_chain_get(e, "h.example", got, 8), 0);
    /* Names are kept normalised, as a request's host is. */
    assert_int_equal(brock_cname_chain_set(e, "H.Example", (const char *[]){"A.Example."}, 1), 0);
    assert_int_equal(brock_cname_chain_get(e, "h.example", got, 8), 1);
    assert_string_equal(got[0], "a.example");
    brock_engine_free(e);
}

/* More hosts than are kept: the oldest chains make room, and decisions stay right. */
static void test_bounded(void **state)
{
    struct brock_engine *e = bare();
    const char *got[1];
    char host[64];

    (void)state;
    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);
    for (unsigned i = 0; i < 8192 + 10; i++) {
        snprintf(host, sizeof(host), "h%u.shop.example", i);
        chain(e, host, "t.tracker.example", NULL);
    }
    assert_int_equal(brock_cname_chain_get(e, "h0.shop.example", got, 1), 0);
    assert_int_equal(brock_cname_chain_get(e, "h9.shop.example", got, 1), 0);
    assert_int_equal(brock_cname_chain_get(e, "h10.shop.example", got, 1), 1);
    assert_int_equal(decide(e, "h0.shop.example", "shop.example").effect, BROCK_PASS);
    assert_int_equal(decide(e, "h8201.shop.example", "shop.example").effect, BROCK_DENY);
    /* A chain told again is kept where it was; a host forgotten and told again comes back. */
    chain(e, "h10.shop.example", "t.tracker.example", NULL);
    chain(e, "h0.shop.example", "t.tracker.example", NULL);
    assert_int_equal(decide(e, "h0.shop.example", "shop.example").effect, BROCK_DENY);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_party_alias_is_the_tracker),
        cmocka_unit_test(test_strongest_name_decides),
        cmocka_unit_test(test_walk_ends),
        cmocka_unit_test(test_host_stands),
        cmocka_unit_test(test_not_learned_through_dns),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_bounded),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
