/* SPDX-License-Identifier: GPL-3.0-or-later */
/* GET /api/map: the recent page views as the graph the dashboard's map draws: the sites
 * visited, the third-party hosts their pages requested, and a link for each pair seen, each
 * with when it was last seen; with days=N only what was seen in the last N days, and with
 * sites=N only the N most recent of those sites, their hosts and links, and a count of what
 * that left out (a state of thousands of sites need not reach the page whole to be drawn). */
#include "dash/dash_api.h"

#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

#define DAY_MS 86400000LL
/* The most sites= may ask for: more than the page could ever draw, well under size_t. */
#define MAP_SITES_MAX 1000000

struct map_walk {
    json_t *trackers, *links;
    json_t *by_host;  /* host -> its object in trackers (borrowed references) */
    int64_t since;    /* what was last seen before is left out; 0 keeps everything */
    const char *site; /* the site whose hosts are being walked */
    size_t kept, blocked, cookieblocked; /* the site's links kept, and what they were given */
    size_t limit;                        /* the sites to keep (sites=N); 0 keeps every one */
    size_t more_sites;                   /* the sites in the time left out by limit */
    json_t *more;                 /* the hosts seen only on those sites, as a set (keys only) */
    char views[BROCK_CLIENT_MAX]; /* whose page views (dash_views()) */
};

static int on_map_site(void *arg, const struct brock_site *s)
{
    json_t *j = json_pack("{s:s, s:I, s:b}", "site", s->site, "time_ms", (json_int_t)s->time_ms,
                          "disabled", s->disabled);

    return json_array_append_new(arg, j) < 0 ? BROCK_ENOMEM : 0;
}

/* The host's node, made on its first link; NULL when out of memory. */
static json_t *tracker_node(struct map_walk *m, const struct brock_site_tracker *t)
{
    json_t *n = json_object_get(m->by_host, t->host);

    if (n)
        return n;
    n = json_pack("{s:s, s:s, s:s, s:s, s:b, s:I, s:I}", "domain", t->host, "base", t->base,
                  "action", brock_action_name(t->action), "user",
                  t->user ? brock_action_name(t->user) : "", "dnt", t->action == BROCK_DNT, "sites",
                  (json_int_t)0, "time_ms", (json_int_t)0);
    /* The array holds the node; the index only points at it. */
    if (json_array_append_new(m->trackers, n) < 0 || json_object_set(m->by_host, t->host, n) < 0)
        return NULL;
    return n;
}

static int on_map_link(void *arg, const struct brock_site_tracker *t)
{
    struct map_walk *m = arg;
    enum brock_effect eff = brock_action_effect(t->seen);
    json_t *n, *link;

    if (m->since && t->time_ms < m->since)
        return 0;
    if (!(n = tracker_node(m, t)))
        return BROCK_ENOMEM;
    if (json_object_set_new(n, "sites",
                            json_integer(json_integer_value(json_object_get(n, "sites")) + 1)) < 0)
        return BROCK_ENOMEM;
    if (t->time_ms > json_integer_value(json_object_get(n, "time_ms")) &&
        json_object_set_new(n, "time_ms", json_integer(t->time_ms)) < 0)
        return BROCK_ENOMEM;
    link = json_pack("{s:s, s:s, s:s, s:I, s:I}", "site", m->site, "tracker", t->host, "seen",
                     brock_action_name(t->seen), "count", (json_int_t)t->count, "time_ms",
                     (json_int_t)t->time_ms);
    if (json_array_append_new(m->links, link) < 0)
        return BROCK_ENOMEM;
    m->kept++;
    m->blocked += eff == BROCK_DENY;
    m->cookieblocked += eff == BROCK_STRIP_COOKIES;
    return 0;
}

/* A host of a site left out: counted once, unless a site kept has it too. */
static int on_more_link(void *arg, const struct brock_site_tracker *t)
{
    struct map_walk *m = arg;

    if ((m->since && t->time_ms < m->since) || json_object_get(m->by_host, t->host))
        return 0;
    return json_object_set_new(m->more, t->host, json_null()) < 0 ? BROCK_ENOMEM : 0;
}

/* The days query into *since (0 without one). Returns 0, or -1 when it is not 1 to 3650. */
static int map_since(const char *query, int64_t *since)
{
    long n = 0;

    *since = 0;
    if (dash_query_number(query, "days", 1, BROCK_DAILY_DAYS_MAX, &n) < 0)
        return -1;
    if (n)
        *since = clock_now_ms() - (int64_t)n * DAY_MS;
    return 0;
}

/* The sites query into *limit (0 without one). Returns 0, or -1 when it is not 1 to
 * MAP_SITES_MAX. */
static int map_limit(const char *query, size_t *limit)
{
    long n = 0;

    if (dash_query_number(query, "sites", 1, MAP_SITES_MAX, &n) < 0)
        return -1;
    *limit = (size_t)n;
    return 0;
}

/* Walks every recent site's hosts into m, keeping the sites seen since m->since in kept
 * (with their counts), the newest m->limit of them when there is a limit; the others' hosts
 * only go into m->more. Returns 0 or -1 when out of memory. */
static int map_walk_sites(struct brock_engine *e, struct map_walk *m, json_t *all, json_t *kept)
{
    size_t i;
    json_t *s;

    json_array_foreach(all, i, s) {
        int rc;

        if (m->since && json_integer_value(json_object_get(s, "time_ms")) < m->since)
            continue;
        m->site = json_string_value(json_object_get(s, "site"));
        if (m->limit && json_array_size(kept) >= m->limit) {
            m->more_sites++;
            rc = brock_client_site_trackers(e, m->views, m->site, on_more_link, m);
            if (rc < 0 && rc != BROCK_ENOTFOUND)
                return -1;
            continue;
        }
        m->kept = m->blocked = m->cookieblocked = 0;
        rc = brock_client_site_trackers(e, m->views, m->site, on_map_link, m);
        if (rc < 0 && rc != BROCK_ENOTFOUND)
            return -1;
        if (json_object_set_new(s, "trackers", json_integer((json_int_t)m->kept)) < 0 ||
            json_object_set_new(s, "blocked", json_integer((json_int_t)m->blocked)) < 0 ||
            json_object_set_new(s, "cookieblocked", json_integer((json_int_t)m->cookieblocked)) <
                0 ||
            json_array_append(kept, s) < 0)
            return -1;
    }
    return 0;
}

int dash_api_map(struct dash_call *x)
{
    struct map_walk m = {.trackers = json_array(),
                         .links = json_array(),
                         .by_host = json_object(),
                         .more = json_object()};
    json_t *all = json_array(), *sites = json_array();
    int rc = -1;

    if (!m.trackers || !m.links || !m.by_host || !m.more || !all || !sites)
        goto out;
    if (map_since(x->query, &m.since) < 0) {
        rc = dash_error(x, 400, "\"days\" must be a whole number of days from 1 to 3650");
        goto out;
    }
    if (map_limit(x->query, &m.limit) < 0) {
        rc = dash_error(x, 400, "\"sites\" must be a whole number of sites from 1 to 1000000");
        goto out;
    }
    if ((rc = dash_views(x, m.views)) != 0) {
        rc = rc < 0 ? -1 : 0;
        goto out;
    }
    rc = -1;
    /* The sites first: the hosts of each are asked for outside brock_sites()'s walk. */
    if (brock_client_sites(x->e, m.views, on_map_site, all) < 0 ||
        map_walk_sites(x->e, &m, all, sites) < 0)
        goto out;
    json_decref(x->json);
    x->json = json_pack("{s:O, s:O, s:O, s:{s:I, s:I}}", "sites", sites, "trackers", m.trackers,
                        "links", m.links, "more", "sites", (json_int_t)m.more_sites, "trackers",
                        (json_int_t)json_object_size(m.more));
    rc = x->json ? 0 : -1;
out:
    json_decref(all);
    json_decref(sites);
    json_decref(m.trackers);
    json_decref(m.links);
    json_decref(m.by_host);
    json_decref(m.more);
    return rc;
}
