/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The engine's lifetime: opening it on Privacy Badger's data and a state, seeding a new state,
 * syncing with the store, freeing; plus error strings, the allocator and small shared helpers.
 */
#include "engine/engine.h"
#include "engine/export.h"
#include "engine/store_api.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/clock.h"

const char *brock_version(void)
{
    return BROCK_VERSION;
}

const char *brock_strerror(int err)
{
    switch (err) {
    case 0: return "success";
    case BROCK_ENOMEM: return "out of memory";
    case BROCK_EINVAL: return "invalid argument";
    case BROCK_EIO: return "input/output error";
    case BROCK_EFORMAT: return "malformed input";
    case BROCK_ESTORE: return "state database error";
    case BROCK_ENOENT: return "required data file missing";
    case BROCK_ENOTFOUND: return "nothing recorded for that";
    default: return "unknown error";
    }
}

/* An arena of this thread that jansson's values go into while it is on (brock__json_arena),
 * and whose values are then released with it, not one by one. */
static _Thread_local struct arena *json_arena;
static _Thread_local int json_arena_on;

static void *json_malloc(size_t n)
{
    if (json_arena && json_arena_on)
        return arena_alloc(json_arena, n);
    return mem_malloc(n);
}

static void json_free(void *p)
{
    if (json_arena && p && arena_owns(json_arena, p))
        return;
    mem_free(p);
}

int brock__json_arena(struct arena *a)
{
    json_malloc_t m = NULL;
    json_free_t f = NULL;

    json_arena_on = 0;
    json_arena = NULL;
    if (!a)
        return 0;
    /* jansson's own allocator is the C library's, which these two call: put in, they change
     * nothing for values made before. Another, set by whoever embeds brock, stays. */
    json_get_alloc_funcs(&m, &f);
    if (m == malloc && f == free && mem_funcs.malloc_fn == malloc && mem_funcs.free_fn == free)
        json_set_alloc_funcs(json_malloc, json_free);
    else if (m != json_malloc || f != json_free)
        return -1;
    json_arena = a;
    return 0;
}

void brock__json_arena_on(int on)
{
    json_arena_on = json_arena && on;
}

int brock_replace_allocator(void *(*malloc_fn)(size_t), void *(*realloc_fn)(void *, size_t),
                            void *(*calloc_fn)(size_t, size_t), void (*free_fn)(void *))
{
    if (!malloc_fn || !realloc_fn || !calloc_fn || !free_fn)
        return BROCK_EINVAL;
    mem_funcs.malloc_fn = malloc_fn;
    mem_funcs.realloc_fn = realloc_fn;
    mem_funcs.calloc_fn = calloc_fn;
    mem_funcs.free_fn = free_fn;
    json_set_alloc_funcs(json_malloc, json_free);
    return 0;
}

void brock_free(void *p)
{
    mem_free(p);
}

int brock__fail(struct brock_engine *e, int err, const char *fmt, ...)
{
    va_list ap;

    if (e) {
        va_start(ap, fmt);
        vsnprintf(e->errmsg, sizeof(e->errmsg), fmt, ap);
        va_end(ap);
    }
    return err;
}

const char *brock_engine_errmsg(const struct brock_engine *e)
{
    return e ? e->errmsg : "";
}

int brock_engine_learning(const struct brock_engine *e)
{
    return e->learn;
}

int brock__strvec_push(struct strvec *sv, const char *s)
{
    char *c;

    if (mem_grow(&sv->v, &sv->cap, sv->n + 1, sizeof(*sv->v)) < 0)
        return BROCK_ENOMEM;
    c = mem_strdup(s);
    if (!c)
        return BROCK_ENOMEM;
    sv->v[sv->n++] = c;
    return 0;
}

void brock__strvec_cleanup(struct strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        mem_free(sv->v[i]);
    mem_free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

void brock__snitch_free(void *p)
{
    struct snitch *s = p;

    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        mem_free(s->v[i].site);
        mem_free(s->v[i].host);
        mem_free(s->v[i].detail);
        mem_free(s->v[i].param);
    }
    mem_free(s->v);
    mem_free(s->lru_name);
    mem_free(s);
}

void brock__tracking_free(void *p)
{
    struct tracking *t = p;

    if (!t)
        return;
    for (size_t i = 0; i < t->n; i++)
        mem_free(t->v[i].site);
    mem_free(t->v);
    mem_free(t);
}

void brock__fp_free(void *p)
{
    struct fp_host *f = p;

    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++)
        mem_free(f->paths[i]);
    mem_free(f->paths);
    mem_free(f);
}

/* ---- settings ---- */

/* Privacy Badger's defaultSettings (section 13), except that brock learns by default: that is
 * what it is for (see PRIVACY-BADGER.md, "Where brock chooses differently"). */
json_t *brock__settings_default(void)
{
    return json_pack("{s:b, s:[], s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, s:b, "
                     "s:b, s:b, s:[], s:{}}",
                     "checkForDNTPolicy", 1, "disabledSites", "disableGoogleNavErrorService", 1,
                     "disableHyperlinkAuditing", 1, "disableNetworkPrediction", 1, "disableTopics",
                     1, "hideBlockedElements", 1, "learnInIncognito", 0, "learnLocally", 1,
                     "seenComic", 0, "sendDNTSignal", 1, "showCounter", 1, "showDisabledSitesTip",
                     1, "showExpandedTrackingSection", 0, "showIntroPage", 1,
                     "showNonTrackingDomains", 0, "widgetReplacementExceptions",
                     "widgetSiteAllowlist");
}

void brock__settings_changed(struct brock_engine *e)
{
    json_t *v;

    /* Settings read from the state may hold a pause that ended while no one had it in
     * memory: over, as brock_expire() would have made it. */
    brock__pause_prune(e);
    v = json_object_get(e->settings, "learnLocally");
    e->learn = !e->no_learn && (!v || json_is_true(v));
    v = json_object_get(e->settings, "checkForDNTPolicy");
    e->check_dnt = !v || json_is_true(v);
    /* checkForDNTPolicy, disabledSites and the pause change decisions. */
    brock__answers_forget(e);
}

/* ---- opening and closing ---- */

static void engine_free(struct brock_engine *e)
{
    strmap_cleanup(&e->actions, mem_free);
    brock__site_actions_free(e);
    strmap_cleanup(&e->snitches, brock__snitch_free);
    strmap_cleanup(&e->tracking, brock__tracking_free);
    strmap_cleanup(&e->fp_scripts, brock__fp_free);
    brock__strvec_cleanup(&e->deleted);
    brock__strvec_cleanup(&e->forgotten);
    brock__lists_cleanup(&e->lists);
    brock__base_cache_free(e);
    brock__answers_free(e);
    brock__decide_settings_free(e);
    brock__settings_untouch(e);
    strmap_cleanup(&e->settings_touched, NULL);
    brock__pbconfig_cleanup(e);
    brock__pages_free(e->pages);
    brock__daily_free(e->daily);
    json_decref(e->settings);
    mem_free(e);
}

/* A new engine with empty maps and cfg's switches, or NULL when out of memory. */
static struct brock_engine *engine_alloc(const struct brock_config *cfg)
{
    struct brock_engine *e = mem_calloc(1, sizeof(*e));

    if (!e)
        return NULL;
    strmap_init(&e->actions);
    strmap_init(&e->site_actions);
    strmap_init(&e->site_index);
    strmap_init(&e->snitches);
    strmap_init(&e->tracking);
    strmap_init(&e->fp_scripts);
    strmap_init(&e->decide_settings.widget_sites);
    strmap_init(&e->settings_touched);
    brock__lists_init(&e->lists);
    e->threshold = BROCK__TRACKING_THRESHOLD;
    e->learned_max = BROCK_MAX_LEARNED_DEFAULT;
    e->no_learn = cfg->no_learn;
    e->readonly_ok = cfg->readonly_ok;
    e->read_only = cfg->read_only;
    /* The one clock read for a pause: a state opened after its end finds it over. */
    e->expire_now = clock_now_ms();
    return e;
}

/* The default settings and the caches decisions use. Returns 0 or BROCK_ENOMEM. */
static int engine_settings_init(struct brock_engine *e)
{
    e->settings = brock__settings_default();
    if (!e->settings || brock__base_cache_init(e) < 0 || brock__answers_init(e) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_changed(e);
    return 0;
}

/* Privacy Badger's lists, the store and what it holds, and the seed for a new state. Returns
 * 0 or a negative BROCK_E* with errmsg set. */
static int engine_load_state(struct brock_engine *e, const struct brock_config *cfg)
{
    int fresh = 0, rc;

    if (cfg->data_dir && (rc = brock__lists_load(e, cfg->data_dir)) < 0)
        return rc;
    if (cfg->store || cfg->state_dir) {
        rc = cfg->store ? brock__pg_open(e, cfg->store, &fresh)
                        : brock__sqlite_open(e, cfg->state_dir, &fresh);
        if (rc < 0 || (rc = brock__store_load(e)) < 0)
            return rc;
    } else {
        fresh = 1;
    }
    if ((rc = brock__pbconfig_restore(e)) < 0)
        return rc;
    /* A new state gets the seed now, in memory; it is written, with the record that it was
     * seeded (or made without the seed, and so to stay), at the first brock_sync(). */
    if (fresh && cfg->no_seed) {
        e->seed_mark = BROCK__SEED_NONE;
    } else if (fresh && e->lists.seed_path[0]) {
        if ((rc = brock__load_seed(e)) < 0)
            return rc;
        e->seed_mark = BROCK__SEED_LOADED;
    }
    return 0;
}

/* What follows loading: learning's order, expired page views and counters, the marks of what
 * cannot be saved cleared, the store's thread started. Returns 0 or a negative BROCK_E*. */
static int engine_settle(struct brock_engine *e, const struct brock_config *cfg)
{
    int rc;

    brock__learned_order(e);
    if ((rc = brock__pages_expire(e, 1)) < 0)
        return rc;
    brock__daily_expire(e, 1);
    if (!e->store)
        e->dirty = 0;
    /* What opening changed (the seed, a newer configuration) cannot be saved, and is no
     * reason for a command that only reads to fail. */
    if (e->readonly_why[0] || e->read_only)
        brock__store_marks_clear(e);
    e->health.connected = 1;
    /* Loaded: from here on a store thread may do the store's work. */
    if (cfg->store_thread && e->store && !e->read_only && !e->readonly_why[0] &&
        e->store_ops->background && (rc = e->store_ops->background(e)) < 0)
        return rc;
    return 0;
}

int brock_engine_open(const struct brock_config *cfg, struct brock_engine **out, char *err,
                      size_t errlen)
{
    struct brock_engine *e;
    int rc;

    *out = NULL;
    if (err && errlen)
        err[0] = '\0';
    e = engine_alloc(cfg);
    if (!e) {
        if (err)
            snprintf(err, errlen, "out of memory");
        return BROCK_ENOMEM;
    }
    if ((rc = engine_settings_init(e)) < 0 || (rc = engine_load_state(e, cfg)) < 0 ||
        (rc = engine_settle(e, cfg)) < 0)
        goto fail;
    *out = e;
    return 0;
fail:
    if (err)
        snprintf(err, errlen, "%s", e->errmsg[0] ? e->errmsg : brock_strerror(rc));
    if (e->store)
        brock__store_discard(e);
    engine_free(e);
    return rc;
}

int brock__store_unsaved(const struct brock_engine *e)
{
    return e->dirty || e->deleted.n || e->forgotten.n || e->settings_dirty || e->pbconfig_dirty ||
           e->reset_pending || e->seed_mark;
}

int brock_engine_readonly(const struct brock_engine *e, const char **why)
{
    if (why)
        *why = e->readonly_why;
    return e->readonly_why[0] != '\0';
}

/* The file first: one deleted or replaced since the last sync is dealt with before anything
 * is read from it or written to it. */
static int sync_store(struct brock_engine *e)
{
    int picked, rc;

    if ((rc = brock__store_check(e)) != 0)
        return rc < 0 ? rc : 0;
    picked = brock__store_poll(e);
    if (picked < 0)
        return picked;
    /* Trackers other processes learned count toward the cap too. */
    if ((rc = brock__learned_bound(e, NULL)) < 0)
        return rc;
    if (brock__store_unsaved(e) && (rc = brock__store_flush(e)) < 0)
        return rc;
    return picked;
}

int brock_sync(struct brock_engine *e)
{
    int picked;

    /* Page views past the page-view-days setting go first, so the flush writes that. */
    if ((picked = brock__pages_expire(e, 0)) < 0)
        return picked;
    brock__daily_expire(e, 0);
    if (e->read_only)
        return 0;
    if (e->readonly_why[0]) {
        picked = e->store ? brock__store_poll(e) : 0;
        if (picked < 0)
            return picked;
        if (brock__store_unsaved(e) && !e->readonly_ok)
            return brock__fail(e, BROCK_ESTORE, "%s: the changes were not saved", e->readonly_why);
        return picked;
    }
    if (!e->store) {
        e->dirty = 0;
        return 0;
    }
    picked = sync_store(e);
    brock__store_note_result(e, picked);
    if (e->store_ops->health)
        (void)e->store_ops->health(e);
    return picked;
}

int brock_store_wait(struct brock_engine *e, int timeout_ms)
{
    int rc;

    if (!e->store || e->read_only || e->readonly_why[0] || !e->store_ops->wait)
        return 0;
    rc = e->store_ops->wait(e, timeout_ms < 0 ? 0 : timeout_ms);
    if (rc < 0)
        brock__store_note_result(e, rc);
    if (e->store_ops->health)
        (void)e->store_ops->health(e);
    return rc;
}

void brock_engine_free(struct brock_engine *e)
{
    if (!e)
        return;
    /* Unsynced changes are dropped: a command that failed half-way must write nothing. */
    if (e->store)
        brock__store_close(e);
    engine_free(e);
}

/* ---- import and export ---- */

int brock_import(struct brock_engine *e, const char *name, const char *json, size_t len,
                 struct brock_stats *stats)
{
    json_error_t jerr;
    json_t *data;
    int rc;

    if (stats)
        memset(stats, 0, sizeof(*stats));
    if (len >= 3 && !memcmp(json, "\xef\xbb\xbf", 3)) {
        json += 3;
        len -= 3;
    }
    data = json_loadb(json, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!data)
        return brock__fail(e, BROCK_EFORMAT, "%s: not valid JSON: line %d, column %d: %s", name,
                           jerr.line, jerr.column, jerr.text);
    rc = brock__merge(e, name, data, stats);
    json_decref(data);
    return rc;
}

/* The text of a file for json_load_callback(), read a block at a time: jansson's own
 * json_loadfd() reads a byte a call, not to read past what it parses, which for an import of
 * megabytes is millions of system calls. */
struct fd_text {
    int fd;
    int err;        /* errno of a failed read; 0: none */
    size_t at, len; /* what of buf the parser has not taken yet */
    char buf[16384];
};

/* Reads the next block once the last is taken. Returns 0, or -1 with t->err set. */
static int fd_text_fill(struct fd_text *t)
{
    ssize_t got;

    if (t->at < t->len)
        return 0;
    do
        got = read(t->fd, t->buf, sizeof(t->buf));
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        t->err = errno;
        return -1;
    }
    t->at = 0;
    t->len = (size_t)got;
    return 0;
}

static size_t fd_text_read(void *out, size_t size, void *arg)
{
    struct fd_text *t = arg;
    size_t n;

    if (fd_text_fill(t) < 0)
        return (size_t)-1;
    n = t->len - t->at < size ? t->len - t->at : size;
    memcpy(out, t->buf + t->at, n);
    t->at += n;
    return n;
}

int brock_import_fd(struct brock_engine *e, const char *name, int fd, struct brock_stats *stats)
{
    struct fd_text *t = NULL;
    json_error_t jerr;
    json_t *data = NULL;
    int rc;

    if (stats)
        memset(stats, 0, sizeof(*stats));
    t = mem_calloc(1, sizeof(*t));
    if (!t)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    t->fd = fd;
    /* A byte order mark, as brock_import() allows it. */
    if (fd_text_fill(t) == 0 && t->len >= 3 && !memcmp(t->buf, "\xef\xbb\xbf", 3))
        t->at = 3;
    if (!t->err)
        data = json_load_callback(fd_text_read, t, JSON_REJECT_DUPLICATES, &jerr);
    if (t->err)
        rc = brock__fail(e, BROCK_EIO, "%s: cannot be read: %s", name, strerror(t->err));
    else if (!data)
        rc = brock__fail(e, BROCK_EFORMAT, "%s: not valid JSON: line %d, column %d: %s", name,
                         jerr.line, jerr.column, jerr.text);
    else
        rc = brock__merge(e, name, data, stats);
    json_decref(data);
    mem_free(t);
    return rc;
}

/* The export formats, in the order they are offered: the one list of them. Each name is its
 * writer's: FORMAT(pb) is written by brock__export_pb(). */
#define EXPORT_FORMATS(FORMAT)                                                                     \
    FORMAT(pb)                                                                                     \
    FORMAT(hosts)                                                                                  \
    FORMAT(abp)                                                                                    \
    FORMAT(dnsmasq)                                                                                \
    FORMAT(unbound)                                                                                \
    FORMAT(rpz)                                                                                    \
    FORMAT(privoxy)                                                                                \
    FORMAT(ubo)                                                                                    \
    FORMAT(adguard)                                                                                \
    FORMAT(dnr)                                                                                    \
    FORMAT(safari)

#define EXPORTER(name) {#name, brock__export_##name},
static const struct brock__exporter exporters[] = {EXPORT_FORMATS(EXPORTER)};
#undef EXPORTER

#define FORMAT_NAME(name) #name,
static const char *const format_names[] = {EXPORT_FORMATS(FORMAT_NAME) NULL};
#undef FORMAT_NAME

const char *const *brock_export_formats(void)
{
    return format_names;
}

/* The refusal of a format brock does not write, naming those it does. */
static int export_unknown(struct brock_engine *e, const char *format)
{
    char list[256] = "";
    size_t n = 0;

    for (const char *const *f = format_names; *f; f++) {
        int w = snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", *f);

        if (w < 0 || (size_t)w >= sizeof(list) - n)
            break;
        n += (size_t)w;
    }
    return brock__fail(e, BROCK_EINVAL, "'%s' is not an export format (%s)", format, list);
}

int brock_export_actions_parse(const char *list, unsigned *flags, char *err, size_t errlen)
{
    unsigned got = 0;
    const char *p = list;

    if (err && errlen)
        err[0] = '\0';
    for (;;) {
        size_t n = p ? strcspn(p, ",") : 0;

        if (n == 5 && !strncmp(p, "block", n)) {
            got |= BROCK_EXPORT_BLOCK;
        } else if (n == 11 && !strncmp(p, "cookieblock", n)) {
            got |= BROCK_EXPORT_COOKIEBLOCK;
        } else {
            if (err && errlen)
                snprintf(err, errlen, "'%.*s' is not an action to export (block, cookieblock)",
                         (int)(n > 64 ? 64 : n), p ? p : "");
            return BROCK_EINVAL;
        }
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    *flags = got;
    return 0;
}

int brock_export_names_sites(struct brock_engine *e, const char *format, unsigned flags)
{
    for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++) {
        int rc;

        if (strcmp(format, exporters[i].name) != 0)
            continue;
        /* Privacy Badger's JSON holds the snitch map and the disabled sites, whatever else. */
        if (exporters[i].write == brock__export_pb)
            return 1;
        rc = brock__plan_names_sites(e, flags);
        return rc < 0 ? brock__fail(e, rc, "out of memory") : rc;
    }
    return export_unknown(e, format);
}

int brock_export(struct brock_engine *e, const char *format, char **out, size_t *len)
{
    return brock_export_with(e, format, BROCK_EXPORT_DEFAULT, out, len);
}

int brock_export_with(struct brock_engine *e, const char *format, unsigned flags, char **out,
                      size_t *len)
{
    struct buf b;

    *out = NULL;
    *len = 0;
    for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++) {
        int rc;
        if (strcmp(format, exporters[i].name) != 0)
            continue;
        if (flags & ~(unsigned)(BROCK_EXPORT_DEFAULT | BROCK_EXPORT_LEARNED_ONLY))
            return brock__fail(e, BROCK_EINVAL, "export as %s: unknown flags %#x", format, flags);
        if (!(flags & BROCK_EXPORT_DEFAULT))
            return brock__fail(e, BROCK_EINVAL, "export as %s: no action chosen to export", format);
        /* Privacy Badger's JSON is the whole state, to be read back: a part of it would
         * import as a state that forgot the rest. */
        if (exporters[i].write == brock__export_pb && flags != BROCK_EXPORT_DEFAULT)
            return brock__fail(e, BROCK_EINVAL,
                               "export as pb: the whole state only (choosing actions or "
                               "learned names is for block lists)");
        buf_init(&b, (size_t)1 << 30);
        rc = exporters[i].write(e, flags, &b);
        if (rc < 0) {
            buf_cleanup(&b);
            return brock__fail(e, rc, "export as %s: %s", format, brock_strerror(rc));
        }
        *out = buf_detach(&b, len);
        return *out ? 0 : brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    return export_unknown(e, format);
}
