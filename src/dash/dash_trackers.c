/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dashboard's trackers: GET /api/trackers (the whole list, or a page of it sorted and
 * narrowed as the All trackers page asks), GET /api/trackers/DOMAIN with its evidence, and
 * PUT /api/trackers/DOMAIN, the user's choice. */
#include "dash/dash_api.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

static int on_host_site(void *arg, const char *site, int64_t time_ms)
{
    json_t *j = json_pack("{s:s, s:I}", "site", site, "time_ms", (json_int_t)time_ms);

    return json_array_append_new(arg, j) < 0 ? BROCK_ENOMEM : 0;
}

/* The user's choices for exactly domain on one site only: site → action. */
static json_t *site_actions_json(struct brock_engine *e, const char *domain)
{
    struct brock_site_action *v = NULL;
    json_t *o = json_object();
    size_t n = 0;

    if (!o || brock_site_actions(e, NULL, &v, &n) < 0) {
        json_decref(o);
        return NULL;
    }
    for (size_t i = 0; o && i < n; i++) {
        if (strcmp(v[i].domain, domain) == 0 &&
            json_object_set_new(o, v[i].site, json_string(brock_action_name(v[i].action))) < 0) {
            json_decref(o);
            o = NULL;
        }
    }
    brock_free(v);
    return o;
}

/* One tracker, with whether brock learned it here and when it was last seen tracking; with
 * detail, the evidence, the first time and the recent sites it was seen on. */
static json_t *tracker_json(struct brock_engine *e, const struct brock_tracker *t, int detail)
{
    json_t *sites = json_array(), *ev = detail ? json_array() : NULL, *j;
    int64_t first = 0, last = 0;

    for (size_t i = 0; sites && i < t->n_evidence; i++) {
        const struct brock_evidence *v = &t->evidence[i];

        if (json_array_append_new(sites, json_string(v->site)) < 0)
            goto fail;
        if (v->time_ms && (!first || v->time_ms < first))
            first = v->time_ms;
        if (v->time_ms > last)
            last = v->time_ms;
        if (ev && json_array_append_new(ev, json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "site",
                                                      v->site, "host", v->host, "kind",
                                                      brock_evidence_kind_name(v->kind), "detail",
                                                      v->detail, "param", v->param ? v->param : "",
                                                      "time_ms", (json_int_t)v->time_ms)) < 0)
            goto fail;
    }
    j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:o, s:b, s:I}", "domain", t->domain, "base",
                  t->base, "action", brock_action_name(t->action), "heuristic",
                  t->heuristic ? brock_action_name(t->heuristic) : "", "user",
                  t->user ? brock_action_name(t->user) : "", "dnt",
                  t->dnt || t->action == BROCK_DNT, "cookieblock_listed", t->cookieblock_listed,
                  "sites", sites, "learned", brock_tracker_learned(t), "last_seen",
                  (json_int_t)last);
    sites = NULL;
    if (!j || !detail) {
        json_decref(ev);
        return j;
    }
    /* set_new takes its value's reference even when it fails. */
    if (json_object_set_new(j, "evidence", ev) < 0 ||
        json_object_set_new(j, "first_seen", json_integer(first)) < 0 ||
        json_object_set_new(j, "seen_on", json_array()) < 0 ||
        brock_host_sites(e, t->domain, on_host_site, json_object_get(j, "seen_on")) < 0 ||
        json_object_set_new(j, "site_actions", site_actions_json(e, t->domain)) < 0) {
        json_decref(j);
        return NULL;
    }
    return j;
fail:
    json_decref(sites);
    json_decref(ev);
    return NULL;
}

/* ---- the list, whole or a page at a time ---- */

/* How GET /api/trackers orders its answer (sort=). */
enum tracker_sort {
    SORT_PB,     /* Privacy Badger's display order (the default) */
    SORT_RECENT, /* your choices and what brock learned first, blocked first, newest first */
    SORT_NAME,   /* by name */
    SORT_SITES,  /* seen tracking on the most sites first */
};

/* Which trackers GET /api/trackers answers with (show=). */
enum tracker_show {
    SHOW_ANY,
    SHOW_LEARNED,    /* seen tracking here, not only known from the seed or an import */
    SHOW_PRETRAINED, /* known only from the seed or an import */
    SHOW_BLOCK,
    SHOW_COOKIEBLOCK,
    SHOW_ALLOW,
    SHOW_USER, /* with a choice of yours */
    SHOW_DNT,  /* posting the DNT policy */
};

static const char *const sort_names[] = {"pb", "recent", "name", "sites", NULL};
static const char *const show_names[] = {
    "any", "learned", "pretrained", "blocked", "cookieblocked", "allowed", "user", "dnt", NULL};

/* A page of the list: the most asked for at once. */
#define TRACKERS_PAGE_MAX 1000

struct tracker_query {
    enum tracker_sort sort;
    enum tracker_show show;
    char q[BROCK_HOST_MAX]; /* part of the name, lower case; "" for any */
    long offset, limit;     /* limit 0: the whole list, as a bare array */
};

/* One tracker of the list with what it is sorted by. */
struct tracker_row {
    char *domain;   /* a copy */
    int pretrained; /* 0: your choice or learned here; 1: only pre-trained */
    int position;   /* 0 block, 1 cookieblock, 2 allow */
    int64_t last;   /* the newest evidence's time */
    size_t sites;
};

struct tracker_list {
    struct brock_engine *e;
    const struct tracker_query *want;
    json_t *bare; /* the whole list in the engine's order: each tracker goes here at once */
    struct tracker_row *rows;
    size_t n, cap;
    size_t known; /* every tracker the list holds, before show= and q= */
};

/* The word's index in names, or -1. */
static int word_index(const char *const *names, const char *word)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], word))
            return i;
    return -1;
}

/* The query's sort, show, q, offset and limit into *w. Returns 0, or -1 with the refusal's
 * sentence in err. */
static int tracker_query_read(const char *query, struct tracker_query *w, const char **err)
{
    char v[32];
    int i = 0;

    memset(w, 0, sizeof(*w));
    /* A key given with a value brock cannot read is refused, never taken as absent. */
    if (dash_query_has(query, "sort") &&
        (dash_query_get(query, "sort", v, sizeof(v)) < 0 || (i = word_index(sort_names, v)) < 0)) {
        *err = "\"sort\" must be pb, recent, name or sites";
        return -1;
    }
    if (dash_query_has(query, "sort"))
        w->sort = (enum tracker_sort)i;
    if (dash_query_has(query, "show") &&
        (dash_query_get(query, "show", v, sizeof(v)) < 0 || (i = word_index(show_names, v)) < 0)) {
        *err = "\"show\" must be any, learned, pretrained, blocked, cookieblocked, allowed, "
               "user or dnt";
        return -1;
    }
    if (dash_query_has(query, "show"))
        w->show = (enum tracker_show)i;
    if (dash_query_has(query, "q") && dash_query_get(query, "q", w->q, sizeof(w->q)) < 0) {
        *err = "\"q\" must be part of a domain name (letters, digits, '.', '-', '_')";
        return -1;
    }
    for (char *c = w->q; *c; c++) {
        *c = (char)tolower((unsigned char)*c);
        if (!isalnum((unsigned char)*c) && !strchr(".-_", *c)) {
            *err = "\"q\" must be part of a domain name (letters, digits, '.', '-', '_')";
            return -1;
        }
    }
    if (dash_query_number(query, "offset", 0, LONG_MAX / 2, &w->offset) < 0 ||
        dash_query_number(query, "limit", 1, TRACKERS_PAGE_MAX, &w->limit) < 0) {
        *err = "\"limit\" must be a whole number from 1 to 1000, and \"offset\" one from 0";
        return -1;
    }
    return 0;
}

static int tracker_position(enum brock_action a)
{
    if (a == BROCK_BLOCK || a == BROCK_USER_BLOCK)
        return 0;
    if (a == BROCK_COOKIEBLOCK || a == BROCK_USER_COOKIEBLOCK)
        return 1;
    return 2;
}

/* Whether t is known only from the seed or an import (not learned here, not yours alone). */
static int tracker_pretrained(const struct brock_tracker *t)
{
    return !brock_tracker_learned(t) && (t->heuristic != BROCK_NOACTION || t->n_evidence > 0);
}

static int tracker_shown(const struct tracker_query *w, const struct brock_tracker *t)
{
    if (w->q[0] && !strstr(t->domain, w->q))
        return 0;
    switch (w->show) {
    case SHOW_ANY: return 1;
    case SHOW_LEARNED: return brock_tracker_learned(t);
    case SHOW_PRETRAINED: return tracker_pretrained(t);
    case SHOW_BLOCK: return tracker_position(t->action) == 0;
    case SHOW_COOKIEBLOCK: return tracker_position(t->action) == 1;
    case SHOW_ALLOW: return tracker_position(t->action) == 2;
    case SHOW_USER: return t->user != BROCK_NOACTION;
    case SHOW_DNT: return t->dnt || t->action == BROCK_DNT;
    }
    return 1;
}

static int on_tracker(void *arg, const struct brock_tracker *t)
{
    struct tracker_list *l = arg;
    struct tracker_row *r;

    l->known++;
    if (!tracker_shown(l->want, t))
        return 0;
    if (l->bare)
        return json_array_append_new(l->bare, tracker_json(l->e, t, 0)) < 0 ? BROCK_ENOMEM : 0;
    /* Only what the order needs is kept; a page's trackers are looked up again once sorted,
     * so that a page of 100 out of 10,000 costs 100 trackers' JSON, not 10,000. */
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct tracker_row *grown = realloc(l->rows, cap * sizeof(*grown));

        if (!grown)
            return BROCK_ENOMEM;
        l->rows = grown;
        l->cap = cap;
    }
    r = &l->rows[l->n];
    if (!(r->domain = strdup(t->domain)))
        return BROCK_ENOMEM;
    l->n++;
    r->pretrained = !(t->user != BROCK_NOACTION || brock_tracker_learned(t));
    r->position = tracker_position(t->action);
    r->last = 0;
    for (size_t i = 0; i < t->n_evidence; i++)
        if (t->evidence[i].time_ms > r->last)
            r->last = t->evidence[i].time_ms;
    r->sites = t->n_evidence;
    return 0;
}

static int by_name(const struct tracker_row *a, const struct tracker_row *b)
{
    return strcmp(a->domain, b->domain);
}

static int by_recent(const void *pa, const void *pb)
{
    const struct tracker_row *a = pa, *b = pb;

    if (a->pretrained != b->pretrained)
        return a->pretrained - b->pretrained;
    if (a->position != b->position)
        return a->position - b->position;
    if (a->last != b->last)
        return a->last > b->last ? -1 : 1;
    return by_name(a, b);
}

static int by_name_only(const void *pa, const void *pb)
{
    return by_name(pa, pb);
}

static int by_sites(const void *pa, const void *pb)
{
    const struct tracker_row *a = pa, *b = pb;

    if (a->sites != b->sites)
        return a->sites > b->sites ? -1 : 1;
    if (a->position != b->position)
        return a->position - b->position;
    return by_name(a, b);
}

struct tracker_page {
    struct brock_engine *e;
    json_t *list;
};

static int on_page_tracker(void *arg, const struct brock_tracker *t)
{
    struct tracker_page *p = arg;

    return json_array_append_new(p->list, tracker_json(p->e, t, 0)) < 0 ? BROCK_ENOMEM : 0;
}

/* The rows from offset, at most limit of them (all with 0), as an array; NULL when out of
 * memory. */
static json_t *tracker_rows_json(const struct tracker_list *l, long offset, long limit)
{
    struct tracker_page p = {l->e, json_array()};

    for (size_t i = (size_t)offset; p.list && i < l->n && (!limit || i < (size_t)(offset + limit));
         i++) {
        if (brock_tracker_get(l->e, l->rows[i].domain, on_page_tracker, &p) < 0) {
            json_decref(p.list);
            return NULL;
        }
    }
    return p.list;
}

/* GET /api/trackers[?all=1][&sort=…][&show=…][&q=…][&offset=N&limit=N]: the trackers as an
 * array; with limit, one page of them as {total, offset, limit, known, trackers}. */
int dash_api_trackers(struct dash_call *x)
{
    struct tracker_query want;
    struct tracker_list l = {x->e, &want, NULL, NULL, 0, 0, 0};
    static int (*const order[])(const void *, const void *) = {NULL, by_recent, by_name_only,
                                                               by_sites};
    const char *err = NULL;
    char all[8] = "";
    int rc;

    if (tracker_query_read(x->query, &want, &err) < 0)
        return dash_error(x, 400, err);
    (void)dash_query_get(x->query, "all", all, sizeof(all));
    if (!want.limit && want.sort == SORT_PB && !(l.bare = json_array()))
        return -1;
    rc =
        brock_trackers_each(x->e, NULL, !strcmp(all, "1") ? BROCK_TRACKERS_ALL : 0, on_tracker, &l);
    if (rc >= 0 && l.n && order[want.sort])
        qsort(l.rows, l.n, sizeof(*l.rows), order[want.sort]);
    if (rc >= 0 && l.bare) {
        x->json = l.bare;
        l.bare = NULL;
    } else if (rc >= 0 && !want.limit)
        x->json = tracker_rows_json(&l, 0, 0);
    else if (rc >= 0)
        x->json = json_pack("{s:I, s:I, s:I, s:I, s:o}", "total", (json_int_t)l.n, "offset",
                            (json_int_t)want.offset, "limit", (json_int_t)want.limit, "known",
                            (json_int_t)l.known, "trackers",
                            tracker_rows_json(&l, want.offset, want.limit));
    json_decref(l.bare);
    for (size_t i = 0; i < l.n; i++)
        free(l.rows[i].domain);
    free(l.rows);
    return rc < 0 || !x->json ? -1 : 0;
}

struct one_tracker {
    struct brock_engine *e;
    json_t *j;
};

static int on_one(void *arg, const struct brock_tracker *t)
{
    struct one_tracker *o = arg;

    o->j = tracker_json(o->e, t, 1);
    return o->j ? 0 : BROCK_ENOMEM;
}

static int tracker_answer(struct dash_call *x, int must_be_known)
{
    struct one_tracker o = {x->e, NULL};
    int rc = brock_tracker_get(x->e, x->arg, on_one, &o);

    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    if (rc < 0)
        return -1;
    /* Nothing known and never seen: no such tracker. */
    if (must_be_known && !strcmp(json_string_value(json_object_get(o.j, "action")), "noaction") &&
        !json_array_size(json_object_get(o.j, "evidence")) &&
        !json_array_size(json_object_get(o.j, "seen_on")) &&
        !*json_string_value(json_object_get(o.j, "heuristic"))) {
        json_decref(o.j);
        return dash_error(x, 404, "brock knows nothing of that domain");
    }
    x->json = o.j;
    return 0;
}

int dash_api_tracker(struct dash_call *x)
{
    return tracker_answer(x, 1);
}

int dash_api_tracker_put(struct dash_call *x)
{
    json_t *body = NULL, *site;
    char err[256];
    int action, rc;

    if (dash_body_object(x, &body) < 0)
        return -1;
    if (!body)
        return 0;
    action =
        brock_action_parse(json_string_value(json_object_get(body, "action")), err, sizeof(err));
    site = json_object_get(body, "site");
    if (action >= 0 && site && !json_is_string(site))
        snprintf(err, sizeof(err), "\"site\" must be a site name");
    if (action < 0 || (site && !json_is_string(site))) {
        json_decref(body);
        return dash_error(x, 400, err);
    }
    /* With a site, the choice holds on that site only; without, everywhere. */
    rc = site ? brock_set_site_action(x->e, json_string_value(site), x->arg,
                                      (enum brock_action)action)
              : brock_set_user_action(x->e, x->arg, (enum brock_action)action);
    json_decref(body);
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : tracker_answer(x, 0);
}
