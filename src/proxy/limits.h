/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Every limit and timeout of the proxy, in one place: what a client or an upstream may make
 * brock hold in memory, and how long brock waits for each of them. */
#ifndef BROCK_PROXY_LIMITS_H
#define BROCK_PROXY_LIMITS_H

#include <stddef.h>
#include <stdint.h>

/* A Transfer-Encoding that brock accepts but does not forward as it came (a list, parameters,
 * whitespace) goes on in brock's own words, which must fit in this many bytes; a longer one is
 * refused. Real ones are a few words ("gzip, chunked"). */
#define LIMIT_TE_BYTES 128

/* A declared request body (Content-Length) larger than this is refused with 413. */
#define LIMIT_REQUEST_BODY (16ULL * 1024 * 1024 * 1024)

/* The body of a blocked request that brock reads and drops to keep its connection open (a
 * beacon's POST); a larger one is answered at once and its connection closed. */
#define LIMIT_BLOCKED_BODY (64ULL * 1024)

/* Bytes waiting to be written to one side before brock stops reading the other. */
#define LIMIT_PENDING_BYTES ((size_t)256 * 1024)

/* Client connections at once: as many as the descriptors allow (each client may take two,
 * beside the upstream pool and LIMIT_FD_RESERVE of brock's own), within these bounds; the upper
 * one bounds memory (some 10 KiB an idle connection). When all are taken, the oldest idle
 * connection is closed to make room; when none is idle, one more gets 503. One address holds
 * at most --max-client-connections of them (proxy.h). */
#define LIMIT_CONNECTIONS 16384
#define LIMIT_CONNECTIONS_MIN 16
#define LIMIT_FD_RESERVE 64

/* Tunnels not intercepted move their bytes with splice(2) through two pipes each (four
 * descriptors): one descriptor in this many is set aside for them. Beyond, tunnels copy. */
#define LIMIT_SPLICE_SHARE 16

/* Connections the kernel holds for brock to accept (the system caps it at
 * net.core.somaxconn): room for a burst, so that a flood's connections do not crowd others'
 * out of the queue before brock gets to them. */
#define LIMIT_LISTEN_BACKLOG 4096

/* Connections accepted in one turn of the loop: a flood arriving faster than brock accepts
 * would otherwise keep the loop accepting while the clients already in wait. */
#define LIMIT_ACCEPT_BURST 32

/* A balancer's connection (--proxy-protocol-from) is closed when its PROXY protocol header is
 * not whole this long after it was accepted: a balancer sends it at once. */
#define LIMIT_PROXY_HEADER_SECONDS 5

/* Idle upstream connections kept per host:port, and in all. */
#define LIMIT_POOL_PER_HOST 256
#define LIMIT_POOL_TOTAL 1024

/* Per-client memory of top-level pages and the frames they opened (first-party inference):
 * a page older than the last LIMIT_FP_TOPS navigations (other tabs) is no longer known, and
 * its requests are no longer learned from. */
#define LIMIT_FP_CLIENTS 256
#define LIMIT_FP_FRAMES 32
#define LIMIT_FP_TOPS 16

/* Per client, the (page, third-party host) pairs its pages loaded lately: a canvas report
 * from a page counts only for a script whose host the page was seen loading. */
#define LIMIT_FP_SEEN 128

/* Widgets a user let load with "Allow once" (widgetallow.h): the allowances kept in all (one
 * per unblocked domain, per client and page; past it the oldest goes), and how long one lasts
 * after its click. A proxy sees no tabs, so an allowance cannot end with its tab: it ends
 * with time, and lasts across reloads of the page as Privacy Badger's does. */
#define LIMIT_WIDGET_ALLOWS 256
#define LIMIT_WIDGET_ALLOW_MS ((int64_t)60 * 60 * 1000)

/* The token brock gives a page for its script's reports (report.h) lasts this long: a page's
 * life, reloads aside. A token said to be given more than LIMIT_CLOCK_SKEW_S in the future
 * (the clock was turned back) is not taken either. */
#define LIMIT_REPORT_TOKEN_S ((int64_t)4 * 60 * 60)
#define LIMIT_CLOCK_SKEW_S 60

/* What brock's script in pages may say (reportlimit.h): requests of the channel a document
 * makes in all (its reports, its question about widgets, its allowances), and reports and
 * allowances a client makes in a minute; past either, 429. Each worker keeps the counts of
 * LIMIT_REPORT_DOCS documents and LIMIT_REPORT_CLIENTS clients, the least recently used out
 * first (some 180 KiB, made at the first report). */
#define LIMIT_REPORT_DOC 32
#define LIMIT_REPORT_CLIENT 120
#define LIMIT_REPORT_DOCS 1024
#define LIMIT_REPORT_CLIENTS 256

/* Reports from brock's script in pages that brock refused (a wrong token, a malformed body)
 * are said at most once in this many seconds, with their count: a page cannot flood the log. */
#define REPORT_LOG_INTERVAL_S 60

/* The dashboard's live request logs (/api/log) held open at once; one more is answered 503. */
#define LIMIT_LOG_CLIENTS 16

/* The kernel's send buffer of a live log stream, in bytes: what it holds of the stream
 * besides brock's own backlog (LIVELOG_BACKLOG). */
#define LIMIT_LOG_SNDBUF (16 * 1024)

/* Timeouts, in seconds. */
#define TIMEOUT_HEAD 15     /* a client's request head, once it started: past it, 408 */
#define TIMEOUT_IDLE 60     /* a client's idle keep-alive connection */
#define TIMEOUT_CONNECT 10  /* resolving and connecting upstream: past it, 504 */
#define TIMEOUT_RESPONSE 60 /* upstream silence while a response is due: past it, 504 */
#define TIMEOUT_BODY 60     /* silence from either side while a body streams */
#define TIMEOUT_TUNNEL 600  /* silence on a CONNECT or WebSocket tunnel */
#define TIMEOUT_STREAM                                                                             \
    15                   /* a live log stream's silence: a comment line keeps it open
                                (and finds a client that left) */
#define TIMEOUT_FLUSH 10 /* writing brock's last bytes to a closing client */
#define TIMEOUT_PEEK                                                                               \
    2                        /* a SOCKS client's silence before its first bytes: a protocol
                              * whose server speaks first, passed through */
#define TIMEOUT_POOL_IDLE 30 /* an idle upstream connection in the pool */

/* How often learning is written to the state and others' changes are picked up. */
#define SYNC_INTERVAL_MS 1000
/* Connections that freed their scratch on going idle since the last sweep (conn_sweep_idle)
 * that make it worth handing the freed pages back to the system (malloc_trim(3)). */
#define SWEEP_TRIM_MIN 64
/* Scratch of exchanges (two heads, a request as sent, a URL: 2-3 KiB each) that connections
 * going idle hand back and the loop keeps for the next exchanges, so that busy keep-alive
 * clients rarely allocate it again; past this, it is freed. */
#define LIMIT_SPARE_SCRATCH 64

#endif
