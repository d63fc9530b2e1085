/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * brock's state in SQLite (DIR/brock.db, WAL mode): loads the engine's maps, writes what changed
 * in one transaction, and picks up what other processes wrote by reading a journal table.
 */
#include "engine/engine.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "util/alloc.h"
#include "util/file.h"

/*
 * Schema, version 2 (PRAGMA user_version; version 1 lacked page_view and is migrated):
 *
 *   action(domain PK, user_action TEXT, heuristic TEXT, dnt INT, next_update INT)
 *       one action_map entry; user_action and heuristic hold Privacy Badger's names ("" for
 *       none); a heuristic string brock does not know is kept as it is.
 *   snitch(tracker, site, seq, host, detail, kind INT, time_ms INT; PK(tracker, site))
 *       snitch_map: the sites a tracker base was seen on, seq ordering them within the tracker,
 *       with the evidence (request host, cookie name, enum brock_evidence_kind, Unix ms).
 *   tracking(tracker, site, kinds INT; PK(tracker, site))
 *       tracking_map, kinds a mask of BROCK__TRACK_*; rowid keeps the order seen.
 *   fp_script(host, path; PK(host, path))
 *       fp_scripts.
 *   setting(key PK, value TEXT)
 *       settings_map, one JSON value per key.
 *   meta(key PK, value TEXT)
 *       'seeded': Unix ms when the seed was loaded; absent on a state never seeded.
 *       'pbconfig', 'pbconfig_time': the last configuration `brock update` applied, and when;
 *       'yellowlist': the cookieblock list the learned actions follow, one domain a line.
 *   page_view(site, host, action TEXT, count INT, time_ms INT; PK(site, host))
 *       recent page views: the third-party hosts a site's pages requested, the action the
 *       last request got (Privacy Badger's name), how many requests, the last one's Unix ms.
 *   journal(seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT, name TEXT, origin INT)
 *       one row per action domain written or deleted ('action'), per tracker whose snitch list
 *       grew ('snitch'), per settings write ('settings', name ''), per reset to the seed
 *       ('reset', name '') and per forgetting of page views ('pages', name ''), so that other
 *       processes
 *       reload only those; origin is a random number per connection so a process skips its
 *       own rows. Only the last JOURNAL_KEEP rows are kept: a reader that fell further behind
 *       reloads everything.
 */

#define SCHEMA_VERSION 2
#define JOURNAL_KEEP 10000
#define BUSY_TIMEOUT_MS 5000

/* Written for BROCK__HEUR_UNKNOWN, which has no name: any string brock__heur_parse() rejects
 * reads back as unknown. */
#define HEUR_UNKNOWN_TEXT "unknown"

static const char schema_sql[] =
    "CREATE TABLE action ("
    " domain TEXT PRIMARY KEY NOT NULL,"
    " user_action TEXT NOT NULL DEFAULT '',"
    " heuristic TEXT NOT NULL DEFAULT '',"
    " dnt INTEGER NOT NULL DEFAULT 0,"
    " next_update INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;"
    "CREATE TABLE snitch ("
    " tracker TEXT NOT NULL, site TEXT NOT NULL, seq INTEGER NOT NULL,"
    " host TEXT, detail TEXT,"
    " kind INTEGER NOT NULL DEFAULT 0, time_ms INTEGER NOT NULL DEFAULT 0,"
    " PRIMARY KEY (tracker, site));"
    "CREATE INDEX snitch_order ON snitch (tracker, seq);"
    "CREATE TABLE tracking ("
    " tracker TEXT NOT NULL, site TEXT NOT NULL, kinds INTEGER NOT NULL,"
    " PRIMARY KEY (tracker, site));"
    "CREATE TABLE fp_script (host TEXT NOT NULL, path TEXT NOT NULL, PRIMARY KEY (host, path));"
    "CREATE TABLE setting (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);"
    "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT);"
    "CREATE TABLE journal ("
    " seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " kind TEXT NOT NULL, name TEXT NOT NULL, origin INTEGER NOT NULL DEFAULT 0);"
    "CREATE TABLE page_view ("
    " site TEXT NOT NULL, host TEXT NOT NULL, action TEXT NOT NULL,"
    " count INTEGER NOT NULL, time_ms INTEGER NOT NULL,"
    " PRIMARY KEY (site, host)) WITHOUT ROWID;"
    "PRAGMA user_version = 2;";

/* From version 1: the page views are new; nothing else changed. */
static const char migrate_v1_sql[] =
    "CREATE TABLE page_view ("
    " site TEXT NOT NULL, host TEXT NOT NULL, action TEXT NOT NULL,"
    " count INTEGER NOT NULL, time_ms INTEGER NOT NULL,"
    " PRIMARY KEY (site, host)) WITHOUT ROWID;"
    "PRAGMA user_version = 2;";

/* A reset to the seed empties what was learned; memory is then written back whole. */
static const char reset_sql[] =
    "DELETE FROM action; DELETE FROM snitch; DELETE FROM tracking; DELETE FROM fp_script;";

enum {
    ST_BEGIN_READ,
    ST_BEGIN_WRITE,
    ST_COMMIT,
    ST_ACTION_PUT,
    ST_ACTION_DEL,
    ST_ACTION_GET,
    ST_ACTION_ALL,
    ST_SNITCH_PUT,
    ST_SNITCH_GET,
    ST_SNITCH_ALL,
    ST_TRACKING_PUT,
    ST_TRACKING_ALL,
    ST_FP_PUT,
    ST_FP_ALL,
    ST_SETTING_CLEAR,
    ST_SETTING_PUT,
    ST_SETTING_ALL,
    ST_META_PUT,
    ST_META_GET,
    ST_JOURNAL_ADD,
    ST_JOURNAL_TRIM,
    ST_JOURNAL_RANGE,
    ST_JOURNAL_SINCE,
    ST_DATA_VERSION,
    ST_PAGE_PUT,
    ST_PAGE_DEL_SITE,
    ST_PAGE_ALL,
    ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
    [ST_BEGIN_READ] = "BEGIN",
    [ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    /* ?6..?8 say which columns this process changed: only those overwrite an existing row,
     * so two processes changing different columns of one domain both win. */
    [ST_ACTION_PUT] = "INSERT INTO action (domain, user_action, heuristic, dnt, next_update)"
                      " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (domain) DO UPDATE SET"
                      " user_action = CASE WHEN ?6 THEN excluded.user_action ELSE user_action END,"
                      " heuristic = CASE WHEN ?7 THEN excluded.heuristic ELSE heuristic END,"
                      " dnt = CASE WHEN ?8 THEN excluded.dnt ELSE dnt END,"
                      " next_update = CASE WHEN ?8 THEN excluded.next_update ELSE next_update END",
    [ST_ACTION_DEL] = "DELETE FROM action WHERE domain = ?1",
    [ST_ACTION_GET] = "SELECT user_action, heuristic, dnt, next_update FROM action"
                      " WHERE domain = ?1",
    [ST_ACTION_ALL] = "SELECT domain, user_action, heuristic, dnt, next_update FROM action",
    /* A site another process already recorded keeps its place and evidence. */
    [ST_SNITCH_PUT] = "INSERT OR IGNORE INTO snitch"
                      " (tracker, site, seq, host, detail, kind, time_ms) VALUES (?1, ?2,"
                      " (SELECT coalesce(max(seq), -1) + 1 FROM snitch WHERE tracker = ?1),"
                      " ?3, ?4, ?5, ?6)",
    [ST_SNITCH_GET] = "SELECT site, host, detail, kind, time_ms FROM snitch WHERE tracker = ?1"
                      " ORDER BY seq",
    [ST_SNITCH_ALL] = "SELECT tracker, site, host, detail, kind, time_ms FROM snitch"
                      " ORDER BY tracker, seq",
    [ST_TRACKING_PUT] = "INSERT INTO tracking (tracker, site, kinds) VALUES (?1, ?2, ?3)"
                        " ON CONFLICT (tracker, site) DO UPDATE SET kinds = kinds | excluded.kinds",
    [ST_TRACKING_ALL] = "SELECT tracker, site, kinds FROM tracking ORDER BY rowid",
    [ST_FP_PUT] = "INSERT OR IGNORE INTO fp_script (host, path) VALUES (?1, ?2)",
    [ST_FP_ALL] = "SELECT host, path FROM fp_script ORDER BY rowid",
    [ST_SETTING_CLEAR] = "DELETE FROM setting",
    [ST_SETTING_PUT] = "INSERT INTO setting (key, value) VALUES (?1, ?2)",
    [ST_SETTING_ALL] = "SELECT key, value FROM setting",
    [ST_META_PUT] = "INSERT INTO meta (key, value) VALUES (?1, ?2)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    [ST_META_GET] = "SELECT value FROM meta WHERE key = ?1",
    [ST_JOURNAL_ADD] = "INSERT INTO journal (kind, name, origin) VALUES (?1, ?2, ?3)",
    [ST_JOURNAL_TRIM] = "DELETE FROM journal WHERE seq <= (SELECT max(seq) FROM journal) - ?1",
    [ST_JOURNAL_RANGE] = "SELECT coalesce(min(seq), 0), coalesce(max(seq), 0) FROM journal",
    [ST_JOURNAL_SINCE] = "SELECT kind, name, origin FROM journal WHERE seq > ?1 ORDER BY seq",
    [ST_DATA_VERSION] = "PRAGMA data_version",
    [ST_PAGE_PUT] = "INSERT INTO page_view (site, host, action, count, time_ms)"
                    " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (site, host) DO UPDATE SET"
                    " action = excluded.action, count = excluded.count,"
                    " time_ms = excluded.time_ms",
    [ST_PAGE_DEL_SITE] = "DELETE FROM page_view WHERE site = ?1",
    [ST_PAGE_ALL] = "SELECT site, host, action, count, time_ms FROM page_view",
};

struct brock__store {
    sqlite3 *db;
    sqlite3_stmt *st[ST_COUNT];
    int64_t last_seq;     /* the newest journal row this process has applied */
    int64_t data_version; /* PRAGMA data_version when the journal was last read */
    int64_t origin;       /* marks this connection's journal rows */
    char path[PATH_MAX];
    char sqlerr[256];     /* SQLite's message for the last failed statement */
    int sqlcode;          /* and its (extended) result code */
    int readonly;         /* opened read-only: brock__store_flush() writes nothing */
    int created;          /* this open created path */
    char made_dir[PATH_MAX]; /* the outermost folder this open created, or "" */
    char doing[BROCK_HOST_MAX + 64]; /* what the last failed store_fail() call was doing */
};

/* Keeps SQLite's words for the failure rc of the last call on s->db, with the system's
 * words when a system call failed (a full disk, a file size limit), for the messages. */
static void note_err(struct brock__store *s, int rc)
{
    int sys = s->db ? sqlite3_system_errno(s->db) : 0;
    const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);

    s->sqlcode = s->db ? sqlite3_extended_errcode(s->db) : rc;
    if (sys > 0 && (s->sqlcode & 0xff) != SQLITE_CORRUPT && (s->sqlcode & 0xff) != SQLITE_NOTADB)
        snprintf(s->sqlerr, sizeof(s->sqlerr), "%s (%s)", msg, strerror(sys));
    else
        snprintf(s->sqlerr, sizeof(s->sqlerr), "%s", msg);
}

static int is_corrupt(int code)
{
    return (code & 0xff) == SQLITE_CORRUPT || (code & 0xff) == SQLITE_NOTADB;
}

/* The one message for a damaged file, whatever found it: the file is left for its owner. */
static int corrupt_fail(struct brock_engine *e, const char *path, const char *why)
{
    return brock__fail(e, BROCK_ESTORE,
                       "the state database %s is corrupt (%s); brock did not change it - move "
                       "it away to start afresh, or restore a backup",
                       path, why);
}

/* ---- statements ---- */

/* Steps st once. SQLITE_ROW and SQLITE_DONE are returned as they are; any error resets st,
 * keeps SQLite's message in s->sqlerr and is returned. */
static int step(struct brock__store *s, sqlite3_stmt *st)
{
    int rc = sqlite3_step(st);

    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        return rc;
    note_err(s, rc);
    sqlite3_reset(st);
    return rc;
}

/* Runs a statement that returns no rows; 0 or SQLite's error code. */
static int run(struct brock__store *s, sqlite3_stmt *st)
{
    int rc = step(s, st);

    sqlite3_reset(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : rc;
}

static int bind_text(sqlite3_stmt *st, int i, const char *v)
{
    return sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

static const char *column_text(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);

    return t ? (const char *)t : "";
}

static int store_fail(struct brock_engine *e, const char *what, const char *name)
{
    struct brock__store *s = e->store;

    snprintf(s->doing, sizeof(s->doing), "%s%s%s", what, name ? " " : "", name ? name : "");
    if (is_corrupt(s->sqlcode))
        return corrupt_fail(e, s->path, s->sqlerr);
    return brock__fail(e, BROCK_ESTORE, "%s: cannot %s%s%s: %s", s->path, what, name ? " " : "",
                       name ? name : "", s->sqlerr);
}

static int journal_add(struct brock__store *s, const char *kind, const char *name)
{
    sqlite3_stmt *st = s->st[ST_JOURNAL_ADD];

    bind_text(st, 1, kind);
    bind_text(st, 2, name);
    sqlite3_bind_int64(st, 3, s->origin);
    return run(s, st);
}

/* ---- applying rows to the maps ---- */

static int is_deleted(const struct brock_engine *e, const char *domain)
{
    for (size_t i = 0; i < e->deleted.n; i++)
        if (!strcmp(e->deleted.v[i], domain))
            return 1;
    return 0;
}

/* Applies an action row (user_action, heuristic, dnt, next_update from column col on) to
 * domain's entry, creating it; fields dirty in memory win. Returns 1 when memory changed. */
static int action_apply(struct brock_engine *e, const char *domain, sqlite3_stmt *st, int col)
{
    struct action_entry *a = strmap_get(&e->actions, domain);
    int user = brock__user_parse(column_text(st, col));
    int heur = brock__heur_parse(column_text(st, col + 1));
    int dnt = sqlite3_column_int64(st, col + 2) != 0;
    int64_t next = sqlite3_column_int64(st, col + 3);
    int changed = 0;

    if (user < 0)
        user = BROCK_NOACTION;
    if (heur < 0)
        heur = BROCK__HEUR_UNKNOWN;
    if (!a) {
        size_t n = strlen(domain);

        /* Deleted here since the last flush: the deletion is written next and wins. */
        if (is_deleted(e, domain))
            return 0;
        a = mem_malloc(sizeof(*a) + n + 1);
        if (!a)
            return BROCK_ENOMEM;
        memset(a, 0, sizeof(*a));
        memcpy(a->domain, domain, n + 1);
        if (strmap_put(&e->actions, a->domain, a) < 0) {
            mem_free(a);
            return BROCK_ENOMEM;
        }
        changed = 1;
    }
    if (!(a->dirty & BROCK__DIRTY_USER) && a->user != user) {
        a->user = (uint8_t)user;
        changed = 1;
    }
    if (!(a->dirty & BROCK__DIRTY_HEUR) && a->heur != heur) {
        a->heur = (uint8_t)heur;
        changed = 1;
    }
    if (!(a->dirty & BROCK__DIRTY_DNT) && (a->dnt != dnt || a->next_update != next)) {
        a->dnt = (uint8_t)dnt;
        a->next_update = next;
        changed = 1;
    }
    return changed;
}

static int snitch_find(const struct snitch *sn, const char *site)
{
    for (size_t i = 0; i < sn->n; i++)
        if (!strcmp(sn->v[i].site, site))
            return 1;
    return 0;
}

static int strdup_or_null(char **out, sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);

    *out = NULL;
    if (!t)
        return 0;
    *out = mem_strdup((const char *)t);
    return *out ? 0 : BROCK_ENOMEM;
}

/* Appends the snitch row (site, host, detail, kind, time_ms from column col on) to tracker's
 * list. With check, a site already listed is skipped. Returns 1 when added. */
static int snitch_apply(struct brock_engine *e, const char *tracker, sqlite3_stmt *st, int col,
                        int check)
{
    struct snitch *sn = strmap_get(&e->snitches, tracker);
    const char *site = column_text(st, col);
    struct snitch_site *ss;

    if (sn && check && snitch_find(sn, site))
        return 0;
    if (!sn) {
        sn = mem_calloc(1, sizeof(*sn));
        if (!sn)
            return BROCK_ENOMEM;
        if (strmap_put(&e->snitches, tracker, sn) < 0) {
            mem_free(sn);
            return BROCK_ENOMEM;
        }
    }
    if (mem_grow(&sn->v, &sn->cap, sn->n + 1, sizeof(*sn->v)) < 0)
        return BROCK_ENOMEM;
    ss = &sn->v[sn->n];
    memset(ss, 0, sizeof(*ss));
    ss->site = mem_strdup(site);
    if (!ss->site || strdup_or_null(&ss->host, st, col + 1) < 0 ||
        strdup_or_null(&ss->detail, st, col + 2) < 0) {
        mem_free(ss->site);
        mem_free(ss->host);
        return BROCK_ENOMEM;
    }
    ss->kind = (uint8_t)sqlite3_column_int(st, col + 3);
    ss->time_ms = sqlite3_column_int64(st, col + 4);
    sn->n++;
    return 1;
}

static int tracking_apply(struct brock_engine *e, sqlite3_stmt *st)
{
    const char *tracker = column_text(st, 0);
    struct tracking *t = strmap_get(&e->tracking, tracker);
    struct tracking_site *ts;

    if (!t) {
        t = mem_calloc(1, sizeof(*t));
        if (!t)
            return BROCK_ENOMEM;
        if (strmap_put(&e->tracking, tracker, t) < 0) {
            mem_free(t);
            return BROCK_ENOMEM;
        }
    }
    if (mem_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
        return BROCK_ENOMEM;
    ts = &t->v[t->n];
    memset(ts, 0, sizeof(*ts));
    ts->site = mem_strdup(column_text(st, 1));
    if (!ts->site)
        return BROCK_ENOMEM;
    ts->kinds = (unsigned)sqlite3_column_int(st, 2);
    t->n++;
    return 0;
}

static int fp_apply(struct brock_engine *e, sqlite3_stmt *st)
{
    const char *host = column_text(st, 0);
    struct fp_host *f = strmap_get(&e->fp_scripts, host);

    if (!f) {
        f = mem_calloc(1, sizeof(*f));
        if (!f)
            return BROCK_ENOMEM;
        if (strmap_put(&e->fp_scripts, host, f) < 0) {
            mem_free(f);
            return BROCK_ENOMEM;
        }
    }
    if (mem_grow(&f->paths, &f->cap, f->n + 1, sizeof(*f->paths)) < 0)
        return BROCK_ENOMEM;
    f->paths[f->n] = mem_strdup(column_text(st, 1));
    if (!f->paths[f->n])
        return BROCK_ENOMEM;
    f->n++;
    return 0;
}

/* Reads every setting row into e->settings (keys absent from the table keep their value). */
static int settings_read(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SETTING_ALL];
    int rc;

    if (!e->settings && !(e->settings = json_object()))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    while ((rc = step(s, st)) == SQLITE_ROW) {
        const char *key = column_text(st, 0);
        json_error_t jerr;
        json_t *v = json_loads(column_text(st, 1), JSON_DECODE_ANY, &jerr);

        if (!v) {
            rc = brock__fail(e, BROCK_ESTORE, "%s: setting %s is not JSON: %s", s->path, key,
                             jerr.text);
            sqlite3_reset(st);
            return rc;
        }
        if (json_object_set_new(e->settings, key, v) < 0) {
            sqlite3_reset(st);
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : store_fail(e, "read the settings", NULL);
}

/* ---- opening ---- */

/* An integer from a one-row statement. */
static int query_int(struct brock__store *s, sqlite3_stmt *st, int col, int64_t *out)
{
    int rc = step(s, st);

    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64(st, col);
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

/* The oldest and newest journal rows (0 and 0 for an empty journal). */
static int journal_range(struct brock__store *s, int64_t *min, int64_t *max)
{
    sqlite3_stmt *st = s->st[ST_JOURNAL_RANGE];
    int rc = step(s, st);

    if (rc == SQLITE_ROW) {
        *min = sqlite3_column_int64(st, 0);
        *max = sqlite3_column_int64(st, 1);
    }
    sqlite3_reset(st);
    return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

static int pragma_int(struct brock__store *s, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);

    if (rc != SQLITE_OK) {
        note_err(s, rc);
        return rc;
    }
    rc = query_int(s, st, 0, out);
    sqlite3_finalize(st);
    return rc;
}

static int exec_sql(struct brock__store *s, const char *sql)
{
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);

    if (rc != SQLITE_OK)
        note_err(s, rc);
    return rc;
}

/* Creates the tables, or brings a version 1 state up to date, in one transaction, unless
 * another process just did. */
static int schema_create(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    int64_t version = 0;

    if (exec_sql(s, "BEGIN IMMEDIATE") != SQLITE_OK)
        return store_fail(e, "create the tables", NULL);
    if (pragma_int(s, "PRAGMA user_version", &version) != SQLITE_OK ||
        (version == 0 && exec_sql(s, schema_sql) != SQLITE_OK) ||
        (version == 1 && exec_sql(s, migrate_v1_sql) != SQLITE_OK) ||
        exec_sql(s, "COMMIT") != SQLITE_OK) {
        exec_sql(s, "ROLLBACK");
        return store_fail(e, "create the tables", NULL);
    }
    return 0;
}

/* Root making a database in a folder another user owns (brock's service user) makes it that
 * user's, as the folder's other files are: SQLite then gives its -wal and -shm files the
 * database's owner too. */
static void db_file_owner(int fd, const char *dir)
{
    struct stat st;

    if (geteuid() == 0 && stat(dir, &st) == 0 && st.st_uid != 0 &&
        fchown(fd, st.st_uid, st.st_gid) < 0) {
        /* Left to root: the service user is told at its next start that it cannot write. */
    }
}

/* Creates path (in dir) with mode 0600 when missing (SQLite would use 0644, and gives the same
 * mode to its -wal and -shm files). Sets *created. */
static int db_file_create(struct brock_engine *e, const char *dir, const char *path,
                          int *created)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

    *created = 0;
    if (fd >= 0) {
        *created = 1;
        db_file_owner(fd, dir);
        close(fd);
        return 0;
    }
    int err = errno;

    if (err == EEXIST)
        return 0;
    brock__fail(e, BROCK_EIO, "cannot create the state database %s: %s", path, strerror(err));
    errno = err; /* for the caller's read-only fallback */
    return BROCK_EIO;
}

static void db_file_remove(const char *path)
{
    char p[PATH_MAX + 8];

    unlink(path);
    snprintf(p, sizeof(p), "%s-wal", path);
    unlink(p);
    snprintf(p, sizeof(p), "%s-shm", path);
    unlink(p);
}

static void store_free(struct brock__store *s)
{
    if (!s)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->st[i]);
    sqlite3_close(s->db);
    mem_free(s);
}

/* How store_setup() opens the file: read-write, then read-only (seeing other processes'
 * commits), then immutable (for a WAL file in a folder where SQLite cannot make its -shm). */
enum { OPEN_RW, OPEN_RO, OPEN_IMMUTABLE };

/* store_setup() could not open the file for writing; s->sqlerr says why. */
#define STORE_CANT_WRITE 1

static int is_cant_write(int code)
{
    return (code & 0xff) == SQLITE_READONLY || (code & 0xff) == SQLITE_CANTOPEN ||
           (code & 0xff) == SQLITE_PERM;
}

/* Why s->path cannot be written, in the system's words where it has some. */
static void note_readonly(struct brock__store *s)
{
    char dir[PATH_MAX];
    char *slash;

    memcpy(dir, s->path, sizeof(dir));
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    if (access(s->path, W_OK) != 0)
        snprintf(s->sqlerr, sizeof(s->sqlerr), "%s", strerror(errno));
    else if (slash && access(dir, W_OK) != 0)
        snprintf(s->sqlerr, sizeof(s->sqlerr), "its folder: %s", strerror(errno));
    else if (!s->sqlerr[0])
        snprintf(s->sqlerr, sizeof(s->sqlerr), "SQLite opened it read-only");
}

/* A file: URI for s->path, every byte but the unreserved ones escaped. */
static int path_uri(const struct brock__store *s, int how, char *out, size_t size)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *tail = how == OPEN_IMMUTABLE ? "?mode=ro&immutable=1" : "?mode=ro";
    size_t n = 0;

    if (size < 6)
        return -1;
    memcpy(out, "file:", 5);
    n = 5;
    for (const unsigned char *p = (const unsigned char *)s->path; *p; p++) {
        if (n + 4 >= size)
            return -1;
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            strchr("/._~-", *p)) {
            out[n++] = (char)*p;
        } else {
            out[n++] = '%';
            out[n++] = hex[*p >> 4];
            out[n++] = hex[*p & 15];
        }
    }
    if (n + strlen(tail) + 1 > size)
        return -1;
    memcpy(out + n, tail, strlen(tail) + 1);
    return 0;
}

/* The first of PRAGMA quick_check's findings, or "" when the file is sound. */
static int quick_check(struct brock__store *s, char *out, size_t size)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, "PRAGMA quick_check(1)", -1, &st, NULL);

    out[0] = '\0';
    if (rc != SQLITE_OK) {
        note_err(s, rc);
        return rc;
    }
    rc = step(s, st);
    if (rc == SQLITE_ROW && strcmp(column_text(st, 0), "ok") != 0) {
        static const char banner[] = "*** in database main ***\n";
        const char *t = column_text(st, 0);

        if (!strncmp(t, banner, sizeof(banner) - 1))
            t += sizeof(banner) - 1;
        snprintf(out, size, "%s", t);
        for (char *p = out; *p; p++)
            if (*p == '\n')
                *p = ' ';
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rc;
}

/* Opens the connection as how says, checks the file is a sound brock database of a version
 * known here and sets it up. Nothing is written to a file that fails the checks. Returns 0,
 * STORE_CANT_WRITE (s->sqlerr saying why) or a negative error. */
static int store_setup(struct brock_engine *e, int *fresh, int how)
{
    struct brock__store *s = e->store;
    int64_t version = 0;
    char uri[PATH_MAX * 3 + 32], damage[256];
    sqlite3_stmt *st;
    int rc;

    s->sqlerr[0] = '\0';
    if (how != OPEN_RW && path_uri(s, how, uri, sizeof(uri)) < 0)
        return brock__fail(e, BROCK_EIO, "the state database name %s is too long", s->path);
    rc = sqlite3_open_v2(how == OPEN_RW ? s->path : uri, &s->db,
                         how == OPEN_RW ? SQLITE_OPEN_READWRITE
                                        : SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
                         NULL);
    if (rc != SQLITE_OK) {
        note_err(s, rc);
        if (how != OPEN_IMMUTABLE && is_cant_write(s->sqlcode))
            return STORE_CANT_WRITE;
        return store_fail(e, "open the state database", NULL);
    }
    if (how == OPEN_RW && sqlite3_db_readonly(s->db, "main") == 1) {
        note_readonly(s);
        return STORE_CANT_WRITE;
    }
    sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
    /* The first read of the header: a file that is not SQLite fails here, untouched. */
    if (pragma_int(s, "PRAGMA user_version", &version) != SQLITE_OK) {
        if (how != OPEN_IMMUTABLE && is_cant_write(s->sqlcode)) {
            if (how == OPEN_RW)
                note_readonly(s);
            return STORE_CANT_WRITE;
        }
        return store_fail(e, "read the state database", NULL);
    }
    if (version > SCHEMA_VERSION)
        return brock__fail(e, BROCK_ESTORE,
                           "%s: the state database has schema version %lld, newer than this "
                           "brock knows (%d); brock did not change it - use a newer brock",
                           s->path, (long long)version, SCHEMA_VERSION);
    /* Every page of the tables is read (about as long as loading them): a damaged file is
     * reported here, before anything is written to it. */
    if (quick_check(s, damage, sizeof(damage)) != SQLITE_OK)
        return store_fail(e, "check the state database", NULL);
    if (damage[0])
        return corrupt_fail(e, s->path, damage);
    if (how != OPEN_RW && version < SCHEMA_VERSION)
        return brock__fail(e, BROCK_ESTORE,
                           "%s: the state database has schema version %lld and cannot be "
                           "written, so this brock cannot bring it up to date",
                           s->path, (long long)version);
    if (how == OPEN_RW) {
        /* NORMAL: in WAL mode a commit survives the process being killed; a power loss may
         * lose the last commits, never the file's consistency. */
        if (exec_sql(s, "PRAGMA journal_mode = WAL") != SQLITE_OK ||
            exec_sql(s, "PRAGMA synchronous = NORMAL") != SQLITE_OK)
            return store_fail(e, "set up the state database", NULL);
        if (version < SCHEMA_VERSION && (rc = schema_create(e)) < 0)
            return rc;
    }
    for (int i = 0; i < ST_COUNT; i++) {
        if (sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &s->st[i],
                               NULL) != SQLITE_OK) {
            note_err(s, SQLITE_ERROR);
            return store_fail(e, "prepare a statement for", "the state database");
        }
    }
    st = s->st[ST_META_GET];
    bind_text(st, 1, "seeded");
    rc = step(s, st);
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_fail(e, "read the state's meta data", NULL);
    *fresh = rc == SQLITE_DONE;
    s->readonly = how != OPEN_RW;
    sqlite3_randomness(sizeof(s->origin), &s->origin);
    return 0;
}

/* Closes s's connection for another attempt. */
static void store_disconnect(struct brock__store *s)
{
    for (int i = 0; i < ST_COUNT; i++) {
        sqlite3_finalize(s->st[i]);
        s->st[i] = NULL;
    }
    sqlite3_close(s->db);
    s->db = NULL;
}

static int is_perm_errno(int err)
{
    return err == EACCES || err == EROFS || err == EPERM;
}

/* The state cannot be written at all: the engine runs from memory. */
static int readonly_memory(struct brock_engine *e, int *fresh, const char *what, const char *name,
                           int err)
{
    snprintf(e->readonly_why, sizeof(e->readonly_why), "cannot create the state %s %s (%s)", what,
             name, strerror(err));
    *fresh = 1;
    return 0;
}

/* Removes what opening s created: the database and its -wal and -shm files, then the folders
 * from the state's up to the outermost one made (each only if empty). */
static void store_discard_files(struct brock__store *s)
{
    char dir[PATH_MAX];
    char *slash;

    if (s->created)
        db_file_remove(s->path);
    if (!s->made_dir[0])
        return;
    memcpy(dir, s->path, sizeof(dir));
    while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
        *slash = '\0';
        if (rmdir(dir) < 0 || strcmp(dir, s->made_dir) == 0)
            break;
    }
}

void brock__store_discard(struct brock_engine *e)
{
    struct brock__store *s = e->store;

    if (!s)
        return;
    e->store = NULL;
    /* Closed before the files go, so that SQLite has nothing of them left open. */
    store_disconnect(s);
    store_discard_files(s);
    store_free(s);
}

/* The outermost folder of dir's path that does not exist yet, into made ("" when dir exists):
 * what file_mkdirs() is about to create. */
static void first_missing(const char *dir, char *made, size_t size)
{
    char p[PATH_MAX];
    struct stat st;
    size_t n = strlen(dir);

    made[0] = '\0';
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (n >= sizeof(p) || n >= size)
        return;
    memcpy(p, dir, n);
    p[n] = '\0';
    while (stat(p, &st) != 0 && errno == ENOENT) {
        char *slash = strrchr(p, '/');

        memcpy(made, p, strlen(p) + 1);
        if (!slash || slash == p)
            break;
        *slash = '\0';
    }
}

/* Opening for a read-only engine: an existing database read-only, else no store at all (the
 * engine is then a new state in memory). */
static int store_open_read(struct brock_engine *e, struct brock__store *s, const char *dir,
                           int *fresh)
{
    struct stat st;
    int rc;

    if (stat(s->path, &st) != 0) {
        int err = errno;

        mem_free(s);
        if (err == ENOENT || err == ENOTDIR) {
            *fresh = 1;
            return 0;
        }
        return brock__fail(e, BROCK_EIO, "cannot read the state in %s: %s", dir,
                           strerror(err));
    }
    e->store = s;
    rc = store_setup(e, fresh, OPEN_RO);
    if (rc == STORE_CANT_WRITE) {
        store_disconnect(s);
        rc = store_setup(e, fresh, OPEN_IMMUTABLE);
    }
    if (rc < 0) {
        e->store = NULL;
        store_free(s);
    }
    return rc;
}

int brock__store_open(struct brock_engine *e, const char *dir, int *fresh)
{
    struct brock__store *s;
    struct stat st;
    int rc;

    *fresh = 0;
    e->readonly_why[0] = '\0';
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return brock__fail(e, BROCK_EIO, "the state folder %s is not a folder", dir);
    s = mem_calloc(1, sizeof(*s));
    if (!s)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if (snprintf(s->path, sizeof(s->path), "%s/brock.db", dir) >= (int)sizeof(s->path)) {
        mem_free(s);
        return brock__fail(e, BROCK_EIO, "the state folder name %s is too long", dir);
    }
    if (e->read_only)
        return store_open_read(e, s, dir, fresh);
    first_missing(dir, s->made_dir, sizeof(s->made_dir));
    rc = file_mkdirs(dir, 0700);
    if (rc < 0) {
        mem_free(s);
        if (is_perm_errno(-rc))
            return readonly_memory(e, fresh, "folder", dir, -rc);
        return brock__fail(e, BROCK_EIO, "cannot create the state folder %s: %s", dir,
                           strerror(-rc));
    }
    e->store = s;
    if ((rc = db_file_create(e, dir, s->path, &s->created)) < 0) {
        int err = errno;

        if (is_perm_errno(err))
            rc = readonly_memory(e, fresh, "database", s->path, err);
        e->store = NULL;
        store_discard_files(s);
        mem_free(s);
        return rc;
    }
    rc = store_setup(e, fresh, OPEN_RW);
    if (rc == STORE_CANT_WRITE) {
        snprintf(e->readonly_why, sizeof(e->readonly_why), "the state database %s is read-only (%s)",
                 s->path, s->sqlerr);
        store_disconnect(s);
        rc = store_setup(e, fresh, OPEN_RO);
    }
    if (rc == STORE_CANT_WRITE) {
        store_disconnect(s);
        rc = store_setup(e, fresh, OPEN_IMMUTABLE);
    }
    if (rc < 0) {
        e->readonly_why[0] = '\0';
        brock__store_discard(e);
    }
    return rc;
}

/* ---- loading ---- */

static int load_action(struct brock_engine *e, sqlite3_stmt *st)
{
    return action_apply(e, column_text(st, 0), st, 1);
}

static int load_page(struct brock_engine *e, sqlite3_stmt *st)
{
    return brock__pages_load(e, column_text(st, 0), column_text(st, 1), column_text(st, 2),
                             sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 4));
}

static int load_snitch(struct brock_engine *e, sqlite3_stmt *st)
{
    /* The primary key keeps sites unique: no need to search the list. */
    return snitch_apply(e, column_text(st, 0), st, 1, 0);
}

/* Applies every row of statement idx; what names the table in errors. */
static int load_rows(struct brock_engine *e, int idx, const char *what,
                     int (*apply)(struct brock_engine *e, sqlite3_stmt *st))
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[idx];
    int rc;

    while ((rc = step(s, st)) == SQLITE_ROW) {
        if (apply(e, st) < 0) {
            sqlite3_reset(st);
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        }
    }
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : store_fail(e, "read", what);
}

int brock__store_load(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    int64_t dv = 0, min = 0, max = 0;
    int rc;

    if (!s)
        return 0;
    /* Read before the snapshot starts: a commit in between is then seen again by the next
     * poll, which finds nothing new; read after, it could be missed. */
    if (query_int(s, s->st[ST_DATA_VERSION], 0, &dv) != 0 || run(s, s->st[ST_BEGIN_READ]) != 0)
        return store_fail(e, "read", "the state");
    if ((rc = load_rows(e, ST_ACTION_ALL, "the actions", load_action)) < 0 ||
        (rc = load_rows(e, ST_SNITCH_ALL, "the snitch map", load_snitch)) < 0 ||
        (rc = load_rows(e, ST_TRACKING_ALL, "the tracking map", tracking_apply)) < 0 ||
        (rc = load_rows(e, ST_FP_ALL, "the fingerprinting scripts", fp_apply)) < 0 ||
        (rc = load_rows(e, ST_PAGE_ALL, "the page views", load_page)) < 0 ||
        (rc = settings_read(e)) < 0)
        goto fail;
    if (journal_range(s, &min, &max) != 0 || run(s, s->st[ST_COMMIT]) != 0) {
        rc = store_fail(e, "read", "the journal");
        goto fail;
    }
    s->data_version = dv;
    s->last_seq = max;
    brock__settings_changed(e);
    return 0;
fail:
    exec_sql(s, "ROLLBACK");
    return rc;
}

/* ---- flushing ---- */

/* After brock_reset(): the learned tables are emptied and everything memory holds is
 * written back, so that nothing reset survives in the state. */
static int flush_reset(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    const char *key;
    void *val;
    size_t it;

    if (!e->reset_pending)
        return 0;
    if (exec_sql(s, reset_sql) != SQLITE_OK || journal_add(s, "reset", "") != 0)
        return store_fail(e, "reset", "the state");
    for (it = 0; strmap_next(&e->actions, &it, &key, &val);)
        ((struct action_entry *)val)->dirty |=
            BROCK__DIRTY_USER | BROCK__DIRTY_HEUR | BROCK__DIRTY_DNT;
    for (it = 0; strmap_next(&e->snitches, &it, &key, &val);) {
        struct snitch *sn = val;
        for (size_t i = 0; i < sn->n; i++)
            sn->v[i].dirty = 1;
    }
    for (it = 0; strmap_next(&e->tracking, &it, &key, &val);) {
        struct tracking *t = val;
        for (size_t i = 0; i < t->n; i++)
            t->v[i].dirty = 1;
    }
    for (it = 0; strmap_next(&e->fp_scripts, &it, &key, &val);)
        ((struct fp_host *)val)->dirty = 1;
    return 0;
}

static int page_put(void *arg, const char *site, const char *host, const char *action,
                    int64_t count, int64_t time_ms)
{
    struct brock_engine *e = arg;
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[host ? ST_PAGE_PUT : ST_PAGE_DEL_SITE];

    bind_text(st, 1, site);
    if (host) {
        bind_text(st, 2, host);
        bind_text(st, 3, action);
        sqlite3_bind_int64(st, 4, count);
        sqlite3_bind_int64(st, 5, time_ms);
    }
    return run(s, st) != 0 ? store_fail(e, "write the page views of", site) : 0;
}

/* Page views were forgotten: other processes read them again ('pages', name ''). */
static int journal_page_views(struct brock_engine *e)
{
    return journal_add(e->store, "pages", "") != 0 ? store_fail(e, "write", "the journal") : 0;
}

static int flush_deleted(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_ACTION_DEL];

    for (size_t i = 0; i < e->deleted.n; i++) {
        bind_text(st, 1, e->deleted.v[i]);
        if (run(s, st) != 0 || journal_add(s, "action", e->deleted.v[i]) != 0)
            return store_fail(e, "delete the action of", e->deleted.v[i]);
    }
    return 0;
}

static int flush_actions(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_ACTION_PUT];
    const char *name;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->actions, &it, &name, &val)) {
        struct action_entry *a = val;

        if (!a->dirty)
            continue;
        bind_text(st, 1, a->domain);
        bind_text(st, 2, brock__user_name(a->user));
        bind_text(st, 3, a->heur == BROCK__HEUR_UNKNOWN ? HEUR_UNKNOWN_TEXT
                                                        : brock__heur_name(a->heur));
        sqlite3_bind_int(st, 4, a->dnt != 0);
        sqlite3_bind_int64(st, 5, a->next_update);
        sqlite3_bind_int(st, 6, (a->dirty & BROCK__DIRTY_USER) != 0);
        sqlite3_bind_int(st, 7, (a->dirty & BROCK__DIRTY_HEUR) != 0);
        sqlite3_bind_int(st, 8, (a->dirty & BROCK__DIRTY_DNT) != 0);
        if (run(s, st) != 0 || journal_add(s, "action", a->domain) != 0)
            return store_fail(e, "write the action of", a->domain);
    }
    return 0;
}

static int flush_snitches(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SNITCH_PUT];
    const char *tracker;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->snitches, &it, &tracker, &val)) {
        struct snitch *sn = val;
        int grew = 0;

        for (size_t i = 0; i < sn->n; i++) {
            const struct snitch_site *ss = &sn->v[i];

            if (!ss->dirty)
                continue;
            bind_text(st, 1, tracker);
            bind_text(st, 2, ss->site);
            bind_text(st, 3, ss->host);
            bind_text(st, 4, ss->detail);
            sqlite3_bind_int(st, 5, ss->kind);
            sqlite3_bind_int64(st, 6, ss->time_ms);
            if (run(s, st) != 0)
                return store_fail(e, "write the snitch map of", tracker);
            grew |= sqlite3_changes(s->db) > 0;
        }
        if (grew && journal_add(s, "snitch", tracker) != 0)
            return store_fail(e, "write the snitch map of", tracker);
    }
    return 0;
}

static int flush_tracking(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_TRACKING_PUT];
    const char *tracker;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->tracking, &it, &tracker, &val)) {
        struct tracking *t = val;

        for (size_t i = 0; i < t->n; i++) {
            if (!t->v[i].dirty)
                continue;
            bind_text(st, 1, tracker);
            bind_text(st, 2, t->v[i].site);
            sqlite3_bind_int64(st, 3, t->v[i].kinds);
            if (run(s, st) != 0)
                return store_fail(e, "write the tracking map of", tracker);
        }
    }
    return 0;
}

static int flush_fp(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_FP_PUT];
    const char *host;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->fp_scripts, &it, &host, &val)) {
        struct fp_host *f = val;

        for (size_t i = 0; f->dirty && i < f->n; i++) {
            bind_text(st, 1, host);
            bind_text(st, 2, f->paths[i]);
            if (run(s, st) != 0)
                return store_fail(e, "write the fingerprinting scripts of", host);
        }
    }
    return 0;
}

/* The settings object is written whole: memory has no per-key marks. */
static int flush_settings(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SETTING_PUT];
    json_free_t json_free_fn = NULL;
    const char *key;
    json_t *v;

    if (!e->settings_dirty || !e->settings)
        return 0;
    json_get_alloc_funcs(NULL, &json_free_fn);
    if (run(s, s->st[ST_SETTING_CLEAR]) != 0)
        return store_fail(e, "write", "the settings");
    json_object_foreach(e->settings, key, v) {
        char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        int rc;

        if (!text)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        bind_text(st, 1, key);
        bind_text(st, 2, text);
        rc = run(s, st);
        json_free_fn(text);
        if (rc != 0)
            return store_fail(e, "write the setting", key);
    }
    if (journal_add(s, "settings", "") != 0)
        return store_fail(e, "write", "the settings");
    return 0;
}

/* 'seeded' is when the seed was loaded (Unix ms), or "none" for a state made without it. */
static int flush_seeded(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_META_PUT];
    struct timespec ts;
    char when[32] = "none";

    if (e->seed_mark == BROCK__SEED_KEPT)
        return 0;
    if (e->seed_mark == BROCK__SEED_LOADED) {
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(when, sizeof(when), "%lld",
                 (long long)ts.tv_sec * 1000 + (long long)(ts.tv_nsec / 1000000));
    }
    bind_text(st, 1, "seeded");
    bind_text(st, 2, when);
    return run(s, st) != 0 ? store_fail(e, "record", "whether the state is seeded") : 0;
}

static int meta_put(struct brock_engine *e, const char *key, const char *value)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_META_PUT];

    bind_text(st, 1, key);
    bind_text(st, 2, value);
    return run(s, st) != 0 ? store_fail(e, "write the state's meta data", key) : 0;
}

static int flush_pbconfig(struct brock_engine *e)
{
    char when[32];
    int rc = 0;

    if (!e->pbconfig_dirty)
        return 0;
    snprintf(when, sizeof(when), "%lld", (long long)e->pbconfig_time);
    if (e->pbconfig && ((rc = meta_put(e, "pbconfig", e->pbconfig)) < 0 ||
                        (rc = meta_put(e, "pbconfig_time", when)) < 0))
        return rc;
    if (e->yellow_applied)
        rc = meta_put(e, "yellowlist", e->yellow_applied);
    return rc;
}

int brock__store_meta_get(struct brock_engine *e, const char *key, char **out)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_META_GET];
    int rc;

    *out = NULL;
    bind_text(st, 1, key);
    rc = step(s, st);
    if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        *out = mem_strdup(column_text(st, 0));
        sqlite3_reset(st);
        return *out ? 0 : brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    sqlite3_reset(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return store_fail(e, "read the state's meta data", key);
    return 0;
}

/* After a commit: everything in memory is now in the database. */
void brock__store_marks_clear(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it;

    for (it = 0; strmap_next(&e->actions, &it, &key, &val);)
        ((struct action_entry *)val)->dirty = 0;
    for (it = 0; strmap_next(&e->snitches, &it, &key, &val);) {
        struct snitch *sn = val;
        for (size_t i = 0; i < sn->n; i++)
            sn->v[i].dirty = 0;
    }
    for (it = 0; strmap_next(&e->tracking, &it, &key, &val);) {
        struct tracking *t = val;
        for (size_t i = 0; i < t->n; i++)
            t->v[i].dirty = 0;
    }
    for (it = 0; strmap_next(&e->fp_scripts, &it, &key, &val);)
        ((struct fp_host *)val)->dirty = 0;
    brock__strvec_cleanup(&e->deleted);
    e->settings_dirty = 0;
    e->pbconfig_dirty = 0;
    e->reset_pending = 0;
    e->seed_mark = BROCK__SEED_KEPT;
    brock__pages_clean(e);
    e->dirty = 0;
}

int brock__store_flush(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    int64_t min = 0, before = 0, after = 0;
    int rc;

    if (!s || (!e->dirty && !e->deleted.n && !e->settings_dirty && !e->pbconfig_dirty &&
               !e->reset_pending && !e->seed_mark))
        return 0;
    if (s->readonly)
        return brock__fail(e, BROCK_ESTORE, "%s", e->readonly_why);
    s->sqlerr[0] = s->doing[0] = '\0';
    /* On any failure below the transaction is rolled back and no mark is cleared: the
     * database stays as the last commit left it and the whole batch is written next time. */
    if (run(s, s->st[ST_BEGIN_WRITE]) != 0) {
        rc = store_fail(e, "start writing", "the state");
        goto fail;
    }
    if (journal_range(s, &min, &before) != 0) {
        rc = store_fail(e, "read", "the journal");
        goto fail;
    }
    /* Deletions first: a name deleted and then set again since the last flush is set. */
    if ((rc = flush_reset(e)) < 0 || (rc = flush_deleted(e)) < 0 || (rc = flush_actions(e)) < 0 ||
        (rc = flush_snitches(e)) < 0 || (rc = flush_tracking(e)) < 0 || (rc = flush_fp(e)) < 0 ||
        (rc = flush_settings(e)) < 0 || (rc = flush_pbconfig(e)) < 0 ||
        (rc = brock__pages_flush(e, page_put, e)) < 0 ||
        (brock__pages_forgot(e) && (rc = journal_page_views(e)) < 0) ||
        (rc = flush_seeded(e)) < 0)
        goto fail;
    sqlite3_bind_int(s->st[ST_JOURNAL_TRIM], 1, JOURNAL_KEEP);
    if (run(s, s->st[ST_JOURNAL_TRIM]) != 0 || journal_range(s, &min, &after) != 0) {
        rc = store_fail(e, "write", "the journal");
        goto fail;
    }
    if (run(s, s->st[ST_COMMIT]) != 0) {
        rc = store_fail(e, "commit changes to", "the state");
        goto fail;
    }
    brock__store_marks_clear(e);
    /* With no one else's rows in between, the journal is read up to our own last row. */
    if (before == s->last_seq)
        s->last_seq = after;
    return 0;
fail:
    /* One sentence naming the file and SQLite's (and the system's) words for the cause. */
    if (rc == BROCK_ESTORE && s->sqlerr[0])
        brock__fail(e, rc, "writing the state to %s failed: %s (trying to %s)", s->path,
                    s->sqlerr, s->doing);
    if (!sqlite3_get_autocommit(s->db))
        exec_sql(s, "ROLLBACK");
    return rc;
}

/* ---- polling ---- */

/* Rereads domain's row: a vanished row deletes an entry with nothing unwritten. */
static int reload_action(struct brock_engine *e, const char *domain)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_ACTION_GET];
    struct action_entry *a;
    int rc;

    bind_text(st, 1, domain);
    rc = step(s, st);
    if (rc == SQLITE_ROW) {
        rc = action_apply(e, domain, st, 0);
        sqlite3_reset(st);
        return rc < 0 ? brock__fail(e, rc, "out of memory") : rc;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return store_fail(e, "read the action of", domain);
    a = strmap_get(&e->actions, domain);
    if (!a || a->dirty)
        return 0;
    strmap_del(&e->actions, domain);
    mem_free(a);
    return 1;
}

/* Appends the sites another process added to tracker's list; local ones stay. */
static int reload_snitch(struct brock_engine *e, const char *tracker)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_SNITCH_GET];
    int rc, added = 0;

    bind_text(st, 1, tracker);
    while ((rc = step(s, st)) == SQLITE_ROW) {
        int r = snitch_apply(e, tracker, st, 0, 1);
        if (r < 0) {
            sqlite3_reset(st);
            return brock__fail(e, r, "out of memory");
        }
        added += r;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return store_fail(e, "read the snitch map of", tracker);
    return added > 0;
}

static int reload_settings(struct brock_engine *e)
{
    json_t *old;
    int rc, changed;

    if (e->settings_dirty)
        return 0;
    old = json_deep_copy(e->settings);
    if (!old)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    rc = settings_read(e);
    changed = rc == 0 && !json_equal(old, e->settings);
    json_decref(old);
    if (rc < 0)
        return rc;
    if (changed)
        brock__settings_changed(e);
    return changed;
}

static int resync_all(struct brock_engine *e);

/* Another process forgot page views: memory keeps only what it has not written yet. */
static int reload_pages(struct brock_engine *e)
{
    int rc;

    brock__pages_drop_clean(e);
    rc = load_rows(e, ST_PAGE_ALL, "the page views", load_page);
    return rc < 0 ? rc : 1;
}

/* Another process reset the state to the seed: snitch lists with nothing unwritten are
 * dropped and everything is read again. */
static int reload_reset(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->snitches, &it, &key, &val)) {
        struct snitch *sn = val;
        int dirty = 0;

        for (size_t i = 0; i < sn->n && !dirty; i++)
            dirty = sn->v[i].dirty != 0;
        if (!dirty) {
            strmap_del(&e->snitches, key);
            brock__snitch_free(sn);
        }
    }
    return resync_all(e);
}

/* Applies the journal rows after s->last_seq that other connections wrote, each name once. */
static int journal_apply(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_JOURNAL_SINCE];
    struct strmap seen;
    int rc, n = 0, err = 0;

    strmap_init(&seen);
    sqlite3_bind_int64(st, 1, s->last_seq);
    while ((rc = step(s, st)) == SQLITE_ROW) {
        const char *kind = column_text(st, 0), *name = column_text(st, 1);
        char key[BROCK_HOST_MAX + 16];
        int r;

        if (sqlite3_column_int64(st, 2) == s->origin)
            continue;
        if (snprintf(key, sizeof(key), "%s %s", kind, name) >= (int)sizeof(key) ||
            strmap_get(&seen, key))
            continue;
        if (strmap_put(&seen, key, (void *)1) < 0) {
            err = brock__fail(e, BROCK_ENOMEM, "out of memory");
            goto out;
        }
        if (!strcmp(kind, "action"))
            r = reload_action(e, name);
        else if (!strcmp(kind, "snitch"))
            r = reload_snitch(e, name);
        else if (!strcmp(kind, "settings"))
            r = reload_settings(e);
        else if (!strcmp(kind, "reset"))
            r = reload_reset(e);
        else if (!strcmp(kind, "pages"))
            r = reload_pages(e);
        else
            r = 0; /* a kind from a later version: nothing here reads it */
        if (r < 0) {
            err = r;
            goto out;
        }
        n += r;
    }
    if (rc != SQLITE_DONE)
        err = store_fail(e, "read", "the journal");
out:
    sqlite3_reset(st);
    strmap_cleanup(&seen, NULL);
    return err < 0 ? err : n;
}

/* Reloads everything, for a reader whose journal rows were trimmed before it read them. */
static int resync_all(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    sqlite3_stmt *st = s->st[ST_ACTION_ALL];
    const struct snitch *last = NULL;
    const char *name;
    void *val;
    size_t it = 0;
    int rc, r, n = 0;

    while ((rc = step(s, st)) == SQLITE_ROW) {
        if ((r = action_apply(e, column_text(st, 0), st, 1)) < 0)
            goto nomem;
        n += r;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return store_fail(e, "read", "the actions");
    while (strmap_next(&e->actions, &it, &name, &val)) {
        if (((struct action_entry *)val)->dirty)
            continue;
        if ((r = reload_action(e, name)) < 0)
            return r;
        n += r;
    }
    st = s->st[ST_SNITCH_ALL];
    while ((rc = step(s, st)) == SQLITE_ROW) {
        const char *tracker = column_text(st, 0);

        if ((r = snitch_apply(e, tracker, st, 1, 1)) < 0)
            goto nomem;
        if (r > 0 && strmap_get(&e->snitches, tracker) != last) {
            last = strmap_get(&e->snitches, tracker);
            n++;
        }
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return store_fail(e, "read", "the snitch map");
    if ((r = reload_settings(e)) < 0)
        return r;
    return n + r;
nomem:
    sqlite3_reset(st);
    return brock__fail(e, BROCK_ENOMEM, "out of memory");
}

int brock__store_poll(struct brock_engine *e)
{
    struct brock__store *s = e->store;
    int64_t dv = 0, min = 0, max = 0;
    int n = 0;

    if (!s)
        return 0;
    /* The cheap test: data_version moves only when another connection commits. */
    if (query_int(s, s->st[ST_DATA_VERSION], 0, &dv) != 0)
        return store_fail(e, "check for changes to", "the state");
    if (dv == s->data_version)
        return 0;
    if (run(s, s->st[ST_BEGIN_READ]) != 0 || journal_range(s, &min, &max) != 0) {
        n = store_fail(e, "read", "the journal");
        goto out;
    }
    if (max > s->last_seq)
        n = min > s->last_seq + 1 ? resync_all(e) : journal_apply(e);
    if (n >= 0 && run(s, s->st[ST_COMMIT]) != 0)
        n = store_fail(e, "read", "the journal");
out:
    if (n < 0) {
        exec_sql(s, "ROLLBACK");
        return n;
    }
    s->last_seq = max;
    s->data_version = dv;
    return n;
}

void brock__store_close(struct brock_engine *e)
{
    if (!e || !e->store)
        return;
    store_free(e->store);
    e->store = NULL;
}
