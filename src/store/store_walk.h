/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The store's one walk (store_walk.c), shared by its back ends: what memory marked is written
 * in one order through a back end's table of row writes, and rows read from a store come into
 * the maps through one step per kind of row, the back end supplying the rows. SQLite
 * (store_flush.c, store_load.c) and PostgreSQL (store_pg_sync.c, store_pg.c) each fill a
 * struct brock__store_walk_ops; the transactions, statements and batches stay theirs.
 */
#ifndef BROCK_STORE_STORE_WALK_H
#define BROCK_STORE_STORE_WALK_H

#include <stdint.h>

#include "store/store_api.h"

/* The size of a back end's record of meta 'seeded' (Unix ms as text, or "none"). */
#define BROCK__SEEDED_MAX 32

/* The tables a load reads whole, in the order it reads them. */
enum brock__store_table {
    BROCK__TABLE_ACTION,      /* domain, user_action, heuristic, dnt, next_update */
    BROCK__TABLE_SNITCH,      /* tracker, site, host, detail, kind, time_ms (in seq order) */
    BROCK__TABLE_TRACKING,    /* tracker, site, kinds (in the order written) */
    BROCK__TABLE_FP,          /* host, path (in the order written) */
    BROCK__TABLE_SITE_ACTION, /* site, domain, user_action */
    BROCK__TABLE_PAGE,        /* site, host, action, count, time_ms */
    BROCK__TABLE_DAY,         /* day, site, then the BROCK__DAILY_COUNT counts */
    BROCK__TABLE_CLIENT_PAGE, /* client, then as BROCK__TABLE_PAGE */
    BROCK__TABLE_CLIENT_DAY,  /* client, then as BROCK__TABLE_DAY */
    BROCK__TABLE_SETTING,     /* key, value (JSON text) */
    BROCK__TABLE_COUNT
};

/* One row a back end read, its columns reached through the back end's two readers. A back
 * end's own row begins with this and goes on with where the row is (its statement, or its
 * result and the row's number), which the readers find by casting r to it. */
struct brock__store_row {
    /* Column col as text, NULL for SQL NULL; valid until the next row is read. */
    const char *(*text)(const struct brock__store_row *r, int col);
    /* Column col as a number (0 for SQL NULL). */
    int64_t (*num)(const struct brock__store_row *r, int col);
};

/* Column col of r as text, "" for SQL NULL. */
static inline const char *brock__store_row_text(const struct brock__store_row *r, int col)
{
    const char *t = r->text(r, col);

    return t ? t : "";
}

/*
 * A back end's side of the walk. Each write puts one row (or deletes the rows named) in the
 * transaction under way, SQLite's by running a statement, PostgreSQL's by adding it to the
 * batch its thread will send. A write returns 0, or -1 when it failed (SQLite's words for it
 * kept in the store, PostgreSQL out of memory); the walk then calls fail(e, what, name), which
 * sets errmsg and returns the error. The strings are borrowed for the call.
 */
struct brock__store_walk_ops {
    int (*reset)(struct brock_engine *e); /* empties the learned tables (brock_reset()) */
    /* A journal row: kind of name changed, so that other processes read it again. */
    int (*journal)(struct brock_engine *e, const char *kind, const char *name);
    int (*action)(struct brock_engine *e, const struct action_entry *a); /* its dirty columns */
    int (*action_del)(struct brock_engine *e, const char *domain);
    /* One snitch site, detail its column (brock__store_detail_text(), NULL for none): a site
     * another process recorded first keeps its row. 1 when the row may be new, else 0 or -1. */
    int (*snitch)(struct brock_engine *e, const char *tracker, const struct snitch_site *ss,
                  const char *detail);
    int (*snitch_del)(struct brock_engine *e, const char *tracker);   /* every site of tracker */
    int (*tracking_del)(struct brock_engine *e, const char *tracker); /* every row of tracker */
    int (*tracking)(struct brock_engine *e, const char *tracker, const char *site,
                    unsigned kinds); /* kinds OR-ed into the row's */
    int (*fp)(struct brock_engine *e, const char *host, const char *path);
    /* One choice for one site; user NULL: deleted. */
    int (*site_action)(struct brock_engine *e, const char *site, const char *domain,
                       const char *user);
    int (*settings_clear)(struct brock_engine *e);
    int (*setting)(struct brock_engine *e, const char *key, const char *json_text);
    int (*meta)(struct brock_engine *e, const char *key, const char *value);
    /* One page view, everyone's (client "") or a client's; host NULL: every row of site
     * deleted; site NULL too: every row of the client. */
    int (*page)(struct brock_engine *e, const char *client, const char *site, const char *host,
                const char *action, int64_t count, int64_t time_ms);
    /* A row's new counts added to the store's, everyone's (client "") or a client's; site
     * NULL: the days before day deleted. */
    int (*day)(struct brock_engine *e, const char *client, int64_t day, const char *site,
               const uint64_t add[BROCK__DAILY_COUNT]);
    /* May be NULL: the journal rows for page views and daily counts written (pages, days:
     * how many rows of each the flush wrote; brock__views_clients_forgot() tells of clients
     * forgotten), after the counts and before 'seeded'. */
    int (*views)(struct brock_engine *e, unsigned pages, unsigned days);
    /* May be NULL: the back end's record of meta 'seeded' (BROCK__SEEDED_MAX bytes), which a
     * flush keeps when memory says the seed was loaded and updates once it is written. */
    char *(*seeded)(struct brock_engine *e);
    int (*fail)(struct brock_engine *e, const char *what, const char *name);

    /* Reading: calls apply (passing arg on) for every row of table in the order the table
     * keeps them, until apply returns a negative value. Returns 0, that value, or BROCK_ESTORE
     * with errmsg set, naming the table as what. */
    int (*rows)(struct brock_engine *e, int table, const char *what,
                int (*apply)(struct brock_engine *e, const struct brock__store_row *r, void *arg),
                void *arg);
};

/* Writes every change memory marked through o, in the one order of a flush: the reset, the
 * deletions, the forgotten trackers, the actions, snitch sites, tracking rows, fingerprinting
 * scripts, choices for one site, settings, Privacy Badger's configuration, page views, daily
 * counts, their journal rows and 'seeded'. Clears no mark. Returns 0 or a negative error. */
int brock__store_walk_write(struct brock_engine *e,
                            const struct brock__store_walk_ops *o) BROCK_NODISCARD_INTERNAL;

/* Reads every table into the empty maps through o->rows, in enum brock__store_table's order.
 * Returns 0, BROCK_ESTORE or BROCK_ENOMEM with errmsg set. */
int brock__store_walk_read(struct brock_engine *e,
                           const struct brock__store_walk_ops *o) BROCK_NODISCARD_INTERNAL;

/* Reads one table whole into memory as a load does (the page views: under memory's unwritten
 * ones; the daily counts: the store's under memory's unwritten ones). Returns as above. */
int brock__store_read_table(struct brock_engine *e, const struct brock__store_walk_ops *o,
                            int table) BROCK_NODISCARD_INTERNAL;

/* Reads every setting row into e->settings (keys absent from the table keep their value). */
int brock__store_read_settings(struct brock_engine *e,
                               const struct brock__store_walk_ops *o) BROCK_NODISCARD_INTERNAL;

/* Reads every choice for one site only again (brock__site_actions_reload_begin()'s rules).
 * Returns how many changed, or a negative error. */
int brock__store_read_site_actions(struct brock_engine *e,
                                   const struct brock__store_walk_ops *o) BROCK_NODISCARD_INTERNAL;

/* brock__store_action_apply() for domain's row r, whose user_action, heuristic, dnt and
 * next_update are columns col on. */
int brock__store_row_action(struct brock_engine *e, const char *domain,
                            const struct brock__store_row *r, int col) BROCK_NODISCARD_INTERNAL;

/* brock__store_snitch_apply() for tracker's row r, whose site, host, detail, kind and time_ms
 * are columns col on. */
int brock__store_row_snitch(struct brock_engine *e, const char *tracker,
                            const struct brock__store_row *r, int col,
                            int check) BROCK_NODISCARD_INTERNAL;

#endif
