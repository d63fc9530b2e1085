/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP Archives as `brock learn` reads them: validated whole, then learned from, on a fresh
 * memory-only engine; what was learned is exported again. */
#include <stddef.h>
#include <stdint.h>

#include "brock.h"
#include "engine_open.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct brock_engine *e = fuzz_engine_open();
    struct brock_stats st;
    char *out = NULL;
    size_t len = 0;

    if (brock_learn_har(e, "fuzz.har", (const char *)data, size, NULL, NULL, &st) == 0 &&
        brock_export(e, "pb", &out, &len) == 0)
        brock_free(out);
    brock_engine_free(e);
    return 0;
}
