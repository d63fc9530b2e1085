/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * brock off for a while: paused everywhere, or disabled on a site until a time. Both are kept
 * in the settings object under brock's own keys, so that they reach the state, the other
 * processes on it and later opens as every setting does. No decision reads a clock for them:
 * a pause is in force while its key is there, and goes when the caller says its time has
 * come (brock_expire()) or when the settings are read at a time past its end.
 */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

/* The pause's end (Unix ms, BROCK_NO_END for none), and each timed site's: an object of
 * disabledSites entries to their ends. A site disabled for good has no end here. */
#define PAUSE_KEY "brockPausedUntil"
#define ENDS_KEY "brockDisabledUntil"

/* ---- reading the ends ---- */

/* An end as kept: a positive integer; 0 for anything else, which is no end at all. */
static int64_t end_of(const json_t *v)
{
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;

    return n > 0 ? (int64_t)n : 0;
}

int brock__own_setting(const char *key)
{
    return !strcmp(key, PAUSE_KEY) || !strcmp(key, ENDS_KEY) || brock__clients_setting(key) ||
           brock__link_params_setting(key);
}

void brock__own_settings_drop(struct brock_engine *e)
{
    json_object_del(e->settings, PAUSE_KEY);
    json_object_del(e->settings, ENDS_KEY);
    json_object_del(e->settings, "brockClients");
    json_object_del(e->settings, "brockLinkParams");
}

int brock__paused(const struct brock_engine *e)
{
    return end_of(json_object_get(e->settings, PAUSE_KEY)) > 0;
}

int brock__site_off(const struct brock_engine *e, const char *site_host)
{
    return brock__paused(e) || brock__site_disabled(e, site_host);
}

int brock_paused(const struct brock_engine *e, int64_t now_ms, int64_t *until_ms)
{
    int64_t end = end_of(json_object_get(e->settings, PAUSE_KEY));

    if (!end || end <= now_ms)
        return 0;
    if (until_ms)
        *until_ms = end;
    return 1;
}

/* The index of site in the disabledSites list, or -1. */
static long listed(const json_t *list, const char *site)
{
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), site))
            return (long)i;
    }
    return -1;
}

int brock_disabled_sites_until_each(const struct brock_engine *e,
                                    int (*cb)(void *arg, const char *site, int64_t until_ms),
                                    void *arg)
{
    json_t *list = json_object_get(e->settings, "disabledSites");
    json_t *ends = json_object_get(e->settings, ENDS_KEY);
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v) {
        const char *site = json_string_value(v);
        int64_t end;
        int rc;

        if (!site)
            continue;
        end = end_of(json_object_get(ends, site));
        if ((rc = cb(arg, site, end ? end : BROCK_NO_END)) != 0)
            return rc;
    }
    return 0;
}

int64_t brock_next_end(const struct brock_engine *e)
{
    int64_t next = end_of(json_object_get(e->settings, PAUSE_KEY)), end;
    const char *site;
    json_t *v;

    if (next == BROCK_NO_END)
        next = 0;
    json_object_foreach(json_object_get(e->settings, ENDS_KEY), site, v) {
        end = end_of(v);
        if (end && end != BROCK_NO_END && (!next || end < next))
            next = end;
    }
    end = brock__clients_next_end(e);
    if (end && (!next || end < next))
        next = end;
    return next;
}

/* ---- ending ---- */

/* Drops from the settings what has ended by now, calling on_end (if not NULL) before each
 * goes: the pause, and each timed site, which leaves disabledSites too. Ends that are not
 * well formed, or whose site is no longer disabled, go silently. Returns how many ended.
 * Removing from jansson's objects and arrays allocates nothing, so this cannot fail. */
static int prune(struct brock_engine *e, int64_t now, void (*on_end)(void *arg, const char *site),
                 void *arg)
{
    json_t *pause = json_object_get(e->settings, PAUSE_KEY);
    json_t *ends = json_object_get(e->settings, ENDS_KEY);
    json_t *list = json_object_get(e->settings, "disabledSites");
    const char *site;
    json_t *v;
    void *tmp;
    int n = 0;

    if (pause && (!end_of(pause) || end_of(pause) <= now)) {
        if (end_of(pause)) {
            n++;
            if (on_end)
                on_end(arg, NULL);
        }
        json_object_del(e->settings, PAUSE_KEY);
    }
    n += brock__clients_prune(e, now);
    if (ends && !json_is_object(ends)) {
        json_object_del(e->settings, ENDS_KEY);
        return n;
    }
    json_object_foreach_safe(ends, tmp, site, v)
    {
        int64_t end = end_of(v);
        long at = listed(list, site);

        if (end && end > now && at >= 0)
            continue;
        if (end && at >= 0) {
            n++;
            if (on_end)
                on_end(arg, site);
            json_array_remove(list, (size_t)at);
        }
        json_object_del(ends, site);
    }
    return n;
}

void brock__pause_prune(struct brock_engine *e)
{
    (void)prune(e, e->expire_now, NULL, NULL);
}

int brock_expire(struct brock_engine *e, int64_t now_ms,
                 void (*on_end)(void *arg, const char *site), void *arg)
{
    int n;

    if (now_ms > e->expire_now)
        e->expire_now = now_ms;
    n = prune(e, e->expire_now, on_end, arg);
    /* Not marked for writing: every process on the state ends the same thing at the same
     * time, and one that wrote the settings would put back what another had just changed. */
    if (n)
        brock__settings_changed(e);
    return n;
}

/* ---- starting ---- */

int brock_pause(struct brock_engine *e, int64_t until_ms)
{
    if (until_ms <= 0)
        return brock__fail(e, BROCK_EINVAL, "a pause must end after 0 (Unix ms), not at %lld",
                           (long long)until_ms);
    if (json_object_set_new(e->settings, PAUSE_KEY, json_integer((json_int_t)until_ms)) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_touch(e, PAUSE_KEY);
    brock__settings_changed(e);
    return 0;
}

int brock_resume(struct brock_engine *e)
{
    if (!json_object_get(e->settings, PAUSE_KEY))
        return 0;
    json_object_del(e->settings, PAUSE_KEY);
    brock__settings_touch(e, PAUSE_KEY);
    brock__settings_changed(e);
    return 0;
}

int brock__site_end_set(struct brock_engine *e, const char *site, int64_t until_ms)
{
    json_t *ends = json_object_get(e->settings, ENDS_KEY);

    brock__settings_touch(e, ENDS_KEY);
    if (until_ms == BROCK_NO_END) {
        if (json_object_get(ends, site))
            json_object_del(ends, site);
        return 0;
    }
    if (!json_is_object(ends)) {
        if (json_object_set_new(e->settings, ENDS_KEY, json_object()) < 0)
            return BROCK_ENOMEM;
        ends = json_object_get(e->settings, ENDS_KEY);
    }
    return json_object_set_new(ends, site, json_integer((json_int_t)until_ms)) < 0 ? BROCK_ENOMEM
                                                                                   : 0;
}

/* ---- Privacy Badger's JSON ---- */

json_t *brock__settings_exported(const struct brock_engine *e)
{
    json_t *out = json_deep_copy(e->settings), *ends, *list;
    size_t i;
    json_t *v;

    if (!out)
        return NULL;
    ends = json_object_get(out, ENDS_KEY);
    list = json_object_get(out, "disabledSites");
    /* Backwards, so that removing an entry does not move the ones still to be read. */
    for (i = json_array_size(list); i-- > 0;) {
        v = json_array_get(list, i);
        if (json_is_string(v) && end_of(json_object_get(ends, json_string_value(v))))
            json_array_remove(list, i);
    }
    json_object_del(out, PAUSE_KEY);
    json_object_del(out, ENDS_KEY);
    json_object_del(out, "brockClients");
    json_object_del(out, "brockLinkParams");
    return out;
}

/* ---- durations ---- */

int brock_duration_parse(const char *text, int64_t *ms, char *err, size_t errlen)
{
    static const struct {
        char unit;
        int64_t ms;
    } units[] = {{'d', 86400000}, {'h', 3600000}, {'m', 60000}, {'s', 1000}};
    const size_t n_units = sizeof(units) / sizeof(units[0]);
    const char *p = text;
    size_t next = 0;
    int64_t total = 0;
    int huge = 0;

    if (!p || !*p)
        goto bad;
    while (*p) {
        int64_t n = 0;
        size_t digits = 0, u;

        for (; *p >= '0' && *p <= '9'; p++, digits++) {
            /* Past nine digits every unit is years: the total is too long, whatever follows. */
            if (n >= 100000000)
                huge = 1;
            else
                n = n * 10 + (*p - '0');
        }
        for (u = next; u < n_units && units[u].unit != *p; u++)
            ;
        if (!digits || u == n_units)
            goto bad;
        total += n * units[u].ms;
        next = u + 1;
        p++;
    }
    if (huge || total > BROCK_DURATION_MAX_MS) {
        if (err && errlen)
            snprintf(err, errlen, "'%s' is more than 7 days", text);
        return BROCK_EINVAL;
    }
    if (total == 0) {
        if (err && errlen)
            snprintf(err, errlen, "'%s' is no time at all: give at least one second", text);
        return BROCK_EINVAL;
    }
    *ms = total;
    return 0;
bad:
    if (err && errlen)
        snprintf(err, errlen,
                 "'%s' is not a duration: give numbers with their units (d, h, m, s), such "
                 "as 30s, 10m, 1h or 2h30m",
                 text ? text : "");
    return BROCK_EINVAL;
}
