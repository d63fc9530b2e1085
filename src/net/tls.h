/* SPDX-License-Identifier: GPL-3.0-or-later */
/* TLS as brock speaks it on any connection: the verified client side that every upstream
 * https:// connection goes through, the state and failures of a TLS bufferevent, and
 * OpenSSL's error text. The local CA is ca.h; interception is proxy/intercept.h. */
#ifndef BROCK_NET_TLS_H
#define BROCK_NET_TLS_H

#include <stddef.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <openssl/ssl.h>

/* The wire form of ALPN's only protocol, both ways: brock speaks HTTP/1.1. */
#define TLS_ALPN_HTTP11 "\x08http/1.1"

/* Writes the reason of OpenSSL's earliest queued error into out (size bytes), "unknown
 * error" when none is queued, and clears the queue. */
void tls_reason(char *out, size_t size);

/* ---- upstream: verified client TLS ---- */

/* A client context that verifies servers against the system's store (/etc/ssl/certs) and,
 * when upstream_ca is not NULL, the PEM roots in that file; TLS 1.2 at least; ALPN http/1.1.
 * Returns a new context (SSL_CTX_free), or NULL with a sentence naming the problem in err. */
SSL_CTX *tls_upstream_ctx_new(const char *upstream_ca, char *err, size_t errlen);

/* A client SSL on ctx for host at port: SNI sent (for names), the certificate checked for
 * host (a name, or an IP literal against its IP subjectAltName), and the session kept from
 * an earlier connection to host and port offered for resumption (tls_sessions.h). NULL when
 * out of memory. */
SSL *tls_upstream_ssl_new(SSL_CTX *ctx, const char *host, int port);

/* ---- a TLS bufferevent (an io_tls one) ---- */

/* Makes ssl, before io_tls.open() takes it over on fd, read data (len bytes, copied) first and
 * then from fd: what the peer sent on fd before TLS began there (tls_early.c). Returns 0, or
 * -1 when out of memory (ssl is then unchanged). */
int tls_early_bytes(SSL *ssl, evutil_socket_t fd, const void *data, size_t len)
    __attribute__((warn_unused_result));

/* After BEV_EVENT_ERROR on a TLS bufferevent: writes why into out (a sentence naming host
 * and, for a certificate, the reason it does not verify). Returns 1 when the failure was
 * TLS's (out is set), 0 when it was not (out untouched; the socket error applies). Clears
 * OpenSSL's error queue either way. */
int tls_error_describe(struct bufferevent *bev, const char *host, char *out, size_t size);

/* The same, also telling in *refused whether the peer ended the handshake by an alert that
 * refuses the certificate it was shown: unknown CA, bad certificate, certificate unknown,
 * decrypt error. */
int tls_error_explain(struct bufferevent *bev, const char *host, char *out, size_t size,
                      int *refused);

/* Whether the TLS handshake on bev (an io_tls bufferevent) is complete and resumed an earlier
 * session rather than made a new one. */
int tls_resumed(struct bufferevent *bev);

/* Whether the TLS handshake on bev (an io_tls bufferevent) is complete. */
int tls_handshake_done(struct bufferevent *bev);

/* Sends TLS's close_notify on bev (an io_tls bufferevent whose output is empty) before its
 * socket is shut for writing. Does nothing before the handshake is done. */
void tls_close_notify(struct bufferevent *bev);

#endif
