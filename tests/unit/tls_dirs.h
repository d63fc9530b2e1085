/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Two fresh state folders for the tests of the local CA and what uses it, removed after. */
#ifndef BROCK_TEST_TLS_DIRS_H
#define BROCK_TEST_TLS_DIRS_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "net/ca.h"
#include "util/alloc.h"
#include "util/file.h"

struct dirs {
    char a[4096], b[4096];
};

static inline void rm_state(const char *dir)
{
    char cert[4096], key[4096], ca[4096];

    if (ca_paths(dir, cert, key, sizeof(cert)) == 0) {
        unlink(cert);
        unlink(key);
    }
    snprintf(ca, sizeof(ca), "%s/%s", dir, CA_DIR);
    rmdir(ca);
    rmdir(dir);
}

static inline int setup(void **state)
{
    struct dirs *d = calloc(1, sizeof(*d));
    const char *tmp = getenv("TMPDIR");

    if (!d)
        return -1;
    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(d->a, sizeof(d->a), "%s/brock-test-tls-XXXXXX", tmp);
    snprintf(d->b, sizeof(d->b), "%s/brock-test-tls-XXXXXX", tmp);
    if (!mkdtemp(d->a) || !mkdtemp(d->b)) {
        free(d);
        return -1;
    }
    *state = d;
    return 0;
}

static inline int teardown(void **state)
{
    struct dirs *d = *state;

    rm_state(d->a);
    rm_state(d->b);
    free(d);
    return 0;
}

/* A whole file, NUL-terminated (mem_free). */
static inline char *slurp(const char *path)
{
    char *data = NULL;
    size_t len;

    assert_int_equal(file_read(path, 1 << 20, &data, &len), 0);
    return data;
}

#endif
