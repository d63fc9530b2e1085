/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Privacy Badger's site fixes (sections 4.1 and 8) as Privacy Badger's own pbconfig.json
 * lists them: third parties left alone or cookieblocked on named site hosts, and sites
 * that get no DNT/GPC. */
#include "test.h"

#include <string.h>

#include "engine/engine.h"

static void set_heur(struct brock_engine *e, const char *domain, int heur)
{
    struct action_entry *a = brock__action_ensure(e, domain);

    assert_non_null(a);
    a->heur = (uint8_t)heur;
}

static void decide(struct brock_engine *e, const char *host, const char *site,
                   struct brock_decision *d)
{
    assert_int_equal(brock_decide(e, host, site, d), 0);
}

/* sitefixes.ignore: "doubleclick.net" on www.youtube.com. */
static void test_ignore(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);
    struct brock_decision d;
    char why[256];

    (void)state;
    set_heur(e, "doubleclick.net", BROCK_BLOCK);
    decide(e, "ad.doubleclick.net", "www.youtube.com", &d);
    assert_int_equal(d.reason, BROCK_WHY_IGNORED);
    assert_int_equal(d.effect, BROCK_PASS);
    assert_int_equal(d.third_party, 1);
    brock_decision_explain(e, &d, why, sizeof(why));
    assert_non_null(strstr(why, "site fixes"));
    decide(e, "doubleclick.net", "WWW.YouTube.COM.", &d);
    assert_int_equal(d.reason, BROCK_WHY_IGNORED);
    /* keyed by the exact site host: the base or another subdomain is not covered */
    decide(e, "ad.doubleclick.net", "youtube.com", &d);
    assert_int_equal(d.effect, BROCK_DENY);
    decide(e, "ad.doubleclick.net", "music.youtube.com", &d);
    assert_int_equal(d.effect, BROCK_DENY);
    /* a name that merely ends in the pattern is not under it */
    set_heur(e, "xdoubleclick.net", BROCK_BLOCK);
    decide(e, "xdoubleclick.net", "www.youtube.com", &d);
    assert_int_equal(d.effect, BROCK_DENY);
    /* ignore wins even over a user's block, as checkAction tests it first */
    assert_int_equal(brock_set_user_action(e, "ad.doubleclick.net", BROCK_USER_BLOCK), 0);
    decide(e, "ad.doubleclick.net", "www.youtube.com", &d);
    assert_int_equal(d.effect, BROCK_PASS);
    /* an unknown page has no site fixes */
    decide(e, "ad.doubleclick.net", NULL, &d);
    assert_int_equal(d.effect, BROCK_DENY);
    brock_engine_free(e);
}

/* sitefixes.yellowlist: "2mdn.net" and "try.abtasty.com" on their sites. */
static void test_yellowlist(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);
    struct brock_decision d;
    char why[256];

    (void)state;
    set_heur(e, "2mdn.net", BROCK_BLOCK);
    decide(e, "s0.2mdn.net", "www.crunchyroll.com", &d);
    assert_int_equal(d.reason, BROCK_WHY_ACTION);
    assert_int_equal(d.action, BROCK_COOKIEBLOCK);
    assert_int_equal(d.effect, BROCK_STRIP_COOKIES);
    assert_int_equal(d.site_fix, 1);
    brock_decision_explain(e, &d, why, sizeof(why));
    assert_non_null(strstr(why, "site fixes cookieblock s0.2mdn.net"));
    decide(e, "s0.2mdn.net", "www.example.com", &d);
    assert_int_equal(d.effect, BROCK_DENY);
    assert_int_equal(d.site_fix, 0);
    /* forced even on a name that never tracked */
    decide(e, "try.abtasty.com", "www.tickpick.com", &d);
    assert_int_equal(d.action, BROCK_COOKIEBLOCK);
    decide(e, "try.abtasty.com", "www.example.com", &d);
    assert_int_equal(d.action, BROCK_NOACTION);
    /* and over dnt, but never over a user's choice */
    assert_int_equal(brock_dnt_record(e, "s1.2mdn.net", 1), 0);
    decide(e, "s1.2mdn.net", "www.crunchyroll.com", &d);
    assert_int_equal(d.action, BROCK_COOKIEBLOCK);
    assert_int_equal(brock_set_user_action(e, "s0.2mdn.net", BROCK_USER_BLOCK), 0);
    decide(e, "s0.2mdn.net", "www.crunchyroll.com", &d);
    assert_int_equal(d.action, BROCK_USER_BLOCK);
    assert_int_equal(d.site_fix, 0);
    brock_engine_free(e);
}

/* sitefixes.gpc, the sendDNTSignal setting and disabled sites decide the signals. */
static void test_signals(void **state)
{
    struct brock_engine *e = test_engine_pb(NULL);

    (void)state;
    assert_int_equal(brock_send_signals(e, "www.example.com"), 1);
    assert_int_equal(brock_send_signals(e, NULL), 1);
    assert_int_equal(brock_send_signals(e, "www.costco.com"), 0);
    assert_int_equal(brock_send_signals(e, "WWW.Costco.com."), 0);
    assert_int_equal(brock_send_signals(e, "gopro.com"), 0);
    assert_int_equal(brock_send_signals(e, "costco.com"), 1);
    assert_int_equal(brock_send_signals(e, "shop.www.costco.com"), 1);
    assert_int_equal(brock_site_set_disabled(e, "bank.example", 1), 0);
    assert_int_equal(brock_send_signals(e, "www.bank.example"), 0);
    assert_int_equal(brock_send_signals(e, "www.example.com"), 1);
    assert_int_equal(brock_setting_set(e, BROCK_SETTING_SEND_DNT, 0), 0);
    assert_int_equal(brock_send_signals(e, "www.example.com"), 0);
    brock_engine_free(e);
}

/* What an update brings replaces the fixes; a bad shape anywhere is refused whole. */
static void test_replaced_and_checked(void **state)
{
    static const char *const bad[] = {
        "\"sitefixes\": []",
        "\"sitefixes\": {\"ignore\": []}",
        "\"sitefixes\": {\"ignore\": {\"a.example\": \"www.b.example\"}}",
        "\"sitefixes\": {\"ignore\": {\"a.example\": [1]}}",
        "\"sitefixes\": {\"yellowlist\": {\"not a host\": [\"www.b.example\"]}}",
        "\"sitefixes\": {\"gpc\": {\"www.b.example\": true}}",
        "\"sitefixes\": {\"gpc\": [\"\"]}",
    };
    struct brock_engine *e = test_engine_pb(NULL);
    struct brock_decision d;
    struct brock_update_stats st;
    char text[512];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        snprintf(text, sizeof(text), "{\"yellowlist\": [\"a.example\"], %s}", bad[i]);
        if (brock_update_apply(e, "test", text, strlen(text), 1, NULL) != BROCK_EFORMAT)
            fail_msg("accepted: %s", bad[i]);
        assert_non_null(strstr(brock_engine_errmsg(e), "sitefixes"));
        assert_int_equal(brock_send_signals(e, "www.costco.com"), 0);
        assert_true(brock__yellowlisted(&e->lists, "googleapis.com"));
    }
    snprintf(text, sizeof(text),
             "{\"yellowlist\": [\"a.example\"], \"sitefixes\": {\"ignore\": {\"t.example\": "
             "[\"www.s.example\", \"m.s.example\"]}, \"gpc\": [\"www.s.example\"], "
             "\"futurefix\": 3}}");
    assert_int_equal(brock_update_apply(e, "test", text, strlen(text), 1, &st), 0);
    assert_int_equal(st.site_fixes, 3);
    set_heur(e, "t.example", BROCK_BLOCK);
    decide(e, "x.t.example", "m.s.example", &d);
    assert_int_equal(d.reason, BROCK_WHY_IGNORED);
    assert_int_equal(brock_send_signals(e, "www.s.example"), 0);
    assert_int_equal(brock_send_signals(e, "www.costco.com"), 1);
    set_heur(e, "doubleclick.net", BROCK_BLOCK);
    decide(e, "ad.doubleclick.net", "www.youtube.com", &d);
    assert_int_equal(d.effect, BROCK_DENY);
    /* a configuration without site fixes has none */
    snprintf(text, sizeof(text), "{\"yellowlist\": [\"a.example\"]}");
    assert_int_equal(brock_update_apply(e, "test", text, strlen(text), 1, &st), 0);
    assert_int_equal(st.site_fixes, 0);
    decide(e, "x.t.example", "m.s.example", &d);
    assert_int_equal(d.effect, BROCK_DENY);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ignore),
        cmocka_unit_test(test_yellowlist),
        cmocka_unit_test(test_signals),
        cmocka_unit_test(test_replaced_and_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
