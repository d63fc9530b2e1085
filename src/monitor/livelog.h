/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The live request log: a ring of the newest requests' events, kept by the proxy on its loop's
 * one thread as it answers them and handed to the dashboard, whose GET /api/log the proxy then
 * holds open as a stream of Server-Sent Events written from the ring. Nothing of it is written
 * to disk. */
#ifndef BROCK_MONITOR_LIVELOG_H
#define BROCK_MONITOR_LIVELOG_H

#include <stddef.h>
#include <stdint.h>

#include "brock.h"
#include "monitor/metrics.h"
#include "util/buf.h"

/* The requests the log remembers: the newest LIVELOG_EVENTS, in memory only. A client of
 * the log that falls further behind is told how many it missed. */
#define LIVELOG_EVENTS 1024

/* What a client of the log may have waiting in its connection's output before events are
 * no longer written to it (they stay in the ring for when it catches up). */
#define LIVELOG_BACKLOG ((size_t)64 * 1024)

/* Who gave the client the status an event carries: the dashboard tells the server's answer
 * from brock's, which stands in for a blocked request (a surrogate script, an empty image, a
 * 403) or says what went wrong upstream. */
enum livelog_answer {
    LIVELOG_ANSWER_NONE = 0, /* no answer went to the client (status 0) */
    LIVELOG_ANSWER_SERVER,   /* the server's response, passed on */
    LIVELOG_ANSWER_BROCK,    /* written by brock in the request's place: nothing of the server's */
    LIVELOG_ANSWER_TUNNEL,   /* a CONNECT's 200: brock opened the tunnel to the server */
};

/* How the proxy came by an event's page (its site), as firstparty.h infers it: the
 * dashboard says a guess is one, and does not call a request no page made a first party's. */
enum livelog_page {
    LIVELOG_PAGE_NONE = 0, /* no page known (site ""): decided as a third party of any page */
    LIVELOG_PAGE_KNOWN,    /* a page the client was seen opening, or that page itself */
    LIVELOG_PAGE_GUESS,    /* a Referer's (or Origin's) page that brock did not see open */
    LIVELOG_PAGE_SELF,     /* nothing named a page: the request was taken as its own (a
                              browser's request of its own, or an address opened directly) */
};

/* One request as the log shows it: the exchange's decision and the status its client got. */
struct livelog_event {
    uint64_t id;     /* 1, 2, ...: the order of the events */
    int64_t time_ms; /* when it was answered (Unix time, ms) */
    char method[24];
    char host[BROCK_HOST_MAX];           /* the request's host */
    char site[BROCK_HOST_MAX];           /* the first party (base domain); "" when not known */
    unsigned char decision;              /* enum metrics_decision */
    unsigned char action;                /* enum brock_action */
    unsigned char reason;                /* enum brock_reason */
    unsigned char site_fix, site_choice; /* as in struct brock_decision */
    unsigned char answer;                /* enum livelog_answer: who gave the status */
    unsigned char page;                  /* enum livelog_page: how site was come by */
    int status;                          /* 0 when no answer went to the client */
    char client[64];                     /* the client's address, as text */
    unsigned char cleaned;               /* enum brock_clean_result: what became of its URL */
    char removed[128]; /* the parameters taken out of it, comma-separated, as many as fit */
    /* The name decided on when it is not host: a CNAME target (struct brock_decision's
     * tracker), from DNS (via_dns) or Privacy Badger's list; "" for host itself. */
    char via[BROCK_HOST_MAX];
    unsigned char via_dns;
    unsigned char way; /* how the client came in: 0 as an HTTP proxy's, 1 through --socks,
                        * 2 redirected to --transparent (livelog_way_name()) */
};

/* "proxy", "socks" or "transparent": a way's name, as the events and /api/status say it;
 * "proxy" for a number it does not know. */
const char *livelog_way_name(unsigned way);

/* The ring of the newest events, kept by the proxy on its loop's one thread like the
 * counters. livelog_init() allocates it once; nothing is allocated per event. */
struct livelog {
    struct livelog_event *ring; /* LIVELOG_EVENTS slots */
    uint64_t next_id;           /* the id the next event gets (the first is 1) */
};

/* Readies l, empty. Returns 0, or -1 when out of memory. */
int livelog_init(struct livelog *l) __attribute__((warn_unused_result));

/* Frees what l holds; l may be zeroed or initialised. */
void livelog_cleanup(struct livelog *l);

/* The slot of a new event, its id and everything else zeroed, for the caller to fill in
 * before it returns to the loop; the oldest event makes way for it when the ring is full. */
struct livelog_event *livelog_add(struct livelog *l);

/* Writes the events from id *next to the newest into out as Server-Sent Events (an "id:"
 * line and a "data:" line of JSON each), stopping once out holds room bytes or more, and
 * moves *next past what it wrote. When *next fell out of the ring, an event "skipped" says
 * how many were missed first. With only (a client's address), the events of that client
 * alone are written, and nothing is said of the others, their number either. Returns 0, or
 * -1 when out of memory (*next then names the first event not written). */
int livelog_write(const struct livelog *l, uint64_t *next, struct buf *out, size_t room,
                  const char *only) __attribute__((warn_unused_result));

#endif
