/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What every unit test includes: cmocka, and where the shared test data is. */
#ifndef BROCK_TEST_H
#define BROCK_TEST_H

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
    static char path[4096];
    const char *dir = getenv("BROCK_TESTDATA");

    snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : "tests/data", rel);
    return path;
}

#endif
