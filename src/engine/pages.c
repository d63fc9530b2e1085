/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Recent page views: for each site (a first party's base domain), the third-party hosts its
 * pages requested, the action each last got, how often and when, as Privacy Badger's popup
 * keeps them per tab. Bounded: past the limits the oldest site or host is dropped.
 *
 * Everyone's views, and each client's own (a proxy's client: its name or address), kept the
 * same way: a client's view is recorded twice, once for everyone and once for it. At most
 * BROCK_CLIENTS_MAX clients are kept; past it, the one seen longest ago is forgotten.
 */
#include "engine/engine.h"
#include "engine/names.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/clock.h"

#define PAGES_MAX_SITES 500
#define PAGES_MAX_HOSTS 300
#define PAGES_DAYS_KEY "pageViewDays" /* in settings_map; absent: BROCK_PAGE_VIEW_DAYS */
#define PAGES_EXPIRE_EVERY_MS 60000   /* brock_sync() applies the retention this often */
#define DAY_MS 86400000LL

struct page_host {
    char *host;
    int64_t time_ms;
    uint64_t count;
    uint8_t action; /* enum brock_action */
    uint8_t dirty;
};

struct page_site {
    int64_t time_ms;
    size_t n, cap;
    struct page_host *v;
    int rewrite; /* a host was dropped: the store writes the site whole */
    char site[];
};

struct brock__pages {
    struct strmap sites;   /* base domain → struct page_site */
    struct strvec dropped; /* sites dropped since the last flush */
    int forgot;            /* views were forgotten: the flush tells other processes */
    int64_t expire_next;   /* Unix ms when brock_sync() applies the retention again */
    int expire_days;       /* the setting the retention last applied; -1: none yet */
    int64_t last_ms;       /* a client's: its newest view, for the bound on clients */
    /* Everyone's only: */
    struct strmap clients;         /* client → struct brock__pages */
    struct strvec clients_dropped; /* clients whose rows go at the next flush */
    char client[];                 /* "": everyone's */
};

static void site_free(void *p)
{
    struct page_site *s = p;

    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        mem_free(s->v[i].host);
    mem_free(s->v);
    mem_free(s);
}

static void pages_free(void *arg)
{
    struct brock__pages *p = arg;

    if (!p)
        return;
    strmap_cleanup(&p->sites, site_free);
    strvec_cleanup(&p->dropped);
    strmap_cleanup(&p->clients, pages_free);
    strvec_cleanup(&p->clients_dropped);
    mem_free(p);
}

void brock__pages_free(struct brock__pages *p)
{
    pages_free(p);
}

static struct brock__pages *pages_new(const char *client)
{
    size_t n = strlen(client);
    struct brock__pages *p = mem_calloc(1, sizeof(*p) + n + 1);

    if (!p)
        return NULL;
    strmap_init(&p->sites);
    strmap_init(&p->clients);
    p->expire_days = -1;
    memcpy(p->client, client, n + 1);
    return p;
}

static struct brock__pages *pages_get(struct brock_engine *e)
{
    if (!e->pages)
        e->pages = pages_new("");
    return e->pages;
}

int brock__client_ok(const char *client)
{
    size_t n = 0;

    if (!client)
        return 0;
    for (; client[n]; n++)
        if ((unsigned char)client[n] < 0x21 || client[n] == 0x7f)
            return 0;
    return n > 0 && n < BROCK_CLIENT_MAX;
}

static void *room_make(const char *client)
{
    return pages_new(client);
}

static int64_t room_last(const void *room)
{
    return ((const struct brock__pages *)room)->last_ms;
}

static const char *room_name(const void *room)
{
    return ((const struct brock__pages *)room)->client;
}

/* The clients' rooms under everyone's views all. */
static struct brock__client_rooms rooms_of(struct brock__pages *all)
{
    return (struct brock__client_rooms){
        &all->clients, &all->clients_dropped, room_make, pages_free, room_last, room_name};
}

/* Forgets client c: its rows go at the next flush (track), memory's at once. */
static int client_drop(struct brock__pages *all, struct brock__pages *c, int track)
{
    struct brock__client_rooms r = rooms_of(all);

    return brock__client_room_drop(&r, c, track);
}

/* client's views (NULL or "": everyone's); created when missing when create is set, making
 * room by forgetting the client seen longest ago. NULL: none, or out of memory. */
static struct brock__pages *client_pages(struct brock_engine *e, const char *client, int create,
                                         int track)
{
    struct brock__pages *all = create ? pages_get(e) : e->pages;
    struct brock__client_rooms r;

    if (!all || !client || !*client)
        return all;
    r = rooms_of(all);
    return brock__client_room(&r, client, create, track);
}

static int action_parse(const char *name)
{
    for (int a = BROCK_NOACTION; a < BROCK_ACTION_COUNT; a++)
        if (!strcmp(brock_action_name((enum brock_action)a), name))
            return a;
    return BROCK_NOACTION;
}

/* The site's entry, created when missing; making room drops the site seen longest ago. */
static struct page_site *site_ensure(struct brock__pages *p, const char *site, int track)
{
    struct page_site *s = strmap_get(&p->sites, site);
    size_t n;

    if (s)
        return s;
    if (p->sites.len >= PAGES_MAX_SITES) {
        struct page_site *old = NULL, *v;
        size_t it = 0;

        while (strmap_next(&p->sites, &it, NULL, (void **)&v))
            if (!old || v->time_ms < old->time_ms)
                old = v;
        if (track && strvec_push(&p->dropped, old->site) < 0)
            return NULL;
        strmap_del(&p->sites, old->site);
        site_free(old);
    }
    n = strlen(site);
    s = mem_calloc(1, sizeof(*s) + n + 1);
    if (!s)
        return NULL;
    memcpy(s->site, site, n + 1);
    if (strmap_put(&p->sites, s->site, s) < 0) {
        mem_free(s);
        return NULL;
    }
    return s;
}

/* The host's entry in s, created when missing; making room drops the oldest host. */
static struct page_host *host_ensure(struct page_site *s, const char *host, int track)
{
    struct page_host *h;
    char *copy;

    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->v[i].host, host))
            return &s->v[i];
    if (!(copy = mem_strdup(host)))
        return NULL;
    if (s->n >= PAGES_MAX_HOSTS) {
        size_t old = 0;

        for (size_t i = 1; i < s->n; i++)
            if (s->v[i].time_ms < s->v[old].time_ms)
                old = i;
        mem_free(s->v[old].host);
        s->v[old] = s->v[--s->n];
        s->rewrite |= track;
    } else if (mem_grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0) {
        mem_free(copy);
        return NULL;
    }
    h = &s->v[s->n++];
    memset(h, 0, sizeof(*h));
    h->host = copy;
    return h;
}

int brock__pages_load(struct brock_engine *e, const char *client, const char *site,
                      const char *host, const char *action, int64_t count, int64_t time_ms)
{
    struct brock__pages *p;
    struct page_site *s;
    struct page_host *h;

    if (*client && !brock__client_ok(client))
        return 0; /* not a row brock writes */
    if (!(p = client_pages(e, client, 1, 0)) || !(s = site_ensure(p, site, 0)) ||
        !(h = host_ensure(s, host, 0)))
        return BROCK_ENOMEM;
    if (h->dirty)
        return 0; /* memory's count is newer than the store's */
    h->action = (uint8_t)action_parse(action);
    h->count = count > 0 ? (uint64_t)count : 0;
    h->time_ms = time_ms;
    if (time_ms > s->time_ms)
        s->time_ms = time_ms;
    if (time_ms > p->last_ms)
        p->last_ms = time_ms;
    return 0;
}

/* Records in p that a page of base requested name. Returns 0 or BROCK_ENOMEM. */
static int page_record(struct brock__pages *p, const char *base, const char *name,
                       enum brock_action action, int64_t time_ms)
{
    struct page_site *s;
    struct page_host *h;

    if (!(s = site_ensure(p, base, 1)) || !(h = host_ensure(s, name, 1)))
        return BROCK_ENOMEM;
    h->action = (uint8_t)action;
    h->count++;
    if (time_ms > h->time_ms)
        h->time_ms = time_ms;
    if (time_ms > s->time_ms)
        s->time_ms = time_ms;
    if (time_ms > p->last_ms)
        p->last_ms = time_ms;
    h->dirty = 1;
    return 0;
}

int brock_client_page_seen(struct brock_engine *e, const char *client, const char *site,
                           const char *host, enum brock_action action, int64_t time_ms)
{
    char site_host[BROCK_HOST_MAX], name[BROCK_HOST_MAX];
    struct brock__pages *p;
    const char *base;

    if (client && *client && !brock__client_ok(client))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client);
    if (!site || brock_url_host(site, site_host) < 0 || !*(base = brock__base(e, site_host)))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a site", site ? site : "(null)");
    if (!host || brock_host_normalize(host, strlen(host), name) < 0)
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a host name", host ? host : "(null)");
    if ((unsigned)action >= BROCK_ACTION_COUNT)
        return brock__fail(e, BROCK_EINVAL, "%d is not an action", (int)action);
    if (brock_page_view_days(e) == 0)
        return 0; /* the user keeps none */
    if (!(p = pages_get(e)) || page_record(p, base, name, action, time_ms) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    e->dirty++;
    if (client && *client &&
        (!(p = client_pages(e, client, 1, 1)) || page_record(p, base, name, action, time_ms) < 0))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    return 0;
}

int brock_page_seen(struct brock_engine *e, const char *site, const char *host,
                    enum brock_action action, int64_t time_ms)
{
    return brock_client_page_seen(e, NULL, site, host, action, time_ms);
}

/* ---- retention and forgetting ---- */

int brock_page_view_days(const struct brock_engine *e)
{
    json_t *v = json_object_get(e->settings, PAGES_DAYS_KEY);

    if (!json_is_integer(v) || json_integer_value(v) < 0 ||
        json_integer_value(v) > BROCK_PAGE_VIEW_DAYS_MAX)
        return BROCK_PAGE_VIEW_DAYS;
    return (int)json_integer_value(v);
}

int brock_page_view_days_set(struct brock_engine *e, long days)
{
    if (days < 0 || days > BROCK_PAGE_VIEW_DAYS_MAX)
        return brock__fail(e, BROCK_EINVAL, "%ld is not a number of days from 0 to %d", days,
                           BROCK_PAGE_VIEW_DAYS_MAX);
    if (json_object_set_new(e->settings, PAGES_DAYS_KEY, json_integer(days)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_touch(e, PAGES_DAYS_KEY);
    return 0;
}

/* Drops from s the hosts last seen before before_ms; returns how many. */
static size_t site_forget(struct page_site *s, int64_t before_ms)
{
    size_t i = 0, n = 0;

    while (i < s->n) {
        if (s->v[i].time_ms >= before_ms) {
            i++;
            continue;
        }
        mem_free(s->v[i].host);
        s->v[i] = s->v[--s->n];
        n++;
    }
    return n;
}

/* Forgets p's views last seen before before_ms; returns how many sites lost views, or
 * BROCK_ENOMEM. */
static int views_forget(struct brock__pages *p, int64_t before_ms)
{
    struct page_site *s;
    size_t it = 0;
    int n = 0;

    while (strmap_next(&p->sites, &it, NULL, (void **)&s)) {
        if (!site_forget(s, before_ms))
            continue;
        n++;
        s->rewrite = 1;
        s->time_ms = 0;
        for (size_t i = 0; i < s->n; i++)
            if (s->v[i].time_ms > s->time_ms)
                s->time_ms = s->v[i].time_ms;
        if (s->n)
            continue;
        /* Now empty: the store deletes the site's rows, memory drops it. */
        if (strvec_push(&p->dropped, s->site) < 0)
            return BROCK_ENOMEM;
        strmap_del(&p->sites, s->site);
        site_free(s);
    }
    return n;
}

int brock_pages_forget(struct brock_engine *e, int64_t before_ms)
{
    struct brock__pages *p = e->pages, *c;
    size_t it = 0;
    int n, any;

    if (!p)
        return 0;
    if ((n = views_forget(p, before_ms)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    any = n > 0;
    /* Deleting the current key while walking is allowed (strmap.h). */
    while (strmap_next(&p->clients, &it, NULL, (void **)&c)) {
        int k = views_forget(c, before_ms);

        if (k < 0 || (!c->sites.len && client_drop(p, c, 1) < 0))
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        any |= k > 0;
    }
    if (any) {
        p->forgot = 1;
        e->dirty++;
    }
    return n;
}

int brock__pages_client_forget(struct brock_engine *e, const char *client, int track)
{
    struct brock__pages *c = client_pages(e, client, 0, 0);

    if (!c || c == e->pages)
        return 0;
    if (client_drop(e->pages, c, track) < 0)
        return BROCK_ENOMEM;
    if (track) {
        e->pages->forgot = 1;
        e->dirty++;
    }
    return 1;
}

int brock__pages_expire(struct brock_engine *e, int force)
{
    struct brock__pages *p = e->pages;
    int days = brock_page_view_days(e), n;
    int64_t now;

    if (!p)
        return 0;
    now = clock_now_ms();
    if (!force && days == p->expire_days && now < p->expire_next)
        return 0;
    n = brock_pages_forget(e, days ? now - days * DAY_MS : INT64_MAX);
    if (n >= 0) {
        p->expire_days = days;
        p->expire_next = now + PAGES_EXPIRE_EVERY_MS;
    }
    return n;
}

int brock__pages_forgot(const struct brock_engine *e)
{
    return e->pages && e->pages->forgot;
}

/* Another process forgot page views: what memory holds unwritten stays, the rest is read
 * again from the store (brock__pages_load() keeps unwritten hosts). */
static void views_drop_clean(struct brock__pages *p)
{
    struct page_site *s;
    size_t it = 0;

    while (strmap_next(&p->sites, &it, NULL, (void **)&s)) {
        size_t i = 0;

        while (i < s->n) {
            if (s->v[i].dirty || s->rewrite) {
                i++;
                continue;
            }
            mem_free(s->v[i].host);
            s->v[i] = s->v[--s->n];
        }
        if (s->n || s->rewrite)
            continue;
        strmap_del(&p->sites, s->site);
        site_free(s);
    }
}

void brock__pages_drop_clean(struct brock_engine *e)
{
    struct brock__pages *p = e->pages, *c;
    size_t it = 0;

    if (!p)
        return;
    views_drop_clean(p);
    while (strmap_next(&p->clients, &it, NULL, (void **)&c)) {
        views_drop_clean(c);
        if (!c->sites.len)
            (void)client_drop(p, c, 0);
    }
}

int brock__views_clients_forgot(const struct brock_engine *e)
{
    return (e->pages && e->pages->clients_dropped.n > 0) || brock__daily_clients_forgot(e);
}

void brock__views_clients_drop_clean(struct brock_engine *e)
{
    struct brock__pages *c;
    size_t it = 0;

    while (e->pages && strmap_next(&e->pages->clients, &it, NULL, (void **)&c)) {
        views_drop_clean(c);
        if (!c->sites.len)
            (void)client_drop(e->pages, c, 0);
    }
    brock__daily_clients_drop_clean(e);
}

int brock_client_forget(struct brock_engine *e, const char *client)
{
    int a, b;

    if (!brock__client_ok(client))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client ? client : "(null)");
    if ((a = brock__pages_client_forget(e, client, 1)) < 0 ||
        (b = brock__daily_client_forget(e, client, 1)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    return a || b;
}

/* ---- reports ---- */

static int site_cmp(const void *a, const void *b)
{
    const struct page_site *x = *(struct page_site *const *)a, *y = *(struct page_site *const *)b;

    if (x->time_ms != y->time_ms)
        return x->time_ms > y->time_ms ? -1 : 1;
    return strcmp(x->site, y->site);
}

/* p's sites (p may be NULL: none), newest first, in a new array (mem_free) of *n; NULL when
 * out of memory. */
static struct page_site **sites_sorted(const struct brock__pages *p, size_t *n)
{
    struct page_site **v, *s;
    size_t it = 0;

    *n = 0;
    /* An array of pointers to the sites, sorted. */
    v = mem_calloc(p ? p->sites.len + 1 : 1, sizeof(struct page_site *));
    if (!v || !p)
        return v;
    while (strmap_next(&p->sites, &it, NULL, (void **)&s))
        v[(*n)++] = s;
    qsort(v, *n, sizeof(struct page_site *), site_cmp);
    return v;
}

/* client's views for a report: everyone's for NULL or "", NULL for a client without any.
 * Sets *bad for a malformed client. */
static struct brock__pages *report_pages(struct brock_engine *e, const char *client, int *bad)
{
    *bad = client && *client && !brock__client_ok(client);
    return *bad ? NULL : client_pages(e, client, 0, 0);
}

int brock_client_sites(struct brock_engine *e, const char *client,
                       int (*cb)(void *arg, const struct brock_site *s), void *arg)
{
    struct page_site **v;
    size_t n;
    int rc = 0, bad;
    const struct brock__pages *p = report_pages(e, client, &bad);

    if (bad)
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client);
    if (!(v = sites_sorted(p, &n)))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !rc; i++) {
        struct brock_site out = {.site = v[i]->site, .time_ms = v[i]->time_ms, .trackers = v[i]->n};

        out.disabled = brock__site_disabled(e, v[i]->site);
        /* What was done there, not what would be done now: a tracker that passed on the
         * visit and was blocked since counts as passed until its next request there. */
        for (size_t j = 0; j < v[i]->n; j++) {
            enum brock_effect eff = brock_action_effect((enum brock_action)v[i]->v[j].action);

            out.blocked += eff == BROCK_DENY;
            out.cookieblocked += eff == BROCK_STRIP_COOKIES;
        }
        rc = cb(arg, &out);
    }
    mem_free(v);
    return rc;
}

int brock_sites(struct brock_engine *e, int (*cb)(void *arg, const struct brock_site *s), void *arg)
{
    return brock_client_sites(e, NULL, cb, arg);
}

struct host_row {
    char *key;
    const struct page_host *h;
};

static int host_row_cmp(const void *a, const void *b)
{
    const struct host_row *x = a, *y = b;
    int c = strcmp(x->key, y->key);

    return c ? c : strcmp(x->h->host, y->h->host);
}

int brock_client_site_trackers(struct brock_engine *e, const char *client, const char *site,
                               int (*cb)(void *arg, const struct brock_site_tracker *t), void *arg)
{
    char site_host[BROCK_HOST_MAX];
    const struct page_site *s;
    struct host_row *rows;
    const char *base;
    size_t n = 0;
    int rc = 0, bad;
    const struct brock__pages *p = report_pages(e, client, &bad);

    if (bad)
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client);
    if (!site || brock_url_host(site, site_host) < 0 || !*(base = brock__base(e, site_host)))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a site", site ? site : "(null)");
    if (!p || !(s = strmap_get(&p->sites, base)))
        return brock__fail(e, BROCK_ENOTFOUND, "no page of %s was seen recently", base);
    if (!(rows = mem_calloc(s->n + 1, sizeof(*rows))))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    for (; n < s->n; n++) {
        rows[n].h = &s->v[n];
        if (!(rows[n].key = brock__sortable(s->v[n].host))) {
            rc = brock__fail(e, BROCK_ENOMEM, "out of memory");
            goto out;
        }
    }
    qsort(rows, n, sizeof(*rows), host_row_cmp);
    for (size_t i = 0; i < n && !rc; i++) {
        const struct page_host *h = rows[i].h;
        const struct action_entry *a = brock__action_get(e, h->host);
        char hbase[BROCK_HOST_MAX];
        struct brock_site_tracker t = {
            .host = h->host,
            .base = hbase,
            .action = brock__best_action(e, h->host, NULL),
            .seen = (enum brock_action)h->action,
            .user = a ? (enum brock_action)a->user : BROCK_NOACTION,
            .cookieblock_listed = brock__would_cookieblock(&e->lists, h->host),
            .count = h->count,
            .time_ms = h->time_ms,
        };

        const char *chosen = NULL;

        brock__base_domain(h->host, hbase);
        t.on_site = brock__site_action_find(e, base, h->host, &chosen);
        if (!chosen)
            t.on_site = t.action;
        else if (!strcmp(chosen, h->host))
            t.site_user = t.on_site;
        t.breakage = t.on_site == BROCK_USER_BLOCK && t.cookieblock_listed;
        rc = cb(arg, &t);
    }
out:
    for (size_t i = 0; i < n; i++)
        mem_free(rows[i].key);
    mem_free(rows);
    return rc;
}

int brock_site_trackers(struct brock_engine *e, const char *site,
                        int (*cb)(void *arg, const struct brock_site_tracker *t), void *arg)
{
    return brock_client_site_trackers(e, NULL, site, cb, arg);
}

int brock_client_host_sites(struct brock_engine *e, const char *client, const char *host,
                            int (*cb)(void *arg, const char *site, int64_t time_ms), void *arg)
{
    char name[BROCK_HOST_MAX];
    struct page_site **v;
    size_t n;
    int rc = 0, bad;
    const struct brock__pages *p = report_pages(e, client, &bad);

    if (bad)
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client);
    if (!host || brock_host_normalize(host, strlen(host), name) < 0)
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a host name", host ? host : "(null)");
    if (!(v = sites_sorted(p, &n)))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !rc; i++)
        for (size_t j = 0; j < v[i]->n && !rc; j++)
            if (!strcmp(v[i]->v[j].host, name))
                rc = cb(arg, v[i]->site, v[i]->v[j].time_ms);
    mem_free(v);
    return rc;
}

int brock_host_sites(struct brock_engine *e, const char *host,
                     int (*cb)(void *arg, const char *site, int64_t time_ms), void *arg)
{
    return brock_client_host_sites(e, NULL, host, cb, arg);
}

static int client_cmp(const void *a, const void *b)
{
    const struct brock__pages *x = *(struct brock__pages *const *)a;
    const struct brock__pages *y = *(struct brock__pages *const *)b;

    if (x->last_ms != y->last_ms)
        return x->last_ms > y->last_ms ? -1 : 1;
    return strcmp(x->client, y->client);
}

int brock_clients_each(struct brock_engine *e,
                       int (*cb)(void *arg, const char *client, int64_t time_ms, size_t sites),
                       void *arg)
{
    struct brock__pages **v, *c;
    size_t it = 0, n = 0;
    int rc = 0;

    if (!e->pages || !e->pages->clients.len)
        return 0;
    if (!(v = mem_calloc(e->pages->clients.len, sizeof(struct brock__pages *))))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    while (strmap_next(&e->pages->clients, &it, NULL, (void **)&c))
        v[n++] = c;
    qsort(v, n, sizeof(struct brock__pages *), client_cmp);
    for (size_t i = 0; i < n && !rc; i++)
        rc = cb(arg, v[i]->client, v[i]->last_ms, v[i]->sites.len);
    mem_free(v);
    return rc;
}

/* ---- the store ---- */

typedef int (*page_put_fn)(void *arg, const char *client, const char *site, const char *host,
                           const char *action, int64_t count, int64_t time_ms);

static int views_flush(const struct brock__pages *p, page_put_fn put, void *arg)
{
    struct page_site *s;
    size_t it = 0;
    int rc;

    for (size_t i = 0; i < p->dropped.n; i++)
        if ((rc = put(arg, p->client, p->dropped.v[i], NULL, NULL, 0, 0)) < 0)
            return rc;
    while (strmap_next(&p->sites, &it, NULL, (void **)&s)) {
        if (s->rewrite && (rc = put(arg, p->client, s->site, NULL, NULL, 0, 0)) < 0)
            return rc;
        for (size_t i = 0; i < s->n; i++) {
            const struct page_host *h = &s->v[i];

            if (!h->dirty && !s->rewrite)
                continue;
            rc =
                put(arg, p->client, s->site, h->host,
                    brock_action_name((enum brock_action)h->action), (int64_t)h->count, h->time_ms);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int brock__pages_flush(struct brock_engine *e, page_put_fn put, void *arg)
{
    struct brock__pages *p = e->pages, *c;
    size_t it = 0;
    int rc;

    if (!p)
        return 0;
    /* A client forgotten first: one seen again since has its new rows written after. */
    for (size_t i = 0; i < p->clients_dropped.n; i++)
        if ((rc = put(arg, p->clients_dropped.v[i], NULL, NULL, NULL, 0, 0)) < 0)
            return rc;
    if ((rc = views_flush(p, put, arg)) < 0)
        return rc;
    while (strmap_next(&p->clients, &it, NULL, (void **)&c))
        if ((rc = views_flush(c, put, arg)) < 0)
            return rc;
    return 0;
}

static void views_clean(struct brock__pages *p)
{
    struct page_site *s;
    size_t it = 0;

    strvec_cleanup(&p->dropped);
    p->forgot = 0;
    while (strmap_next(&p->sites, &it, NULL, (void **)&s)) {
        s->rewrite = 0;
        for (size_t i = 0; i < s->n; i++)
            s->v[i].dirty = 0;
    }
}

void brock__pages_clean(struct brock_engine *e)
{
    struct brock__pages *p = e->pages, *c;
    size_t it = 0;

    if (!p)
        return;
    strvec_cleanup(&p->clients_dropped);
    views_clean(p);
    while (strmap_next(&p->clients, &it, NULL, (void **)&c))
        views_clean(c);
}

static void views_mark_all(struct brock__pages *p)
{
    struct page_site *s;
    size_t it = 0;

    while (strmap_next(&p->sites, &it, NULL, (void **)&s))
        s->rewrite = 1;
}

void brock__pages_mark_all(struct brock_engine *e)
{
    struct brock__pages *p = e->pages, *c;
    size_t it = 0;

    if (!p)
        return;
    views_mark_all(p);
    while (strmap_next(&p->clients, &it, NULL, (void **)&c))
        views_mark_all(c);
}
