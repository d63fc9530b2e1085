/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's lists found in the data folder (Debian's release layout, or a flat folder of
 * the current files) and read by data/'s readers into the engine's lists: the cookieblock
 * list, the hashes of accepted DNT policies, the multi-domain first parties, the
 * CNAME-cloaking map, the widget domains, the surrogates; and a new cookieblock list applied
 * to the learned actions (section 6).
 */
#include "engine/engine.h"
#include "data/surrogate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/file.h"

/* The largest list file read (cname_domains.json is about 4 MB). */
#define LISTS_FILE_MAX (64u << 20)

static const char *const DIRS_DATA[] = {"data/", "", NULL};
static const char *const DIRS_JS[] = {"js/", "data/", "", NULL};

static int oom(struct brock_engine *e, const char *name)
{
    return brock__fail(e, BROCK_ENOMEM, "Out of memory while reading %s.", name);
}

/* ---- multi-domain first parties ---- */

int brock__parse_mdfp(struct brock_engine *e, const char *name, const char *text, size_t len)
{
    struct brock__data_ctx cx;
    struct strmap map;
    int rc;

    brock__data_ctx_of(e, &cx);
    strmap_init(&map);
    rc = brock__mdfp_read(&cx, name, text, len, &map);
    if (rc < 0) {
        strmap_cleanup(&map, NULL);
        return rc;
    }
    strmap_cleanup(&e->lists.mdfp, NULL);
    e->lists.mdfp = map;
    return 0;
}

/* ---- finding and loading the files ---- */

/* Reads file from the first of the data folder's subfolders that has it, through the folder's
 * descriptor (e->lists.data_fd, named dir in messages). Returns 1 with *text (free with
 * mem_free) and path set, 0 when no folder has it, or an error. */
static int find_read(struct brock_engine *e, const char *dir, const char *const *subs,
                     const char *file, char path[4096], char **text, size_t *len)
{
    for (; *subs; subs++) {
        int n = snprintf(path, 4096, "%s/%s%s", dir, *subs, file);
        int rc;

        if (n < 0 || n >= 4096)
            return brock__fail(e, BROCK_EINVAL, "The data folder name %.80s... is too long.", dir);
        rc = file_read_at(e->lists.data_fd, path + strlen(dir) + 1, LISTS_FILE_MAX, text, len);
        if (rc == 0)
            return 1;
        if (rc == -ENOENT || rc == -ENOTDIR)
            continue;
        if (rc == -ENOMEM)
            return oom(e, path);
        if (rc == -EFBIG)
            return brock__fail(e, BROCK_EFORMAT, "%s is larger than %u bytes.", path,
                               LISTS_FILE_MAX);
        return brock__fail(e, BROCK_EIO, "%s cannot be read: %s.", path, strerror(-rc));
    }
    path[0] = '\0';
    return 0;
}

int brock__data_read(struct brock_engine *e, const char *file, char path[4096], char **text,
                     size_t *len)
{
    *text = NULL;
    *len = 0;
    path[0] = '\0';
    if (e->lists.data_fd < 0)
        return 0;
    return find_read(e, e->lists.data_dir, DIRS_DATA, file, path, text, len);
}

static int data_read(void *arg, const char *file, char path[4096], char **text, size_t *len)
{
    return brock__data_read(arg, file, path, text, len);
}

void brock__data_ctx_of(struct brock_engine *e, struct brock__data_ctx *cx)
{
    cx->msg = e->errmsg;
    cx->msg_size = sizeof(e->errmsg);
    cx->read = data_read;
    cx->arg = e;
}

static int missing(struct brock_engine *e, const char *dir, const char *what)
{
    return brock__fail(e, BROCK_ENOENT,
                       "%s has no %s: Privacy Badger's data is missing there (is the "
                       "webext-privacy-badger package installed?).",
                       dir, what);
}

void brock__lists_init(struct brock_lists *l)
{
    memset(l, 0, sizeof(*l));
    strmap_init(&l->yellow);
    strmap_init(&l->dnt_hashes);
    strmap_init(&l->mdfp);
    strmap_init(&l->cname);
    l->data_fd = -1;
}

/* The cookieblock list and the DNT hashes: pbconfig.json carries both and wins over the
 * separate files; hashes from both sources are merged. */
static int load_yellow_hashes(struct brock_engine *e, const char *dir)
{
    struct brock__data_ctx cx;
    struct strvec yellow = {0};
    json_t *pb_hashes = NULL, *file_hashes = NULL;
    char path[4096], *text = NULL;
    json_error_t jerr;
    size_t len = 0;
    int rc;

    brock__data_ctx_of(e, &cx);
    rc = find_read(e, dir, DIRS_DATA, "pbconfig.json", path, &text, &len);
    if (rc == 0)
        rc = find_read(e, dir, DIRS_DATA, "yellowlist.txt", path, &text, &len);
    else if (rc == 1)
        rc = brock__parse_pbconfig(&cx, path, text, len, &yellow, &pb_hashes);
    if (rc == 0 && !pb_hashes)
        rc = missing(e, dir, "cookieblock list (pbconfig.json or data/yellowlist.txt)");
    else if (rc == 1)
        rc = brock__parse_yellowlist_txt(&cx, path, text, len, &yellow);
    mem_free(text);
    text = NULL;
    if (rc < 0)
        goto out;
    rc = brock__yellow_build(&e->lists.yellow, &e->lists.yellow_order, &yellow);
    if (rc < 0) {
        rc = oom(e, dir);
        goto out;
    }

    rc = find_read(e, dir, DIRS_DATA, "dnt-policies.json", path, &text, &len);
    if (rc == 0 && !pb_hashes)
        rc = missing(e, dir, "DNT policy hashes (pbconfig.json or data/dnt-policies.json)");
    if (rc == 1) {
        file_hashes = json_loadb(text, len, 0, &jerr);
        rc = file_hashes ? brock__hashes_check(&cx, path, file_hashes)
                         : brock__data_json_fail(&cx, path, &jerr);
        if (rc == 0)
            rc = brock__hashes_add(&cx, path, file_hashes, &e->lists.dnt_hashes);
    }
    if (rc == 0 && pb_hashes)
        rc = brock__hashes_add(&cx, "pbconfig.json", pb_hashes, &e->lists.dnt_hashes);
out:
    mem_free(text);
    json_decref(pb_hashes);
    json_decref(file_hashes);
    strvec_cleanup(&yellow);
    return rc;
}

/* An optional JSON list: absent is fine, malformed is not. */
static int load_optional(struct brock_engine *e, const char *dir, const char *file,
                         int (*read)(const struct brock__data_ctx *, struct brock_lists *,
                                     const char *, const char *, size_t))
{
    struct brock__data_ctx cx;
    char path[4096], *text = NULL;
    size_t len;
    int rc = find_read(e, dir, DIRS_DATA, file, path, &text, &len);

    brock__data_ctx_of(e, &cx);
    if (rc == 1)
        rc = read(&cx, &e->lists, path, text, len);
    mem_free(text);
    return rc;
}

static int load_mdfp(struct brock_engine *e, const char *dir)
{
    char path[4096], *text = NULL;
    size_t len;
    int rc = find_read(e, dir, DIRS_DATA, "multi-domain-first-parties.json", path, &text, &len);

    if (rc == 0)
        rc = find_read(e, dir, DIRS_JS, "multiDomainFirstParties.js", path, &text, &len);
    if (rc == 0)
        rc = missing(e, dir,
                     "multi-domain first parties (multi-domain-first-parties.json or "
                     "js/multiDomainFirstParties.js)");
    if (rc == 1)
        rc = brock__parse_mdfp(e, path, text, len);
    mem_free(text);
    return rc;
}

/* The seed is read later, by whoever seeds a new state; only its place is kept. */
static int find_seed(struct brock_engine *e, const char *dir)
{
    struct stat st;

    for (const char *const *sub = DIRS_DATA; *sub; sub++) {
        char *path = e->lists.seed_path;
        int n = snprintf(path, sizeof(e->lists.seed_path), "%s/%sseed.json", dir, *sub);

        if (n < 0 || (size_t)n >= sizeof(e->lists.seed_path))
            return brock__fail(e, BROCK_EINVAL, "The data folder name %.80s... is too long.", dir);
        e->lists.seed_off = strlen(dir) + 1;
        if (fstatat(e->lists.data_fd, path + e->lists.seed_off, &st, 0) == 0 && S_ISREG(st.st_mode))
            return 0;
    }
    e->lists.seed_path[0] = '\0';
    e->lists.seed_off = 0;
    return 0;
}

/* Opens dir for the lists' reads now and later (a reset reads the seed again, after brock may
 * have given up root). */
static int open_data_dir(struct brock_engine *e, const char *dir)
{
    int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), err = errno;

    if (fd < 0 && (err == ENOENT || err == ENOTDIR))
        return brock__fail(e, BROCK_ENOENT,
                           "%s is not a folder: Privacy Badger's data is missing (is the "
                           "webext-privacy-badger package installed?).",
                           dir);
    if (fd < 0)
        return brock__fail(e, BROCK_EIO, "%s cannot be read: %s.", dir, strerror(err));
    if (snprintf(e->lists.data_dir, sizeof(e->lists.data_dir), "%s", dir) >=
        (int)sizeof(e->lists.data_dir)) {
        close(fd);
        return brock__fail(e, BROCK_EINVAL, "The data folder name %.80s... is too long.", dir);
    }
    e->lists.data_fd = fd;
    return 0;
}

/* Every list, from the folder e->lists.data_fd holds open (dir names it in messages), into the
 * empty e->lists. */
static int lists_read(struct brock_engine *e, const char *dir)
{
    int rc = load_yellow_hashes(e, dir);

    if (rc == 0)
        rc = load_mdfp(e, dir);
    if (rc == 0)
        rc = load_optional(e, dir, "socialwidgets.json", brock__widgets_read);
    if (rc == 0)
        rc = load_optional(e, dir, "cname_domains.json", brock__cname_read);
    if (rc == 0) {
        struct brock__data_ctx cx;

        brock__data_ctx_of(e, &cx);
        rc = brock__surrogates_load(&cx, &e->lists.surrogates);
    }
    if (rc == 0)
        rc = find_seed(e, dir);
    return rc;
}

int brock__lists_load(struct brock_engine *e, const char *dir)
{
    struct brock_lists old = e->lists;
    int rc;

    /* Everything is read into fresh lists so that a failure leaves the old ones in place. */
    brock__lists_init(&e->lists);
    rc = open_data_dir(e, dir);
    if (rc == 0)
        rc = lists_read(e, dir);
    if (rc < 0) {
        brock__lists_cleanup(&e->lists);
        e->lists = old;
        return rc;
    }
    brock__lists_cleanup(&old);
    brock__answers_forget(e);
    return 0;
}

int brock__lists_reread(struct brock_engine *e, struct brock_lists *fresh)
{
    struct brock_lists old = e->lists;
    int fd, rc;

    brock__lists_init(fresh);
    if (old.data_fd < 0)
        return brock__fail(e, BROCK_EINVAL,
                           "brock was started without Privacy Badger's data: "
                           "there is nothing to read again.");
    /* The folder opened at start, whatever its name leads to now: after giving up root brock
     * may no longer be able to open it by name. */
    fd = fcntl(old.data_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return brock__fail(e, BROCK_EIO, "%s cannot be opened again: %s.", old.data_dir,
                           strerror(errno));
    /* The loaders fill e->lists: the lists in force step aside meanwhile. */
    brock__lists_init(&e->lists);
    e->lists.data_fd = fd;
    memcpy(e->lists.data_dir, old.data_dir, sizeof(old.data_dir));
    rc = lists_read(e, e->lists.data_dir);
    *fresh = e->lists;
    e->lists = old;
    if (rc < 0)
        brock__lists_cleanup(fresh);
    return rc;
}

void brock__lists_cleanup(struct brock_lists *l)
{
    strmap_cleanup(&l->yellow, NULL);
    strvec_cleanup(&l->yellow_order);
    strmap_cleanup(&l->dnt_hashes, mem_free);
    strmap_cleanup(&l->mdfp, NULL);
    strmap_cleanup(&l->cname, mem_free);
    strvec_cleanup(&l->widget_domains);
    json_decref(l->widgets);
    l->widgets = NULL;
    brock__surrogates_free(l->surrogates);
    l->surrogates = NULL;
    if (l->data_fd >= 0)
        close(l->data_fd);
    l->data_fd = -1;
    l->seed_path[0] = '\0';
}

/* ---- applying a new cookieblock list (updateYellowlist) ---- */

/* Domains taken off the list: every non-noaction entry under their bases is blocklisted
 * again, which now gives block where the list no longer covers it. */
static int apply_removed(struct brock_engine *e, const struct strmap *old)
{
    struct strmap bases;
    struct strvec keys = {0};
    char base[BROCK_HOST_MAX];
    const char *k;
    void *v;
    size_t it = 0;
    int rc = 0;

    strmap_init(&bases);
    while (strmap_next(old, &it, &k, NULL)) {
        /* "" has no base: removing it must touch nothing. */
        if (!*k || strmap_get(&e->lists.yellow, k) || brock_base_domain(k, base) <= 0)
            continue;
        if (strmap_put(&bases, base, (void *)1) < 0) {
            rc = BROCK_ENOMEM;
            goto out;
        }
    }
    if (!bases.len)
        goto out;
    /* Blocklisting adds entries, so the names are collected before any is changed. */
    it = 0;
    while (strmap_next(&e->actions, &it, &k, &v)) {
        if (brock_base_domain(k, base) <= 0 || !strmap_get(&bases, base))
            continue;
        if (brock__get_action(e, v, 0) == BROCK_NOACTION)
            continue;
        if (strvec_push(&keys, k) < 0) {
            rc = BROCK_ENOMEM;
            goto out;
        }
    }
    for (size_t i = 0; i < keys.n; i++) {
        if (brock_base_domain(keys.v[i], base) <= 0)
            continue;
        rc = brock__blocklist_domain(e, base, keys.v[i]);
        if (rc < 0)
            goto out;
    }
out:
    strvec_cleanup(&keys);
    strmap_cleanup(&bases, NULL);
    return rc;
}

/* Domains put on the list: cookieblocked at once when their base is already blocked. */
static int apply_added(struct brock_engine *e, const struct strmap *old)
{
    char base[BROCK_HOST_MAX];

    for (size_t i = 0; i < e->lists.yellow_order.n; i++) {
        const char *d = e->lists.yellow_order.v[i];
        struct action_entry *a;

        if (strmap_get(old, d) || brock_base_domain(d, base) <= 0)
            continue;
        a = brock__action_get(e, base);
        if (!a || (a->heur != BROCK_BLOCK && a->heur != BROCK_COOKIEBLOCK))
            continue;
        a = brock__action_ensure(e, d);
        if (!a)
            return BROCK_ENOMEM;
        if (a->heur != BROCK_COOKIEBLOCK) {
            a->heur = BROCK_COOKIEBLOCK;
            brock__action_touch(e, a, BROCK__DIRTY_HEUR);
        }
    }
    return 0;
}

int brock__yellowlist_apply(struct brock_engine *e, const struct strvec *list)
{
    struct strmap map, old;
    struct strvec order = {0}, old_order;
    int rc;

    strmap_init(&map);
    rc = brock__yellow_build(&map, &order, list);
    if (rc < 0) {
        strmap_cleanup(&map, NULL);
        strvec_cleanup(&order);
        return brock__fail(e, rc, "Out of memory while replacing the cookieblock list.");
    }
    /* The recomputation below is against the new list, so it goes in first. */
    old = e->lists.yellow;
    old_order = e->lists.yellow_order;
    e->lists.yellow = map;
    e->lists.yellow_order = order;
    rc = apply_removed(e, &old);
    if (rc == 0)
        rc = apply_added(e, &old);
    if (rc < 0) {
        /* The old list comes back so that applying the new one again redoes every step;
         * the steps already done are the same the second time. */
        strmap_cleanup(&e->lists.yellow, NULL);
        strvec_cleanup(&e->lists.yellow_order);
        e->lists.yellow = old;
        e->lists.yellow_order = old_order;
        return brock__fail(e, rc, "Out of memory while applying the new cookieblock list.");
    }
    strmap_cleanup(&old, NULL);
    strvec_cleanup(&old_order);
    return 0;
}
