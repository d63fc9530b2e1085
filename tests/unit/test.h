/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What every unit test includes: cmocka, where the shared test data is, temporary folders, an
 * engine opened or the test failed, and the shared fixture (fixture.h). */
#ifndef BROCK_TEST_H
#define BROCK_TEST_H

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "brock.h"

/* The path of a file under the test data folder ($BROCK_TESTDATA, default tests/data from the
 * repository's top), in a static buffer. */
static inline const char *test_data(const char *rel)
{
    static char path[PATH_MAX], dir[PATH_MAX];
    const char *env = getenv("BROCK_TESTDATA");

    /* Absolute, so that a symbolic link made to it works from any folder. */
    if (!realpath(env && *env ? env : "tests/data", dir))
        snprintf(dir, sizeof(dir), "%s", env && *env ? env : "tests/data");
    if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
        path[0] = '\0';
    return path;
}

/* A new folder $TMPDIR/brock-NAME-XXXXXX (default /tmp), its name into dir; fails the test when
 * it cannot be made. */
static inline void test_mkdtemp(const char *name, char *dir, size_t size)
{
    const char *tmp = getenv("TMPDIR");

    if (snprintf(dir, size, "%s/brock-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name) >= (int)size)
        fail_msg("the temporary folder's name is too long");
    if (!mkdtemp(dir))
        fail_msg("cannot make %s", dir);
}

static inline int test_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes path and everything below it. Returns 0, or -1 when something stayed. */
static inline int test_rmtree(const char *path)
{
    return nftw(path, test_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Makes the folder dir (mode 0700) of links to each of the test data's Privacy Badger files
 * but those named in skip (NULL-terminated), which the test writes or leaves out. */
static inline void test_link_data(const char *dir, const char *const *skip)
{
    char src[PATH_MAX + 256], dst[PATH_MAX + 256], real[PATH_MAX];
    struct dirent *de;
    DIR *d;

    if (mkdir(dir, 0700) != 0 || !realpath(test_data("privacybadger"), real) ||
        !(d = opendir(real)))
        fail_msg("cannot make %s of the test data's links", dir);
    while ((de = readdir(d))) {
        const char *const *k = skip;

        while (k && *k && strcmp(*k, de->d_name) != 0)
            k++;
        if (de->d_name[0] == '.' || (k && *k))
            continue;
        snprintf(src, sizeof(src), "%s/%s", real, de->d_name);
        snprintf(dst, sizeof(dst), "%s/%s", dir, de->d_name);
        if (symlink(src, dst) != 0)
            fail_msg("cannot link %s", dst);
    }
    closedir(d);
}

/* An engine opened with cfg; the test fails with the engine's words when it cannot be. */
static inline struct brock_engine *test_engine_with(const struct brock_config *cfg)
{
    struct brock_engine *e = NULL;
    char err[512] = "";

    if (brock_engine_open(cfg, &e, err, sizeof(err)) != 0)
        fail_msg("open %s on %s: %s", cfg->state_dir ? cfg->state_dir : "(memory)",
                 cfg->data_dir ? cfg->data_dir : "(no data)", err);
    return e;
}

/* An engine on state_dir (NULL: memory only) with data_dir's lists (NULL: none), seeded or not;
 * the test fails with the engine's words when it cannot be opened. */
static inline struct brock_engine *test_engine_open(const char *state_dir, const char *data_dir,
                                                    int no_seed)
{
    struct brock_config cfg = {.state_dir = state_dir, .data_dir = data_dir, .no_seed = no_seed};

    return test_engine_with(&cfg);
}

/* The choices for one site only that brock_site_actions() lists for site (NULL: every site),
 * as "domain@site=action" joined by spaces, into buf. */
static inline const char *test_list_site_choices(struct brock_engine *e, const char *site,
                                                 char *buf, size_t len)
{
    struct brock_site_action *v = NULL;
    size_t n = 0, used = 0;

    assert_true(brock_site_actions(e, site, &v, &n) >= 0);
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%s@%s=%s", i ? " " : "", v[i].domain,
                                 v[i].site, brock_action_name(v[i].action));
    brock_free(v);
    return buf;
}

#include "fixture.h"

#endif
