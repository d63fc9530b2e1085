/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which page a request was made for (DESIGN.md, step 2): the host of the Referer, else of
 * the Origin; a top-level navigation, or a request with neither header, is its own first
 * party. Per client, brock remembers the frames top-level pages opened, so that a request
 * from inside a third-party frame is judged against the top-level page. Pure: no sockets,
 * clock or logging; memory is bounded (LIMIT_FP_CLIENTS, LIMIT_FP_FRAMES). */
#ifndef BROCK_PROXY_FIRSTPARTY_H
#define BROCK_PROXY_FIRSTPARTY_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"

/* What a request says about its page; NULL for an absent header. */
struct fp_request {
    const char *host;       /* the request host, normalised */
    const char *referer;
    const char *origin;
    const char *fetch_mode; /* Sec-Fetch-Mode */
    const char *fetch_dest; /* Sec-Fetch-Dest */
    const char *fetch_site; /* Sec-Fetch-Site */
};

struct fp_client;

struct fp_memory {
    struct fp_client *clients[256];
    size_t n;
    uint64_t tick; /* a counter, not a clock: picks the least recently used client */
};

void fp_memory_init(struct fp_memory *m);
void fp_memory_cleanup(struct fp_memory *m);

enum fp_result {
    FP_UNKNOWN = 0, /* the page cannot be told: decide as third party, do not learn */
    FP_KNOWN = 1,   /* site holds the first party's host */
};

/* Infers the first party of r, made by client (an address, any string), into site
 * (BROCK_HOST_MAX bytes; "" when unknown), and records navigations and frames in m. Out of
 * memory only loses what would have been remembered. */
enum fp_result fp_infer(struct fp_memory *m, const char *client, const struct fp_request *r,
                        char *site);

#endif
