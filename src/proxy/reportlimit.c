/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The limits of what pages' scripts say: two tables of fixed slots, searched whole (they are
 * small, and only the script's requests, themselves limited, search them). */
#include "proxy/reportlimit.h"

#include <stdio.h>
#include <string.h>

#include "proxy/limits.h"
#include "util/alloc.h"

struct report_doc_use {
    uint64_t id;
    uint64_t used;  /* 0: a free slot */
    unsigned count; /* requests of the channel it made */
    unsigned n_taught;
    uint32_t taught[LIMIT_REPORT_DOC]; /* hashes of the hosts it taught about */
};

struct report_client_use {
    char addr[64];
    uint64_t used;     /* 0: a free slot */
    int64_t minute_ms; /* when its minute began */
    unsigned count;    /* reports and allowances in that minute */
};

void report_limits_init(struct report_limits *l)
{
    memset(l, 0, sizeof(*l));
}

void report_limits_cleanup(struct report_limits *l)
{
    mem_free(l->docs);
    mem_free(l->clients);
    report_limits_init(l);
}

static int ready(struct report_limits *l)
{
    if (!l->docs && !(l->docs = mem_calloc(LIMIT_REPORT_DOCS, sizeof(*l->docs))))
        return -1;
    if (!l->clients && !(l->clients = mem_calloc(LIMIT_REPORT_CLIENTS, sizeof(*l->clients))))
        return -1;
    return 0;
}

static struct report_doc_use *doc_find(const struct report_limits *l, uint64_t id)
{
    for (size_t i = 0; l->docs && i < LIMIT_REPORT_DOCS; i++)
        if (l->docs[i].used && l->docs[i].id == id)
            return &l->docs[i];
    return NULL;
}

/* The document's slot, made in the least recently used one when it has none. */
static struct report_doc_use *doc_get(struct report_limits *l, uint64_t id)
{
    struct report_doc_use *d = doc_find(l, id);
    size_t oldest = 0;

    if (d)
        return d;
    for (size_t i = 1; i < LIMIT_REPORT_DOCS; i++)
        if (l->docs[i].used < l->docs[oldest].used)
            oldest = i;
    d = &l->docs[oldest];
    memset(d, 0, sizeof(*d));
    d->id = id;
    return d;
}

static struct report_client_use *client_get(struct report_limits *l, const char *addr)
{
    struct report_client_use *c;
    size_t oldest = 0;

    for (size_t i = 0; i < LIMIT_REPORT_CLIENTS; i++) {
        if (l->clients[i].used && strcmp(l->clients[i].addr, addr) == 0)
            return &l->clients[i];
        if (l->clients[i].used < l->clients[oldest].used)
            oldest = i;
    }
    c = &l->clients[oldest];
    memset(c, 0, sizeof(*c));
    snprintf(c->addr, sizeof(c->addr), "%s", addr);
    return c;
}

enum report_limit report_limits_take(struct report_limits *l, uint64_t doc_id, const char *client,
                                     int counts_client, int64_t now_ms)
{
    struct report_doc_use *d;
    struct report_client_use *c = NULL;

    if (ready(l) < 0)
        return REPORT_LIMIT_NOMEM;
    d = doc_get(l, doc_id);
    d->used = ++l->tick;
    if (d->count >= LIMIT_REPORT_DOC)
        return REPORT_LIMIT_DOC;
    if (counts_client) {
        c = client_get(l, client);
        c->used = ++l->tick;
        /* A fixed minute from the client's first request in it: simple, and as strict. */
        if (!c->minute_ms || now_ms - c->minute_ms >= (int64_t)60 * 1000 || now_ms < c->minute_ms) {
            c->minute_ms = now_ms;
            c->count = 0;
        }
        if (c->count >= LIMIT_REPORT_CLIENT)
            return REPORT_LIMIT_CLIENT;
        c->count++;
    }
    d->count++;
    return REPORT_LIMIT_OK;
}

/* FNV-1a: the table keeps a host's hash, not its name (a slot stays small). Two hosts of one
 * document with one hash would let it teach about the second not at all: harmless, and a page
 * that wants to teach less can send less. */
static uint32_t host_hash(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

int report_limits_first(struct report_limits *l, uint64_t doc_id, const char *host)
{
    struct report_doc_use *d = doc_find(l, doc_id);
    uint32_t h = host_hash(host);

    if (!d)
        return 0;
    for (unsigned i = 0; i < d->n_taught; i++)
        if (d->taught[i] == h)
            return 0;
    /* A document makes at most LIMIT_REPORT_DOC requests, so it never has more hosts. */
    if (d->n_taught == LIMIT_REPORT_DOC)
        return 0;
    d->taught[d->n_taught++] = h;
    return 1;
}
