/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The workers' shared record of their clients' pages; see firstparty_share.h. Each entry is written
 * under a sequence number, as a seqlock: a writer claims a ticket, marks the slot busy, writes
 * it and publishes the ticket; a reader copies a slot and keeps it only when the ticket it read
 * before and after is the one it expected. */
#include "proxy/firstparty_share.h"

#include <stdio.h>
#include <string.h>

#include "brock.h"
#include "proxy/firstparty.h"
#include "proxy/workers.h"

#define FIRSTPARTY_RING_SLOTS 4096

enum { EV_TOP = 1, EV_FRAME, EV_SAW };

struct firstparty_event {
    uint64_t seq;        /* ticket + 1 once written; 0 while being written */
    unsigned writer;     /* the worker's index */
    unsigned char kind;  /* EV_* */
    unsigned char cross; /* EV_FRAME: Sec-Fetch-Site said cross-site */
    int64_t time_ms;     /* EV_SAW: when */
    char client[64];
    char a[BROCK_HOST_MAX]; /* EV_TOP, EV_FRAME: the host; EV_SAW: the site */
    char b[BROCK_HOST_MAX]; /* EV_FRAME: the referrer's host or ""; EV_SAW: the host */
};

struct firstparty_ring {
    uint64_t head; /* the next ticket */
    struct firstparty_event ev[FIRSTPARTY_RING_SLOTS];
};

size_t firstparty_share_ring_size(void)
{
    return sizeof(struct firstparty_ring);
}

static void put(const struct proxy_worker *w, int kind, int cross, int64_t time_ms,
                const char *client, const char *a, const char *b)
{
    struct firstparty_ring *ring = w->firstparty_ring;
    uint64_t t = __atomic_fetch_add(&ring->head, 1, __ATOMIC_RELAXED);
    struct firstparty_event *e = &ring->ev[t % FIRSTPARTY_RING_SLOTS];

    __atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    e->writer = w->index;
    e->kind = (unsigned char)kind;
    e->cross = (unsigned char)cross;
    e->time_ms = time_ms;
    snprintf(e->client, sizeof(e->client), "%s", client);
    snprintf(e->a, sizeof(e->a), "%s", a);
    snprintf(e->b, sizeof(e->b), "%s", b ? b : "");
    __atomic_store_n(&e->seq, t + 1, __ATOMIC_RELEASE);
}

static int is(const char *v, const char *want)
{
    return v && strcmp(v, want) == 0;
}

void firstparty_share_infer(const struct proxy_worker *w, const char *client,
                            const struct firstparty_request *r)
{
    char ref[BROCK_HOST_MAX] = "";

    if (!w || !w->firstparty_ring || !is(r->fetch_mode, "navigate"))
        return;
    if (is(r->fetch_dest, "document")) {
        put(w, EV_TOP, 0, 0, client, r->host, NULL);
        return;
    }
    if (!is(r->fetch_dest, "iframe") && !is(r->fetch_dest, "frame"))
        return;
    /* The referrer's host is all that the record reads of it. */
    if (r->referer && *r->referer) {
        if (brock_url_host(r->referer, ref) < 0)
            return;
    } else if (r->origin && *r->origin) {
        if (!strcmp(r->origin, "null") || brock_url_host(r->origin, ref) < 0)
            return;
    }
    put(w, EV_FRAME, is(r->fetch_site, "cross-site"), 0, client, r->host, ref);
}

void firstparty_share_saw(const struct proxy_worker *w, const char *client, const char *site,
                          const char *host, int64_t now_ms)
{
    if (w && w->firstparty_ring)
        put(w, EV_SAW, 0, now_ms, client, site, host);
}

static void replay(struct firstparty_memory *m, const struct firstparty_event *e)
{
    char site[BROCK_HOST_MAX], url[BROCK_HOST_MAX + 16];
    struct firstparty_request r = {.host = e->a, .fetch_mode = "navigate"};

    switch (e->kind) {
    case EV_TOP:
        r.fetch_dest = "document";
        (void)firstparty_infer(m, e->client, &r, site);
        break;
    case EV_FRAME:
        r.fetch_dest = "iframe";
        r.fetch_site = e->cross ? "cross-site" : NULL;
        if (e->b[0]) {
            snprintf(url, sizeof(url), "http://%s/", e->b);
            r.referer = url;
        }
        (void)firstparty_infer(m, e->client, &r, site);
        break;
    case EV_SAW: firstparty_saw(m, e->client, e->a, e->b, e->time_ms); break;
    default: break;
    }
}

void firstparty_share_apply(const struct proxy_worker *w, struct firstparty_memory *m,
                            uint64_t *next)
{
    struct firstparty_ring *ring;
    struct firstparty_event copy;
    uint64_t head;

    if (!w || !w->firstparty_ring)
        return;
    ring = w->firstparty_ring;
    head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
    if (head - *next > FIRSTPARTY_RING_SLOTS)
        *next = head - FIRSTPARTY_RING_SLOTS;
    for (; *next < head; ++*next) {
        const struct firstparty_event *e = &ring->ev[*next % FIRSTPARTY_RING_SLOTS];
        uint64_t s = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);

        /* Still being written: next time, unless its writer died writing it. */
        if ((s == 0 || s < *next + 1) && head - *next < 64)
            break;
        if (s != *next + 1)
            continue; /* written over already: lost */
        memcpy(&copy, e, sizeof(copy));
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != s)
            continue;
        copy.client[sizeof(copy.client) - 1] = copy.a[sizeof(copy.a) - 1] =
            copy.b[sizeof(copy.b) - 1] = '\0';
        if (copy.writer != w->index)
            replay(m, &copy);
    }
}
