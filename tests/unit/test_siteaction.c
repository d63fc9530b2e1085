/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The user's choices for one site only: decisions honour them on that site alone, above the
 * choice for every site; a kept answer does not outlive a change; they survive a reopen, reach
 * another process, and follow a version 3 state's migration; the index by site keeps step.
 */
#include "test.h"

#include <string.h>

#include <sqlite3.h>

#include "engine/engine.h"

static int setup(void **state)
{
    *state = test_fixture_new("siteaction");
    return 0;
}

static enum brock_effect effect(struct brock_engine *e, const char *host, const char *site)
{
    struct brock_decision d;

    assert_int_equal(brock_decide(e, host, site, &d), 0);
    return d.effect;
}

static void block_learned(struct brock_engine *e, const char *domain)
{
    struct action_entry *a = brock__action_ensure(e, domain);

    assert_non_null(a);
    a->heur = BROCK_BLOCK;
    brock__answers_forget(e);
}

/* Only on that site, above the choice for every site, and the kept answers follow at once. */
static void test_decide_on_one_site(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock_decision d;
    char why[256];

    (void)state;
    block_learned(e, "tracker.test");
    /* Asked first, so that the answers are kept: the change must not be hidden by them. */
    assert_int_equal(effect(e, "cdn.tracker.test", "www.news.test"), BROCK_DENY);
    assert_int_equal(effect(e, "cdn.tracker.test", "shop.test"), BROCK_DENY);
    assert_int_equal(brock_set_site_action(e, "www.news.test", "tracker.test", BROCK_USER_ALLOW),
                     0);
    assert_int_equal(brock_decide(e, "cdn.tracker.test", "www.news.test", &d), 0);
    assert_int_equal(d.effect, BROCK_PASS);
    assert_int_equal(d.action, BROCK_USER_ALLOW);
    assert_int_equal(d.site_choice, 1);
    assert_string_equal(d.source, "tracker.test");
    assert_string_equal(d.site, "news.test");
    brock_decision_explain(e, &d, why, sizeof(why));
    assert_string_equal(why, "You chose to allow tracker.test on news.test only.");
    /* Another page of the same site: the same base domain. */
    assert_int_equal(effect(e, "cdn.tracker.test", "news.test"), BROCK_PASS);
    /* Elsewhere, and on an unknown page, nothing changed. */
    assert_int_equal(effect(e, "cdn.tracker.test", "shop.test"), BROCK_DENY);
    assert_int_equal(effect(e, "cdn.tracker.test", NULL), BROCK_DENY);

    /* Above the choice for every site, in both directions. */
    assert_int_equal(brock_set_user_action(e, "tracker.test", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_set_site_action(e, "shop.test", "tracker.test", BROCK_USER_BLOCK), 0);
    assert_int_equal(effect(e, "cdn.tracker.test", "shop.test"), BROCK_DENY);
    assert_int_equal(effect(e, "cdn.tracker.test", "other.test"), BROCK_PASS);

    /* The most specific name wins on the site. */
    assert_int_equal(
        brock_set_site_action(e, "shop.test", "cdn.tracker.test", BROCK_USER_COOKIEBLOCK), 0);
    assert_int_equal(effect(e, "cdn.tracker.test", "shop.test"), BROCK_STRIP_COOKIES);
    assert_int_equal(effect(e, "img.tracker.test", "shop.test"), BROCK_DENY);

    /* Reset: the choice for every site applies there again, at once. */
    assert_int_equal(brock_reset_site_action(e, "shop.test", "cdn.tracker.test"), 0);
    assert_int_equal(brock_reset_site_action(e, "shop.test", "tracker.test"), 0);
    assert_int_equal(effect(e, "cdn.tracker.test", "shop.test"), BROCK_PASS);
    assert_int_equal(brock_reset_site_action(e, "shop.test", "never.test"), 0);
    brock_engine_free(e);
}

static void test_bad_input(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock_site_action *v = NULL;
    size_t n = 9;

    (void)state;
    assert_int_equal(brock_set_site_action(e, "news.test", "not a name", BROCK_USER_BLOCK),
                     BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "'not a name' is not a domain name"));
    assert_int_equal(brock_set_site_action(e, "bad site", "t.test", BROCK_USER_BLOCK),
                     BROCK_EINVAL);
    assert_int_equal(brock_set_site_action(e, "com", "t.test", BROCK_USER_BLOCK), BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "has no base domain"));
    assert_int_equal(brock_set_site_action(e, "news.test", "t.test", BROCK_BLOCK), BROCK_EINVAL);
    assert_int_equal(brock_set_site_action(e, "www.news.test", "cdn.news.test", BROCK_USER_BLOCK),
                     BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "first party"));
    assert_int_equal(brock_site_actions(e, NULL, &v, &n), 0);
    assert_int_equal(n, 0);
    brock_free(v);
    brock_engine_free(e);
}

/* Written at the sync, read back at the next open, seen by another process at its sync. */
static void test_survives_reopen_and_reaches_others(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1);
    struct brock_engine *b = test_fixture_open(f, NULL, 1);
    char text[512];

    block_learned(b, "tracker.test");
    assert_true(brock_sync(b) >= 0);
    assert_int_equal(effect(b, "tracker.test", "news.test"), BROCK_DENY);
    assert_int_equal(brock_set_site_action(a, "news.test", "tracker.test", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_set_site_action(a, "b.test", "z.test", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_site_action(a, "a.test", "z.test", BROCK_USER_COOKIEBLOCK), 0);
    assert_true(brock_sync(a) >= 0);
    assert_string_equal(test_list_site_choices(a, NULL, text, sizeof(text)),
                        "z.test@a.test=user_cookieblock z.test@b.test=user_block "
                        "tracker.test@news.test=user_allow");
    assert_string_equal(test_list_site_choices(a, "www.b.test", text, sizeof(text)),
                        "z.test@b.test=user_block");

    /* The other process: at its next sync, and its kept answer goes. */
    assert_true(brock_sync(b) > 0);
    assert_int_equal(effect(b, "tracker.test", "news.test"), BROCK_PASS);
    assert_int_equal(brock_reset_site_action(a, "news.test", "tracker.test"), 0);
    assert_true(brock_sync(a) >= 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(effect(b, "tracker.test", "news.test"), BROCK_DENY);
    brock_engine_free(b);
    brock_engine_free(a);

    a = test_fixture_open(f, NULL, 1);
    assert_string_equal(test_list_site_choices(a, NULL, text, sizeof(text)),
                        "z.test@a.test=user_cookieblock z.test@b.test=user_block");
    assert_int_equal(effect(a, "z.test", "b.test"), BROCK_DENY);
    brock_engine_free(a);
}

/* A state of the version before, without the table, gets it and keeps the rest. */
static void test_migration(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = test_fixture_open(f, NULL, 1);
    char db[300], text[256];
    sqlite3 *raw = NULL;

    assert_int_equal(brock_set_user_action(e, "kept.test", BROCK_USER_BLOCK), 0);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);
    snprintf(db, sizeof(db), "%s/brock.db", f->state);
    assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
    assert_int_equal(sqlite3_exec(raw,
                                  "DROP TABLE site_action; DROP TABLE client_page_view;"
                                  " DROP TABLE client_day_count;"
                                  " ALTER TABLE day_count DROP COLUMN cleaned;"
                                  " PRAGMA user_version = 3;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(raw);

    e = test_fixture_open(f, NULL, 1);
    assert_int_equal(effect(e, "kept.test", "news.test"), BROCK_DENY);
    assert_int_equal(brock_set_site_action(e, "news.test", "kept.test", BROCK_USER_ALLOW), 0);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);
    e = test_fixture_open(f, NULL, 1);
    assert_string_equal(test_list_site_choices(e, NULL, text, sizeof(text)),
                        "kept.test@news.test=user_allow");
    assert_int_equal(effect(e, "kept.test", "news.test"), BROCK_PASS);
    brock_engine_free(e);
}

/* Choices on many sites: the index by site holds exactly the sites with a choice, through
 * set, reset, the sync that writes them, another process's load and its sync with the news. */
enum { MANY_SITES = 5000 };

static void many_name(char *buf, size_t len, unsigned i)
{
    snprintf(buf, len, "s%u.test", i);
}

/* What tracker.test and cdn.tracker.test get on site i while sites below `reset` are reset:
 * even sites allow the base, odd ones block its cdn (and the learned block stands). */
static void check_many(struct brock_engine *e, unsigned reset)
{
    char site[64];
    struct brock_site_action *v = NULL;
    size_t n = 0;

    for (unsigned i = 0; i < MANY_SITES; i++) {
        int gone = i < reset;

        many_name(site, sizeof(site), i);
        assert_int_equal(effect(e, "tracker.test", site),
                         !gone && i % 2 == 0 ? BROCK_PASS : BROCK_DENY);
        assert_int_equal(effect(e, "x.cdn.tracker.test", site),
                         !gone && i % 2 == 0 ? BROCK_PASS : BROCK_DENY);
        assert_int_equal(effect(e, "other.test", site), !gone && i % 2 ? BROCK_DENY : BROCK_PASS);
        assert_int_equal(brock_site_actions(e, site, &v, &n), gone ? 0 : 2);
        brock_free(v);
    }
    assert_int_equal(e->site_index.len, MANY_SITES - reset);
    assert_int_equal(brock_site_actions(e, NULL, &v, &n), 2 * (MANY_SITES - reset));
    brock_free(v);
}

static void test_many_sites(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1);
    struct brock_engine *b;
    char site[64];

    block_learned(a, "tracker.test");
    assert_int_equal(a->site_index.len, 0);
    for (unsigned i = 0; i < MANY_SITES; i++) {
        many_name(site, sizeof(site), i);
        if (i % 2 == 0) {
            assert_int_equal(brock_set_site_action(a, site, "tracker.test", BROCK_USER_ALLOW), 0);
            assert_int_equal(brock_set_site_action(a, site, "ads.test", BROCK_USER_BLOCK), 0);
        } else {
            assert_int_equal(brock_set_site_action(a, site, "cdn.tracker.test", BROCK_USER_BLOCK),
                             0);
            assert_int_equal(brock_set_site_action(a, site, "other.test", BROCK_USER_BLOCK), 0);
        }
    }
    check_many(a, 0);
    assert_true(brock_sync(a) >= 0);
    check_many(a, 0);

    /* Another process loads them all. */
    b = test_fixture_open(f, NULL, 1);
    block_learned(b, "tracker.test");
    check_many(b, 0);

    /* Reset: the sites without a choice leave the index at the sync that writes it, here
     * and, with the news, there. */
    for (unsigned i = 0; i < 100; i++) {
        many_name(site, sizeof(site), i);
        assert_int_equal(
            brock_reset_site_action(a, site, i % 2 ? "cdn.tracker.test" : "tracker.test"), 0);
        assert_int_equal(brock_reset_site_action(a, site, i % 2 ? "other.test" : "ads.test"), 0);
    }
    assert_true(brock_sync(a) >= 0);
    check_many(a, 100);
    assert_true(brock_sync(b) > 0);
    check_many(b, 100);
    brock_engine_free(b);
    brock_engine_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decide_on_one_site),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test_setup_teardown(test_survives_reopen_and_reaches_others, setup,
                                        test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_migration, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_many_sites, setup, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
