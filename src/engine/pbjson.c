/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's JSON: its export and seed files merged into the state the way Privacy
 * Badger merges them (mergeUserData, section 11: the snitch map first, learning replayed,
 * heuristic actions never overwritten, user actions kept), the seed loaded into a new state
 * (section 10), and the state written back out as an export Privacy Badger can import.
 */
#include "engine/engine.h"
#include "engine/names.h"

#include <errno.h>
#include <string.h>

#include "util/alloc.h"
#include "util/buf.h"
#include "util/file.h"

#define SEED_MAX ((size_t)256 << 20)

/* ---- validation: nothing changes until the whole document is known to be well formed ---- */

static int check_domain_key(struct brock_engine *e, const char *name, const char *store,
                            const char *key)
{
    char norm[BROCK_HOST_MAX];

    if (brock_host_normalize(key, strlen(key), norm) < 0 || !hostname_valid(norm))
        return brock__fail(e, BROCK_EFORMAT, "%s: %s: '%s' is not a domain name", name, store, key);
    return 0;
}

static int check_string_array(struct brock_engine *e, const char *name, const char *where,
                              const char *key, json_t *v)
{
    size_t i;
    json_t *s;

    if (!json_is_array(v))
        return brock__fail(e, BROCK_EFORMAT, "%s: %s[\"%s\"] is not an array", name, where, key);
    json_array_foreach(v, i, s) {
        if (!json_is_string(s))
            return brock__fail(e, BROCK_EFORMAT, "%s: %s[\"%s\"][%zu] is not a string", name, where,
                               key, i);
    }
    return 0;
}

static int check_action_entry(struct brock_engine *e, const char *name, const char *key, json_t *v)
{
    json_t *f;

    if (!json_is_object(v))
        return brock__fail(e, BROCK_EFORMAT, "%s: action_map[\"%s\"] is not an object", name, key);
    f = json_object_get(v, "userAction");
    if (f && (!json_is_string(f) || brock__user_parse(json_string_value(f)) < 0))
        return brock__fail(e, BROCK_EFORMAT,
                           "%s: action_map[\"%s\"].userAction is not \"\", \"user_allow\", "
                           "\"user_block\" or \"user_cookieblock\"",
                           name, key);
    f = json_object_get(v, "heuristicAction");
    if (f && !json_is_string(f))
        return brock__fail(e, BROCK_EFORMAT,
                           "%s: action_map[\"%s\"].heuristicAction is not a "
                           "string",
                           name, key);
    f = json_object_get(v, "dnt");
    if (f && !json_is_boolean(f))
        return brock__fail(e, BROCK_EFORMAT, "%s: action_map[\"%s\"].dnt is not a boolean", name,
                           key);
    f = json_object_get(v, "nextUpdateTime");
    if (f && !json_is_number(f))
        return brock__fail(e, BROCK_EFORMAT,
                           "%s: action_map[\"%s\"].nextUpdateTime is not a "
                           "number",
                           name, key);
    return 0;
}

/* brock's own store beside Privacy Badger's: the choices for one site only, site → domain →
 * user action. Privacy Badger's import reads only the stores it knows, and skips this one. */
#define SITE_ACTIONS_KEY "brock_site_actions"

static int check_site_actions(struct brock_engine *e, const char *name, json_t *sa)
{
    const char *site, *domain;
    json_t *v, *w;

    if (!sa)
        return 0;
    if (!json_is_object(sa))
        return brock__fail(e, BROCK_EFORMAT, "%s: " SITE_ACTIONS_KEY " is not an object", name);
    json_object_foreach(sa, site, v) {
        if (!json_is_object(v))
            return brock__fail(e, BROCK_EFORMAT,
                               "%s: " SITE_ACTIONS_KEY "[\"%s\"] is not an object", name, site);
        json_object_foreach(v, domain, w) {
            int u = json_is_string(w) ? brock__user_parse(json_string_value(w)) : -1;

            if (u <= 0)
                return brock__fail(e, BROCK_EFORMAT,
                                   "%s: " SITE_ACTIONS_KEY "[\"%s\"][\"%s\"] is not one of "
                                   "user_allow, user_block, user_cookieblock",
                                   name, site, domain);
            if (brock__site_action_check(e, site, domain) < 0) {
                char why[sizeof(e->errmsg)];

                memcpy(why, e->errmsg, sizeof(why));
                return brock__fail(e, BROCK_EFORMAT, "%s: " SITE_ACTIONS_KEY "[\"%s\"]: %s", name,
                                   site, why);
            }
        }
    }
    return 0;
}

static int merge_site_actions(struct brock_engine *e, json_t *sa)
{
    const char *site, *domain;
    json_t *v, *w;

    json_object_foreach(sa, site, v) {
        json_object_foreach(v, domain, w) {
            int rc = brock_set_site_action(
                e, site, domain, (enum brock_action)brock__user_parse(json_string_value(w)));
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

static int validate(struct brock_engine *e, const char *name, json_t *data)
{
    json_t *am, *sm, *v, *w;
    const char *k, *k2;
    int rc;

    if (!json_is_object(data))
        return brock__fail(e, BROCK_EFORMAT, "%s: not a JSON object", name);
    am = json_object_get(data, "action_map");
    sm = json_object_get(data, "snitch_map");
    if (!am || !sm)
        return brock__fail(e, BROCK_EFORMAT,
                           "%s: not a Privacy Badger export: action_map and snitch_map are "
                           "required",
                           name);
    if (!json_is_object(am))
        return brock__fail(e, BROCK_EFORMAT, "%s: action_map is not an object", name);
    if (!json_is_object(sm))
        return brock__fail(e, BROCK_EFORMAT, "%s: snitch_map is not an object", name);
    json_object_foreach(am, k, v) {
        if ((rc = check_domain_key(e, name, "action_map", k)) < 0 ||
            (rc = check_action_entry(e, name, k, v)) < 0)
            return rc;
    }
    json_object_foreach(sm, k, v) {
        if ((rc = check_domain_key(e, name, "snitch_map", k)) < 0 ||
            (rc = check_string_array(e, name, "snitch_map", k, v)) < 0)
            return rc;
    }
    v = json_object_get(data, "settings_map");
    if (v && !json_is_object(v))
        return brock__fail(e, BROCK_EFORMAT, "%s: settings_map is not an object", name);
    v = json_object_get(data, "tracking_map");
    if (v && !json_is_object(v))
        return brock__fail(e, BROCK_EFORMAT, "%s: tracking_map is not an object", name);
    json_object_foreach(v, k, w) {
        json_t *kinds;
        if (!json_is_object(w))
            return brock__fail(e, BROCK_EFORMAT, "%s: tracking_map[\"%s\"] is not an object", name,
                               k);
        json_object_foreach(w, k2, kinds) {
            if ((rc = check_string_array(e, name, "tracking_map", k, kinds)) < 0)
                return rc;
        }
    }
    v = json_object_get(data, "fp_scripts");
    if (v && !json_is_object(v))
        return brock__fail(e, BROCK_EFORMAT, "%s: fp_scripts is not an object", name);
    json_object_foreach(v, k, w) {
        if (!json_is_object(w))
            return brock__fail(e, BROCK_EFORMAT, "%s: fp_scripts[\"%s\"] is not an object", name,
                               k);
    }
    return check_site_actions(e, name, json_object_get(data, SITE_ACTIONS_KEY));
}

/* ---- the merge, store by store ---- */

static int merge_snitch_map(struct brock_engine *e, json_t *sm, struct brock_stats *st)
{
    struct brock__evidence_in ev = {NULL, NULL, BROCK_EVIDENCE_IMPORTED, 0, NULL};
    const char *key;
    json_t *sites;

    json_object_foreach(sm, key, sites) {
        char tracker[BROCK_HOST_MAX];
        size_t i;
        json_t *s;
        if (brock_host_normalize(key, strlen(key), tracker) < 0)
            continue;
        json_array_foreach(sites, i, s) {
            char site[BROCK_HOST_MAX];
            int r;
            if (brock_host_normalize(json_string_value(s), json_string_length(s), site) < 0)
                continue;
            /* Same-site and one-owner entries are dropped, as mergeUserData does first. */
            if (!brock__is_third_party_domain(e, site, tracker))
                continue;
            r = brock__update_tracker_prevalence(e, tracker, tracker, site, &ev);
            if (r < 0)
                return r;
            if (r > 0)
                st->recorded++;
            if (r == 2)
                st->blocked++;
        }
    }
    return 0;
}

/* nextUpdateTime, a JavaScript number of Unix milliseconds: anything past what brock can hold
 * is the farthest future it can, anything not after the epoch is due now. */
static int64_t next_update_of(const json_t *v)
{
    double ms = json_number_value(v);

    if (!(ms > 0))
        return 0;
    return ms >= 9.2e18 ? INT64_MAX : (int64_t)ms;
}

static int merge_action_map(struct brock_engine *e, json_t *am, struct brock_stats *st)
{
    const char *key;
    json_t *v;

    json_object_foreach(am, key, v) {
        char name[BROCK_HOST_MAX], base[BROCK_HOST_MAX];
        json_t *user = json_object_get(v, "userAction"), *dnt = json_object_get(v, "dnt");
        json_t *heur = json_object_get(v, "heuristicAction");
        json_t *nut = json_object_get(v, "nextUpdateTime");
        int u = user ? brock__user_parse(json_string_value(user)) : BROCK_NOACTION;
        int64_t next = nut ? next_update_of(nut) : 0;
        struct action_entry *a;

        st->entries++;
        if (brock_host_normalize(key, strlen(key), name) < 0)
            continue;
        a = brock__action_get(e, name);
        if (a) {
            if (u > 0) {
                a->user = (uint8_t)u;
                brock__action_touch(e, a, BROCK__DIRTY_USER);
            }
            if (nut && next > a->next_update) {
                a->next_update = next;
                /* An entry without dnt takes the default: merges can drop the flag. */
                a->dnt = dnt && json_is_true(dnt);
                brock__action_touch(e, a, BROCK__DIRTY_DNT);
            }
            continue;
        }
        brock__base_domain(name, base);
        if (u <= 0 && !(dnt && json_is_true(dnt)) && !brock__snitch_get(e, base))
            continue;
        a = brock__action_ensure(e, name);
        if (!a)
            return BROCK_ENOMEM;
        a->user = (uint8_t)(u > 0 ? u : BROCK_NOACTION);
        a->dnt = dnt && json_is_true(dnt);
        a->next_update = next;
        if (heur) {
            int h = brock__heur_parse(json_string_value(heur));
            a->heur = (uint8_t)(h < 0 ? BROCK__HEUR_UNKNOWN : h);
        }
    }
    return 0;
}

/* Appends the items of src missing from dst, keeping dst's order first. */
static int array_union(json_t *dst, json_t *src)
{
    size_t i, j;
    json_t *v, *w;

    json_array_foreach(src, i, v) {
        int found = 0;
        json_array_foreach(dst, j, w) {
            if (json_equal(v, w)) {
                found = 1;
                break;
            }
        }
        if (!found && json_array_append(dst, v) < 0)
            return BROCK_ENOMEM;
    }
    return 0;
}

static int merge_settings(struct brock_engine *e, json_t *in)
{
    const char *key;
    json_t *v;

    /* disabledSites may grow before a later setting fails. */
    brock__answers_forget(e);
    json_object_foreach(in, key, v) {
        json_t *cur = json_object_get(e->settings, key);
        size_t i;
        json_t *one;

        /* An unknown setting is ignored, as Privacy Badger does; brock's own pause and ends
         * are this state's, never a file's. */
        if (!cur || brock__own_setting(key))
            continue;
        if (!strcmp(key, "disabledSites") || !strcmp(key, "widgetReplacementExceptions")) {
            if (json_is_array(v) && json_is_array(cur) && array_union(cur, v) < 0)
                return BROCK_ENOMEM;
            /* A site the file disables, and this state for a while only, is now for good. */
            json_array_foreach(v, i, one) {
                if (!strcmp(key, "disabledSites") && json_is_string(one) &&
                    brock__site_end_set(e, json_string_value(one), BROCK_NO_END) < 0)
                    return BROCK_ENOMEM;
            }
        } else if (!strcmp(key, "widgetSiteAllowlist")) {
            const char *site;
            json_t *list;
            if (!json_is_object(v) || !json_is_object(cur))
                continue;
            json_object_foreach(v, site, list) {
                json_t *have = json_object_get(cur, site);
                if (!json_is_array(list))
                    continue;
                if (!have) {
                    if (json_object_set_new(cur, site, json_array()) < 0)
                        return BROCK_ENOMEM;
                    have = json_object_get(cur, site);
                }
                if (json_is_array(have) && array_union(have, list) < 0)
                    return BROCK_ENOMEM;
            }
        } else if (json_typeof(cur) == json_typeof(v) ||
                   (json_is_boolean(cur) && json_is_boolean(v))) {
            if (json_object_set(e->settings, key, v) < 0)
                return BROCK_ENOMEM;
        }
    }
    /* An import changes the settings as a whole. */
    brock__settings_touch(e, NULL);
    brock__settings_changed(e);
    return 0;
}

/* tracking_map's names for its kinds, in the order of the BROCK__TRACK_ bits. */
static const char *const kind_names[] = {"beacon", "canvas", "pixelcookieshare", "linkdecoration"};

unsigned brock__tracking_kind(const char *s)
{
    for (unsigned k = 0; s && k < sizeof(kind_names) / sizeof(kind_names[0]); k++)
        if (!strcmp(s, kind_names[k]))
            return 1u << k;
    return 0;
}

static unsigned kinds_of(json_t *arr)
{
    unsigned k = 0;
    size_t i;
    json_t *v;

    json_array_foreach(arr, i, v)
        k |= brock__tracking_kind(json_string_value(v));
    return k;
}

static int merge_tracking(struct brock_engine *e, json_t *tm)
{
    const char *tracker;
    json_t *sites;

    json_object_foreach(tm, tracker, sites) {
        struct snitch *s = brock__snitch_get(e, tracker);
        struct tracking *t;
        const char *site;
        json_t *kinds;
        int rc;
        if (!s)
            continue;
        /* The tracker's own sites first, then others while there is room. */
        json_object_foreach(sites, site, kinds) {
            if (brock__snitch_has(s, site) &&
                (rc = brock__tracking_add(e, tracker, site, kinds_of(kinds))) < 0)
                return rc;
        }
        json_object_foreach(sites, site, kinds) {
            t = strmap_get(&e->tracking, tracker);
            if (t && t->n >= s->n)
                break;
            if (!brock__snitch_has(s, site) &&
                (rc = brock__tracking_add(e, tracker, site, kinds_of(kinds))) < 0)
                return rc;
        }
    }
    return 0;
}

static int merge_fp_scripts(struct brock_engine *e, json_t *fp)
{
    const char *host;
    json_t *paths;

    json_object_foreach(fp, host, paths) {
        char name[BROCK_HOST_MAX], base[BROCK_HOST_MAX];
        const char *path;
        json_t *one;
        /* Only for a script host whose base was seen tracking; named as decisions name
         * hosts, so that a request finds it. */
        if (brock_host_normalize(host, strlen(host), name) < 0 ||
            brock_base_domain(name, base) < 0 || !brock__snitch_get(e, base))
            continue;
        json_object_foreach(paths, path, one) {
            int rc = brock__fp_add(e, name, path);
            if (rc < 0)
                return rc;
        }
    }
    return 0;
}

int brock__merge(struct brock_engine *e, const char *name, json_t *data, struct brock_stats *st)
{
    struct brock_stats local;
    json_t *v;
    int rc;

    if (!st)
        st = &local;
    memset(st, 0, sizeof(*st));
    if ((rc = validate(e, name, data)) < 0)
        return rc;
    /* The order matters: the action map's merge looks at the snitch map's result. */
    rc = merge_snitch_map(e, json_object_get(data, "snitch_map"), st);
    if (!rc)
        rc = merge_action_map(e, json_object_get(data, "action_map"), st);
    if (!rc && (v = json_object_get(data, "settings_map")))
        rc = merge_settings(e, v);
    if (!rc && (v = json_object_get(data, "tracking_map")))
        rc = merge_tracking(e, v);
    if (!rc && (v = json_object_get(data, "fp_scripts")))
        rc = merge_fp_scripts(e, v);
    if (!rc && (v = json_object_get(data, SITE_ACTIONS_KEY)))
        rc = merge_site_actions(e, v);
    if (rc < 0)
        return brock__fail(e, rc, "%s: %s while merging", name, brock_strerror(rc));
    return 0;
}

/* ---- the seed ---- */

struct saved_user {
    char *domain;
    uint8_t user;
};

int brock__seed_read(struct brock_engine *e, json_t **out)
{
    char *text = NULL;
    json_error_t jerr;
    json_t *seed;
    size_t len;
    int rc;

    *out = NULL;
    rc = file_read_at(e->lists.data_fd, e->lists.seed_path + e->lists.seed_off, SEED_MAX, &text,
                      &len);
    if (rc < 0)
        return brock__fail(e, rc == -ENOENT ? BROCK_ENOENT : BROCK_EIO, "%s: %s",
                           e->lists.seed_path, strerror(-rc));
    seed = json_loadb(text, len, 0, &jerr);
    mem_free(text);
    if (!seed)
        return brock__fail(e, BROCK_EFORMAT, "%s: not valid JSON: line %d, column %d: %s",
                           e->lists.seed_path, jerr.line, jerr.column, jerr.text);
    if ((rc = validate(e, e->lists.seed_path, seed)) < 0) {
        json_decref(seed);
        return rc;
    }
    *out = seed;
    return 0;
}

int brock__load_seed(struct brock_engine *e)
{
    json_t *seed;
    int rc = brock__seed_read(e, &seed);

    if (rc < 0)
        return rc;
    rc = brock__seed_apply(e, seed);
    json_decref(seed);
    return rc;
}

int brock__seed_apply(struct brock_engine *e, json_t *seed)
{
    static const char *const panopticlick[] = {"trackersimulator.org", "eviltracker.net"};
    struct saved_user *saved = NULL;
    size_t n_saved = 0, cap = 0, it = 0;
    struct action_entry *a;
    int rc;

    /* The user's choices survive a reseed (section 10). */
    while (strmap_next(&e->actions, &it, NULL, (void **)&a)) {
        if (a->user == BROCK_NOACTION)
            continue;
        if (mem_grow(&saved, &cap, n_saved + 1, sizeof(*saved)) < 0 ||
            !(saved[n_saved].domain = mem_strdup(a->domain))) {
            rc = brock__fail(e, BROCK_ENOMEM, "out of memory");
            goto out;
        }
        saved[n_saved++].user = a->user;
    }
    if ((rc = brock__merge(e, e->lists.seed_path, seed, NULL)) < 0)
        goto out;
    for (size_t i = 0; i < n_saved; i++) {
        a = brock__action_ensure(e, saved[i].domain);
        if (!a) {
            rc = brock__fail(e, BROCK_ENOMEM, "out of memory");
            goto out;
        }
        a->user = saved[i].user;
        brock__action_touch(e, a, BROCK__DIRTY_USER);
    }
    /* Widget domains default to blocked (or cookieblocked) so that their placeholders show,
     * and the Panopticlick test domains are always blocked. */
    for (size_t i = 0; i < e->lists.widget_domains.n; i++) {
        const char *d = e->lists.widget_domains.v[i];
        char host[BROCK_HOST_MAX], base[BROCK_HOST_MAX];
        if (!strncmp(d, "*.", 2))
            d += 2;
        if (brock_host_normalize(d, strlen(d), host) < 0)
            continue;
        brock__base_domain(host, base);
        if ((rc = brock__blocklist_domain(e, base, host)) < 0)
            goto out;
    }
    for (size_t i = 0; i < sizeof(panopticlick) / sizeof(panopticlick[0]); i++) {
        if ((rc = brock__blocklist_domain(e, panopticlick[i], panopticlick[i])) < 0)
            goto out;
    }
    rc = 0;
out:
    for (size_t i = 0; i < n_saved; i++)
        mem_free(saved[i].domain);
    mem_free(saved);
    return rc;
}

/* ---- export ---- */

/* The choices for one site only under SITE_ACTIONS_KEY, when there are any: an export
 * without them is Privacy Badger's format exactly. */
static int site_actions_export(struct brock_engine *e, json_t *root)
{
    struct brock_site_action *v = NULL;
    json_t *sa = NULL;
    size_t n = 0;
    int bad;

    if (brock_site_actions(e, NULL, &v, &n) < 0)
        return BROCK_ENOMEM;
    bad = n && (!(sa = json_object()) || json_object_set_new(root, SITE_ACTIONS_KEY, sa) < 0);
    for (size_t i = 0; !bad && i < n; i++) {
        json_t *per = json_object_get(sa, v[i].site);

        if (!per)
            bad = !(per = json_object()) || json_object_set_new(sa, v[i].site, per) < 0;
        bad = bad || json_object_set_new(per, v[i].domain,
                                         json_string(brock_action_name(v[i].action))) < 0;
    }
    brock_free(v);
    return bad ? BROCK_ENOMEM : 0;
}

/* Each of the export's maps into its object (the json_t given, hanging from the root): 0, or
 * nonzero when out of memory. */

static int action_map_export(struct brock_engine *e, json_t *am)
{
    size_t it = 0;
    const char *key;
    void *val;
    int bad = 0;

    while (!bad && strmap_next(&e->actions, &it, &key, &val)) {
        struct action_entry *a = val;
        bad |= json_object_set_new(am, key,
                                   json_pack("{s:s, s:b, s:s, s:I}", "userAction",
                                             brock__user_name(a->user), "dnt", a->dnt,
                                             "heuristicAction", brock__heur_name(a->heur),
                                             "nextUpdateTime", (json_int_t)a->next_update)) < 0;
    }
    return bad;
}

static int snitch_map_export(struct brock_engine *e, json_t *sm)
{
    size_t it = 0;
    const char *key;
    void *val;
    int bad = 0;

    while (!bad && strmap_next(&e->snitches, &it, &key, &val)) {
        struct snitch *s = val;
        json_t *arr = json_array();
        for (size_t i = 0; arr && i < s->n; i++)
            bad |= json_array_append_new(arr, json_string(s->v[i].site)) < 0;
        bad |= json_object_set_new(sm, key, arr) < 0;
    }
    return bad;
}

static int tracking_map_export(struct brock_engine *e, json_t *tm)
{
    size_t it = 0;
    const char *key;
    void *val;
    int bad = 0;

    while (!bad && strmap_next(&e->tracking, &it, &key, &val)) {
        struct tracking *t = val;
        json_t *sites = json_object();
        for (size_t i = 0; sites && i < t->n; i++) {
            json_t *kinds = json_array();
            for (unsigned k = 0; kinds && k < 3; k++)
                if (t->v[i].kinds & (1u << k))
                    bad |= json_array_append_new(kinds, json_string(kind_names[k])) < 0;
            bad |= json_object_set_new(sites, t->v[i].site, kinds) < 0;
        }
        bad |= json_object_set_new(tm, key, sites) < 0;
    }
    return bad;
}

static int fp_scripts_export(struct brock_engine *e, json_t *fp)
{
    size_t it = 0;
    const char *key;
    void *val;
    int bad = 0;

    while (!bad && strmap_next(&e->fp_scripts, &it, &key, &val)) {
        struct fp_host *f = val;
        json_t *paths = json_object();
        for (size_t i = 0; paths && i < f->n; i++)
            bad |= json_object_set_new(paths, f->paths[i], json_integer(1)) < 0;
        bad |= json_object_set_new(fp, key, paths) < 0;
    }
    return bad;
}

json_t *brock__export_pb_json(struct brock_engine *e)
{
    json_t *root = json_object(), *am = json_object(), *sm = json_object();
    json_t *tm = json_object(), *fp = json_object();
    int bad;

    /* The stores hang from the root at once, so that one decref frees everything. */
    bad = !root || json_object_set_new(root, "action_map", am) < 0 ||
          json_object_set_new(root, "snitch_map", sm) < 0 ||
          json_object_set_new(root, "settings_map", brock__settings_exported(e)) < 0 ||
          json_object_set_new(root, "tracking_map", tm) < 0 ||
          json_object_set_new(root, "fp_scripts", fp) < 0;
    if (bad) {
        json_decref(root);
        return NULL;
    }
    bad = action_map_export(e, am) || snitch_map_export(e, sm) || tracking_map_export(e, tm) ||
          fp_scripts_export(e, fp);
    if (!bad)
        bad = site_actions_export(e, root) < 0;
    if (!bad)
        return root;
    json_decref(root);
    return NULL;
}

static int dump_cb(const char *p, size_t n, void *arg)
{
    return buf_append(arg, p, n) < 0 ? -1 : 0;
}

int brock__export_pb(struct brock_engine *e, unsigned flags, struct buf *out)
{
    json_t *root = brock__export_pb_json(e);
    int rc;

    (void)flags; /* brock_export_with() lets only the default through */
    if (!root)
        return BROCK_ENOMEM;
    rc = json_dump_callback(root, dump_cb, out, JSON_INDENT(2) | JSON_SORT_KEYS);
    json_decref(root);
    if (rc < 0 || buf_puts(out, "\n") < 0)
        return BROCK_ENOMEM;
    return 0;
}
