/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The store's watch on its file (store_watch.c, store_merge.c): a database deleted under an
 * open engine is written anew, whole; one replaced by a copy (renamed or copied over it) is
 * reloaded with its choices and settings, and what memory learned is added; other processes'
 * writes are neither; a new state whose first write fails leaves nothing behind.
 */
#include "test.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sqlite3.h>

static int setup(void **state)
{
    *state = test_fixture_new("watch");
    return 0;
}

/* ---- an engine, what it learned, and what it holds ---- */

static void sync_ok(struct brock_engine *e)
{
    int rc = brock_sync(e);

    if (rc < 0)
        fail_msg("brock_sync: %s", brock_engine_errmsg(e));
}

/* A request from a page of site to host with an identifying cookie. */
static void learn(struct brock_engine *e, const char *host, const char *site)
{
    static const char cookie[] = "uid=8f3a9b2c1d7e";
    struct brock_header h = {"Cookie", 6, cookie, sizeof(cookie) - 1};
    struct brock_observation o = {.host = host,
                                  .site = site,
                                  .headers = &h,
                                  .n_headers = 1,
                                  .flags = 0,
                                  .time_ms = 1700000000000};

    assert_int_equal(brock_observe(e, &o, NULL), 0);
}

static void choose(struct brock_engine *e, const char *domain, enum brock_action a)
{
    assert_int_equal(brock_set_user_action(e, domain, a), 0);
}

static int copy_tracker(void *arg, const struct brock_tracker *t)
{
    memcpy(arg, t, sizeof(*t));
    return 0;
}

/* What e says of domain; the evidence pointers are not valid after the call. */
static struct brock_tracker tracker(struct brock_engine *e, const char *domain)
{
    struct brock_tracker t;

    assert_int_equal(brock_tracker_get(e, domain, copy_tracker, &t), 0);
    return t;
}

/* Privacy Badger's export of everything e holds, parsed. */
static json_t *export_json(struct brock_engine *e)
{
    char *text = NULL;
    size_t len = 0;
    json_t *j;

    assert_int_equal(brock_export(e, "pb", &text, &len), 0);
    j = json_loadb(text, len, 0, NULL);
    brock_free(text);
    assert_non_null(j);
    return j;
}

static void assert_same_state(struct brock_engine *a, struct brock_engine *b)
{
    json_t *x = export_json(a), *y = export_json(b);

    if (!json_equal(x, y)) {
        char *dx = json_dumps(x, JSON_SORT_KEYS | JSON_COMPACT);
        char *dy = json_dumps(y, JSON_SORT_KEYS | JSON_COMPACT);

        print_error("memory:  %.600s\nthe file: %.600s\n", dx, dy);
        free(dx);
        free(dy);
        fail_msg("the state on disk is not what memory holds");
    }
    json_decref(x);
    json_decref(y);
}

static int count_site(void *arg, const struct brock_site *s)
{
    (void)s;
    (*(int *)arg)++;
    return 0;
}

static int n_sites(struct brock_engine *e)
{
    int n = 0;

    assert_int_equal(brock_sites(e, count_site, &n), 0);
    return n;
}

static struct brock_store_status status(const struct brock_engine *e)
{
    struct brock_store_status st;

    brock_store_status(e, &st);
    return st;
}

/* ---- the file, from outside ---- */

static void rm_suffix(const struct test_fixture *f, const char *suffix)
{
    char p[340];

    snprintf(p, sizeof(p), "%s%s", f->db, suffix);
    if (unlink(p) < 0 && errno != ENOENT)
        fail_msg("rm %s: %s", p, strerror(errno));
}

static char *raw_text(const char *db, const char *sql)
{
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    char *out = NULL;

    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_busy_timeout(h, 5000);
    assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        out = strdup((const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
    assert_non_null(out);
    return out;
}

static void assert_sound(const struct test_fixture *f)
{
    char *ic = raw_text(f->db, "PRAGMA integrity_check");

    assert_string_equal(ic, "ok");
    free(ic);
}

/* A consistent copy of the state, as a backup tool makes it (SQLite's online backup). */
static void backup_to(const struct test_fixture *f, const char *to)
{
    sqlite3 *src = NULL, *dst = NULL;
    sqlite3_backup *b;

    assert_int_equal(sqlite3_open_v2(f->db, &src, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_open(to, &dst), SQLITE_OK);
    b = sqlite3_backup_init(dst, "main", src, "main");
    assert_non_null(b);
    assert_int_equal(sqlite3_backup_step(b, -1), SQLITE_DONE);
    assert_int_equal(sqlite3_backup_finish(b), SQLITE_OK);
    sqlite3_close(dst);
    sqlite3_close(src);
}

/* cp FROM TO: the same inode, its bytes replaced (open with O_TRUNC, write). */
static void copy_in_place(const char *from, const char *to)
{
    char buf[65536];
    int in = open(from, O_RDONLY), out = open(to, O_WRONLY | O_TRUNC);
    ssize_t n;

    assert_true(in >= 0 && out >= 0);
    while ((n = read(in, buf, sizeof(buf))) > 0)
        assert_int_equal(write(out, buf, (size_t)n), n);
    assert_int_equal(n, 0);
    close(in);
    assert_int_equal(close(out), 0);
}

/* ---- tests ---- */

/* rm brock.db* under an open engine: the next sync writes everything memory holds, what was
 * written before the rm and what came after, to a new file of mode 0600. */
static void test_deleted(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1), *b;
    struct brock_store_status st;
    struct stat sb;
    char *seeded_before, *seeded_after;

    learn(a, "px.tracker.example", "site-a.com");
    learn(a, "px.tracker.example", "site-b.org");
    choose(a, "chosen.example", BROCK_USER_BLOCK);
    assert_int_equal(brock_setting_set(a, BROCK_SETTING_SEND_DNT, 0), 0);
    assert_int_equal(brock_page_seen(a, "https://site-a.com/", "px.tracker.example", BROCK_ALLOW,
                                     (int64_t)time(NULL) * 1000),
                     0);
    sync_ok(a);
    seeded_before = raw_text(f->db, "SELECT value FROM meta WHERE key = 'seeded'");
    rm_suffix(f, "");
    rm_suffix(f, "-wal");
    rm_suffix(f, "-shm");

    /* Learning goes on in memory; the third site blocks the tracker. */
    learn(a, "cdn.tracker.example", "site-c.net");
    choose(a, "later.example", BROCK_USER_ALLOW);
    sync_ok(a);
    st = status(a);
    assert_int_equal(st.recreated, 1);
    assert_int_equal(st.reloaded, 0);
    assert_int_equal(st.failing, 0);
    assert_non_null(strstr(st.event, f->db));
    assert_non_null(strstr(st.event, "was deleted; writing the whole state to a new one"));
    assert_int_equal(stat(f->db, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(sb.st_uid, geteuid());
    assert_sound(f);
    /* Made without the seed, and still so: the next open must not seed it. */
    seeded_after = raw_text(f->db, "SELECT value FROM meta WHERE key = 'seeded'");
    assert_string_equal(seeded_after, seeded_before);
    free(seeded_before);
    free(seeded_after);
    /* A sync with nothing new is no event. */
    sync_ok(a);
    assert_int_equal(status(a).recreated, 1);

    b = test_fixture_open(f, NULL, 1);
    assert_same_state(a, b);
    assert_int_equal(tracker(b, "tracker.example").n_evidence, 3);
    assert_int_equal(tracker(b, "px.tracker.example").action, BROCK_BLOCK);
    assert_int_equal(tracker(b, "chosen.example").user, BROCK_USER_BLOCK);
    assert_int_equal(tracker(b, "later.example").user, BROCK_USER_ALLOW);
    assert_int_equal(brock_setting(b, BROCK_SETTING_SEND_DNT), 0);
    assert_int_equal(n_sites(b), 1);
    brock_engine_free(b);
    brock_engine_free(a);
}

/* Only brock.db removed: the -wal left at its path holds the old file's pages, which must
 * not be laid over the new one. */
static void test_deleted_wal_left(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1), *b;

    for (int i = 0; i < 40; i++) {
        char host[64];

        snprintf(host, sizeof(host), "t%d.tracker%d.example", i, i % 7);
        learn(a, host, i % 2 ? "one.example" : "two.example");
    }
    sync_ok(a);
    rm_suffix(f, "");
    choose(a, "after.example", BROCK_USER_COOKIEBLOCK);
    sync_ok(a);
    assert_int_equal(status(a).recreated, 1);
    brock_engine_free(a);
    assert_sound(f);
    a = test_fixture_open(f, NULL, 1);
    b = test_fixture_open(f, NULL, 1);
    assert_same_state(a, b);
    assert_int_equal(tracker(b, "after.example").user, BROCK_USER_COOKIEBLOCK);
    assert_int_equal(tracker(b, "tracker3.example").n_evidence, 2);
    brock_engine_free(b);
    brock_engine_free(a);
}

/* The whole state folder removed: made again, 0700. */
static void test_folder_deleted(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1), *b;
    struct stat sb;

    choose(a, "kept.example", BROCK_USER_BLOCK);
    sync_ok(a);
    assert_int_equal(test_rmtree(f->state), 0);
    sync_ok(a);
    assert_int_equal(status(a).recreated, 1);
    assert_int_equal(stat(f->state, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0700);
    b = test_fixture_open(f, NULL, 1);
    assert_int_equal(tracker(b, "kept.example").user, BROCK_USER_BLOCK);
    brock_engine_free(b);
    brock_engine_free(a);
}

/* A backup put back, by rename (mv) or by copying over the file (cp): its choices and
 * settings win over what memory held; what memory learned that the backup lacks is added;
 * a change made since the last sync is newer than any file and stays. */
static void restore(void **state, int in_place)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1), *b;
    struct brock_store_status st;

    choose(a, "choice.example", BROCK_USER_BLOCK);
    learn(a, "px.tracker.example", "site-a.com");
    learn(a, "px.tracker.example", "site-b.org");
    sync_ok(a);
    backup_to(f, f->aside);

    /* After the backup: other choices, more learning, a setting. */
    choose(a, "choice.example", BROCK_USER_ALLOW);
    choose(a, "newer.example", BROCK_USER_COOKIEBLOCK);
    learn(a, "px.tracker.example", "site-c.net");
    learn(a, "ads.other.example", "site-a.com");
    assert_int_equal(brock_setting_set(a, BROCK_SETTING_SEND_DNT, 0), 0);
    sync_ok(a);
    assert_int_equal(tracker(a, "px.tracker.example").action, BROCK_BLOCK);

    if (in_place)
        copy_in_place(f->aside, f->db);
    else
        assert_int_equal(rename(f->aside, f->db), 0);
    choose(a, "unsynced.example", BROCK_USER_BLOCK);
    sync_ok(a);
    /* Copied in place, the file must look replaced at two syncs in a row, between which it did
     * not change: a read during another process's checkpoint could look so once. */
    if (in_place) {
        assert_int_equal(status(a).reloaded, 0);
        sync_ok(a);
    }
    st = status(a);
    assert_int_equal(st.reloaded, 1);
    assert_int_equal(st.recreated, 0);
    assert_non_null(strstr(st.event, "was replaced; reloaded it"));

    /* The backup's choices and settings. */
    assert_int_equal(tracker(a, "choice.example").user, BROCK_USER_BLOCK);
    assert_int_equal(tracker(a, "newer.example").user, BROCK_NOACTION);
    assert_int_equal(brock_setting(a, BROCK_SETTING_SEND_DNT), 1);
    /* Memory's learning and its unsynced change. */
    assert_int_equal(tracker(a, "tracker.example").n_evidence, 3);
    assert_int_equal(tracker(a, "px.tracker.example").action, BROCK_BLOCK);
    assert_int_equal(tracker(a, "other.example").n_evidence, 1);
    assert_int_equal(tracker(a, "unsynced.example").user, BROCK_USER_BLOCK);
    assert_sound(f);
    b = test_fixture_open(f, NULL, 1);
    assert_same_state(a, b);
    brock_engine_free(b);
    /* And it goes on as any state: no more events. */
    choose(a, "then.example", BROCK_USER_ALLOW);
    sync_ok(a);
    sync_ok(a);
    st = status(a);
    assert_int_equal(st.reloaded, 1);
    b = test_fixture_open(f, NULL, 1);
    assert_same_state(a, b);
    brock_engine_free(b);
    brock_engine_free(a);
}

static void test_replaced_by_rename(void **state)
{
    restore(state, 0);
}

static void test_replaced_in_place(void **state)
{
    restore(state, 1);
}

/* Bytes that are no database, copied over it and then put back as they were before the next
 * sync (as a read during a checkpoint may see): nothing is read or written meanwhile, and
 * nothing is reloaded. Left there, they are a corrupt file, reported and not changed; moved
 * away, the state is written anew. */
static void test_garbage_in_place(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1), *b;
    struct brock_store_status st;
    char junk[8192];
    int64_t written;
    FILE *fp;
    int rc;

    choose(a, "kept.example", BROCK_USER_BLOCK);
    sync_ok(a);
    backup_to(f, f->aside);
    memset(junk, 'x', sizeof(junk));
    snprintf(junk + sizeof(junk) - 64, 64, "not a database");
    written = status(a).last_write_ms;
    fp = fopen(f->db, "r+b");
    assert_non_null(fp);
    assert_int_equal(fwrite(junk, 1, sizeof(junk), fp), sizeof(junk));
    assert_int_equal(fclose(fp), 0);

    choose(a, "meanwhile.example", BROCK_USER_ALLOW);
    assert_int_equal(brock_sync(a), 0);
    st = status(a);
    assert_int_equal(st.reloaded + st.recreated, 0);
    assert_int_equal(st.last_write_ms, written);
    copy_in_place(f->aside, f->db);
    sync_ok(a);
    st = status(a);
    assert_int_equal(st.reloaded + st.recreated, 0);
    b = test_fixture_open(f, NULL, 1);
    assert_same_state(a, b);
    assert_int_equal(tracker(b, "meanwhile.example").user, BROCK_USER_ALLOW);
    brock_engine_free(b);

    /* Garbage to stay: corrupt, said, left as it is. */
    fp = fopen(f->db, "r+b");
    assert_non_null(fp);
    assert_int_equal(fwrite(junk, 1, sizeof(junk), fp), sizeof(junk));
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(brock_sync(a), 0);
    rc = brock_sync(a);
    assert_int_equal(rc, BROCK_ESTORE);
    assert_non_null(strstr(brock_engine_errmsg(a), "is corrupt"));
    st = status(a);
    assert_int_equal(st.failing, 1);
    assert_non_null(strstr(st.last_error, "is corrupt"));
    assert_int_equal(brock_sync(a), BROCK_ESTORE);
    {
        char back[sizeof(junk)];
        FILE *in = fopen(f->db, "rb");

        assert_non_null(in);
        assert_int_equal(fread(back, 1, sizeof(back), in), sizeof(back));
        fclose(in);
        assert_memory_equal(back, junk, sizeof(junk));
    }
    rm_suffix(f, "");
    sync_ok(a);
    st = status(a);
    assert_int_equal(st.recreated, 1);
    assert_int_equal(st.failing, 0);
    b = test_fixture_open(f, NULL, 1);
    assert_same_state(a, b);
    brock_engine_free(b);
    brock_engine_free(a);
}

/* Another process writing the same state (and checkpointing into the file) is no
 * replacement: each picks up the other's changes, as ever. */
static void test_other_writers(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1), *b = test_fixture_open(f, NULL, 1);

    for (int i = 0; i < 5; i++) {
        char name[64];

        snprintf(name, sizeof(name), "b%d.example", i);
        choose(b, name, BROCK_USER_BLOCK);
        sync_ok(b);
        assert_true(brock_sync(a) >= 1);
        assert_int_equal(tracker(a, name).user, BROCK_USER_BLOCK);
        snprintf(name, sizeof(name), "a%d.example", i);
        learn(a, name, i % 2 ? "one.example" : "two.example");
        sync_ok(a);
        sync_ok(b);
    }
    /* b closes last: its close checkpoints everything into the file. */
    brock_engine_free(b);
    sync_ok(a);
    assert_int_equal(status(a).reloaded, 0);
    assert_int_equal(status(a).recreated, 0);
    b = test_fixture_open(f, NULL, 1);
    assert_same_state(a, b);
    brock_engine_free(b);
    brock_engine_free(a);
}

/* Two processes change different settings, one writing while the other's change waits for
 * its sync: the settings are written whole, yet neither change is lost, and a key both
 * changed keeps the last writer's value. */
static void test_settings_both_kept(void **state)
{
    struct test_fixture *f = *state;
    struct brock_engine *a = test_fixture_open(f, NULL, 1), *b = test_fixture_open(f, NULL, 1);
    struct brock_passthrough p;

    assert_int_equal(brock_site_set_disabled(a, "a.example", 1), 0);
    assert_int_equal(brock_passthrough_add(a, "x.example", "a's", 1, 0), 0);
    assert_int_equal(brock_setting_set(b, BROCK_SETTING_SEND_DNT, 0), 0);
    assert_int_equal(brock_passthrough_add(b, "x.example", "b's", 2, 0), 0);
    sync_ok(b);
    /* a picks b's up before it writes its own. */
    assert_true(brock_sync(a) >= 1);
    assert_int_equal(brock_setting(a, BROCK_SETTING_SEND_DNT), 0);
    assert_int_equal(brock_site_is_disabled(a, "a.example"), 1);
    sync_ok(b);
    assert_int_equal(brock_setting(b, BROCK_SETTING_SEND_DNT), 0);
    assert_int_equal(brock_site_is_disabled(b, "a.example"), 1);
    assert_int_equal(brock_passthrough_find(b, "x.example", &p), 1);
    assert_string_equal(p.why, "a's");
    brock_engine_free(b);
    brock_engine_free(a);
}

/* What brock_store_status() says of each kind of engine, and of a failure. */
static void test_status(void **state)
{
    struct test_fixture *f = *state;
    struct brock_config cfg = {.state_dir = f->state, .no_seed = 1, .read_only = 1};
    struct brock_engine *a = test_engine_open(NULL, NULL, 1), *b;
    struct brock_store_status st;

    st = status(a);
    assert_int_equal(st.kind, BROCK_STORE_MEMORY);
    assert_string_equal(st.path, "");
    brock_engine_free(a);

    a = test_fixture_open(f, NULL, 1);
    st = status(a);
    assert_int_equal(st.kind, BROCK_STORE_FILE);
    assert_string_equal(st.path, f->db);
    assert_int_equal(st.last_write_ms, 0);
    choose(a, "x.example", BROCK_USER_BLOCK);
    sync_ok(a);
    st = status(a);
    assert_true(st.last_write_ms > 0);
    assert_int_equal(st.failing, 0);
    assert_string_equal(st.last_error, "");

    b = test_engine_with(&cfg);
    st = status(b);
    assert_int_equal(st.kind, BROCK_STORE_READONLY);
    assert_true(st.why[0] != '\0');
    brock_engine_free(b);
    brock_engine_free(a);
}

/* The first write of a new state fails (a file size limit standing in for a full disk): the
 * sync says why, and closing leaves nothing; the next open, with room, seeds it whole. */
static void test_first_write_fails(void **state)
{
    struct test_fixture *f = *state;
    const char *data = test_data("privacybadger");
    struct rlimit was, small;
    struct brock_engine *e, *mem;
    struct brock_store_status st;
    size_t want[BROCK_ACTION_COUNT], got[BROCK_ACTION_COUNT], n_want = 0, n_got = 0;
    struct stat sb;
    int rc;

    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    small = was;
    small.rlim_cur = 256 * 1024;
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    e = test_fixture_open(f, data, 0);
    rc = brock_sync(e);
    st = status(e);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    assert_int_equal(rc, BROCK_ESTORE);
    assert_non_null(strstr(brock_engine_errmsg(e), f->db));
    assert_non_null(strstr(brock_engine_errmsg(e), "File too large"));
    assert_int_equal(st.failing, 1);
    assert_string_equal(st.last_error, brock_engine_errmsg(e));
    assert_true(st.last_error_ms > 0);
    brock_engine_free(e);
    assert_int_equal(stat(f->state, &sb), -1);

    mem = test_engine_open(NULL, data, 0);
    brock_counts(mem, want, &n_want);
    brock_engine_free(mem);
    e = test_fixture_open(f, data, 0);
    sync_ok(e);
    brock_engine_free(e);
    e = test_fixture_open(f, data, 0);
    brock_counts(e, got, &n_got);
    assert_true(n_want > 10000);
    assert_int_equal(n_got, n_want);
    assert_memory_equal(got, want, sizeof(want));
    brock_engine_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_deleted, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_deleted_wal_left, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_folder_deleted, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_replaced_by_rename, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_replaced_in_place, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_garbage_in_place, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_other_writers, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_settings_both_kept, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_status, setup, test_fixture_teardown),
        cmocka_unit_test_setup_teardown(test_first_write_fails, setup, test_fixture_teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
