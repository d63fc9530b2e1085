/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's lists found in the data folder and read, into lists of their own: Debian's
 * release layout (data/, js/) or a flat folder of the current files. The folder is held open
 * (O_PATH) while the lists last, so that a reset or a reload reads it again after brock gave
 * up root; a failure leaves nothing half-read.
 */
#include "data/data.h"
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

/* ---- finding and loading the files ---- */

/* Reads file from the first of the data folder's subfolders that has it, through the folder's
 * descriptor (l->data_fd, named dir in messages). Returns 1 with *text (free with
 * mem_free) and path set, 0 when no folder has it, or an error. */
static int find_read(const struct brock__data_ctx *cx, const struct brock_lists *l, const char *dir,
                     const char *const *subs, const char *file, char path[4096], char **text,
                     size_t *len)
{
    for (; *subs; subs++) {
        int n = snprintf(path, 4096, "%s/%s%s", dir, *subs, file);
        int rc;

        if (n < 0 || n >= 4096)
            return brock__data_fail(cx, BROCK_EINVAL, "The data folder name %.80s... is too long.",
                                    dir);
        rc = file_read_at(l->data_fd, path + strlen(dir) + 1, LISTS_FILE_MAX, text, len);
        if (rc == 0)
            return 1;
        if (rc == -ENOENT || rc == -ENOTDIR)
            continue;
        if (rc == -ENOMEM)
            return brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", path);
        if (rc == -EFBIG)
            return brock__data_fail(cx, BROCK_EFORMAT, "%s is larger than %u bytes.", path,
                                    LISTS_FILE_MAX);
        return brock__data_fail(cx, BROCK_EIO, "%s cannot be read: %s.", path, strerror(-rc));
    }
    path[0] = '\0';
    return 0;
}

int brock__lists_file(const struct brock__data_ctx *cx, const struct brock_lists *l,
                      const char *file, char path[4096], char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    path[0] = '\0';
    if (l->data_fd < 0)
        return 0;
    return find_read(cx, l, l->data_dir, DIRS_DATA, file, path, text, len);
}

/* The lists being read, and where a failure to read one more of their files is said. */
struct lists_files {
    const struct brock__data_ctx *cx;
    const struct brock_lists *l;
};

/* cx->read over a struct lists_files. */
static int lists_file(void *arg, const char *file, char path[4096], char **text, size_t *len)
{
    const struct lists_files *f = arg;

    return brock__lists_file(f->cx, f->l, file, path, text, len);
}

static int missing(const struct brock__data_ctx *cx, const char *dir, const char *what)
{
    return brock__data_fail(cx, BROCK_ENOENT,
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
    strmap_init_borrowed(&l->cname);
    arena_init(&l->cname_text, (size_t)64 * 1024);
    l->data_fd = -1;
}

/* The cookieblock list and the DNT hashes: pbconfig.json carries both and wins over the
 * separate files; hashes from both sources are merged. */
static int load_yellow_hashes(const struct brock__data_ctx *cx, struct brock_lists *l,
                              const char *dir)
{
    struct strvec yellow = {0};
    json_t *pb_hashes = NULL, *file_hashes = NULL;
    char path[4096], *text = NULL;
    json_error_t jerr;
    size_t len = 0;
    int rc;

    rc = find_read(cx, l, dir, DIRS_DATA, "pbconfig.json", path, &text, &len);
    if (rc == 0)
        rc = find_read(cx, l, dir, DIRS_DATA, "yellowlist.txt", path, &text, &len);
    else if (rc == 1)
        rc = brock__parse_pbconfig(cx, path, text, len, &yellow, &pb_hashes);
    if (rc == 0 && !pb_hashes)
        rc = missing(cx, dir, "cookieblock list (pbconfig.json or data/yellowlist.txt)");
    else if (rc == 1)
        rc = brock__parse_yellowlist_txt(cx, path, text, len, &yellow);
    mem_free(text);
    text = NULL;
    if (rc < 0)
        goto out;
    rc = brock__yellow_build(&l->yellow, &l->yellow_order, &yellow);
    if (rc < 0) {
        rc = brock__data_fail(cx, BROCK_ENOMEM, "Out of memory while reading %s.", dir);
        goto out;
    }

    rc = find_read(cx, l, dir, DIRS_DATA, "dnt-policies.json", path, &text, &len);
    if (rc == 0 && !pb_hashes)
        rc = missing(cx, dir, "DNT policy hashes (pbconfig.json or data/dnt-policies.json)");
    if (rc == 1) {
        file_hashes = json_loadb(text, len, 0, &jerr);
        rc = file_hashes ? brock__hashes_check(cx, path, file_hashes)
                         : brock__data_json_fail(cx, path, &jerr);
        if (rc == 0)
            rc = brock__hashes_add(cx, path, file_hashes, &l->dnt_hashes);
    }
    if (rc == 0 && pb_hashes)
        rc = brock__hashes_add(cx, "pbconfig.json", pb_hashes, &l->dnt_hashes);
out:
    mem_free(text);
    json_decref(pb_hashes);
    json_decref(file_hashes);
    strvec_cleanup(&yellow);
    return rc;
}

/* An optional JSON list: absent is fine, malformed is not. */
static int load_optional(const struct brock__data_ctx *cx, struct brock_lists *l, const char *dir,
                         const char *file,
                         int (*read)(const struct brock__data_ctx *, struct brock_lists *,
                                     const char *, const char *, size_t))
{
    char path[4096], *text = NULL;
    size_t len;
    int rc = find_read(cx, l, dir, DIRS_DATA, file, path, &text, &len);

    if (rc == 1)
        rc = read(cx, l, path, text, len);
    mem_free(text);
    return rc;
}

static int load_mdfp(const struct brock__data_ctx *cx, struct brock_lists *l, const char *dir)
{
    char path[4096], *text = NULL;
    size_t len;
    int rc = find_read(cx, l, dir, DIRS_DATA, "multi-domain-first-parties.json", path, &text, &len);

    if (rc == 0)
        rc = find_read(cx, l, dir, DIRS_JS, "multiDomainFirstParties.js", path, &text, &len);
    if (rc == 0)
        rc = missing(cx, dir,
                     "multi-domain first parties (multi-domain-first-parties.json or "
                     "js/multiDomainFirstParties.js)");
    if (rc == 1)
        rc = brock__mdfp_install(cx, l, path, text, len);
    mem_free(text);
    return rc;
}

/* The seed is read later, by whoever seeds a new state; only its place is kept. */
static int find_seed(const struct brock__data_ctx *cx, struct brock_lists *l, const char *dir)
{
    struct stat st;

    for (const char *const *sub = DIRS_DATA; *sub; sub++) {
        char *path = l->seed_path;
        int n = snprintf(path, sizeof(l->seed_path), "%s/%sseed.json", dir, *sub);

        if (n < 0 || (size_t)n >= sizeof(l->seed_path))
            return brock__data_fail(cx, BROCK_EINVAL, "The data folder name %.80s... is too long.",
                                    dir);
        l->seed_off = strlen(dir) + 1;
        if (fstatat(l->data_fd, path + l->seed_off, &st, 0) == 0 && S_ISREG(st.st_mode))
            return 0;
    }
    l->seed_path[0] = '\0';
    l->seed_off = 0;
    return 0;
}

/* Opens dir for the lists' reads now and later (a reset reads the seed again, after brock may
 * have given up root). */
static int open_data_dir(const struct brock__data_ctx *cx, struct brock_lists *l, const char *dir)
{
    int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), err = errno;

    if (fd < 0 && (err == ENOENT || err == ENOTDIR))
        return brock__data_fail(cx, BROCK_ENOENT,
                                "%s is not a folder: Privacy Badger's data is missing (is the "
                                "webext-privacy-badger package installed?).",
                                dir);
    if (fd < 0)
        return brock__data_fail(cx, BROCK_EIO, "%s cannot be read: %s.", dir, strerror(err));
    if (snprintf(l->data_dir, sizeof(l->data_dir), "%s", dir) >= (int)sizeof(l->data_dir)) {
        close(fd);
        return brock__data_fail(cx, BROCK_EINVAL, "The data folder name %.80s... is too long.",
                                dir);
    }
    l->data_fd = fd;
    return 0;
}

/* Every list, from the folder l->data_fd holds open (dir names it in messages), into the
 * empty l-> */
static int lists_read(const struct brock__data_ctx *cx, struct brock_lists *l, const char *dir)
{
    int rc = load_yellow_hashes(cx, l, dir);

    if (rc == 0)
        rc = load_mdfp(cx, l, dir);
    if (rc == 0)
        rc = load_optional(cx, l, dir, "socialwidgets.json", brock__widgets_read);
    if (rc == 0)
        rc = load_optional(cx, l, dir, "cname_domains.json", brock__cname_read);
    if (rc == 0) {
        /* The surrogates' bodies are more files of the same folder. */
        struct lists_files lf = {cx, l};
        struct brock__data_ctx files = {cx->msg, cx->msg_size, lists_file, &lf};

        rc = brock__surrogates_load(&files, &l->surrogates);
    }
    if (rc == 0)
        rc = find_seed(cx, l, dir);
    return rc;
}

int brock__lists_open(const struct brock__data_ctx *cx, struct brock_lists *l, const char *dir)
{
    int rc;

    brock__lists_init(l);
    rc = open_data_dir(cx, l, dir);
    if (rc == 0)
        rc = lists_read(cx, l, dir);
    if (rc < 0)
        brock__lists_cleanup(l);
    return rc;
}

int brock__lists_reopen(const struct brock__data_ctx *cx, const struct brock_lists *old,
                        struct brock_lists *fresh)
{
    int fd, rc;

    brock__lists_init(fresh);
    if (old->data_fd < 0)
        return brock__data_fail(cx, BROCK_EINVAL,
                                "brock was started without Privacy Badger's data: "
                                "there is nothing to read again.");
    /* The folder opened at start, whatever its name leads to now: after giving up root brock
     * may no longer be able to open it by name. */
    fd = fcntl(old->data_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return brock__data_fail(cx, BROCK_EIO, "%s cannot be opened again: %s.", old->data_dir,
                                strerror(errno));
    fresh->data_fd = fd;
    memcpy(fresh->data_dir, old->data_dir, sizeof(old->data_dir));
    rc = lists_read(cx, fresh, fresh->data_dir);
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
    strmap_cleanup(&l->cname, NULL);
    arena_cleanup(&l->cname_text);
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
