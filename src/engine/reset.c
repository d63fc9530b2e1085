/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Resetting what was learned to Privacy Badger's seed, as its options page and its update do:
 * the user's choices are set aside, everything is cleared, the seed is merged, and the choices
 * are put back, so that a name the user had set gets the seed's heuristic action again.
 */
#include "engine/engine.h"

#include <string.h>

#include "util/alloc.h"

struct saved_choice {
    char *domain;
    uint8_t user;
};

static void choices_free(struct saved_choice *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mem_free(v[i].domain);
    mem_free(v);
}

/* The user's choices, copied. Returns 0 or BROCK_ENOMEM. */
static int choices_save(struct brock_engine *e, struct saved_choice **out, size_t *n_out)
{
    struct saved_choice *v = NULL;
    size_t n = 0, cap = 0, it = 0;
    struct action_entry *a;

    while (strmap_next(&e->actions, &it, NULL, (void **)&a)) {
        if (a->user == BROCK_NOACTION)
            continue;
        if (mem_grow(&v, &cap, n + 1, sizeof(*v)) < 0 || !(v[n].domain = mem_strdup(a->domain))) {
            choices_free(v, n);
            return BROCK_ENOMEM;
        }
        v[n++].user = a->user;
    }
    *out = v;
    *n_out = n;
    return 0;
}

int brock_reset(struct brock_engine *e)
{
    struct saved_choice *saved = NULL;
    size_t n_saved = 0;
    json_t *seed = NULL;
    int rc;

    /* The seed is read first: one that cannot be read or is not valid changes nothing. */
    if (e->lists.seed_path[0] && (rc = brock__seed_read(e, &seed)) < 0)
        return rc;
    if (choices_save(e, &saved, &n_saved) < 0) {
        json_decref(seed);
        return brock__fail(e, BROCK_ENOMEM, "Out of memory while resetting.");
    }
    strmap_cleanup(&e->actions, mem_free);
    strmap_init(&e->actions);
    brock__answers_forget(e);
    strmap_cleanup(&e->snitches, brock__snitch_free);
    brock__learned_clear(e);
    strmap_cleanup(&e->tracking, brock__tracking_free);
    strmap_cleanup(&e->fp_scripts, brock__fp_free);
    e->n_fp_paths = 0;
    /* The store empties its tables and writes back what memory holds from now on. */
    e->reset_pending = 1;
    e->dirty++;
    rc = seed ? brock__seed_apply(e, seed) : 0;
    /* The choices go back over what the seed says, as Privacy Badger's update re-applies
     * them after merging it. */
    for (size_t i = 0; rc == 0 && i < n_saved; i++) {
        struct action_entry *a = brock__action_ensure(e, saved[i].domain);
        if (!a) {
            rc = brock__fail(e, BROCK_ENOMEM, "Out of memory while resetting.");
            break;
        }
        a->user = saved[i].user;
        brock__action_touch(e, a, BROCK__DIRTY_USER);
    }
    choices_free(saved, n_saved);
    json_decref(seed);
    return rc;
}
