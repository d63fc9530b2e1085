/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Host names to base domains: the input as a host (normalised, IDNA), as a URL, and the
 * base domain (eTLD+1) and third-party test of what comes out, and that a normal form is
 * normalised to itself. A NUL byte splits the input into a request host and a page host. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brock.h"
#include "engine/engine.h"
#include "engine/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char host[BROCK_HOST_MAX], site[BROCK_HOST_MAX], base[BROCK_HOST_MAX];
    const char *nul = memchr(data, '\0', size);
    size_t hlen = nul ? (size_t)(nul - (const char *)data) : size;
    char *url;

    site[0] = '\0';
    if (brock_host_normalize((const char *)data, hlen, host) >= 0) {
        /* A normal form is its own: normalised again, it is the same name (what the answer
         * cache relies on, and the check for names already in normal form must keep). */
        if (brock_host_normalize(host, strlen(host), base) < 0 || strcmp(base, host) != 0)
            abort();
        (void)brock_base_domain(host, base);
        (void)brock__is_ip(host);
        (void)brock__is_private(host);
        (void)hostname_valid(host);
        (void)hostname_parent(host);
        if (nul && brock_host_normalize(nul + 1, size - hlen - 1, site) >= 0)
            (void)brock__is_third_party(host, site);
    }
    /* brock_url_host() takes a C string: the part before any NUL. */
    url = malloc(hlen + 1);
    if (!url)
        return 0;
    memcpy(url, data, hlen);
    url[hlen] = '\0';
    if (brock_url_host(url, host) >= 0)
        (void)brock_base_domain(host, base);
    free(url);
    return 0;
}
