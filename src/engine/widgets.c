/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Social widgets (PRIVACY-BADGER.md 4): which of socialwidgets.json's widgets a page shows as
 * a placeholder, the domains a click on one lets load, and the widgetSiteAllowlist setting
 * (the widgets the user always allows on a site). The rule that lets an allowed widget's
 * requests through is checkAction's first line, in policy.c.
 */
#include "engine/engine.h"
#include "engine/names.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"

/* brock_widget_pattern_match() with both lengths known. */
static int pattern_match(const char *pattern, size_t pl, const char *host, size_t hl)
{
    if (pl < 2 || pattern[0] != '*' || pattern[1] != '.')
        return pl == hl && !memcmp(pattern, host, hl);
    /* "*.disqus.com": a name under disqus.com, on a label boundary. */
    pattern++;
    pl--;
    return hl > pl && !memcmp(host + hl - pl, pattern, pl);
}

int brock_widget_pattern_match(const char *pattern, const char *host)
{
    if (!pattern || !host)
        return 0;
    return pattern_match(pattern, strlen(pattern), host, strlen(host));
}

static int any_match(const char *const *allow, size_t n, const char *host)
{
    for (size_t i = 0; host && *host && i < n; i++)
        if (brock_widget_pattern_match(allow[i], host))
            return 1;
    return 0;
}

static json_t *widget_get(const struct brock_engine *e, const char *name)
{
    json_t *w = name ? json_object_get(e->lists.widgets, name) : NULL;

    return json_is_object(w) ? w : NULL;
}

static int in_strings(json_t *list, const char *s)
{
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), s))
            return 1;
    }
    return 0;
}

/* Whether the user excluded the widget from replacement (widgetReplacementExceptions). */
static int excluded(const struct brock_engine *e, const char *name)
{
    return in_strings(json_object_get(e->settings, "widgetReplacementExceptions"), name);
}

/* Whether the user always allows the widget on the page's exact host (widgetSiteAllowlist). */
static int site_allows(const struct brock_engine *e, const char *site, const char *name)
{
    json_t *all = json_object_get(e->settings, "widgetSiteAllowlist");

    return site && json_is_object(all) && in_strings(json_object_get(all, site), name);
}

/* The widget's replacementButton.unblockDomains, or NULL. */
static json_t *unblock_domains(json_t *w)
{
    json_t *rb = json_object_get(w, "replacementButton");
    json_t *list = json_is_object(rb) ? json_object_get(rb, "unblockDomains") : NULL;

    return json_is_array(list) ? list : NULL;
}

/* Whether one of the widget's domains ("domain", "domains") is blocked on site, and not
 * allowed on the page for now. */
static int widget_blocked(struct brock_engine *e, json_t *w, const char *site,
                          const char *const *allow, size_t n_allow)
{
    json_t *many = json_object_get(w, "domains"), *one = json_object_get(w, "domain"), *v;
    json_t *each[2] = {one, many};

    for (size_t k = 0; k < 2; k++) {
        size_t n = json_is_array(each[k]) ? json_array_size(each[k]) : 1;

        for (size_t i = 0; i < n; i++) {
            struct brock_decision d;
            const char *dom;

            v = json_is_array(each[k]) ? json_array_get(each[k], i) : each[k];
            if (!json_is_string(v))
                continue;
            dom = json_string_value(v);
            if (!strncmp(dom, "*.", 2))
                dom += 2;
            if (brock_decide(e, dom, site, &d) < 0)
                continue;
            if (d.effect == BROCK_DENY && d.reason == BROCK_WHY_ACTION &&
                !any_match(allow, n_allow, d.host))
                return 1;
        }
    }
    return 0;
}

/* ---- the user's choices over a widget ---- */

static int blocks(enum brock_action a)
{
    return a == BROCK_USER_BLOCK || a == BROCK_USER_COOKIEBLOCK;
}

struct under {
    const char *pattern;
    struct brock_user_choice *out;
    int site_only;
};

static int one_under(void *arg, const char *domain, enum brock_action a)
{
    struct under *u = arg;

    if (!blocks(a) || !brock_widget_pattern_match(u->pattern, domain))
        return 0;
    snprintf(u->out->domain, sizeof(u->out->domain), "%s", domain);
    u->out->action = a;
    u->out->site_only = u->site_only;
    return 1;
}

/* Whether a choice of the user's blocks or cookieblocks what pattern (an unblockDomains
 * entry) lets load on pages of site (normalised; base its base domain, or ""): one for the
 * name itself or a name above it, which reaches it (brock_decide() resolves them), or, for a
 * "*."-pattern, one for a name under it. */
static int pattern_choice(struct brock_engine *e, const char *site, const char *base,
                          const char *pattern, struct brock_user_choice *out)
{
    const char *root = strncmp(pattern, "*.", 2) ? pattern : pattern + 2;
    struct under u = {.pattern = pattern, .out = out};
    struct brock_decision d;
    const char *name;
    size_t it = 0;
    void *a;

    if (brock_decide(e, root, site, &d) == 0 && d.reason == BROCK_WHY_ACTION && blocks(d.action)) {
        snprintf(out->domain, sizeof(out->domain), "%s", *d.source ? d.source : d.host);
        out->action = d.action;
        out->site_only = d.site_choice;
        return 1;
    }
    if (root == pattern)
        return 0;
    while (strmap_next(&e->actions, &it, &name, &a))
        if (one_under(&u, name, (enum brock_action)((const struct action_entry *)a)->user))
            return 1;
    u.site_only = 1;
    return brock__site_actions_each(e, base, one_under, &u);
}

/* The choice over the widget w (its unblockDomains) on site, as brock_widget_user_choice(). */
static int widget_choice(struct brock_engine *e, json_t *w, const char *site,
                         struct brock_user_choice *out)
{
    json_t *list = unblock_domains(w), *v;
    const char *base = brock__base(e, site);
    size_t i;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && pattern_choice(e, site, base, json_string_value(v), out))
            return 1;
    }
    return 0;
}

int brock_widget_user_choice(struct brock_engine *e, const char *site_host, const char *name,
                             struct brock_user_choice *out)
{
    char site[BROCK_HOST_MAX];
    json_t *w = widget_get(e, name);

    memset(out, 0, sizeof(*out));
    if (!site_host || brock_host_normalize(site_host, strlen(site_host), site) < 0)
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a host name",
                           site_host ? site_host : "(null)");
    if (!w || !json_array_size(unblock_domains(w)))
        return brock__fail(e, BROCK_ENOTFOUND, "no widget '%.80s' lets anything load",
                           name ? name : "(null)");
    return widget_choice(e, w, site, out);
}

/* The strings of list (an array; anything else: none) appended to a new array, or NULL when
 * out of memory. */
static json_t *strings_copy(json_t *list)
{
    json_t *out = json_array(), *v;
    size_t i;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && out && json_array_append(out, v) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}

/* The widget as the page's script finds it: its name, its CSS selectors, and the elements
 * whose src starts with one of their URLs. NULL when out of memory. */
static json_t *widget_item(const char *name, json_t *w, const struct brock_user_choice *chosen)
{
    json_t *item = json_object(), *elements = json_array(), *sel = json_object_get(w, "selectors");
    json_t *v;
    size_t i;

    if (!item || !elements || json_object_set_new(item, "name", json_string(name)) < 0 ||
        json_object_set_new(item, "selectors",
                            strings_copy(json_object_get(w, "buttonSelectors"))) < 0)
        goto fail;
    json_array_foreach(sel, i, v) {
        json_t *elm = json_is_object(v) ? json_object_get(v, "elm") : NULL, *one, *urls;

        if (!json_is_string(elm))
            continue;
        one = json_pack("{s:O}", "elm", elm);
        urls = strings_copy(json_object_get(v, "urls"));
        if (!one || !urls || json_object_set_new(one, "urls", urls) < 0 ||
            json_array_append_new(elements, one) < 0) {
            json_decref(one);
            goto fail;
        }
    }
    if (json_object_set_new(item, "elements", elements) < 0 ||
        (chosen->domain[0] && json_object_set_new(item, "chosen", json_string(chosen->domain)) < 0))
        goto fail_item;
    return item;
fail:
    json_decref(elements);
fail_item:
    json_decref(item);
    return NULL;
}

int brock_widgets_blocked(struct brock_engine *e, const char *site_host, const char *const *allow,
                          size_t n_allow, char **out)
{
    return brock_client_widgets_blocked(e, NULL, site_host, allow, n_allow, out);
}

int brock_client_widgets_blocked(struct brock_engine *e, const char *client, const char *site_host,
                                 const char *const *allow, size_t n_allow, char **out)
{
    char site[BROCK_HOST_MAX];
    json_t *list, *w;
    const char *name;
    int n = 0;

    *out = NULL;
    if (!site_host || brock_host_normalize(site_host, strlen(site_host), site) < 0)
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a host name",
                           site_host ? site_host : "(null)");
    if (!(list = json_array()))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    json_object_foreach(e->lists.widgets, name, w) {
        struct brock_user_choice chosen = {0};
        json_t *item;

        if (!json_is_object(w) || excluded(e, name) || site_allows(e, site, name) ||
            (client && *client && brock__client_widget_listed(e, client, site, name)) ||
            !widget_blocked(e, w, site, allow, n_allow))
            continue;
        /* A widget the user's own choice keeps blocked is replaced all the same, but its
         * placeholder offers no way round that choice. */
        (void)widget_choice(e, w, site, &chosen);
        if (!(item = widget_item(name, w, &chosen)) || json_array_append_new(list, item) < 0) {
            json_decref(list);
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        }
        n++;
    }
    *out = json_dumps(list, JSON_COMPACT);
    json_decref(list);
    if (!*out)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    return n;
}

/* The site a widget is allowed on, normalised into host, and the widget, which must exist to
 * be allowed. Returns 0, or BROCK_EINVAL or BROCK_ENOTFOUND with errmsg set. */
static int allow_args(struct brock_engine *e, const char *site, const char *name, int allow,
                      char host[BROCK_HOST_MAX])
{
    if (!site || brock_host_normalize(site, strlen(site), host) < 0 || !hostname_valid(host))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a site's host name",
                           site ? site : "(null)");
    if (allow && !widget_get(e, name))
        return brock__fail(e, BROCK_ENOTFOUND, "no widget is called '%.80s'", name);
    return 0;
}

int brock__widget_unblocks(const struct brock_engine *e, const char *name, const char *host)
{
    json_t *list = unblock_domains(widget_get(e, name)), *v;
    size_t i;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && brock_widget_pattern_match(json_string_value(v), host))
            return 1;
    }
    return 0;
}

/* Takes name off client's widgets on host, the empty objects with it. Returns 0 or -1. */
static int client_widget_remove(struct brock_engine *e, const char *client, json_t *c,
                                const char *host, const char *name)
{
    json_t *widgets = json_object_get(c, "widgets"), *list = json_object_get(widgets, host), *v;
    size_t i;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), name))
            break;
    }
    if (json_array_remove(list, i) < 0 ||
        (!json_array_size(list) && json_object_del(widgets, host) < 0))
        return -1;
    if (!json_object_size(widgets))
        json_object_del(c, "widgets");
    brock__client_tidy(e, client);
    return 0;
}

/* Puts name on client's widgets on host. Returns 0 or -1. */
static int client_widget_add(json_t *c, const char *host, const char *name)
{
    json_t *widgets = json_object_get(c, "widgets"), *list;

    if (!json_is_object(widgets)) {
        if (json_object_set_new(c, "widgets", json_object()) < 0)
            return -1;
        widgets = json_object_get(c, "widgets");
    }
    if (!json_is_array(list = json_object_get(widgets, host))) {
        if (json_object_set_new(widgets, host, json_array()) < 0)
            return -1;
        list = json_object_get(widgets, host);
    }
    return json_array_append_new(list, json_string(name));
}

int brock_client_widget_site_allow(struct brock_engine *e, const char *client, const char *site,
                                   const char *name, int allow)
{
    char host[BROCK_HOST_MAX];
    json_t *c;
    int listed;

    if (!brock__client_ok(client))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a client", client ? client : "(null)");
    if (!name)
        name = "";
    if ((listed = allow_args(e, site, name, allow, host)) < 0)
        return listed;
    listed = brock__client_widget_listed(e, client, host, name);
    if (!allow && !listed)
        return brock__fail(e, BROCK_ENOTFOUND, "%s does not allow the widget '%.80s' for %s", host,
                           name, client);
    if (allow && listed)
        return 0;
    if (!(c = brock__client_object(e, client, allow)) ||
        (allow ? client_widget_add(c, host, name)
               : client_widget_remove(e, client, c, host, name)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_touch(e, "brockClients");
    brock__settings_changed(e);
    return 0;
}

int brock_widget_unblock_each(const struct brock_engine *e, const char *name,
                              int (*cb)(void *arg, const char *pattern), void *arg)
{
    json_t *list = unblock_domains(widget_get(e, name)), *v;
    size_t i, n = 0;
    int rc;

    json_array_foreach(list, i, v) {
        if (!json_is_string(v) || !json_string_length(v))
            continue;
        n++;
        if ((rc = cb(arg, json_string_value(v))) != 0)
            return rc;
    }
    return n ? 0 : BROCK_ENOTFOUND;
}

/* ---- widgetSiteAllowlist ---- */

int brock_widget_site_allow(struct brock_engine *e, const char *site, const char *name, int allow)
{
    char host[BROCK_HOST_MAX];
    json_t *all = json_object_get(e->settings, "widgetSiteAllowlist"), *list, *v;
    size_t i;
    int rc;

    if (!name)
        name = "";
    if ((rc = allow_args(e, site, name, allow, host)) < 0)
        return rc;
    if (!json_is_object(all)) {
        if (!allow)
            return brock__fail(e, BROCK_ENOTFOUND, "%s allows no widget", host);
        if (json_object_set_new(e->settings, "widgetSiteAllowlist", json_object()) < 0)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        all = json_object_get(e->settings, "widgetSiteAllowlist");
    }
    list = json_object_get(all, host);
    json_array_foreach(list, i, v) {
        if (!json_is_string(v) || strcmp(json_string_value(v), name) != 0)
            continue;
        if (allow)
            return 0;
        if (json_array_remove(list, i) < 0 ||
            (!json_array_size(list) && json_object_del(all, host) < 0))
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        brock__settings_touch(e, "widgetSiteAllowlist");
        e->widgets_gen++;
        return 0;
    }
    if (!allow)
        return brock__fail(e, BROCK_ENOTFOUND, "%s does not allow the widget '%.80s'", host, name);
    if (!json_is_array(list)) {
        if (json_object_set_new(all, host, json_array()) < 0)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        list = json_object_get(all, host);
    }
    if (json_array_append_new(list, json_string(name)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_touch(e, "widgetSiteAllowlist");
    e->widgets_gen++;
    return 0;
}

int brock_widget_site_allowlist_each(const struct brock_engine *e,
                                     int (*cb)(void *arg, const char *site, const char *name),
                                     void *arg)
{
    json_t *all = json_object_get(e->settings, "widgetSiteAllowlist"), *list, *v;
    const char *site;
    size_t i;
    int rc;

    json_object_foreach(all, site, list) {
        json_array_foreach(list, i, v) {
            if (json_is_string(v) && (rc = cb(arg, site, json_string_value(v))) != 0)
                return rc;
        }
    }
    return 0;
}

/* ---- checkAction's first line ---- */

/* Whether a widget the site always allows has unblockDomains matching host. */
static int site_allowed_host(const struct brock_engine *e, const char *site, const char *host)
{
    json_t *all = json_object_get(e->settings, "widgetSiteAllowlist"), *names, *n;
    size_t i;

    names = site && json_is_object(all) ? json_object_get(all, site) : NULL;
    json_array_foreach(names, i, n) {
        if (json_is_string(n) && brock__widget_unblocks(e, json_string_value(n), host))
            return 1;
    }
    return 0;
}

int brock__widget_allowed(const struct brock_engine *e, const struct brock_request *r,
                          const char *site, const char *host)
{
    const char *frame = r->frame_host && *r->frame_host ? r->frame_host : NULL;

    if (any_match(r->widget_allow, r->n_widget_allow, host) ||
        (frame && any_match(r->widget_allow, r->n_widget_allow, frame)))
        return 1;
    return site_allowed_host(e, site, host) || (frame && site_allowed_host(e, site, frame));
}

/* ---- the same, with widgetSiteAllowlist read once ---- */

int brock__widget_sites_read(const struct brock_engine *e, struct strmap *out)
{
    json_t *all = json_object_get(e->settings, "widgetSiteAllowlist"), *names, *n;
    const char *site;
    size_t i;

    json_object_foreach(all, site, names) {
        json_t *lists = json_array();
        struct brock__names *domains = NULL;
        int rc = lists ? 0 : BROCK_ENOMEM;

        json_array_foreach(names, i, n) {
            json_t *list =
                json_is_string(n) ? unblock_domains(widget_get(e, json_string_value(n))) : NULL;

            if (rc == 0 && list && json_array_append(lists, list) < 0)
                rc = BROCK_ENOMEM;
        }
        if (rc == 0)
            rc = brock__names_from_json(lists, NULL, &domains);
        json_decref(lists);
        if (rc < 0)
            goto fail;
        if (domains && strmap_put(out, site, domains) < 0) {
            mem_free(domains);
            goto fail;
        }
    }
    return 0;
fail:
    strmap_cleanup(out, mem_free);
    return BROCK_ENOMEM;
}

static int names_match(const struct brock__names *list, const char *host)
{
    size_t hl;

    if (!list || !host || !*host)
        return 0;
    hl = strlen(host);
    for (size_t i = 0; i < list->n; i++)
        if (pattern_match(list->v[i].s, list->v[i].len, host, hl))
            return 1;
    return 0;
}

int brock__widget_allowed_in(const struct brock__decide_settings *ds, const struct brock_request *r,
                             const char *site, const char *host)
{
    const char *frame = r->frame_host && *r->frame_host ? r->frame_host : NULL;
    const struct brock__names *list;

    if (r->n_widget_allow && (any_match(r->widget_allow, r->n_widget_allow, host) ||
                              (frame && any_match(r->widget_allow, r->n_widget_allow, frame))))
        return 1;
    list = site && ds->widget_sites.len ? strmap_get(&ds->widget_sites, site) : NULL;
    return names_match(list, host) || names_match(list, frame);
}
