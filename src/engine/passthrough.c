/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The hosts a proxy that sees inside HTTPS passes through unseen: those the user named, and
 * those whose clients refused the proxy's certificate, each with when and why. Kept in the
 * settings object under "brockPassthrough" (an array of {"host", "why", "time_ms",
 * "learned"}), so that it reaches the state, other processes and a restart as the disabled
 * sites do. The entries a proxy learns are capped, the oldest going first; the user's are
 * not dropped. The list's own order is kept: the oldest first.
 */
#include "engine/engine.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

#define PASS_KEY "brockPassthrough"

/* The words of a why are kept short: one line of a log or a page. */
#define PASS_WHY_MAX 200

static json_t *pass_list(const struct brock_engine *e)
{
    json_t *l = json_object_get(e->settings, PASS_KEY);

    return json_is_array(l) ? l : NULL;
}

/* An entry as it is kept: NULL for one that is not (a file written by hand). */
static const char *entry_host(const json_t *v)
{
    const char *h = json_string_value(json_object_get(v, "host"));

    return h && *h ? h : NULL;
}

static int entry_learned(const json_t *v)
{
    return json_is_true(json_object_get(v, "learned"));
}

/* A pattern as the user gives it: a host name (normalised here), or a glob of fnmatch(3)
 * whose other characters are those of host names ("*.bank.example"); "!" and a host name
 * takes that host off the list a proxy ships. */
static int pattern_read(const char *in, char *out)
{
    size_t n = strlen(in);
    int glob = strpbrk(in, "*?[") != NULL;

    if (n == 0 || n >= BROCK_HOST_MAX)
        return -1;
    if (in[0] == '!') {
        if (glob || brock_host_normalize(in + 1, n - 1, out + 1) < 0)
            return -1;
        out[0] = '!';
        return 0;
    }
    if (!glob)
        return brock_host_normalize(in, n, out) < 0 ? -1 : 0;
    for (size_t i = 0; i < n; i++) {
        char c = in[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.' || c == '*' || c == '?' || c == '[' || c == ']' ||
              c == '!'))
            return -1;
        out[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    out[n] = '\0';
    return 0;
}

static ssize_t find(json_t *list, const char *host)
{
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v) {
        const char *h = entry_host(v);

        if (h && !strcmp(h, host))
            return (ssize_t)i;
    }
    return -1;
}

/* Learned entries past the cap, the oldest (first) going first. */
static void cap_learned(json_t *list)
{
    size_t learned = 0, i;
    json_t *v;

    json_array_foreach(list, i, v) {
        learned += (size_t)entry_learned(v);
    }
    for (i = 0; learned > BROCK_PASSTHROUGH_LEARNED_MAX && i < json_array_size(list);) {
        if (entry_learned(json_array_get(list, i))) {
            json_array_remove(list, i);
            learned--;
        } else {
            i++;
        }
    }
}

int brock_passthrough_add(struct brock_engine *e, const char *host, const char *why,
                          int64_t time_ms, int learned)
{
    char pat[BROCK_HOST_MAX];
    json_t *list = pass_list(e), *one;
    ssize_t at;

    if (!host || pattern_read(host, pat) < 0)
        return brock__fail(e, BROCK_EINVAL,
                           "'%s' is not a host name or a pattern of host names "
                           "(*.bank.example)",
                           host ? host : "");
    if (learned && strpbrk(pat, "*?[!"))
        return brock__fail(e, BROCK_EINVAL, "'%s': what brock learns is a host name", pat);
    if (!list) {
        if (json_object_set_new(e->settings, PASS_KEY, list = json_array()) < 0)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    at = find(list, pat);
    /* What the user said stays theirs: a failure learned later changes nothing of it. */
    if (at >= 0 && learned && !entry_learned(json_array_get(list, (size_t)at)))
        return 0;
    one = json_pack("{s:s, s:s%, s:I, s:b}", "host", pat, "why", why ? why : "",
                    why ? strnlen(why, PASS_WHY_MAX) : 0, "time_ms", (json_int_t)time_ms, "learned",
                    learned);
    if (!one)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    /* A host added again moves to the end: the newest. */
    if (at >= 0)
        json_array_remove(list, (size_t)at);
    if (json_array_append_new(list, one) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    cap_learned(list);
    brock__settings_touch(e, PASS_KEY);
    return 0;
}

int brock_passthrough_remove(struct brock_engine *e, const char *host)
{
    char pat[BROCK_HOST_MAX];
    json_t *list = pass_list(e);
    ssize_t at;

    if (!host || pattern_read(host, pat) < 0)
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a host name or a pattern of host names",
                           host ? host : "");
    at = list ? find(list, pat) : -1;
    if (at < 0)
        return brock__fail(e, BROCK_ENOTFOUND, "%s is not passed through", pat);
    json_array_remove(list, (size_t)at);
    brock__settings_touch(e, PASS_KEY);
    return 0;
}

int brock_passthrough_each(const struct brock_engine *e,
                           int (*cb)(void *arg, const struct brock_passthrough *p), void *arg)
{
    json_t *list = pass_list(e);
    size_t i;
    json_t *v;

    json_array_foreach(list, i, v) {
        struct brock_passthrough p = {0};
        const char *h = entry_host(v), *why = json_string_value(json_object_get(v, "why"));
        int rc;

        if (!h)
            continue;
        snprintf(p.host, sizeof(p.host), "%s", h);
        snprintf(p.why, sizeof(p.why), "%s", why ? why : "");
        p.time_ms = json_integer_value(json_object_get(v, "time_ms"));
        p.learned = entry_learned(v);
        if ((rc = cb(arg, &p)) != 0)
            return rc;
    }
    return 0;
}

int brock_passthrough_find(const struct brock_engine *e, const char *host,
                           struct brock_passthrough *out)
{
    json_t *list = pass_list(e);
    size_t i;
    json_t *v;

    if (!host || !*host)
        return 0;
    json_array_foreach(list, i, v) {
        const char *h = entry_host(v), *why;

        if (!h || (strcmp(h, host) != 0 && fnmatch(h, host, 0) != 0))
            continue;
        if (out) {
            why = json_string_value(json_object_get(v, "why"));
            memset(out, 0, sizeof(*out));
            snprintf(out->host, sizeof(out->host), "%s", h);
            snprintf(out->why, sizeof(out->why), "%s", why ? why : "");
            out->time_ms = json_integer_value(json_object_get(v, "time_ms"));
            out->learned = entry_learned(v);
        }
        return 1;
    }
    return 0;
}
