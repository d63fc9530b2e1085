/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The engine's maps made and freed, its default settings, importing Privacy Badger's JSON;
 * plus error strings, the allocator and small shared helpers. Opening an engine on a state is
 * front/open.c's, syncing it store/store_api.c's, exporting export/export.c's.
 */
#include "engine/engine.h"
#include "engine/names.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/arena.h"
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

void brock__engine_free(struct brock_engine *e)
{
    strmap_cleanup(&e->actions, mem_free);
    brock__site_actions_free(e);
    strmap_cleanup(&e->snitches, brock__snitch_free);
    strmap_cleanup(&e->tracking, brock__tracking_free);
    strmap_cleanup(&e->fp_scripts, brock__fp_free);
    strvec_cleanup(&e->deleted);
    strvec_cleanup(&e->forgotten);
    brock__lists_cleanup(&e->lists);
    brock__base_cache_free(e);
    brock__answers_free(e);
    brock__decide_settings_free(e);
    brock__settings_untouch(e);
    strmap_cleanup(&e->settings_touched, NULL);
    brock__pbconfig_cleanup(e);
    brock__pages_free(e->pages);
    brock__daily_free(e->daily);
    brock__clearurls_free(e->clearurls);
    mem_free(e->clearurls_text);
    brock__chains_free(e);
    json_decref(e->settings);
    mem_free(e);
}

struct brock_engine *brock__engine_alloc(const struct brock_config *cfg)
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
    strmap_init(&e->chains);
    brock__lists_init(&e->lists);
    e->threshold = BROCK__TRACKING_THRESHOLD;
    e->learned_max = BROCK_MAX_LEARNED_DEFAULT;
    e->no_learn = cfg->no_learn;
    e->readonly_ok = cfg->readonly_ok;
    e->read_only = cfg->read_only;
    e->clearurls_given = cfg->clearurls;
    e->clearurls_given_len = cfg->clearurls ? cfg->clearurls_len : 0;
    /* The one clock read for a pause: a state opened after its end finds it over. */
    e->expire_now = clock_now_ms();
    return e;
}

int brock__engine_settings_init(struct brock_engine *e)
{
    e->settings = brock__settings_default();
    if (!e->settings || brock__base_cache_init(e) < 0 || brock__answers_init(e) < 0)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    brock__settings_changed(e);
    return 0;
}

int brock_engine_readonly(const struct brock_engine *e, const char **why)
{
    if (why)
        *why = e->readonly_why;
    return e->readonly_why[0] != '\0';
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
