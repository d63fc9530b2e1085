/* SPDX-License-Identifier: GPL-3.0-or-later */
/* ClearURLs' rules and URLs: the first byte chooses. Odd, the rest is a rules file, loaded
 * into a fresh engine, then a URL cleaned by it. Even, the rest is a URL, cleaned by a few
 * providers of every kind (a pattern, exceptions, a redirection, raw rules, parameter
 * names); what comes out is never longer than what went in, unless unwrapped, a URL left
 * alone is given back as it was, and the fast path gives what the plain one does. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brock.h"
#include "engine/engine.h"
#include "engine_open.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char rules[] =
    "{\"providers\": {"
    "\"global\": {\"urlPattern\": \".*\", \"rules\": [\"(?:%3F)?utm(?:_[a-z_]*)?\", \"fbclid\"],"
    " \"referralMarketing\": [\"ref_?\"], \"exceptions\": [\"^https?://keep\\\\.example\"]},"
    "\"wrap\": {\"urlPattern\": \"^https?://l\\\\.wrap\\\\.example\","
    " \"redirections\": [\"^https?://l\\\\.wrap\\\\.example/l\\\\?.*?u=(https?%3A%2F%2F[^&]*)\"]},"
    "\"shop\": {\"urlPattern\": \"^https?://(?:[a-z0-9-]+\\\\.)*?shop\\\\.example\","
    " \"rawRules\": [\"/ref=[^/?]*\"], \"rules\": [\"qid\", \"sr\"]},"
    "\"whole\": {\"urlPattern\": \"^https?://px\\\\.whole\\\\.example\", \"completeProvider\": "
    "true}"
    "}}";

static struct brock_engine *with_rules;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char out[BROCK_URL_MAX], plain[BROCK_URL_MAX], url[BROCK_URL_MAX + 16];
    struct brock_clean c, p;
    int rc;

    if (!size)
        return 0;
    if (data[0] & 1) {
        struct brock_engine *e = fuzz_engine_open();

        if (brock_clearurls_load(e, (const char *)data + 1, size - 1) == 0)
            (void)brock_clean_url(e, "https://www.example.com/a?utm_source=x&id=1#b", out,
                                  sizeof(out), &c);
        brock_engine_free(e);
        return 0;
    }
    if (!with_rules) {
        with_rules = fuzz_engine_open();
        if (brock_clearurls_load(with_rules, rules, sizeof(rules) - 1) != 0)
            abort();
    }
    if (size - 1 > sizeof(url) - 9 || memchr(data + 1, '\0', size - 1))
        return 0;
    memcpy(url, "https://", 8);
    memcpy(url + 8, data + 1, size - 1);
    url[8 + size - 1] = '\0';
    rc = brock_clean_url(with_rules, url, out, sizeof(out), &c);
    /* The fast path gives what the plain one does. */
    if (brock__clean_url_plain(with_rules, url, plain, sizeof(plain), &p) != rc ||
        (rc >= 0 && (strcmp(out, plain) != 0 || strcmp(c.removed, p.removed) != 0)))
        abort();
    if (rc < 0)
        return 0;
    if ((rc == BROCK_CLEAN_NONE || rc == BROCK_CLEAN_BLOCK) && strcmp(out, url) != 0)
        abort();
    if (rc == BROCK_CLEAN_STRIPPED && strlen(out) >= strlen(url))
        abort();
    return 0;
}
