/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A differential target: every fast path that reads a host name against the plain code it
 * stands in for. Names: the sixteen-bytes-at-a-time (SSE2), word-at-a-time and
 * byte-at-a-time readings of a name already plain, and brock_host_normalize() itself, against
 * the full reading (brackets, a trailing dot, IDNA, the ASCII rules). URLs: the host of a
 * plain URL seen as written (brock__url_plain_host()), normalised, against brock_url_host().
 * Any difference aborts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "brock.h"
#include "engine/names.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const enum brock__norm_path fast[] = {BROCK__NORM_BYTES, BROCK__NORM_WORDS,
                                             BROCK__NORM_SSE2};

static void names(const char *s, size_t len)
{
    char full[BROCK_HOST_MAX], got[BROCK_HOST_MAX];
    int nf = brock__host_normalize_by(BROCK__NORM_FULL, s, len, full);
    int n = brock_host_normalize(s, len, got);

    if (n != nf || strcmp(got, full) != 0)
        abort();
    for (size_t k = 0; k < sizeof(fast) / sizeof(fast[0]); k++) {
        n = brock__host_normalize_by(fast[k], s, len, got);
        if (n >= 0 && (n != nf || strcmp(got, full) != 0))
            abort();
    }
}

/* The input as a URL: a C string, up to any NUL. */
static void url(const char *s, size_t len)
{
    char *u = malloc(len + 1), want[BROCK_HOST_MAX], got[BROCK_HOST_MAX];
    const char *h;
    size_t hlen;
    int n;

    if (!u)
        return;
    memcpy(u, s, len);
    u[len] = '\0';
    n = brock_url_host(u, want);
    h = brock__url_plain_host(u, &hlen);
    /* A host seen as written, normalised, is what brock_url_host() gives, or refused as
     * brock_url_host() refuses the URL ("http://" has an empty one). */
    if (h && (brock_host_normalize(h, hlen, got) != n || strcmp(got, want) != 0))
        abort();
    free(u);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    const char *nul = memchr(s, '\0', size);

    names(s, size);
    url(s, nul ? (size_t)(nul - s) : size);
    return 0;
}
