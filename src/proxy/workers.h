/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a worker of `brock run --workers N` shares with its parent and the other workers: its
 * listening socket, the pipe it says "ready" on, and the counters the dashboard sums. */
#ifndef BROCK_PROXY_WORKERS_H
#define BROCK_PROXY_WORKERS_H

#include <stdint.h>
#include <sys/socket.h>

#include "proxy/report.h"

struct firstparty_ring;

/* A worker's counters since brock started, as /api/status reports them; each worker writes
 * its own slot, any worker reads them all. The slot past the last worker's holds what the
 * workers that ended had counted. */
enum {
    SLOT_REQUESTS,
    SLOT_BLOCKED,
    SLOT_COOKIEBLOCKED,
    SLOT_TUNNELS,
    SLOT_LEARNED,
    SLOT_CONNECTIONS,
    SLOT_CUT,
    SLOT_REFUSED,
    SLOT_CLEANED,
    SLOT_WAY_PROXY, /* requests by way in: proxy, SOCKS, transparent (enum conn_way) */
    SLOT_WAY_SOCKS,
    SLOT_WAY_TRANSPARENT,
    SLOT_COUNT
};

struct worker_slot {
    uint64_t v[SLOT_COUNT];
};

/* The ports beside the proxy's: --socks and --transparent. */
enum way_port { WAY_PORT_SOCKS, WAY_PORT_TRANSPARENT, WAY_PORTS };

/* The option that asks for port p ("--socks"), and its value in o (NULL: not asked for). */
static inline const char *way_option(enum way_port p)
{
    return p == WAY_PORT_SOCKS ? "--socks" : "--transparent";
}
#define way_spec(o, p) ((p) == WAY_PORT_SOCKS ? (o)->socks : (o)->transparent)

struct proxy_worker {
    unsigned index;            /* 0 .. count - 1 */
    unsigned count;            /* --workers */
    int listen_fd;             /* bound and listening, shared by no other worker; or a
                                  * descriptor of the one socket systemd passed, all share */
    int way_fds[WAY_PORTS];    /* the SOCKS and transparent ports' sockets, as listen_fd;
                                  * -1: not asked for */
    int activated;             /* listen_fd is systemd's socket */
    int ready_fd;              /* the pipe's end: a byte (the index) each time it is ready */
    struct worker_slot *slots; /* count + 1 slots in memory shared with every worker */
    unsigned starts;           /* 1 at its first start, then one more each time it starts again */
    /* Drawn once by the parent, so that a page or a script's token from one worker holds on
     * every other: the keys of the script's reports, the dashboard's token (hex). */
    const struct report_keys *report;
    const char *dash_token;
    struct firstparty_ring
        *firstparty_ring; /* the clients' pages, told to each other (firstparty_share.h) */
};

/* ADDR:PORT where PORT may be 0 (any free port), which libevent's parser refuses. Returns 0,
 * or -1 for a spec that is not an address and a port. */
int listen_parse(const char *spec, struct sockaddr_storage *ss, int *len);

/* spec as --socks (ADDR:PORT) or --transparent (that, or a port alone: [::]:PORT, every
 * address) take it, into *ss and *len. Returns 0, or -1. */
int way_parse(enum way_port p, const char *spec, struct sockaddr_storage *ss, int *len);

/* A socket listening at *ss (*len bytes), any port's: SO_REUSEADDR, and SO_REUSEPORT when
 * reuseport (a worker's); with transparent (the transparent port's) IP_TRANSPARENT when brock
 * may set it (TPROXY: REDIRECT needs nothing), [::] taking IPv4 too, or 0.0.0.0 on a machine
 * without IPv6 (*ss and *len then rewritten). Returns it, or -1 with errno set. */
int listen_socket(struct sockaddr_storage *ss, int *len, int transparent, int reuseport);

#endif
