/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The action for a host: the action map's entries, how one entry gives an action, and how the
 * entries from a host's base up to the host itself resolve to one (Privacy Badger's getAction
 * and getBestAction), then the decision for a request and the user's choices.
 */
#include "engine/engine.h"
#include "engine/names.h"
#include "data/surrogate.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"

static const char *const action_names[] = {
    [BROCK_NOACTION] = "noaction",
    [BROCK_ALLOW] = "allow",
    [BROCK_BLOCK] = "block",
    [BROCK_COOKIEBLOCK] = "cookieblock",
    [BROCK_DNT] = "dnt",
    [BROCK_USER_ALLOW] = "user_allow",
    [BROCK_USER_BLOCK] = "user_block",
    [BROCK_USER_COOKIEBLOCK] = "user_cookieblock",
};

const char *brock_action_name(enum brock_action a)
{
    if ((unsigned)a >= sizeof(action_names) / sizeof(action_names[0]))
        return "noaction";
    return action_names[a];
}

/* The action whose Privacy Badger name is s, or -1. */
static int action_find(const char *s)
{
    for (size_t a = 0; a < sizeof(action_names) / sizeof(action_names[0]); a++)
        if (!strcmp(action_names[a], s))
            return (int)a;
    return -1;
}

int brock_action_parse(const char *word, char *err, size_t errlen)
{
    int a = word ? action_find(word) : -1;

    switch (a) {
    case BROCK_ALLOW:
    case BROCK_USER_ALLOW: return BROCK_USER_ALLOW;
    case BROCK_COOKIEBLOCK:
    case BROCK_USER_COOKIEBLOCK: return BROCK_USER_COOKIEBLOCK;
    case BROCK_BLOCK:
    case BROCK_USER_BLOCK: return BROCK_USER_BLOCK;
    default: break;
    }
    if (word && !strcmp(word, "reset"))
        return BROCK_NOACTION;
    if (err && errlen && word)
        snprintf(err, errlen, "'%s' is not an action: use allow, cookieblock, block or reset",
                 word);
    else if (err && errlen)
        snprintf(err, errlen, "no action was given: use allow, cookieblock, block or reset");
    return BROCK_EINVAL;
}

const char *brock_action_words(enum brock_action a)
{
    switch (a) {
    case BROCK_NOACTION: return "allowed (not seen tracking)";
    case BROCK_ALLOW: return "allowed";
    case BROCK_BLOCK: return "blocked";
    case BROCK_COOKIEBLOCK: return "allowed without cookies";
    case BROCK_DNT: return "allowed (it follows the Do Not Track policy)";
    case BROCK_USER_ALLOW: return "allowed, as you chose";
    case BROCK_USER_BLOCK: return "blocked, as you chose";
    case BROCK_USER_COOKIEBLOCK: return "allowed without cookies, as you chose";
    }
    return "allowed (not seen tracking)";
}

const char *brock_effect_name(enum brock_effect e)
{
    switch (e) {
    case BROCK_PASS: return "pass";
    case BROCK_STRIP_COOKIES: return "cookieblock";
    case BROCK_DENY: return "block";
    }
    return "pass";
}

enum brock_effect brock_action_effect(enum brock_action a)
{
    switch (a) {
    case BROCK_BLOCK:
    case BROCK_USER_BLOCK: return BROCK_DENY;
    case BROCK_COOKIEBLOCK:
    case BROCK_USER_COOKIEBLOCK: return BROCK_STRIP_COOKIES;
    case BROCK_NOACTION:
    case BROCK_ALLOW:
    case BROCK_DNT:
    case BROCK_USER_ALLOW: return BROCK_PASS;
    }
    return BROCK_PASS;
}

int brock__heur_parse(const char *s)
{
    int a = action_find(s);

    if (!*s)
        return BROCK_NOACTION;
    return a == BROCK_ALLOW || a == BROCK_BLOCK || a == BROCK_COOKIEBLOCK ? a : -1;
}

const char *brock__heur_name(int heur)
{
    switch (heur) {
    case BROCK_ALLOW:
    case BROCK_BLOCK:
    case BROCK_COOKIEBLOCK: return action_names[heur];
    default: return "";
    }
}

int brock__user_parse(const char *s)
{
    int a = action_find(s);

    if (!*s)
        return BROCK_NOACTION;
    return a == BROCK_USER_ALLOW || a == BROCK_USER_BLOCK || a == BROCK_USER_COOKIEBLOCK ? a : -1;
}

const char *brock__user_name(int user)
{
    switch (user) {
    case BROCK_USER_ALLOW:
    case BROCK_USER_BLOCK:
    case BROCK_USER_COOKIEBLOCK: return action_names[user];
    default: return "";
    }
}

/* ---- the action map ---- */

struct action_entry *brock__action_get(const struct brock_engine *e, const char *domain)
{
    return strmap_get(&e->actions, domain);
}

struct action_entry *brock__action_ensure(struct brock_engine *e, const char *domain)
{
    struct action_entry *a = strmap_get(&e->actions, domain);
    size_t n;

    if (a)
        return a;
    n = strlen(domain);
    a = mem_calloc(1, sizeof(*a) + n + 1);
    if (!a)
        return NULL;
    memcpy(a->domain, domain, n + 1);
    if (strmap_put(&e->actions, a->domain, a) < 0) {
        mem_free(a);
        return NULL;
    }
    /* A new row is inserted whole; if another process created it meanwhile, only the columns
     * this one then sets overwrite its. */
    brock__action_touch(e, a, BROCK__DIRTY_NEW);
    return a;
}

void brock__action_touch(struct brock_engine *e, struct action_entry *a, unsigned bits)
{
    a->dirty |= (uint8_t)bits;
    e->dirty++;
    brock__answers_forget(e);
}

int brock__action_delete(struct brock_engine *e, const char *domain)
{
    struct action_entry *a = strmap_get(&e->actions, domain);

    if (!a)
        return 0;
    if (strvec_push(&e->deleted, domain) < 0)
        return BROCK_ENOMEM;
    strmap_del(&e->actions, domain);
    mem_free(a);
    e->dirty++;
    brock__answers_forget(e);
    return 0;
}

/* ---- resolution ---- */

enum brock_action brock__get_action(const struct brock_engine *e, const struct action_entry *a,
                                    int ignore_dnt)
{
    if (!e->check_dnt)
        ignore_dnt = 1;
    if (a->user != BROCK_NOACTION)
        return (enum brock_action)a->user;
    if (a->dnt && !ignore_dnt)
        return BROCK_DNT;
    if (a->heur == BROCK__HEUR_UNKNOWN)
        return (enum brock_action)BROCK__HEUR_UNKNOWN;
    return (enum brock_action)a->heur;
}

int brock__score(int action)
{
    switch (action) {
    case BROCK_NOACTION: return 0;
    case BROCK_ALLOW: return 1;
    case BROCK_BLOCK: return 2;
    case BROCK_COOKIEBLOCK: return 3;
    case BROCK_DNT: return 4;
    case BROCK_USER_ALLOW:
    case BROCK_USER_BLOCK:
    case BROCK_USER_COOKIEBLOCK: return 5;
    default: return -1;
    }
}

/* Walks from the base up to fqdn so that, on equal scores, the more specific name wins. The
 * names are suffixes of fqdn, so the walk needs no copies: collect the label starts first.
 * A DNT flag counts at dnt_at only (fqdn, or NULL for none). */
static enum brock_action walk(const struct brock_engine *e, const char *fqdn, const char *base,
                              const char *dnt_at, const struct action_entry **source)
{
    const char *starts[BROCK_HOST_MAX / 2];
    size_t n = 0;
    enum brock_action best = BROCK_NOACTION;
    const struct action_entry *from = NULL;

    if (source)
        *source = NULL;
    if (!e->actions.len)
        return BROCK_NOACTION;
    if (!base)
        base = brock__base(e, fqdn);
    if (!*base)
        return BROCK_NOACTION;
    for (const char *p = fqdn; p && n < sizeof(starts) / sizeof(starts[0]);
         p = hostname_parent(p)) {
        starts[n++] = p;
        if (p >= base)
            break;
    }
    while (n--) {
        const struct action_entry *a = strmap_get(&e->actions, starts[n]);
        int act;
        if (!a)
            continue;
        act = brock__get_action(e, a, starts[n] != dnt_at);
        if (brock__score(act) >= brock__score(best)) {
            best = (enum brock_action)act;
            from = a;
        }
    }
    if (source)
        *source = best == BROCK_NOACTION ? NULL : from;
    return best;
}

enum brock_action brock__best_action(const struct brock_engine *e, const char *fqdn,
                                     const struct action_entry **source)
{
    return walk(e, fqdn, NULL, fqdn, source);
}

enum brock_action brock__best_action_base(const struct brock_engine *e, const char *fqdn,
                                          const char *base, const struct action_entry **source)
{
    return walk(e, fqdn, base, fqdn, source);
}

/* The walk for a name below fqdn that the map lacks meets the same entries as fqdn's, with
 * fqdn's DNT flag left out; below a public suffix every name is a site of its own. */
enum brock_action brock__below_action(const struct brock_engine *e, const char *fqdn)
{
    if (brock__is_public_suffix(fqdn))
        return BROCK_NOACTION;
    return walk(e, fqdn, NULL, NULL, NULL);
}

/* ---- disabled sites (section 4.2) ---- */

/* A disabledSites entry as it is matched: "*." and "." taken off. */
static const char *disabled_pattern(const char *p)
{
    if (*p == '*')
        p++;
    if (*p == '.')
        p++;
    return p;
}

/* Whether site_host (hlen bytes) is the pattern p (plen bytes, not empty) or under it. */
static int disabled_match(const char *site_host, size_t hlen, const char *p, size_t plen)
{
    if (hlen == plen && !memcmp(site_host, p, plen))
        return 1;
    return hlen > plen && site_host[hlen - plen - 1] == '.' &&
           !memcmp(site_host + hlen - plen, p, plen);
}

int brock__site_disabled(const struct brock_engine *e, const char *site_host)
{
    json_t *list = json_object_get(e->settings, "disabledSites");
    size_t i, hlen;
    json_t *v;

    if (!site_host || !*site_host || !json_is_array(list))
        return 0;
    hlen = strlen(site_host);
    json_array_foreach(list, i, v) {
        const char *p = json_string_value(v);

        if (!p)
            continue;
        p = disabled_pattern(p);
        if (*p && disabled_match(site_host, hlen, p, strlen(p)))
            return 1;
    }
    return 0;
}

int brock__disabled_sites_read(const struct brock_engine *e, struct brock__names **out)
{
    json_t *list = json_object_get(e->settings, "disabledSites"), *one;
    int rc;

    *out = NULL;
    if (!json_array_size(list))
        return 0;
    if (!(one = json_pack("[O]", list)))
        return BROCK_ENOMEM;
    rc = brock__names_from_json(one, disabled_pattern, out);
    json_decref(one);
    return rc;
}

int brock__site_disabled_in(const struct brock__decide_settings *ds, const char *site, size_t slen)
{
    const struct brock__names *d = ds->disabled;

    for (size_t i = 0; d && slen && i < d->n; i++)
        if (disabled_match(site, slen, d->v[i].s, d->v[i].len))
            return 1;
    return 0;
}

/* ---- decisions ---- */

/* n bytes of src (cut at BROCK_HOST_MAX - 1) and a NUL into dst; returns how many. */
static size_t copy_host_n(char *dst, const char *src, size_t n)
{
    if (n >= BROCK_HOST_MAX)
        n = BROCK_HOST_MAX - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
    return n;
}

static size_t copy_host(char *dst, const char *src)
{
    return copy_host_n(dst, src, strlen(src));
}

/* An invalid request's decision: nothing known, passed. */
static void decision_clear(struct brock_decision *d)
{
    d->host[0] = d->tracker[0] = d->base[0] = d->site[0] = d->source[0] = '\0';
    d->third_party = 0;
    d->site_fix = 0;
    d->site_choice = 0;
    d->via_dns = 0;
    d->reason = BROCK_WHY_INVALID;
    d->action = BROCK_NOACTION;
    d->effect = BROCK_PASS;
    d->surrogate = NULL;
    d->surrogate_len = 0;
    d->surrogate_token[0] = '\0';
    d->type = BROCK_RESOURCE_OTHER;
}

/* The names a decision is about, into d: the site's base, the tracker (d->host, or the CNAME
 * target it hides behind) and its base, each base once, its length known: the tracker's is a
 * tail of it, which the walk for its action starts from. Returns the CNAME target, or NULL
 * when it is the host; *tracker_base points at the tracker's base inside d->tracker. */
static inline const char *decide_names(struct brock_engine *e, size_t hlen, const char *site,
                                       size_t slen, struct brock_decision *d,
                                       struct brock__answer_tails *t, const char **tracker_base)
{
    const char *cname, *base;
    size_t tlen;

    t->site_off = slen;
    if (site) {
        base = brock__base_len(e, site, slen);
        t->site_off -= copy_host_n(d->site, base, slen - (size_t)(base - site));
    }
    cname = brock__cname(&e->lists, d->host, hlen);
    tlen = cname ? copy_host(d->tracker, cname) : copy_host_n(d->tracker, d->host, hlen);
    base = brock__base_len(e, d->tracker, tlen);
    t->tracker_len = t->source_off = t->base_off = tlen;
    t->base_off -= copy_host_n(d->base, base, tlen - (size_t)(base - d->tracker));
    *tracker_base = base;
    return cname;
}

/* The action for a third party that nothing before it let through (BROCK_WHY_ACTION): a
 * choice for this site only beats everything below it (siteaction.c); then the action of
 * the tracker's most specific name, cookieblocked by a site fix unless the user allowed it. */
static inline void decide_action(struct brock_engine *e, const char *site, const char *base,
                                 const struct brock__site_fixes *fixes, struct brock_decision *d,
                                 struct brock__answer_tails *t)
{
    const char *chosen = NULL;
    const struct action_entry *src;

    d->reason = BROCK_WHY_ACTION;
    d->action = site ? brock__site_action_find(e, d->site, d->tracker, &chosen) : BROCK_NOACTION;
    if (chosen) {
        d->site_choice = 1;
        d->effect = brock_action_effect(d->action);
        t->source_off -= copy_host(d->source, chosen);
        return;
    }
    d->action = brock__best_action_base(e, d->tracker, base, &src);
    if (d->action < BROCK_USER_ALLOW && brock__sitefix_cookieblock(fixes, d->tracker)) {
        d->action = BROCK_COOKIEBLOCK;
        d->site_fix = 1;
    }
    d->effect = brock_action_effect(d->action);
    if (src)
        t->source_off -= copy_host(d->source, src->domain);
}

/* The decision for d->host (hlen bytes) on site (slen bytes, normalised; NULL: unknown page):
 * Privacy Badger's checks in order. Returns the CNAME target copied into d->tracker, or NULL
 * when it is the host. */
static const char *decide_host(struct brock_engine *e, size_t hlen, const char *site, size_t slen,
                               struct brock_decision *d, struct brock__answer_tails *t)
{
    const struct brock__decide_settings *ds = e->plain ? NULL : brock__decide_settings(e);
    const char *base, *cname = decide_names(e, hlen, site, slen, d, t, &base);
    const struct brock__site_fixes *fixes;

    if (site && *d->tracker &&
        !brock__is_third_party_bases(e, d->tracker, t->tracker_len, base, site, slen, d->site)) {
        d->reason = BROCK_WHY_FIRST_PARTY;
        return cname;
    }
    d->third_party = 1;
    if (e->plain ? brock__is_private_plain(d->tracker) : brock__is_private(d->tracker)) {
        d->reason = BROCK_WHY_PRIVATE;
        return cname;
    }
    /* Paused, every page is as a disabled site's, an unknown one too. */
    if (ds ? ds->paused || brock__site_disabled_in(ds, site, slen) : brock__site_off(e, site)) {
        d->reason = BROCK_WHY_DISABLED;
        return cname;
    }
    /* Site fixes are keyed by the page's exact host, not its base (checkAction). */
    fixes = brock__sitefix_find(e->sitefixes, site, slen);
    if (brock__sitefix_ignored(fixes, d->tracker)) {
        d->reason = BROCK_WHY_IGNORED;
        return cname;
    }
    decide_action(e, site, base, fixes, d, t);
    return cname;
}

const char *brock__decide_name(struct brock_engine *e, size_t hlen, const char *site, size_t slen,
                               struct brock_decision *d, struct brock__answer_tails *t)
{
    return decide_host(e, hlen, site, slen, d, t);
}

/* The decision for d->host (hlen bytes, normalised) on site_host (slen bytes as given). An
 * answer kept for the pair is given back as it is: answers.c keeps it only until something
 * it depends on changes. Names are kept normalised, and a name that is so already is its
 * own normal form, so the pair is looked up as it comes first (unless the caller did:
 * probed), and normalised only when that finds nothing. *site_norm is then the site
 * normalised: site_host itself, or site (BROCK_HOST_MAX bytes); "" when unknown. */
static int decide_normalized(struct brock_engine *e, const char *site_host, size_t slen_given,
                             struct brock_decision *d, size_t hlen, int probed, char *site,
                             const char **site_norm)
{
    struct brock__answer_tails tails;
    const char *cname;
    int slen = 0;

    if (!site_host)
        site_host = "";
    *site_norm = site_host;
    if (!probed && brock__answer_get(e, d->host, hlen, site_host, slen_given, d))
        return 0;
    site[0] = '\0';
    if (slen_given && (slen = brock_host_normalize(site_host, slen_given, site)) < 0)
        return brock__fail(e, BROCK_EINVAL, "site '%s' is not a host name", site_host);
    *site_norm = site;
    if (((size_t)slen != slen_given || memcmp(site, site_host, slen_given) != 0) &&
        brock__answer_get(e, d->host, hlen, site, (size_t)slen, d))
        return 0;
    cname = decide_host(e, hlen, slen ? site : NULL, (size_t)slen, d, &tails);
    cname = brock__uncloak(e, hlen, slen ? site : NULL, (size_t)slen, d, &tails, cname);
    brock__answer_put(e, site, (size_t)slen, d, hlen, cname, &tails);
    return 0;
}

int brock_decide(struct brock_engine *e, const char *host, const char *site_host,
                 struct brock_decision *d)
{
    char site[BROCK_HOST_MAX];
    const char *site_norm;
    size_t len, slen = site_host ? strlen(site_host) : 0;
    int hlen;

    decision_clear(d);
    if (!host)
        return brock__fail(e, BROCK_EINVAL, "'(null)' is not a host name");
    len = strlen(host);
    brock__psl_check(e);
    if (brock__answer_get(e, host, len, site_host ? site_host : "", slen, d))
        return 0;
    if ((hlen = brock_host_normalize(host, len, d->host)) < 0)
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a host name", host);
    return decide_normalized(e, site_host, slen, d, (size_t)hlen,
                             (size_t)hlen == len && !memcmp(d->host, host, len), site, &site_norm);
}

/* Privacy Badger's FP_CDN_DOMAINS (constants.js): CDNs that are cookieblocked because sites
 * need them, where a script seen fingerprinting is blocked alone. */
static const char *const fp_cdn_domains[] = {
    "d.alicdn.com",
    "s3.us-west-2.amazonaws.com",
    "fp-cdn.azureedge.net",
    "sdtagging.azureedge.net",
    "cdnjs.cloudflare.com",
    "d1af033869koo7.cloudfront.net",
    "d38xvr37kwwhcm.cloudfront.net",
    "dlthst9q2beh8.cloudfront.net",
    "cdn.jsdelivr.net",
    "gadasource.storage.googleapis.com",
};

static int is_fp_cdn(const char *host)
{
    for (size_t i = 0; i < sizeof(fp_cdn_domains) / sizeof(fp_cdn_domains[0]); i++)
        if (!strcmp(host, fp_cdn_domains[i]))
            return 1;
    return 0;
}

/* Whether the path of url, without its query and fragment, is one of fp_scripts[host]. */
static int fp_script_listed(const struct brock_engine *e, const char *host, const char *url)
{
    const struct fp_host *f = strmap_get(&e->fp_scripts, host);
    const char *auth = strstr(url, "//"), *path;
    size_t end = strcspn(url, "?#"), len;

    if (!f)
        return 0;
    path = auth && (size_t)(auth - url) < end ? auth + 2 : url;
    path += strcspn(path, "/?#");
    len = strcspn(path, "?#");
    for (size_t i = 0; i < f->n; i++)
        if (strlen(f->paths[i]) == len && !memcmp(f->paths[i], path, len))
            return 1;
    return 0;
}

/* The widgetReplacementExceptions setting: widgets the user wants left as they are, whose
 * surrogates are then not served either. */
static int widget_excluded(void *arg, const char *widget)
{
    const struct brock_engine *e = arg;
    json_t *list = json_object_get(e->settings, "widgetReplacementExceptions"), *v;
    size_t i;

    json_array_foreach(list, i, v) {
        if (json_is_string(v) && !strcmp(json_string_value(v), widget))
            return 1;
    }
    return 0;
}

/* The two rules that look past the host (onBeforeRequest's steps 6 and 7). */
static void decide_url(struct brock_engine *e, const struct brock_request *r,
                       struct brock_decision *d)
{
    const char *body, *token;
    size_t len;

    if (d->reason != BROCK_WHY_ACTION || !d->third_party)
        return;
    if (r->type == BROCK_RESOURCE_SCRIPT && r->url &&
        (d->action == BROCK_COOKIEBLOCK || d->action == BROCK_USER_COOKIEBLOCK) &&
        is_fp_cdn(d->tracker) && fp_script_listed(e, d->tracker, r->url)) {
        d->reason = BROCK_WHY_FP_SCRIPT;
        d->effect = BROCK_DENY;
    }
    if (d->effect != BROCK_DENY)
        return;
    body = brock__surrogates_find(e->lists.surrogates, d->tracker, r->url, r->type, widget_excluded,
                                  e, &len, &token);
    if (!body)
        return;
    d->surrogate = body;
    d->surrogate_len = len;
    snprintf(d->surrogate_token, sizeof(d->surrogate_token), "%s", token);
}

/* A widget the user allowed on the page (checkAction's first line): its requests are
 * "ignore", passed untouched and never learned from. Widget allowances are keyed by the page's
 * exact host, as Privacy Badger keys widgetSiteAllowlist by the tab's host: site, normalised
 * ("": unknown). */
/* Whether the request's client always lets a widget load on the page's site (its exact
 * host) that unblocks the host, or the frame the request came from, or its CNAME target. */
static int client_widget(const struct brock_engine *e, const struct brock_request *r,
                         const char *site, const struct brock_decision *d)
{
    const char *frame = r->frame_host && *r->frame_host ? r->frame_host : NULL;

    if (!r->client || !*r->client || !site)
        return 0;
    return brock__client_widget_allowed(e, r->client, site, d->host) ||
           (strcmp(d->host, d->tracker) != 0 &&
            brock__client_widget_allowed(e, r->client, site, d->tracker)) ||
           (frame && brock__client_widget_allowed(e, r->client, site, frame));
}

static int widget_ignored(struct brock_engine *e, const struct brock_request *r, const char *site,
                          struct brock_decision *d)
{
    const struct brock__decide_settings *ds = e->plain ? NULL : brock__decide_settings(e);
    const char *s = *site ? site : NULL;

    if (!client_widget(e, r, s, d)) {
        if (ds && !ds->widget_sites.len && !r->n_widget_allow)
            return 0;
        if (ds ? !brock__widget_allowed_in(ds, r, s, d->host) &&
                     (!strcmp(d->host, d->tracker) ||
                      !brock__widget_allowed_in(ds, r, s, d->tracker))
               : !brock__widget_allowed(e, r, s, d->host) &&
                     (!strcmp(d->host, d->tracker) || !brock__widget_allowed(e, r, s, d->tracker)))
            return 0;
    }
    d->reason = BROCK_WHY_WIDGET;
    d->action = BROCK_NOACTION;
    d->effect = BROCK_PASS;
    d->source[0] = '\0';
    return 1;
}

/* A third party that nothing let through before brock's being off would (decide_host()'s
 * order) gets a disabled site's decision where the client turned brock off for itself. */
static int client_off(const struct brock_engine *e, const char *client, const char *site,
                      struct brock_decision *d)
{
    if (!d->third_party || d->reason == BROCK_WHY_PRIVATE || d->reason == BROCK_WHY_DISABLED ||
        !brock__client_off(e, client, site))
        return 0;
    d->reason = BROCK_WHY_DISABLED;
    d->action = BROCK_NOACTION;
    d->effect = BROCK_PASS;
    d->site_fix = d->site_choice = 0;
    d->source[0] = '\0';
    return 1;
}

int brock_decide_request(struct brock_engine *e, const struct brock_request *r,
                         struct brock_decision *d)
{
    char site[BROCK_HOST_MAX];
    const char *site_given = r->site ? r->site : "", *site_norm = site_given, *given = NULL;
    size_t slen = strlen(site_given), len = 0;
    int hlen, rc = 0;

    decision_clear(d);
    d->type = r->type;
    brock__psl_check(e);
    /* The host as written, when it can be seen without parsing the URL, is looked up before
     * it is normalised, as brock_decide() does: a kept name is its own normal form. */
    if (r->url)
        given = e->plain ? NULL : brock__url_plain_host(r->url, &len);
    else if (r->host)
        len = strlen(given = r->host);
    if (given && brock__answer_get(e, given, len, site_given, slen, d))
        goto decided;
    /* The URL's host comes out normalised: no second pass over it. */
    if (given) {
        if ((hlen = brock_host_normalize(given, len, d->host)) < 0)
            return r->url ? brock__fail(e, BROCK_EINVAL, "'%s' is not a URL with a host", r->url)
                          : brock__fail(e, BROCK_EINVAL, "'%s' is not a host name", r->host);
    } else if (r->url) {
        if ((hlen = brock_url_host(r->url, d->host)) < 0)
            return brock__fail(e, BROCK_EINVAL, "'%s' is not a URL with a host", r->url);
    } else {
        return brock__fail(e, BROCK_EINVAL, "'(null)' is not a host name");
    }
    rc = decide_normalized(e, site_given, slen, d, (size_t)hlen,
                           given && (size_t)hlen == len && !memcmp(d->host, given, len), site,
                           &site_norm);
    if (rc < 0)
        return rc;
decided:
    /* After the decision kept for (host, site): the client's switches and the page's
     * allowances are the request's. */
    if (r->client && *r->client && client_off(e, r->client, site_norm, d))
        return 0;
    if (d->reason == BROCK_WHY_ACTION && widget_ignored(e, r, site_norm, d))
        return 0;
    decide_url(e, r, d);
    return 0;
}

/* ---- explaining a decision ---- */

/* The words for one kind of evidence in an explanation. */
static const char *evidence_words(enum brock_evidence_kind k)
{
    switch (k) {
    case BROCK_EVIDENCE_COOKIE: return "cookie";
    case BROCK_EVIDENCE_SET_COOKIE: return "Set-Cookie";
    case BROCK_EVIDENCE_BEACON: return "beacon";
    case BROCK_EVIDENCE_PIXEL: return "pixel cookie sharing";
    case BROCK_EVIDENCE_CANVAS: return "canvas fingerprinting";
    case BROCK_EVIDENCE_SUPERCOOKIE: return "supercookie";
    case BROCK_EVIDENCE_LINK: return "link decoration";
    case BROCK_EVIDENCE_IMPORTED: break;
    }
    return "pre-trained or imported";
}

/* Appends text to buf (size bytes, *used of them taken), as much of it as fits. Returns 0, or
 * -1 when it did not fit whole. */
static int explain_put(char *buf, size_t size, size_t *used, const char *text)
{
    size_t n = strlen(text), room = size - 1 - *used;

    if (n > room) {
        memcpy(buf + *used, text, room);
        *used += room;
        buf[*used] = '\0';
        return -1;
    }
    memcpy(buf + *used, text, n + 1);
    *used += n;
    return 0;
}

/* What was seen of a tracker on one site, into buf: the kind its snitch entry recorded, then
 * the tracking map's other kinds there (t: the tracker's row, or NULL). A canvas read back on
 * a site a cookie had recorded already is only in the tracking map; the seed and imports
 * record no kind in the snitch map, but may in the tracking map. Returns as explain_put(). */
static int explain_site(const struct snitch_site *ss, const struct tracking *t, char *buf,
                        size_t size, size_t *used)
{
    static const struct {
        unsigned bit;
        enum brock_evidence_kind kind;
    } tracked[] = {
        {BROCK__TRACK_BEACON, BROCK_EVIDENCE_BEACON},
        {BROCK__TRACK_PIXEL, BROCK_EVIDENCE_PIXEL},
        {BROCK__TRACK_CANVAS, BROCK_EVIDENCE_CANVAS},
        {BROCK__TRACK_LINK, BROCK_EVIDENCE_LINK},
    };
    enum brock_evidence_kind kind = (enum brock_evidence_kind)ss->kind;
    unsigned kinds = 0;
    int said = 0;

    for (size_t i = 0; t && i < t->n; i++) {
        if (!strcmp(t->v[i].site, ss->site)) {
            kinds = t->v[i].kinds;
            break;
        }
    }
    if (kind != BROCK_EVIDENCE_IMPORTED || !kinds) {
        if (explain_put(buf, size, used, evidence_words(kind)) < 0)
            return -1;
        said = 1;
    }
    for (size_t i = 0; i < sizeof(tracked) / sizeof(tracked[0]); i++) {
        if (!(kinds & tracked[i].bit) || tracked[i].kind == kind)
            continue;
        if ((said && explain_put(buf, size, used, ", ") < 0) ||
            explain_put(buf, size, used, evidence_words(tracked[i].kind)) < 0)
            return -1;
        said = 1;
    }
    return 0;
}

/* The sites base was seen tracking on, each with what was seen there ("a.test: cookie;
 * b.test: canvas fingerprinting"), into buf (size bytes, at least 4): as many as fit, then
 * "..." when some did not. */
static void explain_sites(struct brock_engine *e, const char *base, const struct snitch *s,
                          char *buf, size_t size)
{
    const struct tracking *t = strmap_get(&e->tracking, base);
    size_t used = 0;
    int cut = 0;

    buf[0] = '\0';
    for (size_t i = 0; s && i < s->n && !cut; i++) {
        cut = (i && explain_put(buf, size, &used, "; ") < 0) ||
              explain_put(buf, size, &used, s->v[i].site) < 0 ||
              explain_put(buf, size, &used, ": ") < 0 ||
              explain_site(&s->v[i], t, buf, size, &used) < 0;
    }
    if (cut)
        memcpy(buf + size - 4, "...", 4);
}

/* A choice of the user's (d->action is one of BROCK_USER_*), as snprintf() returns. */
static int explain_choice(const struct brock_decision *d, char *buf, size_t len)
{
    switch (d->action) {
    case BROCK_USER_ALLOW:
        return d->site_choice
                   ? snprintf(buf, len, "You chose to allow %s on %s only.", d->source, d->site)
                   : snprintf(buf, len, "You chose to allow %s.", d->source);
    case BROCK_USER_BLOCK:
        return d->site_choice
                   ? snprintf(buf, len, "You chose to block %s on %s only.", d->source, d->site)
                   : snprintf(buf, len, "You chose to block %s.", d->source);
    default: /* BROCK_USER_COOKIEBLOCK */
        return d->site_choice
                   ? snprintf(buf, len, "You chose to let %s load without cookies on %s only.",
                              d->source, d->site)
                   : snprintf(buf, len, "You chose to let %s load without cookies.", d->source);
    }
}

/* A decision by the action for the tracker (BROCK_WHY_ACTION), with the sites it was seen
 * tracking on, as snprintf() returns. */
static int explain_action(struct brock_engine *e, const struct brock_decision *d, char *buf,
                          size_t len)
{
    const struct snitch *s;
    char sites[320];

    if (d->site_fix)
        return snprintf(buf, len,
                        "Privacy Badger's site fixes cookieblock %s on this site: it "
                        "loads without cookies.",
                        d->tracker);

    s = brock__snitch_get(e, d->base);
    explain_sites(e, d->base, s, sites, sizeof(sites));

    switch (d->action) {
    case BROCK_NOACTION: return snprintf(buf, len, "%s has not been seen tracking.", d->tracker);
    case BROCK_ALLOW:
        return snprintf(buf, len,
                        "%s was seen tracking on %zu site%s (%s), fewer than %u: allowed.", d->base,
                        s ? s->n : 0, s && s->n == 1 ? "" : "s", sites, e->threshold);
    case BROCK_BLOCK:
        return snprintf(buf, len, "%s was seen tracking on %zu sites (%s): blocked (from %s).",
                        d->base, s ? s->n : 0, sites, d->source);
    case BROCK_COOKIEBLOCK:
        return snprintf(buf, len,
                        "%s tracks (%s) but blocking it would break sites (cookieblock list): it "
                        "loads without cookies (from %s).",
                        d->base, *sites ? sites : "learned", d->source);
    case BROCK_DNT:
        return snprintf(buf, len, "%s posts the EFF Do Not Track policy: allowed.", d->tracker);
    case BROCK_USER_ALLOW:
    case BROCK_USER_BLOCK:
    case BROCK_USER_COOKIEBLOCK: return explain_choice(d, buf, len);
    default: return snprintf(buf, len, "%s: %s.", d->tracker, brock_action_name(d->action));
    }
}

/* A decision by its reason, as snprintf() returns; explain_action() for BROCK_WHY_ACTION. */
static int explain_reason(struct brock_engine *e, const struct brock_decision *d, char *buf,
                          size_t len)
{
    switch (d->reason) {
    case BROCK_WHY_INVALID: return snprintf(buf, len, "'%s' is not a valid host name.", d->host);
    case BROCK_WHY_FIRST_PARTY:
        if (!strcmp(d->base, d->site))
            return snprintf(buf, len, "%s belongs to the site itself (%s): first party.",
                            d->tracker, d->site);
        return snprintf(buf, len,
                        "%s and %s belong to one owner (multi-domain first party): first party.",
                        d->base, d->site);
    case BROCK_WHY_PRIVATE:
        return snprintf(buf, len, "%s is a private address: never acted on.", d->tracker);
    case BROCK_WHY_DISABLED:
        return brock__paused(e) ? snprintf(buf, len,
                                           "brock is paused: it changes nothing until "
                                           "it is resumed or the pause ends.")
                                : snprintf(buf, len, "brock is disabled on %s.", d->site);
    case BROCK_WHY_IGNORED:
        return snprintf(buf, len, "Privacy Badger's site fixes leave %s alone on this site.",
                        d->tracker);
    case BROCK_WHY_FP_SCRIPT:
        return snprintf(buf, len,
                        "This script on %s was seen fingerprinting: it alone is blocked%s; "
                        "the rest of %s loads without cookies.",
                        d->tracker, d->surrogate ? " (a harmless stand-in is served)" : "",
                        d->tracker);
    case BROCK_WHY_WIDGET:
        return snprintf(buf, len, "You let a widget load on this page: %s is left alone here.",
                        d->host);
    case BROCK_WHY_ACTION: break;
    }
    return explain_action(e, d, buf, len);
}

size_t brock_decision_explain(struct brock_engine *e, const struct brock_decision *d, char *buf,
                              size_t len)
{
    int n = explain_reason(e, d, buf, len), more;

    if (n < 0)
        return 0;
    if (!d->via_dns)
        return (size_t)n;
    /* The sentence says what it needs whole, even past len, as snprintf() does. */
    more = snprintf((size_t)n < len ? buf + n : NULL, (size_t)n < len ? len - (size_t)n : 0,
                    " %s is an alias of it in DNS: via CNAME %s.", d->host, d->tracker);
    return more < 0 ? (size_t)n : (size_t)n + (size_t)more;
}

/* ---- the user's choices ---- */

int brock_set_user_action(struct brock_engine *e, const char *domain, enum brock_action a)
{
    char name[BROCK_HOST_MAX];
    struct action_entry *ent;

    if (!domain || brock_host_normalize(domain, strlen(domain), name) < 0 || !hostname_valid(name))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a domain name", domain ? domain : "");
    switch (a) {
    case BROCK_USER_ALLOW:
    case BROCK_USER_BLOCK:
    case BROCK_USER_COOKIEBLOCK:
        ent = brock__action_ensure(e, name);
        if (!ent)
            return brock__fail(e, BROCK_ENOMEM, "out of memory");
        ent->user = (uint8_t)a;
        brock__action_touch(e, ent, BROCK__DIRTY_USER);
        return 0;
    case BROCK_NOACTION:
        /* revertUserAction: an entry left with nothing in it goes away. */
        ent = brock__action_get(e, name);
        if (!ent)
            return 0;
        ent->user = BROCK_NOACTION;
        brock__action_touch(e, ent, BROCK__DIRTY_USER);
        if (ent->heur == BROCK_NOACTION && !ent->dnt)
            return brock__action_delete(e, name) < 0 ? brock__fail(e, BROCK_ENOMEM, "out of memory")
                                                     : 0;
        return 0;
    case BROCK_ALLOW:
    case BROCK_BLOCK:
    case BROCK_COOKIEBLOCK:
    case BROCK_DNT: break;
    }
    return brock__fail(e, BROCK_EINVAL, "'%s' is not a user action", brock_action_name(a));
}
