/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Interception: brock completes TLS with a client inside a CONNECT, as the site it asked
 * for, with a leaf certificate per name issued by the local CA (net/ca.h) and kept in a
 * bounded cache. */
#ifndef BROCK_PROXY_INTERCEPT_H
#define BROCK_PROXY_INTERCEPT_H

#include <stddef.h>
#include <time.h>

#include <openssl/ssl.h>
#include <openssl/x509.h>

/* How long a leaf lasts; it is renewed a day before it ends. */
#define INTERCEPT_LEAF_DAYS 7

/* Leaves kept in memory, least recently used dropped first. */
#define INTERCEPT_LEAF_CACHE 1024

struct intercept;

/* Loads the CA under state_dir and prepares to issue leaves with it. init_cmd is the command
 * that makes one, as the user would type it for this state (NULL: "brock ca init"). Returns
 * a new object (free with intercept_free), or NULL with a sentence in err (ca_load()'s
 * refusals; OpenSSL out of memory). */
struct intercept *intercept_new(const char *state_dir, const char *init_cmd, char *err,
                                size_t errlen);

void intercept_free(struct intercept *m);

/* A server-side SSL for one intercepted connection. Its certificate is chosen during the
 * handshake: for the name the client sends (SNI), else for host (the CONNECT target, a name
 * or an address literal). Offers h2 (when set) and http/1.1 by ALPN. Returns a new SSL (handed to the
 * bufferevent that uses it), or NULL when out of memory. */
SSL *intercept_ssl_new(struct intercept *m, const char *host);

/* The same for a client that speaks TLS to brock's own port, for its pages (the dashboard
 * over HTTPS): http/1.1 alone is offered by ALPN. */
SSL *intercept_ssl_new_pages(struct intercept *m, const char *host);

/* Whether clients may choose HTTP/2 by ALPN (h2front.h); off until set. */
void intercept_set_h2(struct intercept *m, int on);

/* Why brock refused the handshake of ssl (one of m's), as a sentence for the connection's
 * log line: a server name it makes no certificate for. Borrowed from ssl; NULL when it
 * refused nothing, or ssl is NULL. */
const char *intercept_refusal(const struct intercept *m, SSL *ssl);

/* The leaf certificate for host (a DNS name or an IP literal, lower case) at time now, from
 * the cache or issued now. Borrowed: valid until the next call on m. NULL when out of memory
 * or host is neither a host name nor an address (ca_name_kind()). */
X509 *intercept_leaf(struct intercept *m, const char *host, time_t now);

/* Whether host (normalised) matches one of the n fnmatch globs (--no-intercept). */
int intercept_host_listed(const char *const *globs, size_t n, const char *host);

#endif
