/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Privacy Badger's pbconfig.json as `brock update` applies it (cookieblock list, DNT policy
 * hashes, site fixes), on a fresh memory-only engine, then a few decisions made under it. */
#include <stddef.h>
#include <stdint.h>

#include "brock.h"
#include "engine_open.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct brock_engine *e = fuzz_engine_open();
    struct brock_update_stats st;
    struct brock_decision d;

    if (brock_update_apply(e, "pbconfig.json", (const char *)data, size, 1700000000000, &st) == 0) {
        (void)brock_decide(e, "cdn.example.com", "news.example.org", &d);
        (void)brock_decide(e, "www.google.com", "example.org", &d);
    }
    brock_engine_free(e);
    return 0;
}
