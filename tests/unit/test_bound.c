/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The cap on what learning keeps (bound.c): one page naming many third parties keeps at most
 * the cap of them, the least recently touched going first, those not blocked before learned
 * blocks; the user's choices, DNT records and the seed's trackers stay; the state forgets
 * them too. */
#include "test.h"

#include <string.h>

#include "engine/engine.h"
#include "util/alloc.h"

/* One request from a page of site to host with an identifying cookie: evidence, each a
 * millisecond after the one before. */
static void seen(struct brock_engine *e, const char *host, const char *site)
{
    static int64_t now = 1700000000000;
    struct brock_header h = {"Cookie", 6, "uid=8f3a9b2c1d7e", 16};
    struct brock_observation o = {
        .host = host, .site = site, .headers = &h, .n_headers = 1, .time_ms = now++};
    struct brock_learned l;

    assert_int_equal(brock_observe(e, &o, &l), 0);
}

/* n trackers "px.tN.net" (from first on) seen on site, one after the other. */
static void flood(struct brock_engine *e, const char *site, int first, int n)
{
    char host[64];

    for (int i = first; i < first + n; i++) {
        snprintf(host, sizeof(host), "px.t%d.net", i);
        seen(e, host, site);
    }
}

static int known(const struct brock_engine *e, const char *base)
{
    return brock__snitch_get(e, base) != NULL;
}

static struct brock_learned_status status(const struct brock_engine *e)
{
    struct brock_learned_status st;

    brock_learned_status(e, &st);
    return st;
}

static void test_cap(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    char base[32];

    (void)state;
    assert_int_equal(status(e).max, BROCK_MAX_LEARNED_DEFAULT);
    assert_int_equal(brock_learned_limit(e, 0), BROCK_EINVAL);
    assert_int_equal(brock_learned_limit(e, BROCK_MAX_LEARNED_MAX + 1), BROCK_EINVAL);
    assert_int_equal(brock_learned_limit(e, 5), 0);
    /* One page, 3,000 third parties: five stay, the newest. */
    flood(e, "site-a.com", 0, 3000);
    assert_int_equal(status(e).trackers, 5);
    assert_int_equal(status(e).forgotten, 2995);
    assert_int_equal(e->snitches.len, 5);
    assert_int_equal(e->tracking.len, 0);
    for (int i = 0; i < 3000; i++) {
        snprintf(base, sizeof(base), "t%d.net", i);
        assert_int_equal(known(e, base), i >= 2995);
    }
    /* What learning made of the forgotten went with them: no action entries are left but the
     * five trackers' own (their base's and their host's). */
    assert_int_equal(e->actions.len, 10);
    assert_null(brock__action_get(e, "t0.net"));
    assert_null(brock__action_get(e, "px.t0.net"));
    assert_non_null(brock__action_get(e, "px.t2999.net"));
    assert_int_equal(brock__best_action(e, "px.t2999.net", NULL), BROCK_ALLOW);
    /* A smaller cap applies at once. */
    assert_int_equal(brock_learned_limit(e, 2), 3);
    assert_int_equal(status(e).trackers, 2);
    assert_true(known(e, "t2999.net") && known(e, "t2998.net"));
    brock_engine_free(e);
}

/* Evidence touches a tracker: the one seen again lately stays; a learned block outlasts the
 * trackers learning has not blocked. */
static void test_order(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);

    (void)state;
    assert_int_equal(brock_learned_limit(e, 4), 0);
    seen(e, "px.blocked.net", "site-a.com");
    seen(e, "px.blocked.net", "site-b.com");
    seen(e, "px.blocked.net", "site-c.com");
    assert_int_equal(brock__best_action(e, "px.blocked.net", NULL), BROCK_BLOCK);
    flood(e, "site-a.com", 0, 3);
    seen(e, "px.t0.net", "site-b.com"); /* t0 touched again: t1 is the oldest now */
    flood(e, "site-a.com", 3, 1);
    assert_true(known(e, "blocked.net"));
    assert_true(known(e, "t0.net"));
    assert_false(known(e, "t1.net"));
    assert_true(known(e, "t2.net") && known(e, "t3.net"));
    /* Many more: the block stays while trackers learning has not blocked make room. */
    flood(e, "site-d.com", 10, 50);
    assert_true(known(e, "blocked.net"));
    assert_int_equal(brock__best_action(e, "px.blocked.net", NULL), BROCK_BLOCK);
    assert_int_equal(status(e).trackers, 4);
    assert_int_equal(brock_learned_limit(e, 2), 2);
    assert_true(known(e, "blocked.net") && known(e, "t59.net"));
    /* With only blocks left to forget but the tracker being learned, the oldest block goes:
     * the cap holds. */
    seen(e, "px.later.net", "site-a.com");
    seen(e, "px.later.net", "site-b.com");
    seen(e, "px.later.net", "site-c.com");
    assert_false(known(e, "t59.net"));
    assert_true(known(e, "blocked.net"));
    assert_int_equal(brock__best_action(e, "px.later.net", NULL), BROCK_BLOCK);
    seen(e, "px.new.net", "site-a.com");
    assert_true(known(e, "new.net") && known(e, "later.net"));
    assert_false(known(e, "blocked.net"));
    assert_int_equal(brock__best_action(e, "px.blocked.net", NULL), BROCK_NOACTION);
    brock_engine_free(e);
}

/* The user's choices, for every site and for one, and DNT records stay when the evidence
 * beside them goes; a block learning did not make stays too. */
static void test_choices_stay(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    const struct action_entry *a;
    char buf[256];

    (void)state;
    assert_int_equal(brock_learned_limit(e, 3), 0);
    flood(e, "site-a.com", 1, 4);
    assert_int_equal(brock_set_user_action(e, "t1.net", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "px.t2.net", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_set_site_action(e, "site-z.com", "px.t3.net", BROCK_USER_COOKIEBLOCK),
                     0);
    assert_int_equal(brock_dnt_record(e, "px.t4.net", 1), 0);
    /* A block of the base that learning did not make (one site of evidence only). */
    brock__action_ensure(e, "t4.net")->heur = BROCK_BLOCK;
    flood(e, "site-b.com", 100, 20);
    assert_false(known(e, "t1.net") || known(e, "t2.net") || known(e, "t3.net") ||
                 known(e, "t4.net"));
    assert_int_equal(brock__best_action(e, "px.t1.net", NULL), BROCK_USER_BLOCK);
    assert_int_equal(brock__best_action(e, "px.t2.net", NULL), BROCK_USER_ALLOW);
    assert_null(brock__action_get(e, "t2.net")); /* learning's own entry went */
    assert_string_equal(test_list_site_choices(e, NULL, buf, sizeof(buf)),
                        "px.t3.net@site-z.com=user_cookieblock");
    a = brock__action_get(e, "px.t4.net");
    assert_non_null(a);
    assert_true(a->dnt);
    assert_int_equal(brock__action_get(e, "t4.net")->heur, BROCK_BLOCK);
    brock_engine_free(e);
}

/* The seed's trackers neither count nor go, blocked or not; one that learning adds to stays
 * the seed's. */
static void test_seed_stays(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, test_data("privacybadger"), 0);
    size_t seeded = e->snitches.len, actions = e->actions.len;
    const char *key, *blocked = NULL, *open = NULL;
    void *val;
    size_t it = 0;
    enum brock_action was;

    (void)state;
    assert_true(seeded > 1000);
    assert_int_equal(status(e).trackers, 0);
    while (strmap_next(&e->snitches, &it, &key, &val)) {
        enum brock_action act = brock__best_action(e, key, NULL);

        if (!blocked && act == BROCK_BLOCK)
            blocked = key;
        if (!open && act == BROCK_ALLOW && ((struct snitch *)val)->n == 1)
            open = key;
    }
    assert_non_null(blocked);
    assert_non_null(open);
    was = brock__best_action(e, blocked, NULL);
    assert_int_equal(brock_learned_limit(e, 2), 0);
    seen(e, open, "never-seen-before.example"); /* learning adds to a seed tracker */
    flood(e, "site-a.com", 0, 30);
    assert_int_equal(status(e).trackers, 2);
    assert_int_equal(e->snitches.len, seeded + 2);
    assert_true(known(e, blocked) && known(e, open));
    assert_int_equal(brock__best_action(e, blocked, NULL), was);
    assert_int_equal(brock__snitch_get(e, open)->n, 2);
    assert_int_equal(e->actions.len, actions + 4);
    brock_engine_free(e);
}

/* An import naming a learned tracker makes it the import's: it leaves the count. */
static void test_import_takes_over(void **state)
{
    static const char pb[] = "{\"action_map\": {}, \"snitch_map\": {\"t1.net\": [\"other.org\"]}}";
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_stats st;

    (void)state;
    assert_int_equal(brock_learned_limit(e, 3), 0);
    flood(e, "site-a.com", 0, 3);
    assert_int_equal(brock_import(e, "pb.json", pb, strlen(pb), &st), 0);
    assert_int_equal(status(e).trackers, 2);
    flood(e, "site-a.com", 10, 5);
    assert_true(known(e, "t1.net"));
    assert_false(known(e, "t0.net") || known(e, "t2.net"));
    brock_engine_free(e);
}

/* A temporary folder for the engine's state, removed by test_fixture_teardown. */
static int setup(void **state)
{
    *state = test_fixture_new("bound");
    return 0;
}

/* The state forgets them too: what a sync wrote is what the next open reads, and its rows of
 * a tracker forgotten and then learned again are the new ones. */
static void test_state(void **state)
{
    const struct test_fixture *f = *state;
    struct brock_engine *e;

    e = test_fixture_open(f, NULL, 1);
    assert_int_equal(brock_learned_limit(e, 3), 0);
    flood(e, "site-a.com", 0, 3);
    assert_int_equal(brock_sync(e), 0);
    flood(e, "site-a.com", 3, 3);
    seen(e, "beacon.t0.net", "site-b.com"); /* t0, forgotten, learned again */
    assert_int_equal(status(e).trackers, 3);
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);

    e = test_fixture_open(f, NULL, 1);
    assert_int_equal(e->snitches.len, 3);
    assert_int_equal(status(e).trackers, 3);
    assert_true(known(e, "t0.net") && known(e, "t4.net") && known(e, "t5.net"));
    assert_int_equal(brock__snitch_get(e, "t0.net")->n, 1);
    assert_string_equal(brock__snitch_get(e, "t0.net")->v[0].site, "site-b.com");
    assert_int_equal(e->actions.len, 6);
    /* A cap lowered since: the least recently seen go, at the next sync too, in the order
     * their evidence came (not the order the rows are read in). */
    e->learned_max = 1;
    assert_int_equal(brock_sync(e), 0);
    assert_int_equal(status(e).trackers, 1);
    assert_true(known(e, "t0.net"));
    brock_engine_free(e);
    e = test_fixture_open(f, NULL, 1);
    assert_int_equal(e->snitches.len, 1);
    assert_true(known(e, "t0.net"));
    brock_engine_free(e);
}

/* A page can report any number of scripts fingerprinting: learning adds paths up to a bound. */
static void test_fp_paths(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 0);
    struct brock_page_signal s = {
        .kind = BROCK_PAGE_CANVAS, .site = "https://site-a.com/", .time_ms = 1700000000000};
    struct brock_learned l;
    char url[64];

    (void)state;
    e->n_fp_paths = BROCK__FP_PATHS_MAX - 2;
    for (int i = 0; i < 5; i++) {
        snprintf(url, sizeof(url), "https://cdn.fp.net/s%d.js", i);
        s.url = url;
        assert_int_equal(brock_observe_page(e, &s, &l), 0);
    }
    assert_int_equal(e->n_fp_paths, BROCK__FP_PATHS_MAX);
    assert_int_equal(((struct fp_host *)strmap_get(&e->fp_scripts, "cdn.fp.net"))->n, 2);
    assert_true(known(e, "fp.net"));
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_choices_stay),
        cmocka_unit_test(test_seed_stays),
        cmocka_unit_test(test_import_takes_over),
        cmocka_unit_test_setup_teardown(test_state, setup, test_fixture_teardown),
        cmocka_unit_test(test_fp_paths),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
