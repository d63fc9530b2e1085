/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Verified upstream TLS, and what brock asks of any TLS bufferevent: why it failed, whether
 * its handshake is done, a close_notify before the write half shuts. */
#include "net/tls.h"

#include <stdio.h>
#include <string.h>

#include <event2/bufferevent_ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "net/resolve.h"
#include "net/tls_sessions.h"

void tls_reason(char *out, size_t size)
{
    unsigned long e = ERR_get_error();

    if (e)
        ERR_error_string_n(e, out, size);
    else
        snprintf(out, size, "unknown error");
    ERR_clear_error();
}

/* ---- upstream ---- */

SSL_CTX *tls_upstream_ctx_new(const char *upstream_ca, char *err, size_t errlen)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    char why[256];

    if (!ctx) {
        tls_reason(why, sizeof(why));
        snprintf(err, errlen, "cannot set up upstream TLS: %s", why);
        return NULL;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    if (!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
        SSL_CTX_set_alpn_protos(ctx, (const unsigned char *)TLS_ALPN_HTTP11,
                                sizeof(TLS_ALPN_HTTP11) - 1) != 0) {
        tls_reason(why, sizeof(why));
        snprintf(err, errlen, "cannot set up upstream TLS: %s", why);
        goto fail;
    }
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
        tls_reason(why, sizeof(why));
        snprintf(err, errlen, "cannot load the system's trusted certificates: %s", why);
        goto fail;
    }
    if (upstream_ca && SSL_CTX_load_verify_locations(ctx, upstream_ca, NULL) != 1) {
        tls_reason(why, sizeof(why));
        snprintf(err, errlen, "--upstream-ca %s: not a file of PEM certificates (%s)", upstream_ca,
                 why);
        goto fail;
    }
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    /* A response cut short is told by its framing, not by a missing close_notify (as for
     * intercepted clients, proxy/intercept.c). */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    if (tls_sessions_attach(ctx) < 0) {
        snprintf(err, errlen, "cannot set up upstream TLS: out of memory");
        goto fail;
    }
    return ctx;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

SSL *tls_upstream_ssl_new(SSL_CTX *ctx, const char *host, int port)
{
    SSL *ssl = SSL_new(ctx);
    int ok;

    if (!ssl)
        return NULL;
    if (resolve_literal(host, 0, NULL, NULL))
        ok = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
    else
        ok = SSL_set_tlsext_host_name(ssl, host) && SSL_set1_host(ssl, host);
    if (!ok || tls_sessions_offer(ssl, host, port) < 0) {
        SSL_free(ssl);
        ERR_clear_error();
        return NULL;
    }
    /* No partial wildcards ("w*.example"): browsers do not accept them either. */
    SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    return ssl;
}

int tls_error_describe(struct bufferevent *bev, const char *host, char *out, size_t size)
{
    int refused;

    return tls_error_explain(bev, host, out, size, &refused);
}

/* The alerts a client sends when it does not trust the certificate it was shown. */
static int refuses_certificate(unsigned long e)
{
    if (ERR_GET_LIB(e) != ERR_LIB_SSL)
        return 0;
    switch (ERR_GET_REASON(e)) {
    case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
    case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
    case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
    case SSL_R_TLSV1_ALERT_DECRYPT_ERROR: return 1;
    default: return 0;
    }
}

int tls_error_explain(struct bufferevent *bev, const char *host, char *out, size_t size,
                      int *refused)
{
    SSL *ssl = bufferevent_openssl_get_ssl(bev);
    long v = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
    unsigned long e, tls = 0;
    char text[160];

    /* libevent files OpenSSL's queued errors, latest first, and also SSL_get_error()'s own
     * code, which belongs to no library: SSL_ERROR_SYSCALL is a socket that failed (refused,
     * reset), as are the system library's errors; only the others are TLS's. All are drained,
     * so that a later failure does not report these. */
    while ((e = bufferevent_get_openssl_error(bev)) != 0) {
        if (!tls && ERR_GET_LIB(e) != 0 && ERR_GET_LIB(e) != ERR_LIB_SYS)
            tls = e;
    }
    /* After the handshake brock reads itself (io_tls.c): OpenSSL's queue has those errors. */
    while ((e = ERR_get_error()) != 0) {
        if (!tls && ERR_GET_LIB(e) != 0 && ERR_GET_LIB(e) != ERR_LIB_SYS)
            tls = e;
    }
    ERR_clear_error();
    *refused = tls && refuses_certificate(tls);
    if (!ssl || (!tls && v == X509_V_OK))
        return 0;
    if (v != X509_V_OK) {
        snprintf(out, size, "the certificate of %s does not verify: %s", host,
                 X509_verify_cert_error_string(v));
    } else {
        ERR_error_string_n(tls, text, sizeof(text));
        snprintf(out, size, "TLS with %s failed: %s", host, text);
    }
    return 1;
}

int tls_resumed(struct bufferevent *bev)
{
    SSL *ssl = bufferevent_openssl_get_ssl(bev);

    return ssl && SSL_is_init_finished(ssl) && SSL_session_reused(ssl);
}

int tls_handshake_done(struct bufferevent *bev)
{
    SSL *ssl = bufferevent_openssl_get_ssl(bev);

    return ssl && SSL_is_init_finished(ssl);
}

void tls_close_notify(struct bufferevent *bev)
{
    SSL *ssl = bufferevent_openssl_get_ssl(bev);

    /* The socket BIO writes the alert at once; a full buffer only loses the courtesy. */
    if (ssl && SSL_is_init_finished(ssl))
        (void)SSL_shutdown(ssl);
    ERR_clear_error();
}
