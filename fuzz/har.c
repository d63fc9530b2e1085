/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP Archives as `brock learn` reads them: read leniently, then learned from, on a fresh
 * memory-only engine; what was learned is exported again. Every warning must name the file,
 * and every unreadable entry must have been warned about. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brock.h"
#include "engine_open.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void on_warning(void *arg, const char *msg)
{
    size_t *n = arg;

    if (strncmp(msg, "fuzz.har: ", 10) != 0 || strlen(msg) < 20)
        abort();
    (*n)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct brock_engine *e = fuzz_engine_open();
    struct brock_stats st;
    char *out = NULL;
    size_t len = 0, warned = 0;

    if (brock_learn_har(e, "fuzz.har", (const char *)data, size, NULL, on_warning, &warned, &st) ==
        0) {
        if (st.warnings < st.unreadable || (st.warnings && !warned) || warned > st.warnings)
            abort();
        if (brock_export(e, "pb", &out, &len) == 0)
            brock_free(out);
    }
    brock_engine_free(e);
    return 0;
}
