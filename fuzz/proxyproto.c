/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The PROXY protocol header as a balancer's connection begins (process/proxyproto.h): a header
 * found must lie within the bytes given, carry an IPv4 or IPv6 source when it says so, and
 * be incomplete, never malformed nor shorter, when cut anywhere before its end; a refusal
 * must say why. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "process/proxyproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct proxyproto pp;
    const char *why;
    int rc = proxyproto_parse(data, size, &pp, &why);

    if (rc == PROXYPROTO_MALFORMED) {
        if (!why || !*why)
            abort();
        return 0;
    }
    if (rc == PROXYPROTO_INCOMPLETE)
        return 0;
    if (rc <= 0 || (size_t)rc > size || (size_t)rc > PROXYPROTO_MAX || !pp.kind ||
        (pp.version != 1 && pp.version != 2))
        abort();
    if (pp.has_source && pp.src.ss_family != AF_INET && pp.src.ss_family != AF_INET6)
        abort();
    for (size_t cut = 0; cut < (size_t)rc; cut++) {
        struct proxyproto part;

        if (proxyproto_parse(data, cut, &part, &why) != PROXYPROTO_INCOMPLETE)
            abort();
    }
    return 0;
}
