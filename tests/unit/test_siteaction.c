/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The user's choices for one site only: decisions honour them on that site alone, above the
 * choice for every site; a kept answer does not outlive a change; they survive a reopen, reach
 * another process, and follow a version 3 state's migration.
 */
#include "test.h"

#include <string.h>

#include <sqlite3.h>

#include "engine/engine.h"

struct fixture {
    char dir[256];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    test_mkdtemp("siteaction", f->dir, sizeof(f->dir));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    test_rmtree(f->dir);
    free(f);
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

static const char *listed(struct brock_engine *e, const char *site, char *buf, size_t len)
{
    struct brock_site_action *v = NULL;
    size_t n = 0, used = 0;

    assert_true(brock_site_actions(e, site, &v, &n) >= 0);
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s@%s=%s", i ? " " : "",
                                 v[i].domain, v[i].site, brock_action_name(v[i].action));
    brock_free(v);
    return buf;
}

/* Written at the sync, read back at the next open, seen by another process at its sync. */
static void test_survives_reopen_and_reaches_others(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a = test_engine_open(f->dir, NULL, 1);
    struct brock_engine *b = test_engine_open(f->dir, NULL, 1);
    char text[512];

    block_learned(b, "tracker.test");
    assert_true(brock_sync(b) >= 0);
    assert_int_equal(effect(b, "tracker.test", "news.test"), BROCK_DENY);
    assert_int_equal(brock_set_site_action(a, "news.test", "tracker.test", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_set_site_action(a, "b.test", "z.test", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_site_action(a, "a.test", "z.test", BROCK_USER_COOKIEBLOCK), 0);
    assert_true(brock_sync(a) >= 0);
    assert_string_equal(listed(a, NULL, text, sizeof(text)),
                        "z.test@a.test=user_cookieblock z.test@b.test=user_block "
                        "tracker.test@news.test=user_allow");
    assert_string_equal(listed(a, "www.b.test", text, sizeof(text)), "z.test@b.test=user_block");

    /* The other process: at its next sync, and its kept answer goes. */
    assert_true(brock_sync(b) > 0);
    assert_int_equal(effect(b, "tracker.test", "news.test"), BROCK_PASS);
    assert_int_equal(brock_reset_site_action(a, "news.test", "tracker.test"), 0);
    assert_true(brock_sync(a) >= 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(effect(b, "tracker.test", "news.test"), BROCK_DENY);
    brock_engine_free(b);
    brock_engine_free(a);

    a = test_engine_open(f->dir, NULL, 1);
    assert_string_equal(listed(a, NULL, text, sizeof(text)),
                        "z.test@a.test=user_cookieblock z.test@b.test=user_block");
    assert_int_equal(effect(a, "z.test", "b.test"), BROCK_DENY);
    brock_engine_free(a);
}

/* A state of the version before, without the table, gets it and keeps the rest. */
static void test_migration(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *e = test_engine_open(f->dir, NULL, 1);
    char db[300], text[256];
    sqlite3 *raw = NULL;

    assert_int_equal(brock_set_user_action(e, "kept.test", BROCK_USER_BLOCK), 0);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);
    snprintf(db, sizeof(db), "%s/brock.db", f->dir);
    assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
    assert_int_equal(
        sqlite3_exec(raw, "DROP TABLE site_action; PRAGMA user_version = 3;", NULL, NULL, NULL),
        SQLITE_OK);
    sqlite3_close(raw);

    e = test_engine_open(f->dir, NULL, 1);
    assert_int_equal(effect(e, "kept.test", "news.test"), BROCK_DENY);
    assert_int_equal(brock_set_site_action(e, "news.test", "kept.test", BROCK_USER_ALLOW), 0);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);
    e = test_engine_open(f->dir, NULL, 1);
    assert_string_equal(listed(e, NULL, text, sizeof(text)), "kept.test@news.test=user_allow");
    assert_int_equal(effect(e, "kept.test", "news.test"), BROCK_PASS);
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decide_on_one_site),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test_setup_teardown(test_survives_reopen_and_reaches_others, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_migration, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
