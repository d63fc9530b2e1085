/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which page a request was made for (DESIGN.md, step 2): the top-level page the client shows,
 * never a frame inside it (PRIVACY-BADGER.md 1.5). Per client, brock remembers the top-level
 * pages it navigated to (Sec-Fetch-Mode: navigate, Sec-Fetch-Dest: document) and the frames
 * they opened; a request whose Referer (else Origin) names one of them belongs to that page.
 * A Referer the record does not know is taken as the page, but only as a guess: it is
 * decided on and never learned from. A request with neither header nor fetch metadata belongs
 * to an unknown page (a third party of it: blocked if blocked, never learned from), unless it
 * is a browser's plain-HTTP navigation (Accept: text/html and Upgrade-Insecure-Requests: 1,
 * which a page's own request cannot send), which is taken as its own page, a guess.
 * Pure: no sockets, clock or logging; memory is bounded (LIMIT_FP_CLIENTS, LIMIT_FP_FRAMES,
 * LIMIT_FP_TOPS). */
#ifndef BROCK_PROXY_FIRSTPARTY_H
#define BROCK_PROXY_FIRSTPARTY_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"

/* What a request says about its page; NULL for an absent header. */
struct firstparty_request {
    const char *host; /* the request host, normalised */
    const char *referer;
    const char *origin;
    const char *fetch_mode;       /* Sec-Fetch-Mode */
    const char *fetch_dest;       /* Sec-Fetch-Dest */
    const char *fetch_site;       /* Sec-Fetch-Site */
    const char *accept;           /* Accept */
    const char *upgrade_insecure; /* Upgrade-Insecure-Requests */
};

struct firstparty_client;

struct firstparty_memory {
    struct firstparty_client *clients[256];
    size_t n;
    uint64_t tick; /* a counter, not a clock: picks the least recently used client */
};

void firstparty_memory_init(struct firstparty_memory *m);
void firstparty_memory_cleanup(struct firstparty_memory *m);

enum firstparty_result {
    FIRSTPARTY_UNKNOWN = 0, /* the page cannot be told: decide as third party, do not learn */
    FIRSTPARTY_KNOWN = 1,   /* site holds the first party's host: decide, and learn */
    FIRSTPARTY_GUESS = 2, /* site holds the Referer's (or Origin's) host, which the record does not
                             know as a top-level page: decide on it, never learn from it */
};

/* Infers the first party of r, made by client (an address, any string), into site
 * (BROCK_HOST_MAX bytes; "" when unknown), and records navigations and frames in m. Out of
 * memory only loses what would have been remembered (later requests are then guesses). */
enum firstparty_result firstparty_infer(struct firstparty_memory *m, const char *client,
                                        const struct firstparty_request *r, char *site);

/* The page a document of host belongs to for client, as the record knows it (the top-level
 * page that opened host as a frame, or host itself as one of the client's top-level pages),
 * into site (BROCK_HOST_MAX bytes): FIRSTPARTY_KNOWN, else FIRSTPARTY_GUESS with host itself. */
enum firstparty_result firstparty_page_of(struct firstparty_memory *m, const char *client,
                                          const char *host, char *site);

/* Records that a page of site loaded host as a third party at now_ms (ms since the epoch),
 * for client. Out of memory only loses it. */
void firstparty_saw(struct firstparty_memory *m, const char *client, const char *site,
                    const char *host, int64_t now_ms);

/* When client was last seen loading host (exactly) as a third party on site, as firstparty_saw() was
 * told (ms since the epoch); -1 when not lately. */
int64_t firstparty_seen_at(struct firstparty_memory *m, const char *client, const char *site,
                           const char *host);

#endif
