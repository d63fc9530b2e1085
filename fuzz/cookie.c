/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Cookie and Set-Cookie values as the engine reads them when it learns: the pairs split
 * (Privacy Badger's parseCookie), each value's entropy looked up, and hasCookieTracking
 * over the input given as a Cookie header and as Set-Cookie headers (one a line). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "brock.h"
#include "engine/engine.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int on_pair(void *arg, const char *name, size_t nlen, const char *val, size_t vlen)
{
    size_t *bytes = arg;

    (void)name;
    (void)brock__cookie_value_bits(val, vlen);
    *bytes += nlen + vlen;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    struct brock_header h[16];
    size_t n = 0, bytes = 0, start = 0;
    char name[256];

    (void)brock__cookie_parse(s, size, on_pair, &bytes);

    h[n++] = (struct brock_header){"Cookie", 6, s, size};
    for (size_t i = 0; i <= size && n < sizeof(h) / sizeof(h[0]); i++) {
        if (i == size || s[i] == '\n') {
            h[n++] = (struct brock_header){"Set-Cookie", 10, s + start, i - start};
            start = i + 1;
        }
    }
    (void)brock__has_cookie_tracking(h, n, name, sizeof(name));
    (void)brock__has_cookie_tracking(h + 1, n - 1, NULL, 0);
    return 0;
}
