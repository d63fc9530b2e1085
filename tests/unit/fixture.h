/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The engine tests' one fixture: a temporary folder with the names of an engine's state below
 * it, and engines opened on it or on the test data, the test failed when they cannot be.
 * Included by test.h, after its helpers. */
#ifndef BROCK_TEST_FIXTURE_H
#define BROCK_TEST_FIXTURE_H

/* A temporary folder, tmp, and the names a test uses below it. None but tmp exists at first:
 * the engine makes its state folder itself, and test_link_data() makes data when the test wants
 * one. test_fixture_free() removes tmp and everything below it. */
struct test_fixture {
    char tmp[128];
    char state[144]; /* tmp/state, the engine's state folder */
    char data[144];  /* tmp/data, a data folder the test makes */
    char db[160];    /* tmp/state/brock.db, the state's database */
    char aside[160]; /* tmp/aside.db, a place to put a database aside */
};

/* A new fixture below $TMPDIR/brock-NAME-XXXXXX; the test fails when it cannot be made. */
static inline struct test_fixture *test_fixture_new(const char *name)
{
    struct test_fixture *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    test_mkdtemp(name, f->tmp, sizeof(f->tmp));
    snprintf(f->state, sizeof(f->state), "%s/state", f->tmp);
    snprintf(f->data, sizeof(f->data), "%s/data", f->tmp);
    snprintf(f->db, sizeof(f->db), "%s/brock.db", f->state);
    snprintf(f->aside, sizeof(f->aside), "%s/aside.db", f->tmp);
    return f;
}

/* Removes the fixture's folder (never following the data folder's links) and frees it.
 * Returns 0, or -1 when something stayed. */
static inline int test_fixture_free(struct test_fixture *f)
{
    int rc = f ? test_rmtree(f->tmp) : 0;

    free(f);
    return rc;
}

/* A cmocka teardown for a fixture that a setup put in *state. */
static inline int test_fixture_teardown(void **state)
{
    int rc = test_fixture_free(*state);

    *state = NULL;
    return rc;
}

/* An engine on the fixture's state with data_dir's lists (NULL: none), seeded or not. */
static inline struct brock_engine *test_fixture_open(const struct test_fixture *f,
                                                     const char *data_dir, int no_seed)
{
    return test_engine_open(f->state, data_dir, no_seed);
}

/* An engine on state_dir (NULL: memory only) with the test data's Privacy Badger lists, not
 * seeded: the engine most decision tests start from. */
static inline struct brock_engine *test_engine_pb(const char *state_dir)
{
    return test_engine_open(state_dir, test_data("privacybadger"), 1);
}

#endif
