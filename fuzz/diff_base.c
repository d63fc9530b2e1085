/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A differential target: the engine's base domains (a cache, and a name's base told from its
 * parent's) against libpsl asked directly (brock_base_domain()); its third-party test
 * (bases compared as lengths and offsets) against Privacy Badger's isThirdParty and the
 * multi-domain first parties asked plainly; the private-host test against its plain form.
 * The input is host names, one a line, normalised first; each is asked after its parents in
 * one order or another, so that the cache is filled the ways browsing fills it, and paired
 * with the others and with the names of diff_data.h, whose lists the engine has. Any
 * difference aborts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brock.h"
#include "engine/engine.h"
#include "engine/names.h"
#include "diff_data.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAMES 16

static void check_base(struct brock_engine *e, const char *host)
{
    char want[BROCK_HOST_MAX];

    if (brock_base_domain(host, want) < 0)
        want[0] = '\0';
    if (strcmp(brock__base(e, host), want) != 0)
        abort();
    if (brock__is_private(host) != brock__is_private_plain(host))
        abort();
}

/* host's parents, from its top label down (top) or from its own parent up. */
static void check_parents(struct brock_engine *e, const char *host, int top)
{
    const char *p;

    if (top) {
        for (p = strrchr(host, '.'); p; p = memrchr(host, '.', (size_t)(p - host)))
            check_base(e, p + 1);
    } else {
        for (p = strchr(host, '.'); p; p = strchr(p + 1, '.'))
            check_base(e, p + 1);
    }
}

/* isThirdPartyDomain asked plainly: isThirdParty, and the two bases (from libpsl) not in one
 * multi-domain first party. */
static int third_party_plain(struct brock_engine *e, const char *a, const char *b)
{
    char ba[BROCK_HOST_MAX], bb[BROCK_HOST_MAX];

    if (!brock__is_third_party(a, b))
        return 0;
    if (brock_base_domain(a, ba) <= 0 || brock_base_domain(b, bb) <= 0)
        return 1;
    return !brock__is_mdfp(e, ba, bb);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char host[NAMES][BROCK_HOST_MAX];
    struct brock_engine *e = fuzz_engine_lists();
    const char *s = (const char *)data, *end = s + size;
    size_t n = 0;

    while (s <= end && n < NAMES) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t len = nl ? (size_t)(nl - s) : (size_t)(end - s);

        if (brock_host_normalize(s, len, host[n]) > 0)
            n++;
        s += len + 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (i % 3 != 2)
            check_parents(e, host[i], i % 3);
        check_base(e, host[i]);
        if (i % 3 == 2)
            check_parents(e, host[i], 1);
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++)
            if (brock__is_third_party_domain(e, host[i], host[j]) !=
                third_party_plain(e, host[i], host[j]))
                abort();
        for (size_t j = 0; j < FUZZ_NAMES; j++) {
            char other[BROCK_HOST_MAX];

            if (brock_host_normalize(fuzz_names[j], strlen(fuzz_names[j]), other) <= 0)
                continue;
            if (brock__is_third_party_domain(e, host[i], other) !=
                    third_party_plain(e, host[i], other) ||
                brock__is_third_party_domain(e, other, host[i]) !=
                    third_party_plain(e, other, host[i]))
                abort();
        }
    }
    brock_engine_free(e);
    return 0;
}
