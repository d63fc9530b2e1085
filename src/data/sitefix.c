/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's site fixes (sections 4.1 and 8): on named sites, some third parties are
 * left alone (ignore) or only cookieblocked (yellowlist), and some sites get no DNT/GPC
 * (gpc). pbconfig.json lists them by tracker; they are kept inverted, by exact site host.
 */
#include "data/data.h"

#include <string.h>

#include "util/alloc.h"
#include "util/hostname.h"
#include "util/strvec.h"

/* A site's fixes: the names its pages leave alone and those they cookieblock. */
struct brock__site_fixes {
    struct strvec ignore;
    struct strvec yellow;
};

struct brock__sitefixes {
    struct strmap sites; /* site host → struct brock__site_fixes: one look-up a decision */
    struct strmap gpc;   /* site host → (void *)1 */
    size_t n;
};

static void site_fixes_free(void *p)
{
    struct brock__site_fixes *sf = p;

    if (!sf)
        return;
    strvec_cleanup(&sf->ignore);
    strvec_cleanup(&sf->yellow);
    mem_free(sf);
}

void brock__sitefixes_free(struct brock__sitefixes *f)
{
    if (!f)
        return;
    strmap_cleanup(&f->sites, site_fixes_free);
    strmap_cleanup(&f->gpc, NULL);
    mem_free(f);
}

size_t brock__sitefixes_count(const struct brock__sitefixes *f)
{
    return f ? f->n : 0;
}

/* A host as Privacy Badger compares them: lower-case ASCII, IDNA-encoded, no trailing dot. */
static int host_of(const char *s, size_t n, char *out)
{
    if (!s || !n || memchr(s, '\0', n))
        return -1;
    if (brock_host_normalize(s, n, out) < 0 || !hostname_valid(out))
        return -1;
    return 0;
}

static int host_of_json(const json_t *v, char *out)
{
    return json_is_string(v) ? host_of(json_string_value(v), json_string_length(v), out) : -1;
}

static int bad(const struct brock__data_ctx *cx, const char *name, const char *what,
               const char *key)
{
    return brock__data_fail(cx, BROCK_EFORMAT,
                            "%s: sitefixes.%s%s%.80s%s is malformed (expected %s); the file is "
                            "rejected.",
                            name, what, key ? " entry \"" : "", key ? key : "", key ? "\"" : "",
                            key ? "an array of site host names" : "the documented shape");
}

/* {tracker: [site, ...]} into map[site]'s ignore (yellow 0) or yellow list += tracker. */
static int invert(const struct brock__data_ctx *cx, const char *name, const char *what, json_t *obj,
                  struct strmap *map, int yellow, size_t *count)
{
    const char *key;
    json_t *sites;

    if (!obj)
        return 0;
    if (!json_is_object(obj))
        return bad(cx, name, what, NULL);
    json_object_foreach(obj, key, sites) {
        char tracker[BROCK_HOST_MAX], site[BROCK_HOST_MAX];
        json_t *v;
        size_t i;

        if (host_of(key, strlen(key), tracker) < 0 || !json_is_array(sites))
            return bad(cx, name, what, key);
        json_array_foreach(sites, i, v) {
            struct brock__site_fixes *sf;

            if (host_of_json(v, site) < 0)
                return bad(cx, name, what, key);
            sf = strmap_get(map, site);
            if (!sf) {
                sf = mem_calloc(1, sizeof(*sf));
                if (!sf || strmap_put(map, site, sf) < 0) {
                    mem_free(sf);
                    return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.",
                                            name);
                }
            }
            if (strvec_push(yellow ? &sf->yellow : &sf->ignore, tracker) < 0)
                return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", name);
            (*count)++;
        }
    }
    return 0;
}

int brock__sitefixes_parse(const struct brock__data_ctx *cx, const char *name, json_t *obj,
                           struct brock__sitefixes **out)
{
    struct brock__sitefixes *f;
    json_t *gpc, *v;
    size_t i;
    int rc;

    *out = NULL;
    f = mem_calloc(1, sizeof(*f));
    if (!f)
        return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", name);
    strmap_init(&f->sites);
    strmap_init(&f->gpc);
    if (!obj)
        goto done;
    if (!json_is_object(obj)) {
        rc = brock__data_fail(cx, BROCK_EFORMAT,
                              "%s: \"sitefixes\" is not an object; the file is rejected.", name);
        goto fail;
    }
    rc = invert(cx, name, "ignore", json_object_get(obj, "ignore"), &f->sites, 0, &f->n);
    if (rc == 0)
        rc =
            invert(cx, name, "yellowlist", json_object_get(obj, "yellowlist"), &f->sites, 1, &f->n);
    if (rc < 0)
        goto fail;
    gpc = json_object_get(obj, "gpc");
    if (gpc && !json_is_array(gpc)) {
        rc = bad(cx, name, "gpc", NULL);
        goto fail;
    }
    json_array_foreach(gpc, i, v) {
        char site[BROCK_HOST_MAX];

        if (host_of_json(v, site) < 0) {
            rc = bad(cx, name, "gpc", NULL);
            goto fail;
        }
        if (strmap_get(&f->gpc, site))
            continue;
        if (strmap_put(&f->gpc, site, (void *)1) < 0) {
            rc = brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", name);
            goto fail;
        }
        f->n++;
    }
done:
    *out = f;
    return 0;
fail:
    brock__sitefixes_free(f);
    return rc;
}

/* host is p, or a name under p. */
static int covers(const char *p, const char *host)
{
    size_t pl = strlen(p), hl = strlen(host);

    if (hl == pl)
        return !memcmp(p, host, pl);
    return hl > pl && host[hl - pl - 1] == '.' && !memcmp(host + hl - pl, p, pl);
}

static int listed(const struct strvec *sv, const char *host)
{
    for (size_t i = 0; i < sv->n; i++)
        if (covers(sv->v[i], host))
            return 1;
    return 0;
}

const struct brock__site_fixes *brock__sitefix_find(const struct brock__sitefixes *f,
                                                    const char *site, size_t slen)
{
    return f && site ? strmap_getn(&f->sites, site, slen) : NULL;
}

int brock__sitefix_ignored(const struct brock__site_fixes *sf, const char *host)
{
    return sf && listed(&sf->ignore, host);
}

int brock__sitefix_cookieblock(const struct brock__site_fixes *sf, const char *host)
{
    return sf && listed(&sf->yellow, host);
}

int brock__sitefix_no_signals(const struct brock__sitefixes *f, const char *site)
{
    char host[BROCK_HOST_MAX];

    if (!f || !site || !*site || brock_host_normalize(site, strlen(site), host) < 0)
        return 0;
    return strmap_get(&f->gpc, host) != NULL;
}
