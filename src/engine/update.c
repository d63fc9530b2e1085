/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's configuration, pbconfig.json (section 6): a new one validated whole and
 * applied (cookieblock list by its added and removed domains, DNT hashes only added, site
 * fixes replaced), kept in the state, and brought back at every open over the data folder's.
 */
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/file.h"

/* pbconfig.json is about 100 KB; a text past this is not one. */
#define PBCONFIG_MAX ((size_t)16 << 20)

static int oom(struct brock_engine *e)
{
    return brock__fail(e, BROCK_ENOMEM,
                       "Out of memory while applying Privacy Badger's "
                       "configuration.");
}

/* The list one domain a line, as the state's meta row keeps it. */
static int list_join(const struct strvec *l, char **out)
{
    struct buf b;

    *out = NULL;
    buf_init(&b, PBCONFIG_MAX);
    for (size_t i = 0; i < l->n; i++)
        if (buf_puts(&b, l->v[i]) < 0 || buf_puts(&b, "\n") < 0) {
            buf_cleanup(&b);
            return BROCK_ENOMEM;
        }
    *out = buf_detach(&b, NULL);
    return *out ? 0 : BROCK_ENOMEM;
}

static int list_split(const char *text, struct strvec *out)
{
    const char *p = text;

    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        char dom[BROCK_HOST_MAX];

        if (n && n < sizeof(dom)) {
            memcpy(dom, p, n);
            dom[n] = '\0';
            if (strvec_push(out, dom) < 0)
                return BROCK_ENOMEM;
        }
        p += n + (eol ? 1 : 0);
    }
    return 0;
}

/* Makes list the one in force without touching any action: what the state followed. */
static int lists_set(struct brock_engine *e, const struct strvec *list)
{
    struct strmap map;
    struct strvec order = {0};

    strmap_init(&map);
    for (size_t i = 0; i < list->n; i++) {
        if (strmap_get(&map, list->v[i]))
            continue;
        if (strmap_put(&map, list->v[i], (void *)1) < 0 || strvec_push(&order, list->v[i]) < 0) {
            strmap_cleanup(&map, NULL);
            strvec_cleanup(&order);
            return BROCK_ENOMEM;
        }
    }
    strmap_cleanup(&e->lists.yellow, NULL);
    strvec_cleanup(&e->lists.yellow_order);
    e->lists.yellow = map;
    e->lists.yellow_order = order;
    return 0;
}

/* Privacy Badger merges hashes additively: a known hash keeps its name. */
static int hashes_merge(struct brock_engine *e, json_t *hashes, size_t *added)
{
    const char *name;
    json_t *v;

    json_object_foreach(hashes, name, v) {
        const char *sha1 = json_string_value(v);
        char *copy;

        if (!sha1 || strmap_get(&e->lists.dnt_hashes, sha1))
            continue;
        copy = mem_strdup(name);
        if (!copy || strmap_put(&e->lists.dnt_hashes, sha1, copy) < 0) {
            mem_free(copy);
            return BROCK_ENOMEM;
        }
        if (added)
            (*added)++;
    }
    return 0;
}

/* A whole pbconfig text checked: cookieblock list, hashes, site fixes. */
struct parsed {
    struct strvec yellow;
    json_t *hashes;
    struct brock__sitefixes *fixes;
};

static void parsed_cleanup(struct parsed *p)
{
    strvec_cleanup(&p->yellow);
    json_decref(p->hashes);
    brock__sitefixes_free(p->fixes);
    memset(p, 0, sizeof(*p));
}

static int parse_all(struct brock_engine *e, const char *name, const char *text, size_t len,
                     struct parsed *p)
{
    struct brock__data_ctx cx;
    json_error_t jerr;
    json_t *root;
    int rc;

    memset(p, 0, sizeof(*p));
    brock__data_ctx_of(e, &cx);
    rc = brock__parse_pbconfig(&cx, name, text, len, &p->yellow, &p->hashes);
    if (rc < 0)
        return rc;
    /* Parsed once more for the part brock__parse_pbconfig does not read. */
    root = json_loadb(text, len, 0, &jerr);
    if (!root) {
        parsed_cleanup(p);
        return oom(e);
    }
    rc = brock__sitefixes_parse(&cx, name, json_object_get(root, "sitefixes"), &p->fixes);
    json_decref(root);
    if (rc < 0)
        parsed_cleanup(p);
    return rc;
}

static void replace_str(char **slot, char *s)
{
    mem_free(*slot);
    *slot = s;
}

/* How many domains of list are not on the cookieblock list in force (*added), and how many on
 * it are not in list (*removed). Returns 0 or BROCK_ENOMEM. */
static int count_changes(const struct brock_engine *e, const struct strvec *list, size_t *added,
                         size_t *removed)
{
    struct strmap next;

    *added = *removed = 0;
    strmap_init(&next);
    for (size_t i = 0; i < list->n; i++) {
        *added += !brock__yellowlisted(&e->lists, list->v[i]) && !strmap_get(&next, list->v[i]);
        if (strmap_put(&next, list->v[i], (void *)1) < 0) {
            strmap_cleanup(&next, NULL);
            return BROCK_ENOMEM;
        }
    }
    for (size_t i = 0; i < e->lists.yellow_order.n; i++)
        *removed += !strmap_get(&next, e->lists.yellow_order.v[i]);
    strmap_cleanup(&next, NULL);
    return 0;
}

int brock__yellowlist_follow(struct brock_engine *e, const struct strvec *list,
                             struct brock_update_stats *st)
{
    char *joined = NULL;
    int rc;

    if (count_changes(e, list, &st->added, &st->removed) < 0 || list_join(list, &joined) < 0)
        return oom(e);
    rc = brock__yellowlist_apply(e, list);
    if (rc < 0) {
        mem_free(joined);
        return rc;
    }
    st->yellow = e->lists.yellow_order.n;
    if (e->yellow_applied && strcmp(e->yellow_applied, joined) == 0) {
        mem_free(joined);
        return 0;
    }
    replace_str(&e->yellow_applied, joined);
    e->pbconfig_dirty = 1;
    return 0;
}

int brock_update_apply(struct brock_engine *e, const char *name, const char *text, size_t len,
                       int64_t now_ms, struct brock_update_stats *stats)
{
    struct brock_update_stats st;
    struct parsed p;
    char *copy = NULL;
    int rc;

    memset(&st, 0, sizeof(st));
    if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) {
        text += 3;
        len -= 3;
    }
    rc = parse_all(e, name, text, len, &p);
    if (rc < 0)
        goto out;
    copy = mem_strndup(text, len);
    if (!copy) {
        rc = oom(e);
        goto out;
    }
    /* Everything that can be refused has been checked: from here on it applies. */
    rc = brock__yellowlist_follow(e, &p.yellow, &st);
    if (rc < 0)
        goto out;
    if (hashes_merge(e, p.hashes, &st.hashes_added) < 0) {
        rc = oom(e);
        goto out;
    }
    brock__sitefixes_free(e->sitefixes);
    e->sitefixes = p.fixes;
    p.fixes = NULL;
    brock__answers_forget(e);
    st.site_fixes = brock__sitefixes_count(e->sitefixes);
    replace_str(&e->pbconfig, copy);
    copy = NULL;
    e->pbconfig_time = now_ms;
    e->pbconfig_dirty = 1;
    if (stats)
        *stats = st;
out:
    parsed_cleanup(&p);
    mem_free(copy);
    return rc;
}

int64_t brock_update_time(const struct brock_engine *e)
{
    return e->pbconfig_time;
}

/* ---- at open ---- */

int brock__data_sitefixes_read(struct brock_engine *e, struct brock__sitefixes **out)
{
    char path[4096], *text = NULL;
    size_t len = 0;
    struct brock__data_ctx cx;
    json_error_t jerr;
    json_t *root;
    int rc;

    *out = NULL;
    if ((rc = brock__data_read(e, "pbconfig.json", path, &text, &len)) < 0)
        return rc;
    if (!text)
        return 0;
    root = json_loadb(text, len, 0, &jerr);
    mem_free(text);
    /* The lists were read from this file already, so it is JSON; unless it changed since. */
    brock__data_ctx_of(e, &cx);
    if (!root)
        return brock__data_json_fail(&cx, path, &jerr);
    rc = brock__sitefixes_parse(&cx, path, json_object_get(root, "sitefixes"), out);
    json_decref(root);
    return rc;
}

/* The data folder's own pbconfig.json, for its site fixes: Debian's older release has none. */
static int data_sitefixes(struct brock_engine *e)
{
    struct brock__sitefixes *fixes = NULL;
    int rc = brock__data_sitefixes_read(e, &fixes);

    if (rc < 0)
        return rc;
    brock__sitefixes_free(e->sitefixes);
    e->sitefixes = fixes;
    brock__answers_forget(e);
    return 0;
}

/* The configuration `brock update` left in the state (sc->pbconfig, with sc->pbconfig_time),
 * when it still reads back whole. */
static int stored_config(struct brock_engine *e, const struct brock__stored_config *sc,
                         struct strvec *target)
{
    struct parsed p;
    char *text;
    char saved[sizeof(e->errmsg)];
    int rc = 0;

    if (!sc->pbconfig)
        return 0;
    memcpy(saved, e->errmsg, sizeof(saved));
    if (parse_all(e, "the state's stored pbconfig.json", sc->pbconfig, strlen(sc->pbconfig), &p) <
        0) {
        /* Checked when it was stored: a text that no longer reads is set aside, and the
         * data folder's lists serve until the next update. */
        memcpy(e->errmsg, saved, sizeof(saved));
        return 0;
    }
    if (!(text = mem_strdup(sc->pbconfig)) || hashes_merge(e, p.hashes, NULL) < 0)
        rc = oom(e);
    if (rc == 0) {
        brock__sitefixes_free(e->sitefixes);
        e->sitefixes = p.fixes;
        p.fixes = NULL;
        brock__answers_forget(e);
        strvec_cleanup(target);
        *target = p.yellow;
        memset(&p.yellow, 0, sizeof(p.yellow));
        replace_str(&e->pbconfig, text);
        text = NULL;
        e->pbconfig_time = sc->pbconfig_time ? strtoll(sc->pbconfig_time, NULL, 10) : 0;
    }
    parsed_cleanup(&p);
    mem_free(text);
    return rc;
}

int brock__pbconfig_restore(struct brock_engine *e, const struct brock__stored_config *sc)
{
    struct strvec target = {0}, followed = {0};
    const char *old;
    char *joined = NULL;
    int rc = 0;

    if ((rc = data_sitefixes(e)) < 0)
        return rc;
    if (!sc)
        return 0;
    old = sc->yellowlist;
    for (size_t i = 0; i < e->lists.yellow_order.n; i++)
        if (strvec_push(&target, e->lists.yellow_order.v[i]) < 0) {
            rc = oom(e);
            goto out;
        }
    if ((rc = stored_config(e, sc, &target)) < 0)
        goto out;
    if (list_join(&target, &joined) < 0) {
        rc = oom(e);
        goto out;
    }
    /* The actions were learned against the list the state followed; the one in force now
     * is reached from it by the same rules as an update. A state that never recorded its
     * list followed the data folder's. */
    if (old && strcmp(old, joined) == 0) {
        if (lists_set(e, &target) < 0) {
            rc = oom(e);
            goto out;
        }
    } else {
        if (old && (list_split(old, &followed) < 0 || lists_set(e, &followed) < 0)) {
            rc = oom(e);
            goto out;
        }
        rc = brock__yellowlist_apply(e, &target);
        if (rc < 0)
            goto out;
        e->pbconfig_dirty = 1;
    }
    replace_str(&e->yellow_applied, joined);
    joined = NULL;
out:
    strvec_cleanup(&target);
    strvec_cleanup(&followed);
    mem_free(joined);
    return rc;
}

void brock__pbconfig_cleanup(struct brock_engine *e)
{
    brock__sitefixes_free(e->sitefixes);
    e->sitefixes = NULL;
    replace_str(&e->pbconfig, NULL);
    replace_str(&e->yellow_applied, NULL);
}
