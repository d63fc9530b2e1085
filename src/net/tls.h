/* SPDX-License-Identifier: GPL-3.0-or-later */
/* TLS for the proxy: the local certificate authority (created by `brock ca init`), the leaf
 * certificates it issues for intercepted hosts, and the verified client side that every
 * upstream https:// connection goes through. */
#ifndef BROCK_NET_TLS_H
#define BROCK_NET_TLS_H

#include <stddef.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

/* The CA's files, under the state folder. */
#define TLS_CA_DIR "ca"
#define TLS_CA_CERT "ca.pem"
#define TLS_CA_KEY "ca-key.pem"

/* How long a CA lasts, and a leaf. Leaves are renewed a day before they end. */
#define TLS_CA_DAYS (3 * 365)
#define TLS_LEAF_DAYS 7

/* Leaves kept in memory, least recently used dropped first. */
#define TLS_LEAF_CACHE 1024

/* ---- the local CA ---- */

/* Writes the paths of the CA's certificate and key under state_dir into cert and key (each
 * size bytes). Returns 0, or -1 when a path does not fit. */
int tls_ca_paths(const char *state_dir, char *cert, char *key, size_t size)
    __attribute__((warn_unused_result));

/* Creates a CA under state_dir/ca: an EC P-256 key (mode 0600) and a self-signed certificate
 * naming brock and this machine. Both files are written to temporary files and renamed into
 * place. An existing CA is kept unless force. Returns 0, or -1 with a sentence in err. */
int tls_ca_create(const char *state_dir, int force, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* ---- interception: the client-facing side ---- */

struct tls_mitm;

/* Loads the CA under state_dir and prepares to issue leaves with it. init_cmd is the command
 * that makes one, as the user would type it for this state (NULL: "brock ca init"). Returns
 * a new object (free with tls_mitm_free), or NULL with a sentence in err (no CA: says to run
 * init_cmd; a key that does not match the certificate; a key readable by others). */
struct tls_mitm *tls_mitm_new(const char *state_dir, const char *init_cmd, char *err,
                              size_t errlen);

void tls_mitm_free(struct tls_mitm *m);

/* A server-side SSL for one intercepted connection. Its certificate is chosen during the
 * handshake: for the name the client sends (SNI), else for host (the CONNECT target, a name
 * or an address literal). Offers only http/1.1 by ALPN. Returns a new SSL (handed to the
 * bufferevent that uses it), or NULL when out of memory. */
SSL *tls_mitm_ssl_new(struct tls_mitm *m, const char *host);

/* The leaf certificate for host (a DNS name or an IP literal), from the cache or issued
 * now. Borrowed: valid until the next call on m. NULL when out of memory or host is empty. */
X509 *tls_mitm_leaf(struct tls_mitm *m, const char *host);

/* The CA's certificate (borrowed from m). */
X509 *tls_mitm_ca_cert(const struct tls_mitm *m);

/* ---- upstream: verified client TLS ---- */

/* A client context that verifies servers against the system's store (/etc/ssl/certs) and,
 * when upstream_ca is not NULL, the PEM roots in that file; TLS 1.2 at least; ALPN http/1.1.
 * Returns a new context (SSL_CTX_free), or NULL with a sentence naming the problem in err. */
SSL_CTX *tls_upstream_ctx_new(const char *upstream_ca, char *err, size_t errlen);

/* A client SSL on ctx for host: SNI sent (for names), and the certificate checked for host
 * (a name, or an IP literal against its IP subjectAltName). NULL when out of memory. */
SSL *tls_upstream_ssl_new(SSL_CTX *ctx, const char *host);

/* Opens a verified TLS connection to sa (len bytes) for host, on base: a new bufferevent
 * (BEV_OPT_CLOSE_ON_FREE, dirty shutdowns allowed so a body's end is the parser's call)
 * whose connect and handshake have started. The caller sets its callbacks at once:
 * BEV_EVENT_CONNECTED arrives after the handshake and the certificate check succeeded,
 * BEV_EVENT_ERROR otherwise (tls_error_describe() says why). Returns NULL with errno set
 * when the connection cannot even start. Free with bufferevent_free(). */
struct bufferevent *tls_upstream_open(struct event_base *base, SSL_CTX *ctx,
                                      const struct sockaddr *sa, int len, const char *host);

/* After BEV_EVENT_ERROR on a TLS bufferevent: writes why into out (a sentence naming host
 * and, for a certificate, the reason it does not verify). Returns 1 when the failure was
 * TLS's (out is set), 0 when it was not (out untouched; the socket error applies). Clears
 * OpenSSL's error queue either way. */
int tls_error_describe(struct bufferevent *bev, const char *host, char *out, size_t size);

/* Whether the TLS handshake on bev (an io_tls bufferevent) is complete. */
int tls_handshake_done(struct bufferevent *bev);

/* Sends TLS's close_notify on bev (an io_tls bufferevent whose output is empty) before its
 * socket is shut for writing. Does nothing before the handshake is done. */
void tls_close_notify(struct bufferevent *bev);

/* Whether host (normalised) matches one of the n fnmatch globs (--no-intercept). */
int tls_host_listed(const char *const *globs, size_t n, const char *host);

#endif
