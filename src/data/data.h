/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's data, read: the readers of its files that need nothing of the engine (the
 * cookieblock list and DNT hashes, the CNAME map and widgets; the surrogates, in surrogate.h;
 * the multi-domain first parties; the site fixes) and the look-ups decisions make in what they
 * read. A reader is given a context that says where to write
 * what went wrong and how to read another file of the data folder; the engine (engine/lists.c)
 * makes one of itself and keeps what the readers return.
 */
#ifndef BROCK_DATA_DATA_H
#define BROCK_DATA_DATA_H

#include <stddef.h>

#include <jansson.h>

#include "brock.h"
#include "util/arena.h"
#include "util/attr.h"
#include "util/strmap.h"
#include "util/strvec.h"

/* What a reader is given. */
struct brock__data_ctx {
    char *msg; /* a sentence on what went wrong goes here (msg_size bytes) */
    size_t msg_size;
    /* Reads file from the data folder (its data/ subfolder first). Returns 1 with *text (free
     * with mem_free) and path (the file's name, for messages) set; 0 when there is no such
     * file or no data folder; or a negative BROCK_E* with the message written. */
    int (*read)(void *arg, const char *file, char path[4096], char **text, size_t *len);
    void *arg;
};

/* Writes the sentence (printf's fmt) into cx's message and returns err. */
int brock__data_fail(const struct brock__data_ctx *cx, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The refusal of a text jansson could not read as JSON, named name: BROCK_ENOMEM when it ran
 * out of memory, else BROCK_EFORMAT with the line, column and jansson's words. */
int brock__data_json_fail(const struct brock__data_ctx *cx, const char *name,
                          const json_error_t *jerr);

struct brock__surrogates;

/* Privacy Badger's lists, read from the data folder (engine/lists.c finds the files, the readers
 * here and in mdfp.c and surrogate.c read them). */
struct brock_lists {
    struct strmap yellow;       /* cookieblock list: domain → (void *)1 */
    struct strvec yellow_order; /* the same, in the list's order */
    struct strmap dnt_hashes;   /* sha1 hex → policy name (owned string) */
    struct strmap mdfp;         /* base → group number + 1, cast to a pointer */
    struct strmap cname;        /* alias FQDN → tracker FQDN, both in cname_text (a borrowed
                                   map: 76,000 aliases cost no allocation of their own) */
    struct arena cname_text;
    struct strvec widget_domains;
    json_t *widgets; /* socialwidgets.json as read (widget name → object); NULL:
                        none (widgets.c reads it) */
    struct brock__surrogates *surrogates; /* surrogate.h; NULL: none */
    int data_fd;          /* the data folder, open (O_PATH) while the lists last; or -1 */
    char data_dir[4096];  /* its name, for messages */
    char seed_path[4096]; /* "" when there is no seed */
    size_t seed_off;      /* seed_path + seed_off: its name relative to data_dir */
};

/* ---- lists_read.c: the cookieblock list, DNT hashes, CNAMEs, widgets ---- */

/* The cookieblock list out of a plain one-per-line text (yellowlist.txt) into *out, or out of
 * a pbconfig.json text (validated as ingestPbconfig does) into *yellow with its DNT policy
 * hashes (*hashes, a new reference, checked). Nothing is taken from a text with one bad entry.
 * Returns 0, BROCK_EFORMAT (the message names name and the entry) or BROCK_ENOMEM. */
int brock__parse_yellowlist_txt(const struct brock__data_ctx *cx, const char *name,
                                const char *text, size_t len,
                                struct strvec *out) BROCK_NODISCARD_INTERNAL;
int brock__parse_pbconfig(const struct brock__data_ctx *cx, const char *name, const char *text,
                          size_t len, struct strvec *yellow,
                          json_t **hashes) BROCK_NODISCARD_INTERNAL;

/* Checks a {name: sha1} object of DNT policy hashes whole (0 or BROCK_EFORMAT), and adds a
 * checked one's to map (sha1 → name, owned), a hash already known keeping its name, as
 * Privacy Badger merges them (0 or BROCK_ENOMEM). */
int brock__hashes_check(const struct brock__data_ctx *cx, const char *name,
                        json_t *obj) BROCK_NODISCARD_INTERNAL;
int brock__hashes_add(const struct brock__data_ctx *cx, const char *name, json_t *obj,
                      struct strmap *map) BROCK_NODISCARD_INTERNAL;

/* Fills a set (domain → (void *)1) and its ordered copy from list, dropping repeats. Returns
 * 0 or BROCK_ENOMEM. */
int brock__yellow_build(struct strmap *map, struct strvec *order,
                        const struct strvec *list) BROCK_NODISCARD_INTERNAL;

/* cname_domains.json (alias: target), read as a stream into l->cname; socialwidgets.json into
 * l->widgets and l->widget_domains. Returns 0, BROCK_EFORMAT (the message names name and the
 * fault) or BROCK_ENOMEM. */
int brock__cname_read(const struct brock__data_ctx *cx, struct brock_lists *l, const char *name,
                      const char *text, size_t len) BROCK_NODISCARD_INTERNAL;
int brock__widgets_read(const struct brock__data_ctx *cx, struct brock_lists *l, const char *name,
                        const char *text, size_t len) BROCK_NODISCARD_INTERNAL;

/* Exactly on the cookieblock list. */
int brock__yellowlisted(const struct brock_lists *l, const char *domain);

/* wouldGetCookieblocked: fqdn or any parent down to the TLD is on the list. */
int brock__would_cookieblock(const struct brock_lists *l, const char *fqdn);

/* The CNAME target of fqdn (len bytes), or NULL. */
const char *brock__cname(const struct brock_lists *l, const char *fqdn, size_t len);

/* ---- lists_load.c: the data folder's lists ---- */

/* Empty lists, with no data folder; brock__lists_cleanup() frees what lists hold and closes
 * their folder, leaving them empty. */
void brock__lists_init(struct brock_lists *l);
void brock__lists_cleanup(struct brock_lists *l);

/* Opens dir (Debian's release layout: data/, js/; or a flat folder of the current files) and
 * reads every list into l (emptied first). Returns 0; BROCK_ENOENT, BROCK_EIO, BROCK_EFORMAT
 * with the message naming the file; BROCK_ENOMEM; l is then empty. */
int brock__lists_open(const struct brock__data_ctx *cx, struct brock_lists *l,
                      const char *dir) BROCK_NODISCARD_INTERNAL;

/* Reads every list again into fresh (emptied first), from the folder old was read from (held
 * open since, whatever its name leads to now). Returns as brock__lists_open(), and
 * BROCK_EINVAL when old has no data folder. */
int brock__lists_reopen(const struct brock__data_ctx *cx, const struct brock_lists *old,
                        struct brock_lists *fresh) BROCK_NODISCARD_INTERNAL;

/* Reads file from l's data folder (its data/ subfolder first), at most the lists' size limit.
 * Returns 1 with *text (free with mem_free) and path (the file's name, for messages) set; 0
 * when there is no such file or no data folder; or an error, with the message written. */
int brock__lists_file(const struct brock__data_ctx *cx, const struct brock_lists *l,
                      const char *file, char path[4096], char **text,
                      size_t *len) BROCK_NODISCARD_INTERNAL;

/* ---- mdfp.c: the multi-domain first parties ---- */

/* Reads the groups of multi-domain first parties out of text (len bytes, named name in errors):
 * a JSON array of arrays, or Debian's multiDomainFirstParties.js. Each domain goes into map
 * with its group's number + 1 (cast to a pointer). Returns 0, BROCK_EFORMAT (a domain in two
 * groups, an empty or malformed one, anything the layouts do not allow) or BROCK_ENOMEM. */
int brock__mdfp_read(const struct brock__data_ctx *cx, const char *name, const char *text,
                     size_t len, struct strmap *map) BROCK_NODISCARD_INTERNAL;

/* The same read into l->mdfp, which keeps its groups when text is refused. */
int brock__mdfp_install(const struct brock__data_ctx *cx, struct brock_lists *l, const char *name,
                        const char *text, size_t len) BROCK_NODISCARD_INTERNAL;

/* Adds dom (n bytes) to group (counted from 0) of the groups being read into map, checking
 * that it is a domain in no other group; name and line (0: none) say where, in errors.
 * Returns 0, BROCK_EFORMAT or BROCK_ENOMEM. */
int brock__mdfp_add(const struct brock__data_ctx *cx, const char *name, struct strmap *map,
                    const char *dom, size_t n, size_t group,
                    unsigned line) BROCK_NODISCARD_INTERNAL;

/* ---- sitefix.c: Privacy Badger's site fixes (pbconfig.json "sitefixes") ---- */

struct brock__sitefixes;

/* Checks a "sitefixes" object (NULL: none) whole and, when all of it is good, stores the
 * fixes, inverted to be keyed by site host, in *out (free with brock__sitefixes_free()).
 * Returns 0, BROCK_EFORMAT (the message names name and the entry) or BROCK_ENOMEM. */
int brock__sitefixes_parse(const struct brock__data_ctx *cx, const char *name, json_t *obj,
                           struct brock__sitefixes **out) BROCK_NODISCARD_INTERNAL;
void brock__sitefixes_free(struct brock__sitefixes *f);

/* The number of (site, entry) pairs in f. */
size_t brock__sitefixes_count(const struct brock__sitefixes *f);

/* The fixes for pages on site (slen bytes, a normalised host, matched exactly; NULL: none),
 * or NULL when it has none; then for a request to host: whether sitefixes.ignore leaves host
 * alone, whether sitefixes.yellowlist cookieblocks it (both cover a listed name and the
 * names under it). And whether sitefixes.gpc says no DNT/GPC (site: any host, NULL for
 * none). */
struct brock__site_fixes;
const struct brock__site_fixes *brock__sitefix_find(const struct brock__sitefixes *f,
                                                    const char *site, size_t slen);
int brock__sitefix_ignored(const struct brock__site_fixes *sf, const char *host);
int brock__sitefix_cookieblock(const struct brock__site_fixes *sf, const char *host);
int brock__sitefix_no_signals(const struct brock__sitefixes *f, const char *site);

#endif
