/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The store interface, the same cases on each back end: SQLite in a temporary folder, and
 * PostgreSQL on a server of the test's own (tests/pg-server), a new database per case. What is
 * flushed loads back the same; two engines changing different columns of one entry both win;
 * each picks up what the other wrote, deletions included, while its own unwritten changes
 * win; the schema is refused when newer; PostgreSQL's store thread retries a refused batch
 * until it goes in and brings other instances' changes. The PostgreSQL cases are skipped, saying why, only
 * when PostgreSQL's binaries are missing.
 */
#include "test.h"
#include "store_test.h"

#include "store/store_pg.h"

#include <errno.h>
#include <sys/wait.h>
#include <time.h>

#include <libpq-fe.h>

enum backend { SQLITE, POSTGRESQL };

/* The server, started once for the file (group setup). */
static char pg_top[PATH_MAX], pg_dir[PATH_MAX + 8], pg_conninfo[PATH_MAX + 128];
static const char *pg_skip; /* why the PostgreSQL cases are skipped; NULL: they run */
static int pg_count;

struct fixture {
    enum backend b;
    struct test_fixture *sqlite;   /* SQLite: its folders (the state below); NULL otherwise */
    char conninfo[PATH_MAX + 192]; /* PostgreSQL: this case's database */
};

static const char *pg_script(void)
{
    return test_data("../pg-server");
}

static int group_setup(void **state)
{
    char cmd[3 * PATH_MAX];
    FILE *f;
    int st;

    (void)state;
    test_mkdtemp("pgstore", pg_top, sizeof(pg_top));
    /* The server runs as the postgres user, who must reach its folder. */
    if (chmod(pg_top, 0711) != 0)
        return -1;
    snprintf(pg_dir, sizeof(pg_dir), "%s/pg", pg_top);
    snprintf(cmd, sizeof(cmd), "'%s' start '%s' %ld", pg_script(), pg_dir, (long)getpid());
    f = popen(cmd, "r");
    if (!f)
        return -1;
    if (!fgets(pg_conninfo, sizeof(pg_conninfo), f))
        pg_conninfo[0] = '\0';
    st = pclose(f);
    if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
        pg_skip = "PostgreSQL's binaries are missing (the Debian package postgresql)";
        return 0;
    }
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || !pg_conninfo[0]) {
        print_error("tests/pg-server could not start PostgreSQL\n");
        return -1;
    }
    pg_conninfo[strcspn(pg_conninfo, "\n")] = '\0';
    return 0;
}

static int group_teardown(void **state)
{
    char cmd[3 * PATH_MAX];
    int rc;

    (void)state;
    snprintf(cmd, sizeof(cmd), "'%s' stop '%s'", pg_script(), pg_dir);
    rc = system(cmd);
    test_rmtree(pg_top);
    return rc == 0 ? 0 : -1;
}

/* Runs sql on the server's own database (or this case's, db), failing the test on an error. */
static void pg_sql(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    PGresult *r;

    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("connect %s: %s", conninfo, PQerrorMessage(c));
    r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    char sql[64];

    assert_non_null(f);
    f->b = *(const enum backend *)*state;
    *state = f;
    if (f->b == SQLITE) {
        f->sqlite = test_fixture_new("stores");
        return 0;
    }
    if (pg_skip)
        return 0;
    snprintf(sql, sizeof(sql), "CREATE DATABASE brock_case%d", ++pg_count);
    pg_sql(pg_conninfo, sql);
    snprintf(f->conninfo, sizeof(f->conninfo), "%s dbname=brock_case%d", pg_conninfo, pg_count);
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;

    test_fixture_free(f->sqlite);
    free(f);
    return 0;
}

static void skip_unless_ready(const struct fixture *f)
{
    if (f->b == POSTGRESQL && pg_skip) {
        print_message("# skip: %s\n", pg_skip);
        skip();
    }
}

/* An engine on the case's store, loaded. */
static struct brock_engine *engine_on(const struct fixture *f, int *fresh)
{
    struct brock_engine *e = engine_new();
    int is_fresh = -1, rc;

    rc = f->b == SQLITE ? brock__sqlite_open(e, f->sqlite->state, &is_fresh)
                        : brock__pg_open(e, f->conninfo, &is_fresh);
    if (rc != 0)
        fail_msg("open: %s", e->errmsg);
    assert_non_null(e->store);
    assert_int_equal(brock__store_load(e), 0);
    if (fresh)
        *fresh = is_fresh;
    return e;
}

static void flush(struct brock_engine *e)
{
    int rc = brock__store_flush(e);

    if (rc != 0)
        fail_msg("flush: %s", e->errmsg);
    assert_all_clean(e);
}

/* Polls until something comes (a notification reaches the other connection a moment after
 * the commit), for at most two seconds. Returns what the last poll returned. */
static int poll_some(struct brock_engine *e)
{
    struct timespec tick = {0, 10 * 1000 * 1000};
    int n = 0;

    for (int i = 0; i < 200 && n == 0; i++) {
        n = brock__store_poll(e);
        if (n < 0)
            fail_msg("poll: %s", e->errmsg);
        if (n == 0)
            nanosleep(&tick, NULL);
    }
    return n;
}

/* ---- cases ---- */

static void test_roundtrip(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b;
    struct snitch *sn;
    int fresh = 0;

    skip_unless_ready(f);
    a = engine_on(f, &fresh);
    assert_int_equal(fresh, 1);
    put_action(a, "tracker.example", BROCK_USER_BLOCK, BROCK_BLOCK, 1, 1234567890123,
               BROCK__DIRTY_USER | BROCK__DIRTY_HEUR | BROCK__DIRTY_DNT);
    put_action(a, "odd.example", BROCK_NOACTION, BROCK__HEUR_UNKNOWN, 0, 0, BROCK__DIRTY_HEUR);
    add_snitch(a, "tracker.example", "news.example", "cdn.tracker.example", "uid", 1, 42);
    add_snitch(a, "tracker.example", "shop.example", NULL, NULL, 0, 43);
    add_snitch(a, "tracker.example", "it's.example", "x", "ck", BROCK_EVIDENCE_PIXEL, 44);
    /* Pixel sharing's evidence: the cookie and the URL parameter, one column in the store. */
    sn = strmap_get(&a->snitches, "tracker.example");
    sn->v[sn->n - 1].param = mem_strdup("param");
    add_tracking(a, "tracker.example", "news.example", BROCK__TRACK_BEACON);
    add_tracking(a, "tracker.example", "blog.example", BROCK__TRACK_CANVAS);
    add_fp(a, "fp.example", "/fp.js");
    add_fp(a, "fp.example", "/a/b.js?x='1'");
    json_object_set_new(a->settings, "checkForDNTPolicy", json_false());
    json_object_set_new(a->settings, "disabledSites", json_pack("[s]", "off.example"));
    a->settings_dirty = 1;
    a->seed_mark = BROCK__SEED_NONE;
    flush(a);

    b = engine_on(f, &fresh);
    assert_int_equal(fresh, 0);
    assert_same_maps(a, b);
    assert_non_null(find_site(b, "tracker.example", "it's.example"));
    assert_string_equal(find_site(b, "tracker.example", "it's.example")->detail, "ck");
    assert_string_equal(find_site(b, "tracker.example", "it's.example")->param, "param");
    engine_free(a);
    engine_free(b);
}

/* Two engines change different columns of one entry: both changes stay. */
static void test_columnwise(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b, *c;
    const struct action_entry *x;

    skip_unless_ready(f);
    a = engine_on(f, NULL);
    b = engine_on(f, NULL);
    put_action(a, "both.example", BROCK_USER_ALLOW, 0, 0, 0, BROCK__DIRTY_USER);
    put_action(b, "both.example", 0, BROCK_BLOCK, 0, 0, BROCK__DIRTY_HEUR);
    flush(a);
    flush(b);
    c = engine_on(f, NULL);
    x = strmap_get(&c->actions, "both.example");
    assert_non_null(x);
    assert_int_equal(x->user, BROCK_USER_ALLOW);
    assert_int_equal(x->heur, BROCK_BLOCK);
    engine_free(a);
    engine_free(b);
    engine_free(c);
}

/* What one engine writes, the other picks up: actions, deletions, snitch sites, settings. */
static void test_poll(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b;
    const struct action_entry *x;

    skip_unless_ready(f);
    a = engine_on(f, NULL);
    put_action(a, "gone.example", 0, BROCK_ALLOW, 0, 0, BROCK__DIRTY_HEUR);
    flush(a);
    b = engine_on(f, NULL);
    assert_non_null(strmap_get(&b->actions, "gone.example"));
    assert_int_equal(brock__store_poll(b), 0);

    put_action(a, "set.example", BROCK_USER_BLOCK, 0, 0, 0, BROCK__DIRTY_USER);
    delete_action(a, "gone.example");
    add_snitch(a, "t.example", "one.example", "t.example", "id", 0, 1);
    json_object_set_new(a->settings, "learnLocally", json_false());
    a->settings_dirty = 1;
    flush(a);
    assert_true(poll_some(b) > 0);
    x = strmap_get(&b->actions, "set.example");
    assert_non_null(x);
    assert_int_equal(x->user, BROCK_USER_BLOCK);
    assert_null(strmap_get(&b->actions, "gone.example"));
    assert_non_null(find_site(b, "t.example", "one.example"));
    assert_true(json_is_false(json_object_get(b->settings, "learnLocally")));
    /* Its own writes are not picked up again. */
    assert_int_equal(brock__store_poll(a), 0);
    engine_free(a);
    engine_free(b);
}

/* brock's own settings (the pause, a site's end) reach another engine like any setting,
 * and go from it when the engine that wrote them takes them away, though a row is read only
 * for the keys the state holds. */
static void test_pause(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b;

    skip_unless_ready(f);
    a = engine_on(f, NULL);
    b = engine_on(f, NULL);
    assert_int_equal(brock_pause(a, BROCK_NO_END), 0);
    assert_int_equal(brock_site_disable_until(a, "news.example", INT64_MAX - 1), 0);
    flush(a);
    assert_true(poll_some(b) > 0);
    assert_int_equal(brock_paused(b, 0, NULL), 1);
    assert_true(brock_next_end(b) == INT64_MAX - 1);
    assert_int_equal(brock_resume(a), 0);
    assert_int_equal(brock_site_set_disabled(a, "news.example", 0), 0);
    flush(a);
    assert_true(poll_some(b) > 0);
    assert_int_equal(brock_paused(b, 0, NULL), 0);
    assert_int_equal(brock_next_end(b), 0);
    engine_free(a);
    engine_free(b);
}

/* A column changed in memory and not yet written wins over what another engine wrote, and
 * is what the store holds after the next flush. */
static void test_dirty_wins(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b, *c;
    const struct action_entry *x;

    skip_unless_ready(f);
    a = engine_on(f, NULL);
    b = engine_on(f, NULL);
    put_action(b, "d.example", BROCK_USER_ALLOW, BROCK_BLOCK, 0, 0,
               BROCK__DIRTY_USER | BROCK__DIRTY_HEUR);
    put_action(a, "d.example", BROCK_USER_BLOCK, 0, 0, 0, BROCK__DIRTY_USER);
    flush(b);
    assert_true(poll_some(a) > 0);
    x = strmap_get(&a->actions, "d.example");
    assert_int_equal(x->user, BROCK_USER_BLOCK);
    assert_int_equal(x->heur, BROCK_BLOCK);
    flush(a);
    c = engine_on(f, NULL);
    x = strmap_get(&c->actions, "d.example");
    assert_int_equal(x->user, BROCK_USER_BLOCK);
    assert_int_equal(x->heur, BROCK_BLOCK);
    engine_free(a);
    engine_free(b);
    engine_free(c);
}

/* Choices for one site: loaded back, a removal and a change picked up by the other engine,
 * whose own unwritten choice wins and is what the store holds after its flush. */
static void test_site_actions(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b, *c;
    char text[512];

    skip_unless_ready(f);
    a = engine_on(f, NULL);
    assert_int_equal(brock_set_site_action(a, "news.example", "t.example", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_set_site_action(a, "shop.example", "t.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_set_site_action(a, "blog.example", "u.example", BROCK_USER_BLOCK), 0);
    flush(a);
    b = engine_on(f, NULL);
    assert_string_equal(test_list_site_choices(b, NULL, text, sizeof(text)),
                        "u.example@blog.example=user_block t.example@news.example=user_allow "
                        "t.example@shop.example=user_block");
    assert_int_equal(brock_reset_site_action(a, "news.example", "t.example"), 0);
    assert_int_equal(brock_set_site_action(a, "shop.example", "t.example", BROCK_USER_COOKIEBLOCK),
                     0);
    assert_int_equal(brock_set_site_action(a, "blog.example", "u.example", BROCK_USER_ALLOW), 0);
    assert_int_equal(brock_set_site_action(b, "blog.example", "u.example", BROCK_USER_COOKIEBLOCK),
                     0);
    flush(a);
    assert_true(poll_some(b) > 0);
    assert_string_equal(test_list_site_choices(b, NULL, text, sizeof(text)),
                        "u.example@blog.example=user_cookieblock "
                        "t.example@shop.example=user_cookieblock");
    flush(b);
    c = engine_on(f, NULL);
    assert_string_equal(test_list_site_choices(c, NULL, text, sizeof(text)),
                        "u.example@blog.example=user_cookieblock "
                        "t.example@shop.example=user_cookieblock");
    engine_free(a);
    engine_free(b);
    engine_free(c);
}

/* ---- PostgreSQL only ---- */

static int sum_day(void *arg, const struct brock_day *d)
{
    struct brock_day *sum = arg;

    sum->blocked += d->blocked;
    sum->allowed += d->allowed;
    sum->sites += d->sites;
    return 0;
}

/* Two engines count on one state: each adds its counts to the other's. */
static void test_daily_adds_up(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b, *c;
    struct brock_day sum = {.blocked = 0};
    struct timespec now;
    int64_t ms;

    skip_unless_ready(f);
    clock_gettime(CLOCK_REALTIME, &now);
    ms = (int64_t)now.tv_sec * 1000;
    a = engine_on(f, NULL);
    b = engine_on(f, NULL);
    assert_int_equal(brock__daily_add(a, "news.example", BROCK__DAILY_BLOCKED, ms), 0);
    assert_int_equal(brock__daily_add(a, "news.example", BROCK__DAILY_PAGES, ms), 0);
    assert_int_equal(brock__daily_add(b, "news.example", BROCK__DAILY_BLOCKED, ms), 0);
    assert_int_equal(brock__daily_add(b, "shop.example", BROCK__DAILY_PAGES, ms), 0);
    assert_int_equal(brock__daily_add(b, "shop.example", BROCK__DAILY_ALLOWED, ms), 0);
    flush(a);
    flush(b);
    c = engine_on(f, NULL);
    assert_int_equal(brock_daily_each(c, 1, ms, sum_day, &sum), 0);
    assert_int_equal(sum.blocked, 2);
    assert_int_equal(sum.allowed, 1);
    assert_int_equal(sum.sites, 2);
    engine_free(a);
    engine_free(b);
    engine_free(c);
}

static int count_sites(void *arg, const struct brock_site *s)
{
    (void)s;
    ++*(int *)arg;
    return 0;
}

/* client's sites in e. */
static int client_sites(struct brock_engine *e, const char *client)
{
    int n = 0;

    assert_int_equal(brock_client_sites(e, client, count_sites, &n), 0);
    return n;
}

/* A client's own views and counts reach the store and another engine; a client forgotten in
 * one engine goes from the store and, at its next poll, from the other. */
static void test_client_views(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b;
    struct brock_day sum = {.blocked = 0};
    struct brock_decision d = {.effect = BROCK_DENY, .site = "news.example"};
    struct timespec now;
    int64_t ms;

    skip_unless_ready(f);
    clock_gettime(CLOCK_REALTIME, &now);
    ms = (int64_t)now.tv_sec * 1000;
    a = engine_on(f, NULL);
    assert_int_equal(brock_client_page_seen(a, "kids", "news.example", "t.test", BROCK_BLOCK, ms),
                     0);
    assert_int_equal(brock_client_page_seen(a, "laptop", "shop.example", "t.test", BROCK_BLOCK, ms),
                     0);
    assert_int_equal(brock_client_daily_count(a, "kids", &d, ms), 0);
    flush(a);
    b = engine_on(f, NULL);
    assert_int_equal(client_sites(b, "kids"), 1);
    assert_int_equal(client_sites(b, "laptop"), 1);
    assert_int_equal(client_sites(b, NULL), 2);
    assert_int_equal(brock_client_daily_each(b, "kids", 1, ms, sum_day, &sum), 0);
    assert_int_equal(sum.blocked, 1);

    assert_int_equal(brock_client_forget(b, "kids"), 1);
    flush(b);
    assert_true(poll_some(a) > 0);
    assert_int_equal(client_sites(a, "kids"), 0);
    sum.blocked = 0;
    assert_int_equal(brock_client_daily_each(a, "kids", 1, ms, sum_day, &sum), 0);
    assert_int_equal(sum.blocked, 0);
    assert_int_equal(client_sites(a, "laptop"), 1);
    assert_int_equal(client_sites(a, NULL), 2);
    engine_free(a);
    engine_free(b);

    a = engine_on(f, NULL);
    assert_int_equal(client_sites(a, "kids"), 0);
    assert_int_equal(client_sites(a, "laptop"), 1);
    engine_free(a);
}

static void test_pg_password_refused(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *e = engine_new();
    int fresh = 0;
    char conninfo[sizeof(f->conninfo) + 32];

    skip_unless_ready(f);
    snprintf(conninfo, sizeof(conninfo), "%s password=secret", f->conninfo);
    assert_int_equal(brock__pg_open(e, conninfo, &fresh), BROCK_EINVAL);
    assert_non_null(strstr(e->errmsg, "holds a password"));
    assert_null(strstr(e->errmsg, "secret"));
    assert_int_equal(brock__pg_open(e, "postgresql://u:secret@localhost/db", &fresh), BROCK_EINVAL);
    assert_null(e->store);
    engine_free(e);
}

static void test_pg_newer_schema(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *e;
    int fresh = 0;

    skip_unless_ready(f);
    e = engine_on(f, NULL);
    engine_free(e);
    pg_sql(f->conninfo, "UPDATE brock_meta SET value = '99' WHERE key = 'schema_version'");
    e = engine_new();
    assert_int_equal(brock__pg_open(e, f->conninfo, &fresh), BROCK_ESTORE);
    assert_non_null(strstr(e->errmsg, "newer than this brock knows"));
    assert_null(e->store);
    engine_free(e);
}

/* A statement that fails in the middle of a batch (sent without waiting, read later) fails
 * the whole flush: nothing of the batch is written, every mark stays, and the next flush,
 * once the cause is gone, writes it all. */
static void test_pg_failed_batch(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b;
    char name[32];

    skip_unless_ready(f);
    a = engine_on(f, NULL);
    pg_sql(f->conninfo, "ALTER TABLE brock_setting ADD CONSTRAINT no_bad CHECK (key <> 'bad')");
    /* More than one round of results before the failing statement. */
    for (int i = 0; i < 600; i++) {
        snprintf(name, sizeof(name), "d%d.example", i);
        put_action(a, name, 0, BROCK_ALLOW, 0, 0, BROCK__DIRTY_HEUR);
    }
    json_object_set_new(a->settings, "bad", json_true());
    a->settings_dirty = 1;
    assert_int_equal(brock__store_flush(a), BROCK_ESTORE);
    assert_non_null(strstr(a->errmsg, "no_bad"));
    assert_int_equal(a->settings_dirty, 1);
    assert_int_equal(((struct action_entry *)strmap_get(&a->actions, "d7.example"))->dirty,
                     BROCK__DIRTY_HEUR);
    b = engine_on(f, NULL);
    assert_int_equal(b->actions.len, 0);
    engine_free(b);

    pg_sql(f->conninfo, "ALTER TABLE brock_setting DROP CONSTRAINT no_bad");
    flush(a);
    b = engine_on(f, NULL);
    assert_same_maps(a, b);
    assert_int_equal(b->actions.len, 600);
    engine_free(a);
    engine_free(b);
}

/* With the store's thread (brock run): a flush hands the batch over and returns at once; a
 * batch with a statement the database refuses for good (here a constraint of its own) is
 * written again without it, rather than retried forever, with the refusal in the status; what
 * another instance wrote comes back through the thread. */
static void test_pg_thread(void **state)
{
    struct fixture *f = *state;
    struct brock_engine *a, *b;
    struct brock_store_status st;
    char name[32];
    int n = 0;

    skip_unless_ready(f);
    a = engine_on(f, NULL);
    assert_int_equal(brock__pg_bg_start(a), 0);
    pg_sql(f->conninfo, "ALTER TABLE brock_setting ADD CONSTRAINT no_bad CHECK (key <> 'bad')");
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof(name), "t%d.example", i);
        put_action(a, name, 0, BROCK_ALLOW, 0, 0, BROCK__DIRTY_HEUR);
    }
    json_object_set_new(a->settings, "bad", json_true());
    a->settings_dirty = 1;
    assert_int_equal(brock__store_flush(a), 0);
    assert_int_equal(a->settings_dirty, 0);
    if (brock_store_wait(a, 20000) != 0)
        fail_msg("wait: %s", a->errmsg);
    brock_store_status(a, &st);
    assert_int_equal(st.pending, 0);
    assert_int_equal(st.refused, 1);
    assert_true(st.connected);
    assert_false(st.failing);
    assert_non_null(strstr(st.last_error, "refused 1 change for good"));
    assert_non_null(strstr(st.last_error, "no_bad"));
    b = engine_on(f, NULL);
    assert_int_equal(b->actions.len, 300);
    assert_null(json_object_get(b->settings, "bad"));
    pg_sql(f->conninfo, "ALTER TABLE brock_setting DROP CONSTRAINT no_bad");

    /* b's change reaches a through its thread. */
    put_action(b, "t7.example", BROCK_USER_BLOCK, 0, 0, 0, BROCK__DIRTY_USER);
    flush(b);
    for (int i = 0; i < 300 && n == 0; i++) {
        struct timespec tick = {0, 10 * 1000 * 1000};

        if ((n = brock__store_poll(a)) < 0)
            fail_msg("poll: %s", a->errmsg);
        nanosleep(&tick, NULL);
    }
    assert_int_equal(n, 1);
    assert_int_equal(((struct action_entry *)strmap_get(&a->actions, "t7.example"))->user,
                     BROCK_USER_BLOCK);
    engine_free(a);
    engine_free(b);
}

/* Learned trackers forgotten to stay within the cap (bound.c) leave the store: their sites,
 * tracking kinds and the action rows learning made; one learned again is written anew. */
static void test_forgotten(void **state)
{
    struct fixture *f = *state;
    struct brock__evidence_in ev = {NULL, "uid", BROCK_EVIDENCE_COOKIE, 42, NULL};
    struct brock_engine *a, *b;
    char fqdn[64], base[64];

    skip_unless_ready(f);
    a = engine_on(f, NULL);
    a->learned_max = 2;
    for (int i = 0; i < 4; i++) {
        snprintf(fqdn, sizeof(fqdn), "px.t%d.example", i);
        snprintf(base, sizeof(base), "t%d.example", i);
        ev.host = fqdn;
        assert_int_equal(brock__record_prevalence(a, fqdn, base, "news.example", &ev), 1);
        assert_int_equal(brock__tracking_add(a, base, "news.example", BROCK__TRACK_BEACON), 0);
        if (i == 1)
            flush(a); /* t0 and t1 reach the store before they are forgotten */
    }
    assert_int_equal(a->forgotten.n, 2);
    ev.host = "px.t0.example";
    assert_int_equal(
        brock__record_prevalence(a, "px.t0.example", "t0.example", "blog.example", &ev), 1);
    flush(a);
    b = engine_on(f, NULL);
    assert_int_equal(b->snitches.len, 2);
    assert_null(strmap_get(&b->snitches, "t1.example"));
    assert_null(strmap_get(&b->tracking, "t1.example"));
    assert_null(strmap_get(&b->actions, "t1.example"));
    assert_null(strmap_get(&b->actions, "px.t1.example"));
    assert_null(strmap_get(&b->tracking, "t0.example"));
    assert_non_null(find_site(b, "t0.example", "blog.example"));
    assert_null(find_site(b, "t0.example", "news.example"));
    assert_non_null(strmap_get(&b->snitches, "t3.example"));
    assert_non_null(strmap_get(&b->tracking, "t3.example"));
    engine_free(a);
    engine_free(b);
}

int main(void)
{
    static enum backend sqlite = SQLITE, pg = POSTGRESQL;
#define BOTH(t)                                                                                    \
    {#t " (sqlite)", t, setup, teardown, &sqlite},                                                 \
    {                                                                                              \
#t " (postgresql)", t, setup, teardown, &pg                                                \
    }
    const struct CMUnitTest tests[] = {
        BOTH(test_roundtrip),
        BOTH(test_columnwise),
        BOTH(test_poll),
        BOTH(test_pause),
        BOTH(test_dirty_wins),
        BOTH(test_daily_adds_up),
        BOTH(test_client_views),
        BOTH(test_site_actions),
        BOTH(test_forgotten),
        cmocka_unit_test_prestate_setup_teardown(test_pg_password_refused, setup, teardown, &pg),
        cmocka_unit_test_prestate_setup_teardown(test_pg_newer_schema, setup, teardown, &pg),
        cmocka_unit_test_prestate_setup_teardown(test_pg_failed_batch, setup, teardown, &pg),
        cmocka_unit_test_prestate_setup_teardown(test_pg_thread, setup, teardown, &pg),
    };
#undef BOTH

    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
