/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * brock's state in a PostgreSQL database, shared by every instance pointed at it: the
 * connection (a libpq connection string that never holds a password), the schema (created on
 * first use, versioned, migrated forward in one transaction), the statements, loading the
 * maps, closing, and the back end's table. Writing a batch and picking up what other instances
 * wrote is store_pg_sync.c.
 */
#include "store/store_pg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "util/alloc.h"

/*
 * Schema, version 4 (the meta row 'schema_version'; version 2 added brock_day_count, version 3
 * brock_site_action, version 4 brock_client_page_view and brock_client_day_count, version 5
 * the counts' cleaned column). The tables are SQLite's (store.c), named brock_* so that they can share
 * a database with others:
 *
 *   brock_action, brock_snitch, brock_setting, brock_meta, brock_page_view, brock_day_count,
 *   brock_site_action, brock_client_page_view, brock_client_day_count   as in SQLite;
 *   brock_tracking, brock_fp_script   with ord (bigserial) keeping the order rows came in,
 *       which SQLite's rowid keeps;
 *   brock_journal(seq bigserial, kind, name, origin)   the change sequence: one row per name
 *       written, as in SQLite. Writers take one advisory lock per transaction, so that
 *       sequence numbers are handed out in the order transactions commit and a reader that
 *       read up to seq N never sees a row below N appear later. Each write also sends
 *       NOTIFY brock_journal (payload: the writer's origin), delivered at commit, so that the
 *       other instances know there is something to read without asking.
 */
#define SCHEMA_VERSION 5

/* pg_advisory_xact_lock()'s key for writers: "brock" in ASCII. */
#define WRITE_LOCK_KEY "422827204459"

static const char meta_sql[] =
    "CREATE TABLE IF NOT EXISTS brock_meta (key text PRIMARY KEY, value text)";

static const char schema_v1_sql[] =
    "CREATE TABLE brock_action ("
    " domain text PRIMARY KEY,"
    " user_action text NOT NULL DEFAULT '',"
    " heuristic text NOT NULL DEFAULT '',"
    " dnt integer NOT NULL DEFAULT 0,"
    " next_update bigint NOT NULL DEFAULT 0);"
    "CREATE TABLE brock_snitch ("
    " tracker text NOT NULL, site text NOT NULL, seq bigint NOT NULL,"
    " host text, detail text,"
    " kind integer NOT NULL DEFAULT 0, time_ms bigint NOT NULL DEFAULT 0,"
    " PRIMARY KEY (tracker, site));"
    "CREATE INDEX brock_snitch_order ON brock_snitch (tracker, seq);"
    "CREATE TABLE brock_tracking ("
    " tracker text NOT NULL, site text NOT NULL, kinds integer NOT NULL,"
    " ord bigserial, PRIMARY KEY (tracker, site));"
    "CREATE TABLE brock_fp_script ("
    " host text NOT NULL, path text NOT NULL, ord bigserial, PRIMARY KEY (host, path));"
    "CREATE TABLE brock_setting (key text PRIMARY KEY, value text NOT NULL);"
    "CREATE TABLE brock_journal ("
    " seq bigserial PRIMARY KEY,"
    " kind text NOT NULL, name text NOT NULL, origin bigint NOT NULL DEFAULT 0);"
    "CREATE TABLE brock_page_view ("
    " site text NOT NULL, host text NOT NULL, action text NOT NULL,"
    " count bigint NOT NULL, time_ms bigint NOT NULL,"
    " PRIMARY KEY (site, host));";

static const char schema_v2_sql[] =
    "CREATE TABLE brock_day_count ("
    " day bigint NOT NULL, site text NOT NULL,"
    " blocked bigint NOT NULL DEFAULT 0, cookieblocked bigint NOT NULL DEFAULT 0,"
    " allowed bigint NOT NULL DEFAULT 0, learned bigint NOT NULL DEFAULT 0,"
    " pages bigint NOT NULL DEFAULT 0,"
    " PRIMARY KEY (day, site));";

static const char schema_v3_sql[] =
    "CREATE TABLE brock_site_action ("
    " site text NOT NULL, domain text NOT NULL, user_action text NOT NULL,"
    " PRIMARY KEY (site, domain));";

static const char schema_v4_sql[] =
    "CREATE TABLE brock_client_page_view ("
    " client text NOT NULL, site text NOT NULL, host text NOT NULL, action text NOT NULL,"
    " count bigint NOT NULL, time_ms bigint NOT NULL,"
    " PRIMARY KEY (client, site, host));"
    "CREATE TABLE brock_client_day_count ("
    " client text NOT NULL, day bigint NOT NULL, site text NOT NULL,"
    " blocked bigint NOT NULL DEFAULT 0, cookieblocked bigint NOT NULL DEFAULT 0,"
    " allowed bigint NOT NULL DEFAULT 0, learned bigint NOT NULL DEFAULT 0,"
    " pages bigint NOT NULL DEFAULT 0,"
    " PRIMARY KEY (client, day, site));";

static const char schema_v5_sql[] =
    "ALTER TABLE brock_day_count ADD COLUMN cleaned bigint NOT NULL DEFAULT 0;"
    "ALTER TABLE brock_client_day_count ADD COLUMN cleaned bigint NOT NULL DEFAULT 0;";

/* Each version's step from the one before: migrations[v] brings version v to v + 1, in the
 * same transaction as the rest. Version 0 is a database without brock's tables. */
static const char *const migrations[SCHEMA_VERSION] = {
    [0] = schema_v1_sql, [1] = schema_v2_sql, [2] = schema_v3_sql,
    [3] = schema_v4_sql, [4] = schema_v5_sql,
};

static const char *const stmt_sql[PG_COUNT] = {
    /* $6..$8 say which columns this instance changed: only those overwrite an existing row,
     * so two instances changing different columns of one domain both win. */
    [PG_ACTION_PUT] = "INSERT INTO brock_action (domain, user_action, heuristic, dnt, next_update)"
                      " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (domain) DO UPDATE SET"
                      " user_action = CASE WHEN $6::boolean THEN excluded.user_action"
                      " ELSE brock_action.user_action END,"
                      " heuristic = CASE WHEN $7::boolean THEN excluded.heuristic"
                      " ELSE brock_action.heuristic END,"
                      " dnt = CASE WHEN $8::boolean THEN excluded.dnt ELSE brock_action.dnt END,"
                      " next_update = CASE WHEN $8::boolean THEN excluded.next_update"
                      " ELSE brock_action.next_update END",
    [PG_ACTION_DEL] = "DELETE FROM brock_action WHERE domain = $1",
    [PG_ACTION_GET] = "SELECT user_action, heuristic, dnt, next_update FROM brock_action"
                      " WHERE domain = $1",
    [PG_ACTION_ALL] = "SELECT domain, user_action, heuristic, dnt, next_update FROM brock_action",
    /* A site another instance already recorded keeps its place and evidence. */
    [PG_SNITCH_PUT] = "INSERT INTO brock_snitch (tracker, site, seq, host, detail, kind, time_ms)"
                      " VALUES ($1, $2, (SELECT coalesce(max(seq), -1) + 1 FROM brock_snitch"
                      " WHERE tracker = $1), $3, $4, $5, $6) ON CONFLICT DO NOTHING",
    [PG_SNITCH_GET] = "SELECT site, host, detail, kind, time_ms FROM brock_snitch"
                      " WHERE tracker = $1 ORDER BY seq",
    [PG_SNITCH_ALL] = "SELECT tracker, site, host, detail, kind, time_ms FROM brock_snitch"
                      " ORDER BY tracker, seq",
    [PG_TRACKING_PUT] = "INSERT INTO brock_tracking (tracker, site, kinds) VALUES ($1, $2, $3)"
                        " ON CONFLICT (tracker, site) DO UPDATE"
                        " SET kinds = brock_tracking.kinds | excluded.kinds",
    [PG_TRACKING_ALL] = "SELECT tracker, site, kinds FROM brock_tracking ORDER BY ord",
    [PG_SNITCH_DEL] = "DELETE FROM brock_snitch WHERE tracker = $1",
    [PG_TRACKING_DEL] = "DELETE FROM brock_tracking WHERE tracker = $1",
    [PG_FP_PUT] = "INSERT INTO brock_fp_script (host, path) VALUES ($1, $2)"
                  " ON CONFLICT DO NOTHING",
    [PG_FP_ALL] = "SELECT host, path FROM brock_fp_script ORDER BY ord",
    [PG_SETTING_CLEAR] = "DELETE FROM brock_setting",
    [PG_SETTING_PUT] = "INSERT INTO brock_setting (key, value) VALUES ($1, $2)",
    [PG_SETTING_ALL] = "SELECT key, value FROM brock_setting",
    [PG_META_PUT] = "INSERT INTO brock_meta (key, value) VALUES ($1, $2)"
                    " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    [PG_META_GET] = "SELECT value FROM brock_meta WHERE key = $1",
    [PG_JOURNAL_ADD] = "INSERT INTO brock_journal (kind, name, origin) VALUES ($1, $2, $3)",
    [PG_JOURNAL_TRIM] = "DELETE FROM brock_journal"
                        " WHERE seq <= (SELECT max(seq) FROM brock_journal) - $1::bigint",
    [PG_JOURNAL_RANGE] = "SELECT coalesce(min(seq), 0), coalesce(max(seq), 0) FROM brock_journal",
    [PG_JOURNAL_SINCE] = "SELECT kind, name, origin FROM brock_journal WHERE seq > $1"
                         " ORDER BY seq",
    [PG_PAGE_PUT] = "INSERT INTO brock_page_view (site, host, action, count, time_ms)"
                    " VALUES ($1, $2, $3, $4, $5) ON CONFLICT (site, host) DO UPDATE SET"
                    " action = excluded.action, count = excluded.count,"
                    " time_ms = excluded.time_ms",
    [PG_PAGE_DEL_SITE] = "DELETE FROM brock_page_view WHERE site = $1",
    [PG_PAGE_ALL] = "SELECT site, host, action, count, time_ms FROM brock_page_view",
    /* Each instance adds what it counted. */
    [PG_DAY_ADD] = "INSERT INTO brock_day_count"
                   " (day, site, blocked, cookieblocked, allowed, learned, pages, cleaned)"
                   " VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (day, site) DO UPDATE SET"
                   " blocked = brock_day_count.blocked + excluded.blocked,"
                   " cookieblocked = brock_day_count.cookieblocked + excluded.cookieblocked,"
                   " allowed = brock_day_count.allowed + excluded.allowed,"
                   " learned = brock_day_count.learned + excluded.learned,"
                   " pages = brock_day_count.pages + excluded.pages,"
                   " cleaned = brock_day_count.cleaned + excluded.cleaned",
    [PG_DAY_FORGET] = "DELETE FROM brock_day_count WHERE day < $1",
    [PG_CLIENT_PAGE_PUT] = "INSERT INTO brock_client_page_view"
                           " (client, site, host, action, count, time_ms)"
                           " VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (client, site, host)"
                           " DO UPDATE SET action = excluded.action, count = excluded.count,"
                           " time_ms = excluded.time_ms",
    [PG_CLIENT_PAGE_DEL_SITE] = "DELETE FROM brock_client_page_view"
                                " WHERE client = $1 AND site = $2",
    [PG_CLIENT_PAGE_DEL] = "DELETE FROM brock_client_page_view WHERE client = $1",
    [PG_CLIENT_PAGE_ALL] = "SELECT client, site, host, action, count, time_ms"
                           " FROM brock_client_page_view",
    [PG_CLIENT_DAY_ADD] =
        "INSERT INTO brock_client_day_count"
        " (client, day, site, blocked, cookieblocked, allowed, learned, pages, cleaned)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (client, day, site) DO UPDATE SET"
        " blocked = brock_client_day_count.blocked + excluded.blocked,"
        " cookieblocked = brock_client_day_count.cookieblocked + excluded.cookieblocked,"
        " allowed = brock_client_day_count.allowed + excluded.allowed,"
        " learned = brock_client_day_count.learned + excluded.learned,"
        " pages = brock_client_day_count.pages + excluded.pages,"
        " cleaned = brock_client_day_count.cleaned + excluded.cleaned",
    [PG_CLIENT_DAY_FORGET] = "DELETE FROM brock_client_day_count WHERE client = $1 AND day < $2",
    [PG_CLIENT_DAY_ALL] = "SELECT client, day, site, blocked, cookieblocked, allowed, learned,"
                          " pages, cleaned FROM brock_client_day_count",
    [PG_DAY_ALL] = "SELECT day, site, blocked, cookieblocked, allowed, learned, pages, cleaned"
                   " FROM brock_day_count",
    [PG_SITE_ACTION_PUT] = "INSERT INTO brock_site_action (site, domain, user_action)"
                           " VALUES ($1, $2, $3) ON CONFLICT (site, domain) DO UPDATE SET"
                           " user_action = excluded.user_action",
    [PG_SITE_ACTION_DEL] = "DELETE FROM brock_site_action WHERE site = $1 AND domain = $2",
    [PG_SITE_ACTION_ALL] = "SELECT site, domain, user_action FROM brock_site_action",
    [PG_WRITE_LOCK] = "SELECT pg_advisory_xact_lock(" WRITE_LOCK_KEY ")",
    [PG_NOTIFY] = "SELECT pg_notify('" PG_CHANNEL "', $1)",
};

static const struct brock__store_ops pg_ops;

/* ---- statements ---- */

void brock__pg_note_err(struct brock__pg *p, const char *msg)
{
    size_t n;

    snprintf(p->pgerr, sizeof(p->pgerr), "%s", msg && *msg ? msg : "unknown error");
    p->sqlstate[0] = '\0';
    n = strlen(p->pgerr);
    while (n && (p->pgerr[n - 1] == '\n' || p->pgerr[n - 1] == ' '))
        p->pgerr[--n] = '\0';
    for (char *c = p->pgerr; *c; c++)
        if (*c == '\n' || *c == '\t')
            *c = ' ';
}

void brock__pg_note_state(struct brock__pg *p, const PGresult *r)
{
    const char *st = r ? brock__pq->PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;

    snprintf(p->sqlstate, sizeof(p->sqlstate), "%s", st && strlen(st) == 5 ? st : "");
}

int brock__pg_refused_for_good(const struct brock__pg *p)
{
    static const char *const classes[] = {"22", "23", "54"};

    if (!p->conn || brock__pq->PQstatus(p->conn) != CONNECTION_OK || !p->sqlstate[0])
        return 0;
    for (size_t i = 0; i < sizeof(classes) / sizeof(*classes); i++)
        if (!strncmp(p->sqlstate, classes[i], 2))
            return 1;
    return 0;
}

static int result_ok(struct brock__pg *p, PGresult *r)
{
    ExecStatusType st = r ? brock__pq->PQresultStatus(r) : PGRES_FATAL_ERROR;

    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return 1;
    brock__pg_note_err(p,
                       r ? brock__pq->PQresultErrorMessage(r) : brock__pq->PQerrorMessage(p->conn));
    brock__pg_note_state(p, r);
    return 0;
}

PGresult *brock__pg_run(struct brock__pg *p, int id, int n, const char *const *vals)
{
    char name[32];
    PGresult *r;

    snprintf(name, sizeof(name), "brock_%d", id);
    r = brock__pq->PQexecPrepared(p->conn, name, n, vals, NULL, NULL, 0);
    if (result_ok(p, r))
        return r;
    brock__pq->PQclear(r);
    return NULL;
}

int brock__pg_exec(struct brock__pg *p, const char *sql)
{
    PGresult *r = brock__pq->PQexec(p->conn, sql);
    int ok = result_ok(p, r);

    brock__pq->PQclear(r);
    return ok ? 0 : -1;
}

void brock__pg_rollback(struct brock__pg *p)
{
    if (p->conn && brock__pq->PQtransactionStatus(p->conn) != PQTRANS_IDLE)
        brock__pq->PQclear(brock__pq->PQexec(p->conn, "ROLLBACK"));
}

int brock__pg_fail(struct brock_engine *e, const char *what, const char *name)
{
    struct brock__pg *p = e->store;

    return brock__fail(e, BROCK_ESTORE, "%s: cannot %s%s%s: %s", p->where, what, name ? " " : "",
                       name ? name : "", p->pgerr);
}

int64_t brock__pg_int(const PGresult *r, int row, int col)
{
    return brock__pq->PQgetisnull(r, row, col)
               ? 0
               : strtoll(brock__pq->PQgetvalue(r, row, col), NULL, 10);
}

int brock__pg_journal_range(struct brock__pg *p, int64_t *min, int64_t *max)
{
    PGresult *r = brock__pg_run(p, PG_JOURNAL_RANGE, 0, NULL);

    if (!r)
        return -1;
    *min = brock__pg_int(r, 0, 0);
    *max = brock__pg_int(r, 0, 1);
    brock__pq->PQclear(r);
    return 0;
}

/* ---- connecting ---- */

/* A connection string is parsed (not used) to refuse one that carries a password: a command
 * line is seen by every user of the machine (ps) and kept in shell histories. */
static int conninfo_check(struct brock_engine *e, const char *conninfo)
{
    char *err = NULL;
    PQconninfoOption *opts = brock__pq->PQconninfoParse(conninfo, &err);
    int rc = 0;

    if (!opts) {
        rc = brock__fail(e, BROCK_EINVAL, "--store '%s' is not a PostgreSQL connection string: %s",
                         conninfo, err ? err : "out of memory");
        brock__pq->PQfreemem(err);
        return rc;
    }
    for (const PQconninfoOption *o = opts; o->keyword; o++)
        if (!strcmp(o->keyword, "password") && o->val && o->val[0])
            rc = brock__fail(e, BROCK_EINVAL,
                             "the --store connection string holds a password; brock refuses "
                             "it, as a command line is visible to other users: put it in "
                             "~/.pgpass, a service file (service=NAME) or PGPASSWORD");
    brock__pq->PQconninfoFree(opts);
    return rc;
}

/* The server's notices (a table that already exists) are not the library's to print. */
static void on_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* A database that does not answer must not hold brock's start, nor the store thread, for
 * long: libpq waits for ever by default. The connection string may set its own. */
#define CONNECT_TIMEOUT "5"

static int pg_connect(struct brock_engine *e, struct brock__pg *p, const char *conninfo)
{
    static const char *const keys[] = {"connect_timeout", "dbname", "fallback_application_name",
                                       NULL};
    const char *const vals[] = {CONNECT_TIMEOUT, conninfo, "brock", NULL};

    p->conn = brock__pq->PQconnectdbParams(keys, vals, 1);
    if (!p->conn)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if (brock__pq->PQstatus(p->conn) != CONNECTION_OK) {
        brock__pg_note_err(p, brock__pq->PQerrorMessage(p->conn));
        return brock__fail(e, BROCK_ESTORE,
                           "cannot connect to the PostgreSQL database (%s): %s; brock does not "
                           "start without the state it shares: start the database, or check "
                           "the connection string",
                           conninfo, p->pgerr);
    }
    brock__pq->PQsetNoticeProcessor(p->conn, on_notice, NULL);
    snprintf(p->where, sizeof(p->where), "the PostgreSQL database %s on %s port %s",
             brock__pq->PQdb(p->conn), brock__pq->PQhost(p->conn), brock__pq->PQport(p->conn));
    if (getrandom(&p->origin, sizeof(p->origin), GRND_NONBLOCK) != (ssize_t)sizeof(p->origin))
        p->origin = (int64_t)(uintptr_t)p ^ (int64_t)getpid();
    return 0;
}

/* ---- the schema ---- */

/* The schema version the database says, 0 when it has no brock tables. With create, the meta
 * table is made first (the caller's transaction). */
static int schema_version(struct brock_engine *e, int create, int64_t *version)
{
    struct brock__pg *p = e->store;
    PGresult *r;

    *version = 0;
    if (create && brock__pg_exec(p, meta_sql) < 0)
        return brock__pg_fail(e, "create", "brock's tables");
    r = brock__pq->PQexec(p->conn, "SELECT to_regclass('brock_meta') IS NOT NULL");
    if (!result_ok(p, r)) {
        brock__pq->PQclear(r);
        return brock__pg_fail(e, "read", "the schema version");
    }
    if (strcmp(brock__pq->PQgetvalue(r, 0, 0), "t") != 0) {
        brock__pq->PQclear(r);
        return 0;
    }
    brock__pq->PQclear(r);
    r = brock__pq->PQexec(p->conn, "SELECT value FROM brock_meta WHERE key = 'schema_version'");
    if (!result_ok(p, r)) {
        brock__pq->PQclear(r);
        return brock__pg_fail(e, "read", "the schema version");
    }
    if (brock__pq->PQntuples(r) > 0)
        *version = brock__pg_int(r, 0, 0);
    brock__pq->PQclear(r);
    return 0;
}

static int schema_newer(struct brock_engine *e, int64_t version)
{
    struct brock__pg *p = e->store;

    return brock__fail(e, BROCK_ESTORE,
                       "%s has brock's schema version %lld, newer than this brock knows (%d); "
                       "brock did not change it - use a newer brock",
                       p->where, (long long)version, SCHEMA_VERSION);
}

/* Creates the tables, or brings them up to date, in one transaction under the writers' lock,
 * so that instances starting together do it once. */
static int schema_setup(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    char sql[160];
    int64_t version = 0;
    int rc;

    if (brock__pg_exec(p, "BEGIN") < 0 ||
        brock__pg_exec(p, "SELECT pg_advisory_xact_lock(" WRITE_LOCK_KEY ")") < 0) {
        rc = brock__pg_fail(e, "create", "brock's tables");
        goto fail;
    }
    if ((rc = schema_version(e, 1, &version)) < 0)
        goto fail;
    if (version > SCHEMA_VERSION) {
        rc = schema_newer(e, version);
        goto fail;
    }
    for (int64_t v = version; v < SCHEMA_VERSION; v++) {
        if (brock__pg_exec(p, migrations[v]) < 0) {
            rc = brock__pg_fail(e, "create", "brock's tables");
            goto fail;
        }
    }
    snprintf(sql, sizeof(sql),
             "INSERT INTO brock_meta VALUES ('schema_version', '%d')"
             " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
             SCHEMA_VERSION);
    if (brock__pg_exec(p, sql) < 0 || brock__pg_exec(p, "COMMIT") < 0) {
        rc = brock__pg_fail(e, "create", "brock's tables");
        goto fail;
    }
    return 0;
fail:
    brock__pg_rollback(p);
    return rc;
}

/* Only to read: a database without brock's tables is a new state, with no store kept (1). */
static int schema_read_only(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    int64_t version = 0;
    int rc;

    if ((rc = schema_version(e, 0, &version)) < 0)
        return rc;
    if (version == 0)
        return 1;
    if (version > SCHEMA_VERSION)
        return schema_newer(e, version);
    if (version < SCHEMA_VERSION)
        return brock__fail(e, BROCK_ESTORE,
                           "%s has brock's schema version %lld; a command that only reads "
                           "cannot bring it up to date: run one that writes first",
                           p->where, (long long)version);
    return 0;
}

int brock__pg_session(struct brock__pg *p, int listen)
{
    for (int i = 0; i < PG_COUNT; i++) {
        char name[32];
        PGresult *r;
        int ok;

        snprintf(name, sizeof(name), "brock_%d", i);
        r = brock__pq->PQprepare(p->conn, name, stmt_sql[i], 0, NULL);
        ok = result_ok(p, r);
        brock__pq->PQclear(r);
        if (!ok)
            return -1;
    }
    /* Listening before the load: a write committed after the load's snapshot is then
     * always announced. */
    return listen ? brock__pg_exec(p, "LISTEN " PG_CHANNEL) : 0;
}

/* Reads 'seeded': absent, the state is new. */
static int read_seeded(struct brock_engine *e, int *fresh)
{
    struct brock__pg *p = e->store;
    const char *key = "seeded";
    PGresult *r = brock__pg_run(p, PG_META_GET, 1, &key);

    if (!r)
        return brock__pg_fail(e, "read", "the state's meta data");
    *fresh = brock__pq->PQntuples(r) == 0;
    brock__pq->PQclear(r);
    return 0;
}

static void pg_free(struct brock__pg *p)
{
    if (!p)
        return;
    brock__pg_bg_stop(p);
    brock__pg_batch_free(p->batch);
    brock__pq->PQfinish(p->conn);
    mem_free(p);
}

int brock__pg_open(struct brock_engine *e, const char *conninfo, int *fresh)
{
    char why[512];
    struct brock__pg *p;
    int rc;

    *fresh = 0;
    e->readonly_why[0] = '\0';
    /* libpq itself first: without it nothing is touched. */
    if (!brock__pq_load(why, sizeof(why)))
        return brock__fail(e, BROCK_ESTORE, "%s", why);
    if ((rc = conninfo_check(e, conninfo)) < 0)
        return rc;
    p = mem_calloc(1, sizeof(*p));
    if (!p)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    e->store = p;
    e->store_ops = &pg_ops;
    if ((rc = pg_connect(e, p, conninfo)) < 0)
        goto fail;
    rc = e->read_only ? schema_read_only(e) : schema_setup(e);
    if (rc == 1) {
        *fresh = 1;
        e->store = NULL;
        pg_free(p);
        return 0;
    }
    if (rc < 0)
        goto fail;
    if (brock__pg_session(p, !e->read_only) < 0) {
        rc = brock__pg_fail(e, "prepare the statements for", "brock's tables");
        goto fail;
    }
    if ((rc = read_seeded(e, fresh)) < 0)
        goto fail;
    return 0;
fail:
    e->store = NULL;
    pg_free(p);
    return rc;
}

/* ---- rows of results, and loading ---- */

/* NULL for SQL NULL, where libpq says "". */
static const char *row_text(const struct brock__store_row *r, int col)
{
    const struct brock__pg_row *row = (const struct brock__pg_row *)r;

    return brock__pq->PQgetisnull(row->res, row->i, col)
               ? NULL
               : brock__pq->PQgetvalue(row->res, row->i, col);
}

static int64_t row_num(const struct brock__store_row *r, int col)
{
    const struct brock__pg_row *row = (const struct brock__pg_row *)r;

    return brock__pg_int(row->res, row->i, col);
}

void brock__pg_row_init(struct brock__pg_row *row, const PGresult *res, int i)
{
    row->r.text = row_text;
    row->r.num = row_num;
    row->res = res;
    row->i = i;
}

int brock__pg_rows(struct brock_engine *e, int table, const char *what,
                   int (*apply)(struct brock_engine *e, const struct brock__store_row *r,
                                void *arg),
                   void *arg)
{
    static const int stmts[BROCK__TABLE_COUNT] = {
        [BROCK__TABLE_ACTION] = PG_ACTION_ALL,
        [BROCK__TABLE_SNITCH] = PG_SNITCH_ALL,
        [BROCK__TABLE_TRACKING] = PG_TRACKING_ALL,
        [BROCK__TABLE_FP] = PG_FP_ALL,
        [BROCK__TABLE_SITE_ACTION] = PG_SITE_ACTION_ALL,
        [BROCK__TABLE_PAGE] = PG_PAGE_ALL,
        [BROCK__TABLE_DAY] = PG_DAY_ALL,
        [BROCK__TABLE_CLIENT_PAGE] = PG_CLIENT_PAGE_ALL,
        [BROCK__TABLE_CLIENT_DAY] = PG_CLIENT_DAY_ALL,
        [BROCK__TABLE_SETTING] = PG_SETTING_ALL,
    };
    struct brock__pg *p = e->store;
    const PGresult *r = p->applying;
    PGresult *mine = NULL;
    struct brock__pg_row row;
    int rc = 0;

    if (!r && !(r = mine = brock__pg_run(p, stmts[table], 0, NULL)))
        return brock__pg_fail(e, "read", what);
    for (int i = 0, n = brock__pq->PQntuples(r); i < n && rc >= 0; i++) {
        brock__pg_row_init(&row, r, i);
        rc = apply(e, &row.r, arg);
    }
    if (mine)
        brock__pq->PQclear(mine);
    return rc < 0 ? rc : 0;
}

static int pg_load(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    int64_t min = 0, max = 0;
    int rc;

    /* One snapshot: the journal's end and the rows it covers agree. */
    if (brock__pg_exec(p, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") < 0 ||
        brock__pg_journal_range(p, &min, &max) < 0) {
        rc = brock__pg_fail(e, "read", "the state");
        goto fail;
    }
    if ((rc = brock__store_walk_read(e, &brock__pg_walk)) < 0)
        goto fail;
    if (brock__pg_exec(p, "COMMIT") < 0) {
        rc = brock__pg_fail(e, "read", "the state");
        goto fail;
    }
    p->last_seq = max;
    brock__settings_changed(e);
    return 0;
fail:
    brock__pg_rollback(p);
    return rc;
}

static int pg_meta_get(struct brock_engine *e, const char *key, char **out)
{
    struct brock__pg *p = e->store;
    PGresult *r;

    *out = NULL;
    /* The connection is the store thread's once it runs (only opening reads meta rows). */
    if (p->bg)
        return brock__fail(e, BROCK_ESTORE, "%s: the meta data is read only at the open", p->where);
    r = brock__pg_run(p, PG_META_GET, 1, &key);
    if (!r)
        return brock__pg_fail(e, "read the state's meta data", key);
    if (brock__pq->PQntuples(r) > 0 && !brock__pq->PQgetisnull(r, 0, 0)) {
        *out = mem_strdup(brock__pq->PQgetvalue(r, 0, 0));
        brock__pq->PQclear(r);
        return *out ? 0 : brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    brock__pq->PQclear(r);
    return 0;
}

static const char *pg_where(const struct brock_engine *e)
{
    const struct brock__pg *p = e->store;

    return p->where;
}

static int pg_wait(struct brock_engine *e, int timeout_ms)
{
    const struct brock__pg *p = e->store;

    return p->bg ? brock__pg_bg_wait(e, timeout_ms) : 0;
}

static void pg_close(struct brock_engine *e)
{
    pg_free(e->store);
    e->store = NULL;
}

/* ---- the back end's table ---- */

static const struct brock__store_ops pg_ops = {
    .name = "postgresql",
    .load = pg_load,
    .flush = brock__pg_flush,
    .poll = brock__pg_poll,
    .check = NULL,
    .meta_get = pg_meta_get,
    .where = pg_where,
    .close = pg_close,
    .discard = pg_close,
    .background = brock__pg_bg_start,
    .wait = pg_wait,
    .health = brock__pg_bg_health,
};
