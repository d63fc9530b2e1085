/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside HTTP/2 toward origins (h2up.h): a record per origin, its dial others wait for or its
 * session, shared by h2up.c (streams and sessions) and h2up_origins.c (which record serves
 * an origin, its own or one it coalesced). */
#ifndef BROCK_PROXY_H2UP_INTERNAL_H
#define BROCK_PROXY_H2UP_INTERNAL_H

#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <nghttp2/nghttp2.h>

#include "brock.h"
#include "proxy/h2up.h"

struct conn;
struct proxy;

enum h2up_state {
    H2UP_DIALING, /* a dial that may become a session: requests wait for it */
    H2UP_OPEN,    /* a session on bev */
};

struct h2up {
    LIST_ENTRY(h2up) link; /* in px->h2up */
    struct proxy *px;
    char key[BROCK_HOST_MAX + 16]; /* "https:host:port" */
    enum h2up_state state;
    struct conn *dialer; /* H2UP_DIALING: the connection dialing */
    struct conn *waiting[H2UP_MAX_WAITING];
    size_t n_waiting;
    struct bufferevent *bev;      /* H2UP_OPEN: to the origin */
    struct sockaddr_storage peer; /* its address, or AF_UNSPEC when unknown */
    /* The other origins it carries (coalesced), "https:host:port" each. */
    char *alias[H2UP_MAX_ALIASES];
    size_t n_alias;
    nghttp2_session *ng;
    LIST_HEAD(, h2up_stream) streams;
    size_t n_streams;
    unsigned kicked : 1; /* a run is due at the loop's next turn */
    unsigned taken : 1;  /* a stream has bytes to give back to the windows */
    unsigned going : 1;  /* GOAWAY received, or the dial is over: no new stream */
};

/* "https:host:port" of c's origin into key (BROCK_HOST_MAX + 16 bytes), as the pool names
 * them. */
void h2up_origin_key(const struct conn *c, char *key, size_t size);

/* The origin key chose HTTP/1.1: remembered, so that its requests dial at once for a while. */
void h2up_remember_h1(struct proxy *px, const char *key, int64_t now_ms);

/* The session that carries key's requests and takes a stream more (open), its own origin's
 * or one that coalesced it; or the dial under way to key (!open). NULL: none. */
struct h2up *h2up_find(struct proxy *px, const char *key, int open);

/* s no longer carries key's requests (its origin answered one with 421). */
void h2up_alias_drop(struct h2up *s, const char *key);

/* A record for key, in px->h2up, in state H2UP_DIALING; NULL when out of memory. */
struct h2up *h2up_new(struct proxy *px, const char *key);

/* Takes s out of px->h2up and frees it, its session and its connection. */
void h2up_free(struct h2up *s);

#endif
