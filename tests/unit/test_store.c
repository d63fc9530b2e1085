/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The SQLite store: what is flushed loads back the same, two processes changing one state
 * neither lose nor clobber each other's changes, failures leave memory and disk as they were.
 */
#include "test.h"
#include "store_test.h"

#include <errno.h>
#include <ftw.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "engine/engine.h"
#include "util/alloc.h"
#include "util/file.h"

static int setup(void **state)
{
    *state = test_fixture_new("store");
    return 0;
}

/* ---- engines on the fixture's state ---- */

/* An engine on the fixture's state, loaded. */
static struct brock_engine *engine_on(const struct test_fixture *f, int *fresh)
{
    struct brock_engine *e = engine_new();
    int is_fresh = -1;

    assert_int_equal(brock__sqlite_open(e, f->state, &is_fresh), 0);
    assert_non_null(e->store);
    assert_int_equal(brock__store_load(e), 0);
    if (fresh)
        *fresh = is_fresh;
    return e;
}

/* ---- a second, plain SQLite connection, to look at and tamper with the file ---- */

static sqlite3 *raw_open(const struct test_fixture *f)
{
    sqlite3 *db = NULL;

    assert_int_equal(sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL),
                     SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    return db;
}

static void raw_exec(sqlite3 *db, const char *sql)
{
    char *err = NULL;
    int rc = sqlite3_exec(db, sql, NULL, NULL, &err);

    if (rc != SQLITE_OK)
        print_error("%s: %s\n", sql, err ? err : "?");
    sqlite3_free(err);
    assert_int_equal(rc, SQLITE_OK);
}

static int64_t raw_int(sqlite3 *db, const char *sql, const char *arg)
{
    sqlite3_stmt *st = NULL;
    int64_t v = -1;

    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (arg)
        sqlite3_bind_text(st, 1, arg, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static int64_t now_us(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ---- tests ---- */

static void test_roundtrip(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a, *b;
    struct stat st;
    sqlite3 *raw;
    int64_t t0;
    int fresh = -1;

    a = engine_on(f, &fresh);
    assert_int_equal(fresh, 1);
    assert_int_equal(stat(f->state, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(stat(f->db, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    put_action(a, "google.com", BROCK_NOACTION, BROCK_BLOCK, 0, 1602051816434, 7);
    put_action(a, "accounts.google.com", BROCK_USER_ALLOW, BROCK_COOKIEBLOCK, 0, 0, 7);
    put_action(a, "privacy.example.com", BROCK_NOACTION, BROCK_NOACTION, 1, 1602130658236, 7);
    put_action(a, "odd.example.net", BROCK_USER_BLOCK, BROCK__HEUR_UNKNOWN, 0, 0, 7);
    put_action(a, "tracker.example", BROCK_NOACTION, BROCK_ALLOW, 0, 0, BROCK__DIRTY_HEUR);
    add_snitch(a, "google.com", "linkedin.com", "www.google.com", "NID", BROCK_EVIDENCE_COOKIE,
               1700000000123);
    add_snitch(a, "google.com", "theguardian.com", NULL, NULL, BROCK_EVIDENCE_IMPORTED, 0);
    add_snitch(a, "google.com", "godaddy.com", "ads.google.com", NULL, BROCK_EVIDENCE_BEACON,
               1700000000999);
    add_snitch(a, "example.net", "a.co", "odd.example.net", "uid", BROCK_EVIDENCE_SET_COOKIE, 5);
    add_tracking(a, "arkoselabs.com", "expedia.ca", BROCK__TRACK_CANVAS);
    add_tracking(a, "arkoselabs.com", "expedia.com", BROCK__TRACK_CANVAS | BROCK__TRACK_BEACON);
    add_fp(a, "cdn.jsdelivr.net", "/npm/fingerprintjs2@2.1.0/dist/fingerprint2.min.js");
    add_fp(a, "cdn.jsdelivr.net", "/npm/other.js");
    json_object_set_new(a->settings, "learnLocally", json_false());
    json_object_set_new(a->settings, "disabledSites", json_pack("[s]", "bank.example"));
    json_object_set_new(a->settings, "widgetSiteAllowlist", json_object());
    a->settings_dirty = 1;
    a->seed_mark = BROCK__SEED_LOADED;
    assert_int_equal(brock__store_flush(a), 0);
    assert_all_clean(a);

    /* With nothing to write, flushing must not even wait for the write lock. */
    raw = raw_open(f);
    raw_exec(raw, "BEGIN IMMEDIATE");
    t0 = now_us();
    assert_int_equal(brock__store_flush(a), 0);
    assert_true(now_us() - t0 < 1000000);
    raw_exec(raw, "COMMIT");
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM meta WHERE key = 'seeded'", NULL), 1);
    sqlite3_close(raw);

    b = engine_on(f, &fresh);
    assert_int_equal(fresh, 0);
    assert_same_maps(a, b);
    /* brock__settings_changed() ran on what was loaded. */
    assert_int_equal(b->learn, 0);
    assert_int_equal(((struct action_entry *)strmap_get(&b->actions, "odd.example.net"))->heur,
                     BROCK__HEUR_UNKNOWN);
    assert_string_equal(find_site(b, "google.com", "godaddy.com")->host, "ads.google.com");
    engine_free(b);

    /* And once more after the first engine is gone. */
    engine_free(a);
    a = engine_new();
    assert_int_equal(brock__sqlite_open(a, f->state, &fresh), 0);
    assert_int_equal(fresh, 0);
    assert_int_equal(brock__store_load(a), 0);
    assert_int_equal(a->actions.len, 5);
    assert_int_equal(((struct snitch *)strmap_get(&a->snitches, "google.com"))->n, 3);
    assert_string_equal(((struct snitch *)strmap_get(&a->snitches, "google.com"))->v[1].site,
                        "theguardian.com");
    engine_free(a);
}

static void test_columnwise_upsert(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = engine_on(f, NULL), *b = engine_on(f, NULL), *c;
    const struct action_entry *x;

    /* Both create the row without knowing of the other: each wrote only its own column. */
    put_action(a, "x.example", BROCK_USER_BLOCK, 0, 0, 0, BROCK__DIRTY_USER);
    put_action(b, "x.example", 0, BROCK_BLOCK, 0, 0, BROCK__DIRTY_HEUR);
    assert_int_equal(brock__store_flush(a), 0);
    assert_int_equal(brock__store_flush(b), 0);
    c = engine_on(f, NULL);
    x = strmap_get(&c->actions, "x.example");
    assert_non_null(x);
    assert_int_equal(x->user, BROCK_USER_BLOCK);
    assert_int_equal(x->heur, BROCK_BLOCK);
    assert_int_equal(x->dnt, 0);
    engine_free(c);

    /* a's memory still says no heuristic; writing only the DNT columns keeps b's. */
    put_action(a, "x.example", 0, 0, 1, 1781972378933, BROCK__DIRTY_DNT);
    assert_int_equal(brock__store_flush(a), 0);
    c = engine_on(f, NULL);
    x = strmap_get(&c->actions, "x.example");
    assert_int_equal(x->user, BROCK_USER_BLOCK);
    assert_int_equal(x->heur, BROCK_BLOCK);
    assert_int_equal(x->dnt, 1);
    assert_int_equal(x->next_update, 1781972378933);
    engine_free(c);
    engine_free(b);
    engine_free(a);
}

static void test_poll(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = engine_on(f, NULL), *b = engine_on(f, NULL);
    const struct action_entry *x;
    const struct snitch *sn;

    assert_int_equal(brock__store_poll(b), 0);
    put_action(a, "p.example", BROCK_USER_ALLOW, 0, 0, 0, 7);
    add_snitch(a, "tracker.example", "one.example", "t.tracker.example", "id",
               BROCK_EVIDENCE_COOKIE, 11);
    add_snitch(a, "tracker.example", "two.example", NULL, NULL, BROCK_EVIDENCE_BEACON, 12);
    assert_int_equal(brock__store_flush(a), 0);
    assert_int_equal(brock__store_poll(a), 0); /* its own changes */

    assert_int_equal(brock__store_poll(b), 2); /* one action, one tracker */
    x = strmap_get(&b->actions, "p.example");
    assert_non_null(x);
    assert_int_equal(x->user, BROCK_USER_ALLOW);
    assert_int_equal(x->dirty, 0);
    sn = strmap_get(&b->snitches, "tracker.example");
    assert_non_null(sn);
    assert_int_equal(sn->n, 2);
    assert_string_equal(sn->v[0].site, "one.example");
    assert_string_equal(sn->v[0].host, "t.tracker.example");
    assert_string_equal(sn->v[0].detail, "id");
    assert_int_equal(sn->v[0].time_ms, 11);
    assert_string_equal(sn->v[1].site, "two.example");
    assert_null(sn->v[1].host);
    assert_int_equal(brock__store_poll(b), 0);

    /* b has unwritten changes: a's write fills in the rest, b's stay until b flushes. */
    put_action(b, "q.example", 0, BROCK_ALLOW, 0, 0, BROCK__DIRTY_HEUR);
    add_snitch(b, "tracker.example", "three.example", NULL, NULL, BROCK_EVIDENCE_COOKIE, 13);
    put_action(a, "q.example", BROCK_USER_BLOCK, BROCK_BLOCK, 0, 0,
               BROCK__DIRTY_USER | BROCK__DIRTY_HEUR);
    add_snitch(a, "tracker.example", "four.example", NULL, NULL, BROCK_EVIDENCE_COOKIE, 14);
    json_object_set_new(a->settings, "learnLocally", json_false());
    a->settings_dirty = 1;
    assert_int_equal(brock__store_flush(a), 0);
    assert_int_equal(brock__store_poll(b), 3);
    x = strmap_get(&b->actions, "q.example");
    assert_int_equal(x->user, BROCK_USER_BLOCK);
    assert_int_equal(x->heur, BROCK_ALLOW);
    assert_true(x->dirty & BROCK__DIRTY_HEUR);
    sn = strmap_get(&b->snitches, "tracker.example");
    assert_int_equal(sn->n, 4);
    assert_int_equal(find_site(b, "tracker.example", "three.example")->dirty, BROCK__DIRTY_NEW);
    assert_int_equal(find_site(b, "tracker.example", "four.example")->dirty, 0);
    assert_int_equal(b->learn, 0);

    assert_int_equal(brock__store_flush(b), 0);
    assert_all_clean(b);
    assert_int_equal(brock__store_poll(a), 2);
    x = strmap_get(&a->actions, "q.example");
    assert_int_equal(x->user, BROCK_USER_BLOCK);
    assert_int_equal(x->heur, BROCK_ALLOW);
    assert_non_null(find_site(a, "tracker.example", "three.example"));
    assert_same_actions(a, b);
    assert_int_equal(((struct snitch *)strmap_get(&a->snitches, "tracker.example"))->n, 4);
    engine_free(b);
    engine_free(a);
}

static void test_delete(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = engine_on(f, NULL), *b, *c;

    put_action(a, "d.example", BROCK_USER_BLOCK, 0, 0, 0, 7);
    put_action(a, "e.example", BROCK_USER_ALLOW, 0, 0, 0, 7);
    put_action(a, "again.example", BROCK_USER_ALLOW, 0, 0, 0, 7);
    assert_int_equal(brock__store_flush(a), 0);
    b = engine_on(f, NULL);
    assert_int_equal(b->actions.len, 3);

    put_action(b, "e.example", 0, BROCK_ALLOW, 0, 0, BROCK__DIRTY_HEUR);
    delete_action(a, "d.example");
    delete_action(a, "e.example");
    /* Deleted and set again before the flush: the entry stays. */
    delete_action(a, "again.example");
    put_action(a, "again.example", BROCK_USER_COOKIEBLOCK, 0, 0, 0, 7);
    assert_int_equal(brock__store_flush(a), 0);
    assert_all_clean(a);

    assert_int_equal(brock__store_poll(b), 2); /* d.example gone, again.example changed */
    assert_null(strmap_get(&b->actions, "d.example"));
    assert_non_null(strmap_get(&b->actions, "e.example")); /* b's own change keeps it */
    assert_int_equal(((struct action_entry *)strmap_get(&b->actions, "again.example"))->user,
                     BROCK_USER_COOKIEBLOCK);

    c = engine_on(f, NULL);
    assert_null(strmap_get(&c->actions, "d.example"));
    assert_null(strmap_get(&c->actions, "e.example"));
    assert_non_null(strmap_get(&c->actions, "again.example"));
    engine_free(c);

    /* A deletion b has not flushed yet survives a's rewrite of the row. */
    delete_action(b, "again.example");
    put_action(a, "again.example", 0, BROCK_BLOCK, 0, 0, BROCK__DIRTY_HEUR);
    assert_int_equal(brock__store_flush(a), 0);
    assert_int_equal(brock__store_poll(b), 0);
    assert_null(strmap_get(&b->actions, "again.example"));
    assert_int_equal(brock__store_flush(b), 0);
    assert_int_equal(brock__store_poll(a), 2);
    assert_null(strmap_get(&a->actions, "again.example"));
    assert_non_null(strmap_get(&a->actions, "e.example"));
    engine_free(b);
    engine_free(a);
}

static void test_rollback(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = engine_on(f, NULL);
    const struct action_entry *ok, *refused;
    size_t dirty;
    sqlite3 *raw;

    put_action(a, "gone.example", BROCK_USER_BLOCK, 0, 0, 0, 7);
    assert_int_equal(brock__store_flush(a), 0);

    raw = raw_open(f);
    raw_exec(raw, "CREATE TRIGGER refuse BEFORE INSERT ON action"
                  " WHEN NEW.domain = 'refused.example'"
                  " BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
    delete_action(a, "gone.example");
    ok = put_action(a, "ok.example", BROCK_USER_ALLOW, 0, 0, 0, 7);
    refused = put_action(a, "refused.example", BROCK_USER_BLOCK, 0, 0, 0, 7);
    add_snitch(a, "tracker.example", "site.example", NULL, NULL, BROCK_EVIDENCE_COOKIE, 1);
    add_tracking(a, "tracker.example", "site.example", BROCK__TRACK_BEACON);
    add_fp(a, "cdn.example", "/fp.js");
    json_object_set_new(a->settings, "showCounter", json_false());
    a->settings_dirty = 1;
    dirty = a->dirty;

    a->seed_mark = BROCK__SEED_LOADED;
    assert_int_equal(brock__store_flush(a), BROCK_ESTORE);
    assert_non_null(strstr(a->errmsg, f->db));
    assert_non_null(strstr(a->errmsg, "refused.example"));
    assert_non_null(strstr(a->errmsg, "refused by the test"));
    /* Memory is as it was: every mark is there for the next try. */
    assert_int_equal(a->dirty, dirty);
    assert_int_equal(a->settings_dirty, 1);
    assert_int_equal(a->deleted.n, 1);
    assert_int_equal(ok->dirty, 7);
    assert_int_equal(refused->dirty, 7);
    assert_int_equal(find_site(a, "tracker.example", "site.example")->dirty, BROCK__DIRTY_NEW);
    assert_int_equal(((struct fp_host *)strmap_get(&a->fp_scripts, "cdn.example"))->dirty,
                     BROCK__DIRTY_NEW);
    /* And so is the file. */
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM action WHERE domain = ?1", "gone.example"),
                     1);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM action WHERE domain = ?1", "ok.example"),
                     0);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM snitch", NULL), 0);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM tracking", NULL), 0);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM fp_script", NULL), 0);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM setting", NULL), 0);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM meta WHERE key = 'seeded'", NULL), 0);

    raw_exec(raw, "DROP TRIGGER refuse");
    a->seed_mark = BROCK__SEED_LOADED;
    assert_int_equal(brock__store_flush(a), 0);
    assert_all_clean(a);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM action WHERE domain = ?1", "gone.example"),
                     0);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM action", NULL), 2);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM snitch", NULL), 1);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM tracking", NULL), 1);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM fp_script", NULL), 1);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM meta WHERE key = 'seeded'", NULL), 1);
    sqlite3_close(raw);
    engine_free(a);
}

static void assert_no_file(const struct test_fixture *f, const char *suffix)
{
    char p[320];

    snprintf(p, sizeof(p), "%s%s", f->db, suffix);
    assert_int_equal(access(p, F_OK), -1);
}

static void test_not_a_database(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = engine_new();
    char text[4096], *back = NULL;
    size_t len = 0;
    int fresh = -1;

    for (size_t i = 0; i < sizeof(text); i++)
        text[i] = "brock state, but not SQLite\n"[i % 28];
    assert_int_equal(file_mkdirs(f->state, 0700), 0);
    assert_int_equal(file_write_atomic(f->db, text, sizeof(text), 0600), 0);

    assert_int_equal(brock__sqlite_open(e, f->state, &fresh), BROCK_ESTORE);
    assert_null(e->store);
    assert_non_null(strstr(e->errmsg, f->db));
    assert_non_null(strstr(e->errmsg, "file is not a database"));
    assert_int_equal(file_read(f->db, 1 << 20, &back, &len), 0);
    assert_int_equal(len, sizeof(text));
    assert_memory_equal(back, text, sizeof(text));
    mem_free(back);
    assert_no_file(f, "-wal");
    assert_no_file(f, "-shm");
    assert_no_file(f, "-journal");
    engine_free(e);
}

static void test_newer_schema(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = engine_new();
    sqlite3 *raw;
    sqlite3_stmt *st;
    int fresh = -1;

    assert_int_equal(file_mkdirs(f->state, 0700), 0);
    raw = raw_open(f);
    raw_exec(raw, "CREATE TABLE future (x); PRAGMA user_version = 99;");
    sqlite3_close(raw);

    assert_int_equal(brock__sqlite_open(e, f->state, &fresh), BROCK_ESTORE);
    assert_null(e->store);
    assert_non_null(strstr(e->errmsg, f->db));
    assert_non_null(strstr(e->errmsg, "version 99"));
    /* Not switched to WAL, not given tables: untouched. */
    raw = raw_open(f);
    assert_int_equal(sqlite3_prepare_v2(raw, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "delete");
    sqlite3_finalize(st);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM sqlite_master", NULL), 1);
    sqlite3_close(raw);
    engine_free(e);
}

/* Fills e from Privacy Badger's seed, every entry marked for writing. */
static size_t load_seed_by_hand(struct brock_engine *e)
{
    json_error_t jerr;
    json_t *seed = json_load_file(test_data("privacybadger/seed.json"), 0, &jerr);
    json_t *v, *sites, *site;
    const char *key, *name;
    size_t i, n_sites = 0;

    if (!seed)
        print_error("seed.json: %s\n", jerr.text);
    assert_non_null(seed);
    json_object_foreach(json_object_get(seed, "action_map"), key, v) {
        const char *h = json_string_value(json_object_get(v, "heuristicAction"));
        int heur = brock__heur_parse(h ? h : "");

        put_action(e, key, BROCK_NOACTION, heur < 0 ? BROCK__HEUR_UNKNOWN : heur,
                   json_is_true(json_object_get(v, "dnt")),
                   json_integer_value(json_object_get(v, "nextUpdateTime")), 7);
    }
    json_object_foreach(json_object_get(seed, "snitch_map"), key, sites) {
        json_array_foreach(sites, i, site) {
            add_snitch(e, key, json_string_value(site), NULL, NULL, BROCK_EVIDENCE_IMPORTED, 0);
            n_sites++;
        }
    }
    json_object_foreach(json_object_get(seed, "tracking_map"), key, sites) {
        json_object_foreach(sites, name, v) {
            unsigned kinds = 0;
            json_array_foreach(v, i, site)
                kinds |= brock__tracking_kind(json_string_value(site));
            add_tracking(e, key, name, kinds);
        }
    }
    json_object_foreach(json_object_get(seed, "fp_scripts"), key, sites) {
        json_object_foreach(sites, name, v)
            add_fp(e, key, name);
    }
    json_decref(seed);
    return n_sites;
}

static void test_seed_flush(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = engine_on(f, NULL), *b = engine_on(f, NULL), *c;
    size_t n_sites = load_seed_by_hand(a);
    int64_t t0, flush_us, load_us;
    sqlite3 *raw;

    assert_true(a->actions.len >= 10000);
    t0 = now_us();
    a->seed_mark = BROCK__SEED_LOADED;
    assert_int_equal(brock__store_flush(a), 0);
    flush_us = now_us() - t0;
    assert_all_clean(a);
    printf("# flushed the seed (%zu actions, %zu snitch sites, %zu tracking bases) in %.1f ms\n",
           a->actions.len, n_sites, a->tracking.len, (double)flush_us / 1000);

    raw = raw_open(f);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM action", NULL), (int64_t)a->actions.len);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM snitch", NULL), (int64_t)n_sites);
    assert_true(raw_int(raw, "SELECT count(*) FROM journal", NULL) <= 10000);
    sqlite3_close(raw);

    t0 = now_us();
    c = engine_on(f, NULL);
    load_us = now_us() - t0;
    printf("# loaded it back in %.1f ms\n", (double)load_us / 1000);
    assert_same_maps(a, c);

    /* b read the journal before the flush, whose start has since been trimmed away: it
     * reloads everything instead. */
    assert_true(brock__store_poll(b) >= (int)a->actions.len);
    assert_same_actions(a, b);
    assert_same_snitches(a, b);

    /* After that, one change is one name again. */
    put_action(a, "google.com", BROCK_USER_ALLOW, 0, 0, 0, BROCK__DIRTY_USER);
    assert_int_equal(brock__store_flush(a), 0);
    assert_int_equal(brock__store_poll(b), 1);
    assert_int_equal(brock__store_poll(c), 1);
    assert_int_equal(((struct action_entry *)strmap_get(&c->actions, "google.com"))->user,
                     BROCK_USER_ALLOW);
    engine_free(c);
    engine_free(b);
    engine_free(a);
}

/* A page damaged after a clean close: the quick check at open finds it, names the file, and
 * nothing is written to it. */
static void test_damaged_page(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = engine_on(f, NULL), *b = engine_new();
    char *before = NULL, *after = NULL;
    size_t len = 0, len2 = 0;
    unsigned char junk[200];
    FILE *fp;
    int fresh = -1;

    for (int i = 0; i < 50; i++) {
        char name[64];

        snprintf(name, sizeof(name), "d%d.example", i);
        put_action(a, name, BROCK_USER_BLOCK, 0, 0, 0, 7);
        add_snitch(a, name, "site.example", NULL, NULL, BROCK_EVIDENCE_COOKIE, 1);
    }
    a->seed_mark = BROCK__SEED_LOADED;
    assert_int_equal(brock__store_flush(a), 0);
    engine_free(a);
    /* Page 2 is the first table's root: a page header of 0xff bytes is no b-tree page. */
    memset(junk, 0xff, sizeof(junk));
    fp = fopen(f->db, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, 4096, SEEK_SET), 0);
    assert_int_equal(fwrite(junk, 1, sizeof(junk), fp), sizeof(junk));
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(file_read(f->db, 1 << 24, &before, &len), 0);

    assert_int_equal(brock__sqlite_open(b, f->state, &fresh), BROCK_ESTORE);
    assert_null(b->store);
    assert_non_null(strstr(b->errmsg, f->db));
    assert_non_null(strstr(b->errmsg, "is corrupt ("));
    assert_non_null(strstr(b->errmsg, "brock did not change it"));
    assert_null(strchr(b->errmsg, '\n'));
    assert_int_equal(file_read(f->db, 1 << 24, &after, &len2), 0);
    assert_int_equal(len2, len);
    assert_memory_equal(after, before, len);
    mem_free(before);
    mem_free(after);
    engine_free(b);
}

/* A failed write says which file and why, in one sentence; the retry writes it all. */
static void test_flush_failure_message(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = engine_on(f, NULL);
    char want[400];
    sqlite3 *raw = raw_open(f);

    raw_exec(raw, "CREATE TRIGGER refuse BEFORE INSERT ON snitch"
                  " BEGIN SELECT RAISE(ABORT, 'no room left'); END");
    put_action(a, "kept.example", BROCK_USER_BLOCK, 0, 0, 0, 7);
    add_snitch(a, "kept.example", "site.example", NULL, NULL, BROCK_EVIDENCE_COOKIE, 1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(brock__store_flush(a), BROCK_ESTORE);
    snprintf(want, sizeof(want), "writing the state to %s failed: no room left (trying to ", f->db);
    assert_memory_equal(a->errmsg, want, strlen(want));
    assert_non_null(strstr(a->errmsg, "kept.example"));
    /* The database is at its last commit: not even the action of the failed batch. */
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM action", NULL), 0);
    raw_exec(raw, "DROP TRIGGER refuse");
    assert_int_equal(brock__store_flush(a), 0);
    assert_all_clean(a);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM action", NULL), 1);
    assert_int_equal(raw_int(raw, "SELECT count(*) FROM snitch", NULL), 1);
    sqlite3_close(raw);
    engine_free(a);
}

/* Whether a library whose file name starts with prefix is mapped into this process. */
static int mapped(const char *prefix)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;

    assert_non_null(maps);
    while (!found && fgets(line, sizeof(line), maps)) {
        const char *file = strrchr(line, '/');

        found = file && !strncmp(file + 1, prefix, strlen(prefix));
    }
    fclose(maps);
    return found;
}

/* An engine on SQLite, written and read back, never loads libpq (nor, with it, Kerberos, LDAP
 * and GnuTLS): only a PostgreSQL store does. This program does not link libpq either. */
static void test_sqlite_without_libpq(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *e = test_fixture_open(f, NULL, 1);

    assert_int_equal(brock_set_user_action(e, "tracker.example", BROCK_USER_BLOCK), 0);
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);
    e = test_fixture_open(f, NULL, 1);
    assert_int_equal(brock_sync(e), 0);
    brock_engine_free(e);
    assert_true(mapped("libc.so"));
    assert_false(mapped("libpq.so"));
    assert_false(mapped("libgssapi_krb5.so"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_roundtrip, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_columnwise_upsert, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_poll, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_delete, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_rollback, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_not_a_database, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_newer_schema, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_seed_flush, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_damaged_page, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_flush_failure_message, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_sqlite_without_libpq, setup, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
