/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The user's choices for one site only: an action for a domain that holds on the pages of one
 * first party (its base domain) and beats every other rule for that domain there, kept beside
 * the action map and written to the store as rows of their own. The choices are kept twice:
 * by "SITE DOMAIN", which the store's rows follow, and by site then domain, so that a decision
 * on a site without choices costs one lookup however many other sites have some.
 */
#include "engine/engine.h"
#include "engine/names.h"

#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

/* One choice, keyed "SITE DOMAIN": both are normalised names, which hold no space. */
#define KEY_MAX (2 * (size_t)BROCK_HOST_MAX)

struct site_action {
    uint8_t user;  /* BROCK_USER_*, or BROCK_NOACTION: removed, the row to delete */
    uint8_t dirty; /* to be written (or deleted) at the next flush */
    uint8_t seen;  /* a reload found its row */
    size_t site_len;
    char key[];
};

static int is_user_action(int a)
{
    return a == BROCK_USER_ALLOW || a == BROCK_USER_BLOCK || a == BROCK_USER_COOKIEBLOCK;
}

/* "site domain" into key (KEY_MAX bytes); 0, or -1 when too long. */
static int key_make(char *key, const char *site, size_t slen, const char *domain)
{
    size_t dlen = strlen(domain);

    if (slen + 1 + dlen >= KEY_MAX)
        return -1;
    memcpy(key, site, slen);
    key[slen] = ' ';
    memcpy(key + slen + 1, domain, dlen + 1);
    return 0;
}

/* ---- the two maps, kept in step ---- */

static void domains_free(void *m)
{
    strmap_cleanup(m, NULL);
    mem_free(m);
}

/* Puts s into the site's map of domains, making that map if the site has none. */
static int index_put(struct brock_engine *e, struct site_action *s)
{
    struct strmap *m = strmap_getn(&e->site_index, s->key, s->site_len);
    char site[BROCK_HOST_MAX];
    int made = 0;

    if (!m) {
        if (!(m = mem_malloc(sizeof(*m))))
            return -1;
        strmap_init(m);
        memcpy(site, s->key, s->site_len);
        site[s->site_len] = '\0';
        if (strmap_put(&e->site_index, site, m) < 0) {
            mem_free(m);
            return -1;
        }
        made = 1;
    }
    if (strmap_put(m, s->key + s->site_len + 1, s) < 0) {
        if (made)
            domains_free(strmap_del(&e->site_index, site));
        return -1;
    }
    return 0;
}

/* Takes s out of both maps and frees it; a site left without choices leaves the index. */
static void entry_remove(struct brock_engine *e, struct site_action *s)
{
    struct strmap *m = strmap_getn(&e->site_index, s->key, s->site_len);
    char site[BROCK_HOST_MAX];

    if (m) {
        strmap_del(m, s->key + s->site_len + 1);
        if (!m->len) {
            memcpy(site, s->key, s->site_len);
            site[s->site_len] = '\0';
            domains_free(strmap_del(&e->site_index, site));
        }
    }
    strmap_del(&e->site_actions, s->key);
    mem_free(s);
}

static struct site_action *entry_ensure(struct brock_engine *e, const char *site,
                                        const char *domain)
{
    char key[KEY_MAX];
    size_t slen = strlen(site), klen;
    struct site_action *s;

    if (key_make(key, site, slen, domain) < 0)
        return NULL;
    s = strmap_get(&e->site_actions, key);
    if (s)
        return s;
    klen = strlen(key);
    s = mem_calloc(1, sizeof(*s) + klen + 1);
    if (!s)
        return NULL;
    memcpy(s->key, key, klen + 1);
    s->site_len = slen;
    if (strmap_put(&e->site_actions, s->key, s) < 0) {
        mem_free(s);
        return NULL;
    }
    if (index_put(e, s) < 0) {
        strmap_del(&e->site_actions, s->key);
        mem_free(s);
        return NULL;
    }
    return s;
}

void brock__site_actions_free(struct brock_engine *e)
{
    strmap_cleanup(&e->site_index, domains_free);
    strmap_cleanup(&e->site_actions, mem_free);
}

int brock__site_actions_each(const struct brock_engine *e, const char *site,
                             int (*cb)(void *arg, const char *domain, enum brock_action a),
                             void *arg)
{
    const struct strmap *m = site && *site ? strmap_get(&e->site_index, site) : NULL;
    const struct site_action *s;
    const char *domain;
    size_t it = 0;
    void *v;
    int rc;

    while (m && strmap_next(m, &it, &domain, &v)) {
        s = v;
        if (s->user != BROCK_NOACTION && (rc = cb(arg, domain, (enum brock_action)s->user)) != 0)
            return rc;
    }
    return 0;
}

/* ---- the decision ---- */

enum brock_action brock__site_action_find(const struct brock_engine *e, const char *site,
                                          const char *fqdn, const char **source)
{
    const struct strmap *m;
    const char *base;

    *source = NULL;
    if (!e->site_index.len || !site || !*site || !(m = strmap_get(&e->site_index, site)))
        return BROCK_NOACTION;
    /* The most specific name wins: the first found walking up from the host. The walk stops
     * at the host's base domain, which only a find needs: a choice for a name above it (a
     * public suffix's) does not reach the host. */
    for (const char *p = fqdn; p; p = hostname_parent(p)) {
        const struct site_action *s = strmap_get(m, p);

        if (!s || s->user == BROCK_NOACTION)
            continue;
        base = brock__base(e, fqdn);
        if (!*base || p > base)
            return BROCK_NOACTION;
        *source = s->key + s->site_len + 1;
        return (enum brock_action)s->user;
    }
    return BROCK_NOACTION;
}

/* ---- the public calls ---- */

/* The site's base domain into out, and the domain normalised into name. */
static int names_check(struct brock_engine *e, const char *site, const char *domain,
                       char out[BROCK_HOST_MAX], char name[BROCK_HOST_MAX])
{
    char host[BROCK_HOST_MAX];
    const char *base;

    if (!domain || brock_host_normalize(domain, strlen(domain), name) < 0 || !hostname_valid(name))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a domain name", domain ? domain : "");
    if (!site || brock_host_normalize(site, strlen(site), host) < 0 || !hostname_valid(host))
        return brock__fail(e, BROCK_EINVAL, "site '%s' is not a domain name", site ? site : "");
    base = brock__base(e, host);
    if (!*base || !strchr(host, '.') || brock__is_ip(host) || brock__is_public_suffix(host))
        return brock__fail(e, BROCK_EINVAL,
                           "site '%s' has no base domain (it is a public suffix or an address)",
                           site);
    memmove(out, base, strlen(base) + 1);
    if (!brock__is_third_party_domain(e, name, out))
        return brock__fail(e, BROCK_EINVAL,
                           "'%s' is first party on %s: a choice for it there would never apply",
                           name, out);
    return 0;
}

int brock__site_action_check(struct brock_engine *e, const char *site, const char *domain)
{
    char base[BROCK_HOST_MAX], name[BROCK_HOST_MAX];

    return names_check(e, site, domain, base, name);
}

int brock_set_site_action(struct brock_engine *e, const char *site, const char *domain,
                          enum brock_action a)
{
    char base[BROCK_HOST_MAX], name[BROCK_HOST_MAX], key[KEY_MAX];
    struct site_action *s;
    int rc;

    if (a != BROCK_NOACTION && !is_user_action((int)a))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a user action", brock_action_name(a));
    if ((rc = names_check(e, site, domain, base, name)) < 0)
        return rc;
    if (a == BROCK_NOACTION) {
        if (key_make(key, base, strlen(base), name) < 0 ||
            !(s = strmap_get(&e->site_actions, key)) || s->user == BROCK_NOACTION)
            return 0;
    } else if (!(s = entry_ensure(e, base, name))) {
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    s->user = (uint8_t)a;
    s->dirty = 1;
    e->dirty++;
    brock__answers_forget(e);
    return 0;
}

int brock_reset_site_action(struct brock_engine *e, const char *site, const char *domain)
{
    return brock_set_site_action(e, site, domain, BROCK_NOACTION);
}

static int cmp_choice(const void *a, const void *b)
{
    const struct brock_site_action *x = a, *y = b;
    int c = strcmp(x->site, y->site);

    return c ? c : strcmp(x->domain, y->domain);
}

int brock_site_actions(struct brock_engine *e, const char *site, struct brock_site_action **out,
                       size_t *n)
{
    char host[BROCK_HOST_MAX];
    const char *base = NULL, *key;
    const struct strmap *from = &e->site_actions;
    struct brock_site_action *v;
    void *val;
    size_t it = 0, k = 0;

    *out = NULL;
    *n = 0;
    if (site && *site) {
        if (brock_host_normalize(site, strlen(site), host) < 0)
            return brock__fail(e, BROCK_EINVAL, "site '%s' is not a host name", site);
        base = brock__base(e, host);
        if (!*base)
            base = host;
    }
    /* One site's choices are its map in the index; every site's, the whole map. */
    if (base && !(from = strmap_get(&e->site_index, base)))
        return 0;
    v = mem_calloc(from->len, sizeof(*v));
    if (!v)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    while (strmap_next(from, &it, &key, &val)) {
        const struct site_action *s = val;

        if (s->user == BROCK_NOACTION)
            continue;
        memcpy(v[k].site, s->key, s->site_len);
        v[k].site[s->site_len] = '\0';
        memcpy(v[k].domain, s->key + s->site_len + 1, strlen(s->key + s->site_len + 1) + 1);
        v[k].action = (enum brock_action)s->user;
        k++;
    }
    qsort(v, k, sizeof(*v), cmp_choice);
    *out = v;
    *n = k;
    return (int)k;
}

/* ---- the store ---- */

int brock__site_action_apply(struct brock_engine *e, const char *site, const char *domain,
                             const char *user)
{
    int a = brock__user_parse(user);
    struct site_action *s;
    char key[KEY_MAX];

    if (!is_user_action(a) || !hostname_valid(site) || !hostname_valid(domain))
        return 0; /* a row no version of brock writes: left alone */
    if (key_make(key, site, strlen(site), domain) < 0)
        return 0;
    s = strmap_get(&e->site_actions, key);
    if (s && s->dirty) {
        s->seen = 1;
        return 0; /* memory's change is newer than any row */
    }
    if (!s && !(s = entry_ensure(e, site, domain)))
        return BROCK_ENOMEM;
    s->seen = 1;
    if (s->user == a)
        return 0;
    s->user = (uint8_t)a;
    brock__answers_forget(e);
    return 1;
}

void brock__site_actions_reload_begin(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->site_actions, &it, &key, &val))
        ((struct site_action *)val)->seen = 0;
}

int brock__site_actions_reload_end(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it = 0;
    int n = 0;

    while (strmap_next(&e->site_actions, &it, &key, &val)) {
        struct site_action *s = val;

        if (s->seen || s->dirty)
            continue;
        entry_remove(e, s);
        n++;
    }
    if (n)
        brock__answers_forget(e);
    return n;
}

int brock__site_actions_flush(struct brock_engine *e,
                              int (*put)(void *arg, const char *site, const char *domain,
                                         const char *user),
                              void *arg)
{
    char site[BROCK_HOST_MAX];
    const char *key;
    void *val;
    size_t it = 0;
    int n = 0, rc;

    while (strmap_next(&e->site_actions, &it, &key, &val)) {
        struct site_action *s = val;

        if (!s->dirty)
            continue;
        memcpy(site, s->key, s->site_len);
        site[s->site_len] = '\0';
        rc = put(arg, site, s->key + s->site_len + 1,
                 s->user == BROCK_NOACTION ? NULL : brock__user_name(s->user));
        if (rc < 0)
            return rc;
        n++;
    }
    return n;
}

void brock__site_actions_clean(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->site_actions, &it, &key, &val)) {
        struct site_action *s = val;

        s->dirty = 0;
        if (s->user == BROCK_NOACTION)
            entry_remove(e, s);
    }
}

void brock__site_actions_mark_all(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it = 0;

    while (strmap_next(&e->site_actions, &it, &key, &val))
        ((struct site_action *)val)->dirty = 1;
}
