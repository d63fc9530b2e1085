/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Which HTTPS hosts brock passes through unseen while it sees inside the others, and why:
 * one list from four sources, asked in this order: the state's (the user's entries, which
 * may also take a shipped host off, and those brock learned when clients refused its
 * certificate: brock_passthrough_*()), --no-intercept HOSTGLOB, and the hosts brock ships
 * (AdGuard's HTTPS exclusions, data/https-exclusions/: banks, services with sensitive
 * personal data, hosts whose clients pin certificates). Also the count of refusals that makes
 * a host learned: two within ten minutes. Pure but for the engine's calls. */
#ifndef BROCK_PROXY_PASSTHROUGH_H
#define BROCK_PROXY_PASSTHROUGH_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"

/* The shipped list's text (data/https-exclusions/ as scripts/embed.c --text made it). */
extern const char passthrough_shipped[];
extern const size_t passthrough_shipped_len;

/* Refusals of brock's certificate that make a host passed through, and within how long. */
#define PASSTHROUGH_FAILURES 2
#define PASSTHROUGH_FAILURE_WINDOW_MS ((int64_t)10 * 60 * 1000)

/* A client that closes its connection this soon after the handshake, having sent nothing
 * inside it, counts as refusing (a program checking a pinned key closes at once; a browser's
 * unused connection stays open far longer). */
#define PASSTHROUGH_QUIET_CLOSE_MS 2000

/* Hosts whose refusals are being counted, at most. */
#define PASSTHROUGH_COUNTED 256

struct passthrough;

/* The shipped list read: lines with a "$app=" modifier are left out (a proxy cannot tell one
 * application's connections from another's: such a host is passed through once its
 * application refuses brock, as any other). Returns a new object (passthrough_free()), or
 * NULL when out of memory. */
struct passthrough *passthrough_new(void);

void passthrough_free(struct passthrough *p);

/* Hosts in the shipped list. */
size_t passthrough_shipped_count(const struct passthrough *p);

/* Calls fn with each shipped host and its kind's words, in the hosts' order; fn returns
 * non-zero to stop (returned). Returns 0, the callback's value, or -1 when out of memory. */
int passthrough_shipped_each(const struct passthrough *p,
                             int (*fn)(void *arg, const char *host, const char *kind), void *arg);

/* Why host (normalised) is passed through unseen, as a sentence into why (size bytes), or
 * NULL when it is to be seen inside. e may be NULL (no state yet); globs are the
 * --no-intercept patterns. */
const char *passthrough_why(const struct passthrough *p, const struct brock_engine *e,
                            const char *const *globs, size_t n_globs, const char *host, char *why,
                            size_t size);

/* A client refused brock's certificate for host at now_ms. Returns 1 when that is the
 * PASSTHROUGH_FAILURES-th refusal within the window (its count then starts again), else 0. */
int passthrough_refused(struct passthrough *p, const char *host, int64_t now_ms);

#endif
