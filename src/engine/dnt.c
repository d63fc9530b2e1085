/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The EFF Do Not Track policy (section 9): when a host's policy is due for a check, whether
 * a fetched text is one of the accepted policies, and the outcome. Fetching is the proxy's
 * business; this file only decides.
 */
#include "engine/engine.h"

#include <string.h>

#include <openssl/evp.h>

#define DAY_MS ((int64_t)24 * 60 * 60 * 1000)

int brock_dnt_take_due(struct brock_engine *e, const char *fqdn, int64_t now_ms, uint32_t rand)
{
    char name[BROCK_HOST_MAX];
    struct action_entry *a;

    if (!e->check_dnt || brock_host_normalize(fqdn, strlen(fqdn), name) < 0 ||
        !hostname_valid(name))
        return 0;
    a = brock__action_get(e, name);
    if (a && now_ms < a->next_update)
        return 0;
    a = brock__action_ensure(e, name);
    if (!a)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    /* Uniformly over [now + 1 day, now + 7 days]; 6 days of milliseconds fit in 32 bits. */
    a->next_update = now_ms + DAY_MS + (int64_t)(rand % (uint32_t)(6 * DAY_MS + 1));
    brock__action_touch(e, a, BROCK__DIRTY_DNT);
    return 1;
}

int brock_dnt_policy_accepted(struct brock_engine *e, const void *body, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = body;
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    char text[2 * EVP_MAX_MD_SIZE + 1];

    /* The browser's text() drops a leading byte order mark before Privacy Badger hashes. */
    if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) {
        p += 3;
        len -= 3;
    }
    if (!EVP_Digest(p, len, md, &mdlen, EVP_sha1(), NULL))
        return 0;
    for (unsigned int i = 0; i < mdlen; i++) {
        text[2 * (size_t)i] = hex[md[i] >> 4];
        text[2 * (size_t)i + 1] = hex[md[i] & 15];
    }
    text[2 * (size_t)mdlen] = '\0';
    return strmap_get(&e->lists.dnt_hashes, text) != NULL;
}

int brock_dnt_record(struct brock_engine *e, const char *fqdn, int compliant)
{
    char name[BROCK_HOST_MAX];
    struct action_entry *a;

    if (brock_host_normalize(fqdn, strlen(fqdn), name) < 0 || !hostname_valid(name))
        return brock__fail(e, BROCK_EINVAL, "'%s' is not a domain name", fqdn);
    a = brock__action_ensure(e, name);
    if (!a)
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    if (a->dnt != (compliant != 0)) {
        a->dnt = compliant != 0;
        brock__action_touch(e, a, BROCK__DIRTY_DNT);
    }
    return 0;
}
