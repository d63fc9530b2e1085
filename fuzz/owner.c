/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dashboard owner's file and session cookies (src/dash/owner.c), the second of which any
 * client of the network sends. The first byte chooses: even, the rest is an owner file's text,
 * which parses (with costs in their bounds) or is refused whole, saying no password is set;
 * odd, the rest is a cookie's value, checked against a fixed key for one address: it is valid
 * only if it is exactly the session brock makes for its end, and never for another address. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dash/owner.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NOW 1800000000

static void file_text(const char *text, size_t len)
{
    struct owner o;

    memset(&o, 0x5a, sizeof(o));
    if (owner_parse(text, len, &o) < 0) {
        if (o.set)
            abort();
        return;
    }
    if (!o.set || o.log_n < 10 || o.log_n > 20 || o.r < 1 || o.r > 32 || o.p < 1 || o.p > 16)
        abort();
}

static void cookie(const char *value, size_t len)
{
    struct owner o = {.set = 1, .log_n = 14, .r = 8, .p = 1};
    char made[OWNER_SESSION_MAX + 1], *end;
    long long when;

    memset(o.key, 0x11, sizeof(o.key));
    if (!owner_session_valid(&o, value, len, "192.0.2.1", NOW))
        return;
    if (owner_session_valid(&o, value, len, "192.0.2.10", NOW))
        abort();
    when = strtoll(value, &end, 10);
    if (owner_session_make(&o, "192.0.2.1", when - OWNER_SESSION_SECONDS, made, sizeof(made)) < 0 ||
        strlen(made) != len || memcmp(made, value, len) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] % 2 == 0)
        file_text((const char *)data + 1, size - 1);
    else
        cookie((const char *)data + 1, size - 1);
    return 0;
}
