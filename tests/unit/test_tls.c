/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Upstream TLS: the verifying context (TLS 1.2 at least, extra roots from --upstream-ca, a
 * bad roots file named), SNI and the name checked per host, and OpenSSL's error text. */
#include "test.h"

#include <string.h>

#include <openssl/err.h>
#include <openssl/x509v3.h>

#include "net/tls.h"
#include "tls_dirs.h"

static void test_upstream_ctx(void **state)
{
    struct dirs *d = *state;
    char err[512], cert[4096], key[4096];
    SSL_CTX *ctx;
    SSL *ssl;

    ctx = tls_upstream_ctx_new(NULL, err, sizeof(err));
    assert_non_null(ctx);
    assert_int_equal(SSL_CTX_get_min_proto_version(ctx), TLS1_2_VERSION);
    assert_int_equal(SSL_CTX_get_verify_mode(ctx), SSL_VERIFY_PEER);
    ssl = tls_upstream_ssl_new(ctx, "www.site.test", 443);
    assert_non_null(ssl);
    assert_string_equal(SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name), "www.site.test");
    assert_string_equal(X509_VERIFY_PARAM_get0_host(SSL_get0_param(ssl), 0), "www.site.test");
    SSL_free(ssl);
    /* An address gets no SNI (RFC 6066 forbids it) but is still checked. */
    ssl = tls_upstream_ssl_new(ctx, "127.0.0.1", 443);
    assert_non_null(ssl);
    assert_null(SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name));
    assert_null(X509_VERIFY_PARAM_get0_host(SSL_get0_param(ssl), 0));
    SSL_free(ssl);
    SSL_CTX_free(ctx);

    /* Extra roots load; a file that holds none is named in the error. */
    assert_int_equal(ca_create(d->a, 0, err, sizeof(err)), 0);
    assert_int_equal(ca_paths(d->a, cert, key, sizeof(cert)), 0);
    ctx = tls_upstream_ctx_new(cert, err, sizeof(err));
    assert_non_null(ctx);
    SSL_CTX_free(ctx);
    assert_null(tls_upstream_ctx_new("/nonexistent/roots.pem", err, sizeof(err)));
    assert_non_null(strstr(err, "/nonexistent/roots.pem"));
    assert_non_null(strstr(err, "not a file of PEM certificates"));
    /* A key is not a certificate. */
    assert_null(tls_upstream_ctx_new(key, err, sizeof(err)));
    assert_non_null(strstr(err, key));
}

static void test_reason(void **state)
{
    char why[256];

    (void)state;
    OPENSSL_init_ssl(0, NULL);
    ERR_clear_error();
    tls_reason(why, sizeof(why));
    assert_string_equal(why, "unknown error");
    /* The earliest queued error, and the queue is empty after. */
    ERR_raise(ERR_LIB_SSL, SSL_R_NO_PROTOCOLS_AVAILABLE);
    ERR_raise(ERR_LIB_SSL, SSL_R_BAD_LENGTH);
    tls_reason(why, sizeof(why));
    assert_non_null(strstr(why, "no protocols available"));
    assert_int_equal(ERR_peek_error(), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_upstream_ctx, setup, teardown),
        cmocka_unit_test(test_reason),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
