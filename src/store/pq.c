/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * libpq by dlopen() (pq.h): the library and its functions, resolved once for the process and
 * kept until it exits (libpq is never unloaded: its connections may outlive an engine).
 */
#include "store/pq.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

const struct brock_pq *brock__pq;

static pthread_once_t pq_once = PTHREAD_ONCE_INIT;
static struct brock_pq pq_table;
static char pq_error[512]; /* why loading failed; "" when it succeeded */

/* dlsym()'s answer for name, NULL (pq_error said) when the library has no such function. */
static void *pq_symbol(void *lib, const char *name)
{
    void *sym;

    (void)dlerror();
    sym = dlsym(lib, name);
    if (!sym) {
        const char *why = dlerror();

        snprintf(pq_error, sizeof(pq_error),
                 "PostgreSQL store: %s has no function %s (libpq 14 or newer is needed): %s",
                 BROCK_PQ_LIBRARY, name, why ? why : "not found");
    }
    return sym;
}

static void pq_setup(void)
{
    void *lib = dlopen(BROCK_PQ_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    struct brock_pq t;

    if (!lib) {
        const char *why = dlerror();

        snprintf(pq_error, sizeof(pq_error),
                 "PostgreSQL store: cannot load %s (install libpq5): %s", BROCK_PQ_LIBRARY,
                 why ? why : "unknown error");
        return;
    }
    /* POSIX's dlsym() returns a function's address as a void *, converted back here. */
#define BROCK_PQ_RESOLVE(f)                                                                        \
    if (!(t.f = (__typeof__(t.f))pq_symbol(lib, #f))) {                                            \
        dlclose(lib);                                                                              \
        return;                                                                                    \
    }
    BROCK_PQ_FUNCTIONS(BROCK_PQ_RESOLVE)
#undef BROCK_PQ_RESOLVE
    pq_table = t;
    brock__pq = &pq_table;
}

const struct brock_pq *brock__pq_load(char *err, size_t n)
{
    pthread_once(&pq_once, pq_setup);
    if (!brock__pq && n)
        snprintf(err, n, "%s", pq_error);
    return brock__pq;
}
