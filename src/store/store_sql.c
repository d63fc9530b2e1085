/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The SQL of the SQLite store: its schema, the migrations from older versions, and the
 * statements store.c prepares. */
#include "store/store.h"

/*
 * Schema, version 6 (PRAGMA user_version; version 1 lacked page_view, day_count,
 * site_action and the client tables, version 2 day_count and what follows, version 3
 * site_action and the client tables, version 4 the client tables, version 5 the counts'
 * cleaned column; each is migrated):
 *
 *   action(domain PK, user_action TEXT, heuristic TEXT, dnt INT, next_update INT)
 *       one action_map entry; user_action and heuristic hold Privacy Badger's names ("" for
 *       none); a heuristic string brock does not know is kept as it is.
 *   snitch(tracker, site, seq, host, detail, kind INT, time_ms INT; PK(tracker, site))
 *       snitch_map: the sites a tracker base was seen on, seq ordering them within the tracker,
 *       with the evidence (request host, cookie name, enum brock_evidence_kind, Unix ms). A
 *       tracker learned live and forgotten to stay within the cap (bound.c) loses its rows
 *       here and in tracking, unjournaled: other processes keep theirs till their own cap.
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
 *       'clearurls', 'clearurls_time': ClearURLs' rules as `brock update` last fetched them,
 *       and when.
 *       'instance': a random name the database gets at its first write, kept by copies of it.
 *       'generation': counts the writes, one more at each; with 'instance' it tells a file
 *       copied back over brock.db from one that other processes wrote (store_watch.c).
 *   page_view(site, host, action TEXT, count INT, time_ms INT; PK(site, host))
 *       recent page views: the third-party hosts a site's pages requested, the action the
 *       last request got (Privacy Badger's name), how many requests, the last one's Unix ms.
 *   day_count(day INT, site, blocked INT, cookieblocked INT, allowed INT, learned INT,
 *             pages INT, cleaned INT; PK(day, site))
 *       daily counters: per day (days since 1970-01-01, UTC) and first party (its base
 *       domain; '' when unknown), the requests blocked, cookieblocked and allowed, the
 *       trackers learned there, the top-level pages opened and the URLs cleaned. A process adds what it
 *       counted to the row.
 *   client_page_view(client, site, host, action TEXT, count INT, time_ms INT;
 *                    PK(client, site, host))
 *   client_day_count(client, day INT, site, blocked INT, ... pages INT; PK(client, day, site))
 *       one client's own page views and daily counters (a proxy's client: the name the
 *       owner gave its address, or the address), kept as page_view and day_count keep
 *       everyone's, which count the client's too.
 *   site_action(site, domain, user_action TEXT; PK(site, domain))
 *       the user's choices for one site only: on the pages of site (a base domain) requests
 *       to domain and the names under it get user_action (Privacy Badger's name of a user
 *       action). A removed choice is a deleted row.
 *   journal(seq INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT, name TEXT, origin INT)
 *       one row per action domain written or deleted ('action'), per tracker whose snitch list
 *       grew ('snitch'), per settings write ('settings', name ''), per reset to the seed
 *       ('reset', name ''), per forgetting of page views ('pages', name ''), per client
 *       forgotten ('clients', name '': the client tables are read again) and per write of
 *       choices for one site ('site_action', name '': the table is read again whole, being
 *       small), so that other
 *       processes
 *       reload only those; origin is a random number per connection so a process skips its
 *       own rows. Only the last JOURNAL_KEEP rows are kept: a reader that fell further behind
 *       reloads everything.
 */

#define DAY_COUNT_SQL                                                                              \
    "CREATE TABLE day_count ("                                                                     \
    " day INTEGER NOT NULL, site TEXT NOT NULL,"                                                   \
    " blocked INTEGER NOT NULL DEFAULT 0, cookieblocked INTEGER NOT NULL DEFAULT 0,"               \
    " allowed INTEGER NOT NULL DEFAULT 0, learned INTEGER NOT NULL DEFAULT 0,"                     \
    " pages INTEGER NOT NULL DEFAULT 0,"                                                           \
    " PRIMARY KEY (day, site)) WITHOUT ROWID;"

/* Version 6's: the URLs cleaned each day (ClearURLs' rules). */
#define CLEANED_SQL                                                                                \
    "ALTER TABLE day_count ADD COLUMN cleaned INTEGER NOT NULL DEFAULT 0;"                         \
    "ALTER TABLE client_day_count ADD COLUMN cleaned INTEGER NOT NULL DEFAULT 0;"

#define CLIENT_VIEWS_SQL                                                                           \
    "CREATE TABLE client_page_view ("                                                              \
    " client TEXT NOT NULL, site TEXT NOT NULL, host TEXT NOT NULL, action TEXT NOT NULL,"         \
    " count INTEGER NOT NULL, time_ms INTEGER NOT NULL,"                                           \
    " PRIMARY KEY (client, site, host)) WITHOUT ROWID;"                                            \
    "CREATE TABLE client_day_count ("                                                              \
    " client TEXT NOT NULL, day INTEGER NOT NULL, site TEXT NOT NULL,"                             \
    " blocked INTEGER NOT NULL DEFAULT 0, cookieblocked INTEGER NOT NULL DEFAULT 0,"               \
    " allowed INTEGER NOT NULL DEFAULT 0, learned INTEGER NOT NULL DEFAULT 0,"                     \
    " pages INTEGER NOT NULL DEFAULT 0,"                                                           \
    " PRIMARY KEY (client, day, site)) WITHOUT ROWID;"

#define SITE_ACTION_SQL                                                                            \
    "CREATE TABLE site_action ("                                                                   \
    " site TEXT NOT NULL, domain TEXT NOT NULL, user_action TEXT NOT NULL,"                        \
    " PRIMARY KEY (site, domain)) WITHOUT ROWID;"

const char brock__store_schema_sql[] =
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
    " PRIMARY KEY (site, host)) WITHOUT ROWID;" DAY_COUNT_SQL SITE_ACTION_SQL CLIENT_VIEWS_SQL
        CLEANED_SQL "PRAGMA user_version = 6;";

/* From version 1: the page views are new; version 2's change follows. */
const char brock__store_migrate_v1_sql[] =
    "CREATE TABLE page_view ("
    " site TEXT NOT NULL, host TEXT NOT NULL, action TEXT NOT NULL,"
    " count INTEGER NOT NULL, time_ms INTEGER NOT NULL,"
    " PRIMARY KEY (site, host)) WITHOUT ROWID;";

/* From version 2: the daily counters are new; version 3's change follows. */
const char brock__store_migrate_v2_sql[] = DAY_COUNT_SQL;

/* From version 3: the choices for one site only are new; version 4's change follows. */
const char brock__store_migrate_v3_sql[] = SITE_ACTION_SQL;

/* From version 4: each client's own views are new; version 5's change follows. */
const char brock__store_migrate_v4_sql[] = CLIENT_VIEWS_SQL;

/* From version 5: the daily counts of URLs cleaned are new; nothing else changed. */
const char brock__store_migrate_v5_sql[] = CLEANED_SQL "PRAGMA user_version = 6;";

const char *const brock__store_stmt_sql[ST_COUNT] = {
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
    [ST_SNITCH_DEL] = "DELETE FROM snitch WHERE tracker = ?1",
    [ST_TRACKING_DEL] = "DELETE FROM tracking WHERE tracker = ?1",
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
    [ST_DAY_ADD] = "INSERT INTO day_count"
                   " (day, site, blocked, cookieblocked, allowed, learned, pages, cleaned)"
                   " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (day, site) DO UPDATE SET"
                   " blocked = blocked + excluded.blocked,"
                   " cookieblocked = cookieblocked + excluded.cookieblocked,"
                   " allowed = allowed + excluded.allowed, learned = learned + excluded.learned,"
                   " pages = pages + excluded.pages, cleaned = cleaned + excluded.cleaned",
    [ST_DAY_FORGET] = "DELETE FROM day_count WHERE day < ?1",
    [ST_DAY_ALL] = "SELECT day, site, blocked, cookieblocked, allowed, learned, pages, cleaned"
                   " FROM day_count",
    [ST_CLIENT_PAGE_PUT] = "INSERT INTO client_page_view"
                           " (client, site, host, action, count, time_ms)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (client, site, host)"
                           " DO UPDATE SET action = excluded.action, count = excluded.count,"
                           " time_ms = excluded.time_ms",
    [ST_CLIENT_PAGE_DEL_SITE] = "DELETE FROM client_page_view WHERE client = ?1 AND site = ?2",
    [ST_CLIENT_PAGE_DEL] = "DELETE FROM client_page_view WHERE client = ?1",
    [ST_CLIENT_PAGE_ALL] = "SELECT client, site, host, action, count, time_ms"
                           " FROM client_page_view",
    [ST_CLIENT_DAY_ADD] = "INSERT INTO client_day_count"
                          " (client, day, site, blocked, cookieblocked, allowed, learned, pages,"
                          " cleaned) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
                          " ON CONFLICT (client, day, site) DO UPDATE SET"
                          " blocked = blocked + excluded.blocked,"
                          " cookieblocked = cookieblocked + excluded.cookieblocked,"
                          " allowed = allowed + excluded.allowed,"
                          " learned = learned + excluded.learned, pages = pages + excluded.pages,"
                          " cleaned = cleaned + excluded.cleaned",
    [ST_CLIENT_DAY_FORGET] = "DELETE FROM client_day_count WHERE client = ?1 AND day < ?2",
    [ST_CLIENT_DAY_ALL] = "SELECT client, day, site, blocked, cookieblocked, allowed, learned,"
                          " pages, cleaned FROM client_day_count",
    [ST_SITE_ACTION_PUT] = "INSERT INTO site_action (site, domain, user_action) VALUES (?1, ?2, ?3)"
                           " ON CONFLICT (site, domain) DO UPDATE SET"
                           " user_action = excluded.user_action",
    [ST_SITE_ACTION_DEL] = "DELETE FROM site_action WHERE site = ?1 AND domain = ?2",
    [ST_SITE_ACTION_ALL] = "SELECT site, domain, user_action FROM site_action",
    [ST_INSTANCE_PUT] = "INSERT INTO meta (key, value) VALUES ('instance', ?1)"
                        " ON CONFLICT (key) DO NOTHING",
    [ST_GENERATION_BUMP] = "INSERT INTO meta (key, value) VALUES ('generation', 1)"
                           " ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1"
                           " RETURNING CAST(value AS INTEGER)",
};
