/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Upstream TLS sessions kept for resumption. A session is kept under its server name, port and
 * the verification the connection asked for: a session never crosses to another name, and one
 * obtained without verification is never offered where verification is required. The cache
 * is a plain array scanned by hash: at most TLS_SESSIONS_MAX entries, looked up once per new
 * upstream connection, cost less than the handshake they save. */
#include "net/tls_sessions.h"

#include <stdio.h>
#include <string.h>

#include <openssl/err.h>

#include "util/alloc.h"

/* FNV-1a: keys differ early (the host), so any spread will do. */
static uint64_t key_hash(const char *key)
{
    uint64_t h = 0xcbf29ce484222325ULL;

    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

int tls_sessions_init(struct tls_sessions *c, size_t max)
{
    memset(c, 0, sizeof(*c));
    c->v = mem_calloc(max ? max : 1, sizeof(*c->v));
    if (!c->v)
        return -1;
    c->max = max ? max : 1;
    return 0;
}

static void entry_clear(struct tls_sessions *c, struct tls_session_entry *e)
{
    SSL_SESSION_free(e->sess);
    mem_free(e->key);
    memset(e, 0, sizeof(*e));
    c->count--;
}

void tls_sessions_cleanup(struct tls_sessions *c)
{
    if (!c->v)
        return;
    for (size_t i = 0; i < c->max; i++) {
        if (c->v[i].seq)
            entry_clear(c, &c->v[i]);
    }
    mem_free(c->v);
    memset(c, 0, sizeof(*c));
}

static struct tls_session_entry *find(struct tls_sessions *c, const char *key, uint64_t hash)
{
    for (size_t i = 0; i < c->max; i++) {
        struct tls_session_entry *e = &c->v[i];

        if (e->seq && e->hash == hash && strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

/* A free slot, or the oldest entry's, emptied (there is at least one slot). */
static struct tls_session_entry *slot(struct tls_sessions *c)
{
    struct tls_session_entry *oldest = &c->v[0];

    for (size_t i = 0; i < c->max; i++) {
        struct tls_session_entry *e = &c->v[i];

        if (!e->seq)
            return e;
        if (e->seq < oldest->seq)
            oldest = e;
    }
    entry_clear(c, oldest);
    return oldest;
}

int tls_sessions_put(struct tls_sessions *c, const char *key, SSL_SESSION *sess)
{
    uint64_t hash = key_hash(key);
    struct tls_session_entry *e;
    char *copy;

    if (!sess || !SSL_SESSION_is_resumable(sess))
        return 0;
    e = find(c, key, hash);
    if (e) {
        SSL_SESSION_free(e->sess);
        e->sess = sess;
        e->seq = ++c->seq;
        return 1;
    }
    copy = mem_strdup(key);
    if (!copy)
        return 0;
    e = slot(c);
    *e = (struct tls_session_entry){.hash = hash, .key = copy, .sess = sess, .seq = ++c->seq};
    c->count++;
    return 1;
}

static int expired(const SSL_SESSION *sess, time_t now)
{
    long t = SSL_SESSION_get_time(sess), timeout = SSL_SESSION_get_timeout(sess);

    return !SSL_SESSION_is_resumable(sess) || (time_t)t + (time_t)timeout <= now;
}

SSL_SESSION *tls_sessions_get(struct tls_sessions *c, const char *key, time_t now)
{
    struct tls_session_entry *e = find(c, key, key_hash(key));

    if (!e)
        return NULL;
    if (expired(e->sess, now)) {
        entry_clear(c, e);
        return NULL;
    }
    if (!SSL_SESSION_up_ref(e->sess))
        return NULL;
    return e->sess;
}

void tls_sessions_drop(struct tls_sessions *c, const char *key, const SSL_SESSION *sess)
{
    struct tls_session_entry *e = find(c, key, key_hash(key));

    if (e && e->sess == sess)
        entry_clear(c, e);
}

/* ---- on a client context ---- */

/* What an SSL made by tls_sessions_offer() carries: its context's cache, the session it was
 * offered (a reference, until the handshake tells whether it resumed), its key. */
struct offer {
    struct tls_sessions *cache;
    SSL_SESSION *offered;
    char key[];
};

static int ctx_index = -1, ssl_index = -1;

static void free_cache(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    (void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
    if (ptr) {
        tls_sessions_cleanup(ptr);
        mem_free(ptr);
    }
}

/* A handshake that began and ended before it was done may have failed on its session: it is
 * not offered again. One that never began (the TCP connection failed) says nothing of it.
 * parent is the SSL being freed, still whole. */
static void free_offer(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    struct offer *o = ptr;

    (void)ad, (void)idx, (void)argl, (void)argp;
    if (!o)
        return;
    if (o->offered) {
        if (!parent || !SSL_in_before(parent))
            tls_sessions_drop(o->cache, o->key, o->offered);
        SSL_SESSION_free(o->offered);
    }
    mem_free(o);
}

/* OpenSSL's new-session callback. The cache keeps a copy: OpenSSL marks the connection's own
 * session unresumable when the connection is freed without brock's close_notify (a server
 * that closes after its response, a client gone), as TLS 1.0 asked; TLS 1.2 and 1.3 allow
 * resuming those, as browsers do, and a handshake that failed is dropped here instead
 * (free_offer). Returns 0: the reference handed over stays OpenSSL's. */
static int on_new_session(SSL *ssl, SSL_SESSION *sess)
{
    struct offer *o = SSL_get_ex_data(ssl, ssl_index);
    SSL_SESSION *copy;

    if (!o || !SSL_SESSION_is_resumable(sess))
        return 0;
    /* Out of memory here costs a later full handshake, not this one: its errors go. */
    ERR_set_mark();
    copy = SSL_SESSION_dup(sess);
    if (copy && !tls_sessions_put(o->cache, o->key, copy))
        SSL_SESSION_free(copy);
    ERR_pop_to_mark();
    return 0;
}

/* A session offered and not resumed was refused by the server: it is not offered again. Done
 * once; TLS 1.3's tickets after the handshake call this again. */
static void on_info(const SSL *ssl, int where, int ret)
{
    struct offer *o;

    (void)ret;
    if (!(where & SSL_CB_HANDSHAKE_DONE))
        return;
    o = SSL_get_ex_data(ssl, ssl_index);
    if (!o || !o->offered)
        return;
    if (!SSL_session_reused(ssl))
        tls_sessions_drop(o->cache, o->key, o->offered);
    SSL_SESSION_free(o->offered);
    o->offered = NULL;
}

int tls_sessions_attach(SSL_CTX *ctx)
{
    struct tls_sessions *c;

    if (ctx_index < 0)
        ctx_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, free_cache);
    if (ssl_index < 0)
        ssl_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, free_offer);
    if (ctx_index < 0 || ssl_index < 0)
        return -1;
    c = mem_malloc(sizeof(*c));
    if (!c || tls_sessions_init(c, TLS_SESSIONS_MAX) < 0) {
        mem_free(c);
        return -1;
    }
    if (!SSL_CTX_set_ex_data(ctx, ctx_index, c)) {
        free_cache(NULL, c, NULL, 0, 0, NULL);
        return -1;
    }
    /* OpenSSL's own store is by session id alone, and servers' only: brock keeps its own. */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, on_new_session);
    SSL_CTX_set_info_callback(ctx, on_info);
    return 0;
}

int tls_sessions_offer(SSL *ssl, const char *host, int port)
{
    struct tls_sessions *c;
    struct offer *o;
    SSL_SESSION *copy;
    size_t size;
    int n;

    if (ctx_index < 0 || !(c = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ctx_index)))
        return 0;
    size = strlen(host) + 32;
    o = mem_calloc(1, sizeof(*o) + size);
    if (!o)
        return -1;
    o->cache = c;
    /* Unverified sessions are kept apart from verified ones. */
    n = snprintf(o->key, size, "%s:%d:%s", host, port,
                 SSL_get_verify_mode(ssl) & SSL_VERIFY_PEER ? "verify" : "none");
    if (n < 0 || (size_t)n >= size || !SSL_set_ex_data(ssl, ssl_index, o)) {
        mem_free(o);
        return -1;
    }
    o->offered = tls_sessions_get(c, o->key, time(NULL));
    if (!o->offered)
        return 0;
    /* ssl gets a copy, which OpenSSL may mark unresumable when ssl is freed (on_new_session);
     * the one kept stays as it is. */
    copy = SSL_SESSION_dup(o->offered);
    if (!copy || !SSL_set_session(ssl, copy)) {
        SSL_SESSION_free(o->offered);
        o->offered = NULL;
        ERR_clear_error();
    }
    SSL_SESSION_free(copy);
    return 0;
}
