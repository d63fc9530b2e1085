/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A fresh engine for one fuzz input: memory only, no lists, no seed, so that nothing of
 * one input carries over to the next. */
#ifndef BROCK_FUZZ_ENGINE_OPEN_H
#define BROCK_FUZZ_ENGINE_OPEN_H

#include <stdlib.h>

#include "brock.h"

static inline struct brock_engine *fuzz_engine_open(void)
{
    struct brock_config cfg = {0};
    struct brock_engine *e = NULL;

    cfg.no_seed = 1;
    if (brock_engine_open(&cfg, &e, NULL, 0) != 0)
        abort(); /* the fuzzer cannot go on without one */
    return e;
}

#endif
