/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What one worker learns of its clients' pages (firstparty.h), told to the others: the
 * navigations to top-level pages and frames, and the third parties seen on a page, with when.
 * A ring in memory shared by the workers; each worker applies the others' entries to its own
 * record before it infers a first party. Best effort and bounded: a worker that falls more
 * than the ring's length behind skips what it missed. */
#ifndef BROCK_PROXY_FPSHARE_H
#define BROCK_PROXY_FPSHARE_H

#include <stddef.h>
#include <stdint.h>

struct firstparty_memory;
struct firstparty_request;
struct proxy_worker;

/* The shared ring, to map before the workers start. */
struct firstparty_ring;
size_t firstparty_share_ring_size(void);

/* After firstparty_infer() made a record of r for client: a navigation to a page or a frame is told
 * to the other workers. w NULL (a single process): nothing. */
void firstparty_share_infer(const struct proxy_worker *w, const char *client,
                            const struct firstparty_request *r);

/* After firstparty_saw() was told that client loaded host on site at now_ms: as new, or again in a
 * later second than the record said (conn_decide.c tells each pair at most once a second). */
void firstparty_share_saw(const struct proxy_worker *w, const char *client, const char *site,
                          const char *host, int64_t now_ms);

/* Applies the other workers' entries since *next to m, and moves *next on. */
void firstparty_share_apply(const struct proxy_worker *w, struct firstparty_memory *m,
                            uint64_t *next);

#endif
