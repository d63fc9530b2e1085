/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Resetting what was learned to Privacy Badger's seed, as its options page does: everything
 * learned or imported goes, the user's own choices stay, and the seed is loaded again.
 */
#include "engine/engine.h"

#include "util/alloc.h"

int brock_reset(struct brock_engine *e)
{
    const char *key;
    void *val;
    size_t it = 0;
    json_t *seed = NULL;
    int rc;

    /* The seed is read first: one that cannot be read or is not valid changes nothing. */
    if (e->lists.seed_path[0] && (rc = brock__seed_read(e, &seed)) < 0)
        return rc;
    while (strmap_next(&e->actions, &it, &key, &val)) {
        struct action_entry *a = val;

        if (a->user == BROCK_NOACTION) {
            strmap_del(&e->actions, key);
            mem_free(a);
            continue;
        }
        /* A user's choice outlives what was learned for the same name. */
        a->heur = BROCK_NOACTION;
        a->dnt = 0;
        a->next_update = 0;
    }
    strmap_cleanup(&e->snitches, brock__snitch_free);
    strmap_cleanup(&e->tracking, brock__tracking_free);
    strmap_cleanup(&e->fp_scripts, brock__fp_free);
    /* The store empties its tables and writes back what memory holds from now on. */
    e->reset_pending = 1;
    e->dirty++;
    if (!seed)
        return 0;
    rc = brock__seed_apply(e, seed);
    json_decref(seed);
    return rc;
}
