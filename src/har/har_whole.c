/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading an HTTP Archive whole: the plain computation the streaming reader (har_scan.c)
 * stands in for. The text is parsed at once by jansson and its log.pages and log.entries
 * handed to the same callbacks; an entry read again is the document's own element, by its
 * index. It holds the whole document, so brock uses it only on an engine whose fast paths
 * are off (the differential tests compare what the two make a state learn).
 */
#include "har/har.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "util/alloc.h"

/* The text of src whole, into *out (mem_free) when it is a file's. */
static int read_all(struct brock_engine *e, const struct har_src *src, const char *name,
                    const char **text, char **out)
{
    size_t at = 0, n = src->len - src->start;

    *out = NULL;
    if (src->text) {
        *text = src->text + src->start;
        return 0;
    }
    *out = mem_malloc(n + 1);
    if (!*out)
        return brock__fail(e, BROCK_ENOMEM, "%s: out of memory", name);
    while (at < n) {
        ssize_t r = pread(src->fd, *out + at, n - at, (off_t)(src->start + at));

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return brock__fail(e, BROCK_EIO, "%s: %s", name,
                               r < 0 ? strerror(errno) : "it shrank while it was read");
        at += (size_t)r;
    }
    *text = *out;
    return 0;
}

int brock__har_scan_whole(struct brock_engine *e, struct har_src *src, const struct har_scan_cb *cb,
                          struct har_doc *doc)
{
    const char *text = NULL;
    char *copy = NULL;
    json_error_t jerr;
    json_t *root = NULL, *log, *list;
    size_t i;
    json_t *v;
    int err;

    memset(doc, 0, sizeof(*doc));
    src->whole = NULL;
    err = read_all(e, src, cb->name, &text, &copy);
    if (err < 0)
        goto out;
    /* JSON has no raw NUL byte, in a string or between tokens; jansson lets one through after
     * a number, where yajl (the streaming reader) refuses it. */
    if (text && memchr(text, '\0', src->len - src->start)) {
        err = brock__fail(e, BROCK_EFORMAT, "%s: not JSON: a NUL byte", cb->name);
        goto out;
    }
    root = json_loadb(text, src->len - src->start, JSON_ALLOW_NUL, &jerr);
    if (!root) {
        err = brock__fail(e, BROCK_EFORMAT, "%s: not JSON: line %d: %s", cb->name, jerr.line,
                          jerr.text);
        goto out;
    }
    doc->root = brock__har_kind_of(root);
    log = json_object_get(root, "log");
    doc->log = log ? brock__har_kind_of(log) : NULL;
    list = json_object_get(log, "pages");
    doc->pages = list ? brock__har_kind_of(list) : NULL;
    json_array_foreach(list, i, v) {
        if ((err = cb->on_page(cb->arg, i, v)) < 0)
            goto out;
    }
    list = json_object_get(log, "entries");
    doc->entries = list ? brock__har_kind_of(list) : NULL;
    json_array_foreach(list, i, v) {
        /* The entry's place is its index: brock__har_load_entry() takes it back from the
         * document. */
        if ((err = cb->on_entry(cb->arg, i, v, i, 1)) < 0)
            goto out;
    }
    src->whole = root;
    root = NULL; /* the caller's now, through src->whole */
    err = 0;
out:
    json_decref(root);
    mem_free(copy);
    return err;
}

int brock__har_whole_entry(const struct har_src *src, size_t i, json_t **out)
{
    *out = json_incref(
        json_array_get(json_object_get(json_object_get(src->whole, "log"), "entries"), i));
    return *out ? 0 : BROCK_EFORMAT;
}
