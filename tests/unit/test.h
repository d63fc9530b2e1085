/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What every unit test includes: cmocka, and where the shared test data is. */
#ifndef BROCK_TEST_H
#define BROCK_TEST_H

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

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

#endif
