/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Each client's own switches: brock paused for one client, or off on a site for one client,
 * for good or until a time, whether the client chose it for itself or the owner chose it for
 * the client, and widgets a client always lets load on a site (widgets.c keeps them). Kept in
 * the settings object under brock's own key, so that they reach the
 * state, the other processes on it and later opens as every setting does:
 *
 *   "brockClients": {CLIENT: {"paused": END, "sites": {SITE: END}, "widgets": {HOST: [NAME]}}}
 *
 * END is Unix ms, or BROCK_NO_END for none. As with the pause everywhere (pause.c), no check
 * reads a clock: a switch holds while it is there, and goes when brock_expire() says its
 * time has come.
 */
#include "engine/engine.h"

#include <string.h>

#define CLIENTS_KEY "brockClients"

/* An end as kept: a positive integer; 0 for anything else. */
static int64_t end_of(const json_t *v)
{
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;

    return n > 0 ? (int64_t)n : 0;
}

static json_t *client_get(const struct brock_engine *e, const char *client)
{
    json_t *all = json_object_get(e->settings, CLIENTS_KEY);

    return client && *client && json_is_object(all) ? json_object_get(all, client) : NULL;
}

int brock__site_match(const char *site_host, size_t hlen, const char *p)
{
    size_t plen = strlen(p);

    if (hlen == plen && !memcmp(site_host, p, plen))
        return 1;
    return plen && hlen > plen && site_host[hlen - plen - 1] == '.' &&
           !memcmp(site_host + hlen - plen, p, plen);
}

int brock__client_off(const struct brock_engine *e, const char *client, const char *site_host)
{
    json_t *c = client_get(e, client), *end;
    const char *site;
    size_t hlen;

    if (!json_is_object(c))
        return 0;
    if (end_of(json_object_get(c, "paused")))
        return 1;
    if (!site_host || !*site_host)
        return 0;
    hlen = strlen(site_host);
    json_object_foreach(json_object_get(c, "sites"), site, end) {
        if (end_of(end) && brock__site_match(site_host, hlen, site))
            return 1;
    }
    return 0;
}

int brock_client_site_is_disabled(const struct brock_engine *e, const char *client,
                                  const char *site_host)
{
    char host[BROCK_HOST_MAX];

    if (site_host && *site_host && brock_url_host(site_host, host) >= 0)
        site_host = host;
    return brock__client_off(e, client, site_host);
}

/* client's object, made when missing. NULL when out of memory. */
static json_t *client_ensure(struct brock_engine *e, const char *client)
{
    json_t *all = json_object_get(e->settings, CLIENTS_KEY), *c;

    if (!json_is_object(all)) {
        if (json_object_set_new(e->settings, CLIENTS_KEY, json_object()) < 0)
            return NULL;
        all = json_object_get(e->settings, CLIENTS_KEY);
    }
    if (json_is_object(c = json_object_get(all, client)))
        return c;
    if (json_object_set_new(all, client, json_object()) < 0)
        return NULL;
    return json_object_get(all, client);
}

/* Drops client's object from all when nothing is left in it. */
static void client_tidy_in(json_t *all, const char *client)
{
    json_t *c = json_object_get(all, client);

    if (c && !json_object_get(c, "paused") && !json_object_size(json_object_get(c, "sites")) &&
        !json_object_size(json_object_get(c, "widgets")))
        json_object_del(all, client);
}

/* The same, and the key once no client is left. */
static void client_tidy(struct brock_engine *e, const char *client)
{
    json_t *all = json_object_get(e->settings, CLIENTS_KEY);

    client_tidy_in(all, client);
    if (all && !json_object_size(all))
        json_object_del(e->settings, CLIENTS_KEY);
}

json_t *brock__client_object(struct brock_engine *e, const char *client, int create)
{
    return create ? client_ensure(e, client) : client_get(e, client);
}

void brock__client_tidy(struct brock_engine *e, const char *client)
{
    client_tidy(e, client);
}

int brock__client_widget_listed(const struct brock_engine *e, const char *client, const char *site,
                                const char *name)
{
    json_t *list = json_object_get(json_object_get(client_get(e, client), "widgets"), site), *v;
    size_t i;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), name))
            return 1;
    }
    return 0;
}

int brock__client_widget_allowed(const struct brock_engine *e, const char *client, const char *site,
                                 const char *host)
{
    json_t *list = json_object_get(json_object_get(client_get(e, client), "widgets"), site), *v;
    size_t i;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && brock__widget_unblocks(e, json_string_value(v), host))
            return 1;
    }
    return 0;
}

/* After a change: written at the next sync, read by the next decision. */
static int changed(struct brock_engine *e)
{
    brock__settings_touch(e, CLIENTS_KEY);
    brock__answers_forget(e);
    brock__settings_changed(e);
    return 0;
}

static int client_checked(struct brock_engine *e, const char *client)
{
    if (!brock__client_ok(client))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client ? client : "(null)");
    return 0;
}

int brock_client_pause(struct brock_engine *e, const char *client, int64_t until_ms)
{
    json_t *c;

    if (client_checked(e, client) < 0)
        return BROCK_EINVAL;
    if (until_ms <= 0)
        return brock__fail(e, BROCK_EINVAL, "a pause must end after 0 (Unix ms), not at %lld",
                           (long long)until_ms);
    if (!(c = client_ensure(e, client)) ||
        json_object_set_new(c, "paused", json_integer((json_int_t)until_ms)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    return changed(e);
}

int brock_client_resume(struct brock_engine *e, const char *client)
{
    json_t *c;

    if (client_checked(e, client) < 0)
        return BROCK_EINVAL;
    if (!(c = client_get(e, client)) || !json_object_get(c, "paused"))
        return 0;
    json_object_del(c, "paused");
    client_tidy(e, client);
    return changed(e);
}

int brock_client_site_set_disabled(struct brock_engine *e, const char *client, const char *site,
                                   int64_t until_ms)
{
    char host[BROCK_HOST_MAX];
    json_t *c, *sites;

    if (client_checked(e, client) < 0)
        return BROCK_EINVAL;
    if (until_ms < 0)
        return brock__fail(e, BROCK_EINVAL, "a time off must end after 0 (Unix ms), not at %lld",
                           (long long)until_ms);
    if (brock__site_checked(e, site, until_ms > 0, host) < 0)
        return BROCK_EINVAL;
    if (!until_ms) {
        c = client_get(e, client);
        if (!json_object_get(json_object_get(c, "sites"), host))
            return 0;
        json_object_del(json_object_get(c, "sites"), host);
        client_tidy(e, client);
        return changed(e);
    }
    if (!(c = client_ensure(e, client)))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if (!json_is_object(sites = json_object_get(c, "sites"))) {
        if (json_object_set_new(c, "sites", json_object()) < 0)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        sites = json_object_get(c, "sites");
    }
    if (json_object_set_new(sites, host, json_integer((json_int_t)until_ms)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    return changed(e);
}

/* c's widgets, as [{site, widget}] appended to out. Returns 0 or -1. */
static int widgets_json(json_t *c, json_t *out)
{
    json_t *names, *v;
    const char *site;
    size_t i;

    json_object_foreach(json_object_get(c, "widgets"), site, names) {
        json_array_foreach(names, i, v) {
            if (json_is_string(v) &&
                json_array_append_new(out, json_pack("{s:s, s:O}", "site", site, "widget", v)) < 0)
                return -1;
        }
    }
    return 0;
}

int brock_client_settings_json(struct brock_engine *e, const char *client, char **out, size_t *len)
{
    json_t *c, *o, *sites, *end;
    int64_t paused;
    const char *site;

    *out = NULL;
    *len = 0;
    if (client_checked(e, client) < 0)
        return BROCK_EINVAL;
    c = client_get(e, client);
    paused = end_of(json_object_get(c, "paused"));
    o = json_pack("{s:s, s:b, s:o, s:[], s:[]}", "client", client, "paused", paused > 0,
                  "paused_until_ms",
                  paused && paused != BROCK_NO_END ? json_integer((json_int_t)paused) : json_null(),
                  "disabled_sites", "widget_allowlist");
    sites = json_object_get(o, "disabled_sites");
    json_object_foreach(json_object_get(c, "sites"), site, end) {
        int64_t until = end_of(end);
        json_t *one =
            json_pack("{s:s, s:o}", "site", site, "until_ms",
                      until == BROCK_NO_END ? json_null() : json_integer((json_int_t)until));

        if (!until)
            continue;
        if (!one || json_array_append_new(sites, one) < 0) {
            json_decref(o);
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        }
    }
    if (widgets_json(c, json_object_get(o, "widget_allowlist")) < 0) {
        json_decref(o);
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    if (!o || !(*out = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII))) {
        json_decref(o);
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    json_decref(o);
    *len = strlen(*out);
    return 0;
}

/* ---- ends ---- */

int brock__clients_prune(struct brock_engine *e, int64_t now)
{
    json_t *all = json_object_get(e->settings, CLIENTS_KEY), *c, *end;
    const char *client, *site;
    void *tmp, *tmp2;
    int n = 0;

    if (all && !json_is_object(all)) {
        json_object_del(e->settings, CLIENTS_KEY);
        return 0;
    }
    json_object_foreach_safe(all, tmp, client, c)
    {
        int64_t paused = end_of(json_object_get(c, "paused"));

        if (json_object_get(c, "paused") && paused <= now) {
            n += paused > 0;
            json_object_del(c, "paused");
        }
        json_object_foreach_safe(json_object_get(c, "sites"), tmp2, site, end)
        {
            if (end_of(end) > now)
                continue;
            n += end_of(end) > 0;
            json_object_del(json_object_get(c, "sites"), site);
        }
        /* Deleting the current key while walking is allowed (foreach_safe). */
        client_tidy_in(all, client);
    }
    if (all && !json_object_size(all))
        json_object_del(e->settings, CLIENTS_KEY);
    return n;
}

int64_t brock__clients_next_end(const struct brock_engine *e)
{
    json_t *c, *end;
    const char *client, *site;
    int64_t next = 0;

    json_object_foreach(json_object_get(e->settings, CLIENTS_KEY), client, c) {
        int64_t p = end_of(json_object_get(c, "paused"));

        if (p && p != BROCK_NO_END && (!next || p < next))
            next = p;
        json_object_foreach(json_object_get(c, "sites"), site, end) {
            int64_t s = end_of(end);

            if (s && s != BROCK_NO_END && (!next || s < next))
                next = s;
        }
    }
    return next;
}

/* ---- the rooms ---- */

int brock__client_room_drop(const struct brock__client_rooms *r, void *room, int track)
{
    if (track && strvec_push(r->dropped, r->name(room)) < 0)
        return BROCK_ENOMEM;
    strmap_del(r->map, r->name(room));
    r->free(room);
    return 0;
}

void *brock__client_room(const struct brock__client_rooms *r, const char *client, int create,
                         int track)
{
    void *c, *v, *old = NULL;
    size_t it = 0;

    if ((c = strmap_get(r->map, client)) || !create)
        return c;
    if (r->map->len >= BROCK_CLIENTS_MAX) {
        while (strmap_next(r->map, &it, NULL, &v))
            if (!old || r->last(v) < r->last(old))
                old = v;
        if (brock__client_room_drop(r, old, track) < 0)
            return NULL;
    }
    if (!(c = r->make(client)))
        return NULL;
    if (strmap_put(r->map, r->name(c), c) < 0) {
        r->free(c);
        return NULL;
    }
    return c;
}

int brock__clients_setting(const char *key)
{
    return !strcmp(key, CLIENTS_KEY);
}
