/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The store's one walk (store_walk.c), on a back end of the test's own that notes each write
 * and serves rows from tables in memory: a flush writes every kind of row, in the one order,
 * with its journal rows; a failed write stops the walk with the back end's words for it; a
 * reset writes everything again; a load brings every kind of row into memory.
 */
#include "test.h"
#include "store_test.h"

#include <stdlib.h>

#include "store/store_walk.h"

/* ---- a back end that notes what it is told to write ---- */

static char said[4096];
static const char *refuse; /* the write that fails, by name; NULL: none */
static char record[BROCK__SEEDED_MAX];

static int note(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(const char *what, const char *fmt, ...)
{
    size_t len = strlen(said);
    va_list ap;

    snprintf(said + len, sizeof(said) - len, "%s", what);
    len = strlen(said);
    va_start(ap, fmt);
    vsnprintf(said + len, sizeof(said) - len, fmt, ap);
    va_end(ap);
    len = strlen(said);
    snprintf(said + len, sizeof(said) - len, "\n");
    return refuse && !strcmp(refuse, what) ? -1 : 0;
}

static const char *or_dash(const char *s)
{
    return s ? s : "-";
}

static int w_reset(struct brock_engine *e)
{
    (void)e;
    return note("reset", "%s", "");
}

static int w_journal(struct brock_engine *e, const char *kind, const char *name)
{
    (void)e;
    return note("journal", " %s %s", kind, name);
}

static int w_action(struct brock_engine *e, const struct action_entry *a)
{
    (void)e;
    return note("action", " %s %s %d", a->domain, brock__user_name(a->user), a->dirty);
}

static int w_action_del(struct brock_engine *e, const char *domain)
{
    (void)e;
    return note("action_del", " %s", domain);
}

static int w_snitch(struct brock_engine *e, const char *tracker, const struct snitch_site *ss,
                    const char *detail)
{
    (void)e;
    return note("snitch", " %s %s %s %s", tracker, ss->site, or_dash(ss->host), or_dash(detail))
               ? -1
               : 1;
}

static int w_snitch_del(struct brock_engine *e, const char *tracker)
{
    (void)e;
    return note("snitch_del", " %s", tracker);
}

static int w_tracking_del(struct brock_engine *e, const char *tracker)
{
    (void)e;
    return note("tracking_del", " %s", tracker);
}

static int w_tracking(struct brock_engine *e, const char *tracker, const char *site, unsigned kinds)
{
    (void)e;
    return note("tracking", " %s %s %u", tracker, site, kinds);
}

static int w_fp(struct brock_engine *e, const char *host, const char *path)
{
    (void)e;
    return note("fp", " %s %s", host, path);
}

static int w_site_action(struct brock_engine *e, const char *site, const char *domain,
                         const char *user)
{
    (void)e;
    return note("site_action", " %s %s %s", site, domain, or_dash(user));
}

static int w_settings_clear(struct brock_engine *e)
{
    (void)e;
    return note("settings_clear", "%s", "");
}

static int w_setting(struct brock_engine *e, const char *key, const char *json_text)
{
    (void)e;
    return note("setting", " %s %s", key, json_text);
}

static int w_meta(struct brock_engine *e, const char *key, const char *value)
{
    (void)e;
    return note("meta", " %s %s", key, value);
}

/* A client's rows say "client/" first. */
static int w_page(struct brock_engine *e, const char *client, const char *site, const char *host,
                  const char *action, int64_t count, int64_t time_ms)
{
    (void)e;
    return note("page", " %s%s%s %s %s %lld %lld", client, *client ? "/" : "", or_dash(site),
                or_dash(host), or_dash(action), (long long)count, (long long)time_ms);
}

static int w_day(struct brock_engine *e, const char *client, int64_t day, const char *site,
                 const uint64_t add[BROCK__DAILY_COUNT])
{
    (void)e;
    return note("day", " %s%s%lld %s %llu %llu", client, *client ? "/" : "", (long long)day,
                or_dash(site), (unsigned long long)(site ? add[BROCK__DAILY_BLOCKED] : 0),
                (unsigned long long)(site ? add[BROCK__DAILY_PAGES] : 0));
}

static int w_views(struct brock_engine *e, unsigned pages, unsigned days)
{
    (void)e;
    return note("views", " %u %u", pages, days);
}

static char *w_seeded(struct brock_engine *e)
{
    (void)e;
    return record;
}

static int w_fail(struct brock_engine *e, const char *what, const char *name)
{
    return brock__fail(e, BROCK_ESTORE, "cannot %s %s", what, name);
}

/* ---- and serves rows from tables in memory ---- */

struct fake_row {
    struct brock__store_row r;
    const char *const *cols;
};

static const char *r_text(const struct brock__store_row *r, int col)
{
    return ((const struct fake_row *)r)->cols[col];
}

static int64_t r_num(const struct brock__store_row *r, int col)
{
    const char *t = r_text(r, col);

    return t ? strtoll(t, NULL, 10) : 0;
}

#define COLS 8
static const char *const action_rows[][COLS] = {
    {"a.example", "user_block", "block", "1", "99"},
    {"b.example", "", "cookieblock", "0", "0"},
};
static const char *const snitch_rows[][COLS] = {
    {"t.example", "one.example", "h.t.example", "uid", "1", "42"},
    {"t.example", "two.example", NULL, NULL, "0", "43"},
    {"t.example", "three.example", "x", "ck=param", "4", "44"},
};
static const char *const tracking_rows[][COLS] = {{"t.example", "one.example", "3"}};
static const char *const fp_rows[][COLS] = {{"fp.example", "/fp.js"}};
static const char *const site_action_rows[][COLS] = {{"news.example", "t.example", "user_allow"}};
static const char *const setting_rows[][COLS] = {{"learnLocally", "false"}};

static const struct {
    const char *const (*rows)[COLS];
    int n;
} tables[BROCK__TABLE_COUNT] = {
    [BROCK__TABLE_ACTION] = {action_rows, 2},           [BROCK__TABLE_SNITCH] = {snitch_rows, 3},
    [BROCK__TABLE_TRACKING] = {tracking_rows, 1},       [BROCK__TABLE_FP] = {fp_rows, 1},
    [BROCK__TABLE_SITE_ACTION] = {site_action_rows, 1}, [BROCK__TABLE_SETTING] = {setting_rows, 1},
};

static int r_rows(struct brock_engine *e, int table, const char *what,
                  int (*apply)(struct brock_engine *e, const struct brock__store_row *r, void *arg),
                  void *arg)
{
    struct fake_row row = {.r = {.text = r_text, .num = r_num}};
    int rc;

    note("rows", " %s", what);
    for (int i = 0; i < tables[table].n; i++) {
        row.cols = tables[table].rows[i];
        if ((rc = apply(e, &row.r, arg)) < 0)
            return rc;
    }
    return 0;
}

static const struct brock__store_walk_ops ops = {
    .reset = w_reset,
    .journal = w_journal,
    .action = w_action,
    .action_del = w_action_del,
    .snitch = w_snitch,
    .snitch_del = w_snitch_del,
    .tracking_del = w_tracking_del,
    .tracking = w_tracking,
    .fp = w_fp,
    .site_action = w_site_action,
    .settings_clear = w_settings_clear,
    .setting = w_setting,
    .meta = w_meta,
    .page = w_page,
    .day = w_day,
    .views = w_views,
    .seeded = w_seeded,
    .fail = w_fail,
    .rows = r_rows,
};

static const char *where(const struct brock_engine *e)
{
    (void)e;
    return "the test's store";
}

static const struct brock__store_ops store_ops = {.name = "test", .where = where};

static struct brock_engine *engine(void)
{
    struct brock_engine *e = engine_new();

    e->store_ops = &store_ops;
    said[0] = '\0';
    refuse = NULL;
    snprintf(record, sizeof(record), "%s", "");
    return e;
}

static void engine_done(struct brock_engine *e)
{
    brock__pages_free(e->pages);
    e->pages = NULL;
    mem_free(e->pbconfig);
    engine_free(e);
}

/* One change of each kind. */
static void mark_one_of_each(struct brock_engine *e)
{
    put_action(e, "gone.example", BROCK_USER_ALLOW, 0, 0, 0, BROCK__DIRTY_USER);
    delete_action(e, "gone.example");
    assert_int_equal(strvec_push(&e->forgotten, "old.example"), 0);
    put_action(e, "a.example", BROCK_USER_BLOCK, 0, 0, 0, BROCK__DIRTY_USER);
    add_snitch(e, "t.example", "s.example", "h.example", NULL, 0, 1);
    add_tracking(e, "t.example", "s.example", 1);
    add_fp(e, "fp.example", "/fp.js");
    assert_int_equal(brock_set_site_action(e, "news.example", "t.example", BROCK_USER_ALLOW), 0);
    json_object_set_new(e->settings, "k", json_true());
    e->settings_dirty = 1;
    e->pbconfig = mem_strdup("{}");
    e->pbconfig_time = 5;
    e->pbconfig_dirty = 1;
    assert_int_equal(brock_page_seen(e, "news.example", "h.example", BROCK_BLOCK, 1000), 0);
    assert_int_equal(brock__daily_add(e, "news.example", BROCK__DAILY_BLOCKED, 3 * 86400000LL), 0);
    assert_int_equal(
        brock_client_page_seen(e, "kids", "news.example", "h.example", BROCK_BLOCK, 2000), 0);
    e->seed_mark = BROCK__SEED_LOADED;
}

/* ---- cases ---- */

static void test_write_order(void **state)
{
    struct brock_engine *e = engine();

    (void)state;
    mark_one_of_each(e);
    /* The record of a state written anew is kept. */
    snprintf(record, sizeof(record), "%s", "1234");
    assert_int_equal(brock__store_walk_write(e, &ops), 0);
    assert_string_equal(said, "action_del gone.example\n"
                              "journal action gone.example\n"
                              "snitch_del old.example\n"
                              "tracking_del old.example\n"
                              "action a.example user_block 1\n"
                              "journal action a.example\n"
                              "snitch t.example s.example h.example -\n"
                              "journal snitch t.example\n"
                              "tracking t.example s.example 1\n"
                              "fp fp.example /fp.js\n"
                              "site_action news.example t.example user_allow\n"
                              "journal site_action \n"
                              "settings_clear\n"
                              "setting k true\n"
                              "journal settings \n"
                              "meta pbconfig {}\n"
                              "meta pbconfig_time 5\n"
                              "page news.example h.example block 2 2000\n"
                              "page kids/news.example h.example block 1 2000\n"
                              "day 3 news.example 1 0\n"
                              "views 2 1\n"
                              "meta seeded 1234\n");
    engine_done(e);
}

/* A write that fails stops the walk: nothing after it is written, and the back end says why. */
static void test_write_refused(void **state)
{
    struct brock_engine *e = engine();

    (void)state;
    mark_one_of_each(e);
    refuse = "tracking";
    assert_int_equal(brock__store_walk_write(e, &ops), BROCK_ESTORE);
    assert_string_equal(e->errmsg, "cannot write the tracking map of t.example");
    assert_non_null(strstr(said, "tracking t.example s.example 1\n"));
    assert_null(strstr(said, "fp "));
    engine_done(e);
}

/* After a reset everything memory holds is written, every column of every action. */
static void test_write_reset(void **state)
{
    struct brock_engine *e = engine();
    struct action_entry *a;

    (void)state;
    a = put_action(e, "kept.example", BROCK_USER_BLOCK, 0, 0, 0, BROCK__DIRTY_USER);
    a->dirty = 0;
    e->reset_pending = 1;
    e->seed_mark = BROCK__SEED_NONE;
    assert_int_equal(brock__store_walk_write(e, &ops), 0);
    assert_string_equal(said, "reset\n"
                              "journal reset \n"
                              "action kept.example user_block 7\n"
                              "journal action kept.example\n"
                              "views 0 0\n"
                              "meta seeded none\n");
    assert_string_equal(record, "none");
    engine_done(e);
}

/* Every table in its order, each kind of row into memory. */
static void test_read(void **state)
{
    struct brock_engine *e = engine();
    const struct action_entry *a;
    const struct snitch_site *ss;
    const struct tracking *t;
    char text[128];

    (void)state;
    assert_int_equal(brock__store_walk_read(e, &ops), 0);
    assert_string_equal(said, "rows the actions\n"
                              "rows the snitch map\n"
                              "rows the tracking map\n"
                              "rows the fingerprinting scripts\n"
                              "rows the choices for one site\n"
                              "rows the page views\n"
                              "rows the daily counters\n"
                              "rows the clients' page views\n"
                              "rows the clients' daily counters\n"
                              "rows the settings\n");
    a = strmap_get(&e->actions, "a.example");
    assert_non_null(a);
    assert_int_equal(a->user, BROCK_USER_BLOCK);
    assert_int_equal(a->heur, BROCK_BLOCK);
    assert_int_equal(a->dnt, 1);
    assert_int_equal(a->next_update, 99);
    assert_int_equal(((const struct action_entry *)strmap_get(&e->actions, "b.example"))->heur,
                     BROCK_COOKIEBLOCK);
    ss = find_site(e, "t.example", "two.example");
    assert_non_null(ss);
    assert_null(ss->host);
    assert_null(ss->detail);
    ss = find_site(e, "t.example", "three.example");
    assert_string_equal(ss->detail, "ck");
    assert_string_equal(ss->param, "param");
    t = strmap_get(&e->tracking, "t.example");
    assert_non_null(t);
    assert_int_equal(t->v[0].kinds, 3);
    assert_non_null(strmap_get(&e->fp_scripts, "fp.example"));
    assert_string_equal(test_list_site_choices(e, NULL, text, sizeof(text)),
                        "t.example@news.example=user_allow");
    assert_true(json_is_false(json_object_get(e->settings, "learnLocally")));
    engine_done(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_write_order),
        cmocka_unit_test(test_write_refused),
        cmocka_unit_test(test_write_reset),
        cmocka_unit_test(test_read),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
