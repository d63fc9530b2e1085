/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * brock's decision engine: Privacy Badger's rules for learning which third-party domains
 * track people across sites, and what to do with a request to each. This is the one header
 * other programs include; it uses no event-loop or TLS types and never waits on the network.
 */
#ifndef BROCK_H
#define BROCK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(BROCK_BUILDING) && defined(__GNUC__)
#define BROCK_API __attribute__((visibility("default")))
#else
#define BROCK_API
#endif

/* Marks every call that can fail: a caller that drops its result is warned. */
#if defined(__GNUC__)
#define BROCK_NODISCARD __attribute__((warn_unused_result))
#else
#define BROCK_NODISCARD
#endif

#define BROCK_VERSION "0.1.0"

/* Where Debian's webext-privacy-badger package installs Privacy Badger's data. */
#define BROCK_DEFAULT_DATA_DIR "/usr/share/webext/privacy-badger"

/* The state folder of brock started as root without --state or $XDG_STATE_HOME: the system's,
 * as for a service, where the unprivileged user it then serves as can reach it. */
#define BROCK_SYSTEM_STATE_DIR "/var/lib/brock"

/* A host name with its terminating NUL always fits in this many bytes (DNS: 253). */
#define BROCK_HOST_MAX 256

/* Errors: every fallible call returns 0 (or a count) on success and one of these on failure.
 * brock_engine_errmsg() then holds a sentence naming the input and the problem. Each code has
 * one meaning:
 *
 *   BROCK_ENOMEM     out of memory (an allocation failed; nothing else is wrong)
 *   BROCK_EINVAL     a bad argument: a host or domain name, a site, an action, a setting, a
 *                    format name, a value out of range, a folder name too long
 *   BROCK_EIO        a file or folder exists (or must be made) but cannot be read or written
 *   BROCK_EFORMAT    input data is malformed: not JSON, wrong shapes, bad values, too large
 *   BROCK_ESTORE     the state database failed: SQLite's error, a damaged or newer database,
 *                    or changes that a read-only state could not save
 *   BROCK_ENOENT     a file brock needs is missing: Privacy Badger's data (the data folder,
 *                    one of its lists, the seed) or the system's Public Suffix List
 *   BROCK_ENOTFOUND  the engine has nothing recorded for what was asked about (a site with no
 *                    recent page views); the arguments themselves are good
 */
enum brock_error {
    BROCK_ENOMEM = -1,
    BROCK_EINVAL = -2,
    BROCK_EIO = -3,
    BROCK_EFORMAT = -4,
    BROCK_ESTORE = -5,
    BROCK_ENOENT = -6,
    BROCK_ENOTFOUND = -7,
};

/* A short English description of an error code, different for each; "unknown error" for a
 * value that is not one. Never NULL, static storage. */
BROCK_API const char *brock_strerror(int err);

/* The library's version string, BROCK_VERSION when the header matches the library. */
BROCK_API const char *brock_version(void);

/* Replaces the allocator used by brock (and, for JSON, by jansson). Call before any other
 * brock function; all four must be given. Returns 0, or BROCK_EINVAL if one is NULL. */
BROCK_API BROCK_NODISCARD int brock_replace_allocator(void *(*malloc_fn)(size_t),
                                                      void *(*realloc_fn)(void *, size_t),
                                                      void *(*calloc_fn)(size_t, size_t),
                                                      void (*free_fn)(void *));

/* Releases memory that brock handed over to the caller (exports, for instance). */
BROCK_API void brock_free(void *p);

/* Privacy Badger's action names, in order of score (section 5 of its rules): the user's
 * three choices all score highest. */
enum brock_action {
    BROCK_NOACTION = 0,
    BROCK_ALLOW,
    BROCK_BLOCK,
    BROCK_COOKIEBLOCK,
    BROCK_DNT,
    BROCK_USER_ALLOW,
    BROCK_USER_BLOCK,
    BROCK_USER_COOKIEBLOCK,
};

/* The number of actions: enum brock_action's values run from 0 to BROCK_ACTION_COUNT - 1. */
#define BROCK_ACTION_COUNT 8

/* "noaction", "allow", ... for an action; "noaction" for an unknown value. */
BROCK_API const char *brock_action_name(enum brock_action a);

/* The user's choice a person types or sends: "allow", "cookieblock" and "block" give
 * BROCK_USER_ALLOW, BROCK_USER_COOKIEBLOCK and BROCK_USER_BLOCK, as do Privacy Badger's names
 * for them ("user_allow", ...: what brock reports can be sent back); "reset" gives
 * BROCK_NOACTION, back to what was learned. Returns the action, or BROCK_EINVAL for any other
 * word (NULL too) with a sentence naming it and the choices in err (errlen bytes; err may be
 * NULL). */
BROCK_API BROCK_NODISCARD int brock_action_parse(const char *word, char *err, size_t errlen);

/* The action in words for people: "blocked", "allowed without cookies", "blocked, as you
 * chose", ... (a static string). */
BROCK_API const char *brock_action_words(enum brock_action a);

/* What a proxy does with a request. */
enum brock_effect {
    BROCK_PASS = 0,      /* send it as it is (with DNT and GPC) */
    BROCK_STRIP_COOKIES, /* send it without cookies, referrer cut; drop Set-Cookie */
    BROCK_DENY,          /* answer it locally; nothing goes upstream */
};

/* "pass", "cookieblock" or "block". */
BROCK_API const char *brock_effect_name(enum brock_effect e);

/* The effect of a resolved action: block and user_block deny, the cookieblocks strip. */
BROCK_API enum brock_effect brock_action_effect(enum brock_action a);

/* How the engine is opened. Paths are borrowed for the duration of brock_engine_open(). */
struct brock_config {
    const char *state_dir; /* folder of brock.db, created if missing; NULL: memory only */
    const char *data_dir;  /* Privacy Badger's data; NULL: no lists, no seed */
    int no_seed;           /* a new state is made without the seed, and stays so: the state
                              records it, and later opens do not seed it either */
    int no_learn;          /* never learn, whatever the stored setting says */
    int readonly_ok;       /* a state that cannot be written is fine: brock_sync() keeps
                              changes in memory instead of failing */
    int read_only;         /* only read: nothing is created or written, not even the seed or
                              a schema upgrade; a state that does not exist reads as a new one
                              would (seeded in memory), and brock_sync() writes nothing */
    const char *store;     /* a PostgreSQL database for the state instead of state_dir's
                              brock.db: a libpq connection string (postgresql://... or
                              key=value words such as service=NAME), shared by every engine
                              given it; one holding a password is refused (BROCK_EINVAL).
                              NULL: SQLite in state_dir */
    int store_thread;      /* with store: a thread of the engine's own talks to the database,
                              so that brock_sync() never waits on it; a database that is slow
                              or gone then slows nothing, changes wait in memory (one batch
                              handed to the thread, the rest still marked) and the thread
                              connects again, backing off. For a long-running process that
                              calls brock_sync() often (brock run) */
    const char *clearurls; /* ClearURLs' rules (their data.min.json, clearurls_len bytes) by
                              which URLs are cleaned until brock_clearurls_update() brings
                              others; borrowed for the engine's life, compiled at the first
                              clean. NULL: none */
    size_t clearurls_len;
};

struct brock_engine;

/* Opens the engine: loads Privacy Badger's lists from cfg->data_dir (Debian's release layout
 * or the current one; surrogates from data/surrogates.js or surrogate-rules.json with its
 * web_accessible_resources/, none when the folder has neither), opens or creates the state and, on a new state, loads the seed (which
 * reaches the state, with the record that it is seeded, at the first brock_sync()). On
 * success stores a new engine in *out (free with brock_engine_free()) and returns 0. On
 * failure *out is NULL, err (if not NULL) holds a sentence naming the file and the problem,
 * nothing on disk has changed (a state folder or database made by this call is removed
 * again), and a negative BROCK_E* is returned. */
BROCK_API BROCK_NODISCARD int brock_engine_open(const struct brock_config *cfg,
                                                struct brock_engine **out, char *err,
                                                size_t errlen);

/* Frees the engine. Changes not yet written by brock_sync() are dropped, so that a command
 * that fails half-way leaves the state as it was; a state that brock_engine_open() created
 * and no brock_sync() ever managed to write (a full disk) is removed, as a failed open
 * removes it. NULL is a no-op. */
BROCK_API void brock_engine_free(struct brock_engine *e);

/* A sentence describing the last failure of a call on e; "" if none. Valid until the next
 * call on e. */
BROCK_API const char *brock_engine_errmsg(const struct brock_engine *e);

/* Whether the state cannot be written (a read-only folder or file): it was then opened
 * read-only, or not at all when even that failed, and brock_sync() writes nothing. Returns 1
 * so, with *why (if why is not NULL) a sentence naming the file and the cause, valid while e
 * is; 0 when the state is writable or there is none. */
BROCK_API int brock_engine_readonly(const struct brock_engine *e, const char **why);

/* Whether e learns: the learning setting (on by default) and not cfg->no_learn. */
BROCK_API int brock_engine_learning(const struct brock_engine *e);

/* The switches of Privacy Badger's settings that brock acts on. */
enum brock_setting {
    BROCK_SETTING_LEARN,      /* learnLocally: learn from what passes (brock's default: on) */
    BROCK_SETTING_SEND_DNT,   /* sendDNTSignal: DNT: 1 and Sec-GPC: 1 on requests */
    BROCK_SETTING_CHECK_DNT,  /* checkForDNTPolicy: honour (and check) DNT policies */
    BROCK_SETTING_CLEAN_URLS, /* brockCleanUrls: take tracking parameters out of the URLs the
                                 proxy forwards (brock_request_clean(); default: on) */
    BROCK_SETTING_UNCLOAK,    /* brockUncloakCnames: judge a host by the CNAME chain DNS gave
                                 for it (brock_cname_chain_set(); default: on) */
};

/* The switches are 0 to BROCK_SETTING_COUNT - 1. */
#define BROCK_SETTING_COUNT 5

/* A switch's name as the dashboard's /api/settings and `brock settings` write it: "learn",
 * "send_dnt", "check_dnt", "clean_urls", "uncloak"; NULL for a value that is not a switch. */
BROCK_API const char *brock_setting_name(enum brock_setting s);

/* The switch named name (as brock_setting_name() gives it) into *s. Returns 0, or BROCK_EINVAL
 * for a name that is not a switch's. */
BROCK_API BROCK_NODISCARD int brock_setting_parse(const char *name, enum brock_setting *s);

/* A setting's value, 1 or 0. */
BROCK_API int brock_setting(const struct brock_engine *e, enum brock_setting s);

/* Turns a setting on or off; reaches the state at brock_sync(). Returns 0, BROCK_EINVAL,
 * BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_setting_set(struct brock_engine *e, enum brock_setting s,
                                                int on);

/* Whether requests made by pages of site_host (NULL: unknown) carry DNT and Sec-GPC: not
 * while brock is paused (brock_pause()), nor where it is disabled. */
BROCK_API int brock_send_signals(const struct brock_engine *e, const char *site_host);

/* Whether brock is disabled on site_host (a host name), or paused everywhere (brock_pause()):
 * then it changes nothing there. */
BROCK_API int brock_site_is_disabled(const struct brock_engine *e, const char *site_host);

/* Adds (disabled 1) or removes a site from the disabled sites. site is what a user types:
 * "example.com", "*.example.com" or a URL; it covers the host and its subdomains. Adding a
 * site disabled for a while (brock_site_disable_until()) makes it disabled for good;
 * removing one ends its time off early. Returns 0; BROCK_EINVAL for something that is not a
 * site, or, to add, for a public suffix ("com", "co.uk": brock would be off on every site
 * under it; an address is a site); BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_site_set_disabled(struct brock_engine *e, const char *site,
                                                      int disabled);

/* Calls cb for each disabled site pattern, in order; cb returns non-zero to stop (returned).
 * Returns 0 or the callback's value: it cannot fail itself. */
BROCK_API int brock_disabled_sites_each(const struct brock_engine *e,
                                        int (*cb)(void *arg, const char *site), void *arg);

/* ---- hosts passed through unseen ----
 *
 * A proxy that sees inside HTTPS passes some hosts through uninspected: those the user names
 * (a host name, or an fnmatch(3) pattern such as "*.bank.example"), and those whose clients
 * refused its certificate (learned: the host alone). "!" and a host name is the user taking
 * that host off a list of the proxy's own (brock's shipped exclusions). The list is part of the state (the
 * settings), so that it reaches other processes and a restart. Learned entries are capped at
 * BROCK_PASSTHROUGH_LEARNED_MAX, the oldest going first; the user's are kept. */

#define BROCK_PASSTHROUGH_LEARNED_MAX 1000

struct brock_passthrough {
    char host[BROCK_HOST_MAX]; /* the host name or pattern */
    char why[256];             /* why it is passed through, as a sentence; may be "" */
    int64_t time_ms;           /* since when, Unix milliseconds */
    int learned;               /* 1: a proxy added it when clients refused its certificate */
};

/* Adds host (a host name, normalised here, or a pattern) with why (NULL: none; cut at 200
 * bytes) since time_ms; learned marks what a proxy added by itself (a host name only). A
 * host already listed is brought up to date and becomes the newest, except that a learned
 * addition leaves the user's own entry as it is. Returns 0, BROCK_EINVAL (not a host or
 * pattern), BROCK_ENOMEM. Reaches the state at brock_sync(). */
BROCK_API BROCK_NODISCARD int brock_passthrough_add(struct brock_engine *e, const char *host,
                                                    const char *why, int64_t time_ms, int learned);

/* Takes host (as brock_passthrough_add() takes it) off the list. Returns 0, BROCK_EINVAL, or
 * BROCK_ENOTFOUND when it is not listed. */
BROCK_API BROCK_NODISCARD int brock_passthrough_remove(struct brock_engine *e, const char *host);

/* Calls cb for each entry, the oldest first; cb returns non-zero to stop (returned). */
BROCK_API int brock_passthrough_each(const struct brock_engine *e,
                                     int (*cb)(void *arg, const struct brock_passthrough *p),
                                     void *arg);

/* Whether host (normalised) is listed, exactly or by a pattern: 1 with the entry in *out
 * (NULL: not wanted), else 0. */
BROCK_API int brock_passthrough_find(const struct brock_engine *e, const char *host,
                                     struct brock_passthrough *out);
/* ---- brock off for a while: a pause everywhere, a site disabled until a time ---- */

/* The end of what has none: a pause until brock_resume(), a site disabled for good. */
#define BROCK_NO_END INT64_MAX

/* The longest time a duration may give (brock_duration_parse()): 7 days, in ms. */
#define BROCK_DURATION_MAX_MS ((int64_t)7 * 24 * 3600 * 1000)

/* Reads a duration as people type it: whole numbers each followed by its unit, d, h, m or s,
 * the units in that order and each once ("30s", "10m", "1h", "2h30m", "1d12h"), into *ms.
 * Returns 0, or BROCK_EINVAL with a sentence naming text and the problem in err (errlen
 * bytes; err may be NULL) for anything else, for no time at all ("0m") and for more than
 * BROCK_DURATION_MAX_MS; *ms is then unchanged. Pure. */
BROCK_API BROCK_NODISCARD int brock_duration_parse(const char *text, int64_t *ms, char *err,
                                                   size_t errlen);

/* Pauses brock everywhere until until_ms (Unix ms; BROCK_NO_END: until brock_resume()),
 * replacing an earlier pause. While it lasts every site is as a disabled one: a decision
 * passes everything (reason BROCK_WHY_DISABLED, pages of unknown sites too), no request
 * carries DNT or GPC (brock_send_signals()), and brock_site_is_disabled() is 1 everywhere.
 * It is kept in the settings: it reaches the state at brock_sync(), with it every process on
 * the state, and later opens. The engine reads no clock for it: a pause ends at
 * brock_resume(), at brock_expire() with a time past its end, or when the settings are read
 * (an open, another process's change) at a time past it; an end at or before the latest
 * time the engine knows (the open's, or brock_expire()'s) is over at once. Returns 0,
 * BROCK_EINVAL (until_ms not after 0), BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_pause(struct brock_engine *e, int64_t until_ms);

/* Ends the pause now; nothing when there is none. Returns 0 (it cannot fail). */
BROCK_API int brock_resume(struct brock_engine *e);

/* Whether brock is paused at now_ms (Unix ms): 1 with its end in *until_ms (if not NULL;
 * BROCK_NO_END when it has none), or 0, when there is no pause or its end is at or before
 * now_ms (over, whether or not brock_expire() has run since). */
BROCK_API int brock_paused(const struct brock_engine *e, int64_t now_ms, int64_t *until_ms);

/* Disables brock on site (as brock_site_set_disabled() reads it) until until_ms (Unix ms),
 * when it is on again by itself as the pause ends (brock_expire()); BROCK_NO_END disables it
 * for good, as brock_site_set_disabled(e, site, 1) does. A site already disabled, for good or
 * for a while, gets the new end. Returns 0; BROCK_EINVAL for until_ms not after 0, or what
 * brock_site_set_disabled() refuses; BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_site_disable_until(struct brock_engine *e, const char *site,
                                                       int64_t until_ms);

/* Calls cb for each disabled site pattern, in order, with when it ends: BROCK_NO_END for a
 * site disabled for good. cb returns non-zero to stop (returned). Returns 0 or the
 * callback's value. */
BROCK_API int brock_disabled_sites_until_each(const struct brock_engine *e,
                                              int (*cb)(void *arg, const char *site,
                                                        int64_t until_ms),
                                              void *arg);

/* The nearest end still to come of the pause or a site disabled for a while (Unix ms), for
 * a caller to call brock_expire() then; 0 when there is none. */
BROCK_API int64_t brock_next_end(const struct brock_engine *e);

/* Ends what is due at now_ms (Unix ms, the caller's clock): the pause and each site
 * disabled for a while whose end is at or before it, each at once in every decision. Calls
 * on_end (if not NULL) for each before it goes, with the site's pattern, or NULL for the
 * pause, and arg; on_end must not call into e. An end is not written to the state: every
 * process on it ends it at the same time, and the settings read later are read as over.
 * Returns how many ended (0: nothing was due); it cannot fail. */
BROCK_API int brock_expire(struct brock_engine *e, int64_t now_ms,
                           void (*on_end)(void *arg, const char *site), void *arg);

/* The settings as one JSON object, as the dashboard's /api/settings and `brock settings
 * --json` show them: {"learn", "send_dnt", "check_dnt", "clean_urls": bool, "learning": bool
 * (learn, and not cfg->no_learn), "page_view_days": int, "clean_urls_off": [site] (the sites
 * cleaning is off on), "disabled_sites": [site], "disabled_until":
 * [{"site", "until_ms"}] (those disabled for a while, with their ends), "paused": bool,
 * "paused_until_ms": int or null (no end), "widget_allowlist": [{"site", "widget"}]}, keys
 * sorted, into *out (free with brock_free()) and *len. The pause is as the engine last
 * knew it (see brock_expire()). Returns 0, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_settings_json(struct brock_engine *e, char **out, size_t *len);

/* Why a decision came out as it did. */
enum brock_reason {
    BROCK_WHY_INVALID = 0, /* the host is not a valid host name */
    BROCK_WHY_FIRST_PARTY, /* same site, or one owner's domains (multi-domain first party) */
    BROCK_WHY_PRIVATE,     /* localhost or a private IPv4 address: never acted on */
    BROCK_WHY_DISABLED,    /* brock is disabled on the site */
    BROCK_WHY_ACTION,      /* a third party: the resolved action applies */
    BROCK_WHY_IGNORED,     /* a site fix (sitefixes.ignore) leaves the host alone there */
    BROCK_WHY_FP_SCRIPT,   /* a script seen fingerprinting (fp_scripts) on a cookieblocked
                              host: that script alone is denied, the rest of the host loads */
    BROCK_WHY_WIDGET,      /* a widget the user let load on the page (once, or always on the
                              site): the host is left alone there (checkAction's "ignore") */
};

/* What a request fetches, in Privacy Badger's (webRequest's) words. */
enum brock_resource_type {
    BROCK_RESOURCE_OTHER = 0,  /* "other": not known */
    BROCK_RESOURCE_MAIN_FRAME, /* "main_frame": a top-level document */
    BROCK_RESOURCE_SUB_FRAME,  /* "sub_frame": a document in a frame */
    BROCK_RESOURCE_SCRIPT,     /* "script" (workers too) */
    BROCK_RESOURCE_STYLESHEET, /* "stylesheet" */
    BROCK_RESOURCE_IMAGE,      /* "image" */
    BROCK_RESOURCE_FONT,       /* "font" */
    BROCK_RESOURCE_MEDIA,      /* "media": audio, video, tracks */
    BROCK_RESOURCE_XHR,        /* "xmlhttprequest": fetch() and XMLHttpRequest */
    BROCK_RESOURCE_PING,       /* "ping": navigator.sendBeacon() and <a ping> */
    BROCK_RESOURCE_WEBSOCKET,  /* "websocket" */
    BROCK_RESOURCE_OBJECT,     /* "object": <object> and <embed> */
};
#define BROCK_RESOURCE_COUNT 12

/* "other", "main_frame", "sub_frame", "script", ... for a type; "other" for an unknown
 * value. */
BROCK_API const char *brock_resource_type_name(enum brock_resource_type t);

/* The type a name gives: one of brock_resource_type_name()'s words. Returns the type, or
 * BROCK_EINVAL for any other word (NULL too). */
BROCK_API BROCK_NODISCARD int brock_resource_type_parse(const char *word);

/* What a request fetches, from what its headers say (each NULL when absent):
 * Sec-Fetch-Dest first (document, iframe/frame, script/worker/sharedworker/serviceworker/
 * audioworklet/paintworklet, style, image, font, audio/video/track, object/embed, websocket;
 * "empty" is fetch() or XMLHttpRequest), then a text/ping Content-Type or a Ping-To header
 * (ping), an Upgrade: websocket, then Accept (text/html: main_frame; text/css: stylesheet;
 * image/ before anything else: image; a JavaScript type: script). Whatever is left is
 * BROCK_RESOURCE_OTHER. Pure. */
BROCK_API enum brock_resource_type
brock_resource_type_guess(const char *fetch_dest, const char *accept, const char *content_type,
                          const char *upgrade, const char *ping_to);

/* A request to decide: its URL (or, without one, its host), the page it was made for, and
 * what it fetches. All pointers are borrowed for the call. */
struct brock_request {
    const char *url;               /* "http(s)://host[:port]/path?query"; NULL: host alone */
    const char *host;              /* used when url is NULL */
    const char *site;              /* the first party's host or URL; NULL or "": unknown */
    enum brock_resource_type type; /* BROCK_RESOURCE_OTHER when not known */
    const char *frame_host;        /* the host of the document that made the request (its
                                      Referer's), normalised; NULL: not known */
    /* The page's temporary widget allowances (a click on "Allow once"): host patterns, exact
     * or "*."-prefixed (any name under the rest), as socialwidgets.json's unblockDomains
     * write them; n_widget_allow of them, or none. */
    const char *const *widget_allow;
    size_t n_widget_allow;
    /* Whose request it is (a proxy's client, as brock_client_page_seen() names it); NULL or
     * "": nobody's in particular. A client's own pause and sites turned off for it
     * (brock_client_pause(), brock_client_site_set_disabled()) make its decision a disabled
     * site's. */
    const char *client;
};

/* One decision. Strings are NUL-terminated copies, valid as long as the struct. */
struct brock_decision {
    char host[BROCK_HOST_MAX];    /* the request host, lower-cased and IDNA-encoded */
    char tracker[BROCK_HOST_MAX]; /* the host decided on: host, or its CNAME-uncloaked target */
    char base[BROCK_HOST_MAX];    /* base domain (eTLD+1) of tracker */
    char site[BROCK_HOST_MAX];    /* base domain of the first party; "" when unknown */
    char source[BROCK_HOST_MAX];  /* the action map entry the action came from; "" if none */
    int third_party;              /* 1 when tracker is third party to the site */
    enum brock_reason reason;
    enum brock_action action; /* the resolved action (noaction unless reason is ACTION) */
    enum brock_effect effect;
    int site_fix;    /* 1 when a site fix (sitefixes.yellowlist) set the action */
    int site_choice; /* 1 when the user's choice for this site only set the
                        action (brock_set_site_action()); source is its domain */
    int via_dns;     /* 1 when tracker is a name of the CNAME chain DNS gave for host
                        (brock_cname_chain_set()); 0 when it is host, or the static list's */
    /* A denied script (or stylesheet) that Privacy Badger has a surrogate for: the body to
     * answer with instead (a JavaScript or CSS text of surrogate_len bytes, borrowed from the
     * engine until brock_engine_reload() or brock_engine_free()), and the rule's token
     * ("/analytics.js", "noopjs"); NULL and "" otherwise. Set only by
     * brock_decide_request(), only when effect is BROCK_DENY. */
    const char *surrogate;
    size_t surrogate_len;
    char surrogate_token[128];
    enum brock_resource_type type; /* the request's type, as given */
};

/* Decides a request to host made by a page of site_host (NULL or "": unknown page, which is
 * judged third party, as Privacy Badger does). Allocates nothing; pure lookups, the answers
 * for recent (host, site) pairs kept until anything they depend on changes. Like every call
 * on an engine, not to be made from two threads on one engine at once. Returns 0, or
 * BROCK_EINVAL when host is not a host name (d->effect is then BROCK_PASS). */
BROCK_API BROCK_NODISCARD int brock_decide(struct brock_engine *e, const char *host,
                                           const char *site_host, struct brock_decision *d);

/* Decides one request as Privacy Badger's onBeforeRequest does: brock_decide() on its host and
 * site, then, with the URL and type, the two rules that look past the host: a script to one of
 * Privacy Badger's fingerprinting CDNs (FP_CDN_DOMAINS), third party and resolved to
 * cookieblock or user_cookieblock, whose path without query is in fp_scripts[host] is denied
 * alone (reason BROCK_WHY_FP_SCRIPT); and a denied third-party script or stylesheet that a
 * surrogate rule of its host matches (suffix, prefix, prefix with parameters, any; stylesheet
 * rules for stylesheets only, the others for scripts; none for a widget the user excluded
 * from replacement) carries the surrogate's body (d->surrogate). Before those, checkAction's
 * first line: a third party whose host (or r->frame_host) a widget allowance matches (r's
 * temporary ones, or the unblockDomains of a widget the site's exact host always allows, the
 * widgetSiteAllowlist setting) is left alone (reason BROCK_WHY_WIDGET, effect BROCK_PASS).
 * Without a URL only a rule
 * matching any URL can match. A first-party request never gets a surrogate. Allocates
 * nothing. Returns 0, or BROCK_EINVAL when the URL or host is not one
 * (d->effect is then BROCK_PASS). */
BROCK_API BROCK_NODISCARD int brock_decide_request(struct brock_engine *e,
                                                   const struct brock_request *r,
                                                   struct brock_decision *d);

/* ---- social widgets (Privacy Badger's socialwidgets.json, PRIVACY-BADGER.md 4) ---- */

/* Whether pattern (an unblockDomains entry: "name" matches name alone, "*.name" any name under
 * name) matches host (normalised). Pure. */
BROCK_API int brock_widget_pattern_match(const char *pattern, const char *host);

/* The widgets a page of site_host shows in their place as a placeholder: each one whose
 * domains (one of them is enough; "*.x" stands for x) resolve to block or user_block for the
 * site (brock_decide(), so never on the widget's own site or where brock is disabled), that
 * the user did not exclude (the widgetReplacementExceptions setting), did not allow on
 * site_host (widgetSiteAllowlist), and whose blocked domains are not all matched by
 * allow[0..n_allow) (the page's temporary allowances). Writes into *out a new JSON text (free
 * with brock_free()): an array of {"name", "selectors": CSS selectors (buttonSelectors),
 * "elements": [{"elm": tag, "urls": URL prefixes}] (selectors), and "chosen": the name a
 * choice of the user's is for, when one keeps the widget blocked (brock_widget_user_choice()),
 * else absent}. Returns how many, or
 * BROCK_EINVAL (site_host is not a host name), BROCK_ENOMEM; *out is NULL on failure. */
BROCK_API BROCK_NODISCARD int brock_widgets_blocked(struct brock_engine *e, const char *site_host,
                                                    const char *const *allow, size_t n_allow,
                                                    char **out);

/* Calls cb with each of the widget name's unblockDomains (exact names or "*."-prefixed), in
 * the file's order; cb returns non-zero to stop (returned). Returns 0, the callback's value,
 * or BROCK_ENOTFOUND when no widget has that name (or it allows nothing). */
BROCK_API BROCK_NODISCARD int brock_widget_unblock_each(const struct brock_engine *e,
                                                        const char *name,
                                                        int (*cb)(void *arg, const char *pattern),
                                                        void *arg);

/* Adds (allow 1) or removes the widget name from the widgetSiteAllowlist setting of site (a
 * host name, normalised here): on that site the widget is never replaced and its
 * unblockDomains load. Reaches the state at brock_sync(). Returns 0; BROCK_EINVAL for a site
 * that is not a host name; BROCK_ENOTFOUND to add a widget no list names, or to remove one
 * the site does not allow; BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_widget_site_allow(struct brock_engine *e, const char *site,
                                                      const char *name, int allow);

/* Calls cb for each (site, widget name) of the widgetSiteAllowlist setting; cb returns
 * non-zero to stop (returned). Returns 0 or the callback's value. */
BROCK_API int brock_widget_site_allowlist_each(const struct brock_engine *e,
                                               int (*cb)(void *arg, const char *site,
                                                         const char *name),
                                               void *arg);

/* A choice of the user's that keeps something of a widget's blocked. */
struct brock_user_choice {
    char domain[BROCK_HOST_MAX]; /* the name chosen for */
    enum brock_action action;    /* BROCK_USER_BLOCK or BROCK_USER_COOKIEBLOCK */
    int site_only;               /* 1: a choice for that site only (brock_set_site_action()) */
};

/* Whether a choice of the user's blocks or cookieblocks, on the pages of site_host, one of the
 * names that the widget name's unblockDomains let load: a choice for the name (or a name above
 * it that reaches it, as brock_decide() resolves them) or, for a "*."-pattern, for any name
 * under it; for every site, or for site_host's site only. An allowance of the widget would
 * override it, which only the user may do (`brock set`, the dashboard): a proxy is not to let a
 * page do it. Returns 1 with the first such choice in *out, 0 when there is none, BROCK_EINVAL
 * for a site that is not a host name, BROCK_ENOTFOUND when no widget has that name (or it
 * allows nothing). The widget lists of brock_widgets_blocked() name it as "chosen". */
BROCK_API BROCK_NODISCARD int brock_widget_user_choice(struct brock_engine *e,
                                                       const char *site_host, const char *name,
                                                       struct brock_user_choice *out);

/* Writes one English sentence explaining d into buf (always NUL-terminated). Returns the
 * length it needed, like snprintf. For an action learned by the heuristic it names the sites
 * the tracker was seen tracking on, each with the kinds of evidence seen there ("a.test:
 * cookie; b.test: pixel cookie sharing; c.test: canvas fingerprinting"; the words are
 * cookie, Set-Cookie, beacon, pixel cookie sharing, canvas fingerprinting, supercookie, and
 * "pre-trained or imported" for a site the seed or an import brought without a kind), as
 * many as fit in a few hundred bytes, then "...". A decision a CNAME chain from DNS made
 * (d->via_dns) ends "HOST is an alias of it in DNS: via CNAME TRACKER." */
BROCK_API size_t brock_decision_explain(struct brock_engine *e, const struct brock_decision *d,
                                        char *buf, size_t len);

/* A header as a (pointer, length) view; nothing needs to be NUL-terminated. */
struct brock_header {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};

enum brock_observation_flags {
    BROCK_OBS_BEACON = 1, /* a beacon or <a ping>: evidence without cookies */
};

/* Whether a request's Content-Type value ct[0..len) (borrowed) marks a hyperlink-auditing ping,
 * Privacy Badger's "ping" type: the media type text/ping in any case, alone or with parameters
 * ("text/ping; charset=utf-8": parameters never change a media type), with optional whitespace
 * around it; "text/pings", "text/ping-x" and "text/plain" are not. Returns 1 or 0. */
BROCK_API int brock_is_beacon_type(const char *ct, size_t len);

/* What a request fetches, from its method and its headers as sent (h[0..n), borrowed; names
 * compared case-insensitively, the first of each name read): brock_resource_type_guess() on
 * its Sec-Fetch-Dest, Accept, Content-Type, Upgrade and Ping-To, except that a POST whose
 * fetch metadata says Sec-Fetch-Dest: empty and Sec-Fetch-Mode: no-cors is a ping. That is
 * what navigator.sendBeacon() sends with a text or form body, Privacy Badger's "beacon"
 * type, which no other header tells from a fetch() (one made with mode "no-cors" looks the
 * same, and counts the same). method may be NULL (not a POST). The proxy and the learning
 * from a recording read a request's type through this one rule. Pure. */
BROCK_API enum brock_resource_type brock_request_type(const char *method,
                                                      const struct brock_header *h, size_t n);

/* One third-party exchange seen on the wire: the request's headers, or the response's. Only
 * Cookie, Set-Cookie and User-Agent headers are read. All pointers are borrowed for the call.
 * The fields after time_ms are for pixel cookie sharing (brock_observe()); a caller that
 * zero-initialises the struct and leaves them alone gets the cookie rules alone. Give them
 * with the request's headers, once an exchange. */
struct brock_observation {
    const char *host; /* the request host */
    const char *site; /* first-party host or URL; NULL: unknown, not learned */
    const struct brock_header *headers;
    size_t n_headers;
    unsigned flags;                /* BROCK_OBS_* */
    int64_t time_ms;               /* when it happened, Unix milliseconds */
    const char *url;               /* the request's URL, "http(s)://host/path?query";
                                      NULL: not known */
    enum brock_resource_type type; /* what it fetches; BROCK_RESOURCE_OTHER: not known */
    const char *site_url;          /* the top-level page's URL (Privacy Badger's tab URL);
                                      NULL: not known, then site when it is a URL, else
                                      "https://" site "/" stands for it */
    const char *site_cookies;      /* the first party's cookies that its pages' scripts
                                      can read (not HttpOnly), as a Cookie header value
                                      "a=1; b=2"; NULL: none known */
};

/* The first parties' cookies that their pages' scripts can read, for site_cookies above: per
 * client (any string, an address for a proxy) and site (the page's base domain), the cookies
 * its first-party requests sent and its first-party responses set, each HttpOnly one marked
 * unreadable. Pure; memory is bounded: BROCK_SC_SITES sites (least recently used first out),
 * and per site BROCK_SC_COOKIES cookies and BROCK_SC_BYTES bytes of names and values (oldest
 * first out). BROCK_SC_TEXT_MAX bytes hold all of a site's cookies as one Cookie value. */
#define BROCK_SC_SITES 256
#define BROCK_SC_COOKIES 64
#define BROCK_SC_BYTES 8192
#define BROCK_SC_TEXT_MAX (BROCK_SC_BYTES + 3 * BROCK_SC_COOKIES + 1) /* "; " and '=' each */

struct brock_site_cookies;

/* A new, empty memory of first parties' cookies, or NULL when out of memory. Free with
 * brock_site_cookies_free() (NULL is a no-op). */
BROCK_API struct brock_site_cookies *brock_site_cookies_new(void);
BROCK_API void brock_site_cookies_free(struct brock_site_cookies *m);

/* A first-party request of client on site sent this Cookie header value (len bytes,
 * borrowed): each name=value pair is remembered, a later value replacing an earlier one of
 * the same name; a name a response set HttpOnly stays so (a Cookie header does not say). Out
 * of memory only loses what would have been remembered. */
BROCK_API void brock_site_cookies_request(struct brock_site_cookies *m, const char *client,
                                          const char *site, const char *value, size_t len);

/* A first-party response to client on site set this Set-Cookie header value (len bytes),
 * at now_s (Unix seconds, to read Expires): the cookie is remembered with whether it is
 * HttpOnly, replacing one of the same name; a Max-Age of 0 or less, or an Expires not after
 * now_s (Max-Age wins when both are there), removes it. */
BROCK_API void brock_site_cookies_response(struct brock_site_cookies *m, const char *client,
                                           const char *site, const char *value, size_t len,
                                           int64_t now_s);

/* The cookies of site remembered for client that scripts can read (not HttpOnly), as a
 * Cookie header value "a=1; b=2" in the order first seen, into out (size bytes, always
 * NUL-terminated; cookies that do not fit are left out). Returns the length, 0 when there
 * are none. */
BROCK_API size_t brock_site_cookies_get(struct brock_site_cookies *m, const char *client,
                                        const char *site, char *out, size_t size);

/* What an observation taught. */
struct brock_learned {
    int recorded;                 /* a new site was added to the tracker's sites */
    int blocked;                  /* and the tracker crossed the threshold just now */
    char tracker[BROCK_HOST_MAX]; /* the tracker's base domain, when recorded */
};

/* Learns from one exchange (Privacy Badger's checkForTrackingCookies): identifying cookies
 * on a third-party exchange are evidence of tracking on that site; three sites block the
 * tracker. Does nothing while learning is off. learned may be NULL. Returns 0, or
 * BROCK_ENOMEM. Changes reach the state at the next brock_sync().
 *
 * Without such cookies, an image (type BROCK_RESOURCE_IMAGE) whose url has a query is
 * checked for pixel cookie sharing (checkForPixelCookieSharing), past the same checks (a
 * third party, a site known, not yet recorded there, not yet decided): a query parameter
 * value and a site_cookies value, each 8 UTF-16 units or more, with a common substring
 * (brock_common_substrings()) that, once it is not part of the page's URL or the
 * User-Agent, and the page's URL and Privacy Badger's low-entropy words are cut out of it,
 * is still 8 units long and carries more than 33 bits (brock_max_entropy()). That is
 * evidence of kind BROCK_EVIDENCE_PIXEL (with the cookie's and the parameter's names) and
 * "pixelcookieshare" in the tracking map. Parameters are read as URLSearchParams reads them.
 * A check stops, finding nothing, past 2^24 cells of the substring tables (an image URL and
 * a page's cookies of a few kilobytes each). */
BROCK_API BROCK_NODISCARD int brock_observe(struct brock_engine *e,
                                            const struct brock_observation *o,
                                            struct brock_learned *learned);

/* One exchange as learning takes it, the same for the proxy and for a recording
 * (brock_learn_har()), so that both learn alike from the same request and answer: the request
 * as decided, and whose page it was made for. All pointers are borrowed for each call. */
struct brock_exchange {
    const struct brock_request *request;   /* its URL (or host), page (site) and type */
    const struct brock_decision *decision; /* brock_decide_request()'s for request */
    int page_known;                        /* request->site is the page the client showed, as
                                              its navigations vouch; 0: a guess (decided on,
                                              never evidence) */
    struct brock_site_cookies *sc;         /* the first parties' cookies; NULL: none kept */
    const char *client;                    /* whose cookies in sc: an address; "" for one */
    int64_t time_ms;                       /* when it happened, Unix milliseconds */
};

enum brock_exchange_flags {
    BROCK_EXCHANGE_EVIDENCE = 1,     /* what it carries is evidence of tracking on its page */
    BROCK_EXCHANGE_SITE_COOKIES = 2, /* its cookies are its page's own (pixel cookie sharing) */
};

/* What learning takes from exchange x, as BROCK_EXCHANGE_* flags. Evidence, while learning
 * is on: a third party on a known page that the request was let through to, whatever the
 * site is (brock disabled there, a site fix's ignore: Privacy Badger's learning never asks
 * its checkAction), but not a request brock denies (it never leaves, as Privacy Badger's
 * cancelled requests are never seen), a widget the user let load (left alone), a private
 * address or a first party. The page's own cookies: a request of the page to its own site
 * (its base domain, not another of one owner's), the page known or guessed, while learning
 * is on. Pure. */
BROCK_API unsigned brock_exchange_flags(const struct brock_engine *e,
                                        const struct brock_exchange *x);

/* Learns from the request of exchange x, with flags from brock_exchange_flags() and its
 * headers as sent (h[0..n)): with SITE_COOKIES its Cookie headers are kept as the page's
 * own (brock_site_cookies_request()); with EVIDENCE it is observed (brock_observe()): its
 * cookies, its being a ping (type BROCK_RESOURCE_PING), or an image sharing the page's own
 * cookies in its URL, the page's URL being its Referer when that names the page's host.
 * learned may be NULL. Returns 0 or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_exchange_request(struct brock_engine *e,
                                                     const struct brock_exchange *x, unsigned flags,
                                                     const struct brock_header *h, size_t n,
                                                     struct brock_learned *learned);

/* Learns from the answer to the request of x, headers h[0..n): with EVIDENCE its Set-Cookie
 * headers are observed, with SITE_COOKIES they are kept as the page's own (an HttpOnly one
 * marked, an expired one removed, as of x->time_ms). learned may be NULL. Returns 0 or
 * BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_exchange_response(struct brock_engine *e,
                                                      const struct brock_exchange *x,
                                                      unsigned flags, const struct brock_header *h,
                                                      size_t n, struct brock_learned *learned);

/* What a script brock runs inside pages saw (PRIVACY-BADGER.md 3.5, 3.6). */
enum brock_page_signal_kind {
    BROCK_PAGE_CANVAS = 1,  /* a script wrote text to a canvas, then read more than 16x16
                               pixels of it back (fillText/strokeText, then getImageData or
                               toDataURL): canvas fingerprinting */
    BROCK_PAGE_SUPERCOOKIE, /* a frame's localStorage items */
};

/* "canvas", "supercookie"; NULL for another value. */
BROCK_API const char *brock_page_signal_name(enum brock_page_signal_kind k);

/* The kind named name (as brock_page_signal_name() gives it) into *out. Returns 0, or
 * BROCK_EINVAL for another name. */
BROCK_API BROCK_NODISCARD int brock_page_signal_parse(const char *name,
                                                      enum brock_page_signal_kind *out);

/* One report from inside a page. All pointers are borrowed for the call. */
struct brock_page_signal {
    enum brock_page_signal_kind kind;
    const char *site;                 /* the top-level page's URL or host */
    const char *url;                  /* CANVAS: the script's URL; SUPERCOOKIE: the frame's
                                         document URL */
    const struct brock_header *items; /* SUPERCOOKIE: the frame's localStorage, name = key */
    size_t n_items;
    int64_t time_ms; /* when, Unix milliseconds */
};

/* Learns from what a page's script saw, as Privacy Badger does with its content scripts.
 * A CANVAS report is fingerprinting by the script's host: updateTrackerPrevalence(script
 * host, its base, the site's base), the site marked "canvas" in the tracking map, and the
 * script's path (without query) added to fp_scripts[script host]. A SUPERCOOKIE report counts
 * when estimateMaxEntropy(key + value) (brock_max_entropy()) summed over the items passes 33
 * bits: updateTrackerPrevalence(frame host, its base, the site's base), nothing in the
 * tracking map. Either is evidence on the tracker's site (BROCK_EVIDENCE_CANVAS,
 * BROCK_EVIDENCE_SUPERCOOKIE) toward the three sites, like cookies. Nothing is learned when
 * learning is off, the site is disabled, the URL names no host (data:, blob:), the host
 * (CNAME-uncloaked) is private or not a third party to the site, or its action is already
 * more than allow. The caller vouches that the report came from its own script in a page of
 * that site, and (for canvas) that the script's host was seen as a third party there.
 * learned may be NULL. Returns 0, BROCK_EINVAL (s, its kind, url or site missing), or
 * BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_observe_page(struct brock_engine *e,
                                                 const struct brock_page_signal *s,
                                                 struct brock_learned *learned);

/* The trackers known from live learning alone (no site of their evidence from the seed or an
 * import) that an engine keeps by default, and the most it may be told to keep. */
#define BROCK_MAX_LEARNED_DEFAULT 100000
#define BROCK_MAX_LEARNED_MAX 10000000

/* Keeps at most max (1 to BROCK_MAX_LEARNED_MAX) trackers known from live learning alone:
 * past it, learning forgets the least recently touched (given evidence) first, those it has
 * not blocked before those it has, with what learning made of them (their sites, their
 * tracking kinds, their action entries). Never forgotten: the trackers of the seed or of an
 * import, an action entry holding a user's choice or a DNT record, the choices for one site
 * only, a block learning did not make. An engine opens with BROCK_MAX_LEARNED_DEFAULT and
 * holds to its cap from its next learning or brock_sync() on; this call applies it at once.
 * Returns how many were forgotten now, BROCK_EINVAL (max out of range), or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_learned_limit(struct brock_engine *e, size_t max);

/* How the cap on learned trackers fares. */
struct brock_learned_status {
    size_t trackers;    /* known from live learning alone, held now */
    size_t max;         /* the cap (brock_learned_limit()) */
    uint64_t forgotten; /* forgotten to stay within it since the engine opened: once it is
                           not 0, the cap was reached */
};

/* Fills st for e. */
BROCK_API void brock_learned_status(const struct brock_engine *e, struct brock_learned_status *st);

/* Sets the user's choice for exactly domain: BROCK_USER_ALLOW, BROCK_USER_BLOCK or
 * BROCK_USER_COOKIEBLOCK; BROCK_NOACTION reverts to what was learned. Returns 0,
 * BROCK_EINVAL for a bad domain or action, BROCK_ENOMEM. Reaches the state at brock_sync(). */
BROCK_API BROCK_NODISCARD int brock_set_user_action(struct brock_engine *e, const char *domain,
                                                    enum brock_action a);

/* Sets the user's choice for exactly domain on one site only: on the pages of site (a host
 * name; its base domain, eTLD+1, is what is kept) requests to domain and the names under it get
 * a (BROCK_USER_ALLOW, BROCK_USER_BLOCK or BROCK_USER_COOKIEBLOCK), above the choice made for
 * every site and everything learned; the most specific name with a choice for the site wins.
 * BROCK_NOACTION removes the choice (as brock_reset_site_action()). Everywhere else nothing
 * changes. In force for the next decision. Returns 0, BROCK_EINVAL for a bad domain, site or
 * action, a site without a base domain (a public suffix, an address) or a domain that is
 * first party on the site, BROCK_ENOMEM. Reaches the state at brock_sync(). */
BROCK_API BROCK_NODISCARD int brock_set_site_action(struct brock_engine *e, const char *site,
                                                    const char *domain, enum brock_action a);

/* Removes the user's choice for exactly domain on site (its base domain), if there is one: the
 * choice for every site, or what was learned, applies there again. Returns 0, BROCK_EINVAL for
 * a bad domain or site, BROCK_ENOMEM. Reaches the state at brock_sync(). */
BROCK_API BROCK_NODISCARD int brock_reset_site_action(struct brock_engine *e, const char *site,
                                                      const char *domain);

/* One choice for one site only. */
struct brock_site_action {
    char site[BROCK_HOST_MAX];   /* the first party's base domain */
    char domain[BROCK_HOST_MAX]; /* the name chosen for, normalised */
    enum brock_action action;    /* BROCK_USER_ALLOW, BROCK_USER_BLOCK or
                                    BROCK_USER_COOKIEBLOCK */
};

/* The user's choices for one site only, sorted by site then domain, in a new array *out of *n
 * (free with brock_free(); not NULL on success, even for none): those of site's base domain
 * (site a host name), or every site's when site is NULL or "". Returns the count,
 * BROCK_EINVAL for a bad site, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_site_actions(struct brock_engine *e, const char *site,
                                                 struct brock_site_action **out, size_t *n);

/* Writes what changed in memory to the state in one transaction, and picks up changes that
 * other processes made (a `brock set` while a proxy runs). Returns the number of entries
 * picked up, or BROCK_ESTORE. When the write fails (a full disk) the state keeps its last
 * commit and memory keeps every change, to be written by a later call. A state that cannot be
 * written keeps changes in memory with cfg->readonly_ok, else fails. Memory-only engines
 * return 0. First it checks the database file: deleted since the last call, a new one is made
 * (mode 0600) and everything memory holds is written to it; replaced by another file (a backup
 * copied or moved over it), that file is reloaded, its user choices and settings kept, and
 * what memory learned that it lacks is added. brock_store_status() tells of both. */
BROCK_API BROCK_NODISCARD int brock_sync(struct brock_engine *e);

/* Where the engine keeps its state, as brock_store_status() reports it. */
enum brock_store_kind {
    BROCK_STORE_FILE = 0, /* a database that brock_sync() writes */
    BROCK_STORE_READONLY, /* a database or folder that cannot be written, or an engine opened
                             with cfg->read_only: changes stay in memory */
    BROCK_STORE_MEMORY,   /* no state folder: memory only */
};

/* How writing the state fares. The strings are the engine's, valid until the next
 * brock_sync() or brock_engine_free(). */
struct brock_store_status {
    enum brock_store_kind kind;
    const char *path;       /* the database's name; "" for memory only */
    const char *why;        /* BROCK_STORE_READONLY: why, a sentence; else "" */
    int64_t last_write_ms;  /* Unix ms of the last successful write since the open; 0: none */
    int failing;            /* 1 when the last brock_sync() failed: memory keeps the changes,
                               and the next call tries again */
    const char *last_error; /* the last failure's sentence since the open; "" if none */
    int64_t last_error_ms;  /* and when (Unix ms); 0: none */
    unsigned recreated;     /* times the database was found deleted and written anew, whole */
    unsigned reloaded;      /* times it was found replaced by another file, and reloaded */
    const char *event;      /* a sentence on the last of those two; "" if none */
    int64_t event_ms;       /* and when (Unix ms); 0: none */
    const char *backend;    /* "sqlite", "postgresql", or "" (memory only) */
    int connected;          /* the database answers (SQLite: always 1) */
    int64_t since_ms;       /* when connected last changed, or the store's thread started
                               (Unix ms); 0: no store thread */
    uint64_t pending;       /* changes not written yet: rows handed to the store's thread
                               and entries still marked in memory */
    uint64_t refused;       /* changes a database server refused for good (a value it cannot
                               keep: PostgreSQL's SQLSTATE classes 22, 23, 54) and that were
                               left out, the rest of their batch written; last_error says
                               the first of the last such batch */
};

/* Fills *st with how writing e's state fares (a log line for each new event, the
 * dashboard's status). Cannot fail. */
BROCK_API void brock_store_status(const struct brock_engine *e, struct brock_store_status *st);

/* Waits up to timeout_ms for every change brock_sync() handed to a store thread
 * (cfg->store_thread) to be written, handing it the ones still in memory as it goes; for a
 * clean stop. Returns 0 when all of it is written (at once without a store thread), or
 * BROCK_ESTORE with brock_engine_errmsg() saying how much was not and why. */
BROCK_API BROCK_NODISCARD int brock_store_wait(struct brock_engine *e, int timeout_ms);

/* Takes the check of fqdn's EFF DNT policy if it is due at now_ms (Unix milliseconds): never
 * before the time the last check set, and never while policy checking is off. When due, the
 * next check is set to a uniformly random time 1 to 7 days later (rand: 32 random bits; it
 * reaches the state at brock_sync()), so that asking again says no, and 1 is returned;
 * otherwise 0; BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_dnt_take_due(struct brock_engine *e, const char *fqdn,
                                                 int64_t now_ms, uint32_t rand);

/* Whether body (len bytes, a leading UTF-8 byte order mark ignored) is an accepted DNT
 * policy: its SHA-1 is one of the known policies' hashes. 1 or 0. */
BROCK_API int brock_dnt_policy_accepted(struct brock_engine *e, const void *body, size_t len);

/* Records the outcome of a policy check for exactly fqdn: a compliant name resolves to dnt
 * and passes untouched. Returns 0, BROCK_EINVAL for a bad name, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_dnt_record(struct brock_engine *e, const char *fqdn,
                                               int compliant);

/* What applying a Privacy Badger configuration changed. */
struct brock_update_stats {
    size_t yellow;       /* domains on the cookieblock list now */
    size_t added;        /* of them, new */
    size_t removed;      /* domains taken off the list */
    size_t hashes_added; /* accepted DNT policies not known before */
    size_t site_fixes;   /* site fix entries now in force */
};

/* Applies Privacy Badger's configuration (pbconfig.json: the cookieblock list, the hashes of
 * accepted DNT policies, the site fixes; len bytes of JSON) as its ingestPbconfig does. The
 * whole text is validated first: on any problem nothing changes and BROCK_EFORMAT is
 * returned, errmsg naming name and the fault. Then domains added to the cookieblock list
 * and removed from it are applied to what was learned, hashes are added (never removed),
 * and the site fixes replaced. The text is kept in the state (at brock_sync()) and used at
 * every later open over the data folder's lists. now_ms (Unix ms) is recorded as the time
 * of the update. stats may be NULL. Returns 0, BROCK_EFORMAT or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_update_apply(struct brock_engine *e, const char *name,
                                                 const char *text, size_t len, int64_t now_ms,
                                                 struct brock_update_stats *stats);

/* When brock_update_apply() last succeeded on this state (Unix ms), or 0 if never. */
BROCK_API int64_t brock_update_time(const struct brock_engine *e);

/* Reads Privacy Badger's data again from the folder e was opened on (the folder opened then,
 * so that it still works after a process gave up the rights to open it): the cookieblock
 * list, the DNT policy hashes, the multi-domain first parties, the CNAME and widget lists, the
 * surrogates and the site fixes. Surrogate bodies of earlier decisions are freed. Every file is read and checked before anything changes: when one is missing
 * or malformed nothing changes and errmsg names the file and the fault. A cookieblock list
 * that differs from the one in force is applied to what was learned as brock_update_apply()
 * applies one, and recorded at brock_sync(); hashes are only ever added. While a
 * configuration applied by brock_update_apply() is in force, its cookieblock list and site
 * fixes stay, as at open. stats (may be NULL) says what changed. Returns 0; BROCK_EINVAL when
 * e was opened without a data folder; BROCK_EIO, BROCK_ENOENT, BROCK_EFORMAT; BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_engine_reload(struct brock_engine *e,
                                                  struct brock_update_stats *stats);

/* The kinds of evidence behind a tracker's site. */
enum brock_evidence_kind {
    BROCK_EVIDENCE_IMPORTED = 0, /* from the seed or an import: the kind was not recorded */
    BROCK_EVIDENCE_COOKIE,       /* an identifying Cookie on a request */
    BROCK_EVIDENCE_SET_COOKIE,   /* an identifying Set-Cookie on a response */
    BROCK_EVIDENCE_BEACON,       /* a beacon or ping */
    BROCK_EVIDENCE_PIXEL,        /* a first-party cookie's value in an image's URL */
    BROCK_EVIDENCE_CANVAS,       /* canvas fingerprinting by a script (brock_observe_page()) */
    BROCK_EVIDENCE_SUPERCOOKIE,  /* a frame's localStorage supercookie (brock_observe_page()) */
    BROCK_EVIDENCE_LINK,         /* a site's cookie value in a link to another site's page,
                                    which received the identifier (brock_navigation_observe()) */
};

/* "imported", "cookie", "set-cookie", "beacon", "pixelcookieshare", "canvas",
 * "supercookie" or "linkdecoration". */
BROCK_API const char *brock_evidence_kind_name(enum brock_evidence_kind k);

/* Why a tracker is a tracker on one site. Strings borrowed from the engine. */
struct brock_evidence {
    const char *site;   /* the site's base domain */
    const char *host;   /* the request host seen tracking there; "" if not recorded */
    const char *detail; /* the name of the identifying cookie; "" if none */
    enum brock_evidence_kind kind;
    int64_t time_ms;   /* when first seen; 0 if not recorded */
    const char *param; /* BROCK_EVIDENCE_PIXEL and _LINK: the URL parameter that carried
                          the cookie's value; "" otherwise */
};

/* One domain with an action, as brock_trackers_each() reports it. All pointers are borrowed
 * from the engine and valid only during the callback. */
struct brock_tracker {
    const char *domain;
    const char *base;
    enum brock_action action;    /* resolved (getBestAction) */
    enum brock_action heuristic; /* what was learned for exactly this name */
    enum brock_action user;      /* the user's choice for exactly this name, or noaction */
    int dnt;                     /* the name posts the DNT policy */
    int cookieblock_listed;      /* blocking it would turn into cookieblock */
    const struct brock_evidence *evidence; /* the base's sites, in the order seen */
    size_t n_evidence;
};

enum brock_trackers_flags {
    BROCK_TRACKERS_ALL = 1, /* include names whose resolved action is noaction */
};

/* Calls cb for each domain in the action map whose resolved action is not noaction (unless
 * BROCK_TRACKERS_ALL), in Privacy Badger's display order. With site (a host or base) only
 * trackers seen on that site. cb returns 0 to go on, anything else to stop and have that
 * returned. Returns 0, the callback's value, or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int
brock_trackers_each(struct brock_engine *e, const char *site, unsigned flags,
                    int (*cb)(void *arg, const struct brock_tracker *t), void *arg);

/* Whether t's base was seen tracking here, rather than known only from the seed or an import
 * (all its evidence BROCK_EVIDENCE_IMPORTED): what `--learned-only` keeps. */
BROCK_API int brock_tracker_learned(const struct brock_tracker *t);

/* Calls cb once for domain (a host name) with what brock_trackers_each() would report for it,
 * whether or not the action map has an entry for exactly that name (heuristic and user are
 * then noaction). Returns 0, the callback's value, BROCK_EINVAL for a bad name, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_tracker_get(struct brock_engine *e, const char *domain,
                                                int (*cb)(void *arg, const struct brock_tracker *t),
                                                void *arg);

/* Recent page views, as Privacy Badger's popup keeps them per tab: for each site (the first
 * party's base domain) the third-party hosts its pages requested, kept for the 500 newest
 * sites and 300 newest hosts each. Written to the state at brock_sync(). */

/* Records that a page of site (a host or URL) requested host (a third party), which was
 * given action, at time_ms (Unix ms). Returns 0, BROCK_EINVAL for a bad site or host,
 * BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_page_seen(struct brock_engine *e, const char *site,
                                              const char *host, enum brock_action action,
                                              int64_t time_ms);

/* One recent site. Pointers are borrowed, valid only during the callback. */
struct brock_site {
    const char *site;     /* the site's base domain */
    int64_t time_ms;      /* when a request of its pages was last seen */
    size_t trackers;      /* third-party hosts seen there */
    size_t blocked;       /* of them, those whose last request there brock blocked */
    size_t cookieblocked; /* of them, those whose last request there lost its cookies */
    int disabled;         /* brock is disabled on the site (nothing is recorded there) */
};

/* Calls cb for each recent site, newest first; cb returns non-zero to stop (returned).
 * Returns 0, the callback's value, or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int
brock_sites(struct brock_engine *e, int (*cb)(void *arg, const struct brock_site *s), void *arg);

/* One third-party host seen on a site. Pointers borrowed, valid during the callback. */
struct brock_site_tracker {
    const char *host;
    const char *base;            /* host's base domain */
    enum brock_action action;    /* resolved now (getBestAction) */
    enum brock_action seen;      /* the action its last request was given */
    enum brock_action user;      /* the user's choice for exactly host, or noaction */
    enum brock_action on_site;   /* resolved now on this site: a choice for the site only (for
                                    host or a name above it) if there is one, else action */
    enum brock_action site_user; /* the user's choice for exactly host on this site only
                                    (brock_set_site_action()), or noaction */
    int cookieblock_listed;      /* blocking it would turn into cookieblock */
    int breakage;                /* user_block on a host that would be cookieblocked (on_site) */
    uint64_t count;              /* requests seen */
    int64_t time_ms;             /* the last one, Unix ms */
};

/* Calls cb for each host seen on site (a host or base domain), sorted as brock_trackers_each()
 * sorts (Privacy Badger's makeSortable). Returns 0, the callback's value, BROCK_EINVAL for
 * a bad site, BROCK_ENOTFOUND when site has no recent page views, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int
brock_site_trackers(struct brock_engine *e, const char *site,
                    int (*cb)(void *arg, const struct brock_site_tracker *t), void *arg);

/* How long recent page views are kept: the page-view-days setting, in days (0: none are
 * recorded). Older views are forgotten when the engine opens and, in brock_sync(), once a
 * minute or when the setting changed. */
#define BROCK_PAGE_VIEW_DAYS 7
#define BROCK_PAGE_VIEW_DAYS_MAX 3650
BROCK_API int brock_page_view_days(const struct brock_engine *e);

/* Sets page-view-days; reaches the state at brock_sync(). Returns 0, BROCK_EINVAL for days
 * outside 0 to BROCK_PAGE_VIEW_DAYS_MAX, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_page_view_days_set(struct brock_engine *e, long days);

/* Forgets the recent page views last seen before before_ms (Unix ms; INT64_MAX: all), in
 * memory and, at brock_sync(), in the state; other processes on the state pick it up at their
 * next brock_sync(). The snitch map, what learning uses, stays. Returns how many sites lost
 * views, or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_pages_forget(struct brock_engine *e, int64_t before_ms);

/* Calls cb with each recent site (base domain) whose pages requested exactly host, newest
 * first. Returns 0, the callback's value, or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int
brock_host_sites(struct brock_engine *e, const char *host,
                 int (*cb)(void *arg, const char *site, int64_t time_ms), void *arg);

/* Daily counters, per day (UTC): the requests the proxy blocked, cookieblocked and allowed,
 * the trackers learned (a base domain's heuristic action first turning to block, or to
 * cookieblock for one on the cookieblock list), and the sites visited (base domains
 * whose top-level pages were opened). Kept with the page views' retention (page-view-days; 0: nothing is counted) and
 * written to the state at brock_sync(), added to what other processes wrote. */

/* Counts a request decided as d says (its effect, on its first party d->site) at time_ms
 * (Unix ms). Returns 0 or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_daily_count(struct brock_engine *e,
                                                const struct brock_decision *d, int64_t time_ms);

/* One day's counts. */
struct brock_day {
    char day[11];           /* "YYYY-MM-DD", UTC */
    int64_t time_ms;        /* the day's first millisecond, Unix ms */
    uint64_t blocked;       /* requests blocked */
    uint64_t cookieblocked; /* requests that lost their cookies */
    uint64_t allowed;       /* requests passed as they were (first-party ones too) */
    uint64_t learned;       /* trackers learned */
    uint64_t sites;         /* distinct sites (base domains) a top-level page was opened on */
    uint64_t cleaned;       /* URLs with tracking parameters taken out (brock_clean_count()) */
};

#define BROCK_DAILY_DAYS_MAX 3650

/* Calls cb for each of the days days (1 to BROCK_DAILY_DAYS_MAX) ending with now_ms's day,
 * oldest first, days without counts too; cb returns non-zero to stop (returned). Returns 0,
 * the callback's value, BROCK_EINVAL for days out of range, or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_daily_each(struct brock_engine *e, int days, int64_t now_ms,
                                               int (*cb)(void *arg, const struct brock_day *d),
                                               void *arg);

/* The same as one JSON array, as the dashboard's /api/stats and `brock stats --json` show
 * it: [{"day", "time_ms", "blocked", "cookieblocked", "allowed", "learned", "sites",
 * "cleaned"}],
 * oldest first, into *out (free with brock_free()) and *len. Returns 0, BROCK_EINVAL for
 * days out of range, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_daily_json(struct brock_engine *e, int days, int64_t now_ms,
                                               char **out, size_t *len);

/* ---- tracking parameters taken out of URLs (ClearURLs' rules) ---- */

/* The longest URL brock_clean_url() takes, with its NUL. */
#define BROCK_URL_MAX 8192

/* Replaces the rules in force, for this engine's life, with ClearURLs' data.min.json in json
 * (len bytes): {"providers": {NAME: {"urlPattern", "completeProvider", "rules",
 * "referralMarketing", "rawRules", "exceptions", "redirections"}}}, every expression compiled
 * (PCRE2, caseless). Returns 0, BROCK_EFORMAT naming what is wrong (the provider and the
 * expression), with the rules in force left as they were, or BROCK_ENOMEM. The rules in force
 * otherwise: the last brock_clearurls_update()'s, else brock_config.clearurls, else none. */
BROCK_API BROCK_NODISCARD int brock_clearurls_load(struct brock_engine *e, const char *json,
                                                   size_t len);

/* As brock_clearurls_load(), and the text is kept in the state (at brock_sync()) with
 * time_ms, when it was fetched: later opens clean by it rather than by
 * brock_config.clearurls (`brock update`). A text that does not load changes nothing. */
BROCK_API BROCK_NODISCARD int brock_clearurls_update(struct brock_engine *e, const char *json,
                                                     size_t len, int64_t time_ms);

/* How many providers the rules in force have (0: none), compiling them if they are not yet;
 * *time_ms (if not NULL) is when brock_clearurls_update() took them, 0 for rules that did
 * not come from one. */
BROCK_API size_t brock_clearurls_providers(struct brock_engine *e, int64_t *time_ms);

enum brock_clean_result {
    BROCK_CLEAN_NONE = 0, /* nothing to take out */
    BROCK_CLEAN_STRIPPED, /* parameters (or rawRules' parts) taken out */
    BROCK_CLEAN_REDIRECT, /* a wrapper around another address, which is what out holds (the
                             address cleaned in turn) */
    BROCK_CLEAN_BLOCK,    /* a provider whose whole host only tracks (completeProvider); out
                             holds the URL as it was */
};

/* What brock_clean_url() did. */
struct brock_clean {
    enum brock_clean_result result;
    char provider[64]; /* the provider that last changed the URL */
    char removed[256]; /* the names of the parameters taken out, comma-separated (as many as
                           fit), as written in the URL */
    size_t n_removed;  /* how many parameters went */
};

/* url (an http or https URL) with ClearURLs' rules applied, into out (size bytes): for each
 * provider whose urlPattern matches and none of whose exceptions does, a redirection's address
 * (percent-decoded) replaces the URL, then rawRules are cut out and the query's and the
 * fragment's parameters that rules and referralMarketing name are taken out, the others kept
 * byte for byte; the URL so changed is looked at again, a few times at most. Returns the
 * result (also in info); BROCK_EINVAL for what is not an http(s) URL or one past
 * BROCK_URL_MAX or size. */
BROCK_API BROCK_NODISCARD int brock_clean_url(struct brock_engine *e, const char *url, char *out,
                                              size_t size, struct brock_clean *info);

/* What the proxy does to a request's URL (r->url; r->site the page's site, NULL when
 * unknown; r->client whose request it is; r->type; r->frame_host the page it was made from):
 * brock_clean_url(), then, for a navigation (BROCK_RESOURCE_MAIN_FRAME) from another site's
 * page (frame_host of another base domain), the parameters learned as link decoration that
 * the user does not keep (brock_navigation_observe(); provider "learned"), unless cleaning is off
 * (BROCK_SETTING_CLEAN_URLS), off on r->site (brock_clean_site_set()), or brock is off for the
 * request (paused, the site disabled, the client's own switches), when the URL is left as it
 * is (BROCK_CLEAN_NONE, out a copy). Returns as brock_clean_url() does. */
BROCK_API BROCK_NODISCARD int brock_request_clean(struct brock_engine *e,
                                                  const struct brock_request *r, char *out,
                                                  size_t size, struct brock_clean *info);

/* Turns cleaning off on a site (a host name, or a URL with one; "*." before it is dropped),
 * and its subdomains, or on again (off 0). Reaches the state at brock_sync(). Returns 0,
 * BROCK_EINVAL (not a site, or a public suffix), BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_clean_site_set(struct brock_engine *e, const char *site,
                                                   int off);

/* Whether cleaning is off on site_host: it, or a site it is under, was turned off. */
BROCK_API int brock_clean_site_off(const struct brock_engine *e, const char *site_host);

/* Calls cb for each site cleaning is off on, in the order they were turned off; cb returns
 * non-zero to stop (returned). Returns 0 or the callback's value. */
BROCK_API int brock_clean_sites_each(const struct brock_engine *e,
                                     int (*cb)(void *arg, const char *site), void *arg);

/* ---- CNAME chains from DNS ---- */

/* The longest chain kept for a host. */
#define BROCK_CNAME_CHAIN_MAX 8

/* Tells e the CNAME chain DNS answered for host: names[0] is the name host is an alias of,
 * names[1] the one names[0] is, and so on (n of them, at most BROCK_CNAME_CHAIN_MAX; 0: host
 * is no alias, and what e knew for it is forgotten). The last chain told for a host stays
 * until another replaces it, whatever its TTL: the caller asks DNS again when the answer
 * expires and tells what it got. e keeps the chains of the last 8,192 hosts, in memory only.
 * Decisions for host then judge the chain's names too (PRIVACY-BADGER.md 1.6, with live DNS
 * in place of the static list): unless uncloaking is off (BROCK_SETTING_UNCLOAK), host is
 * the page's own host, the user chose an action for host, or brock leaves host alone there
 * (paused, disabled, private, a site fix's ignore), each name of the chain in turn is decided
 * on the page as if requested, skipping a name of host's own base domain; a name that is on
 * the cookieblock list, allowed by the user (user_allow), or turned off for uncloaking
 * (brock_cname_target_set()) ends the walk, it and the names after it not judged, so that a
 * CDN everybody aliases to never makes a site's hosts trackers. The strongest of those
 * decisions (the later name on a tie) replaces host's own unless host's is stronger or is by
 * an action of host's own; then d->tracker is that name and d->via_dns 1. Learning
 * (brock_observe()) goes by the static list alone: a site's own DNS can alias its hosts to
 * any name, and evidence read through it would let the site's pages have brock learn against
 * a name that never tracked. Returns 0; BROCK_EINVAL for a host or name that
 * is not a host name, or too many names (nothing changed); BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_cname_chain_set(struct brock_engine *e, const char *host,
                                                    const char *const *names, size_t n);

/* The chain e was told for host (normalised), up to max names into names (borrowed until the
 * chain changes). Returns how many names the chain has (0: none known). */
BROCK_API size_t brock_cname_chain_get(const struct brock_engine *e, const char *host,
                                       const char **names, size_t max);

/* Turns uncloaking off for a chain's name (a host name; "*." before it is dropped) and the
 * names under it, or on again (off 0): a chain that reaches it is judged no further. Kept in
 * the settings (key "brockUncloakOff"). Reaches the state at brock_sync(). Returns 0,
 * BROCK_EINVAL (not a host name, or a public suffix), BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_cname_target_set(struct brock_engine *e, const char *target,
                                                     int off);

/* Whether uncloaking is off for name: it, or a name it is under, was turned off. */
BROCK_API int brock_cname_target_off(const struct brock_engine *e, const char *name);

/* Calls cb for each name uncloaking is off for, in the order they were turned off; cb returns
 * non-zero to stop (returned). Returns 0 or the callback's value. */
BROCK_API int brock_cname_targets_each(const struct brock_engine *e,
                                       int (*cb)(void *arg, const char *target), void *arg);

/* ---- link decoration learned ---- */

/* A navigation from one site's page to another site's (a link followed, a form sent): its URL,
 * the page it left (its Referer's URL), and that page's cookies its scripts can read. */
struct brock_navigation {
    const char *url;        /* where it goes, "http(s)://host/path?query" */
    const char *from;       /* the page it left, a URL */
    const char *cookies;    /* the leaving site's readable cookies, "a=1; b=2"
                               (brock_site_cookies_get()); NULL: none known */
    const char *user_agent; /* NULL: none */
    int64_t time_ms;        /* when, Unix ms */
};

/* What a navigation taught. */
struct brock_link_decoration {
    int found;                    /* a parameter carried the leaving site's identifier */
    char param[128];              /* its name (form-decoded) */
    char cookie[128];             /* the cookie whose value it carried */
    char tracker[BROCK_HOST_MAX]; /* the receiving base domain */
    int recorded, blocked;        /* as struct brock_learned: evidence added against the
                                     receiver; it crossed the threshold just now */
    int param_learned;            /* the name was seen so from its BROCK_LINK_PARAM_SITES-th
                                     site just now: taken out of links from now on */
};

/* A parameter name seen carrying identifiers from this many sites is taken out of every
 * navigation from another site's page (brock_request_clean()), as ClearURLs' rules' are. */
#define BROCK_LINK_PARAM_SITES 3
/* The parameter names kept, each with its first sites; past it the one seen longest ago goes
 * (a learned one only when every one is learned). */
#define BROCK_LINK_PARAMS_MAX 256

/* Link decoration (beyond Privacy Badger): a navigation from site A to another site B whose
 * query carries a high-entropy piece of one of A's readable cookie values, by the rule of
 * pixel cookie sharing (brock_observe(): the same substrings, cuts and 33 bits, n->from as the
 * page's URL), is A handing its identifier for the person to B. That is evidence against B's
 * base domain on site A (BROCK_EVIDENCE_LINK, "linkdecoration" in the tracking map; the
 * same guards as brock_observe(): a third party, not yet recorded there, not decided), and
 * the parameter's name is noted with A; a name noted with BROCK_LINK_PARAM_SITES sites is
 * learned. Does nothing while learning is off, or between sites of one owner. out (may be
 * NULL) says what was found. Returns 0, BROCK_EINVAL (no URL), BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_navigation_observe(struct brock_engine *e,
                                                       const struct brock_navigation *n,
                                                       struct brock_link_decoration *out);

/* A parameter name as brock_link_params_each() reports it; strings borrowed. */
struct brock_link_param {
    const char *name;
    const char *sites[BROCK_LINK_PARAM_SITES]; /* the sites it was seen leaving, n_sites */
    size_t n_sites;
    int learned;     /* seen from BROCK_LINK_PARAM_SITES sites */
    int kept;        /* the user keeps it: never taken out */
    int64_t time_ms; /* when last seen */
};

/* Calls cb for each parameter name noted, learned ones first, then by name; cb returns
 * non-zero to stop (returned). Returns 0 or the callback's value. */
BROCK_API int brock_link_params_each(const struct brock_engine *e,
                                     int (*cb)(void *arg, const struct brock_link_param *p),
                                     void *arg);

/* The same as a JSON array [{"name", "sites": [site], "learned", "kept", "time_ms"}], into
 * *out (free with brock_free()) and *len. Returns 0 or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_link_params_json(struct brock_engine *e, char **out,
                                                     size_t *len);

/* The user's word on a parameter name (1 to 127 bytes, no '&', '=', '#', control characters):
 * kept (never taken out, whatever was learned), or back to what was learned (keep 0). A name
 * not yet noted is noted, kept. Reaches the state at brock_sync(). Returns 0, BROCK_EINVAL,
 * BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_link_param_keep(struct brock_engine *e, const char *name,
                                                    int keep);

/* Forgets what was learned of a parameter name, and the user's word on it. Returns 0, or
 * BROCK_ENOTFOUND when it was not noted. */
BROCK_API BROCK_NODISCARD int brock_link_param_forget(struct brock_engine *e, const char *name);

/* ---- each client's own: a household on one proxy ---- */

/* A proxy serves several clients (a client: the name its owner gave an address range, or the
 * address; any string of 1 to BROCK_CLIENT_MAX - 1 bytes without spaces or control
 * characters). Besides everyone's page views and daily counters above, which count every
 * client's, the engine keeps each client's own the same way, with the same limits and
 * retention, for at most BROCK_CLIENTS_MAX clients (past it the one seen longest ago is
 * forgotten). What is learned stays everyone's. In the calls below, client NULL or "" means
 * everyone's; a malformed client is BROCK_EINVAL. */
#define BROCK_CLIENT_MAX 64
#define BROCK_CLIENTS_MAX 256

/* brock_page_seen() for a page client showed: recorded for everyone and for client. */
BROCK_API BROCK_NODISCARD int brock_client_page_seen(struct brock_engine *e, const char *client,
                                                     const char *site, const char *host,
                                                     enum brock_action action, int64_t time_ms);

/* brock_daily_count() for a request of client's: counted for everyone and for client. */
BROCK_API BROCK_NODISCARD int brock_client_daily_count(struct brock_engine *e, const char *client,
                                                       const struct brock_decision *d,
                                                       int64_t time_ms);

/* Counts a URL the proxy cleaned (brock_request_clean() took something out, or unwrapped it)
 * on site (a base domain; NULL or "": unknown) at time_ms, for everyone and for client (NULL
 * or "": everyone's alone): the daily counters' cleaned. Returns 0, BROCK_EINVAL (a
 * malformed client), BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_clean_count(struct brock_engine *e, const char *client,
                                                const char *site, int64_t time_ms);

/* brock_sites(), brock_site_trackers(), brock_host_sites(), brock_daily_each() and
 * brock_daily_json() over client's own. A client with nothing recorded has no sites (and
 * brock_client_site_trackers() is BROCK_ENOTFOUND) and days of zeros. */
BROCK_API BROCK_NODISCARD int brock_client_sites(struct brock_engine *e, const char *client,
                                                 int (*cb)(void *arg, const struct brock_site *s),
                                                 void *arg);
BROCK_API BROCK_NODISCARD int
brock_client_site_trackers(struct brock_engine *e, const char *client, const char *site,
                           int (*cb)(void *arg, const struct brock_site_tracker *t), void *arg);
BROCK_API BROCK_NODISCARD int
brock_client_host_sites(struct brock_engine *e, const char *client, const char *host,
                        int (*cb)(void *arg, const char *site, int64_t time_ms), void *arg);
BROCK_API BROCK_NODISCARD int
brock_client_daily_each(struct brock_engine *e, const char *client, int days, int64_t now_ms,
                        int (*cb)(void *arg, const struct brock_day *d), void *arg);
BROCK_API BROCK_NODISCARD int brock_client_daily_json(struct brock_engine *e, const char *client,
                                                      int days, int64_t now_ms, char **out,
                                                      size_t *len);

/* Calls cb for each client with recent page views, newest first: its name, its last view
 * (Unix ms) and its sites. cb returns non-zero to stop (returned). Returns 0, the callback's
 * value, or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_clients_each(struct brock_engine *e,
                                                 int (*cb)(void *arg, const char *client,
                                                           int64_t time_ms, size_t sites),
                                                 void *arg);

/* Forgets client's page views and daily counters, in memory and, at brock_sync(), in the
 * state (other processes on it drop theirs at their next brock_sync()); everyone's keep
 * what the client added to them. Returns 1, 0 when the client had nothing, BROCK_EINVAL for
 * a malformed client, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_client_forget(struct brock_engine *e, const char *client);

/* A client's own switches, beside everyone's (brock_pause(), brock_site_set_disabled()):
 * brock paused for that client alone, or off on a site for it alone, whether the client chose
 * it for itself or the owner for it. Kept in the state's settings (other processes pick them
 * up at their next brock_sync(); never exported); an end is Unix ms, or BROCK_NO_END for
 * none, and goes at brock_expire() as the pause does. Where they hold, a request of that
 * client (brock_request.client) is decided as on a disabled site and carries no DNT or GPC
 * (brock_client_send_signals()). */

/* Pauses brock for client until until_ms. Returns 0; BROCK_EINVAL for a malformed client or
 * an end not after 0; BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_client_pause(struct brock_engine *e, const char *client,
                                                 int64_t until_ms);

/* Ends client's own pause (0 when there was none). Returns 0, BROCK_EINVAL, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_client_resume(struct brock_engine *e, const char *client);

/* Turns brock off for client on site (as brock_site_set_disabled() reads it: the site and
 * the names under it) until until_ms (BROCK_NO_END: for good), or, with until_ms 0, on
 * again. Returns 0; BROCK_EINVAL for a malformed client, a bad site, a public suffix to turn
 * off, or a negative end; BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_client_site_set_disabled(struct brock_engine *e,
                                                             const char *client, const char *site,
                                                             int64_t until_ms);

/* Whether brock is off for client on site_host (a host or URL; NULL: anywhere, its pause
 * alone) by the client's own switches; everyone's are brock_site_is_disabled()'s. */
BROCK_API int brock_client_site_is_disabled(const struct brock_engine *e, const char *client,
                                            const char *site_host);

/* brock_send_signals() for a page client shows: also no where brock is off for it. */
BROCK_API int brock_client_send_signals(const struct brock_engine *e, const char *client,
                                        const char *site_host);

/* Adds (allow 1) or removes the widget name from the widgets client always lets load on
 * site (a host name, normalised here), as brock_widget_site_allow() does for everyone: on
 * that site, for that client alone, the widget is never replaced and its unblockDomains load.
 * Returns as brock_widget_site_allow() does, and BROCK_EINVAL for a malformed client. */
BROCK_API BROCK_NODISCARD int brock_client_widget_site_allow(struct brock_engine *e,
                                                             const char *client, const char *site,
                                                             const char *name, int allow);

/* brock_widgets_blocked() for a page client shows: without the widgets client always lets
 * load on the site. */
BROCK_API BROCK_NODISCARD int
brock_client_widgets_blocked(struct brock_engine *e, const char *client, const char *site_host,
                             const char *const *allow, size_t n_allow, char **out);

/* client's switches as one JSON object into *out (free with brock_free()) and *len:
 * {"client", "paused": bool, "paused_until_ms": int or null (no end), "disabled_sites":
 * [{"site", "until_ms": int or null}], "widget_allowlist": [{"site", "widget"}]}. Returns
 * 0, BROCK_EINVAL, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_client_settings_json(struct brock_engine *e, const char *client,
                                                         char **out, size_t *len);

/* Resets what was learned to Privacy Badger's seed, as its update does: the user's choices are
 * set aside, the action, snitch, tracking and fingerprinting maps emptied, the seed (if the
 * data folder has one) merged again, and the choices put back, so that a domain the user had
 * set gets the seed's heuristic action and sites under its choice. Settings and page views
 * stay. Reaches the state at brock_sync().
 * Returns 0; BROCK_EIO, BROCK_ENOENT (the seed is gone) or BROCK_EFORMAT (a broken seed), all
 * three with nothing changed; or BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_reset(struct brock_engine *e);

/* Counts of the action map by resolved action, indexed by enum brock_action; *entries (if
 * entries is not NULL) gets the number of entries. */
BROCK_API void brock_counts(struct brock_engine *e, size_t counts[BROCK_ACTION_COUNT],
                            size_t *entries);

/* What an import or a HAR taught. */
struct brock_stats {
    size_t entries;     /* HAR entries read, or action map entries in an import */
    size_t third_party; /* HAR: third-party requests seen */
    size_t recorded;    /* new (tracker, site) pairs */
    size_t blocked;     /* trackers newly blocked or cookieblocked */
    size_t skipped;     /* HAR: entries whose first party could not be told */
    size_t unreadable;  /* HAR: entries that could not be read at all, skipped */
    size_t warnings;    /* HAR: odd fields read as absent, and unreadable entries */
};

/* Merges a Privacy Badger export or seed (JSON text, len bytes) the way Privacy Badger does:
 * snitch map first, learning replayed; heuristic actions never overwritten; user actions
 * kept. The whole text is validated before anything changes. name names the input in error
 * messages. Returns 0, BROCK_EFORMAT (errmsg says where), BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_import(struct brock_engine *e, const char *name,
                                           const char *json, size_t len, struct brock_stats *stats);

/* The same for the text in the open file fd, from its offset to its end, read a block at a
 * time as it is parsed: the text itself is never held in memory whole (the values it holds
 * are, until they are merged). fd stays open, its offset at its end. Also BROCK_EIO (errmsg
 * says why) when it cannot be read. */
BROCK_API BROCK_NODISCARD int brock_import_fd(struct brock_engine *e, const char *name, int fd,
                                              struct brock_stats *stats);

/* Learns from an HTTP Archive (HAR 1.2 JSON, len bytes, a UTF-8 BOM allowed), entries in
 * the order they started. The first party of an entry is the top-level page its tab showed
 * then, never a frame: its page's latest navigation, else its Referer (har.c tells how).
 * The whole text is read and checked first, holding one entry at a time, then each entry is
 * read again and learned from. An odd field is read as absent and an unreadable entry
 * skipped: on_warning, if not NULL, then hears once per kind of oddity a sentence naming
 * name, the first entry and the field, and how many more there were. progress, if not NULL,
 * is called now and then with entries done and the total, the total 0 while the text is
 * still being read; both get arg. Returns 0, BROCK_EFORMAT (not a HAR at all: nothing is
 * learned), BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int
brock_learn_har(struct brock_engine *e, const char *name, const char *json, size_t len,
                void (*progress)(void *arg, size_t done, size_t total),
                void (*on_warning)(void *arg, const char *msg), void *arg,
                struct brock_stats *stats);

/* brock_learn_har() on the file open at fd (borrowed; a regular file, read with pread(2) in
 * chunks, so memory does not grow with its size). Returns what brock_learn_har() does, and
 * BROCK_EINVAL when fd is not a regular file, BROCK_EIO when it cannot be read; BROCK_EIO or
 * BROCK_EFORMAT when it changed between the check and the learning (what was learned before
 * is then kept in memory: do not sync it). */
BROCK_API BROCK_NODISCARD int brock_learn_har_fd(struct brock_engine *e, const char *name, int fd,
                                                 void (*progress)(void *arg, size_t done,
                                                                  size_t total),
                                                 void (*on_warning)(void *arg, const char *msg),
                                                 void *arg, struct brock_stats *stats);

/* The export formats, a NULL-terminated array of names: "pb" (Privacy Badger's JSON), then
 * the block lists "hosts", "abp", "dnsmasq", "unbound", "rpz", "privoxy", "ubo", "adguard",
 * "dnr" (Chromium's declarativeNetRequest) and "safari" (a WebKit content blocker). */
BROCK_API const char *const *brock_export_formats(void);

/* What a block list takes in (brock_export_with()). */
enum brock_export_flags {
    BROCK_EXPORT_BLOCK = 1,        /* blocked names (block, user_block) */
    BROCK_EXPORT_COOKIEBLOCK = 2,  /* names whose cookies are stripped, in the formats that
                                      can strip them (privoxy, dnr, safari); the others let
                                      them load */
    BROCK_EXPORT_LEARNED_ONLY = 4, /* only names learned here: a name whose base's sites all
                                      came from the seed or an import is left out, unless the
                                      user chose its action */
};
#define BROCK_EXPORT_DEFAULT (BROCK_EXPORT_BLOCK | BROCK_EXPORT_COOKIEBLOCK)

/* Reads a list of effects as people type it ("block", "cookieblock" or both, separated by
 * commas) into *flags (BROCK_EXPORT_BLOCK, BROCK_EXPORT_COOKIEBLOCK). Returns 0, or
 * BROCK_EINVAL with a sentence naming the bad word and the choices in err (errlen bytes; err
 * may be NULL), *flags then unchanged. */
BROCK_API BROCK_NODISCARD int brock_export_actions_parse(const char *list, unsigned *flags,
                                                         char *err, size_t errlen);

/* Writes the state in format into a new buffer: *out (NUL-terminated, free with
 * brock_free()) and *len. The same as brock_export_with(e, format, BROCK_EXPORT_DEFAULT, ...).
 * Returns 0, BROCK_EINVAL for an unknown format, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_export(struct brock_engine *e, const char *format, char **out,
                                           size_t *len);

/* brock_export() with flags (enum brock_export_flags) choosing what a block list takes in.
 * Block lists block a base with the names below it where the format's rules reach them, and
 * let the names below it that must load (cookieblocked, allowed by the user, posting the DNT
 * policy) through with exceptions; output is sorted and the same for the same state. Returns
 * 0, BROCK_EINVAL (unknown format, no effect chosen, or flags other than the default for pb:
 * errmsg says which), BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_export_with(struct brock_engine *e, const char *format,
                                                unsigned flags, char **out, size_t *len);

/* Whether brock_export_with(e, format, flags, ...) would name sites a person visited, which
 * only they should be able to read: pb always does (its snitch map lists the sites each
 * tracker was seen on, its settings the disabled sites); a block list does when it holds a
 * choice for one site only (as a rule, or as a comment saying the format cannot hold it).
 * Returns 1, 0, BROCK_EINVAL for an unknown format, BROCK_ENOMEM. */
BROCK_API BROCK_NODISCARD int brock_export_names_sites(struct brock_engine *e, const char *format,
                                                       unsigned flags);

/* Privacy Badger's string measures, as its JavaScript computes them: over UTF-16 code units
 * (the UTF-8 input is decoded as a browser decodes it, each malformed sequence one U+FFFD). */

/* Privacy Badger's estimateMaxEntropy: the bits a string could carry at most. A string
 * longer than 256 units gives its length. A string with no lower-case letter, or none
 * upper-case, is lower-cased first (as JavaScript does for the letters of ASCII, Latin-1,
 * Latin Extended-A, Greek and Cyrillic; other characters count as having no case). Then
 * the first of these classes, with the separators "._-x", that holds every character gives
 * the symbols: "01" (2), digits (10), lower-case hex (16), a-z (26), a-z0-9 (36),
 * a-zA-Z0-9/+ (64), a-zA-Z0-9~% (64); else the span between the lowest and the highest code
 * unit. Returns log2(symbols) times the length in units; 0 for "" or NULL. Pure. */
BROCK_API double brock_max_entropy(const char *s);

/* Privacy Badger's findCommonSubstrings(a, b): walks the table of common suffix lengths, a's
 * units outer, b's inner; a run reaching 8 units appends its text, and one growing longer
 * replaces the text appended last, whichever run that was (so runs on two diagonals growing
 * in the same rows overwrite each other, as in Privacy Badger). Calls cb (if not NULL) with
 * each substring of the result in order, as UTF-8 (len bytes, NUL-terminated, valid during
 * the call; a surrogate pair cut at an end becomes U+FFFD); cb returns non-zero to stop.
 * Returns the number of substrings, the callback's value, or BROCK_ENOMEM. Time is the
 * product of the lengths. */
BROCK_API BROCK_NODISCARD int
brock_common_substrings(const char *a, const char *b,
                        int (*cb)(void *arg, const char *s, size_t len), void *arg);

/* Host name helpers, usable without an engine opened on data (they need libpsl only). */

/* Normalises host into out (BROCK_HOST_MAX bytes): trailing dot and brackets removed,
 * lower-cased, IDNA-encoded. Returns its length, or BROCK_EINVAL. */
BROCK_API BROCK_NODISCARD int brock_host_normalize(const char *host, size_t len, char *out);

/* The host part of an http(s) URL (or of a bare host name), normalised, into out
 * (BROCK_HOST_MAX bytes). Returns its length, or BROCK_EINVAL, also for a scheme with no host
 * ("http:", "https:?x", "http://", "http:///x"). */
BROCK_API BROCK_NODISCARD int brock_url_host(const char *url, char *out);

/* The base domain (eTLD+1) of a normalised host, Privacy Badger's way: an IP address or a
 * public suffix is its own base. Writes into out (BROCK_HOST_MAX bytes), returns its length,
 * BROCK_EINVAL for an empty or overlong name, or BROCK_ENOENT when the system has no Public
 * Suffix List. */
BROCK_API BROCK_NODISCARD int brock_base_domain(const char *host, char *out);

/* Uses the Public Suffix List in file (publicsuffix.org's .dat format) for every base domain
 * from now on, instead of the system's (Debian's publicsuffix package). For a list newer than
 * the system's, and for reproducing another program's decisions exactly. Not to be called
 * while other threads use brock. Returns 0, BROCK_EIO (unreadable) or BROCK_EFORMAT. */
BROCK_API BROCK_NODISCARD int brock_psl_load(const char *file);

/* Names of brock 0.1, kept for programs written against it. brock_tracker takes its
 * arguments so that struct brock_tracker keeps its name. */
#define brock_tracker(e, domain, cb, arg) brock_tracker_get(e, domain, cb, arg)
#define brock_trackers brock_trackers_each
#define brock_site_disable brock_site_set_disabled
#define brock_site_disabled brock_site_is_disabled
#define brock_disabled_sites brock_disabled_sites_each
#define brock_dnt_due brock_dnt_take_due

#ifdef __cplusplus
}
#endif
#endif /* BROCK_H */
