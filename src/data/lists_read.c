/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's lists read: the cookieblock list (yellowlist.txt, or pbconfig.json with the
 * DNT policy hashes), the CNAME-cloaking map (read as a stream) and the widget domains; and the
 * look-ups decisions make in them. Finding the files in the data folder and applying a new
 * cookieblock list to the learned actions are the engine's (engine/lists.c).
 */
#include "data/data.h"

#include <stdio.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "util/alloc.h"
#include "util/hostname.h"
#include "util/strvec.h"

static int oom(const struct brock__data_ctx *cx, const char *name)
{
    return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", name);
}

/* ---- validation ---- */

static int is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ingestPbconfig's test: a '.' somewhere and ^[a-z0-9][a-z0-9.-]+[a-z]$. */
static int yellow_valid(const char *s, size_t n)
{
    int dot = 0;

    if (n < 3 || n >= BROCK_HOST_MAX)
        return 0;
    if (!is_lower_alnum(s[0]) || s[n - 1] < 'a' || s[n - 1] > 'z')
        return 0;
    for (size_t i = 1; i < n - 1; i++) {
        if (s[i] == '.')
            dot = 1;
        else if (!is_lower_alnum(s[i]) && s[i] != '-')
            return 0;
    }
    return dot;
}

/* Privacy Badger compares lower-case hex digests, so anything else could never match. */
static int sha1_valid(const char *s, size_t n)
{
    if (n != 40)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* ---- the cookieblock list ---- */

int brock__parse_yellowlist_txt(const struct brock__data_ctx *cx, const char *name,
                                const char *text, size_t len, struct strvec *out)
{
    struct strvec list = {0};
    const char *p = text, *end = text + len;
    size_t line = 0;
    int rc = 0;

    if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *s = p, *t = eol ? eol : end;
        char dom[BROCK_HOST_MAX];

        line++;
        p = eol ? eol + 1 : end;
        while (s < t && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
            t--;
        if (s == t)
            continue;
        if (!yellow_valid(s, (size_t)(t - s))) {
            rc = brock__data_fail(cx, BROCK_EFORMAT,
                                  "%s line %zu: \"%.*s\" is not a valid cookieblock list domain.",
                                  name, line, (int)((t - s) > 80 ? 80 : (t - s)), s);
            goto out;
        }
        memcpy(dom, s, (size_t)(t - s));
        dom[t - s] = '\0';
        if (strvec_push(&list, dom) < 0) {
            rc = oom(cx, name);
            goto out;
        }
    }
    if (!list.n) {
        rc = brock__data_fail(cx, BROCK_EFORMAT, "%s lists no domains.", name);
        goto out;
    }
    strvec_cleanup(out);
    *out = list;
    memset(&list, 0, sizeof(list));
out:
    strvec_cleanup(&list);
    return rc;
}

/* Checks a {name: sha1} object; nothing is taken from it unless all of it is good. */
int brock__hashes_check(const struct brock__data_ctx *cx, const char *name, json_t *obj)
{
    const char *key;
    json_t *v;

    if (!json_is_object(obj))
        return brock__data_fail(cx, BROCK_EFORMAT, "%s: the DNT policy hashes are not an object.",
                                name);
    json_object_foreach(obj, key, v) {
        if (!json_is_string(v) || !sha1_valid(json_string_value(v), json_string_length(v)))
            return brock__data_fail(cx, BROCK_EFORMAT,
                                    "%s: the hash of DNT policy \"%s\" is not 40 lower-case hex "
                                    "digits.",
                                    name, key);
    }
    return 0;
}

/* Adds checked hashes; a hash already known keeps its name, as Privacy Badger merges them
 * additively. */
int brock__hashes_add(const struct brock__data_ctx *cx, const char *name, json_t *obj,
                      struct strmap *map)
{
    const char *key;
    json_t *v;

    json_object_foreach(obj, key, v) {
        const char *sha1 = json_string_value(v);
        char *copy;

        if (strmap_get(map, sha1))
            continue;
        copy = mem_strdup(key);
        if (!copy || strmap_put(map, sha1, copy) < 0) {
            mem_free(copy);
            return oom(cx, name);
        }
    }
    return 0;
}

int brock__parse_pbconfig(const struct brock__data_ctx *cx, const char *name, const char *text,
                          size_t len, struct strvec *yellow, json_t **hashes)
{
    struct strvec list = {0};
    json_error_t jerr;
    json_t *root, *yl, *h, *v;
    size_t i;
    int rc = 0;

    *hashes = NULL;
    root = json_loadb(text, len, 0, &jerr);
    if (!root)
        return brock__data_json_fail(cx, name, &jerr);
    if (!json_is_object(root)) {
        rc = brock__data_fail(cx, BROCK_EFORMAT, "%s is not a JSON object.", name);
        goto out;
    }
    yl = json_object_get(root, "yellowlist");
    if (!json_is_array(yl) || !json_array_size(yl)) {
        rc = brock__data_fail(cx, BROCK_EFORMAT,
                              "%s: \"yellowlist\" is not a non-empty array; the file is rejected.",
                              name);
        goto out;
    }
    json_array_foreach(yl, i, v) {
        if (!json_is_string(v) || !yellow_valid(json_string_value(v), json_string_length(v))) {
            rc = brock__data_fail(
                cx, BROCK_EFORMAT,
                "%s: yellowlist entry %zu (%.80s) is not a valid domain; the file "
                "is rejected.",
                name, i + 1, json_is_string(v) ? json_string_value(v) : "not a string");
            goto out;
        }
        if (strvec_push(&list, json_string_value(v)) < 0) {
            rc = oom(cx, name);
            goto out;
        }
    }
    h = json_object_get(root, "dnt_policy_hashes");
    if (h) {
        rc = brock__hashes_check(cx, name, h);
        if (rc < 0)
            goto out;
        *hashes = json_incref(h);
    } else {
        *hashes = json_object();
        if (!*hashes) {
            rc = oom(cx, name);
            goto out;
        }
    }
    strvec_cleanup(yellow);
    *yellow = list;
    memset(&list, 0, sizeof(list));
out:
    strvec_cleanup(&list);
    json_decref(root);
    return rc;
}

/* Fills a set and its ordered copy from list, dropping repeats. */
int brock__yellow_build(struct strmap *map, struct strvec *order, const struct strvec *list)
{
    for (size_t i = 0; i < list->n; i++) {
        if (strmap_get(map, list->v[i]))
            continue;
        if (strmap_put(map, list->v[i], (void *)1) < 0 || strvec_push(order, list->v[i]) < 0)
            return BROCK_ENOMEM;
    }
    return 0;
}

/* ---- CNAME map and widgets ---- */

/* The CNAME map is the largest list (some 76,000 aliases in 4 MB): it is read as a stream
 * (yajl) straight into the map, for a whole JSON tree of it would take a tenth of a second and
 * tens of megabytes at every start of every command. */
struct cname_read {
    const struct brock__data_ctx *cx;
    struct brock_lists *l;
    const char *name;
    char key[BROCK_HOST_MAX]; /* the alias whose target comes next */
    int skip;                 /* that alias is longer than any host name: it never matches */
    int depth;
    int err; /* a callback's failure (negative BROCK_E*), or 0 */
};

static int cname_bad_target(struct cname_read *r)
{
    r->err = brock__data_fail(r->cx, BROCK_EFORMAT,
                              "%s: the target of \"%.80s\" is not a host name.", r->name, r->key);
    return 0;
}

static int cname_not_map(struct cname_read *r)
{
    r->err = brock__data_fail(r->cx, BROCK_EFORMAT, "%s is not a JSON object of alias: target.",
                              r->name);
    return 0;
}

/* Any value but a string: at the top the file is not a map, under an alias it is no host. */
static int cname_other(void *ctx)
{
    struct cname_read *r = ctx;

    return r->depth ? cname_bad_target(r) : cname_not_map(r);
}

static int cname_boolean(void *ctx, int b)
{
    (void)b;
    return cname_other(ctx);
}

static int cname_number(void *ctx, const char *s, size_t n)
{
    (void)s;
    (void)n;
    return cname_other(ctx);
}

static int cname_start_map(void *ctx)
{
    struct cname_read *r = ctx;

    if (r->depth)
        return cname_bad_target(r);
    r->depth = 1;
    return 1;
}

static int cname_end_map(void *ctx)
{
    (void)ctx;
    return 1;
}

static int cname_key(void *ctx, const unsigned char *s, size_t n)
{
    struct cname_read *r = ctx;

    size_t k = n < BROCK_HOST_MAX ? n : BROCK_HOST_MAX - 1;

    /* The message names as much of the alias as a host name holds (copied by hand: this runs
     * 76,000 times at every start). */
    memcpy(r->key, s, k);
    r->key[k] = '\0';
    if (!n || memchr(s, '\0', n))
        return cname_bad_target(r);
    r->skip = n >= BROCK_HOST_MAX;
    return 1;
}

static int cname_string(void *ctx, const unsigned char *s, size_t n)
{
    struct cname_read *r = ctx;
    char *key, *target;
    size_t klen;

    if (!r->depth)
        return cname_not_map(r);
    if (!n || n >= BROCK_HOST_MAX || memchr(s, '\0', n))
        return cname_bad_target(r);
    if (r->skip)
        return 1;
    /* Alias and target in one piece of the arena; a repeated alias keeps its first key, and
     * the last target holds, as in any JSON reader. */
    klen = strlen(r->key);
    if (!(key = arena_alloc(&r->l->cname_text, klen + 1 + n + 1))) {
        r->err = oom(r->cx, r->name);
        return 0;
    }
    memcpy(key, r->key, klen + 1);
    target = key + klen + 1;
    memcpy(target, s, n);
    target[n] = '\0';
    if (strmap_put(&r->l->cname, key, target) < 0) {
        r->err = oom(r->cx, r->name);
        return 0;
    }
    return 1;
}

static const yajl_callbacks cname_callbacks = {
    .yajl_null = cname_other,
    .yajl_boolean = cname_boolean,
    .yajl_number = cname_number,
    .yajl_string = cname_string,
    .yajl_start_map = cname_start_map,
    .yajl_map_key = cname_key,
    .yajl_end_map = cname_end_map,
    .yajl_start_array = cname_other,
};

/* yajl's own message for text that is not JSON, with the line and column of the byte yajl
 * stopped at: the last of the off bytes it consumed. */
static int cname_syntax(struct cname_read *r, yajl_handle y, const char *text, size_t off)
{
    unsigned char *msg = yajl_get_error(y, 0, NULL, 0);
    size_t len = msg ? strlen((char *)msg) : 0, col = 1;
    int line = 1, rc;

    for (size_t i = 0; i + 1 < off; i++, col++)
        if (text[i] == '\n') {
            line++;
            col = 0;
        }
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' ' || msg[len - 1] == '.'))
        len--;
    rc = brock__data_fail(r->cx, BROCK_EFORMAT, "%s is not valid JSON (line %d, column %zu): %.*s.",
                          r->name, line, col, (int)len, msg ? (char *)msg : "");
    if (msg)
        yajl_free_error(y, msg);
    return rc;
}

int brock__cname_read(const struct brock__data_ctx *cx, struct brock_lists *l, const char *name,
                      const char *text, size_t len)
{
    struct cname_read r = {.cx = cx, .l = l, .name = name};
    yajl_handle y = yajl_alloc(&cname_callbacks, NULL, &r);
    yajl_status st;
    int rc = 0;

    /* Some 50 bytes an alias: room made once, rather than the table grown 13 times over. */
    if (!y || strmap_reserve(&l->cname, l->cname.len + len / 40) < 0) {
        if (y)
            yajl_free(y);
        return oom(cx, name);
    }
    st = yajl_parse(y, (const unsigned char *)text, len);
    if (st == yajl_status_ok)
        st = yajl_complete_parse(y);
    if (r.err)
        rc = r.err;
    else if (st != yajl_status_ok)
        rc = cname_syntax(&r, y, text, yajl_get_bytes_consumed(y));
    yajl_free(y);
    return rc;
}

static int widget_push(const struct brock__data_ctx *cx, struct brock_lists *l, const char *name,
                       struct strmap *seen, const char *dom)
{
    if (strmap_get(seen, dom))
        return 0;
    if (strmap_put(seen, dom, (void *)1) < 0 || strvec_push(&l->widget_domains, dom) < 0)
        return oom(cx, name);
    return 0;
}

static int widget_fail(const struct brock__data_ctx *cx, const char *name, const char *widget)
{
    return brock__data_fail(cx, BROCK_EFORMAT,
                            "%s: widget \"%.80s\" has a \"domain\" that is not a string or "
                            "\"domains\" that are not an array of strings.",
                            name, widget);
}

int brock__widgets_read(const struct brock__data_ctx *cx, struct brock_lists *l, const char *name,
                        const char *text, size_t len)
{
    struct strmap seen;
    json_error_t jerr;
    const char *widget;
    json_t *root, *w, *d;
    size_t i;
    int rc = 0;

    strmap_init(&seen);
    root = json_loadb(text, len, 0, &jerr);
    if (!root)
        return brock__data_json_fail(cx, name, &jerr);
    if (!json_is_object(root)) {
        rc = brock__data_fail(cx, BROCK_EFORMAT, "%s is not a JSON object of widgets.", name);
        goto out;
    }
    json_object_foreach(root, widget, w) {
        json_t *one, *many;

        if (!json_is_object(w)) {
            rc = brock__data_fail(cx, BROCK_EFORMAT, "%s: widget \"%.80s\" is not an object.", name,
                                  widget);
            goto out;
        }
        one = json_object_get(w, "domain");
        many = json_object_get(w, "domains");
        if ((one && !json_is_string(one)) || (many && !json_is_array(many))) {
            rc = widget_fail(cx, name, widget);
            goto out;
        }
        if (one && (rc = widget_push(cx, l, name, &seen, json_string_value(one))) < 0)
            goto out;
        json_array_foreach(many, i, d) {
            if (!json_is_string(d)) {
                rc = widget_fail(cx, name, widget);
                goto out;
            }
            if ((rc = widget_push(cx, l, name, &seen, json_string_value(d))) < 0)
                goto out;
        }
    }
    /* The rest of each widget (its selectors, the domains a click allows) is read where it is
     * used (widgets.c), leniently: a widget with odd fields is only never replaced. */
    json_decref(l->widgets);
    l->widgets = json_incref(root);
out:
    strmap_cleanup(&seen, NULL);
    json_decref(root);
    return rc;
}

/* ---- lookups ---- */

int brock__yellowlisted(const struct brock_lists *l, const char *domain)
{
    return strmap_get(&l->yellow, domain) != NULL;
}

int brock__would_cookieblock(const struct brock_lists *l, const char *fqdn)
{
    for (const char *d = fqdn; d; d = hostname_parent(d))
        if (brock__yellowlisted(l, d))
            return 1;
    return 0;
}

const char *brock__cname(const struct brock_lists *l, const char *fqdn, size_t len)
{
    return l->cname.len ? strmap_getn(&l->cname, fqdn, len) : NULL;
}
