/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The user's settings (Privacy Badger's settings_map, section 13): the switches brock acts
 * on, and the sites where it is disabled (section 4.2).
 */
#include "engine/engine.h"
#include "engine/names.h"

#include <string.h>

#include "util/alloc.h"

/* Each switch's name in brock and its key in Privacy Badger's settings_map, by its value. */
static const struct {
    const char *name, *key;
} switches[BROCK_SETTING_COUNT] = {
    [BROCK_SETTING_LEARN] = {"learn", "learnLocally"},
    [BROCK_SETTING_SEND_DNT] = {"send_dnt", "sendDNTSignal"},
    [BROCK_SETTING_CHECK_DNT] = {"check_dnt", "checkForDNTPolicy"},
    [BROCK_SETTING_CLEAN_URLS] = {"clean_urls", "brockCleanUrls"},
    [BROCK_SETTING_UNCLOAK] = {"uncloak", "brockUncloakCnames"},
};

static const char *setting_key(enum brock_setting s)
{
    return (unsigned)s < BROCK_SETTING_COUNT ? switches[s].key : NULL;
}

const char *brock_setting_name(enum brock_setting s)
{
    return (unsigned)s < BROCK_SETTING_COUNT ? switches[s].name : NULL;
}

int brock_setting_parse(const char *name, enum brock_setting *s)
{
    for (unsigned i = 0; name && i < BROCK_SETTING_COUNT; i++)
        if (!strcmp(name, switches[i].name)) {
            *s = (enum brock_setting)i;
            return 0;
        }
    return BROCK_EINVAL;
}

void brock__settings_touch(struct brock_engine *e, const char *key)
{
    e->settings_dirty = 1;
    /* Out of memory, every key counts as this process's: nothing is lost here, another's
     * change of another key may be. */
    if (!key || strmap_put(&e->settings_touched, key, (void *)1) < 0)
        e->settings_touch_all = 1;
}

void brock__settings_untouch(struct brock_engine *e)
{
    strmap_cleanup(&e->settings_touched, NULL);
    strmap_init(&e->settings_touched);
    e->settings_touch_all = 0;
}

int brock_setting(const struct brock_engine *e, enum brock_setting s)
{
    const char *key = setting_key(s);
    json_t *v = key ? json_object_get(e->settings, key) : NULL;

    return !v || json_is_true(v);
}

int brock_setting_set(struct brock_engine *e, enum brock_setting s, int on)
{
    const char *key = setting_key(s);

    if (!key)
        return brock__fail(e, BROCK_EINVAL, "unknown setting %d", (int)s);
    if (json_object_set_new(e->settings, key, json_boolean(on)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_touch(e, key);
    brock__settings_changed(e);
    return 0;
}

int brock_send_signals(const struct brock_engine *e, const char *site_host)
{
    return brock_setting(e, BROCK_SETTING_SEND_DNT) && !brock__site_off(e, site_host) &&
           !brock__sitefix_no_signals(e->sitefixes, site_host);
}

int brock_client_send_signals(const struct brock_engine *e, const char *client,
                              const char *site_host)
{
    return brock_send_signals(e, site_host) && !brock__client_off(e, client, site_host);
}

int brock_site_is_disabled(const struct brock_engine *e, const char *site_host)
{
    return brock__site_off(e, site_host);
}

/* getHostFromDomainInput: "*." and "*" dropped, then the host of the input as a URL. */
static int site_pattern(const char *input, char *out)
{
    if (!strncmp(input, "*.", 2))
        input += 2;
    else if (*input == '*')
        input++;
    if (brock_url_host(input, out) < 0 || !hostname_valid(out))
        return BROCK_EINVAL;
    return 0;
}

/* The site a user typed, as disabledSites keeps it, into host; a sentence in errmsg when it
 * is none. For a site to disable (to_add), a public suffix is refused too: brock would be
 * off on every site under it. An address is a site of its own. */
int brock__site_checked(struct brock_engine *e, const char *site, int to_add, char *host)
{
    if (!site || site_pattern(site, host) < 0)
        return brock__fail(e, BROCK_EINVAL,
                           "'%s' is not a site: give a host name (example.com) or a URL with "
                           "one (https://example.com/)",
                           site ? site : "");
    if (to_add && brock__is_suffix_name(host))
        return brock__fail(e, BROCK_EINVAL,
                           "'%s' is a public suffix, under which anyone can have a site: brock "
                           "off there would be off on all of them; give one site (example.%s)",
                           host, host);
    return 0;
}

/* ---- lists of sites in brock's own settings keys ---- */

int brock__settings_list_match(const struct brock_engine *e, const char *key, const char *host)
{
    json_t *list = json_object_get(e->settings, key), *v;
    size_t i, hlen = host ? strlen(host) : 0;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && hlen && brock__site_match(host, hlen, json_string_value(v)))
            return 1;
    }
    return 0;
}

int brock__settings_list_set(struct brock_engine *e, const char *key, const char *site, int add)
{
    char host[BROCK_HOST_MAX];
    json_t *list, *v;
    size_t i;
    int rc = brock__site_checked(e, site, add, host);

    if (rc < 0)
        return rc;
    if (!json_is_array(list = json_object_get(e->settings, key))) {
        if (json_object_set_new(e->settings, key, json_array()) < 0)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        list = json_object_get(e->settings, key);
    }
    json_array_foreach(list, i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), host)) {
            if (add)
                return 0;
            json_array_remove(list, i);
            break;
        }
    }
    if (add && json_array_append_new(list, json_string(host)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_touch(e, key);
    brock__settings_changed(e);
    return 0;
}

int brock__settings_list_each(const struct brock_engine *e, const char *key,
                              int (*cb)(void *arg, const char *site), void *arg)
{
    json_t *list = json_object_get(e->settings, key), *v;
    size_t i;

    json_array_foreach(list, i, v) {
        int rc;
        if (json_is_string(v) && (rc = cb(arg, json_string_value(v))) != 0)
            return rc;
    }
    return 0;
}

/* Puts host on disabledSites, or takes it off (until_ms 0), with its end (BROCK_NO_END:
 * none). Returns 0 or BROCK_ENOMEM. */
static int site_switch(struct brock_engine *e, const char *host, int64_t until_ms)
{
    json_t *list = json_object_get(e->settings, "disabledSites");
    size_t i;
    json_t *v;
    int found = 0;

    if (!json_is_array(list)) {
        if (json_object_set_new(e->settings, "disabledSites", json_array()) < 0)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        list = json_object_get(e->settings, "disabledSites");
    }
    json_array_foreach(list, i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), host)) {
            found = 1;
            break;
        }
    }
    /* The end first: a site on the list with an end it should not have would be turned on
     * again when that end came. */
    if (brock__site_end_set(e, host, until_ms ? until_ms : BROCK_NO_END) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if (found && !until_ms)
        json_array_remove(list, i);
    else if (!found && until_ms && json_array_append_new(list, json_string(host)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_touch(e, "disabledSites");
    brock__answers_forget(e);
    return 0;
}

int brock_site_set_disabled(struct brock_engine *e, const char *site, int disabled)
{
    char host[BROCK_HOST_MAX];
    int rc = brock__site_checked(e, site, disabled, host);

    return rc < 0 ? rc : site_switch(e, host, disabled ? BROCK_NO_END : 0);
}

int brock_site_disable_until(struct brock_engine *e, const char *site, int64_t until_ms)
{
    char host[BROCK_HOST_MAX];
    int rc;

    if (until_ms <= 0)
        return brock__fail(e, BROCK_EINVAL, "a time off must end after 0 (Unix ms), not at %lld",
                           (long long)until_ms);
    rc = brock__site_checked(e, site, 1, host);
    return rc < 0 ? rc : site_switch(e, host, until_ms);
}

int brock_disabled_sites_each(const struct brock_engine *e, int (*cb)(void *arg, const char *site),
                              void *arg)
{
    json_t *list = json_object_get(e->settings, "disabledSites");
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v) {
        int rc;
        if (json_is_string(v) && (rc = cb(arg, json_string_value(v))) != 0)
            return rc;
    }
    return 0;
}

/* ---- the settings a decision reads ---- */

/* v's string with trim applied, or NULL when it is not a string or nothing is left. */
static const char *name_of(json_t *v, const char *(*trim)(const char *))
{
    const char *s = json_string_value(v);

    if (s && trim)
        s = trim(s);
    return s && *s ? s : NULL;
}

int brock__names_from_json(json_t *arrays, const char *(*trim)(const char *),
                           struct brock__names **out)
{
    struct brock__names *names;
    size_t count = 0, bytes = 0, i, k;
    char *at;
    json_t *v, *list;

    *out = NULL;
    json_array_foreach(arrays, k, list) {
        json_array_foreach(list, i, v) {
            const char *s = name_of(v, trim);

            if (s) {
                count++;
                bytes += strlen(s) + 1;
            }
        }
    }
    if (!count)
        return 0;
    names = mem_malloc(sizeof(*names) + count * sizeof(names->v[0]) + bytes);
    if (!names)
        return BROCK_ENOMEM;
    names->n = 0;
    at = (char *)&names->v[count];
    json_array_foreach(arrays, k, list) {
        json_array_foreach(list, i, v) {
            const char *s = name_of(v, trim);
            size_t len;

            if (!s)
                continue;
            len = strlen(s);
            memcpy(at, s, len + 1);
            names->v[names->n].s = at;
            names->v[names->n].len = len;
            names->n++;
            at += len + 1;
        }
    }
    *out = names;
    return 0;
}

static void decide_settings_clear(struct brock__decide_settings *ds)
{
    mem_free(ds->disabled);
    ds->disabled = NULL;
    ds->paused = 0;
    strmap_cleanup(&ds->widget_sites, mem_free);
    ds->answers_gen = 0;
}

void brock__decide_settings_free(struct brock_engine *e)
{
    decide_settings_clear(&e->decide_settings);
}

const struct brock__decide_settings *brock__decide_settings(struct brock_engine *e)
{
    struct brock__decide_settings *ds = &e->decide_settings;

    if (ds->answers_gen == e->answers_gen && ds->widgets_gen == e->widgets_gen)
        return ds;
    decide_settings_clear(ds);
    ds->paused = brock__paused(e);
    if (brock__disabled_sites_read(e, &ds->disabled) < 0 ||
        brock__widget_sites_read(e, &ds->widget_sites) < 0) {
        decide_settings_clear(ds);
        return NULL;
    }
    ds->answers_gen = e->answers_gen;
    ds->widgets_gen = e->widgets_gen;
    return ds;
}

/* ---- the settings as the dashboard and the command line show them ---- */

static int on_site(void *arg, const char *site)
{
    return json_array_append_new(arg, json_string(site)) < 0 ? BROCK_ENOMEM : 0;
}

static int on_site_end(void *arg, const char *site, int64_t until_ms)
{
    json_t *one;

    if (until_ms == BROCK_NO_END)
        return 0;
    one = json_pack("{s:s, s:I}", "site", site, "until_ms", (json_int_t)until_ms);
    return !one || json_array_append_new(arg, one) < 0 ? BROCK_ENOMEM : 0;
}

static int on_widget(void *arg, const char *site, const char *name)
{
    json_t *one = json_pack("{s:s, s:s}", "site", site, "widget", name);

    return !one || json_array_append_new(arg, one) < 0 ? BROCK_ENOMEM : 0;
}

int brock_settings_json(struct brock_engine *e, char **out, size_t *len)
{
    json_t *o = json_object(), *sites = json_array(), *widgets = json_array();
    json_t *ends = json_array(), *clean_off = json_array(), *uncloak_off = json_array();
    int64_t until = 0;
    int paused = brock_paused(e, INT64_MIN, &until);
    int bad = !o || !sites || !widgets || !ends || !clean_off || !uncloak_off;

    *out = NULL;
    *len = 0;
    for (unsigned i = 0; !bad && i < BROCK_SETTING_COUNT; i++)
        bad = json_object_set_new(o, switches[i].name,
                                  json_boolean(brock_setting(e, (enum brock_setting)i))) < 0;
    bad = bad || json_object_set_new(o, "learning", json_boolean(brock_engine_learning(e))) < 0 ||
          json_object_set_new(o, "page_view_days", json_integer(brock_page_view_days(e))) < 0 ||
          json_object_set(o, "disabled_sites", sites) < 0 ||
          json_object_set(o, "clean_urls_off", clean_off) < 0 ||
          json_object_set(o, "uncloak_off", uncloak_off) < 0 ||
          json_object_set(o, "disabled_until", ends) < 0 ||
          json_object_set_new(o, "paused", json_boolean(paused)) < 0 ||
          json_object_set_new(o, "paused_until_ms",
                              paused && until != BROCK_NO_END ? json_integer((json_int_t)until)
                                                              : json_null()) < 0 ||
          json_object_set(o, "widget_allowlist", widgets) < 0 ||
          brock_disabled_sites_each(e, on_site, sites) < 0 ||
          brock_disabled_sites_until_each(e, on_site_end, ends) < 0 ||
          brock_widget_site_allowlist_each(e, on_widget, widgets) < 0 ||
          brock_clean_sites_each(e, on_site, clean_off) < 0 ||
          brock_cname_targets_each(e, on_site, uncloak_off) < 0 ||
          !(*out = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII));
    json_decref(sites);
    json_decref(ends);
    json_decref(widgets);
    json_decref(clean_off);
    json_decref(uncloak_off);
    json_decref(o);
    if (bad)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    *len = strlen(*out);
    return 0;
}
