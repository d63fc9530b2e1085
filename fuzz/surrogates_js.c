/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Debian's surrogates.js as the engine reads it (brock__surrogates_js_read(): the tokenizer,
 * the hostnames and surrogates objects, aliases, the reformatting), on a fresh memory-only
 * engine; a read that succeeds is then matched against a few requests. A refused file must
 * say why. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine/engine.h"
#include "engine/surrogate.h"
#include "engine_open.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const hosts[] = {"a.example", "cdn.krxd.net", "www.google-analytics.com"};
    struct brock_engine *e = fuzz_engine_open();
    struct brock__surrogates *s = NULL;
    const char *token;
    size_t len;
    int rc;

    if (brock__surrogates_new(&s) != 0)
        abort();
    rc = brock__surrogates_js_read(e, "surrogates.js", (const char *)data, size, s);
    if (rc == 0) {
        for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
            (void)brock__surrogates_find(s, hosts[i], "https://x/a.js?b=c", BROCK_RESOURCE_SCRIPT,
                                         NULL, NULL, &len, &token);
            (void)brock__surrogates_find(s, hosts[i], NULL, BROCK_RESOURCE_SCRIPT, NULL, NULL, &len,
                                         &token);
        }
    } else if (!brock_engine_errmsg(e)[0]) {
        abort(); /* every refusal names the file and the fault */
    }
    brock__surrogates_free(s);
    brock_engine_free(e);
    return 0;
}
