/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What brock's two HTTP/2 sides share (h2front.c with browsers, h2up.c with origins): the
 * bounds every session is made with, and a head's fields as nghttp2 takes them. */
#ifndef BROCK_PROXY_H2COMMON_H
#define BROCK_PROXY_H2COMMON_H

#include <stddef.h>

#include <nghttp2/nghttp2.h>

#include "http/head.h"
#include "util/buf.h"

/* The options of every session: windows given back by hand (as each pair's reader takes the
 * bytes), and the floods HTTP/2 allows bounded at nghttp2's own defaults, said here so that
 * they do not depend on the library's version: streams reset faster than 33 a second after a
 * burst of 1000 (rapid reset), CONTINUATION frames past 8 for one header block, SETTINGS
 * entries past 32 in one frame, answers (PING and SETTINGS acknowledgements) queued past 1000
 * for a peer that does not read them, and a 4 KiB HPACK table. NULL when out of memory; free
 * with nghttp2_option_del(). */
nghttp2_option *h2_options_new(void);

/* A field for nghttp2, which copies it and never writes to it (its type says otherwise). */
static inline nghttp2_nv h2_field(const char *name, size_t nlen, const char *value, size_t vlen)
{
    return (nghttp2_nv){(uint8_t *)(uintptr_t)name, (uint8_t *)(uintptr_t)value, nlen, vlen,
                        NGHTTP2_NV_FLAG_NONE};
}

/* Appends hh's fields to nv (from nv[*n], at most max in all), but those skip() says HTTP/2
 * must not carry (it is given the head's Connection field, or NULL), their names copied into
 * names in lower case. Returns 0, or -1 when out of memory. */
int h2_fields(const struct http_head *hh,
              int (*skip)(const struct brock_header *h, const struct brock_header *connection),
              struct buf *names, nghttp2_nv *nv, size_t *n, size_t max)
    __attribute__((warn_unused_result));

#endif
