/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP/2 toward origins (h2up.h): which record serves an origin, its own or one that coalesced
 * it (the same address and a certificate that covers both), and the origins that chose
 * HTTP/1.1. */
#include "proxy/h2up_internal.h"

#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include <event2/bufferevent_ssl.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "net/resolve.h"
#include "proxy/conn_internal.h"
#include "proxy/proxy.h"
#include "util/alloc.h"

/* "https:host:port" into key (BROCK_HOST_MAX + 16 bytes), as the pool names them. */
void h2up_origin_key(const struct conn *c, char *key, size_t size)
{
    snprintf(key, size, "https:%s:%d", c->c_ex.host, c->c_ex.port);
}

int h2up_eligible(const struct conn *c)
{
    return !c->px->live->no_http2 && c->c_ex.is_https && !c->c_ex.is_connect && !c->c_ex.is_upgrade;
}

int h2up_known_h1(struct conn *c)
{
    char key[BROCK_HOST_MAX + 16];
    void *until;

    h2up_origin_key(c, key, sizeof(key));
    until = strmap_get(&c->px->h1_known, key);
    if (!until)
        return 0;
    if ((int64_t)(intptr_t)until > conn_now_ms(c))
        return 1;
    (void)strmap_del(&c->px->h1_known, key);
    return 0;
}

/* The origin chose HTTP/1.1: remembered, so that its requests dial at once for a while. */
void h2up_remember_h1(struct proxy *px, const char *key, int64_t now_ms)
{
    if (px->h1_known.len >= H2UP_H1_MEMORY_MAX)
        strmap_cleanup(&px->h1_known, NULL);
    /* Out of memory, it is only not remembered. */
    if (strmap_put(&px->h1_known, key, (void *)(intptr_t)(now_ms + H2UP_H1_MEMORY_MS)) < 0)
        return;
}

/* Where key is among s's aliases, or -1. */
static ssize_t alias_find(const struct h2up *s, const char *key)
{
    for (size_t i = 0; i < s->n_alias; i++) {
        if (strcmp(s->alias[i], key) == 0)
            return (ssize_t)i;
    }
    return -1;
}

void h2up_alias_drop(struct h2up *s, const char *key)
{
    ssize_t i = alias_find(s, key);

    if (i < 0)
        return;
    mem_free(s->alias[i]);
    s->alias[i] = s->alias[--s->n_alias];
}

/* Whether s takes new streams. */
static int usable(const struct h2up *s)
{
    return s->state == H2UP_OPEN && !s->going && s->n_streams < H2UP_MAX_STREAMS;
}

/* The session that carries key's requests (open), its own origin's or one it coalesced; or
 * the dial under way to it (!open). */
struct h2up *h2up_find(struct proxy *px, const char *key, int open)
{
    struct h2up *s;

    LIST_FOREACH(s, &px->h2up, link) {
        if (open && usable(s) && (strcmp(s->key, key) == 0 || alias_find(s, key) >= 0))
            return s;
        if (!open && s->state == H2UP_DIALING && strcmp(s->key, key) == 0)
            return s;
    }
    return NULL;
}

struct h2up *h2up_new(struct proxy *px, const char *key)
{
    struct h2up *s = mem_calloc(1, sizeof(*s));

    if (!s)
        return NULL;
    s->px = px;
    snprintf(s->key, sizeof(s->key), "%s", key);
    LIST_INIT(&s->streams);
    LIST_INSERT_HEAD(&px->h2up, s, link);
    return s;
}

void h2up_free(struct h2up *s)
{
    LIST_REMOVE(s, link);
    for (size_t i = 0; i < s->n_alias; i++)
        mem_free(s->alias[i]);
    nghttp2_session_del(s->ng);
    if (s->bev)
        bufferevent_free(s->bev);
    mem_free(s);
}

/* Whether sa is s's peer: the same family, address and port. */
static int same_peer(const struct h2up *s, const struct sockaddr *sa)
{
    if (sa->sa_family != s->peer.ss_family)
        return 0;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
        const struct sockaddr_in *b = (const struct sockaddr_in *)&s->peer;

        return a->sin_port == b->sin_port && a->sin_addr.s_addr == b->sin_addr.s_addr;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
        const struct sockaddr_in6 *b = (const struct sockaddr_in6 *)&s->peer;

        return a->sin6_port == b->sin6_port && a->sin6_scope_id == b->sin6_scope_id &&
               memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(a->sin6_addr)) == 0;
    }
    return 0;
}

/* Whether the certificate s's origin showed, which verified, covers host as a dial to host
 * would check it (tls.c): a name, partial wildcards refused, or an address. */
static int covers(const struct h2up *s, const char *host)
{
    SSL *ssl = bufferevent_openssl_get_ssl(s->bev);
    X509 *cert = ssl ? SSL_get0_peer_certificate(ssl) : NULL;

    if (!cert || SSL_get_verify_result(ssl) != X509_V_OK)
        return 0;
    if (resolve_literal(host, 0, NULL, NULL))
        return X509_check_ip_asc(cert, host, 0) == 1;
    return X509_check_host(cert, host, 0, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, NULL) == 1;
}

int h2up_coalesce(struct conn *c, const struct sockaddr *sa)
{
    char key[BROCK_HOST_MAX + 16];
    struct h2up *s;

    if (!c->up_dialer)
        return 0;
    h2up_origin_key(c, key, sizeof(key));
    LIST_FOREACH(s, &c->px->h2up, link) {
        if (!usable(s) || s->n_alias >= H2UP_MAX_ALIASES || !same_peer(s, sa) ||
            !covers(s, c->c_ex.host))
            continue;
        /* Out of memory, c only dials as it would have. */
        if (!(s->alias[s->n_alias] = mem_strdup(key)))
            return 0;
        s->n_alias++;
        return 1;
    }
    return 0;
}
