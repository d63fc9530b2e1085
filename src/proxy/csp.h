/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A page's Content-Security-Policy amended so that brock's inline script runs, and nothing
 * else changes: the hash of brock's script added to the directive that governs inline
 * scripts, where that directive would refuse it. Pure. */
#ifndef BROCK_PROXY_CSP_H
#define BROCK_PROXY_CSP_H

#include <stddef.h>

#include "util/buf.h"

/* Amends one Content-Security-Policy header's value (v[0..len), borrowed; a comma-separated
 * list of policies) for an inline script whose source expression is hash ("'sha256-...'").
 * In each policy, the directive that governs inline scripts is the first script-src-elem,
 * else the first script-src, else the first default-src. None: nothing to do. One that allows
 * 'unsafe-inline' with no nonce, hash or 'strict-dynamic' already lets every inline script
 * run (a hash would turn 'unsafe-inline' off for the page's own): left alone. Otherwise its
 * 'none' becomes the hash, or the hash is added at its end. Returns 1 with the new value in
 * out (reset first), 0 when the value stays as it is, or -1 when out is full or out of
 * memory. */
int csp_amend(const char *v, size_t len, const char *hash, struct buf *out)
    __attribute__((warn_unused_result));

#endif
