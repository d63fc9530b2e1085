/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Privacy Badger's lists: the cookieblock list (yellowlist), the hashes of accepted DNT
 * policies, the multi-domain first parties, the CNAME-cloaking map and the widget domains,
 * read from Debian's release layout or from a flat folder of the current files.
 */
#include "engine/engine.h"
#include "engine/names.h"
#include "data/surrogate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/file.h"

#include <yajl/yajl_parse.h>

/* The largest list file read (cname_domains.json is about 4 MB). */
#define LISTS_FILE_MAX (64u << 20)

static const char *const DIRS_DATA[] = {"data/", "", NULL};
static const char *const DIRS_JS[] = {"js/", "data/", "", NULL};

/* ---- validation ---- */

static int is_lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* ingestPbconfig's test: a '.' somewhere and ^[a-z0-9][a-z0-9.-]+[a-z]$. */
static int yellow_valid(const char *s, size_t n)
{
    int dot = 0;

    if (n < 3 || n >= BROCK_HOST_MAX)
        return 0;
    if (!is_lower_alnum(s[0]) || s[n - 1] < 'a' || s[n - 1] > 'z')
        return 0;
    for (size_t i = 1; i < n - 1; i++) {
        if (s[i] == '.')
            dot = 1;
        else if (!is_lower_alnum(s[i]) && s[i] != '-')
            return 0;
    }
    return dot;
}

/* Privacy Badger compares lower-case hex digests, so anything else could never match. */
static int sha1_valid(const char *s, size_t n)
{
    if (n != 40)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static int json_fail(struct brock_engine *e, const char *name, const json_error_t *jerr)
{
    struct brock__data_ctx cx;

    brock__data_ctx_of(e, &cx);
    return brock__data_json_fail(&cx, name, jerr);
}

static int oom(struct brock_engine *e, const char *name)
{
    return brock__fail(e, BROCK_ENOMEM, "Out of memory while reading %s.", name);
}

/* ---- the cookieblock list ---- */

int brock__parse_yellowlist_txt(struct brock_engine *e, const char *name, const char *text,
                                size_t len, struct strvec *out)
{
    struct strvec list = {0};
    const char *p = text, *end = text + len;
    size_t line = 0;
    int rc = 0;

    if (len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *s = p, *t = eol ? eol : end;
        char dom[BROCK_HOST_MAX];

        line++;
        p = eol ? eol + 1 : end;
        while (s < t && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
            t--;
        if (s == t)
            continue;
        if (!yellow_valid(s, (size_t)(t - s))) {
            rc = brock__fail(e, BROCK_EFORMAT,
                             "%s line %zu: \"%.*s\" is not a valid cookieblock list domain.", name,
                             line, (int)((t - s) > 80 ? 80 : (t - s)), s);
            goto out;
        }
        memcpy(dom, s, (size_t)(t - s));
        dom[t - s] = '\0';
        if (strvec_push(&list, dom) < 0) {
            rc = oom(e, name);
            goto out;
        }
    }
    if (!list.n) {
        rc = brock__fail(e, BROCK_EFORMAT, "%s lists no domains.", name);
        goto out;
    }
    strvec_cleanup(out);
    *out = list;
    memset(&list, 0, sizeof(list));
out:
    strvec_cleanup(&list);
    return rc;
}

/* Checks a {name: sha1} object; nothing is taken from it unless all of it is good. */
static int hashes_check(struct brock_engine *e, const char *name, json_t *obj)
{
    const char *key;
    json_t *v;

    if (!json_is_object(obj))
        return brock__fail(e, BROCK_EFORMAT, "%s: the DNT policy hashes are not an object.", name);
    json_object_foreach(obj, key, v) {
        if (!json_is_string(v) || !sha1_valid(json_string_value(v), json_string_length(v)))
            return brock__fail(e, BROCK_EFORMAT,
                               "%s: the hash of DNT policy \"%s\" is not 40 lower-case hex "
                               "digits.",
                               name, key);
    }
    return 0;
}

/* Adds checked hashes; a hash already known keeps its name, as Privacy Badger merges them
 * additively. */
static int hashes_add(struct brock_engine *e, const char *name, json_t *obj, struct strmap *map)
{
    const char *key;
    json_t *v;

    json_object_foreach(obj, key, v) {
        const char *sha1 = json_string_value(v);
        char *copy;

        if (strmap_get(map, sha1))
            continue;
        copy = mem_strdup(key);
        if (!copy || strmap_put(map, sha1, copy) < 0) {
            mem_free(copy);
            return oom(e, name);
        }
    }
    return 0;
}

int brock__parse_pbconfig(struct brock_engine *e, const char *name, const char *text, size_t len,
                          struct strvec *yellow, json_t **hashes)
{
    struct strvec list = {0};
    json_error_t jerr;
    json_t *root, *yl, *h, *v;
    size_t i;
    int rc = 0;

    *hashes = NULL;
    root = json_loadb(text, len, 0, &jerr);
    if (!root)
        return json_fail(e, name, &jerr);
    if (!json_is_object(root)) {
        rc = brock__fail(e, BROCK_EFORMAT, "%s is not a JSON object.", name);
        goto out;
    }
    yl = json_object_get(root, "yellowlist");
    if (!json_is_array(yl) || !json_array_size(yl)) {
        rc =
            brock__fail(e, BROCK_EFORMAT,
                        "%s: \"yellowlist\" is not a non-empty array; the file is rejected.", name);
        goto out;
    }
    json_array_foreach(yl, i, v) {
        if (!json_is_string(v) || !yellow_valid(json_string_value(v), json_string_length(v))) {
            rc =
                brock__fail(e, BROCK_EFORMAT,
                            "%s: yellowlist entry %zu (%.80s) is not a valid domain; the file "
                            "is rejected.",
                            name, i + 1, json_is_string(v) ? json_string_value(v) : "not a string");
            goto out;
        }
        if (strvec_push(&list, json_string_value(v)) < 0) {
            rc = oom(e, name);
            goto out;
        }
    }
    h = json_object_get(root, "dnt_policy_hashes");
    if (h) {
        rc = hashes_check(e, name, h);
        if (rc < 0)
            goto out;
        *hashes = json_incref(h);
    } else {
        *hashes = json_object();
        if (!*hashes) {
            rc = oom(e, name);
            goto out;
        }
    }
    strvec_cleanup(yellow);
    *yellow = list;
    memset(&list, 0, sizeof(list));
out:
    strvec_cleanup(&list);
    json_decref(root);
    return rc;
}

/* Fills a set and its ordered copy from list, dropping repeats. */
static int yellow_build(struct strmap *map, struct strvec *order, const struct strvec *list)
{
    for (size_t i = 0; i < list->n; i++) {
        if (strmap_get(map, list->v[i]))
            continue;
        if (strmap_put(map, list->v[i], (void *)1) < 0 || strvec_push(order, list->v[i]) < 0)
            return BROCK_ENOMEM;
    }
    return 0;
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

/* ---- CNAME map and widgets ---- */

/* The CNAME map is the largest list (some 76,000 aliases in 4 MB): it is read as a stream
 * (yajl) straight into the map, for a whole JSON tree of it would take a tenth of a second and
 * tens of megabytes at every start of every command. */
struct cname_read {
    struct brock_engine *e;
    const char *name;
    char key[BROCK_HOST_MAX]; /* the alias whose target comes next */
    int skip;                 /* that alias is longer than any host name: it never matches */
    int depth;
    int err; /* a callback's failure (negative BROCK_E*), or 0 */
};

static int cname_bad_target(struct cname_read *r)
{
    r->err = brock__fail(r->e, BROCK_EFORMAT, "%s: the target of \"%.80s\" is not a host name.",
                         r->name, r->key);
    return 0;
}

static int cname_not_map(struct cname_read *r)
{
    r->err = brock__fail(r->e, BROCK_EFORMAT, "%s is not a JSON object of alias: target.", r->name);
    return 0;
}

/* Any value but a string: at the top the file is not a map, under an alias it is no host. */
static int cname_other(void *ctx)
{
    struct cname_read *r = ctx;

    return r->depth ? cname_bad_target(r) : cname_not_map(r);
}

static int cname_boolean(void *ctx, int b)
{
    (void)b;
    return cname_other(ctx);
}

static int cname_number(void *ctx, const char *s, size_t n)
{
    (void)s;
    (void)n;
    return cname_other(ctx);
}

static int cname_start_map(void *ctx)
{
    struct cname_read *r = ctx;

    if (r->depth)
        return cname_bad_target(r);
    r->depth = 1;
    return 1;
}

static int cname_end_map(void *ctx)
{
    (void)ctx;
    return 1;
}

static int cname_key(void *ctx, const unsigned char *s, size_t n)
{
    struct cname_read *r = ctx;

    /* The message names as much of the alias as a host name holds. */
    snprintf(r->key, sizeof(r->key), "%.*s", (int)(n < BROCK_HOST_MAX ? n : BROCK_HOST_MAX - 1),
             (const char *)s);
    if (!n || memchr(s, '\0', n))
        return cname_bad_target(r);
    r->skip = n >= BROCK_HOST_MAX;
    return 1;
}

static int cname_string(void *ctx, const unsigned char *s, size_t n)
{
    struct cname_read *r = ctx;
    char *target, *old;

    if (!r->depth)
        return cname_not_map(r);
    if (!n || n >= BROCK_HOST_MAX || memchr(s, '\0', n))
        return cname_bad_target(r);
    if (r->skip)
        return 1;
    target = mem_strndup((const char *)s, n);
    old = target ? strmap_get(&r->e->lists.cname, r->key) : NULL;
    if (!target || strmap_put(&r->e->lists.cname, r->key, target) < 0) {
        mem_free(target);
        r->err = oom(r->e, r->name);
        return 0;
    }
    /* A repeated alias: the last target holds, as in any JSON reader. */
    mem_free(old);
    return 1;
}

static const yajl_callbacks cname_callbacks = {
    .yajl_null = cname_other,
    .yajl_boolean = cname_boolean,
    .yajl_number = cname_number,
    .yajl_string = cname_string,
    .yajl_start_map = cname_start_map,
    .yajl_map_key = cname_key,
    .yajl_end_map = cname_end_map,
    .yajl_start_array = cname_other,
};

/* yajl's own message for text that is not JSON, with the line and column of the byte yajl
 * stopped at: the last of the off bytes it consumed. */
static int cname_syntax(struct cname_read *r, yajl_handle y, const char *text, size_t off)
{
    unsigned char *msg = yajl_get_error(y, 0, NULL, 0);
    size_t len = msg ? strlen((char *)msg) : 0, col = 1;
    int line = 1, rc;

    for (size_t i = 0; i + 1 < off; i++, col++)
        if (text[i] == '\n') {
            line++;
            col = 0;
        }
    while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' ' || msg[len - 1] == '.'))
        len--;
    rc = brock__fail(r->e, BROCK_EFORMAT, "%s is not valid JSON (line %d, column %zu): %.*s.",
                     r->name, line, col, (int)len, msg ? (char *)msg : "");
    if (msg)
        yajl_free_error(y, msg);
    return rc;
}

static int parse_cname(struct brock_engine *e, const char *name, const char *text, size_t len)
{
    struct cname_read r = {.e = e, .name = name};
    yajl_handle y = yajl_alloc(&cname_callbacks, NULL, &r);
    yajl_status st;
    int rc = 0;

    if (!y)
        return oom(e, name);
    st = yajl_parse(y, (const unsigned char *)text, len);
    if (st == yajl_status_ok)
        st = yajl_complete_parse(y);
    if (r.err)
        rc = r.err;
    else if (st != yajl_status_ok)
        rc = cname_syntax(&r, y, text, yajl_get_bytes_consumed(y));
    yajl_free(y);
    return rc;
}

static int widget_push(struct brock_engine *e, const char *name, struct strmap *seen,
                       const char *dom)
{
    if (strmap_get(seen, dom))
        return 0;
    if (strmap_put(seen, dom, (void *)1) < 0 || strvec_push(&e->lists.widget_domains, dom) < 0)
        return oom(e, name);
    return 0;
}

static int widget_fail(struct brock_engine *e, const char *name, const char *widget)
{
    return brock__fail(e, BROCK_EFORMAT,
                       "%s: widget \"%.80s\" has a \"domain\" that is not a string or "
                       "\"domains\" that are not an array of strings.",
                       name, widget);
}

static int parse_widgets(struct brock_engine *e, const char *name, const char *text, size_t len)
{
    struct strmap seen;
    json_error_t jerr;
    const char *widget;
    json_t *root, *w, *d;
    size_t i;
    int rc = 0;

    strmap_init(&seen);
    root = json_loadb(text, len, 0, &jerr);
    if (!root)
        return json_fail(e, name, &jerr);
    if (!json_is_object(root)) {
        rc = brock__fail(e, BROCK_EFORMAT, "%s is not a JSON object of widgets.", name);
        goto out;
    }
    json_object_foreach(root, widget, w) {
        json_t *one, *many;

        if (!json_is_object(w)) {
            rc = brock__fail(e, BROCK_EFORMAT, "%s: widget \"%.80s\" is not an object.", name,
                             widget);
            goto out;
        }
        one = json_object_get(w, "domain");
        many = json_object_get(w, "domains");
        if ((one && !json_is_string(one)) || (many && !json_is_array(many))) {
            rc = widget_fail(e, name, widget);
            goto out;
        }
        if (one && (rc = widget_push(e, name, &seen, json_string_value(one))) < 0)
            goto out;
        json_array_foreach(many, i, d) {
            if (!json_is_string(d)) {
                rc = widget_fail(e, name, widget);
                goto out;
            }
            if ((rc = widget_push(e, name, &seen, json_string_value(d))) < 0)
                goto out;
        }
    }
    /* The rest of each widget (its selectors, the domains a click allows) is read where it is
     * used (widgets.c), leniently: a widget with odd fields is only never replaced. */
    json_decref(e->lists.widgets);
    e->lists.widgets = json_incref(root);
out:
    strmap_cleanup(&seen, NULL);
    json_decref(root);
    return rc;
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
    struct strvec yellow = {0};
    json_t *pb_hashes = NULL, *file_hashes = NULL;
    char path[4096], *text = NULL;
    json_error_t jerr;
    size_t len = 0;
    int rc;

    rc = find_read(e, dir, DIRS_DATA, "pbconfig.json", path, &text, &len);
    if (rc == 0)
        rc = find_read(e, dir, DIRS_DATA, "yellowlist.txt", path, &text, &len);
    else if (rc == 1)
        rc = brock__parse_pbconfig(e, path, text, len, &yellow, &pb_hashes);
    if (rc == 0 && !pb_hashes)
        rc = missing(e, dir, "cookieblock list (pbconfig.json or data/yellowlist.txt)");
    else if (rc == 1)
        rc = brock__parse_yellowlist_txt(e, path, text, len, &yellow);
    mem_free(text);
    text = NULL;
    if (rc < 0)
        goto out;
    rc = yellow_build(&e->lists.yellow, &e->lists.yellow_order, &yellow);
    if (rc < 0) {
        rc = oom(e, dir);
        goto out;
    }

    rc = find_read(e, dir, DIRS_DATA, "dnt-policies.json", path, &text, &len);
    if (rc == 0 && !pb_hashes)
        rc = missing(e, dir, "DNT policy hashes (pbconfig.json or data/dnt-policies.json)");
    if (rc == 1) {
        file_hashes = json_loadb(text, len, 0, &jerr);
        rc = file_hashes ? hashes_check(e, path, file_hashes) : json_fail(e, path, &jerr);
        if (rc == 0)
            rc = hashes_add(e, path, file_hashes, &e->lists.dnt_hashes);
    }
    if (rc == 0 && pb_hashes)
        rc = hashes_add(e, "pbconfig.json", pb_hashes, &e->lists.dnt_hashes);
out:
    mem_free(text);
    json_decref(pb_hashes);
    json_decref(file_hashes);
    strvec_cleanup(&yellow);
    return rc;
}

/* An optional JSON list: absent is fine, malformed is not. */
static int load_optional(struct brock_engine *e, const char *dir, const char *file,
                         int (*parse)(struct brock_engine *, const char *, const char *, size_t))
{
    char path[4096], *text = NULL;
    size_t len;
    int rc = find_read(e, dir, DIRS_DATA, file, path, &text, &len);

    if (rc == 1)
        rc = parse(e, path, text, len);
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
        rc = load_optional(e, dir, "socialwidgets.json", parse_widgets);
    if (rc == 0)
        rc = load_optional(e, dir, "cname_domains.json", parse_cname);
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

/* ---- lookups ---- */

int brock__yellowlisted(const struct brock_engine *e, const char *domain)
{
    return strmap_get(&e->lists.yellow, domain) != NULL;
}

int brock__would_cookieblock(const struct brock_engine *e, const char *fqdn)
{
    for (const char *d = fqdn; d; d = brock__parent(d))
        if (brock__yellowlisted(e, d))
            return 1;
    return 0;
}

const char *brock__cname(const struct brock_engine *e, const char *fqdn, size_t len)
{
    return e->lists.cname.len ? strmap_getn(&e->lists.cname, fqdn, len) : NULL;
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
    rc = yellow_build(&map, &order, list);
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
