/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Learning: identifying cookies on a third-party exchange are evidence that the tracker's
 * base follows people onto that site (the snitch map); evidence on the threshold's worth of
 * sites blocks it, or cookieblocks it when the cookieblock list says blocking would break
 * sites (Privacy Badger's recordPrevalence and blocklistDomain, sections 3.1 and 3.9).
 */
#include "engine/engine.h"
#include "engine/names.h"
#include "engine/evidence.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"

/* ---- the snitch map, tracking map and fp_scripts ---- */

struct snitch *brock__snitch_get(const struct brock_engine *e, const char *base)
{
    return strmap_get(&e->snitches, base);
}

int brock__snitch_has(const struct snitch *s, const char *site)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (!strcmp(s->v[i].site, site))
            return 1;
    return 0;
}

int brock__snitch_add(struct brock_engine *e, const char *base, const char *site,
                      const struct brock__evidence_in *ev)
{
    struct snitch *s = strmap_get(&e->snitches, base);
    struct snitch_site *ss;
    int created = 0;

    if (brock__snitch_has(s, site))
        return 0;
    if (!s) {
        s = mem_calloc(1, sizeof(*s));
        if (!s || strmap_put(&e->snitches, base, s) < 0) {
            mem_free(s);
            return BROCK_ENOMEM;
        }
        created = 1;
    }
    if (mem_grow(&s->v, &s->cap, s->n + 1, sizeof(*s->v)) < 0)
        goto nomem;
    ss = &s->v[s->n];
    memset(ss, 0, sizeof(*ss));
    ss->site = mem_strdup(site);
    if (!ss->site)
        goto nomem;
    if (ev) {
        if (ev->host && *ev->host && !(ss->host = mem_strdup(ev->host)))
            goto nomem_site;
        if (ev->detail && *ev->detail && !(ss->detail = brock__utf8_dup(ev->detail)))
            goto nomem_site;
        if (ev->param && *ev->param && !(ss->param = brock__utf8_dup(ev->param)))
            goto nomem_site;
        ss->kind = (uint8_t)ev->kind;
        ss->time_ms = ev->time_ms;
    }
    ss->dirty = BROCK__DIRTY_NEW;
    s->n++;
    if (brock__learned_note(e, base, s, ev ? ev->kind : BROCK_EVIDENCE_IMPORTED) < 0) {
        s->n--;
        goto nomem_site;
    }
    e->dirty++;
    return 1;
nomem_site:
    mem_free(ss->site);
    mem_free(ss->host);
    mem_free(ss->detail);
    mem_free(ss->param);
nomem:
    if (created)
        brock__snitch_free(strmap_del(&e->snitches, base));
    return BROCK_ENOMEM;
}

int brock__tracking_add(struct brock_engine *e, const char *base, const char *site, unsigned kinds)
{
    struct tracking *t = strmap_get(&e->tracking, base);
    struct tracking_site *ts;

    if (!t) {
        t = mem_calloc(1, sizeof(*t));
        if (!t || strmap_put(&e->tracking, base, t) < 0) {
            mem_free(t);
            return BROCK_ENOMEM;
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        if (!strcmp(t->v[i].site, site)) {
            if ((t->v[i].kinds & kinds) != kinds) {
                t->v[i].kinds |= kinds;
                t->v[i].dirty = BROCK__DIRTY_NEW;
                e->dirty++;
            }
            return 0;
        }
    }
    if (mem_grow(&t->v, &t->cap, t->n + 1, sizeof(*t->v)) < 0)
        return BROCK_ENOMEM;
    ts = &t->v[t->n];
    ts->site = mem_strdup(site);
    if (!ts->site)
        return BROCK_ENOMEM;
    ts->kinds = kinds;
    ts->dirty = BROCK__DIRTY_NEW;
    t->n++;
    e->dirty++;
    return 0;
}

int brock__fp_add(struct brock_engine *e, const char *host, const char *path)
{
    struct fp_host *f = strmap_get(&e->fp_scripts, host);
    char *p = brock__utf8_dup(path);

    if (!p)
        return BROCK_ENOMEM;

    if (!f) {
        f = mem_calloc(1, sizeof(*f));
        if (!f || strmap_put(&e->fp_scripts, host, f) < 0) {
            mem_free(f);
            mem_free(p);
            return BROCK_ENOMEM;
        }
    }
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->paths[i], p)) {
            mem_free(p);
            return 0;
        }
    if (mem_grow(&f->paths, &f->cap, f->n + 1, sizeof(*f->paths)) < 0) {
        mem_free(p);
        return BROCK_ENOMEM;
    }
    f->paths[f->n++] = p;
    e->n_fp_paths++;
    f->dirty = BROCK__DIRTY_NEW;
    e->dirty++;
    return 0;
}

/* ---- blocking ---- */

static int set_heur(struct brock_engine *e, const char *domain, int heur)
{
    struct action_entry *a = brock__action_ensure(e, domain);

    if (!a)
        return BROCK_ENOMEM;
    if (a->heur != heur) {
        a->heur = (uint8_t)heur;
        brock__action_touch(e, a, BROCK__DIRTY_HEUR);
    }
    return 0;
}

int brock__blocklist_domain(struct brock_engine *e, const char *base, const char *fqdn)
{
    size_t blen = strlen(base);
    int err;

    err = set_heur(e, base, brock__yellowlisted(&e->lists, base) ? BROCK_COOKIEBLOCK : BROCK_BLOCK);
    if (!err)
        err = set_heur(e, fqdn,
                       brock__would_cookieblock(&e->lists, fqdn) ? BROCK_COOKIEBLOCK : BROCK_BLOCK);
    for (size_t i = 0; !err && i < e->lists.yellow_order.n; i++) {
        const char *d = e->lists.yellow_order.v[i];
        size_t dlen = strlen(d);
        if (dlen > blen && d[dlen - blen - 1] == '.' && !strcmp(d + dlen - blen, base))
            err = set_heur(e, d, BROCK_COOKIEBLOCK);
    }
    return err;
}

/* ---- recording prevalence ---- */

static int never_recorded(const char *fqdn, const char *base)
{
    static const char suffix[] = ".id.opendns.com";
    size_t n = strlen(fqdn), s = sizeof(suffix) - 1;

    return !strcmp(base, "consensu.org") || (n > s && !strcmp(fqdn + n - s, suffix));
}

int brock__record_prevalence(struct brock_engine *e, const char *fqdn, const char *base,
                             const char *site, const struct brock__evidence_in *ev)
{
    struct snitch *s;
    int added, err;

    if (never_recorded(fqdn, base))
        return 0;
    if (!brock__action_get(e, fqdn)) {
        if ((err = set_heur(e, fqdn, BROCK_ALLOW)) < 0)
            return err;
        if (!brock__action_get(e, base) && (err = set_heur(e, base, BROCK_ALLOW)) < 0)
            return err;
    }
    added = brock__snitch_add(e, base, site, ev);
    if (added <= 0)
        return added;
    s = brock__snitch_get(e, base);
    /* A tracker new to learning may take the place of the one learning touched longest
     * ago, never of this one. */
    if ((err = brock__learned_bound(e, s)) < 0)
        return err;
    if (s->n >= e->threshold) {
        if ((err = brock__blocklist_domain(e, base, fqdn)) < 0)
            return err;
        /* Learned now, on site: an import brings what was learned elsewhere, at no time,
         * and evidence without a record has no time either. */
        if (ev && ev->kind != BROCK_EVIDENCE_IMPORTED &&
            (err = brock__daily_add(e, site, BROCK__DAILY_LEARNED, ev->time_ms)) < 0)
            return err;
        return 2;
    }
    return 1;
}

int brock__update_tracker_prevalence(struct brock_engine *e, const char *fqdn, const char *base,
                                     const char *site, const struct brock__evidence_in *ev)
{
    enum brock_action a = brock__best_action(e, fqdn, NULL);

    if (a != BROCK_NOACTION && a != BROCK_ALLOW)
        return 0;
    return brock__record_prevalence(e, fqdn, base, site, ev);
}

int brock__learned_tell(struct brock_engine *e, struct brock_learned *learned, int r,
                        const char *base)
{
    if (r < 0)
        return brock__fail(e, r, "out of memory while learning");
    if (learned) {
        learned->recorded = r > 0;
        learned->blocked = r == 2;
        snprintf(learned->tracker, sizeof(learned->tracker), "%s", r > 0 ? base : "");
    }
    return 0;
}

static int is_ows(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* An <a ping> is sent with Content-Type: text/ping (HTML's hyperlink auditing); a media type's
 * parameters are no part of its type (RFC 9110 8.3.1), so they are allowed, and nothing else. */
int brock_is_beacon_type(const char *ct, size_t len)
{
    static const char type[] = "text/ping";
    size_t n = sizeof(type) - 1, i = 0;

    while (i < len && is_ows(ct[i]))
        i++;
    if (len - i < n || strncasecmp(ct + i, type, n) != 0)
        return 0;
    for (i += n; i < len && is_ows(ct[i]); i++)
        ;
    return i == len || ct[i] == ';';
}

/* The User-Agent among h, or NULL. */
static const struct brock_header *user_agent(const struct brock_header *h, size_t n)
{
    for (size_t i = 0; h && i < n; i++)
        if (h[i].name && h[i].value && h[i].name_len == 10 &&
            !strncasecmp(h[i].name, "user-agent", 10))
            return &h[i];
    return NULL;
}

/* checkForPixelCookieSharing's test (section 3.7) for an exchange that passed the checks
 * every kind of evidence shares. Returns 1 with hit filled, 0, or BROCK_ENOMEM. */
static int pixel_shared(const struct brock_observation *o, const char *site_host,
                        struct brock__pixel_hit *hit)
{
    const struct brock_header *ua = user_agent(o->headers, o->n_headers);
    char tab[BROCK_HOST_MAX + 16];
    struct brock__pixel_in in;

    if (o->type != BROCK_RESOURCE_IMAGE || !o->url || !strchr(o->url, '?') || !o->site_cookies ||
        !*o->site_cookies)
        return 0;
    if (o->site_url && *o->site_url)
        in.tab_url = o->site_url;
    else if (strstr(o->site, "://"))
        in.tab_url = o->site;
    else {
        snprintf(tab, sizeof(tab), "https://%s/", site_host);
        in.tab_url = tab;
    }
    in.tab_url_len = strlen(in.tab_url);
    in.url = o->url;
    in.url_len = strlen(o->url);
    in.ua = ua ? ua->value : NULL;
    in.ua_len = ua ? ua->value_len : 0;
    in.cookies = o->site_cookies;
    in.cookies_len = strlen(o->site_cookies);
    return brock__pixel_share(&in, hit);
}

int brock__learn_parties(struct brock_engine *e, const char *host, const char *site_host,
                         struct brock__parties *p)
{
    const char *cname = brock__cname(&e->lists, host, strlen(host));

    p->fqdn = cname ? cname : host;
    if (brock__is_private(p->fqdn))
        return 0;
    snprintf(p->base, sizeof(p->base), "%s", brock__base(e, p->fqdn));
    snprintf(p->site, sizeof(p->site), "%s", brock__base(e, site_host));
    return *p->base && *p->site && brock__is_third_party_domain(e, p->base, p->site);
}

/* checkForTrackingCookies for one exchange (section 3.1), then checkForPixelCookieSharing
 * (section 3.7). */
int brock_observe(struct brock_engine *e, const struct brock_observation *o,
                  struct brock_learned *learned)
{
    char host[BROCK_HOST_MAX], site_host[BROCK_HOST_MAX], cookie[128] = "";
    struct brock__parties p;
    const char *fqdn, *base, *site;
    struct brock__evidence_in ev;
    enum brock_action a;
    int r;

    brock__learned_tell(e, learned, 0, NULL);
    if (!e->learn || !o->host || !o->site || !*o->site)
        return 0;
    if (brock_host_normalize(o->host, strlen(o->host), host) < 0 ||
        brock_url_host(o->site, site_host) < 0 || !brock__learn_parties(e, host, site_host, &p))
        return 0;
    fqdn = p.fqdn;
    base = p.base;
    site = p.site;
    if (brock__snitch_has(brock__snitch_get(e, base), site))
        return 0;
    a = brock__best_action(e, fqdn, NULL);
    if (a != BROCK_NOACTION && a != BROCK_ALLOW)
        return 0;

    ev.host = fqdn;
    ev.time_ms = o->time_ms;
    ev.param = NULL;
    if (o->flags & BROCK_OBS_BEACON) {
        ev.kind = BROCK_EVIDENCE_BEACON;
        ev.detail = NULL;
        r = brock__record_prevalence(e, fqdn, base, site, &ev);
        if (r >= 0 && brock__tracking_add(e, base, site, BROCK__TRACK_BEACON) < 0)
            r = BROCK_ENOMEM;
    } else if (!brock__has_cookie_tracking(o->headers, o->n_headers, cookie, sizeof(cookie))) {
        struct brock__pixel_hit hit;

        r = pixel_shared(o, site_host, &hit);
        if (r <= 0)
            return r < 0 ? brock__fail(e, r, "out of memory while learning") : 0;
        ev.kind = BROCK_EVIDENCE_PIXEL;
        ev.detail = hit.cookie;
        ev.param = hit.param;
        r = brock__record_prevalence(e, fqdn, base, site, &ev);
        if (r >= 0 && brock__tracking_add(e, base, site, BROCK__TRACK_PIXEL) < 0)
            r = BROCK_ENOMEM;
    } else {
        ev.kind = BROCK_EVIDENCE_COOKIE;
        for (size_t i = 0; i < o->n_headers; i++) {
            if (o->headers[i].name_len == 10 &&
                !strncasecmp(o->headers[i].name, "set-cookie", 10)) {
                ev.kind = BROCK_EVIDENCE_SET_COOKIE;
                break;
            }
        }
        ev.detail = cookie;
        r = brock__record_prevalence(e, fqdn, base, site, &ev);
    }
    return brock__learned_tell(e, learned, r, base);
}
