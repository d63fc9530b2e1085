/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Daily counters: per day (UTC) and first party, the requests brock blocked, cookieblocked and
 * allowed, the trackers it learned there and the URLs it cleaned, for `brock stats` and the dashboard's chart.
 * Counted in memory, added to the store's rows at brock_sync(), forgotten with the page views.
 * Everyone's, and each client's own as the page views keep them (pages.c).
 */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/alloc.h"
#include "util/clock.h"
#include "util/decimal.h"

#define STATS_MAX_ROWS 50000        /* past it, a new site's counts go to the unknown one */
#define STATS_CLIENT_MAX_ROWS 5000  /* the same for one client */
#define STATS_EXPIRE_EVERY_MS 60000 /* brock_sync() applies the retention this often */
#define DAY_MS 86400000LL

struct stat_row {
    int64_t day;                      /* days since 1970-01-01, UTC */
    uint64_t n[BROCK__DAILY_COUNT];   /* the store's counts and this process's */
    uint64_t add[BROCK__DAILY_COUNT]; /* this process's, not written yet */
    char site[];                      /* "": requests whose page is unknown */
};

struct brock__daily {
    struct strmap rows;    /* "DAY SITE" → struct stat_row */
    int64_t forget_before; /* the next flush deletes the days before it; 0: none */
    int64_t expire_next;   /* Unix ms when brock_sync() applies the retention again */
    int expire_days;       /* the setting the retention last applied; -1: none yet */
    int64_t last_ms;       /* a client's: its newest count (Unix ms), for the bound on clients */
    size_t max_rows;       /* STATS_MAX_ROWS, or STATS_CLIENT_MAX_ROWS for a client */
    /* Everyone's only: */
    struct strmap clients;         /* client → struct brock__daily */
    struct strvec clients_dropped; /* clients whose rows go at the next flush */
    char client[];                 /* "": everyone's */
};

static void daily_free(void *arg)
{
    struct brock__daily *st = arg;

    if (!st)
        return;
    strmap_cleanup(&st->rows, mem_free);
    strmap_cleanup(&st->clients, daily_free);
    strvec_cleanup(&st->clients_dropped);
    mem_free(st);
}

void brock__daily_free(struct brock__daily *st)
{
    daily_free(st);
}

static struct brock__daily *daily_new(const char *client)
{
    size_t n = strlen(client);
    struct brock__daily *st = mem_calloc(1, sizeof(*st) + n + 1);

    if (!st)
        return NULL;
    strmap_init(&st->rows);
    strmap_init(&st->clients);
    st->expire_days = -1;
    st->max_rows = *client ? STATS_CLIENT_MAX_ROWS : STATS_MAX_ROWS;
    memcpy(st->client, client, n + 1);
    return st;
}

static struct brock__daily *daily_get(struct brock_engine *e)
{
    if (!e->daily)
        e->daily = daily_new("");
    return e->daily;
}

static void *room_make(const char *client)
{
    return daily_new(client);
}

static int64_t room_last(const void *room)
{
    return ((const struct brock__daily *)room)->last_ms;
}

static const char *room_name(const void *room)
{
    return ((const struct brock__daily *)room)->client;
}

/* The clients' rooms under everyone's counters all. */
static struct brock__client_rooms rooms_of(struct brock__daily *all)
{
    return (struct brock__client_rooms){
        &all->clients, &all->clients_dropped, room_make, daily_free, room_last, room_name};
}

/* Forgets client c: its rows go at the next flush (track), memory's at once. */
static int client_drop(struct brock__daily *all, struct brock__daily *c, int track)
{
    struct brock__client_rooms r = rooms_of(all);

    return brock__client_room_drop(&r, c, track);
}

/* client's counters (NULL or "": everyone's), as pages.c's client_pages(). */
static struct brock__daily *client_daily(struct brock_engine *e, const char *client, int create,
                                         int track)
{
    struct brock__daily *all = create ? daily_get(e) : e->daily;
    struct brock__client_rooms r;

    if (!all || !client || !*client)
        return all;
    r = rooms_of(all);
    return brock__client_room(&r, client, create, track);
}

/* Days since 1970-01-01 of Unix ms t, rounding down for times before it. */
static int64_t day_of(int64_t t)
{
    return t >= 0 ? t / DAY_MS : -((-t + DAY_MS - 1) / DAY_MS);
}

/* The row of (day, site), created when missing; NULL when out of memory. */
static struct stat_row *row_ensure(struct brock__daily *st, int64_t day, const char *site)
{
    char key[BROCK_HOST_MAX + 32];
    struct stat_row *r;
    size_t n, len;

    if (st->rows.len >= st->max_rows)
        site = "";
    /* "DAY SITE", written by hand: this runs for every request. */
    n = strnlen(site, BROCK_HOST_MAX - 1);
    len = decimal_put(key, day);
    key[len++] = ' ';
    memcpy(key + len, site, n);
    key[len + n] = '\0';
    if ((r = strmap_get(&st->rows, key)))
        return r;
    if (!(r = mem_calloc(1, sizeof(*r) + n + 1)))
        return NULL;
    r->day = day;
    memcpy(r->site, site, n);
    r->site[n] = '\0';
    if (strmap_put(&st->rows, key, r) < 0) {
        mem_free(r);
        return NULL;
    }
    return r;
}

/* Counts in st one of what, and a page with page, on (day of time_ms, site). */
static int stats_add(struct brock__daily *st, const char *site, int what, int page, int64_t time_ms)
{
    struct stat_row *r;

    if (!st || !(r = row_ensure(st, day_of(time_ms), site ? site : "")))
        return BROCK_ENOMEM;
    if (time_ms > st->last_ms)
        st->last_ms = time_ms;
    r->n[what]++;
    r->add[what]++;
    if (page) {
        r->n[BROCK__DAILY_PAGES]++;
        r->add[BROCK__DAILY_PAGES]++;
    }
    return 0;
}

/* Counts for everyone and for client (NULL or "": for everyone only). */
static int daily_add(struct brock_engine *e, const char *client, const char *site, int what,
                     int page, int64_t time_ms)
{
    if (brock_page_view_days(e) == 0)
        return 0; /* the user keeps no history */
    if (stats_add(daily_get(e), site, what, page, time_ms) < 0)
        return BROCK_ENOMEM;
    e->dirty++;
    if (client && *client &&
        stats_add(client_daily(e, client, 1, 1), site, what, page, time_ms) < 0)
        return BROCK_ENOMEM;
    return 0;
}

int brock__daily_add(struct brock_engine *e, const char *site, int what, int64_t time_ms)
{
    return daily_add(e, NULL, site, what, 0, time_ms);
}

int brock_daily_count(struct brock_engine *e, const struct brock_decision *d, int64_t time_ms)
{
    return brock_client_daily_count(e, NULL, d, time_ms);
}

int brock_client_daily_count(struct brock_engine *e, const char *client,
                             const struct brock_decision *d, int64_t time_ms)
{
    int what = d->effect == BROCK_DENY            ? BROCK__DAILY_BLOCKED
               : d->effect == BROCK_STRIP_COOKIES ? BROCK__DAILY_COOKIEBLOCKED
                                                  : BROCK__DAILY_ALLOWED;
    /* A site is visited when one of its pages is opened, not when something of the browser's
     * own (an update check) goes out with no page behind it. */
    int page = d->type == BROCK_RESOURCE_MAIN_FRAME && d->site[0];

    if (client && *client && !brock__client_ok(client))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client);
    if (daily_add(e, client, d->site, what, page, time_ms) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    return 0;
}

int brock_clean_count(struct brock_engine *e, const char *client, const char *site, int64_t time_ms)
{
    char base[BROCK_HOST_MAX];

    if (client && *client && !brock__client_ok(client))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client);
    /* Counted on the site as the other counters are: its base domain. */
    if (site && *site && brock_base_domain(site, base) >= 0)
        site = base;
    if (daily_add(e, client, site, BROCK__DAILY_CLEANED, 0, time_ms) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    return 0;
}

/* ---- the store ---- */

int brock__daily_load(struct brock_engine *e, const char *client, int64_t day, const char *site,
                      const int64_t n[BROCK__DAILY_COUNT])
{
    struct brock__daily *st;
    struct stat_row *r;

    if (*client && !brock__client_ok(client))
        return 0; /* not a row brock writes */
    if (!(st = client_daily(e, client, 1, 0)) || !(r = row_ensure(st, day, site)))
        return BROCK_ENOMEM;
    if (day * DAY_MS > st->last_ms)
        st->last_ms = day * DAY_MS;
    /* Memory's unwritten counts stay on top of the store's. */
    for (int i = 0; i < BROCK__DAILY_COUNT; i++)
        r->n[i] = r->add[i] + (n[i] > 0 ? (uint64_t)n[i] : 0);
    return 0;
}

static int row_has_add(const struct stat_row *r)
{
    for (int i = 0; i < BROCK__DAILY_COUNT; i++)
        if (r->add[i])
            return 1;
    return 0;
}

typedef int (*day_put_fn)(void *arg, const char *client, int64_t day, const char *site,
                          const uint64_t add[BROCK__DAILY_COUNT]);

static int stats_flush(const struct brock__daily *st, day_put_fn put, void *arg)
{
    struct stat_row *r;
    size_t it = 0;
    int rc;

    if (st->forget_before && (rc = put(arg, st->client, st->forget_before, NULL, NULL)) < 0)
        return rc;
    while (strmap_next(&st->rows, &it, NULL, (void **)&r))
        if (row_has_add(r) && (rc = put(arg, st->client, r->day, r->site, r->add)) < 0)
            return rc;
    return 0;
}

int brock__daily_flush(struct brock_engine *e, day_put_fn put, void *arg)
{
    struct brock__daily *st = e->daily, *c;
    size_t it = 0;
    int rc;

    if (!st)
        return 0;
    for (size_t i = 0; i < st->clients_dropped.n; i++)
        if ((rc = put(arg, st->clients_dropped.v[i], INT64_MAX, NULL, NULL)) < 0)
            return rc;
    if ((rc = stats_flush(st, put, arg)) < 0)
        return rc;
    while (strmap_next(&st->clients, &it, NULL, (void **)&c))
        if ((rc = stats_flush(c, put, arg)) < 0)
            return rc;
    return 0;
}

/* Calls fn for everyone's counters and each client's. */
static void each_stats(struct brock_engine *e, void (*fn)(struct brock__daily *st))
{
    struct brock__daily *c;
    size_t it = 0;

    if (!e->daily)
        return;
    fn(e->daily);
    while (strmap_next(&e->daily->clients, &it, NULL, (void **)&c))
        fn(c);
}

static void stats_clean(struct brock__daily *st)
{
    struct stat_row *r;
    size_t it = 0;

    st->forget_before = 0;
    while (strmap_next(&st->rows, &it, NULL, (void **)&r))
        memset(r->add, 0, sizeof(r->add));
}

void brock__daily_clean(struct brock_engine *e)
{
    if (e->daily)
        strvec_cleanup(&e->daily->clients_dropped);
    each_stats(e, stats_clean);
}

static void stats_mark_all(struct brock__daily *st)
{
    struct stat_row *r;
    size_t it = 0;

    while (strmap_next(&st->rows, &it, NULL, (void **)&r))
        memcpy(r->add, r->n, sizeof(r->add));
}

void brock__daily_mark_all(struct brock_engine *e)
{
    each_stats(e, stats_mark_all);
}

static void stats_drop_clean(struct brock__daily *st)
{
    struct stat_row *r;
    const char *key;
    size_t it = 0;

    while (strmap_next(&st->rows, &it, &key, (void **)&r)) {
        if (row_has_add(r)) {
            memcpy(r->n, r->add, sizeof(r->n));
            continue;
        }
        strmap_del(&st->rows, key);
        mem_free(r);
    }
}

void brock__daily_drop_clean(struct brock_engine *e)
{
    each_stats(e, stats_drop_clean);
}

int brock__daily_client_forget(struct brock_engine *e, const char *client, int track)
{
    struct brock__daily *c = client_daily(e, client, 0, 0);

    if (!c || c == e->daily)
        return 0;
    if (client_drop(e->daily, c, track) < 0)
        return BROCK_ENOMEM;
    if (track)
        e->dirty++;
    return 1;
}

int brock__daily_clients_forgot(const struct brock_engine *e)
{
    return e->daily && e->daily->clients_dropped.n > 0;
}

void brock__daily_clients_drop_clean(struct brock_engine *e)
{
    struct brock__daily *c;
    size_t it = 0;

    while (e->daily && strmap_next(&e->daily->clients, &it, NULL, (void **)&c)) {
        stats_drop_clean(c);
        if (!c->rows.len)
            (void)client_drop(e->daily, c, 0);
    }
}

/* Drops from st the days before before; returns whether any went. */
static int stats_expire(struct brock__daily *st, int64_t before)
{
    struct stat_row *r;
    const char *key;
    size_t it = 0;
    int dropped = 0;

    while (strmap_next(&st->rows, &it, &key, (void **)&r)) {
        if (r->day >= before)
            continue;
        strmap_del(&st->rows, key);
        mem_free(r);
        dropped = 1;
    }
    if (dropped)
        st->forget_before = before;
    return dropped;
}

void brock__daily_expire(struct brock_engine *e, int force)
{
    struct brock__daily *st = e->daily, *c;
    int days = brock_page_view_days(e);
    int64_t now, before;
    size_t it = 0;
    int dropped;

    if (!st)
        return;
    now = clock_now_ms();
    if (!force && days == st->expire_days && now < st->expire_next)
        return;
    /* A day goes once all of it is older than the setting. */
    before = days ? day_of(now - days * DAY_MS) : INT64_MAX;
    dropped = stats_expire(st, before);
    /* A client left with nothing is forgotten whole. */
    while (strmap_next(&st->clients, &it, NULL, (void **)&c)) {
        dropped |= stats_expire(c, before);
        if (!c->rows.len)
            (void)client_drop(st, c, 1); /* out of memory: it goes at the next turn */
    }
    if (dropped)
        e->dirty++;
    st->expire_days = days;
    st->expire_next = now + STATS_EXPIRE_EVERY_MS;
}

/* ---- reports ---- */

int brock_daily_each(struct brock_engine *e, int days, int64_t now_ms,
                     int (*cb)(void *arg, const struct brock_day *d), void *arg)
{
    return brock_client_daily_each(e, NULL, days, now_ms, cb, arg);
}

int brock_client_daily_each(struct brock_engine *e, const char *client, int days, int64_t now_ms,
                            int (*cb)(void *arg, const struct brock_day *d), void *arg)
{
    struct brock_day *v;
    int64_t last = day_of(now_ms), first;
    const struct brock__daily *st;
    struct stat_row *r;
    size_t it = 0;
    int rc = 0;

    if (client && *client && !brock__client_ok(client))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client);
    st = client_daily(e, client, 0, 0);
    if (days < 1 || days > BROCK_DAILY_DAYS_MAX)
        return brock__fail(e, BROCK_EINVAL, "%d is not a number of days from 1 to %d", days,
                           BROCK_DAILY_DAYS_MAX);
    if (!(v = mem_calloc((size_t)days, sizeof(*v))))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    first = last - days + 1;
    while (st && strmap_next(&st->rows, &it, NULL, (void **)&r)) {
        struct brock_day *d;

        if (r->day < first || r->day > last)
            continue;
        d = &v[r->day - first];
        d->blocked += r->n[BROCK__DAILY_BLOCKED];
        d->cookieblocked += r->n[BROCK__DAILY_COOKIEBLOCKED];
        d->allowed += r->n[BROCK__DAILY_ALLOWED];
        d->learned += r->n[BROCK__DAILY_LEARNED];
        d->sites += r->site[0] && r->n[BROCK__DAILY_PAGES];
        d->cleaned += r->n[BROCK__DAILY_CLEANED];
    }
    for (int i = 0; i < days && !rc; i++) {
        time_t t = (time_t)((first + i) * (DAY_MS / 1000));
        struct tm tm;

        v[i].time_ms = (first + i) * DAY_MS;
        if (!gmtime_r(&t, &tm) || !strftime(v[i].day, sizeof(v[i].day), "%Y-%m-%d", &tm))
            snprintf(v[i].day, sizeof(v[i].day), "?");
        rc = cb(arg, &v[i]);
    }
    mem_free(v);
    return rc;
}

static int on_day(void *arg, const struct brock_day *d)
{
    json_t *a = arg;
    json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "day", d->day, "time_ms",
                          (json_int_t)d->time_ms, "blocked", (json_int_t)d->blocked,
                          "cookieblocked", (json_int_t)d->cookieblocked, "allowed",
                          (json_int_t)d->allowed, "learned", (json_int_t)d->learned, "sites",
                          (json_int_t)d->sites, "cleaned", (json_int_t)d->cleaned);

    return !o || json_array_append_new(a, o) < 0 ? BROCK_ENOMEM : 0;
}

int brock_daily_json(struct brock_engine *e, int days, int64_t now_ms, char **out, size_t *len)
{
    return brock_client_daily_json(e, NULL, days, now_ms, out, len);
}

int brock_client_daily_json(struct brock_engine *e, const char *client, int days, int64_t now_ms,
                            char **out, size_t *len)
{
    json_t *a = json_array();
    int rc;

    *out = NULL;
    *len = 0;
    if (!a)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    rc = brock_client_daily_each(e, client, days, now_ms, on_day, a);
    if (rc == 0 && !(*out = json_dumps(a, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII)))
        rc = BROCK_ENOMEM;
    json_decref(a);
    if (rc == BROCK_ENOMEM)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if (rc != 0 || !*out)
        return rc < 0 ? rc : BROCK_ENOMEM;
    *len = strlen(*out);
    return 0;
}
