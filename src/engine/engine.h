/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The engine's internals, shared by the files of src/engine/ and by its unit tests: the
 * in-memory maps Privacy Badger keeps (action map, snitch map, tracking map, fp_scripts,
 * settings), the lists it reads, and the functions each file offers the others; those of
 * exporting are in export.h, the store interface in store_api.h.
 */
#ifndef BROCK_ENGINE_H
#define BROCK_ENGINE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "brock.h"
#include "data/data.h"
#include "util/attr.h"
#include "util/hostname.h"
#include "util/strmap.h"
#include "util/strvec.h"

/* Privacy Badger's constants (PRIVACY-BADGER.md section 15). */
#define BROCK__TRACKING_THRESHOLD 3
#define BROCK__MAX_COOKIE_ENTROPY 12

/* A heuristic action string that is not one Privacy Badger knows: kept, never selected. */
#define BROCK__HEUR_UNKNOWN 0xff

/* Dirty bits: what the store must write for an entry at the next sync. */
enum {
    BROCK__DIRTY_USER = 1,
    BROCK__DIRTY_HEUR = 2,
    BROCK__DIRTY_DNT = 4, /* dnt and next_update */
    BROCK__DIRTY_NEW = 8, /* a snitch site or tracking kind not yet written */
};

/* One action_map entry, keyed by FQDN. */
struct action_entry {
    int64_t next_update; /* ms epoch of the next DNT policy check; 0: none */
    uint8_t user;        /* BROCK_NOACTION or BROCK_USER_* */
    uint8_t heur;        /* BROCK_NOACTION (""), BROCK_ALLOW, _BLOCK, _COOKIEBLOCK, or UNKNOWN */
    uint8_t dnt;
    uint8_t dirty;
    char domain[];
};

/* One site in a tracker's snitch_map list, with the evidence brock keeps beside it. */
struct snitch_site {
    char *site;
    char *host;   /* may be NULL */
    char *detail; /* may be NULL */
    char *param;  /* pixel sharing: the URL parameter; NULL otherwise */
    int64_t time_ms;
    uint8_t kind; /* enum brock_evidence_kind */
    uint8_t dirty;
};

/* snitch_map[base]: the sites a tracker base was seen tracking on, in insertion order. */
struct snitch {
    size_t n, cap;
    struct snitch_site *v;
    /* bound.c: a tracker known from live learning alone (no site of the seed's or an
     * import's) sits in one of the engine's lists of them, most recently touched first;
     * lru_name is its base, its own copy. NULL lru_name: in none. */
    struct snitch *lru_prev, *lru_next;
    char *lru_name;
    uint8_t lru_tier; /* BROCK__LRU_OPEN or BROCK__LRU_BLOCKED */
};

/* The lists of learned trackers (bound.c): those that learning has not blocked yet, which
 * make room first, and those it blocked. */
enum { BROCK__LRU_OPEN, BROCK__LRU_BLOCKED, BROCK__LRU_TIERS };

/* The paths of scripts seen fingerprinting that learning adds to fp_scripts, in all: past it,
 * it adds none. Privacy Badger's seed holds a few dozen. */
#define BROCK__FP_PATHS_MAX 10000

/* tracking_map[base][site]: kinds of non-cookie evidence. */
enum {
    BROCK__TRACK_BEACON = 1,
    BROCK__TRACK_CANVAS = 2,
    BROCK__TRACK_PIXEL = 4,
    BROCK__TRACK_LINK = 8, /* link decoration (linkdeco.c): brock's own */
};

/* The BROCK__TRACK_ bit of one of tracking_map's kind names ("beacon", ...), 0 if none. */
unsigned brock__tracking_kind(const char *s);

struct tracking_site {
    char *site;
    unsigned kinds;
    uint8_t dirty;
};

struct tracking {
    size_t n, cap;
    struct tracking_site *v;
};

/* fp_scripts[host]: script paths seen fingerprinting. */
struct fp_host {
    size_t n, cap;
    char **paths;
    uint8_t dirty;
};

/* How the store fares, kept by the back ends for brock_store_status(). */
struct brock__store_health {
    int64_t last_write_ms, last_error_ms, event_ms;
    int failing;
    int connected;         /* the database answers (a file: always) */
    int64_t since_ms;      /* when connected last changed or the thread started; 0: none */
    uint64_t queued;       /* rows taken out of memory's marks, not yet written */
    uint64_t written_rows; /* rows written since the open (a store thread's count) */
    uint64_t refused;      /* rows the database refused for good, left out (idem) */
    unsigned recreated, reloaded;
    char last_error[512];
    char event[4096 + 160];
};

struct brock__store_ops;
struct brock__base_cache;
struct brock__answer;
struct brock__answer_set;
struct brock__surrogates;

/* Names with their lengths, in one allocation (the bytes follow the array). */
struct brock__names {
    size_t n;
    struct {
        const char *s;
        size_t len;
    } v[];
};

/* settings.c: the settings a decision reads, taken out of e->settings (and the widgets of the
 * lists) once after they change, rather than through jansson on every call. Valid while the
 * engine's answers_gen and widgets_gen are the ones it was read under: every change of the
 * settings or the lists bumps answers_gen, a widget allowed on a site widgets_gen. */
struct brock__decide_settings {
    uint64_t answers_gen, widgets_gen; /* answers_gen 0: not read (or out of memory) */
    int paused;                        /* brock is paused (pause.c) */
    struct brock__names *disabled;     /* disabledSites, "*." and "." taken off; NULL: none */
    struct strmap widget_sites;        /* widgetSiteAllowlist: page host → struct
                                          brock__names, the unblockDomains of its widgets */
};

struct brock_engine {
    struct strmap actions;      /* FQDN → struct action_entry */
    struct strmap snitches;     /* tracker base → struct snitch */
    struct strmap tracking;     /* tracker base → struct tracking */
    struct strmap fp_scripts;   /* script host → struct fp_host */
    struct strmap site_actions; /* "SITE DOMAIN" → the user's choice there (siteaction.c) */
    struct strmap site_index;   /* SITE → a map of DOMAIN → the same choices, for the lookup */
    struct strvec deleted;      /* action entries removed since the last sync */
    struct strvec forgotten;    /* learned trackers forgotten since the last sync (bound.c):
                                   their snitch and tracking rows are deleted there */
    size_t dirty;               /* changes since the last sync; 0: nothing to write */

    json_t *settings; /* Privacy Badger's settings_map, as an object */
    int settings_dirty;
    /* The keys of settings changed here since the last write (brock__settings_touch()), or
     * all of them: when another process changed the settings meanwhile, its values are taken
     * for every other key, so that a whole write of this object loses nothing of it. */
    struct strmap settings_touched;
    int settings_touch_all;
    int learn; /* learnLocally (brock's default: on) and not no_learn */
    int no_learn;
    int check_dnt; /* checkForDNTPolicy */
    unsigned threshold;
    /* pause.c: the latest time the caller gave brock_expire() (the clock's at the open): a
     * pause or a site's time off read from the state with an end at or before it is over. */
    int64_t expire_now;

    /* bound.c: the trackers known from live learning alone, by tier, most recently touched
     * at the head; at most learned_max of them are kept, the least recently touched of the
     * open tier forgotten first. */
    struct snitch *lru_head[BROCK__LRU_TIERS], *lru_tail[BROCK__LRU_TIERS];
    size_t n_learned;
    size_t learned_max;         /* 0: none (an engine built by hand, in the store's tests) */
    uint64_t learned_forgotten; /* forgotten to make room since the engine opened */
    size_t n_fp_paths;          /* the paths fp_scripts holds, in all */

    struct brock_lists lists;
    void *store; /* the store back end's own state; NULL: memory only */
    const struct brock__store_ops *store_ops; /* its calls, while store is not NULL */
    struct brock__store_health health;        /* how writing fares, for brock_store_status() */
    struct brock__base_cache *base_cache;     /* domain.c; NULL: no cache */
    uint64_t psl_gen; /* brock__psl_generation() the base cache was filled under */

    /* answers.c: recent decisions, valid while answers_gen is what their set was kept under. */
    struct brock__answer *answers;
    struct brock__answer_set *answer_sets; /* each set's generation and its answers' tags */
    uint64_t answers_gen;
    uint64_t answers_seed;
    uint64_t answers_probe;    /* the hash of the pair looked up last, */
    size_t answers_probe_lens; /* and its host and site lengths (host << 8 | site) */
    /* Every fast path of a decision off: no kept answers, no base cache (libpsl asked each
     * time), the settings read from JSON each time, a URL's host read by brock_url_host()
     * alone, the private-host test without its shortcut. The same decisions made the plain
     * way; the differential tests compare the two. (Normalising a name has fast paths of its
     * own, compared with brock__host_normalize_by().) */
    int plain;
    uint64_t widgets_gen; /* bumped by every change of widgetSiteAllowlist */
    struct brock__decide_settings decide_settings;
    struct brock__pages *pages;         /* pages.c: recent page views; NULL: none yet */
    struct brock__daily *daily;         /* daily.c: daily counters; NULL: none yet */
    struct brock__clearurls *clearurls; /* clearurls.c: ClearURLs' rules; NULL: none loaded */
    /* clearurls.c: the rules' texts, compiled at the first clean (brock__clearurls_ready()):
     * an update's (kept in the state's meta rows 'clearurls' and 'clearurls_time'), else the
     * configuration's (borrowed). */
    const char *clearurls_given;
    size_t clearurls_given_len;
    char *clearurls_text;   /* brock_clearurls_update()'s, or the state's; NULL: none */
    int64_t clearurls_time; /* when it was taken, Unix ms */
    int clearurls_dirty;    /* the two above go to the state's meta at the next flush */
    int clearurls_tried;    /* the texts were compiled, or found wanting: not tried again */
    /* uncloak.c: the CNAME chains DNS gave (brock_cname_chain_set()), host → struct
     * brock__chain, and the hosts in the order they came (each chain's own copy of its
     * host's name), the oldest making room. */
    struct strmap chains;
    const char **chain_ring;
    size_t chain_next;
    int reset_pending; /* brock_reset(): the store empties its tables at the next flush */

    /* update.c: Privacy Badger's configuration as applied to this state. */
    struct brock__sitefixes *sitefixes; /* NULL: none */
    char *pbconfig;                     /* the text brock_update_apply() took; NULL: none yet */
    int64_t pbconfig_time;              /* when, Unix ms */
    char *yellow_applied;               /* the cookieblock list the state follows, one a line */
    int pbconfig_dirty; /* the three above go to the state's meta at the next flush */

    /* store.c: why the state cannot be written ("": it can); then the store, if any, is
     * read-only and brock_sync() keeps changes in memory (readonly_ok) or fails. */
    char readonly_why[4608]; /* a path and the reason */
    int readonly_ok;
    int read_only; /* brock_config.read_only: never written */
    int seed_mark; /* BROCK__SEED_*: what the next flush records of the seed */

    char errmsg[512];
};

/* Whether a new state was seeded, recorded once at its first flush (the meta row 'seeded'). */
enum {
    BROCK__SEED_KEPT = 0, /* nothing to record: the state says it already */
    BROCK__SEED_LOADED,   /* the seed was loaded into a new state */
    BROCK__SEED_NONE,     /* a new state made with no_seed: it stays without */
};

/* Records a sentence for brock_engine_errmsg() and returns err. */
int brock__fail(struct brock_engine *e, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- engine.c: jansson's values in an arena ---- */

struct arena;

/* Makes a (NULL: none) this thread's arena for jansson's values: while it is on
 * (brock__json_arena_on), every value made goes into it, and freeing one of them does
 * nothing; arena_reset() releases them all. Returns 0, or -1 (no arena then) when jansson
 * allocates through functions brock did not put in. */
int brock__json_arena(struct arena *a);
void brock__json_arena_on(int on);

/* ---- answers.c: recent decisions ---- */

/* The answers kept, allocated at open so that a decision allocates nothing. */
int brock__answers_init(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
void brock__answers_free(struct brock_engine *e);

/* Makes every kept answer stale. Called by everything that changes what brock_decide() can
 * answer: the action map, the settings, the lists, the site fixes, the Public Suffix List.
 * Once between a change and the next decision is enough, before or after it. */
void brock__answers_forget(struct brock_engine *e);

/* The kept answer for host (hlen bytes) on site (slen bytes; "" for none), both compared as
 * they are, so that names already normalised are found before they are normalised again,
 * into d's other fields but type and the surrogate's, and host into d->host unless it is
 * d->host. Returns 1, or 0 when there is none (d unchanged). */
int brock__answer_get(struct brock_engine *e, const char *host, size_t hlen, const char *site,
                      size_t slen, struct brock_decision *d);

/* Where a decision's names sit in the two it keeps: d->tracker's length, and where d->base
 * and d->source start in it and d->site in the site, each a tail of the other. */
struct brock__answer_tails {
    size_t tracker_len, base_off, source_off, site_off;
};

/* Keeps brock_decide()'s decision d for d->host (hlen bytes) on site (slen bytes); cname is
 * the lists' string d->tracker was copied from, or NULL when the tracker is the host. */
void brock__answer_put(struct brock_engine *e, const char *site, size_t slen,
                       const struct brock_decision *d, size_t hlen, const char *cname,
                       const struct brock__answer_tails *t);

/* ---- policy.c: actions and their resolution ---- */

/* The decision for d->host (hlen bytes, normalised) on site (slen bytes, normalised; NULL:
 * unknown page), Privacy Badger's checks in order with the static CNAME list, its names'
 * tails into t. Returns the static list's target d->tracker was copied from, or NULL. */
const char *brock__decide_name(struct brock_engine *e, size_t hlen, const char *site, size_t slen,
                               struct brock_decision *d, struct brock__answer_tails *t);

/* ---- uncloak.c: CNAME chains from live DNS ---- */

/* d, host's own decision on site (brock__decide_name(); cname what it returned), replaced by
 * the decision its chain gives when that wins (brock_cname_chain_set()), t with it. Returns
 * the string d->tracker was copied from (the chain's name, or the static list's for it), or
 * NULL when it is the host. */
const char *brock__uncloak(struct brock_engine *e, size_t hlen, const char *site, size_t slen,
                           struct brock_decision *d, struct brock__answer_tails *t,
                           const char *cname);
void brock__chains_free(struct brock_engine *e);

/* The entry for exactly domain, or NULL. */
struct action_entry *brock__action_get(const struct brock_engine *e, const char *domain);

/* The entry for exactly domain, created with defaults when missing; NULL when out of memory. */
struct action_entry *brock__action_ensure(struct brock_engine *e, const char *domain);

/* Removes domain's entry (revertUserAction on an entry with nothing else in it). */
int brock__action_delete(struct brock_engine *e, const char *domain) BROCK_NODISCARD_INTERNAL;

/* Marks an entry changed. */
void brock__action_touch(struct brock_engine *e, struct action_entry *a, unsigned bits);

/* getAction(entry, ignoreDnt). */
enum brock_action brock__get_action(const struct brock_engine *e, const struct action_entry *a,
                                    int ignore_dnt);

/* The score of an action; -1 for one that is never selected. */
int brock__score(int action);

/* getBestAction(fqdn); *source (if not NULL) gets the entry the action came from or NULL. */
enum brock_action brock__best_action(const struct brock_engine *e, const char *fqdn,
                                     const struct action_entry **source);

/* The same for fqdn whose base (a tail of it, or its end for none) is known. */
enum brock_action brock__best_action_base(const struct brock_engine *e, const char *fqdn,
                                          const char *base, const struct action_entry **source);

/* The resolved action of a name below fqdn that the action map does not hold: fqdn's own DNT
 * flag does not reach it, and below a public suffix nothing does (noaction). */
enum brock_action brock__below_action(const struct brock_engine *e, const char *fqdn);

/* "", "allow", "block", "cookieblock" → heuristic value; -1 for another string that is
 * accepted but never selected (BROCK__HEUR_UNKNOWN is stored). */
int brock__heur_parse(const char *s);
const char *brock__heur_name(int heur);

/* "", "user_allow", "user_block", "user_cookieblock" → user value; -1 when not one. */
int brock__user_parse(const char *s);
const char *brock__user_name(int user);

/* Whether site (host) is on the disabled sites list (section 4.2). */
int brock__site_disabled(const struct brock_engine *e, const char *site_host);

/* The same for site (slen bytes, normalised), from the list as read into ds. */
int brock__site_disabled_in(const struct brock__decide_settings *ds, const char *site, size_t slen);

/* disabledSites read into *out (NULL when it names no site). Returns 0 or BROCK_ENOMEM. */
int brock__disabled_sites_read(const struct brock_engine *e,
                               struct brock__names **out) BROCK_NODISCARD_INTERNAL;

/* ---- pause.c: brock off for a while ---- */

/* Whether brock is paused, as the settings say now (brock_expire() ends it in them). */
int brock__paused(const struct brock_engine *e);

/* Whether brock leaves site_host (NULL: an unknown page) alone: paused, or the site
 * disabled. */
int brock__site_off(const struct brock_engine *e, const char *site_host);

/* Whether key is one of brock's own settings (the pause, the sites' ends), which Privacy
 * Badger's JSON neither carries nor sets. */
int brock__own_setting(const char *key);

/* Takes brock's own keys out of the settings, before the state's are read again. */
void brock__own_settings_drop(struct brock_engine *e);

/* The settings as Privacy Badger's JSON carries them: a new object without brock's own keys
 * and without the sites disabled for a while only (an export is read later, when their time
 * is over). NULL when out of memory. */
json_t *brock__settings_exported(const struct brock_engine *e);

/* Sets site's end (a disabledSites entry) to until_ms; BROCK_NO_END: none, disabled for
 * good. Returns 0 or BROCK_ENOMEM. */
int brock__site_end_set(struct brock_engine *e, const char *site,
                        int64_t until_ms) BROCK_NODISCARD_INTERNAL;

/* Drops what in the settings has ended by e->expire_now (or is malformed), without a call
 * back or a write: for settings just read or changed. Allocates nothing. */
void brock__pause_prune(struct brock_engine *e);

/* ---- learn.c: evidence → snitch map → heuristic action ---- */

struct brock__evidence_in {
    const char *host;
    const char *detail;
    int kind;
    int64_t time_ms;
    const char *param; /* pixel sharing: the URL parameter; NULL otherwise */
};

/* Who an observation is about: host (a normalized host name the request went to) on a page of
 * site_host. The tracker's name is fqdn (its CNAME target when one is known, else host,
 * borrowed), its base domain base and the page's site. Returns 1 when host is a third party
 * on that site that learning may look at; 0 for a private address, a name without a base, or
 * the first party. */
struct brock__parties {
    const char *fqdn;
    char base[BROCK_HOST_MAX];
    char site[BROCK_HOST_MAX];
};
int brock__learn_parties(struct brock_engine *e, const char *host, const char *site_host,
                         struct brock__parties *p);

/* _recordPrevalence(fqdn, base, site). Returns 1 when the site was added, 2 when it was
 * added and blocked the tracker, 0 when nothing changed, BROCK_ENOMEM. */
int brock__record_prevalence(struct brock_engine *e, const char *fqdn, const char *base,
                             const char *site, const struct brock__evidence_in *ev);

/* Ends an observation: r as brock__record_prevalence() returned it (0 for nothing) told in
 * learned (may be NULL) for the tracker base. Returns 0, or r failed (out of memory) with the
 * engine's message set. */
int brock__learned_tell(struct brock_engine *e, struct brock_learned *learned, int r,
                        const char *base);

/* updateTrackerPrevalence: record only if the best action is noaction or allow. */
int brock__update_tracker_prevalence(struct brock_engine *e, const char *fqdn, const char *base,
                                     const char *site, const struct brock__evidence_in *ev);

/* blocklistDomain(base, fqdn). Returns 0 or BROCK_ENOMEM. */
int brock__blocklist_domain(struct brock_engine *e, const char *base,
                            const char *fqdn) BROCK_NODISCARD_INTERNAL;

/* The snitch list of a base, or NULL. */
struct snitch *brock__snitch_get(const struct brock_engine *e, const char *base);
int brock__snitch_has(const struct snitch *s, const char *site);

/* Appends site to base's list (creating it). Returns 1 if added, 0 if present, BROCK_ENOMEM. */
int brock__snitch_add(struct brock_engine *e, const char *base, const char *site,
                      const struct brock__evidence_in *ev);

/* Adds kinds to tracking_map[base][site]. Returns 0 or BROCK_ENOMEM. */
int brock__tracking_add(struct brock_engine *e, const char *base, const char *site,
                        unsigned kinds) BROCK_NODISCARD_INTERNAL;

/* Adds path to fp_scripts[host]. Returns 0 or BROCK_ENOMEM. */
int brock__fp_add(struct brock_engine *e, const char *host,
                  const char *path) BROCK_NODISCARD_INTERNAL;

/* ---- bound.c: what learning keeps, bounded ---- */

/* A site of kind (enum brock_evidence_kind) was just appended to sn, base's snitch list:
 * a tracker new to live learning joins the learned lists, one that learning adds to moves to
 * the head of its tier, and one that the seed or an import names leaves them for good.
 * Returns 0, or BROCK_ENOMEM with nothing changed (the caller then takes the site back). */
int brock__learned_note(struct brock_engine *e, const char *base, struct snitch *sn,
                        int kind) BROCK_NODISCARD_INTERNAL;

/* Forgets the least recently touched learned trackers, open ones first, until at most
 * e->learned_max are left; never keep (NULL: none), the tracker being learned. What learning
 * made of each goes with it: its snitch and tracking entries and the action entries it made
 * (the base's and its sites' hosts'), never an entry with a user's choice or a DNT record,
 * nor a block that learning did not make. Returns how many were forgotten, or BROCK_ENOMEM. */
int brock__learned_bound(struct brock_engine *e,
                         const struct snitch *keep) BROCK_NODISCARD_INTERNAL;

/* Orders the learned lists by each tracker's newest evidence, after a load. */
void brock__learned_order(struct brock_engine *e);

/* sn (in the learned lists or not) is about to be freed alone. */
void brock__learned_unlink(struct brock_engine *e, struct snitch *sn);

/* Every snitch list was just freed at once: the learned lists are empty. */
void brock__learned_clear(struct brock_engine *e);

/* ---- widgets.c ---- */

/* checkAction's first line: whether host (a request's, normalised) is let through on the
 * page of site (its exact host, normalised; NULL: unknown) because of a widget the user
 * allowed: r's temporary allowances, or a widget the site always allows (widgetSiteAllowlist),
 * matched against host or the requesting frame's host. */
int brock__widget_allowed(const struct brock_engine *e, const struct brock_request *r,
                          const char *site, const char *host);

/* The same with widgetSiteAllowlist as read into ds (brock__decide_settings()). */
int brock__widget_allowed_in(const struct brock__decide_settings *ds, const struct brock_request *r,
                             const char *site, const char *host);

/* widgetSiteAllowlist read into out (empty): each page host that allows a widget, to the
 * unblockDomains of its widgets. Returns 0 or BROCK_ENOMEM (out then empty). */
int brock__widget_sites_read(const struct brock_engine *e,
                             struct strmap *out) BROCK_NODISCARD_INTERNAL;

/* ---- lists.c: Privacy Badger's lists in force (data/ reads them) ---- */

/* Loads every list from dir (Debian's release layout: data/, js/; or a flat folder of the
 * current files). Returns 0, BROCK_ENOENT or BROCK_EFORMAT with errmsg naming the file. */
int brock__lists_load(struct brock_engine *e, const char *dir) BROCK_NODISCARD_INTERNAL;

/* Reads every list again, as brock__lists_load() did, from the data folder the lists in force
 * came from (the folder opened then), into *fresh (emptied first; clean up with
 * brock__lists_cleanup()); the lists in force are left alone. Returns 0; BROCK_EINVAL without
 * a data folder; BROCK_EIO, BROCK_ENOENT, BROCK_EFORMAT with errmsg naming the file; or
 * BROCK_ENOMEM, *fresh then empty. */
int brock__lists_reread(struct brock_engine *e, struct brock_lists *fresh) BROCK_NODISCARD_INTERNAL;

/* brock__lists_file() of the lists in force, with errors in e's message. */
int brock__data_read(struct brock_engine *e, const char *file, char path[4096], char **text,
                     size_t *len) BROCK_NODISCARD_INTERNAL;

/* A context for data/'s readers: their errors go to e's message, their files come from the
 * data folder e's lists came from (brock__data_read()). */
void brock__data_ctx_of(struct brock_engine *e, struct brock__data_ctx *cx);

/* Replaces the cookieblock list by list, applying section 6's rules for the domains added
 * and removed. Returns 0 or BROCK_ENOMEM. */
int brock__yellowlist_apply(struct brock_engine *e,
                            const struct strvec *list) BROCK_NODISCARD_INTERNAL;

/* ---- pbjson.c: Privacy Badger's JSON ---- */

/* mergeUserData(data) for a parsed, not yet validated object. Validates first. */
int brock__merge(struct brock_engine *e, const char *name, json_t *data,
                 struct brock_stats *st) BROCK_NODISCARD_INTERNAL;

/* The five exported stores as one JSON object (a new reference), or NULL when out of memory. */
json_t *brock__export_pb_json(struct brock_engine *e);

/* The same written into out, as export/export.c's table calls it for the format "pb" (flags:
 * the whole state only). Returns 0, BROCK_ENOMEM. */
struct buf;
int brock__export_pb(struct brock_engine *e, unsigned flags,
                     struct buf *out) BROCK_NODISCARD_INTERNAL;

/* Loads the seed (section 10) into an empty state, keeping user actions: read (the file
 * parsed and checked, nothing changed; *out owned by the caller), then apply. */
int brock__load_seed(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;
int brock__seed_read(struct brock_engine *e, json_t **out) BROCK_NODISCARD_INTERNAL;
int brock__seed_apply(struct brock_engine *e, json_t *seed) BROCK_NODISCARD_INTERNAL;

/* The site a user typed (a host name, a URL, "*." and a host), as disabledSites keeps it,
 * into host (BROCK_HOST_MAX bytes); BROCK_EINVAL with a sentence in errmsg when it is none,
 * or, to_add, when it is a public suffix. */
int brock__site_checked(struct brock_engine *e, const char *site, int to_add,
                        char *host) BROCK_NODISCARD_INTERNAL;

/* ---- clientchoices.c: each client's own pause and disabled sites, and its rooms ---- */

/* What each client has of its own in pages.c and daily.c: a room per client in map (client →
 * room), at most BROCK_CLIENTS_MAX of them, the one used longest ago (last()) forgotten to
 * make room, its name (name()) pushed on dropped for the store when tracked. */
struct brock__client_rooms {
    struct strmap *map;
    struct strvec *dropped;
    void *(*make)(const char *client); /* NULL when out of memory */
    void (*free)(void *room);
    int64_t (*last)(const void *room);
    const char *(*name)(const void *room);
};

/* client's room; made when missing with create. NULL: none, or out of memory. */
void *brock__client_room(const struct brock__client_rooms *r, const char *client, int create,
                         int track);

/* Forgets room: its name goes on r->dropped when track, the room at once. Returns 0, or
 * BROCK_ENOMEM with nothing changed. */
int brock__client_room_drop(const struct brock__client_rooms *r, void *room, int track);

/* A list of sites kept under a settings key of brock's own (an array of host names, each
 * matching its subdomains too): whether host is on it or under one; site (what a user typed,
 * brock__site_checked()) added (add 1, not a public suffix) or taken off, reaching the state
 * at the next sync (0, BROCK_EINVAL, BROCK_ENOMEM); each one in the order added, cb returning
 * non-zero to stop (returned). */
int brock__settings_list_match(const struct brock_engine *e, const char *key, const char *host);
int brock__settings_list_set(struct brock_engine *e, const char *key, const char *site,
                             int add) BROCK_NODISCARD_INTERNAL;
int brock__settings_list_each(const struct brock_engine *e, const char *key,
                              int (*cb)(void *arg, const char *site), void *arg);

/* Whether site_host (hlen bytes) is the site p or under it. */
int brock__site_match(const char *site_host, size_t hlen, const char *p);

/* Whether brock is off for client (NULL or "": none) on site_host: its own pause, or a site
 * it disabled for itself (site_host NULL or "": the pause alone). */
int brock__client_off(const struct brock_engine *e, const char *client, const char *site_host);

/* Drops the clients' pauses and sites whose end has come by now; returns how many. */
int brock__clients_prune(struct brock_engine *e, int64_t now);

/* The nearest end still to come among the clients' (Unix ms), or 0. */
int64_t brock__clients_next_end(const struct brock_engine *e);

/* Whether key is the clients' switches' own key in the settings. */
int brock__clients_setting(const char *key);

/* client's object in the settings (made when missing, with create; NULL when none or out of
 * memory), and its removal once nothing is left in it. */
json_t *brock__client_object(struct brock_engine *e, const char *client, int create);
void brock__client_tidy(struct brock_engine *e, const char *client);

/* Whether client always lets the widget name load on site (an exact host), and whether one
 * it so lets load there unblocks host. */
int brock__client_widget_listed(const struct brock_engine *e, const char *client, const char *site,
                                const char *name);
int brock__client_widget_allowed(const struct brock_engine *e, const char *client, const char *site,
                                 const char *host);

/* Whether one of the widget name's unblockDomains matches host (widgets.c). */
int brock__widget_unblocks(const struct brock_engine *e, const char *name, const char *host);

/* Settings: reads the cached flags out of e->settings after it changed. */
void brock__settings_changed(struct brock_engine *e);

/* Marks the setting key (NULL: every one) as changed here, to be written at the next sync. */
void brock__settings_touch(struct brock_engine *e, const char *key);

/* Forgets the marks once the settings were written. */
void brock__settings_untouch(struct brock_engine *e);

/* The settings a decision reads, read again first when they changed; NULL when out of memory
 * (the caller then reads e->settings itself). */
const struct brock__decide_settings *brock__decide_settings(struct brock_engine *e);
void brock__decide_settings_free(struct brock_engine *e);

/* A new struct brock__names holding the strings of each array in arrays (a JSON array;
 * values that are not arrays or strings are skipped, as are strings that trim leaves empty),
 * each with trim applied (NULL: as they are); *out NULL when there are none. Returns 0 or
 * BROCK_ENOMEM. */
int brock__names_from_json(json_t *arrays, const char *(*trim)(const char *),
                           struct brock__names **out) BROCK_NODISCARD_INTERNAL;

/* A new settings object with Privacy Badger's defaults (brock's, where it differs), or NULL
 * when out of memory. */
json_t *brock__settings_default(void);

/* ---- siteaction.c: the user's choices for one site only ---- */

void brock__site_actions_free(struct brock_engine *e);

/* The user's choice for fqdn (normalised) on site (a base domain), the most specific name from
 * fqdn up to its base that has one; BROCK_NOACTION when none. *source points at the name the
 * choice is for (the engine's, valid until the next change), or is NULL. Allocates nothing. */
enum brock_action brock__site_action_find(const struct brock_engine *e, const char *site,
                                          const char *fqdn, const char **source);

/* Calls cb for each of the user's choices on site (a base domain): the name chosen for and the
 * choice. cb returns non-zero to stop (returned). Returns 0 or cb's value. */
int brock__site_actions_each(const struct brock_engine *e, const char *site,
                             int (*cb)(void *arg, const char *domain, enum brock_action a),
                             void *arg);

/* Whether brock_set_site_action() takes the pair: 0, or BROCK_EINVAL with errmsg saying why. */
int brock__site_action_check(struct brock_engine *e, const char *site,
                             const char *domain) BROCK_NODISCARD_INTERNAL;

/* Applies a stored row (user: Privacy Badger's name of a user action) unless memory changed
 * that choice since its last write, and marks it seen. A row brock would not write is
 * skipped. Returns 1 when memory changed, 0, or BROCK_ENOMEM. */
int brock__site_action_apply(struct brock_engine *e, const char *site, const char *domain,
                             const char *user) BROCK_NODISCARD_INTERNAL;

/* Rereading every row: begin, apply each, end; end drops the choices with nothing unwritten
 * that no row named, and returns how many it dropped. */
void brock__site_actions_reload_begin(struct brock_engine *e);
int brock__site_actions_reload_end(struct brock_engine *e);

/* For the store's flush: put is called for each choice changed since the last flush, user NULL
 * for one removed (its row to delete). Returns how many, or put's negative value. */
int brock__site_actions_flush(struct brock_engine *e,
                              int (*put)(void *arg, const char *site, const char *domain,
                                         const char *user),
                              void *arg) BROCK_NODISCARD_INTERNAL;

/* After a commit: every choice is written, and the removed ones are forgotten. */
void brock__site_actions_clean(struct brock_engine *e);

/* Every choice is written at the next flush (the store's file is new). */
void brock__site_actions_mark_all(struct brock_engine *e);

/* ---- update.c: applying pbconfig.json ---- */

/* What `brock update` left in a state's store (its meta rows), each NULL when missing: the
 * configuration applied last, when, and the cookieblock list the actions followed. */
struct brock__stored_config {
    const char *pbconfig;
    const char *pbconfig_time;
    const char *yellowlist;
};

/* At open, after the state is loaded: the site fixes of the data folder's pbconfig.json (if any),
 * then the configuration the state last applied (sc; NULL: no store), which wins over the data
 * folder's; a cookieblock list that differs from the one the state followed (a new package, a
 * new update) is applied with the added/removed rules. Returns 0, BROCK_EFORMAT, BROCK_ENOMEM. */
int brock__pbconfig_restore(struct brock_engine *e,
                            const struct brock__stored_config *sc) BROCK_NODISCARD_INTERNAL;
void brock__pbconfig_cleanup(struct brock_engine *e);

/* Makes list the cookieblock list in force by brock__yellowlist_apply()'s rules, and the one
 * the state follows (recorded at the next flush when it changed); st's yellow, added and
 * removed say what changed. Returns 0 or BROCK_ENOMEM. */
int brock__yellowlist_follow(struct brock_engine *e, const struct strvec *list,
                             struct brock_update_stats *st) BROCK_NODISCARD_INTERNAL;

/* The site fixes of the data folder's pbconfig.json into *out (NULL when it has none; free
 * with brock__sitefixes_free()), nothing else changed. Returns 0, BROCK_EIO, BROCK_EFORMAT,
 * BROCK_ENOMEM. */
int brock__data_sitefixes_read(struct brock_engine *e,
                               struct brock__sitefixes **out) BROCK_NODISCARD_INTERNAL;

/* ---- linkdeco.c ---- */

/* Whether key is the settings key of the parameter names learned (brock's own). */
int brock__link_params_setting(const char *key);

/* Takes out of url's query (changed in place) the parameters learned as link decoration that
 * the user does not keep, each noted in info. Returns 1 when one went, else 0. */
int brock__link_params_strip(const struct brock_engine *e, char *url, struct brock_clean *info);

/* ---- clearurls.c ---- */

/* The rules in force compiled, if they are not yet: the state's (an update's), else the
 * configuration's; a text that no longer compiles is set aside for the next. */
void brock__clearurls_ready(struct brock_engine *e);

struct brock__clearurls;

void brock__clearurls_free(struct brock__clearurls *c);

/* brock_clean_url() the plain way: every provider's expression run, none passed over for want
 * of its literal. The fast path's reference. */
int brock__clean_url_plain(struct brock_engine *e, const char *url, char *out, size_t size,
                           struct brock_clean *info) BROCK_NODISCARD_INTERNAL;

/* ---- pages.c: recent page views ---- */

struct brock__pages;

void brock__pages_free(struct brock__pages *p);

/* Whether client names a client (brock_client_page_seen()): 1 to BROCK_CLIENT_MAX - 1 bytes,
 * none a control character or a space. */
int brock__client_ok(const char *client);

/* Adds one row read from the store, everyone's (client "") or a client's (action: Privacy
 * Badger's name). A row of a malformed client is passed over. Returns 0 or BROCK_ENOMEM. */
int brock__pages_load(struct brock_engine *e, const char *client, const char *site,
                      const char *host, const char *action, int64_t count,
                      int64_t time_ms) BROCK_NODISCARD_INTERNAL;

/* For the store's flush: put is called with site and host NULL to delete every row of a
 * client forgotten, with host NULL to delete every row of a site (dropped, or to be written
 * whole), else for each row changed since the last flush; client is "" for everyone's.
 * Returns 0 or put's negative value. */
int brock__pages_flush(struct brock_engine *e,
                       int (*put)(void *arg, const char *client, const char *site, const char *host,
                                  const char *action, int64_t count, int64_t time_ms),
                       void *arg) BROCK_NODISCARD_INTERNAL;

/* Forgets client's page views in memory and, when track, in the store at the next flush.
 * Returns 1, 0 when it had none, or BROCK_ENOMEM. */
int brock__pages_client_forget(struct brock_engine *e, const char *client,
                               int track) BROCK_NODISCARD_INTERNAL;

/* Whether clients were forgotten since the last flush, their page views or daily counts (the
 * flush then journals 'clients'). */
int brock__views_clients_forgot(const struct brock_engine *e);

/* For a 'clients' journal row: drops what memory holds of the clients' views and counts that
 * is already written. */
void brock__views_clients_drop_clean(struct brock_engine *e);

/* After a commit: the page views in memory are all in the store. */
void brock__pages_clean(struct brock_engine *e);

/* Every page view in memory is written at the next flush (the store's file is new). */
void brock__pages_mark_all(struct brock_engine *e);

/* Forgets the page views older than the page-view-days setting, when force, when the setting
 * changed, or once a minute. Returns how many sites lost views, or BROCK_ENOMEM. */
int brock__pages_expire(struct brock_engine *e, int force);

/* Whether views were forgotten since the last flush (the flush then journals 'pages'). */
int brock__pages_forgot(const struct brock_engine *e);

/* For a 'pages' journal row: drops what memory holds that is already written. */
void brock__pages_drop_clean(struct brock_engine *e);

/* ---- daily.c: daily counters ---- */

/* What a day's counters count, in the store's column order. */
enum {
    BROCK__DAILY_BLOCKED = 0,
    BROCK__DAILY_COOKIEBLOCKED,
    BROCK__DAILY_ALLOWED,
    BROCK__DAILY_LEARNED,
    BROCK__DAILY_PAGES,   /* top-level pages opened: a day's sites are those with one */
    BROCK__DAILY_CLEANED, /* URLs with tracking parameters taken out (brock_request_clean()) */
    BROCK__DAILY_COUNT
};

struct brock__daily;

void brock__daily_free(struct brock__daily *st);

/* Counts one of what (BROCK__DAILY_*) on site (a base domain; "" when unknown) on the day of
 * time_ms (Unix ms, UTC). Nothing is counted while page-view-days is 0. Returns 0 or
 * BROCK_ENOMEM. */
int brock__daily_add(struct brock_engine *e, const char *site, int what,
                     int64_t time_ms) BROCK_NODISCARD_INTERNAL;

/* Adds one row read from the store, everyone's (client "") or a client's (day: days since
 * 1970-01-01), to what memory holds. A row of a malformed client is passed over. Returns 0
 * or BROCK_ENOMEM. */
int brock__daily_load(struct brock_engine *e, const char *client, int64_t day, const char *site,
                      const int64_t n[BROCK__DAILY_COUNT]) BROCK_NODISCARD_INTERNAL;

/* For the store's flush: put is called with site NULL to delete the days before day (once
 * forgotten; INT64_MAX for a client forgotten), then for each row with counts not yet
 * written, to be added to the store's; client is "" for everyone's. Returns 0 or put's
 * negative value. */
int brock__daily_flush(struct brock_engine *e,
                       int (*put)(void *arg, const char *client, int64_t day, const char *site,
                                  const uint64_t add[BROCK__DAILY_COUNT]),
                       void *arg) BROCK_NODISCARD_INTERNAL;

/* Forgets client's counts in memory and, when track, in the store at the next flush.
 * Returns 1, 0 when it had none, or BROCK_ENOMEM. */
int brock__daily_client_forget(struct brock_engine *e, const char *client,
                               int track) BROCK_NODISCARD_INTERNAL;

/* Whether clients' counts were forgotten since the last flush. */
int brock__daily_clients_forgot(const struct brock_engine *e);

/* Drops the clients' counts already written (everyone's stay). */
void brock__daily_clients_drop_clean(struct brock_engine *e);

/* After a commit: the counts in memory are all in the store. */
void brock__daily_clean(struct brock_engine *e);

/* Every count in memory is written at the next flush (the store's file is new). */
void brock__daily_mark_all(struct brock_engine *e);

/* Before reading a replaced file: memory keeps only what it has not written yet. */
void brock__daily_drop_clean(struct brock_engine *e);

/* Forgets the days wholly older than the page-view-days setting, when force, when the setting
 * changed, or once a minute. */
void brock__daily_expire(struct brock_engine *e, int force);

/* ---- trackers.c ---- */

/* Privacy Badger's makeSortable(domain) in a new string (mem_free), or NULL. */
char *brock__sortable(const char *domain);

/* ---- engine.c: maps' lifetimes ---- */

/* A new engine with empty maps and cfg's switches, or NULL when out of memory. */
struct brock_engine *brock__engine_alloc(const struct brock_config *cfg);

/* The default settings and the caches decisions use. Returns 0 or BROCK_ENOMEM. */
int brock__engine_settings_init(struct brock_engine *e) BROCK_NODISCARD_INTERNAL;

/* Frees e and everything it holds but its store (brock_engine_free() closes that first). */
void brock__engine_free(struct brock_engine *e);

void brock__snitch_free(void *p);
void brock__tracking_free(void *p);
void brock__fp_free(void *p);

#endif
