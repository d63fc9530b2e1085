/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dashboard's JSON API: the recent sites and their trackers, every tracker and why it is
 * in its state, the user's choices, the settings, export and the live lists, import, reset and
 * forgetting the recent sites. Each handler turns the engine's reports into JSON; the page
 * (web/app.js) is a client of these. */
#include "dash/dash_api.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/head.h"
#include "util/clock.h"

int dash_error(struct dash_call *x, int status, const char *msg)
{
    json_decref(x->json);
    x->status = status;
    x->json = json_pack("{s:s}", "error", msg);
    return x->json ? 0 : -1;
}

int dash_query_get(const char *query, const char *key, char *out, size_t size)
{
    size_t kl = strlen(key);

    for (const char *p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
        size_t vl;

        if (strncmp(p, key, kl) != 0 || p[kl] != '=')
            continue;
        vl = strcspn(p + kl + 1, "&");
        if (vl >= size)
            return -1;
        memcpy(out, p + kl + 1, vl);
        out[vl] = '\0';
        return 0;
    }
    return -1;
}

int dash_views(struct dash_call *x, char out[BROCK_CLIENT_MAX])
{
    const struct dash_request *rq = x->rq;
    char raw[BROCK_CLIENT_MAX * 3];
    size_t n = 0;

    out[0] = '\0';
    if (!dash_owner_is(x->env, rq)) {
        const char *who = rq->client_name && *rq->client_name ? rq->client_name : rq->client;

        /* Never everyone's for one who is not the owner, nor another client's. */
        if (!who || !*who || strlen(who) >= BROCK_CLIENT_MAX)
            return dash_error(x, 403, "brock cannot tell which client this is") < 0 ? -1 : 1;
        if (dash_query_has(x->query, "client"))
            return dash_error(x, 403,
                              "a client sees its own browsing alone; the owner sees "
                              "each client's") < 0
                       ? -1
                       : 1;
        snprintf(out, BROCK_CLIENT_MAX, "%s", who);
        return 0;
    }
    if (!dash_query_has(x->query, "client"))
        return 0;
    if (dash_query_get(x->query, "client", raw, sizeof(raw)) < 0)
        return dash_error(x, 400, "\"client\" is too long") < 0 ? -1 : 1;
    /* A name is letters, digits, '-', '_' and '.'; an address adds ':', which a page's
     * encodeURIComponent() sends as "%3A". Nothing else is one. */
    for (size_t i = 0; raw[i]; i++) {
        int colon = raw[i] == '%' && raw[i + 1] == '3' && (raw[i + 2] == 'A' || raw[i + 2] == 'a');

        if (n + 1 >= BROCK_CLIENT_MAX || (raw[i] == '%' && !colon))
            return dash_error(x, 400, "\"client\" is not a client's name or address") < 0 ? -1 : 1;
        if (colon) {
            out[n++] = ':';
            i += 2;
        } else {
            out[n++] = raw[i];
        }
    }
    out[n] = '\0';
    return 0;
}

int dash_query_has(const char *query, const char *key)
{
    size_t kl = strlen(key);

    for (const char *p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL)
        if (!strncmp(p, key, kl) && (p[kl] == '=' || p[kl] == '&' || !p[kl]))
            return 1;
    return 0;
}

int dash_query_number(const char *query, const char *key, long min, long max, long *out)
{
    char v[24], *end;
    long n;

    if (!dash_query_has(query, key))
        return 0;
    if (dash_query_get(query, key, v, sizeof(v)) < 0 || v[0] < '0' || v[0] > '9')
        return -1;
    errno = 0;
    n = strtol(v, &end, 10);
    if (*end || errno || n < min || n > max)
        return -1;
    *out = n;
    return 0;
}

/* The body as a JSON object into *out. Returns 0, with *out NULL when the answer is set to
 * a 400 instead, or -1 when out of memory. */
int dash_body_object(struct dash_call *x, json_t **out)
{
    json_error_t jerr;
    json_t *j = json_loadb(x->rq->body, x->rq->body_len, 0, &jerr);

    *out = NULL;
    if (!j || !json_is_object(j)) {
        json_decref(j);
        return dash_error(x, 400, "the request body is not a JSON object");
    }
    *out = j;
    return 0;
}

/* The JSON formats: pb, and the DNR and Safari rule lists. */
static int export_is_json(const char *format)
{
    return !strcmp(format, "pb") || !strcmp(format, "dnr") || !strcmp(format, "safari");
}

/* The name a download of an export in format is saved under, with the extension its reader
 * expects: .json, dnsmasq's and unbound's .conf, the RPZ .zone, Privoxy's .action, else .txt. */
static void export_file(const char *format, char *out, size_t size)
{
    const char *ext = "txt";

    if (export_is_json(format))
        ext = "json";
    else if (!strcmp(format, "dnsmasq") || !strcmp(format, "unbound"))
        ext = "conf";
    else if (!strcmp(format, "rpz"))
        ext = "zone";
    else if (!strcmp(format, "privoxy"))
        ext = "action";
    snprintf(out, size, "brock-%s.%s", format, ext);
}

/* [{format, file}] for every export format the engine writes; NULL when out of memory. */
static json_t *exports_json(void)
{
    json_t *list = json_array();
    char file[64];

    for (const char *const *f = brock_export_formats(); list && *f; f++) {
        export_file(*f, file, sizeof(file));
        if (json_array_append_new(list, json_pack("{s:s, s:s}", "format", *f, "file", file)) < 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

/* ---- status ---- */

static const char *store_kind_name(enum brock_store_kind k)
{
    switch (k) {
    case BROCK_STORE_FILE: return "file";
    case BROCK_STORE_READONLY: return "read-only";
    case BROCK_STORE_MEMORY: return "memory";
    }
    return "file";
}

/* {kind, backend, path, why, connected, since_ms, pending, writing, last_write_ms, last_error,
 * last_error_ms, recreated, reloaded, event, event_ms, refused}: how writing the state fares;
 * NULL when out of memory. */
static json_t *store_json(const struct brock_engine *e)
{
    struct brock_store_status st;

    brock_store_status(e, &st);
    return json_pack(
        "{s:s, s:s, s:s, s:s, s:b, s:I, s:I, s:b, s:I, s:s, s:I, s:I, s:I, s:s, s:I, "
        "s:I}",
        "kind", store_kind_name(st.kind), "backend", st.backend[0] ? st.backend : "memory", "path",
        st.path, "why", st.why, "connected", st.connected, "since_ms", (json_int_t)st.since_ms,
        "pending", (json_int_t)st.pending, "writing", st.kind == BROCK_STORE_FILE && !st.failing,
        "last_write_ms", (json_int_t)st.last_write_ms, "last_error", st.last_error, "last_error_ms",
        (json_int_t)st.last_error_ms, "recreated", (json_int_t)st.recreated, "reloaded",
        (json_int_t)st.reloaded, "event", st.event, "event_ms", (json_int_t)st.event_ms, "refused",
        (json_int_t)st.refused);
}

/* {trackers, max, forgotten, full}: the trackers known from live learning alone, the cap
 * they are held to, how many were forgotten to stay within it since brock started, and
 * whether it was reached; NULL when out of memory. */
static json_t *learned_json(const struct brock_engine *e)
{
    struct brock_learned_status st;

    brock_learned_status(e, &st);
    return json_pack("{s:I, s:I, s:I, s:b}", "trackers", (json_int_t)st.trackers, "max",
                     (json_int_t)st.max, "forgotten", (json_int_t)st.forgotten, "full",
                     st.forgotten > 0);
}

/* The pause as /api/status and PUT /api/pause say it: {paused, paused_until_ms} (null: no
 * end, or not paused); NULL when out of memory. */
static json_t *pause_json(const struct brock_engine *e)
{
    int64_t until = 0;
    int paused = brock_paused(e, clock_now_ms(), &until);

    return json_pack("{s:b, s:o}", "paused", paused, "paused_until_ms",
                     paused && until != BROCK_NO_END ? json_integer((json_int_t)until)
                                                     : json_null());
}

/* {proxy, socks, transparent}: the requests decided since brock started, by the way their
 * client came in; NULL when out of memory. */
static json_t *ways_json(const struct dash_counters *n)
{
    return json_pack("{s:I, s:I, s:I}", livelog_way_name(0), (json_int_t)n->ways[0],
                     livelog_way_name(1), (json_int_t)n->ways[1], livelog_way_name(2),
                     (json_int_t)n->ways[2]);
}

int dash_api_status(struct dash_call *x)
{
    const struct dash_host *h = &x->env->host;
    struct dash_counters n = {0};
    size_t counts[BROCK_ACTION_COUNT], entries = 0;
    json_t *by = json_object(), *pause, *ways;

    if (h->counters)
        h->counters(h->counters_arg, &n);
    brock_counts(x->e, counts, &entries);
    for (int a = BROCK_NOACTION; by && a < BROCK_ACTION_COUNT; a++)
        if (json_object_set_new(by, brock_action_name((enum brock_action)a),
                                json_integer((json_int_t)counts[a])) < 0)
            break;
    x->json = json_pack(
        "{s:s, s:s, s:I, s:I, s:I, s:b, s:b, s:{s:b, s:s, s:s?, s:s?}, s:b, s:I, "
        "s:o?, s:o?, s:o?, s:o?, "
        "s:{s:I, s:I, "
        "s:I, s:I, s:I, s:I, s:I, s:I, s:I}}",
        "version", brock_version(), "listen", h->listen_name, "started_ms",
        (json_int_t)h->started_ms, "pid", (json_int_t)h->pid, "workers", (json_int_t)h->workers,
        "learning", brock_engine_learning(x->e), "intercept", h->intercept, "https", "seen",
        h->intercept, "why", h->https_why ? h->https_why : "", "fix", h->https_fix, "flag",
        h->https_flag, "inject", h->inject, "domains", (json_int_t)entries, "actions", by,
        "exports", exports_json(), "store", store_json(x->e), "learned", learned_json(x->e),
        "since_start", "requests", (json_int_t)n.requests, "blocked", (json_int_t)n.blocked,
        "cookieblocked", (json_int_t)n.cookieblocked, "tunnels", (json_int_t)n.tunnels, "learned",
        (json_int_t)n.learned, "connections", (json_int_t)n.connections, "connections_cut",
        (json_int_t)n.cut, "connections_refused", (json_int_t)n.refused, "cleaned",
        (json_int_t)n.cleaned);
    pause = pause_json(x->e);
    ways = ways_json(&n);
    if (!x->json || !pause || json_object_update(x->json, pause) < 0 || !ways ||
        json_object_set(json_object_get(x->json, "since_start"), "by_way", ways) < 0) {
        json_decref(pause);
        json_decref(ways);
        return -1;
    }
    json_decref(pause);
    json_decref(ways);
    return 0;
}

/* ---- sites ---- */

static json_t *site_json(const struct brock_site *s)
{
    return json_pack("{s:s, s:I, s:I, s:I, s:I, s:b}", "site", s->site, "blocked",
                     (json_int_t)s->blocked, "cookieblocked", (json_int_t)s->cookieblocked,
                     "trackers", (json_int_t)s->trackers, "time_ms", (json_int_t)s->time_ms,
                     "disabled", s->disabled);
}

static int on_site(void *arg, const struct brock_site *s)
{
    json_t *j = site_json(s);

    return json_array_append_new(arg, j) < 0 ? BROCK_ENOMEM : 0;
}

/* GET /api/sites[?offset=N&limit=N]: the recent sites, newest first, as an array; with limit,
 * one page of them as {total, offset, limit, sites}. */
int dash_api_sites(struct dash_call *x)
{
    json_t *all = json_array(), *page;
    long offset = 0, limit = 0;
    char views[BROCK_CLIENT_MAX];
    int rc = 0;

    if (dash_query_number(x->query, "offset", 0, LONG_MAX / 2, &offset) < 0 ||
        dash_query_number(x->query, "limit", 1, 1000, &limit) < 0) {
        json_decref(all);
        return dash_error(x, 400,
                          "\"limit\" must be a whole number from 1 to 1000, and \"offset\" one "
                          "from 0");
    }
    if ((rc = dash_views(x, views)) != 0) {
        json_decref(all);
        return rc < 0 ? -1 : 0;
    }
    if (!all || (rc = brock_client_sites(x->e, views, on_site, all)) < 0) {
        json_decref(all);
        return rc == BROCK_EINVAL ? dash_error(x, 400, brock_engine_errmsg(x->e)) : -1;
    }
    if (!limit) {
        x->json = all;
        return 0;
    }
    page = json_array();
    for (size_t i = (size_t)offset;
         page && i < json_array_size(all) && i < (size_t)(offset + limit); i++)
        if (json_array_append(page, json_array_get(all, i)) < 0) {
            json_decref(page);
            page = NULL;
        }
    x->json =
        page ? json_pack("{s:I, s:I, s:I, s:o}", "total", (json_int_t)json_array_size(all),
                         "offset", (json_int_t)offset, "limit", (json_int_t)limit, "sites", page)
             : NULL;
    json_decref(all);
    return x->json ? 0 : -1;
}

static int on_site_tracker(void *arg, const struct brock_site_tracker *t)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:b, s:I, s:I}", "domain",
                          t->host, "base", t->base, "action", brock_action_name(t->action),
                          "site_action", brock_action_name(t->on_site), "site_user",
                          t->site_user ? brock_action_name(t->site_user) : "", "seen",
                          brock_action_name(t->seen), "user",
                          t->user ? brock_action_name(t->user) : "", "dnt", t->action == BROCK_DNT,
                          "cookieblock_listed", t->cookieblock_listed, "breakage", t->breakage,
                          "count", (json_int_t)t->count, "time_ms", (json_int_t)t->time_ms);

    return json_array_append_new(arg, j) < 0 ? BROCK_ENOMEM : 0;
}

struct find_site {
    const char *base;
    json_t *found;
};

static int on_find_site(void *arg, const struct brock_site *s)
{
    struct find_site *f = arg;

    if (strcmp(s->site, f->base) != 0)
        return 0;
    f->found = site_json(s);
    return f->found ? 1 : BROCK_ENOMEM;
}

int dash_api_site(struct dash_call *x)
{
    char host[BROCK_HOST_MAX], base[BROCK_HOST_MAX], views[BROCK_CLIENT_MAX];
    struct find_site f = {base, NULL};
    json_t *list;
    int rc;

    if (brock_url_host(x->arg, host) < 0 || brock_base_domain(host, base) <= 0)
        return dash_error(x, 400, "that is not a site name");
    if ((rc = dash_views(x, views)) != 0)
        return rc < 0 ? -1 : 0;
    if ((rc = brock_client_sites(x->e, views, on_find_site, &f)) < 0)
        return rc == BROCK_EINVAL ? dash_error(x, 400, brock_engine_errmsg(x->e)) : -1;
    if (!f.found)
        return dash_error(x, 404, "no page of that site was seen recently");
    x->json = f.found;
    if (!(list = json_array()) || json_object_set_new(x->json, "trackers", list) < 0)
        return -1;
    rc = brock_client_site_trackers(x->e, views, base, on_site_tracker, list);
    if (rc == BROCK_ENOTFOUND)
        return dash_error(x, 404, "no page of that site was seen recently");
    if (json_object_set_new(x->json, "learning", json_boolean(brock_engine_learning(x->e))) < 0)
        return -1;
    /* brock learns nothing inside HTTPS it passes through: the site's page says why. */
    if (rc >= 0 && x->env->host.intercept && x->env->host.passthrough_why) {
        const struct dash_host *h = &x->env->host;
        char www[BROCK_HOST_MAX + 8], why[512];
        const char *w = h->passthrough_why(h->passthrough_arg, x->e, base, why, sizeof(why));

        snprintf(www, sizeof(www), "www.%s", base);
        if (!w)
            w = h->passthrough_why(h->passthrough_arg, x->e, www, why, sizeof(why));
        if (w && json_object_set_new(x->json, "passthrough", json_string(w)) < 0)
            return -1;
    }
    return rc < 0 ? -1 : 0;
}

/* ---- settings ---- */

/* GET /api/stats?days=N: the daily counters of the last N days (default 7), oldest first. */
int dash_api_stats(struct dash_call *x)
{
    char days[8] = "7", *end = NULL, *text = NULL, views[BROCK_CLIENT_MAX];
    size_t len = 0;
    long n = 0;
    int rc;

    if ((rc = dash_views(x, views)) != 0)
        return rc < 0 ? -1 : 0;
    if (strstr(x->query, "days=") && dash_query_get(x->query, "days", days, sizeof(days)) < 0)
        days[0] = '\0';
    if (days[0] >= '0' && days[0] <= '9')
        n = strtol(days, &end, 10);
    if (!end || *end || n < 1 || n > BROCK_DAILY_DAYS_MAX)
        return dash_error(x, 400, "\"days\" must be a whole number of days from 1 to 3650");
    rc = brock_client_daily_json(x->e, views, (int)n, clock_now_ms(), &text, &len);
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    if (rc < 0)
        return -1;
    json_decref(x->json);
    x->json = json_loadb(text, len, 0, NULL);
    brock_free(text);
    return x->json ? 0 : -1;
}

int dash_api_settings(struct dash_call *x)
{
    char *text = NULL;
    size_t len = 0;

    if (brock_settings_json(x->e, &text, &len) < 0)
        return -1;
    json_decref(x->json);
    x->json = json_loadb(text, len, 0, NULL);
    brock_free(text);
    return x->json ? 0 : -1;
}

int dash_api_settings_put(struct dash_call *x)
{
    json_t *body = NULL, *v;
    const char *key;
    enum brock_setting s;

    if (dash_body_object(x, &body) < 0)
        return -1;
    if (!body)
        return 0;
    /* All of it is checked before anything changes. */
    json_object_foreach(body, key, v) {
        if (!strcmp(key, "page_view_days")) {
            if (json_is_integer(v) && json_integer_value(v) >= 0 &&
                json_integer_value(v) <= BROCK_PAGE_VIEW_DAYS_MAX)
                continue;
            json_decref(body);
            return dash_error(x, 400,
                              "\"page_view_days\" must be a whole number of days "
                              "from 0 to 3650");
        }
        if (brock_setting_parse(key, &s) != 0 || !json_is_boolean(v)) {
            json_decref(body);
            return dash_error(x, 400,
                              "settings are \"learn\", \"send_dnt\", \"check_dnt\", "
                              "\"clean_urls\" and \"uncloak\", each true or false, and "
                              "\"page_view_days\"");
        }
    }
    v = json_object_get(body, "page_view_days");
    if (v && brock_page_view_days_set(x->e, (long)json_integer_value(v)) < 0) {
        json_decref(body);
        return -1;
    }
    for (unsigned i = 0; i < BROCK_SETTING_COUNT; i++) {
        s = (enum brock_setting)i;
        v = json_object_get(body, brock_setting_name(s));
        if (v && brock_setting_set(x->e, s, json_is_true(v)) < 0) {
            json_decref(body);
            return -1;
        }
    }
    json_decref(body);
    return dash_api_settings(x);
}

/* ---- hosts passed through unseen ---- */

static int on_pass_entry(void *arg, const struct brock_passthrough *p)
{
    json_t *one;

    if (p->host[0] == '!')
        one = json_pack("{s:s, s:b}", "host", p->host + 1, "taken_off_shipped", 1);
    else
        one = json_pack("{s:s, s:s, s:I, s:b}", "host", p->host, "why", p->why, "time_ms",
                        (json_int_t)p->time_ms, "learned", p->learned);
    return !one || json_array_append_new(arg, one) < 0 ? BROCK_ENOMEM : 0;
}

/* GET /api/passthrough: {"entries": [{"host", "why", "time_ms", "learned"} or {"host",
 * "taken_off_shipped"}], "shipped": the hosts brock ships, "intercept": whether it sees
 * inside HTTPS at all}. */
int dash_api_passthrough(struct dash_call *x)
{
    json_t *list = json_array();

    if (!list || brock_passthrough_each(x->e, on_pass_entry, list) != 0) {
        json_decref(list);
        return -1;
    }
    x->json = json_pack("{s:o, s:I, s:b}", "entries", list, "shipped",
                        (json_int_t)x->env->host.passthrough_shipped, "intercept",
                        x->env->host.intercept);
    return x->json ? 0 : -1;
}

/* PUT /api/passthrough/HOST, with {"why": TEXT} or {}: HOST (or a pattern) passed through. */
int dash_api_passthrough_put(struct dash_call *x)
{
    json_t *body = NULL;
    int rc;

    if (dash_body_object(x, &body) < 0)
        return -1;
    if (!body)
        return 0;
    rc = brock_passthrough_add(x->e, x->arg, json_string_value(json_object_get(body, "why")),
                               clock_now_ms(), 0);
    json_decref(body);
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : dash_api_passthrough(x);
}

/* DELETE /api/passthrough/HOST: seen inside again, whichever list put it there (a shipped
 * host is taken off brock's own with a "!HOST" entry). */
int dash_api_passthrough_delete(struct dash_call *x)
{
    const struct dash_host *h = &x->env->host;
    char host[BROCK_HOST_MAX + 1], why[512];
    int rc = brock_passthrough_remove(x->e, x->arg);

    if (rc == BROCK_ENOTFOUND && brock_host_normalize(x->arg, strlen(x->arg), host + 1) > 0 &&
        h->passthrough_why &&
        h->passthrough_why(h->passthrough_arg, NULL, host + 1, why, sizeof(why))) {
        host[0] = '!';
        rc = brock_passthrough_add(x->e, host, "taken off the shipped list", clock_now_ms(), 0);
    }
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    if (rc == BROCK_ENOTFOUND)
        return dash_error(x, 404, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : dash_api_passthrough(x);
}

int dash_body_for(struct dash_call *x, int64_t *ms, int *until_resume)
{
    json_t *body = NULL, *v;
    char err[256];
    int rc;

    *until_resume = 0;
    if (!x->rq->body_len)
        return 0;
    if (dash_body_object(x, &body) < 0)
        return -1;
    if (!body)
        return -2;
    v = json_object_get(body, "for");
    *until_resume = json_is_true(json_object_get(body, "until_resume"));
    if (!v) {
        rc = 0;
    } else if (!json_is_string(v) || *until_resume) {
        rc = dash_error(x, 400,
                        "\"for\" is a duration such as \"10m\" or \"1h\" (or "
                        "\"until_resume\": true instead)") < 0
                 ? -1
                 : -2;
    } else if (brock_duration_parse(json_string_value(v), ms, err, sizeof(err)) < 0) {
        rc = dash_error(x, 400, err) < 0 ? -1 : -2;
    } else {
        rc = 1;
    }
    json_decref(body);
    return rc;
}

/* PUT /api/disabled/SITE, with {"for": DURATION} for a while; DELETE: on again. */
static int disabled_change(struct dash_call *x, int disabled)
{
    int64_t ms = 0;
    int timed = 0, ignored, rc;

    if (disabled && (timed = dash_body_for(x, &ms, &ignored)) < 0)
        return timed == -2 ? 0 : -1;
    rc = timed ? brock_site_disable_until(x->e, x->arg, clock_now_ms() + ms)
               : brock_site_set_disabled(x->e, x->arg, disabled);
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : dash_api_settings(x);
}

/* PUT /api/pause {"for": DURATION} or {"until_resume": true}; DELETE /api/pause resumes.
 * Both answer {paused, paused_until_ms}. */
int dash_api_pause_put(struct dash_call *x)
{
    int64_t ms = 0;
    int until_resume = 0, rc = dash_body_for(x, &ms, &until_resume);

    if (rc < 0)
        return rc == -2 ? 0 : -1;
    if (!rc && !until_resume)
        return dash_error(x, 400,
                          "the body says how long: {\"for\": \"10m\"}, or "
                          "{\"until_resume\": true}");
    if (brock_pause(x->e, rc ? clock_now_ms() + ms : BROCK_NO_END) < 0)
        return -1;
    return (x->json = pause_json(x->e)) ? 0 : -1;
}

int dash_api_pause_delete(struct dash_call *x)
{
    (void)brock_resume(x->e);
    return (x->json = pause_json(x->e)) ? 0 : -1;
}

int dash_api_disabled_put(struct dash_call *x)
{
    return disabled_change(x, 1);
}

int dash_api_disabled_delete(struct dash_call *x)
{
    return disabled_change(x, 0);
}

/* The widgets a site always lets load (widgetSiteAllowlist): PUT and DELETE
 * /api/widgets/SITE with {"widget": NAME}. */
static int widget_change(struct dash_call *x, int allow)
{
    json_t *body = NULL;
    const char *name;
    int rc;

    if (dash_body_object(x, &body) < 0)
        return -1;
    if (!body)
        return 0;
    name = json_string_value(json_object_get(body, "widget"));
    if (!name) {
        json_decref(body);
        return dash_error(x, 400, "the body names the widget: {\"widget\": NAME}");
    }
    rc = brock_widget_site_allow(x->e, x->arg, name, allow);
    json_decref(body);
    if (rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    if (rc == BROCK_ENOTFOUND)
        return dash_error(x, 404, brock_engine_errmsg(x->e));
    return rc < 0 ? -1 : dash_api_settings(x);
}

int dash_api_widget_put(struct dash_call *x)
{
    return widget_change(x, 1);
}

int dash_api_widget_delete(struct dash_call *x)
{
    return widget_change(x, 0);
}

/* ---- export, import, reset, forget ---- */

/* The refusal of a format brock does not write, naming those it does. */
static int export_refuse(struct dash_call *x)
{
    char msg[256] = "format must be one of ";
    size_t n = strlen(msg);
    const char *sep = "";

    for (const char *const *f = brock_export_formats(); *f; f++, sep = ", ") {
        int w = snprintf(msg + n, sizeof(msg) - n, "%s%s", sep, *f);

        if (w < 0 || (size_t)w >= sizeof(msg) - n)
            break;
        n += (size_t)w;
    }
    return dash_error(x, 400, msg);
}

int dash_api_export(struct dash_call *x)
{
    char format[16] = "pb";
    char *text = NULL;
    size_t len = 0;
    int rc;

    if (x->query[0] && dash_query_get(x->query, "format", format, sizeof(format)) < 0)
        return export_refuse(x);
    rc = brock_export(x->e, format, &text, &len);
    if (rc == BROCK_EINVAL)
        return export_refuse(x);
    if (rc < 0)
        return -1;
    rc = buf_append(&x->text, text, len);
    brock_free(text);
    if (rc < 0)
        return -1;
    x->type =
        export_is_json(format) ? "application/json; charset=utf-8" : "text/plain; charset=utf-8";
    export_file(format, x->filename, sizeof(x->filename));
    return 0;
}

/* A live list: the export in format x->arg with every action, revalidated by its ETag. */
int dash_api_list(struct dash_call *x)
{
    const struct brock_header *inm = http_header_find(x->rq->h, x->rq->n, "if-none-match");
    const struct brock_header *ims = http_header_find(x->rq->h, x->rq->n, "if-modified-since");
    struct dash_list_answer a;
    char *text = NULL;
    size_t len = 0;
    int rc = brock_export(x->e, x->arg, &text, &len);

    if (rc == BROCK_EINVAL) {
        char msg[300];
        snprintf(msg, sizeof(msg), "brock has no list named '%.40s' (see /api/status: exports)",
                 x->arg);
        return dash_error(x, 404, msg);
    }
    if (rc < 0)
        return -1;
    rc = dash_list_answer(x->env->lists, x->arg, text, len, inm ? inm->value : NULL,
                          ims ? ims->value : NULL, &a);
    if (rc == 0 && !a.not_modified)
        rc = buf_append(&x->text, text, len);
    brock_free(text);
    if (rc < 0)
        return -1;
    snprintf(x->validators, sizeof(x->validators), "ETag: %s\r\nLast-Modified: %s\r\n", a.etag,
             a.last_modified);
    x->status = a.not_modified ? 304 : 200;
    x->type =
        export_is_json(x->arg) ? "application/json; charset=utf-8" : "text/plain; charset=utf-8";
    return 0;
}

/* POST /api/import: a Privacy Badger export or seed, merged as `brock import` merges it. */
int dash_api_import(struct dash_call *x)
{
    struct brock_stats st;
    int rc;

    memset(&st, 0, sizeof(st));
    /* The host streamed a large body to a file (the route's BODY_FILE): read from there. */
    rc = x->rq->body_fd >= 0
             ? brock_import_fd(x->e, "the uploaded file", x->rq->body_fd, &st)
             : brock_import(x->e, "the uploaded file", x->rq->body, x->rq->body_len, &st);
    if (rc == BROCK_EFORMAT || rc == BROCK_EINVAL)
        return dash_error(x, 400, brock_engine_errmsg(x->e));
    if (rc == BROCK_EIO)
        return dash_error(x, 500, brock_engine_errmsg(x->e));
    if (rc < 0)
        return -1;
    x->json = json_pack("{s:I, s:I, s:I}", "entries", (json_int_t)st.entries, "recorded",
                        (json_int_t)st.recorded, "blocked", (json_int_t)st.blocked);
    return x->json ? 0 : -1;
}

int dash_api_reset(struct dash_call *x)
{
    size_t counts[BROCK_ACTION_COUNT], entries = 0;
    int rc = brock_reset(x->e);

    if (rc == BROCK_ENOMEM)
        return -1;
    if (rc < 0)
        return dash_error(x, 500, brock_engine_errmsg(x->e));
    brock_counts(x->e, counts, &entries);
    x->json = json_pack("{s:b, s:I}", "reset", 1, "domains", (json_int_t)entries);
    return x->json ? 0 : -1;
}

/* POST /api/forget: the recent page views go; what was learned stays. */
/* POST /api/forget: everyone's recent sites; ?client=NAME: that client's own views and
 * counts instead ({"client": true} when it had some). */
int dash_api_forget(struct dash_call *x)
{
    char views[BROCK_CLIENT_MAX];
    int n = dash_views(x, views);

    if (n != 0)
        return n < 0 ? -1 : 0;
    if (views[0]) {
        if ((n = brock_client_forget(x->e, views)) == BROCK_EINVAL)
            return dash_error(x, 400, brock_engine_errmsg(x->e));
        if (n < 0)
            return -1;
        json_decref(x->json);
        x->json = json_pack("{s:s, s:b}", "client", views, "forgotten", n);
        return x->json ? 0 : -1;
    }
    if ((n = brock_pages_forget(x->e, INT64_MAX)) < 0)
        return -1;
    json_decref(x->json);
    x->json = json_pack("{s:i}", "forgotten", n);
    return x->json ? 0 : -1;
}
