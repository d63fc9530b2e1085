/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SOCKS5's greeting and request as a client sends them (proxy/socks.h): a message found lies
 * within the bytes given and is incomplete, never malformed, when cut anywhere before its
 * end; a request's host is a C string of printable bytes, its port not 0; a refusal says why
 * and names a reply code. The input is read as a greeting, and from its second byte on as a
 * request. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/socks.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void greeting(const uint8_t *data, size_t size)
{
    uint8_t method = 0x42;
    const char *why = NULL;
    int rc = socks_greeting(data, size, &method, &why);

    if (rc == SOCKS_MALFORMED) {
        if (!why || !*why)
            abort();
        return;
    }
    if (rc == SOCKS_INCOMPLETE)
        return;
    if (rc < 3 || (size_t)rc > size || rc > SOCKS_GREETING_MAX ||
        (method != SOCKS_METHOD_NONE && method != SOCKS_METHOD_REFUSED))
        abort();
    for (size_t cut = 0; cut < (size_t)rc; cut++)
        if (socks_greeting(data, cut, &method, &why) != SOCKS_INCOMPLETE)
            abort();
}

static void request(const uint8_t *data, size_t size)
{
    struct socks_request r;
    uint8_t rep = 0x42;
    const char *why = NULL;
    int rc = socks_request(data, size, &r, &rep, &why);

    if (rc == SOCKS_MALFORMED) {
        if (!why || !*why || (rep != SOCKS_REP_FAILURE && rep != SOCKS_REP_ADDRESS))
            abort();
        return;
    }
    if (rc == SOCKS_INCOMPLETE)
        return;
    if (rc < 8 || (size_t)rc > size || rc > SOCKS_REQUEST_MAX || r.port <= 0 || r.port > 65535 ||
        !r.host[0] || strlen(r.host) > 255)
        abort();
    for (const char *p = r.host; *p; p++)
        if (*p <= ' ' || *p >= 0x7f)
            abort();
    for (size_t cut = 0; cut < (size_t)rc; cut++)
        if (socks_request(data, cut, &r, &rep, &why) != SOCKS_INCOMPLETE)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    greeting(data, size);
    if (size > 0)
        request(data + 1, size - 1);
    return 0;
}
