/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Debian's surrogates.js as the engine reads it (brock__surrogates_js_read(): the tokenizer,
 * the hostnames and surrogates objects, aliases, the reformatting), with a reader's context
 * of its own; a read that succeeds is then matched against a few requests. A refused file
 * must say why. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "data/surrogate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const hosts[] = {"a.example", "cdn.krxd.net", "www.google-analytics.com"};
    char msg[512] = "";
    const struct brock__data_ctx cx = {msg, sizeof(msg), NULL, NULL};
    struct brock__surrogates *s = NULL;
    const char *token;
    size_t len;
    int rc;

    if (brock__surrogates_new(&s) != 0)
        abort();
    rc = brock__surrogates_js_read(&cx, "surrogates.js", (const char *)data, size, s);
    if (rc == 0) {
        for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
            (void)brock__surrogates_find(s, hosts[i], "https://x/a.js?b=c", BROCK_RESOURCE_SCRIPT,
                                         NULL, NULL, &len, &token);
            (void)brock__surrogates_find(s, hosts[i], NULL, BROCK_RESOURCE_SCRIPT, NULL, NULL, &len,
                                         &token);
        }
    } else if (!msg[0]) {
        abort(); /* every refusal names the file and the fault */
    }
    brock__surrogates_free(s);
    return 0;
}
