/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * brock off for a while (pause.c): durations as people type them; a pause, which every
 * decision, signal and page of every site obeys until brock_expire() is given a time past its
 * end; a site disabled until a time; both kept in the state, over at an open after their end,
 * carried to another process, and neither exported nor imported as Privacy Badger's; a public
 * suffix refused as a site to disable, an address taken.
 */
#include "test.h"

#include <string.h>

#include "engine/engine.h"
#include "util/clock.h"

#define TRACKER "ads.tracker.example"
#define SITE "www.news.example"

static int setup(void **state)
{
    *state = test_fixture_new("pause");
    return 0;
}

static struct brock_decision decide(struct brock_engine *e, const char *host, const char *site)
{
    struct brock_decision d;

    assert_int_equal(brock_decide(e, host, site, &d), 0);
    return d;
}

/* An engine in memory where TRACKER is blocked by the user. */
static struct brock_engine *blocking(void)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);

    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);
    return e;
}

/* What brock_expire() reports ending, "pause" for the pause, joined by spaces. */
struct ended {
    char text[512];
};

static void on_end(void *arg, const char *site)
{
    struct ended *x = arg;
    size_t used = strlen(x->text);

    snprintf(x->text + used, sizeof(x->text) - used, "%s%s", used ? " " : "",
             site ? site : "pause");
}

/* ---- durations ---- */

static void test_duration(void **state)
{
    static const struct {
        const char *text;
        int64_t ms;
    } good[] = {
        {"30s", 30000},      {"10m", 600000},      {"1h", 3600000},
        {"2h30m", 9000000},  {"1d12h", 129600000}, {"7d", BROCK_DURATION_MAX_MS},
        {"1h0m5s", 3605000}, {"90m", 5400000},     {"0d1s", 1000},
    };
    static const char *const bad[] = {"",     "10",  "m",   "10x", "1m1h", "1h1h", "-1m",
                                      "1.5h", " 1m", "1m ", "10M", "h1",   "1hm"};
    char err[256];
    int64_t ms;

    (void)state;
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        ms = -1;
        assert_int_equal(brock_duration_parse(good[i].text, &ms, err, sizeof(err)), 0);
        assert_int_equal(ms, good[i].ms);
    }
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ms = -1;
        assert_int_equal(brock_duration_parse(bad[i], &ms, err, sizeof(err)), BROCK_EINVAL);
        assert_int_equal(ms, -1);
        assert_non_null(strstr(err, "is not a duration: give numbers with their units"));
    }
    assert_int_equal(brock_duration_parse("0m", &ms, err, sizeof(err)), BROCK_EINVAL);
    assert_string_equal(err, "'0m' is no time at all: give at least one second");
    assert_int_equal(brock_duration_parse("0h0m0s", &ms, err, sizeof(err)), BROCK_EINVAL);
    for (const char *const *t =
             (const char *const[]){"8d", "7d1s", "169h", "99999999999s", "1000000000d", NULL};
         *t; t++) {
        assert_int_equal(brock_duration_parse(*t, &ms, err, sizeof(err)), BROCK_EINVAL);
        assert_non_null(strstr(err, "is more than 7 days"));
    }
    assert_int_equal(brock_duration_parse(NULL, &ms, NULL, 0), BROCK_EINVAL);
}

/* ---- the pause ---- */

static void test_pause_decisions(void **state)
{
    struct brock_engine *e = blocking();
    int64_t now = clock_now_ms(), until = 0;
    struct ended x = {""};
    struct brock_decision d;

    (void)state;
    assert_int_equal(decide(e, TRACKER, SITE).effect, BROCK_DENY);
    assert_int_equal(decide(e, TRACKER, NULL).effect, BROCK_DENY);
    assert_true(brock_send_signals(e, SITE));
    assert_int_equal(brock_paused(e, now, NULL), 0);
    assert_int_equal(brock_next_end(e), 0);

    assert_int_equal(brock_pause(e, now + 60000), 0);
    /* Every site, and a page brock does not know, as a disabled site: nothing denied. */
    d = decide(e, TRACKER, SITE);
    assert_int_equal(d.reason, BROCK_WHY_DISABLED);
    assert_int_equal(d.effect, BROCK_PASS);
    assert_int_equal(decide(e, TRACKER, NULL).reason, BROCK_WHY_DISABLED);
    assert_int_equal(decide(e, TRACKER, "other.example").effect, BROCK_PASS);
    assert_int_equal(decide(e, "news.example", SITE).reason, BROCK_WHY_FIRST_PARTY);
    assert_false(brock_send_signals(e, SITE));
    assert_false(brock_send_signals(e, NULL));
    assert_true(brock_site_is_disabled(e, "any.example"));
    {
        char why[256];

        d = decide(e, TRACKER, SITE);
        brock_decision_explain(e, &d, why, sizeof(why));
        assert_string_equal(why, "brock is paused: it changes nothing until it is resumed or "
                                 "the pause ends.");
    }
    assert_int_equal(brock_paused(e, now, &until), 1);
    assert_int_equal(until, now + 60000);
    assert_int_equal(brock_paused(e, now + 60000, NULL), 0);
    assert_int_equal(brock_next_end(e), now + 60000);

    /* Nothing is due before the end; at it, the next decision is brock's again. */
    assert_int_equal(brock_expire(e, now + 59999, on_end, &x), 0);
    assert_int_equal(decide(e, TRACKER, SITE).effect, BROCK_PASS);
    assert_int_equal(brock_expire(e, now + 60000, on_end, &x), 1);
    assert_string_equal(x.text, "pause");
    assert_int_equal(decide(e, TRACKER, SITE).effect, BROCK_DENY);
    assert_int_equal(decide(e, TRACKER, NULL).effect, BROCK_DENY);
    assert_true(brock_send_signals(e, SITE));
    assert_false(brock_site_is_disabled(e, "any.example"));
    assert_int_equal(brock_next_end(e), 0);
    assert_int_equal(brock_expire(e, now + 120000, on_end, &x), 0);
    brock_engine_free(e);
}

static void test_pause_no_end(void **state)
{
    struct brock_engine *e = blocking();
    int64_t until = 0;
    char *text = NULL;
    size_t len = 0;

    (void)state;
    assert_int_equal(brock_pause(e, BROCK_NO_END), 0);
    assert_int_equal(brock_paused(e, INT64_MAX - 1, &until), 1);
    assert_true(until == BROCK_NO_END);
    assert_int_equal(brock_next_end(e), 0);
    assert_int_equal(brock_expire(e, INT64_MAX - 1, NULL, NULL), 0);
    assert_int_equal(decide(e, TRACKER, SITE).effect, BROCK_PASS);
    assert_int_equal(brock_settings_json(e, &text, &len), 0);
    assert_non_null(strstr(text, "\"paused\":true,\"paused_until_ms\":null"));
    brock_free(text);
    assert_int_equal(brock_resume(e), 0);
    assert_int_equal(decide(e, TRACKER, SITE).effect, BROCK_DENY);
    assert_int_equal(brock_resume(e), 0);
    /* An end already past when the pause is asked for is over at once. */
    assert_int_equal(brock_pause(e, 1000), 0);
    assert_int_equal(decide(e, TRACKER, SITE).effect, BROCK_DENY);
    assert_int_equal(brock_pause(e, 0), BROCK_EINVAL);
    assert_int_equal(brock_pause(e, -5), BROCK_EINVAL);
    brock_engine_free(e);
}

/* ---- a site disabled for a while ---- */

static int on_site_until(void *arg, const char *site, int64_t until)
{
    struct ended *x = arg;
    size_t used = strlen(x->text);

    snprintf(x->text + used, sizeof(x->text) - used, "%s%s=%s", used ? " " : "", site,
             until == BROCK_NO_END ? "ever" : "timed");
    return 0;
}

static const char *sites_until(struct brock_engine *e, struct ended *x)
{
    x->text[0] = '\0';
    assert_int_equal(brock_disabled_sites_until_each(e, on_site_until, x), 0);
    return x->text;
}

static void test_site_for_a_while(void **state)
{
    struct brock_engine *e = blocking();
    int64_t now = clock_now_ms();
    struct ended x = {""}, list;
    char *text = NULL;
    size_t len = 0;

    (void)state;
    assert_int_equal(brock_site_disable_until(e, "https://news.example/", now + 2000), 0);
    assert_int_equal(brock_site_set_disabled(e, "bank.example", 1), 0);
    assert_string_equal(sites_until(e, &list), "news.example=timed bank.example=ever");
    assert_int_equal(decide(e, TRACKER, SITE).reason, BROCK_WHY_DISABLED);
    assert_int_equal(decide(e, TRACKER, "other.example").effect, BROCK_DENY);
    assert_int_equal(brock_next_end(e), now + 2000);
    assert_int_equal(brock_settings_json(e, &text, &len), 0);
    assert_non_null(strstr(text, "\"disabled_sites\":[\"news.example\",\"bank.example\"],"
                                 "\"disabled_until\":[{\"site\":\"news.example\",\"until_ms\":"));
    brock_free(text);

    assert_int_equal(brock_expire(e, now + 2000, on_end, &x), 1);
    assert_string_equal(x.text, "news.example");
    assert_string_equal(sites_until(e, &list), "bank.example=ever");
    assert_int_equal(decide(e, TRACKER, SITE).effect, BROCK_DENY);

    /* Disabled for good, a timed site has no end; enabled, it has none either. */
    assert_int_equal(brock_site_disable_until(e, "news.example", now + 5000), 0);
    assert_int_equal(brock_site_set_disabled(e, "news.example", 1), 0);
    assert_int_equal(brock_next_end(e), 0);
    assert_int_equal(brock_expire(e, now + 9000, NULL, NULL), 0);
    assert_string_equal(sites_until(e, &list), "bank.example=ever news.example=ever");
    assert_int_equal(brock_site_disable_until(e, "news.example", now + 5000), 0);
    assert_string_equal(sites_until(e, &list), "bank.example=ever news.example=timed");
    assert_int_equal(brock_site_set_disabled(e, "news.example", 0), 0);
    assert_int_equal(brock_next_end(e), 0);
    assert_string_equal(sites_until(e, &list), "bank.example=ever");
    assert_int_equal(brock_site_disable_until(e, "news.example", 0), BROCK_EINVAL);
    brock_engine_free(e);
}

/* ---- bad sites ---- */

static void test_suffix_refused(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct ended list;

    (void)state;
    for (const char *const *s =
             (const char *const[]){"com", "co.uk", "*.co.uk", "github.io", "https://co.uk/x", NULL};
         *s; s++) {
        assert_int_equal(brock_site_set_disabled(e, *s, 1), BROCK_EINVAL);
        assert_non_null(strstr(brock_engine_errmsg(e), "is a public suffix"));
        assert_int_equal(brock_site_disable_until(e, *s, clock_now_ms() + 1000), BROCK_EINVAL);
    }
    assert_string_equal(brock_engine_errmsg(e),
                        "'co.uk' is a public suffix, under which anyone can have a site: brock "
                        "off there would be off on all of them; give one site (example.co.uk)");
    assert_int_equal(brock_site_set_disabled(e, "1.2.3.4", 1), 0);
    assert_int_equal(brock_site_set_disabled(e, "example.co.uk", 1), 0);
    assert_int_equal(brock_site_set_disabled(e, "user.github.io", 1), 0);
    assert_string_equal(sites_until(e, &list),
                        "1.2.3.4=ever example.co.uk=ever user.github.io=ever");
    assert_int_equal(decide(e, TRACKER, "1.2.3.4").reason, BROCK_WHY_DISABLED);
    /* What an older state or an import put there can still be taken off. */
    assert_int_equal(brock_site_set_disabled(e, "com", 0), 0);
    brock_engine_free(e);
}

/* ---- the state ---- */

static void test_kept(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1), *b;
    int64_t now = clock_now_ms(), until = 0;
    struct ended list;

    assert_int_equal(brock_pause(a, now + 3600000), 0);
    assert_int_equal(brock_site_disable_until(a, "news.example", now + 3600000), 0);
    assert_int_equal(brock_sync(a), 0);
    brock_engine_free(a);
    b = test_fixture_open(f, NULL, 1);
    assert_int_equal(brock_paused(b, now, &until), 1);
    assert_int_equal(until, now + 3600000);
    assert_string_equal(sites_until(b, &list), "news.example=timed");
    assert_int_equal(brock_next_end(b), now + 3600000);
    /* Ended short: 300 ms from now, and found over once they are past. */
    assert_int_equal(brock_pause(b, now + 300), 0);
    assert_int_equal(brock_site_disable_until(b, "news.example", now + 300), 0);
    assert_int_equal(brock_sync(b), 0);
    brock_engine_free(b);
    usleep(400 * 1000);
    a = test_fixture_open(f, NULL, 1);
    assert_int_equal(brock_paused(a, INT64_MIN, NULL), 0);
    assert_string_equal(sites_until(a, &list), "");
    assert_int_equal(decide(a, TRACKER, SITE).reason, BROCK_WHY_ACTION);
    brock_engine_free(a);
}

/* Another process's pause reaches a running one at its sync, and so does the resume; an
 * end applied in one process is not written for the others. */
static void test_other_process(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1);
    struct brock_engine *b = test_fixture_open(f, NULL, 1);
    int64_t now = clock_now_ms();

    assert_int_equal(brock_set_user_action(a, "tracker.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_sync(a), 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(decide(b, TRACKER, SITE).effect, BROCK_DENY);
    assert_int_equal(brock_pause(a, now + 60000), 0);
    assert_int_equal(brock_sync(a), 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(decide(b, TRACKER, SITE).effect, BROCK_PASS);
    assert_int_equal(brock_next_end(b), now + 60000);
    assert_int_equal(brock_expire(a, now + 60000, NULL, NULL), 1);
    assert_int_equal(brock_sync(a), 0);
    assert_int_equal(brock_sync(b), 0);
    assert_int_equal(decide(b, TRACKER, SITE).effect, BROCK_PASS);
    assert_int_equal(brock_expire(b, now + 60000, NULL, NULL), 1);
    assert_int_equal(decide(b, TRACKER, SITE).effect, BROCK_DENY);
    assert_int_equal(brock_pause(b, BROCK_NO_END), 0);
    assert_int_equal(brock_sync(b), 0);
    assert_true(brock_sync(a) > 0);
    assert_int_equal(decide(a, TRACKER, SITE).effect, BROCK_PASS);
    assert_int_equal(brock_resume(a), 0);
    assert_int_equal(brock_sync(a), 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(decide(b, TRACKER, SITE).effect, BROCK_DENY);
    brock_engine_free(b);
    brock_engine_free(a);
}

/* ---- Privacy Badger's JSON ---- */

static void test_pb_json(void **state)
{
    static const char file[] =
        "{\"action_map\": {}, \"snitch_map\": {}, \"settings_map\": {\"brockPausedUntil\": "
        "9000000000000, \"brockDisabledUntil\": {\"bank.example\": 9000000000000}, "
        "\"disabledSites\": [\"news.example\", \"bank.example\"]}}";
    struct brock_engine *e = blocking();
    int64_t now = clock_now_ms();
    char *out = NULL;
    size_t len = 0;
    struct ended list;

    (void)state;
    assert_int_equal(brock_site_disable_until(e, "news.example", now + 60000), 0);
    assert_int_equal(brock_site_set_disabled(e, "shop.example", 1), 0);
    assert_int_equal(brock_pause(e, now + 60000), 0);
    assert_int_equal(brock_export(e, "pb", &out, &len), 0);
    assert_null(strstr(out, "brock"));
    assert_null(strstr(out, "news.example"));
    assert_non_null(strstr(out, "\"disabledSites\": [\n      \"shop.example\"\n    ]"));
    brock_free(out);
    assert_int_equal(brock_resume(e), 0);
    /* A file's disabled site is for good, and a file never pauses brock or times a site. */
    assert_int_equal(brock_import(e, "file", file, strlen(file), NULL), 0);
    assert_int_equal(brock_paused(e, now, NULL), 0);
    assert_string_equal(sites_until(e, &list),
                        "news.example=ever shop.example=ever bank.example=ever");
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_pause_decisions),
        cmocka_unit_test(test_pause_no_end),
        cmocka_unit_test(test_site_for_a_while),
        cmocka_unit_test(test_suffix_refused),
        cmocka_unit_test_setup_teardown(test_kept, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_other_process, setup, test_fixture_teardown),
        cmocka_unit_test(test_pb_json),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
