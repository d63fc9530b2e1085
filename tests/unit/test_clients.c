/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Each client's own page views and daily counters: recorded beside everyone's, reported apart,
 * bounded, kept in the state, forgotten alone (in this process and in another on the same
 * state), and a version 4 state brought up to date.
 */
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "brock.h"

static int64_t t0;
#define T(ms) (t0 + (ms))

static int setup(void **state)
{
    *state = test_fixture_new("clients");
    return 0;
}

static struct brock_engine *open_engine(const char *dir)
{
    return test_engine_open(dir, NULL, 1);
}

struct text {
    char s[8192];
};

static int on_site(void *arg, const struct brock_site *s)
{
    struct text *t = arg;
    size_t len = strlen(t->s);

    snprintf(t->s + len, sizeof(t->s) - len, "%s%s %zu", len ? "; " : "", s->site, s->trackers);
    return 0;
}

/* client's sites ("" or NULL: everyone's), as "site trackers; ...". */
static const char *sites_of(struct brock_engine *e, const char *client, struct text *t)
{
    t->s[0] = '\0';
    assert_int_equal(brock_client_sites(e, client, on_site, t), 0);
    return t->s;
}

static int on_host(void *arg, const struct brock_site_tracker *h)
{
    struct text *t = arg;
    size_t len = strlen(t->s);

    snprintf(t->s + len, sizeof(t->s) - len, "%s%s x%llu", len ? "; " : "", h->host,
             (unsigned long long)h->count);
    return 0;
}

static int on_day(void *arg, const struct brock_day *d)
{
    struct text *t = arg;

    snprintf(t->s, sizeof(t->s), "%llu/%llu/%llu/%llu", (unsigned long long)d->blocked,
             (unsigned long long)d->allowed, (unsigned long long)d->sites,
             (unsigned long long)d->learned);
    return 0;
}

/* Today's counts of client: "blocked/allowed/sites/learned". */
static const char *today_of(struct brock_engine *e, const char *client, struct text *t)
{
    t->s[0] = '\0';
    assert_int_equal(brock_client_daily_each(e, client, 1, T(2000), on_day, t), 0);
    return t->s;
}

static int on_client(void *arg, const char *client, int64_t time_ms, size_t sites)
{
    struct text *t = arg;
    size_t len = strlen(t->s);

    (void)time_ms;
    snprintf(t->s + len, sizeof(t->s) - len, "%s%s %zu", len ? "; " : "", client, sites);
    return 0;
}

static const char *clients_of(struct brock_engine *e, struct text *t)
{
    t->s[0] = '\0';
    assert_int_equal(brock_clients_each(e, on_client, t), 0);
    return t->s;
}

/* A request of client: a page of site opened, and host (a third party) blocked on it. */
static void visit(struct brock_engine *e, const char *client, const char *site, const char *host,
                  int64_t when)
{
    struct brock_decision d;

    memset(&d, 0, sizeof(d));
    snprintf(d.site, sizeof(d.site), "%s", site);
    d.type = BROCK_RESOURCE_MAIN_FRAME;
    d.effect = BROCK_PASS;
    assert_int_equal(brock_client_daily_count(e, client, &d, when), 0);
    d.type = BROCK_RESOURCE_IMAGE;
    d.effect = BROCK_DENY;
    assert_int_equal(brock_client_daily_count(e, client, &d, when), 0);
    assert_int_equal(brock_client_page_seen(e, client, site, host, BROCK_BLOCK, when), 0);
}

static void test_apart(void **state)
{
    struct brock_engine *e = open_engine(NULL);
    struct text t;

    (void)state;
    visit(e, "kids", "games.example", "ads.tracker.test", T(10));
    visit(e, "laptop", "news.example", "px.tracker.test", T(20));
    visit(e, "laptop", "news.example", "px.tracker.test", T(30));
    visit(e, NULL, "cli.example", "t.test", T(40));

    /* Everyone's hold every client's. */
    assert_string_equal(sites_of(e, NULL, &t), "cli.example 1; news.example 1; games.example 1");
    assert_string_equal(sites_of(e, "", &t), "cli.example 1; news.example 1; games.example 1");
    assert_string_equal(today_of(e, NULL, &t), "4/4/3/0");
    /* Each client's, its own alone. */
    assert_string_equal(sites_of(e, "kids", &t), "games.example 1");
    assert_string_equal(sites_of(e, "laptop", &t), "news.example 1");
    assert_string_equal(today_of(e, "laptop", &t), "2/2/1/0");
    assert_string_equal(today_of(e, "kids", &t), "1/1/1/0");
    t.s[0] = '\0';
    assert_int_equal(brock_client_site_trackers(e, "laptop", "news.example", on_host, &t), 0);
    assert_string_equal(t.s, "px.tracker.test x2");
    /* Another's site is not found in a client's views. */
    assert_int_equal(brock_client_site_trackers(e, "kids", "news.example", on_host, &t),
                     BROCK_ENOTFOUND);
    t.s[0] = '\0';
    assert_int_equal(brock_client_host_sites(e, "kids", "px.tracker.test", NULL, NULL), 0);
    /* A client never seen has nothing; the days are zeros. */
    assert_string_equal(sites_of(e, "192.0.2.9", &t), "");
    assert_string_equal(today_of(e, "192.0.2.9", &t), "0/0/0/0");
    assert_string_equal(clients_of(e, &t), "laptop 1; kids 1");
    brock_engine_free(e);
}

static void test_bad_client(void **state)
{
    struct brock_engine *e = open_engine(NULL);
    char longer[BROCK_CLIENT_MAX + 1];
    struct brock_decision d;
    struct text t;

    (void)state;
    memset(&d, 0, sizeof(d));
    memset(longer, 'a', sizeof(longer) - 1);
    longer[sizeof(longer) - 1] = '\0';
    const char *const bads[] = {"two words", "tab\there", longer, "\x7f"};
    for (size_t i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
        assert_int_equal(
            brock_client_page_seen(e, bads[i], "a.example", "t.test", BROCK_BLOCK, T(1)),
            BROCK_EINVAL);
        assert_int_equal(brock_client_daily_count(e, bads[i], &d, T(1)), BROCK_EINVAL);
        assert_int_equal(brock_client_sites(e, bads[i], on_site, &t), BROCK_EINVAL);
        assert_int_equal(brock_client_forget(e, bads[i]), BROCK_EINVAL);
    }
    assert_int_equal(brock_client_forget(e, NULL), BROCK_EINVAL);
    assert_int_equal(brock_client_forget(e, ""), BROCK_EINVAL);
    /* Nothing was recorded for anyone. */
    assert_string_equal(sites_of(e, NULL, &t), "");
    /* The longest that is one. */
    longer[BROCK_CLIENT_MAX - 1] = '\0';
    assert_int_equal(brock_client_page_seen(e, longer, "a.example", "t.test", BROCK_BLOCK, T(1)),
                     0);
    assert_string_equal(sites_of(e, longer, &t), "a.example 1");
    brock_engine_free(e);
}

static void test_bound(void **state)
{
    struct brock_engine *e = open_engine(NULL);
    char client[32];
    struct text t;

    (void)state;
    for (int i = 0; i <= BROCK_CLIENTS_MAX; i++) {
        snprintf(client, sizeof(client), "c%d", i);
        visit(e, client, "a.example", "t.test", T(100 + i));
    }
    /* The one seen longest ago made room. */
    assert_string_equal(sites_of(e, "c0", &t), "");
    assert_string_equal(today_of(e, "c0", &t), "0/0/0/0");
    assert_string_equal(sites_of(e, "c1", &t), "a.example 1");
    snprintf(client, sizeof(client), "c%d", BROCK_CLIENTS_MAX);
    assert_string_equal(sites_of(e, client, &t), "a.example 1");
    assert_string_equal(today_of(e, NULL, &t), "257/257/1/0");
    brock_engine_free(e);
}

static void test_kept_and_forgotten(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = open_engine(f->state), *other;
    struct text t;

    visit(e, "kids", "games.example", "ads.tracker.test", T(10));
    visit(e, "laptop", "news.example", "px.tracker.test", T(20));
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);

    e = open_engine(f->state);
    other = open_engine(f->state);
    assert_string_equal(sites_of(e, "kids", &t), "games.example 1");
    assert_string_equal(today_of(e, "kids", &t), "1/1/1/0");
    assert_string_equal(sites_of(other, "kids", &t), "games.example 1");
    assert_string_equal(today_of(other, "kids", &t), "1/1/1/0");

    assert_int_equal(brock_client_forget(e, "kids"), 1);
    assert_int_equal(brock_client_forget(e, "kids"), 0);
    assert_string_equal(sites_of(e, "kids", &t), "");
    assert_string_equal(today_of(e, "kids", &t), "0/0/0/0");
    /* Everyone's keep what the client added; the other client keeps its own. */
    assert_string_equal(sites_of(e, NULL, &t), "news.example 1; games.example 1");
    assert_string_equal(sites_of(e, "laptop", &t), "news.example 1");
    assert_true(brock_sync(e) >= 0);

    /* The other process drops it at its next sync. */
    assert_true(brock_sync(other) >= 0);
    assert_string_equal(sites_of(other, "kids", &t), "");
    assert_string_equal(today_of(other, "kids", &t), "0/0/0/0");
    assert_string_equal(sites_of(other, "laptop", &t), "news.example 1");
    /* A view of the forgotten client after it is its own again. */
    visit(other, "kids", "new.example", "t.test", T(50));
    assert_true(brock_sync(other) >= 0);
    brock_engine_free(other);
    brock_engine_free(e);

    e = open_engine(f->state);
    assert_string_equal(sites_of(e, "kids", &t), "new.example 1");
    assert_string_equal(today_of(e, "kids", &t), "1/1/1/0");
    assert_string_equal(sites_of(e, "laptop", &t), "news.example 1");
    brock_engine_free(e);
}

static void test_views_cross_processes(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = open_engine(f->state), *b = open_engine(f->state);
    struct text t;

    /* One worker records, another's dashboard shows it after both sync. */
    visit(a, "kids", "games.example", "ads.tracker.test", T(10));
    assert_true(brock_sync(a) >= 0);
    assert_true(brock_sync(b) >= 0);
    assert_string_equal(sites_of(b, "kids", &t), "games.example 1");
    assert_string_equal(today_of(b, "kids", &t), "1/1/1/0");
    brock_engine_free(a);
    brock_engine_free(b);
}

static void test_migrate_v4(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = open_engine(f->state);
    sqlite3 *raw = NULL;
    sqlite3_stmt *st = NULL;
    char db[400];
    struct text t;

    visit(e, NULL, "kept.example", "t.test", T(10));
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);
    snprintf(db, sizeof(db), "%s/brock.db", f->state);
    assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
    assert_int_equal(sqlite3_exec(raw,
                                  "DROP TABLE client_page_view; DROP TABLE client_day_count;"
                                  " ALTER TABLE day_count DROP COLUMN cleaned;"
                                  " PRAGMA user_version = 4;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(raw);

    e = open_engine(f->state);
    assert_string_equal(sites_of(e, NULL, &t), "kept.example 1");
    visit(e, "kids", "games.example", "ads.tracker.test", T(20));
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);
    assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
    assert_int_equal(
        sqlite3_prepare_v2(raw, "SELECT count(*) FROM client_page_view", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 1);
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 6);
    sqlite3_finalize(st);
    sqlite3_close(raw);
}

/* The decision for a pixel of px.tracker.test on a page of news.example, from client. */
static enum brock_reason decided(struct brock_engine *e, const char *client, int *effect)
{
    struct brock_request r = {.url = "http://px.tracker.test/p.gif",
                              .site = "www.news.example",
                              .type = BROCK_RESOURCE_IMAGE,
                              .client = client};
    struct brock_decision d;

    assert_int_equal(brock_decide_request(e, &r, &d), 0);
    *effect = (int)d.effect;
    return d.reason;
}

static void test_switches(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = open_engine(f->state), *other;
    char *text = NULL;
    size_t len = 0;
    int effect;

    assert_int_equal(brock_set_user_action(e, "px.tracker.test", BROCK_USER_BLOCK), 0);
    assert_int_equal(decided(e, "kids", &effect), BROCK_WHY_ACTION);
    assert_int_equal(effect, BROCK_DENY);

    /* Off on the site for kids alone, for good: a name under it too. */
    assert_int_equal(brock_client_site_set_disabled(e, "kids", "news.example", BROCK_NO_END), 0);
    assert_int_equal(decided(e, "kids", &effect), BROCK_WHY_DISABLED);
    assert_int_equal(effect, BROCK_PASS);
    assert_int_equal(decided(e, "laptop", &effect), BROCK_WHY_ACTION);
    assert_int_equal(decided(e, NULL, &effect), BROCK_WHY_ACTION);
    assert_int_equal(brock_client_site_is_disabled(e, "kids", "https://www.news.example/a"), 1);
    assert_int_equal(brock_client_site_is_disabled(e, "kids", "other.example"), 0);
    assert_int_equal(brock_client_send_signals(e, "kids", "www.news.example"), 0);
    assert_int_equal(brock_client_send_signals(e, "laptop", "www.news.example"), 1);
    assert_int_equal(brock_site_is_disabled(e, "www.news.example"), 0);
    /* Kept in the state; another process sees it after its sync; never exported. */
    assert_true(brock_sync(e) >= 0);
    other = open_engine(f->state);
    assert_int_equal(decided(other, "kids", &effect), BROCK_WHY_DISABLED);
    assert_int_equal(brock_export(other, "pb", &text, &len), 0);
    assert_null(strstr(text, "brockClients"));
    assert_null(strstr(text, "kids"));
    brock_free(text);
    assert_int_equal(brock_client_site_set_disabled(e, "kids", "news.example", 0), 0);
    assert_int_equal(decided(e, "kids", &effect), BROCK_WHY_ACTION);
    assert_true(brock_sync(e) >= 0);
    assert_true(brock_sync(other) >= 0);
    assert_int_equal(decided(other, "kids", &effect), BROCK_WHY_ACTION);
    brock_engine_free(other);

    /* A pause of one client's, until a time (an hour ahead): brock_expire() ends it. */
    assert_int_equal(brock_client_pause(e, "kids", T(7200000)), 0);
    assert_int_equal(decided(e, "kids", &effect), BROCK_WHY_DISABLED);
    assert_int_equal(brock_client_site_is_disabled(e, "kids", NULL), 1);
    assert_true(brock_next_end(e) == T(7200000));
    assert_int_equal(brock_client_settings_json(e, "kids", &text, &len), 0);
    assert_non_null(strstr(text, "\"paused\":true"));
    brock_free(text);
    assert_true(brock_expire(e, T(7199999), NULL, NULL) == 0);
    assert_int_equal(decided(e, "kids", &effect), BROCK_WHY_DISABLED);
    assert_true(brock_expire(e, T(7200000), NULL, NULL) >= 1);
    assert_int_equal(decided(e, "kids", &effect), BROCK_WHY_ACTION);
    assert_int_equal(brock_client_pause(e, "kids", BROCK_NO_END), 0);
    assert_int_equal(brock_client_resume(e, "kids"), 0);
    assert_int_equal(brock_client_resume(e, "kids"), 0);
    assert_int_equal(decided(e, "kids", &effect), BROCK_WHY_ACTION);
    assert_int_equal(brock_client_settings_json(e, "kids", &text, &len), 0);
    assert_string_equal(text, "{\"client\":\"kids\",\"disabled_sites\":[],\"paused\":false,"
                              "\"paused_until_ms\":null,\"widget_allowlist\":[]}");
    brock_free(text);

    /* Bad input changes nothing. */
    assert_int_equal(brock_client_pause(e, "two words", BROCK_NO_END), BROCK_EINVAL);
    assert_int_equal(brock_client_pause(e, "kids", 0), BROCK_EINVAL);
    assert_int_equal(brock_client_site_set_disabled(e, "kids", "com", BROCK_NO_END), BROCK_EINVAL);
    assert_int_equal(brock_client_site_set_disabled(e, "kids", "not a site", BROCK_NO_END),
                     BROCK_EINVAL);
    assert_int_equal(brock_client_site_set_disabled(e, "kids", "news.example", -5), BROCK_EINVAL);
    assert_int_equal(brock_client_settings_json(e, "", &text, &len), BROCK_EINVAL);
    assert_int_equal(decided(e, "kids", &effect), BROCK_WHY_ACTION);
    brock_engine_free(e);
}

int main(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    t0 = (int64_t)ts.tv_sec * 1000 - 3600000LL; /* an hour ago: today's, and kept */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_apart),
        cmocka_unit_test(test_bad_client),
        cmocka_unit_test(test_bound),
        cmocka_unit_test_setup_teardown(test_kept_and_forgotten, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_views_cross_processes, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_migrate_v4, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_switches, setup, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
