/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Learning (sections 3.1, 3.8, 3.9): evidence, the threshold, blocklistDomain and the
 * cookieblock list, what is never recorded. */
#include "test.h"

#include <string.h>

#include "engine/engine.h"
#include "engine/evidence.h"
#include "util/alloc.h"

static void yellowlist(struct brock_engine *e, const char *d)
{
    assert_int_equal(strmap_put(&e->lists.yellow, d, (void *)1), 0);
    assert_int_equal(strvec_push(&e->lists.yellow_order, d), 0);
}

/* One request from a page of site to host carrying cookie (a Cookie header value). */
static int seen(struct brock_engine *e, const char *host, const char *site, const char *cookie,
                struct brock_learned *l)
{
    struct brock_header h = {"Cookie", 6, cookie, strlen(cookie)};
    struct brock_observation o = {.host = host,
                                  .site = site,
                                  .headers = &h,
                                  .n_headers = 1,
                                  .flags = 0,
                                  .time_ms = 1700000000000};

    assert_int_equal(brock_observe(e, &o, l), 0);
    return l->recorded;
}

static enum brock_action best(struct brock_engine *e, const char *d)
{
    return brock__best_action(e, d, NULL);
}

static void test_three_sites_block(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_learned l;
    struct snitch *s;

    (void)state;
    assert_true(seen(e, "px.tracker.net", "https://www.site-a.com/page", "uid=8f3a9b2c1d", &l));
    assert_string_equal(l.tracker, "tracker.net");
    assert_false(l.blocked);
    assert_int_equal(best(e, "px.tracker.net"), BROCK_ALLOW);
    assert_int_equal(brock__action_get(e, "tracker.net")->heur, BROCK_ALLOW);
    /* the same site twice counts once */
    assert_false(seen(e, "px.tracker.net", "shop.site-a.com", "uid=8f3a9b2c1d", &l));
    assert_true(seen(e, "px.tracker.net", "site-b.org", "uid=8f3a9b2c1d", &l));
    assert_int_equal(best(e, "px.tracker.net"), BROCK_ALLOW);
    assert_true(seen(e, "cdn.tracker.net", "site-c.co.uk", "uid=8f3a9b2c1d", &l));
    assert_true(l.blocked);
    assert_int_equal(best(e, "px.tracker.net"), BROCK_BLOCK);
    assert_int_equal(brock__action_get(e, "cdn.tracker.net")->heur, BROCK_BLOCK);
    assert_int_equal(brock__action_get(e, "tracker.net")->heur, BROCK_BLOCK);
    s = brock__snitch_get(e, "tracker.net");
    assert_int_equal(s->n, 3);
    assert_string_equal(s->v[0].site, "site-a.com");
    assert_string_equal(s->v[2].site, "site-c.co.uk");
    assert_string_equal(s->v[2].host, "cdn.tracker.net");
    assert_string_equal(s->v[2].detail, "uid");
    assert_int_equal(s->v[2].kind, BROCK_EVIDENCE_COOKIE);
    /* decided: a fourth site is not recorded */
    assert_false(seen(e, "tracker.net", "site-d.com", "uid=8f3a9b2c1d", &l));
    assert_int_equal(s->n, 3);
    brock_engine_free(e);
}

/* Requests that are no evidence: host on site with cookie, none of them recorded. */
static const struct {
    const char *host, *site, *cookie;
} not_evidence[] = {
    /* low-entropy cookies */
    {"lang.example", "a.com", "lang=en"},
    {"lang.example", "b.com", "consent=yes; dnt=1"},
    /* first party and one owner's domains */
    {"cdn.a.com", "www.a.com", "uid=8f3a9b2c1d"},
    /* unknown first party: not learned */
    {"t.example", NULL, "uid=8f3a9b2c1d"},
    /* never recorded */
    {"x.consensu.org", "a.com", "uid=8f3a9b2c1d"},
    {"abc.id.opendns.com", "a.com", "uid=8f3a9b2c1d"},
    /* private hosts */
    {"192.168.1.1", "a.com", "uid=8f3a9b2c1d"},
};

static void test_not_evidence(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_learned l;
    struct brock_observation o = {.host = "img.eff.org",
                                  .site = "news.example",
                                  .headers = NULL,
                                  .n_headers = 0,
                                  .flags = 0,
                                  .time_ms = 0};

    (void)state;
    for (size_t i = 0; i < sizeof(not_evidence) / sizeof(not_evidence[0]); i++) {
        if (seen(e, not_evidence[i].host, not_evidence[i].site, not_evidence[i].cookie, &l))
            fail_msg("row %zu: %s on %s with \"%s\" was recorded", i, not_evidence[i].host,
                     not_evidence[i].site ? not_evidence[i].site : "(no site)",
                     not_evidence[i].cookie);
    }
    /* no cookies at all */
    assert_int_equal(brock_observe(e, &o, &l), 0);
    assert_false(l.recorded);
    assert_int_equal(e->actions.len, 0);
    assert_int_equal(e->snitches.len, 0);
    brock_engine_free(e);
}

static void test_set_cookie_and_beacon(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_header h = {"Set-Cookie", 10, "id=Zm9vYmFy; Path=/; HttpOnly", 29};
    struct brock_observation o = {.host = "ads.example",
                                  .site = "a.com",
                                  .headers = &h,
                                  .n_headers = 1,
                                  .flags = 0,
                                  .time_ms = 5};
    struct brock_observation b = {.host = "ping.example",
                                  .site = "a.com",
                                  .headers = NULL,
                                  .n_headers = 0,
                                  .flags = BROCK_OBS_BEACON,
                                  .time_ms = 6};
    struct brock_learned l;
    struct tracking *t;

    (void)state;
    assert_int_equal(brock_observe(e, &o, &l), 0);
    assert_true(l.recorded);
    assert_int_equal(brock__snitch_get(e, "ads.example")->v[0].kind, BROCK_EVIDENCE_SET_COOKIE);
    assert_int_equal(brock__snitch_get(e, "ads.example")->v[0].time_ms, 5);
    assert_int_equal(brock_observe(e, &b, &l), 0);
    assert_true(l.recorded);
    t = strmap_get(&e->tracking, "ping.example");
    assert_non_null(t);
    assert_string_equal(t->v[0].site, "a.com");
    assert_int_equal(t->v[0].kinds, BROCK__TRACK_BEACON);
    brock_engine_free(e);
}

/* Content-Type values: the media type text/ping, with or without parameters, is a ping. */
static void test_beacon_type(void **state)
{
    static const struct {
        const char *ct;
        int beacon;
    } cases[] = {
        {"text/ping", 1},
        {"TEXT/Ping", 1},
        {"text/ping;charset=utf-8", 1},
        {"text/ping; charset=UTF-8", 1},
        {" text/ping ", 1},
        {"text/ping\t; x=y", 1},
        {"", 0},
        {"text/pin", 0},
        {"text/pingback", 0},
        {"text/ping-x", 0},
        {"text/ping,text/plain", 0},
        {"text/plain", 0},
        {"application/ping", 0},
        {"xtext/ping", 0},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = strlen(cases[i].ct);

        if (brock_is_beacon_type(cases[i].ct, n) != cases[i].beacon)
            fail_msg("\"%s\": expected %d", cases[i].ct, cases[i].beacon);
        /* Only the length given is read: a value cut short is judged as what is left. */
        if (n > 9 && brock_is_beacon_type(cases[i].ct, 8))
            fail_msg("\"%.8s\" (cut) is not text/ping", cases[i].ct);
    }
}

static void test_learning_off(void **state)
{
    struct brock_config cfg = {.no_learn = 1};
    struct brock_engine *e = test_engine_with(&cfg);
    struct brock_learned l;

    (void)state;
    assert_false(brock_engine_learning(e));
    assert_false(seen(e, "t.example", "a.com", "uid=8f3a9b2c1d", &l));
    brock_engine_free(e);

    e = test_engine_open(NULL, NULL, 0);
    assert_true(brock_engine_learning(e));
    assert_int_equal(json_object_set_new(e->settings, "learnLocally", json_false()), 0);
    brock__settings_changed(e);
    assert_false(brock_engine_learning(e));
    assert_false(seen(e, "t.example", "a.com", "uid=8f3a9b2c1d", &l));
    brock_engine_free(e);
}

/* The heuristic actions an entry must have. */
struct heur_is {
    const char *domain;
    int heur;
};

static void heur_rows(struct brock_engine *e, const struct heur_is *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct action_entry *a = brock__action_get(e, rows[i].domain);

        if (!a || a->heur != rows[i].heur)
            fail_msg("row %zu: %s is %s, not %s", i, rows[i].domain,
                     a ? brock__heur_name(a->heur) : "not in the map",
                     brock__heur_name(rows[i].heur));
    }
}

/* the base itself listed: cookieblock */
static const struct heur_is listed_base[] = {
    {"widgets.example", BROCK_COOKIEBLOCK},
    {"a.widgets.example", BROCK_COOKIEBLOCK},
};

/* a parent of the FQDN listed (down to the TLD): the FQDN cookieblocked, the base blocked;
 * listed subdomains of the base are cookieblocked too */
static const struct heur_is listed_parent[] = {
    {"big.example", BROCK_BLOCK},
    {"x.cdn.big.example", BROCK_COOKIEBLOCK},
    {"cdn.big.example", BROCK_COOKIEBLOCK},
    {"api.big.example", BROCK_COOKIEBLOCK},
};

static void test_yellowlist_blocklist(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);

    (void)state;
    yellowlist(e, "widgets.example");
    assert_int_equal(brock__blocklist_domain(e, "widgets.example", "a.widgets.example"), 0);
    heur_rows(e, listed_base, sizeof(listed_base) / sizeof(listed_base[0]));

    yellowlist(e, "cdn.big.example");
    yellowlist(e, "api.big.example");
    assert_int_equal(brock__blocklist_domain(e, "big.example", "x.cdn.big.example"), 0);
    heur_rows(e, listed_parent, sizeof(listed_parent) / sizeof(listed_parent[0]));
    assert_int_equal(best(e, "api.big.example"), BROCK_COOKIEBLOCK);
    assert_int_equal(best(e, "other.big.example"), BROCK_BLOCK);
    assert_true(brock__would_cookieblock(&e->lists, "deep.x.cdn.big.example"));
    assert_false(brock__would_cookieblock(&e->lists, "big.example"));
    brock_engine_free(e);
}

static void test_learned_yellowlisted_tracker(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_learned l;

    (void)state;
    yellowlist(e, "cookies.example");
    seen(e, "cookies.example", "a.com", "sid=0123456789abcdef", &l);
    seen(e, "cookies.example", "b.com", "sid=0123456789abcdef", &l);
    seen(e, "cookies.example", "c.com", "sid=0123456789abcdef", &l);
    assert_true(l.blocked);
    assert_int_equal(best(e, "cookies.example"), BROCK_COOKIEBLOCK);
    brock_engine_free(e);
}

static void test_cname_uncloaked(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_decision d;
    struct brock_learned l;
    char *target = strdup("site-tracker.affex.example");

    (void)state;
    assert_int_equal(strmap_put(&e->lists.cname, "metrics.news.example", target), 0);
    seen(e, "metrics.news.example", "news.example", "uid=8f3a9b2c1d", &l);
    assert_true(l.recorded);
    assert_string_equal(l.tracker, "affex.example");
    assert_int_equal(brock_decide(e, "metrics.news.example", "news.example", &d), 0);
    assert_string_equal(d.tracker, "site-tracker.affex.example");
    assert_int_equal(d.third_party, 1);
    assert_int_equal(d.action, BROCK_ALLOW);
    strmap_del(&e->lists.cname, "metrics.news.example");
    free(target);
    brock_engine_free(e);
}

/* A cookie's name is bytes off the wire; what the state keeps of it is text (PostgreSQL and
 * JSON take nothing else): each malformed sequence reads as U+FFFD, as a browser reads it. */
static void test_evidence_is_utf8(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_learned l;
    struct snitch *s;
    char *dup;

    (void)state;
    assert_true(seen(e, "px.tracker.net", "site-a.com", "uid\xe9x=8f3a9b2c1d7e", &l));
    assert_true(seen(e, "px.tracker.net", "site-b.com", "caf\xc3\xa9=8f3a9b2c1d7e", &l));
    s = brock__snitch_get(e, "tracker.net");
    assert_non_null(s);
    assert_int_equal(s->n, 2);
    assert_string_equal(s->v[0].detail, "uid\xef\xbf\xbdx");
    assert_string_equal(s->v[1].detail, "caf\xc3\xa9"); /* valid text as it was */
    /* A cut sequence, an overlong form, a lone continuation byte. */
    dup = brock__utf8_dup("a\xe2\x82|\xc0\xaf|\x80");
    assert_string_equal(dup, "a\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd");
    mem_free(dup);
    brock_engine_free(e);
}

/* updateTrackerPrevalence for tracker on site, and what it returns. */
static const struct {
    const char *tracker, *site;
    int want;
} prevalence[] = {
    /* it records nothing once a user decided (t.example: allowed) */
    {"t.example", "a.com", 0},
    {"u.example", "a.com", 1},
    {"u.example", "b.com", 1},
    {"u.example", "c.com", 2},
};

static void test_threshold_via_update_prevalence(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);

    (void)state;
    assert_int_equal(brock_set_user_action(e, "t.example", BROCK_USER_ALLOW), 0);
    for (size_t i = 0; i < sizeof(prevalence) / sizeof(prevalence[0]); i++) {
        int got = brock__update_tracker_prevalence(e, prevalence[i].tracker, prevalence[i].tracker,
                                                   prevalence[i].site, NULL);

        if (got != prevalence[i].want)
            fail_msg("row %zu: %s on %s gives %d, not %d", i, prevalence[i].tracker,
                     prevalence[i].site, got, prevalence[i].want);
    }
    assert_null(brock__snitch_get(e, "t.example"));
    assert_int_equal(best(e, "u.example"), BROCK_BLOCK);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_sites_block),
        cmocka_unit_test(test_not_evidence),
        cmocka_unit_test(test_set_cookie_and_beacon),
        cmocka_unit_test(test_beacon_type),
        cmocka_unit_test(test_learning_off),
        cmocka_unit_test(test_yellowlist_blocklist),
        cmocka_unit_test(test_learned_yellowlisted_tracker),
        cmocka_unit_test(test_cname_uncloaked),
        cmocka_unit_test(test_evidence_is_utf8),
        cmocka_unit_test(test_threshold_via_update_prevalence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
