/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Who gets a connection slot: how many clients brock serves at once (sized from the
 * descriptors it has), how many each client address may hold, and which connections may be
 * closed to make room, oldest first: those that never sent a byte or sit idle between
 * requests, then those part-way through a request head. A client that has sent a whole
 * request (waiting on the upstream, receiving a response, a tunnel, the dashboard) is never
 * the one cut. */
#ifndef BROCK_PROXY_ADMIT_H
#define BROCK_PROXY_ADMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include "util/strmap.h"

struct conn;
struct event;
struct event_base;
struct proxy;

/* What may be cut, in the order it is cut: first any connection that never sent a byte or is
 * idle between requests, then any part-way through a request head. */
enum {
    ADMIT_IDLE,
    ADMIT_HEAD,
    ADMIT_TIERS,
};

/* A place in a list of connections that may be cut, oldest first. */
struct admit_node {
    TAILQ_ENTRY(admit_node) link;
    struct admit_list *in; /* the list it is in; NULL: none */
    struct conn *c;
};
TAILQ_HEAD(admit_list, admit_node);

/* One client address: how many connections it holds, and those that may be cut. */
struct admit_client {
    size_t n;
    struct admit_list cut[ADMIT_TIERS];
    /* Whose page views its requests are (conn_client_key()), found at its first: "" for this
     * machine's (everyone's alone), else its name (--client) or address. */
    int keyed;
    char key[64];
};

struct admit {
    size_t max;            /* connections at once */
    size_t per_client;     /* at once from one address; 0: no cap */
    struct strmap clients; /* address text -> struct admit_client */
    struct admit_list cut[ADMIT_TIERS];

    /* Since the last summary line: connections cut because every slot was taken, cut because
     * their client held its share, refused with 503 (nothing could be cut), the last client
     * over its share, and the timer that writes the line. */
    size_t n_cut_full, n_cut_client, n_refused;
    uint64_t total_cut, total_refused; /* the same since the start, for /api/status */
    char over[64];
    struct event *summary;
};

/* The limits brock serves by, from its descriptors: the soft RLIMIT_NOFILE limit is raised to
 * the hard one first. *nofile gets the descriptors there are, *spliced the tunnels that may
 * move their bytes with splice(2) at once (two pipes each: LIMIT_SPLICE_SHARE of the
 * descriptors). Returns the connections to serve at once: each client may take two
 * descriptors (its own and its upstream's), beside the pipes, the upstream pool and brock's
 * own files. */
size_t admit_size(size_t *nofile, size_t *spliced);

/* Readies a (max connections at once, per_client from one address, 0: no cap) on base.
 * Returns 0, or -1 when out of memory. Clean up with admit_cleanup() in any case. */
int admit_init(struct admit *a, struct event_base *base, size_t max, size_t per_client)
    __attribute__((warn_unused_result));
void admit_cleanup(struct admit *a);

/* A client's address as text, without its port: the key of its share, and the name brock
 * logs it by. */
void admit_address(const struct sockaddr *sa, char *out, size_t size);

/* Makes room for one more connection from address (admit_address's text): when its client
 * holds its share, its own oldest connection that may be cut is closed; when every slot is
 * taken, the oldest of all. Returns 1 when the connection may be accepted, 0 when nothing
 * could be cut (then answer 503). Counted for the summary line either way. */
int admit_room(struct proxy *px, const char *address);

/* A new connection counts against its client's share, as one that may be cut (it has sent
 * nothing). Returns 0, or -1 when out of memory. */
int admit_join(struct proxy *px, struct conn *c) __attribute__((warn_unused_result));

/* After c's state or its output changed: c moves into, out of or between the lists of what
 * may be cut, as the newest. */
void admit_update(struct conn *c);

/* c closes: it leaves its client's share and every list. Idempotent. */
void admit_leave(struct conn *c);

#endif
