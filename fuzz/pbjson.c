/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Privacy Badger exports and seeds as `brock import` merges them, on a fresh memory-only
 * engine; what was merged is exported again and imported once more. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "brock.h"
#include "engine_open.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct brock_engine *e = fuzz_engine_open();
    struct brock_stats st;
    char *out = NULL;
    size_t len = 0;

    if (brock_import(e, "fuzz.json", (const char *)data, size, &st) == 0 &&
        brock_export(e, "pb", &out, &len) == 0) {
        /* An export must import again. */
        if (brock_import(e, "export.json", out, len, &st) != 0)
            abort();
        brock_free(out);
    }
    brock_engine_free(e);
    return 0;
}
