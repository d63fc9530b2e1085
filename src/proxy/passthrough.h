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
 * unused connection stays open far longer, but for when the browser quits: see
 * PASSTHROUGH_TOGETHER_MS). */
#define PASSTHROUGH_QUIET_CLOSE_MS 2000

/* Hosts whose refusals are being counted, at most. */
#define PASSTHROUGH_COUNTED 256

/* A quiet close (during the handshake, or right after it with nothing sent) within this long
 * of the same client ending a connection it had spoken on is no refusal: the client is ending
 * its connections together (a browser quitting closes its spare ones with the rest), which a
 * program refusing one certificate does not do. A quiet close is held this long, then
 * counted. */
#define PASSTHROUGH_TOGETHER_MS 250

/* Quiet closes held, and spoken closes remembered, at most: past it the oldest is forgotten
 * (a held close then uncounted: the host's next refusal counts instead). */
#define PASSTHROUGH_HELD 64
#define PASSTHROUGH_CLIENT_MAX 64

/* A quiet close of a connection to a host within this long of the same client speaking inside
 * brock's TLS for that host, before or after, is no refusal: the client took brock's
 * certificate for it. A browser opens several connections to a host at once and, once one of
 * them carries HTTP/2, drops the others in the middle of their handshakes. */
#define PASSTHROUGH_TRUSTED_MS 10000

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

/* A connection of client (an address, any string) to host closed quietly at now_ms, why
 * saying how (a string that outlives it): held, to be counted once passthrough_due() gives it,
 * unless the client ends a spoken connection with it (PASSTHROUGH_TOGETHER_MS). A full table
 * forgets its oldest held close uncounted. Returns 1 when held, 0 when it was no refusal. */
int passthrough_quiet(struct passthrough *p, const char *client, const char *host, const char *why,
                      int64_t now_ms);

/* A connection of client that had spoken inside TLS ended at now_ms: the client's quiet
 * closes within PASSTHROUGH_TOGETHER_MS of it, before or after, are no refusals. */
void passthrough_spoke_closed(struct passthrough *p, const char *client, int64_t now_ms);

/* client spoke inside brock's TLS for host at now_ms (it took brock's certificate): its quiet
 * closes of connections to host within PASSTHROUGH_TRUSTED_MS are no refusals, held ones
 * dropped. The last PASSTHROUGH_HELD pairs are remembered. */
void passthrough_trusted(struct passthrough *p, const char *client, const char *host,
                         int64_t now_ms);

/* Whether client spoke inside brock's TLS for host within PASSTHROUGH_TRUSTED_MS of now_ms. */
int passthrough_trusts(const struct passthrough *p, const char *client, const char *host,
                       int64_t now_ms);

/* A held quiet close that is due by now_ms (held longer than PASSTHROUGH_TOGETHER_MS): 1
 * with its host (BROCK_HOST_MAX bytes) and why, and it is forgotten; 0 when none. The caller
 * counts it with passthrough_refused(). */
int passthrough_due(struct passthrough *p, int64_t now_ms, char *host, const char **why);

#endif
