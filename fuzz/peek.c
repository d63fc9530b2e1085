/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A connection's first bytes as brock peeks at them (proxy/peek.h): never read past what is
 * given; a server name found is empty or a lower-case host name; a refusal says why; and more
 * bytes never change what was decided from fewer (the input cut in two: its first part, then
 * all of it). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/peek.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t scratch[PEEK_HELLO_MAX];

static enum peek_kind classify(const uint8_t *data, size_t size, char name[256])
{
    const char *why = NULL;
    enum peek_kind k = peek_classify(data, size, scratch, name, &why);

    if (k == PEEK_OTHER && (!why || !*why))
        abort();
    if (k == PEEK_TLS) {
        for (const char *p = name; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' ||
                  *p == '_'))
                abort();
    } else if (name[0]) {
        abort();
    }
    return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char all[256], part[256];
    /* A copy of its own, so that a read past the end is one past an allocation. */
    uint8_t *copy = malloc(size ? size : 1);
    size_t cut = size ? data[0] % (size + 1) : 0;
    enum peek_kind whole, first;

    if (!copy)
        return 0;
    memcpy(copy, data, size);
    whole = classify(copy, size, all);
    first = classify(copy, cut, part);
    if (first != PEEK_MORE && (first != whole || strcmp(part, all) != 0))
        abort();
    free(copy);
    return 0;
}
