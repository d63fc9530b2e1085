/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The daily counters: requests counted by their effect per day and site, trackers learned
 * (and not those imported), the days reported oldest first with the empty ones, the state
 * adding what several processes counted, the migration of a version 2 state, and the
 * retention that follows the page views'.
 */
#include "test.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "brock.h"

#define DAY_MS 86400000LL

static int64_t now; /* noon today (UTC), so that an hour either way stays today */

static int setup(void **state)
{
    *state = test_fixture_new("daily");
    return 0;
}

static int on_day(void *arg, const struct brock_day *d)
{
    char *text = arg;
    size_t len = strlen(text);

    snprintf(text + len, 1024 - len, "%s%llu/%llu/%llu/%llu/%llu", len ? "; " : "",
             (unsigned long long)d->blocked, (unsigned long long)d->cookieblocked,
             (unsigned long long)d->allowed, (unsigned long long)d->learned,
             (unsigned long long)d->sites);
    return 0;
}

/* The last days' counts, oldest first: "blocked/cookieblocked/allowed/learned/sites; ...". */
static const char *days_of(struct brock_engine *e, int days, char text[1024])
{
    text[0] = '\0';
    assert_int_equal(brock_daily_each(e, days, now, on_day, text), 0);
    return text;
}

/* A request of type on a page of site, decided as effect. */
static void count_type(struct brock_engine *e, const char *site, enum brock_effect effect,
                       int64_t t, enum brock_resource_type type)
{
    struct brock_decision d;

    memset(&d, 0, sizeof(d));
    snprintf(d.site, sizeof(d.site), "%s", site);
    d.effect = effect;
    d.type = type;
    assert_int_equal(brock_daily_count(e, &d, t), 0);
}

/* A top-level page of site opened (or refused) at t. */
static void count(struct brock_engine *e, const char *site, enum brock_effect effect, int64_t t)
{
    count_type(e, site, effect, t, BROCK_RESOURCE_MAIN_FRAME);
}

/* Three sites with an identifying cookie from one tracker, at t. */
static void learn_three(struct brock_engine *e, int64_t t)
{
    static const char *const sites[] = {"one.example", "two.example", "three.example"};
    struct brock_header h = {"Cookie", 6, "uid=8f3a9c2e71d04b6a", 20};

    for (int i = 0; i < 3; i++) {
        struct brock_observation o = {.host = "px.learned.test",
                                      .site = sites[i],
                                      .headers = &h,
                                      .n_headers = 1,
                                      .time_ms = t + i};
        assert_int_equal(brock_observe(e, &o, NULL), 0);
    }
}

static int64_t rows_in(const char *db, const char *where)
{
    sqlite3 *raw = NULL;
    sqlite3_stmt *st = NULL;
    char sql[256];
    int64_t n;

    snprintf(sql, sizeof(sql), "SELECT count(*) FROM day_count WHERE %s", where);
    assert_int_equal(sqlite3_open(db, &raw), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(raw, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(raw);
    return n;
}

/* "YYYY-MM-DD" of a day (days since 1970-01-01, UTC). */
static void day_name(int64_t day, char out[16])
{
    time_t t = (time_t)(day * 86400);
    struct tm tm;

    assert_non_null(gmtime_r(&t, &tm));
    assert_true(strftime(out, 16, "%Y-%m-%d", &tm) > 0);
}

/* ---- tests ---- */

static void test_counting(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    static const char import[] = "{\"action_map\": {}, \"snitch_map\": {\"imported.test\":"
                                 " [\"a.example\", \"b.example\", \"c.example\"]}}";
    char text[1024], want[512], day0[16], day1[16], *json = NULL;
    struct brock_stats imported = {0};
    size_t len = 0;

    (void)state;
    assert_string_equal(days_of(e, 2, text), "0/0/0/0/0; 0/0/0/0/0");
    count(e, "a.example", BROCK_DENY, now);
    count(e, "a.example", BROCK_PASS, now + 3600000);
    count(e, "b.example", BROCK_STRIP_COOKIES, now - 3600000);
    count(e, "", BROCK_PASS, now); /* a page brock does not know: no site */
    count(e, "a.example", BROCK_PASS, now - DAY_MS);
    count(e, "old.example", BROCK_DENY, now - 5 * DAY_MS);
    assert_string_equal(days_of(e, 3, text), "0/0/0/0/0; 0/0/1/0/1; 1/1/2/0/2");
    /* Requests with no page of c.example opened: counted, but not a visit. */
    count_type(e, "c.example", BROCK_PASS, now, BROCK_RESOURCE_IMAGE);
    count_type(e, "c.example", BROCK_DENY, now, BROCK_RESOURCE_SUB_FRAME);
    assert_string_equal(days_of(e, 1, text), "2/1/3/0/2");
    count_type(e, "c.example", BROCK_DENY, now - DAY_MS, BROCK_RESOURCE_OTHER);
    assert_string_equal(days_of(e, 6, text),
                        "1/0/0/0/1; 0/0/0/0/0; 0/0/0/0/0; 0/0/0/0/0; 1/0/1/0/1; 2/1/3/0/2");

    /* Learned on three.example, a site no request was counted for: not a site visited. */
    learn_three(e, now);
    assert_string_equal(days_of(e, 1, text), "2/1/3/1/2");
    /* What an import brings was learned elsewhere, at no known time. */
    assert_int_equal(brock_import(e, "import", import, strlen(import), &imported), 0);
    assert_int_equal(imported.blocked, 1);
    assert_string_equal(days_of(e, 1, text), "2/1/3/1/2");

    assert_int_equal(brock_daily_each(e, 0, now, on_day, text), BROCK_EINVAL);
    assert_non_null(strstr(brock_engine_errmsg(e), "0 is not a number of days from 1 to 3650"));
    assert_int_equal(brock_daily_each(e, BROCK_DAILY_DAYS_MAX + 1, now, on_day, text),
                     BROCK_EINVAL);
    assert_int_equal(brock_daily_json(e, -1, now, &json, &len), BROCK_EINVAL);
    assert_null(json);
    assert_int_equal(brock_daily_json(e, 2, now, &json, &len), 0);
    day_name(now / DAY_MS - 1, day0);
    day_name(now / DAY_MS, day1);
    snprintf(want, sizeof(want),
             "[{\"allowed\":1,\"blocked\":1,\"cleaned\":0,\"cookieblocked\":0,\"day\":\"%s\","
             "\"learned\":0,\"sites\":1,\"time_ms\":%lld},"
             "{\"allowed\":3,\"blocked\":2,\"cleaned\":0,\"cookieblocked\":1,\"day\":\"%s\","
             "\"learned\":1,\"sites\":2,\"time_ms\":%lld}]",
             day0, (long long)((now / DAY_MS - 1) * DAY_MS), day1,
             (long long)(now / DAY_MS * DAY_MS));
    assert_string_equal(json, want);
    assert_int_equal(len, strlen(want));
    brock_free(json);
    brock_engine_free(e);
}

/* Each process adds what it counted to the state's rows; a new engine reads the sums. */
static void test_persistence(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1), *b;
    char text[1024];
    sqlite3 *raw = NULL;

    count(a, "a.example", BROCK_DENY, now);
    count(a, "a.example", BROCK_PASS, now);
    assert_true(brock_sync(a) >= 0);
    b = test_fixture_open(f, NULL, 1);
    assert_string_equal(days_of(b, 1, text), "1/0/1/0/1");
    count(b, "b.example", BROCK_PASS, now);
    count(b, "a.example", BROCK_DENY, now);
    assert_true(brock_sync(b) >= 0);
    count(a, "a.example", BROCK_STRIP_COOKIES, now);
    assert_true(brock_sync(a) >= 0);
    assert_true(brock_sync(a) >= 0); /* nothing new: nothing added twice */
    brock_engine_free(a);
    brock_engine_free(b);
    a = test_fixture_open(f, NULL, 1);
    assert_string_equal(days_of(a, 1, text), "2/1/2/0/2");
    brock_engine_free(a);

    /* A version 2 state, which had no daily counters, is brought up to date. */
    assert_int_equal(sqlite3_open(f->db, &raw), SQLITE_OK);
    assert_int_equal(sqlite3_exec(raw,
                                  "DROP TABLE day_count; DROP TABLE site_action;"
                                  " DROP TABLE client_page_view; DROP TABLE client_day_count;"
                                  " PRAGMA user_version = 2;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(raw);
    a = test_fixture_open(f, NULL, 1);
    assert_string_equal(days_of(a, 1, text), "0/0/0/0/0");
    count(a, "c.example", BROCK_PASS, now);
    assert_true(brock_sync(a) >= 0);
    brock_engine_free(a);
    a = test_fixture_open(f, NULL, 1);
    assert_string_equal(days_of(a, 1, text), "0/0/1/0/1");
    brock_engine_free(a);
}

/* The URLs cleaned each day, per site and per client; a version 5 state, whose counters had
 * no such column, keeps its counts and gets it. */
static void test_cleaned(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = test_fixture_open(f, NULL, 1);
    sqlite3 *raw;
    char *json = NULL;
    size_t len = 0;
    char text[1024];

    count(e, "a.example", BROCK_DENY, now);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);
    assert_int_equal(sqlite3_open(f->db, &raw), SQLITE_OK);
    assert_int_equal(sqlite3_exec(raw,
                                  "ALTER TABLE day_count DROP COLUMN cleaned;"
                                  " ALTER TABLE client_day_count DROP COLUMN cleaned;"
                                  " PRAGMA user_version = 5;",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(raw);

    e = test_fixture_open(f, NULL, 1);
    assert_string_equal(days_of(e, 1, text), "1/0/0/0/1");
    assert_int_equal(brock_clean_count(e, NULL, "www.a.example", now), 0);
    assert_int_equal(brock_clean_count(e, "laptop", "a.example", now), 0);
    assert_int_equal(brock_clean_count(e, "laptop", NULL, now), 0);
    assert_int_equal(brock_clean_count(e, "not a client", "a.example", now), BROCK_EINVAL);
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);

    e = test_fixture_open(f, NULL, 1);
    assert_int_equal(brock_daily_json(e, 1, now, &json, &len), 0);
    assert_non_null(strstr(json, "\"cleaned\":3"));
    assert_non_null(strstr(json, "\"blocked\":1"));
    brock_free(json);
    assert_int_equal(brock_client_daily_json(e, "laptop", 1, now, &json, &len), 0);
    assert_non_null(strstr(json, "\"cleaned\":2"));
    brock_free(json);
    brock_engine_free(e);
    assert_int_equal(rows_in(f->db, "site = 'a.example' AND cleaned = 2"), 1);
}

/* Days are kept as long as page views: a day goes once all of it is past the setting. */
static void test_retention(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = test_fixture_open(f, NULL, 1);
    int64_t today = now / DAY_MS;
    char text[1024], where[64];

    assert_int_equal(brock_page_view_days(e), 7);
    count(e, "a.example", BROCK_PASS, now - 9 * DAY_MS);
    count(e, "a.example", BROCK_PASS, now - 8 * DAY_MS);
    count(e, "a.example", BROCK_PASS, now - 7 * DAY_MS);
    count(e, "a.example", BROCK_PASS, now);
    assert_true(brock_sync(e) >= 0);
    /* The day 8 days back ended more than 7 days ago; the one 7 days back did not. */
    assert_string_equal(days_of(e, 10, text), "0/0/0/0/0; 0/0/0/0/0; 0/0/1/0/1; 0/0/0/0/0; "
                                              "0/0/0/0/0; 0/0/0/0/0; 0/0/0/0/0; 0/0/0/0/0; "
                                              "0/0/0/0/0; 0/0/1/0/1");
    brock_engine_free(e);
    snprintf(where, sizeof(where), "day < %lld", (long long)(today - 7));
    assert_int_equal(rows_in(f->db, where), 0);
    assert_int_equal(rows_in(f->db, "1"), 2);

    /* A shorter setting applies at the next sync; 0 keeps nothing and counts nothing. */
    e = test_fixture_open(f, NULL, 1);
    assert_int_equal(brock_page_view_days_set(e, 1), 0);
    assert_true(brock_sync(e) >= 0);
    assert_string_equal(days_of(e, 10, text), "0/0/0/0/0; 0/0/0/0/0; 0/0/0/0/0; 0/0/0/0/0; "
                                              "0/0/0/0/0; 0/0/0/0/0; 0/0/0/0/0; 0/0/0/0/0; "
                                              "0/0/0/0/0; 0/0/1/0/1");
    assert_int_equal(rows_in(f->db, "1"), 1);
    assert_int_equal(brock_page_view_days_set(e, 0), 0);
    assert_true(brock_sync(e) >= 0);
    count(e, "a.example", BROCK_DENY, now);
    assert_string_equal(days_of(e, 1, text), "0/0/0/0/0");
    assert_true(brock_sync(e) >= 0);
    brock_engine_free(e);
    assert_int_equal(rows_in(f->db, "1"), 0);
}

int main(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    now = ((int64_t)ts.tv_sec * 1000 / DAY_MS) * DAY_MS + DAY_MS / 2;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counting),
        cmocka_unit_test_setup_teardown(test_persistence, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_retention, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_cleaned, setup, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
