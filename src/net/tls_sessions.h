/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The sessions brock keeps of its upstream TLS connections, so that the next connection to the
 * same origin resumes rather than repeats the whole handshake: one cache per client context
 * (each worker has its own), bounded, keyed by what must match for a resumption to be safe. */
#ifndef BROCK_NET_TLS_SESSIONS_H
#define BROCK_NET_TLS_SESSIONS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <openssl/ssl.h>

/* The most sessions a context keeps; the oldest stored goes first. */
#define TLS_SESSIONS_MAX 1024

/* One origin's session. key is "host:port:verify"; seq is the order of storing, 0 when the
 * slot is free. */
struct tls_session_entry {
    uint64_t hash;
    char *key;
    SSL_SESSION *sess;
    uint64_t seq;
};

struct tls_sessions {
    struct tls_session_entry *v;
    size_t max, count;
    uint64_t seq;
};

/* A cache of at most max sessions. Returns 0, or -1 when out of memory. */
int tls_sessions_init(struct tls_sessions *c, size_t max) __attribute__((warn_unused_result));

/* Frees every session kept, and the cache's memory. */
void tls_sessions_cleanup(struct tls_sessions *c);

/* Keeps sess under key, in place of what key had; when full, the oldest entry goes. Takes
 * the caller's reference to sess on success (returns 1); returns 0, the reference still the
 * caller's, when sess cannot be resumed or memory is short. */
int tls_sessions_put(struct tls_sessions *c, const char *key, SSL_SESSION *sess);

/* key's session, with a new reference (SSL_SESSION_free), or NULL; a session that has
 * expired by now or cannot be resumed is dropped instead. */
SSL_SESSION *tls_sessions_get(struct tls_sessions *c, const char *key, time_t now);

/* Drops key's entry if it still holds sess (a resumption of it failed); a session stored
 * since, by the same handshake or another, stays. */
void tls_sessions_drop(struct tls_sessions *c, const char *key, const SSL_SESSION *sess);

/* ---- on a client context ---- */

/* Gives ctx a cache of TLS_SESSIONS_MAX, freed with ctx, filled from OpenSSL's new-session
 * callback (TLS 1.3 tickets as well). Returns 0, or -1 when out of memory. */
int tls_sessions_attach(SSL_CTX *ctx) __attribute__((warn_unused_result));

/* Before ssl's handshake with host at port: offers the session its context keeps for them
 * and the ssl's verification mode, if any, and has the sessions ssl obtains kept under the
 * same key. Returns 0 (also when ctx has no cache), or -1 when out of memory. */
int tls_sessions_offer(SSL *ssl, const char *host, int port) __attribute__((warn_unused_result));

#endif
