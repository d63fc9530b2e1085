/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Reading Privacy Badger's data again while the engine runs (a package upgrade, an edited
 * list): every file read and checked first, then a changed cookieblock list applied by the
 * rules of an update, hashes only ever added, the rest replaced.
 */
#include "engine/engine.h"

#include <string.h>

#include "util/alloc.h"

/* Privacy Badger never forgets an accepted policy: the hashes known before (from the data
 * folder, an update) join the ones just read. Returns 0 or BROCK_ENOMEM. */
static int hashes_keep(const struct strmap *known, struct strmap *fresh)
{
    const char *sha1;
    void *name;
    size_t it = 0;

    while (strmap_next(known, &it, &sha1, &name)) {
        char *copy;

        if (strmap_get(fresh, sha1))
            continue;
        copy = mem_strdup(name);
        if (!copy || strmap_put(fresh, sha1, copy) < 0) {
            mem_free(copy);
            return BROCK_ENOMEM;
        }
    }
    return 0;
}

static void swap_yellow(struct brock_lists *a, struct brock_lists *b)
{
    struct strmap map = a->yellow;
    struct strvec order = a->yellow_order;

    a->yellow = b->yellow;
    a->yellow_order = b->yellow_order;
    b->yellow = map;
    b->yellow_order = order;
}

int brock_engine_reload(struct brock_engine *e, struct brock_update_stats *stats)
{
    struct brock_update_stats st;
    struct brock_lists fresh;
    struct brock__sitefixes *fixes = NULL;
    /* A configuration from `brock update` wins over the data folder's, as at open: its
     * cookieblock list and site fixes stay. */
    int from_data = e->pbconfig == NULL;
    int rc;

    memset(&st, 0, sizeof(st));
    rc = brock__lists_reread(e, &fresh);
    if (rc < 0)
        return rc;
    if (from_data && (rc = brock__data_sitefixes_read(e, &fixes)) < 0)
        goto out;
    if (hashes_keep(&e->lists.dnt_hashes, &fresh.dnt_hashes) < 0) {
        rc = brock__fail(e, BROCK_ENOMEM, "Out of memory while reading %s again.", fresh.data_dir);
        goto out;
    }
    /* The list in force goes to the new one by the rules of an update, in place: what was
     * learned follows it. The last step that can fail. */
    if (from_data && (rc = brock__yellowlist_follow(e, &fresh.yellow_order, &st)) < 0)
        goto out;
    st.yellow = e->lists.yellow_order.n;
    st.hashes_added = fresh.dnt_hashes.len - e->lists.dnt_hashes.len;
    swap_yellow(&fresh, &e->lists);
    brock__answers_forget(e);
    {
        struct brock_lists old = e->lists;

        e->lists = fresh;
        fresh = old;
    }
    if (from_data) {
        brock__sitefixes_free(e->sitefixes);
        e->sitefixes = fixes;
        fixes = NULL;
    }
    st.site_fixes = brock__sitefixes_count(e->sitefixes);
    if (stats)
        *stats = st;
out:
    brock__sitefixes_free(fixes);
    brock__lists_cleanup(&fresh);
    return rc;
}
