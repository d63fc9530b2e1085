/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Recent page views and the reports over them (sites newest first with their counts, a site's
 * hosts in Privacy Badger's order, one tracker), their bounds and persistence, the migration
 * of a version 1 state, and the reset to the seed.
 */
#include "test.h"

#include <ftw.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "brock.h"

/* Page views older than the page-view-days setting are forgotten: times are recent ones. */
static int64_t t0;
#define T(ms) (t0 + (ms))

static int setup(void **state)
{
    *state = test_fixture_new("pages");
    return 0;
}

/* An engine on dir (NULL: memory only), with Privacy Badger's data when data is set. */
static struct brock_engine *open_engine(const char *dir, int data)
{
    return test_engine_open(dir, data ? test_data("privacybadger") : NULL, !data);
}

/* ---- collecting what the callbacks report ---- */

struct seen {
    char text[32768];
};

static int on_site(void *arg, const struct brock_site *s)
{
    struct seen *sn = arg;
    size_t len = strlen(sn->text);

    snprintf(sn->text + len, sizeof(sn->text) - len, "%s%s %zu/%zu/%zu%s", len ? "; " : "", s->site,
             s->trackers, s->blocked, s->cookieblocked, s->disabled ? " off" : "");
    return 0;
}

static int on_host(void *arg, const struct brock_site_tracker *t)
{
    struct seen *sn = arg;
    size_t len = strlen(sn->text);

    snprintf(sn->text + len, sizeof(sn->text) - len, "%s%s %s(%s) x%llu%s%s", len ? "; " : "",
             t->host, brock_action_name(t->action), brock_action_name(t->seen),
             (unsigned long long)t->count, t->breakage ? " breakage" : "", t->user ? " user" : "");
    return 0;
}

static int on_host_site(void *arg, const char *site, int64_t time_ms)
{
    struct seen *sn = arg;
    size_t len = strlen(sn->text);

    snprintf(sn->text + len, sizeof(sn->text) - len, "%s%s@%lld", len ? "; " : "", site,
             (long long)(time_ms - t0));
    return 0;
}

static int stop_at_first(void *arg, const struct brock_site *s)
{
    (void)s;
    ++*(int *)arg;
    return 7;
}

static const char *sites_of(struct brock_engine *e, struct seen *sn)
{
    sn->text[0] = '\0';
    assert_int_equal(brock_sites(e, on_site, sn), 0);
    return sn->text;
}

static const char *hosts_of(struct brock_engine *e, const char *site, struct seen *sn)
{
    sn->text[0] = '\0';
    assert_int_equal(brock_site_trackers(e, site, on_host, sn), 0);
    return sn->text;
}

/* ---- tests ---- */

static void test_sites_and_hosts(void **state)
{
    struct brock_engine *e = open_engine(NULL, 0);
    struct seen sn;
    int calls = 0;

    (void)state;
    assert_int_equal(
        brock_page_seen(e, "https://www.news.example/a", "cdn.tracker.test", BROCK_ALLOW, T(1000)),
        0);
    assert_int_equal(
        brock_page_seen(e, "news.example", "static.bbc.co.uk", BROCK_NOACTION, T(1100)), 0);
    assert_int_equal(brock_page_seen(e, "news.example", "bbc.co.uk", BROCK_NOACTION, T(1200)), 0);
    assert_int_equal(brock_page_seen(e, "news.example", "cdn.tracker.test", BROCK_ALLOW, T(1300)),
                     0);
    assert_int_equal(brock_page_seen(e, "shop.example", "ads.other.test", BROCK_NOACTION, T(2000)),
                     0);
    /* Newest first; nothing blocked yet. */
    assert_string_equal(sites_of(e, &sn), "shop.example 1/0/0; news.example 3/0/0");
    assert_int_equal(brock_sites(e, stop_at_first, &calls), 7);
    assert_int_equal(calls, 1);

    /* The counts are what was done on the visits: choices made since change the trackers'
     * actions at once, the counts only with their next request there. */
    assert_int_equal(brock_set_user_action(e, "tracker.test", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "bbc.co.uk", BROCK_USER_COOKIEBLOCK), 0);
    assert_string_equal(sites_of(e, &sn), "shop.example 1/0/0; news.example 3/0/0");
    /* makeSortable: static.bbc.co.uk sorts as "bbc.static", right after bbc.co.uk. */
    assert_string_equal(hosts_of(e, "www.news.example", &sn),
                        "bbc.co.uk user_cookieblock(noaction) x1 user; "
                        "static.bbc.co.uk user_cookieblock(noaction) x1; "
                        "cdn.tracker.test user_block(allow) x2");
    assert_int_equal(
        brock_page_seen(e, "news.example", "cdn.tracker.test", BROCK_USER_BLOCK, T(2100)), 0);
    assert_int_equal(
        brock_page_seen(e, "news.example", "static.bbc.co.uk", BROCK_USER_COOKIEBLOCK, T(2200)), 0);
    assert_string_equal(sites_of(e, &sn), "news.example 3/1/1; shop.example 1/0/0");
    assert_string_equal(hosts_of(e, "news.example", &sn),
                        "bbc.co.uk user_cookieblock(noaction) x1 user; "
                        "static.bbc.co.uk user_cookieblock(user_cookieblock) x2; "
                        "cdn.tracker.test user_block(user_block) x3");

    /* Disabled since: what was done there before stays counted. */
    assert_int_equal(brock_site_set_disabled(e, "news.example", 1), 0);
    assert_string_equal(sites_of(e, &sn), "news.example 3/1/1 off; shop.example 1/0/0");

    sn.text[0] = '\0';
    assert_int_equal(brock_host_sites(e, "cdn.tracker.test", on_host_site, &sn), 0);
    assert_string_equal(sn.text, "news.example@2100");

    assert_int_equal(brock_site_trackers(e, "never.example", on_host, &sn), BROCK_ENOTFOUND);
    assert_int_equal(brock_site_trackers(e, "not a site", on_host, &sn), BROCK_EINVAL);
    assert_int_equal(brock_page_seen(e, "news.example", "bad host!", BROCK_ALLOW, T(1)),
                     BROCK_EINVAL);
    assert_int_equal(brock_page_seen(e, "", "a.test", BROCK_ALLOW, T(1)), BROCK_EINVAL);
    assert_int_equal(brock_page_seen(e, "news.example", "a.test", (enum brock_action)42, T(1)),
                     BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "42"));
    brock_engine_free(e);
}

static void test_breakage(void **state)
{
    struct brock_engine *e = open_engine(NULL, 1);
    struct seen sn;

    (void)state;
    /* google.com is on the cookieblock list: blocking it may break sites (section 12). */
    assert_int_equal(brock_page_seen(e, "example.org", "www.google.com", BROCK_COOKIEBLOCK, T(5)),
                     0);
    assert_int_equal(brock_set_user_action(e, "www.google.com", BROCK_USER_BLOCK), 0);
    assert_string_equal(hosts_of(e, "example.org", &sn),
                        "www.google.com user_block(cookieblock) x1 breakage user");
    assert_int_equal(brock_set_user_action(e, "www.google.com", BROCK_USER_COOKIEBLOCK), 0);
    assert_string_equal(hosts_of(e, "example.org", &sn),
                        "www.google.com user_cookieblock(cookieblock) x1 user");
    brock_engine_free(e);
}

static void test_bounds(void **state)
{
    struct brock_engine *e = open_engine(NULL, 0);
    char site[64], host[64];
    struct seen sn;
    size_t n = 0;

    (void)state;
    for (int i = 0; i < 501; i++) {
        snprintf(site, sizeof(site), "site%d.example", i);
        assert_int_equal(brock_page_seen(e, site, "t.test", BROCK_NOACTION, T(1000 + i)), 0);
    }
    sites_of(e, &sn);
    for (const char *p = sn.text; (p = strstr(p, ".example")); p++)
        n++;
    assert_int_equal(n, 500);
    /* The oldest went, the newest is first. */
    assert_null(strstr(sn.text, "site0.example"));
    assert_memory_equal(sn.text, "site500.example", 15);

    for (int i = 0; i < 301; i++) {
        snprintf(host, sizeof(host), "h%d.tracker.test", i);
        assert_int_equal(brock_page_seen(e, "busy.example", host, BROCK_NOACTION, T(5000 + i)), 0);
    }
    hosts_of(e, "busy.example", &sn);
    n = 0;
    for (const char *p = sn.text; (p = strstr(p, ".tracker.test")); p++)
        n++;
    assert_int_equal(n, 300);
    assert_null(strstr(sn.text, "h0.tracker.test "));
    assert_non_null(strstr(sn.text, "h300.tracker.test "));
    brock_engine_free(e);
}

static void test_persistence(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = open_engine(f->state, 0);
    char site[64];
    struct seen sn;

    assert_int_equal(brock_page_seen(e, "news.example", "t.test", BROCK_BLOCK, T(10)), 0);
    assert_int_equal(brock_page_seen(e, "news.example", "t.test", BROCK_ALLOW, T(20)), 0);
    assert_int_equal(brock_page_seen(e, "news.example", "u.test", BROCK_NOACTION, T(15)), 0);
    assert_int_equal(brock_page_seen(e, "old.example", "t.test", BROCK_NOACTION, T(5)), 0);
    assert_true(brock_sync(e) >= 0);
    /* Not yet synced: dropped when the engine goes, as all learning is. */
    assert_int_equal(brock_page_seen(e, "late.example", "t.test", BROCK_NOACTION, T(30)), 0);
    brock_engine_free(e);

    e = open_engine(f->state, 0);
    assert_string_equal(sites_of(e, &sn), "news.example 2/0/0; old.example 1/0/0");
    assert_string_equal(hosts_of(e, "news.example", &sn),
                        "t.test noaction(allow) x2; u.test noaction(noaction) x1");
    /* A site dropped for room is gone from the state too. */
    for (int i = 0; i < 500; i++) {
        snprintf(site, sizeof(site), "s%d.example", i);
        assert_int_equal(brock_page_seen(e, site, "t.test", BROCK_NOACTION, T(100 + i)), 0);
    }
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);

    e = open_engine(f->state, 0);
    sites_of(e, &sn);
    assert_null(strstr(sn.text, "news.example"));
    assert_null(strstr(sn.text, "old.example"));
    assert_memory_equal(sn.text, "s499.example", 12);
    brock_engine_free(e);
}

static void test_migrate_v1(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = open_engine(f->state, 0);
    char db[400];
    sqlite3 *raw = NULL;
    sqlite3_stmt *st = NULL;
    struct seen sn;

    assert_int_equal(brock_set_user_action(e, "kept.test", BROCK_USER_BLOCK), 0);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);
    /* Make it what brock 0.1 left: no page views, version 1. */
    snprintf(db, sizeof(db), "%s/brock.db", f->state);
    assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
    assert_int_equal(sqlite3_exec(raw,
                                  "DROP TABLE page_view; DROP TABLE day_count;"
                                  " DROP TABLE site_action; DROP TABLE client_page_view;"
                                  " DROP TABLE client_day_count; PRAGMA user_version = 1;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(raw);

    e = open_engine(f->state, 0);
    assert_string_equal(sites_of(e, &sn), "");
    assert_int_equal(brock_page_seen(e, "news.example", "kept.test", BROCK_USER_BLOCK, T(9)), 0);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);

    assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 6);
    sqlite3_finalize(st);
    sqlite3_close(raw);

    e = open_engine(f->state, 0);
    assert_string_equal(hosts_of(e, "news.example", &sn),
                        "kept.test user_block(user_block) x1 user");
    brock_engine_free(e);
}

struct one {
    char action[32];
    size_t n_evidence;
    char sites[512];
    int calls;
};

static int on_tracker(void *arg, const struct brock_tracker *t)
{
    struct one *o = arg;

    o->calls++;
    snprintf(o->action, sizeof(o->action), "%s", brock_action_name(t->action));
    o->n_evidence = t->n_evidence;
    o->sites[0] = '\0';
    for (size_t i = 0; i < t->n_evidence; i++) {
        size_t len = strlen(o->sites);
        snprintf(o->sites + len, sizeof(o->sites) - len, "%s%s", i ? " " : "", t->evidence[i].site);
    }
    return 0;
}

/* Three sites with an identifying cookie from one tracker. */
static void learn_three(struct brock_engine *e)
{
    static const char *const sites[] = {"one.example", "two.example", "three.example"};
    struct brock_header h = {"Cookie", 6, "uid=8f3a9c2e71d04b6a", 20};

    for (int i = 0; i < 3; i++) {
        struct brock_observation o = {.host = "px.learned.test",
                                      .site = sites[i],
                                      .headers = &h,
                                      .n_headers = 1,
                                      .time_ms = 100 + i};
        assert_int_equal(brock_observe(e, &o, NULL), 0);
    }
}

static void test_tracker_and_reset(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = open_engine(f->state, 1);
    size_t counts[BROCK_ACTION_COUNT], seeded = 0, after = 0;
    struct one o;

    brock_counts(e, counts, &seeded);
    assert_true(seeded > 100);
    learn_three(e);
    memset(&o, 0, sizeof(o));
    assert_int_equal(brock_tracker_get(e, "px.learned.test", on_tracker, &o), 0);
    assert_int_equal(o.calls, 1);
    assert_string_equal(o.action, "block");
    assert_string_equal(o.sites, "one.example two.example three.example");
    /* A name with no entry of its own reports what it resolves to. */
    assert_int_equal(brock_tracker_get(e, "deep.px.learned.test", on_tracker, &o), 0);
    assert_string_equal(o.action, "block");
    assert_int_equal(o.n_evidence, 3);
    assert_int_equal(brock_tracker_get(e, "no such name", on_tracker, &o), BROCK_EINVAL);

    assert_int_equal(brock_set_user_action(e, "mine.test", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_page_seen(e, "one.example", "px.learned.test", BROCK_ALLOW, T(9)), 0);
    assert_true(brock_sync(e) >= 0);
    assert_int_equal(brock_reset(e), 0);
    assert_int_equal(brock_tracker_get(e, "px.learned.test", on_tracker, &o), 0);
    assert_string_equal(o.action, "noaction");
    assert_int_equal(o.n_evidence, 0);
    assert_int_equal(brock_tracker_get(e, "mine.test", on_tracker, &o), 0);
    assert_string_equal(o.action, "user_allow");
    brock_counts(e, counts, &after);
    assert_int_equal(after, seeded + 1);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);

    /* The deletions reached the state; the seed, the choice and the page views are there. */
    e = open_engine(f->state, 1);
    assert_int_equal(brock_tracker_get(e, "px.learned.test", on_tracker, &o), 0);
    assert_string_equal(o.action, "noaction");
    assert_int_equal(o.n_evidence, 0);
    assert_int_equal(brock_tracker_get(e, "mine.test", on_tracker, &o), 0);
    assert_string_equal(o.action, "user_allow");
    brock_counts(e, counts, &after);
    assert_int_equal(after, seeded + 1);
    {
        struct seen sn;
        assert_string_equal(sites_of(e, &sn), "one.example 1/0/0");
    }
    brock_engine_free(e);
}

/* A name the user had set gets the seed's heuristic action and sites back at a reset, as
 * Privacy Badger's update re-applies the user's choices after merging the seed: undoing the
 * choice afterwards leaves what the seed says, not noaction. */
static void test_reset_keeps_seed_under_choices(void **state)
{
    struct brock_engine *e = open_engine(NULL, 1);
    struct one o;

    (void)state;
    memset(&o, 0, sizeof(o));
    assert_int_equal(brock_tracker_get(e, "youtube.com", on_tracker, &o), 0);
    assert_string_equal(o.action, "cookieblock");
    assert_int_equal(brock_set_user_action(e, "youtube.com", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_user_action(e, "doubleclick.net", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_reset(e), 0);
    assert_int_equal(brock_tracker_get(e, "youtube.com", on_tracker, &o), 0);
    assert_string_equal(o.action, "user_block");
    assert_int_equal(brock_tracker_get(e, "doubleclick.net", on_tracker, &o), 0);
    assert_string_equal(o.action, "user_allow");
    assert_string_equal(o.sites, "biblehub.com eonline.com chess-results.com");
    assert_int_equal(brock_set_user_action(e, "youtube.com", BROCK_NOACTION), 0);
    assert_int_equal(brock_set_user_action(e, "doubleclick.net", BROCK_NOACTION), 0);
    assert_int_equal(brock_tracker_get(e, "youtube.com", on_tracker, &o), 0);
    assert_string_equal(o.action, "cookieblock");
    assert_int_equal(brock_tracker_get(e, "doubleclick.net", on_tracker, &o), 0);
    assert_string_equal(o.action, "block");
    assert_int_equal(o.n_evidence, 3);
    brock_engine_free(e);
}

/* A reset whose seed cannot be loaded changes nothing: what was learned stays. */
static void test_reset_broken_seed(void **state)
{
    static const char *const files[] = {
        "yellowlist.txt",     "dnt-policies.json",  "multi-domain-first-parties.json",
        "cname_domains.json", "socialwidgets.json", "seed.json"};
    struct test_fixture *f = *state;
    struct brock_engine *e;
    char real[PATH_MAX], from[PATH_MAX + 64], to[PATH_MAX + 64];
    struct one o;
    FILE *fp;

    assert_int_equal(mkdir(f->data, 0700), 0);
    /* A link's relative target is read from the link's folder: name the data absolutely. */
    assert_non_null(realpath(test_data("privacybadger"), real));
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(from, sizeof(from), "%s/%s", real, files[i]);
        snprintf(to, sizeof(to), "%s/%s", f->data, files[i]);
        assert_int_equal(symlink(from, to), 0);
    }
    e = test_fixture_open(f, f->data, 0);
    learn_three(e);
    /* The seed now is a broken file. */
    snprintf(to, sizeof(to), "%s/seed.json", f->data);
    assert_int_equal(unlink(to), 0);
    assert_non_null(fp = fopen(to, "w"));
    fputs("{\"action_map\": {", fp);
    fclose(fp);
    assert_int_equal(brock_reset(e), BROCK_EFORMAT);
    memset(&o, 0, sizeof(o));
    assert_int_equal(brock_tracker_get(e, "px.learned.test", on_tracker, &o), 0);
    assert_string_equal(o.action, "block");
    assert_int_equal(o.n_evidence, 3);
    brock_engine_free(e);
}

#define DAY_MS 86400000LL

static int count_sites(void *arg, const struct brock_site *s)
{
    (void)s;
    ++*(int *)arg;
    return 0;
}

static int n_sites(struct brock_engine *e)
{
    int n = 0;

    assert_int_equal(brock_sites(e, count_sites, &n), 0);
    return n;
}

/* page-view-days: validated, 7 by default, applied at open and at brock_sync(); 0 keeps none. */
static void test_retention(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = open_engine(f->state, 0);
    struct seen sn;

    assert_int_equal(brock_page_view_days(e), BROCK_PAGE_VIEW_DAYS);
    assert_int_equal(brock_page_view_days_set(e, -1), BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "-1 is not a number of days"));
    assert_int_equal(brock_page_view_days_set(e, BROCK_PAGE_VIEW_DAYS_MAX + 1), BROCK_EINVAL);
    assert_int_equal(brock_page_view_days(e), BROCK_PAGE_VIEW_DAYS);
    /* 9 days ago is past the default; 6 days ago is not (T(0) is a day ago). */
    assert_int_equal(brock_page_seen(e, "old.example", "t.test", BROCK_NOACTION, T(-8 * DAY_MS)),
                     0);
    assert_int_equal(brock_page_seen(e, "recent.example", "t.test", BROCK_NOACTION, T(-5 * DAY_MS)),
                     0);
    assert_int_equal(brock_page_seen(e, "recent.example", "u.test", BROCK_NOACTION, T(-9 * DAY_MS)),
                     0);
    assert_int_equal(n_sites(e), 2);
    assert_true(brock_sync(e) >= 0);
    assert_string_equal(sites_of(e, &sn), "recent.example 1/0/0");
    brock_engine_free(e);

    /* What the sync forgot is gone from the state too. */
    e = open_engine(f->state, 0);
    assert_string_equal(sites_of(e, &sn), "recent.example 1/0/0");
    assert_int_equal(brock_page_view_days_set(e, 5), 0);
    assert_true(brock_sync(e) >= 0); /* the setting changed: applied at once */
    assert_int_equal(n_sites(e), 0);
    assert_int_equal(brock_page_view_days_set(e, 0), 0);
    assert_int_equal(brock_page_seen(e, "new.example", "t.test", BROCK_NOACTION, T(0)), 0);
    assert_int_equal(n_sites(e), 0);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);

    e = open_engine(f->state, 0);
    assert_int_equal(brock_page_view_days(e), 0);
    assert_int_equal(n_sites(e), 0);
    brock_engine_free(e);
}

/* brock_pages_forget(): all or older ones, counted, persisted, and picked up by another
 * engine on the same state, which keeps what it has not written yet. */
static void test_forget(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = open_engine(f->state, 0), *b;
    struct seen sn;

    assert_int_equal(brock_pages_forget(a, INT64_MAX), 0);
    assert_int_equal(brock_page_seen(a, "one.example", "t.test", BROCK_NOACTION, T(-2 * DAY_MS)),
                     0);
    assert_int_equal(brock_page_seen(a, "one.example", "u.test", BROCK_NOACTION, T(0)), 0);
    assert_int_equal(brock_page_seen(a, "two.example", "t.test", BROCK_NOACTION, T(-3 * DAY_MS)),
                     0);
    assert_int_equal(brock_page_seen(a, "three.example", "t.test", BROCK_NOACTION, T(0)), 0);
    assert_true(brock_sync(a) >= 0);

    b = open_engine(f->state, 0);
    assert_int_equal(n_sites(b), 3);
    /* Older than a day: two.example goes, one.example loses t.test. */
    assert_int_equal(brock_pages_forget(b, T(-DAY_MS)), 2);
    assert_string_equal(sites_of(b, &sn), "one.example 1/0/0; three.example 1/0/0");
    assert_true(brock_sync(b) >= 0);

    /* a sees it at its next sync; its unwritten view stays. */
    assert_int_equal(brock_page_seen(a, "four.example", "t.test", BROCK_NOACTION, T(10)), 0);
    assert_true(brock_sync(a) > 0);
    assert_string_equal(sites_of(a, &sn),
                        "four.example 1/0/0; one.example 1/0/0; three.example 1/0/0");
    assert_int_equal(brock_pages_forget(a, INT64_MAX), 3);
    assert_int_equal(n_sites(a), 0);
    assert_true(brock_sync(a) >= 0);
    assert_true(brock_sync(b) > 0);
    assert_int_equal(n_sites(b), 0);
    brock_engine_free(a);
    brock_engine_free(b);

    a = open_engine(f->state, 0);
    assert_int_equal(n_sites(a), 0);
    brock_engine_free(a);
}

int main(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    t0 = (int64_t)ts.tv_sec * 1000 - 86400000LL; /* a day ago: T(x) stays in the past */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sites_and_hosts),
        cmocka_unit_test(test_breakage),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test_setup_teardown(test_persistence, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_migrate_v1, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_tracker_and_reset, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_reset_broken_seed, setup, test_fixture_teardown),
        cmocka_unit_test(test_reset_keeps_seed_under_choices),
        cmocka_unit_test_setup_teardown(test_retention, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_forget, setup, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
