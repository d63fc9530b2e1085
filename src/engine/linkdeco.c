/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Link decoration learned (beyond Privacy Badger): a navigation from one site to another whose
 * query carries the leaving site's identifier for the person, found by the rule of pixel
 * cookie sharing (pixel.c), is evidence against the receiving site, and the parameter's name
 * is noted with the leaving site. A name noted with BROCK_LINK_PARAM_SITES sites is learned,
 * and taken out of navigations from other sites' pages as ClearURLs' rules' names are
 * (brock_request_clean()).
 *
 * The names live in the settings object, brock's own key (never exported):
 *   "brockLinkParams": {NAME: {"sites": [SITE, ...], "time_ms": T, "keep": true}}
 * so that they reach the state and every process on it as the settings do.
 */
#include "engine/engine.h"
#include "engine/evidence.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"

#define PARAMS_KEY "brockLinkParams"

int brock__link_params_setting(const char *key)
{
    return !strcmp(key, PARAMS_KEY);
}

/* ---- the names ---- */

static json_t *params_of(const struct brock_engine *e)
{
    json_t *all = json_object_get(e->settings, PARAMS_KEY);

    return json_is_object(all) ? all : NULL;
}

static json_t *params_ensure(struct brock_engine *e)
{
    json_t *all = params_of(e);

    if (all)
        return all;
    if (json_object_set_new(e->settings, PARAMS_KEY, json_object()) < 0)
        return NULL;
    return json_object_get(e->settings, PARAMS_KEY);
}

static int name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    if (n == 0 || n >= sizeof(((struct brock_link_decoration *)0)->param))
        return 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '&' || *p == '=' || *p == '#')
            return 0;
    return 1;
}

static int is_learned(json_t *one)
{
    return json_array_size(json_object_get(one, "sites")) >= BROCK_LINK_PARAM_SITES;
}

/* Makes room for one more name: the one seen longest ago goes, a learned or kept one only
 * when every one is. */
static void params_room(json_t *all)
{
    const char *name, *oldest = NULL;
    json_t *one;
    int64_t when = INT64_MAX;
    int pass;

    if (json_object_size(all) < BROCK_LINK_PARAMS_MAX)
        return;
    for (pass = 0; pass < 2 && !oldest; pass++) {
        json_object_foreach(all, name, one) {
            int64_t t = json_integer_value(json_object_get(one, "time_ms"));

            if (pass == 0 && (is_learned(one) || json_is_true(json_object_get(one, "keep"))))
                continue;
            if (t < when) {
                when = t;
                oldest = name;
            }
        }
    }
    if (oldest)
        json_object_del(all, oldest);
}

/* Notes name seen leaving site at time_ms. Returns 1 when that made it learned, 0, or
 * BROCK_ENOMEM. */
static int param_note(struct brock_engine *e, const char *name, const char *site, int64_t time_ms)
{
    json_t *all = params_ensure(e), *one, *sites, *v;
    size_t i;
    int was;

    if (!all)
        return BROCK_ENOMEM;
    if (!(one = json_object_get(all, name))) {
        params_room(all);
        if (json_object_set_new(
                all, name, json_pack("{s:[], s:I}", "sites", "time_ms", (json_int_t)time_ms)) < 0)
            return BROCK_ENOMEM;
        one = json_object_get(all, name);
    }
    sites = json_object_get(one, "sites");
    if (!json_is_array(sites))
        return BROCK_ENOMEM;
    was = is_learned(one);
    /* When it was last seen is memory's: written with the next change, so that a name seen
     * again and again does not write the settings (and win over another process's word on
     * them) each time. */
    if (json_object_set_new(one, "time_ms", json_integer((json_int_t)time_ms)) < 0)
        return BROCK_ENOMEM;
    json_array_foreach(sites, i, v) {
        if (!strcmp(json_string_value(v) ? json_string_value(v) : "", site))
            return 0;
    }
    if (json_array_size(sites) >= BROCK_LINK_PARAM_SITES)
        return 0;
    if (json_array_append_new(sites, json_string(site)) < 0)
        return BROCK_ENOMEM;
    brock__settings_touch(e, PARAMS_KEY);
    brock__settings_changed(e);
    return !was && is_learned(one);
}

int brock_link_param_keep(struct brock_engine *e, const char *name, int keep)
{
    json_t *all, *one;

    if (!name_ok(name))
        return brock__fail(e, BROCK_EINVAL, "'%.200s' is not a parameter name", name ? name : "");
    if (!(all = params_ensure(e)))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if (!(one = json_object_get(all, name))) {
        if (!keep)
            return 0;
        params_room(all);
        if (json_object_set_new(all, name,
                                json_pack("{s:[], s:I}", "sites", "time_ms", (json_int_t)0)) < 0)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        one = json_object_get(all, name);
    }
    if (keep ? json_object_set_new(one, "keep", json_true()) < 0
             : json_object_del(one, "keep") < 0 && json_object_get(one, "keep"))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_touch(e, PARAMS_KEY);
    brock__settings_changed(e);
    return 0;
}

int brock_link_param_forget(struct brock_engine *e, const char *name)
{
    json_t *all = params_of(e);

    if (!name || !all || json_object_del(all, name) < 0)
        return brock__fail(e, BROCK_ENOTFOUND, "no parameter '%.200s' was noted", name ? name : "");
    brock__settings_touch(e, PARAMS_KEY);
    brock__settings_changed(e);
    return 0;
}

/* The parameter names in the order brock_link_params_each() gives them. */
static int param_cmp(const void *a, const void *b)
{
    const struct brock_link_param *x = a, *y = b;

    if (x->learned != y->learned)
        return y->learned - x->learned;
    return strcmp(x->name, y->name);
}

int brock_link_params_each(const struct brock_engine *e,
                           int (*cb)(void *arg, const struct brock_link_param *p), void *arg)
{
    json_t *all = params_of(e), *one, *v;
    struct brock_link_param *list;
    const char *name;
    size_t n = 0, i;
    int rc = 0;

    if (!all || !json_object_size(all))
        return 0;
    if (!(list = mem_calloc(json_object_size(all), sizeof(*list))))
        return BROCK_ENOMEM;
    json_object_foreach(all, name, one) {
        struct brock_link_param *p = &list[n++];

        p->name = name;
        json_array_foreach(json_object_get(one, "sites"), i, v) {
            if (p->n_sites < BROCK_LINK_PARAM_SITES && json_is_string(v))
                p->sites[p->n_sites++] = json_string_value(v);
        }
        p->learned = p->n_sites >= BROCK_LINK_PARAM_SITES;
        p->kept = json_is_true(json_object_get(one, "keep"));
        p->time_ms = json_integer_value(json_object_get(one, "time_ms"));
    }
    qsort(list, n, sizeof(*list), param_cmp);
    for (i = 0; i < n && rc == 0; i++)
        rc = cb(arg, &list[i]);
    mem_free(list);
    return rc;
}

static int on_param_json(void *arg, const struct brock_link_param *p)
{
    json_t *sites = json_array(), *one;

    for (size_t i = 0; sites && i < p->n_sites; i++)
        if (json_array_append_new(sites, json_string(p->sites[i])) < 0) {
            json_decref(sites);
            return BROCK_ENOMEM;
        }
    one = sites ? json_pack("{s:s, s:o, s:b, s:b, s:I}", "name", p->name, "sites", sites, "learned",
                            p->learned, "kept", p->kept, "time_ms", (json_int_t)p->time_ms)
                : NULL;
    return !one || json_array_append_new(arg, one) < 0 ? BROCK_ENOMEM : 0;
}

int brock_link_params_json(struct brock_engine *e, char **out, size_t *len)
{
    json_t *a = json_array();
    int rc = a ? brock_link_params_each(e, on_param_json, a) : BROCK_ENOMEM;

    *out = NULL;
    *len = 0;
    if (rc == 0 && !(*out = json_dumps(a, JSON_COMPACT | JSON_ENSURE_ASCII)))
        rc = BROCK_ENOMEM;
    json_decref(a);
    if (rc != 0 || !*out)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    *len = strlen(*out);
    return 0;
}

/* ---- taking them out ---- */

/* Whether the raw parameter name (len bytes, as written) is a learned name the user does not
 * keep. */
static int strips(json_t *all, const char *raw, size_t len)
{
    char name[128];
    json_t *one;

    if (len >= sizeof(name))
        return 0;
    /* Compared as the names were noted: form-decoded ('+' a space, %XX a byte). */
    name[brock__form_decode(raw, len, name)] = '\0';
    one = json_object_get(all, name);
    return one && is_learned(one) && !json_is_true(json_object_get(one, "keep"));
}

int brock__link_params_strip(const struct brock_engine *e, char *url, struct brock_clean *info)
{
    json_t *all = params_of(e);
    char *q = strchr(url, '?'), *hash;
    size_t from, to, w, r, gone = 0;
    int wrote = 0;

    if (!all || !q)
        return 0;
    hash = strchr(q, '#');
    from = (size_t)(q - url) + 1;
    to = hash ? (size_t)(hash - url) : strlen(url);
    w = from;
    for (r = from; r <= to; r++) {
        size_t end = r, name;

        while (end < to && url[end] != '&')
            end++;
        for (name = r; name < end && url[name] != '='; name++)
            ;
        if (name > r && strips(all, url + r, name - r)) {
            size_t used = strlen(info->removed);

            if (used + (name - r) + 2 < sizeof(info->removed))
                snprintf(info->removed + used, sizeof(info->removed) - used, "%s%.*s",
                         used ? "," : "", (int)(name - r), url + r);
            info->n_removed++;
            gone++;
        } else {
            if (wrote)
                url[w++] = '&';
            memmove(url + w, url + r, end - r);
            w += end - r;
            wrote = 1;
        }
        r = end;
    }
    if (!gone)
        return 0;
    /* The query emptied goes with its '?'. */
    if (w == from)
        w--;
    memmove(url + w, url + to, strlen(url + to) + 1);
    return 1;
}

/* ---- learning ---- */

int brock_navigation_observe(struct brock_engine *e, const struct brock_navigation *n,
                             struct brock_link_decoration *out)
{
    struct brock_link_decoration scratch;
    char host[BROCK_HOST_MAX], from_host[BROCK_HOST_MAX];
    struct brock__pixel_hit hit;
    struct brock__pixel_in in;
    struct brock__parties p;
    struct brock__evidence_in ev;
    enum brock_action a;
    int r;

    if (!out)
        out = &scratch;
    memset(out, 0, sizeof(*out));
    if (!n || !n->url)
        return brock__fail(e, BROCK_EINVAL, "a navigation needs its URL");
    if (!e->learn || !n->from || !n->cookies || !*n->cookies || !strchr(n->url, '?') ||
        brock_url_host(n->url, host) < 0 || brock_url_host(n->from, from_host) < 0 ||
        !brock__learn_parties(e, host, from_host, &p))
        return 0;
    in.url = n->url;
    in.url_len = strlen(n->url);
    in.tab_url = n->from;
    in.tab_url_len = strlen(n->from);
    in.ua = n->user_agent;
    in.ua_len = n->user_agent ? strlen(n->user_agent) : 0;
    in.cookies = n->cookies;
    in.cookies_len = strlen(n->cookies);
    if ((r = brock__pixel_share(&in, &hit)) <= 0)
        return r < 0 ? brock__fail(e, r, "out of memory while learning") : 0;
    out->found = 1;
    snprintf(out->param, sizeof(out->param), "%s", hit.param);
    snprintf(out->cookie, sizeof(out->cookie), "%s", hit.cookie);
    snprintf(out->tracker, sizeof(out->tracker), "%s", p.base);
    if (name_ok(hit.param) && (r = param_note(e, hit.param, p.site, n->time_ms)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory while learning");
    out->param_learned = r == 1;
    /* The receiver, by brock_observe()'s guards: recorded once a site, never decided. */
    if (brock__snitch_has(brock__snitch_get(e, p.base), p.site))
        return 0;
    a = brock__best_action(e, p.fqdn, NULL);
    if (a != BROCK_NOACTION && a != BROCK_ALLOW)
        return 0;
    ev.host = p.fqdn;
    ev.detail = hit.cookie;
    ev.param = hit.param;
    ev.kind = BROCK_EVIDENCE_LINK;
    ev.time_ms = n->time_ms;
    r = brock__record_prevalence(e, p.fqdn, p.base, p.site, &ev);
    if (r >= 0 && brock__tracking_add(e, p.base, p.site, BROCK__TRACK_LINK) < 0)
        r = BROCK_ENOMEM;
    if (r < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory while learning");
    out->recorded = r > 0;
    out->blocked = r == 2;
    return 0;
}
