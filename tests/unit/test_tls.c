/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The local CA and its leaves: creation and the refusals when loading, leaves for names and
 * addresses that chain to the CA, the bounded cache and renewal, and the upstream context. */
#include "test.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "net/tls.c"

struct dirs {
    char a[4096], b[4096];
};

static void rm_state(const char *dir)
{
    char cert[4096], key[4096], ca[4096];

    if (tls_ca_paths(dir, cert, key, sizeof(cert)) == 0) {
        unlink(cert);
        unlink(key);
    }
    snprintf(ca, sizeof(ca), "%s/%s", dir, TLS_CA_DIR);
    rmdir(ca);
    rmdir(dir);
}

static int setup(void **state)
{
    struct dirs *d = calloc(1, sizeof(*d));
    const char *tmp = getenv("TMPDIR");

    if (!tmp || !*tmp)
        tmp = "/tmp";
    snprintf(d->a, sizeof(d->a), "%s/brock-test-tls-XXXXXX", tmp);
    snprintf(d->b, sizeof(d->b), "%s/brock-test-tls-XXXXXX", tmp);
    if (!mkdtemp(d->a) || !mkdtemp(d->b))
        return -1;
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    struct dirs *d = *state;

    rm_state(d->a);
    rm_state(d->b);
    free(d);
    return 0;
}

static char *slurp(const char *path)
{
    char *data = NULL;
    size_t len;

    assert_int_equal(file_read(path, 1 << 20, &data, &len), 0);
    return data;
}

static void test_create_and_refuse(void **state)
{
    struct dirs *d = *state;
    char err[512], cert[4096], key[4096];
    struct stat st;
    char *first, *again;
    X509 *ca;
    struct tls_mitm *m;

    assert_int_equal(tls_ca_create(d->a, 0, err, sizeof(err)), 0);
    assert_int_equal(tls_ca_paths(d->a, cert, key, sizeof(cert)), 0);
    assert_int_equal(stat(key, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    first = slurp(cert);

    /* A second init keeps the CA; --force replaces it. */
    assert_int_equal(tls_ca_create(d->a, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--force"));
    again = slurp(cert);
    assert_string_equal(first, again);
    mem_free(again);
    assert_int_equal(tls_ca_create(d->a, 1, err, sizeof(err)), 0);
    again = slurp(cert);
    assert_true(strcmp(first, again) != 0);
    mem_free(again);
    mem_free(first);

    m = tls_mitm_new(d->a, NULL, err, sizeof(err));
    assert_non_null(m);
    ca = tls_mitm_ca_cert(m);
    assert_int_equal(X509_check_ca(ca), 1);
    assert_true(X509_get_extension_flags(ca) & EXFLAG_SS);
    assert_true(X509_get_key_usage(ca) & KU_KEY_CERT_SIGN);
    tls_mitm_free(m);

    /* No CA: the message says what to run. */
    m = tls_mitm_new(d->b, NULL, err, sizeof(err));
    assert_null(m);
    assert_non_null(strstr(err, "brock ca init"));

    /* A key others can read is refused. */
    assert_int_equal(chmod(key, 0644), 0);
    assert_null(tls_mitm_new(d->a, NULL, err, sizeof(err)));
    assert_non_null(strstr(err, "readable by others"));
    assert_int_equal(chmod(key, 0600), 0);

    /* A key that belongs to another CA is refused. */
    {
        char cert_b[4096], key_b[4096];
        char *other;

        assert_int_equal(tls_ca_create(d->b, 0, err, sizeof(err)), 0);
        assert_int_equal(tls_ca_paths(d->b, cert_b, key_b, sizeof(cert_b)), 0);
        other = slurp(key_b);
        assert_int_equal(file_write_atomic(key, other, strlen(other), 0600), 0);
        mem_free(other);
        assert_null(tls_mitm_new(d->a, NULL, err, sizeof(err)));
        assert_non_null(strstr(err, "does not belong"));
    }
    tls_mitm_free(NULL);
}

/* The leaf verifies against the CA alone, for the name asked. */
static void assert_leaf_for(X509 *ca, X509 *leaf, const char *host, int ip)
{
    X509_STORE *store = X509_STORE_new();
    X509_STORE_CTX *ctx = X509_STORE_CTX_new();
    X509_VERIFY_PARAM *p;

    assert_non_null(store);
    assert_non_null(ctx);
    assert_int_equal(X509_STORE_add_cert(store, ca), 1);
    assert_int_equal(X509_STORE_CTX_init(ctx, store, leaf, NULL), 1);
    p = X509_STORE_CTX_get0_param(ctx);
    X509_VERIFY_PARAM_set_purpose(p, X509_PURPOSE_SSL_SERVER);
    if (ip)
        assert_int_equal(X509_VERIFY_PARAM_set1_ip_asc(p, host), 1);
    else
        assert_int_equal(X509_VERIFY_PARAM_set1_host(p, host, 0), 1);
    assert_int_equal(X509_verify_cert(ctx), 1);
    X509_STORE_CTX_free(ctx);
    X509_STORE_free(store);
    assert_int_equal(X509_check_ca(leaf), 0);
}

static void test_leaves(void **state)
{
    struct dirs *d = *state;
    char err[512];
    struct tls_mitm *m;
    X509 *a, *b, *ip;
    ASN1_INTEGER *serial_a;
    EVP_PKEY *ka, *kb;

    assert_int_equal(tls_ca_create(d->a, 0, err, sizeof(err)), 0);
    m = tls_mitm_new(d->a, NULL, err, sizeof(err));
    assert_non_null(m);

    a = tls_mitm_leaf(m, "www.site.test");
    assert_non_null(a);
    assert_leaf_for(m->ca, a, "www.site.test", 0);
    serial_a = ASN1_INTEGER_dup(X509_get0_serialNumber(a));
    ka = X509_get0_pubkey(a);

    b = tls_mitm_leaf(m, "other.test");
    assert_non_null(b);
    assert_leaf_for(m->ca, b, "other.test", 0);
    assert_int_not_equal(ASN1_INTEGER_cmp(serial_a, X509_get0_serialNumber(b)), 0);
    kb = X509_get0_pubkey(b);
    assert_int_equal(EVP_PKEY_eq(ka, kb), 1);

    ip = tls_mitm_leaf(m, "127.0.0.1");
    assert_non_null(ip);
    assert_leaf_for(m->ca, ip, "127.0.0.1", 1);
    assert_non_null(tls_mitm_leaf(m, "::1"));
    assert_leaf_for(m->ca, tls_mitm_leaf(m, "::1"), "::1", 1);

    /* Short validity: a week at most. */
    {
        time_t week = time(NULL) + (TLS_LEAF_DAYS + 1) * 86400;

        assert_true(X509_cmp_time(X509_get0_notAfter(a), &week) < 0);
    }

    /* The same name comes from the cache; one past renewal is issued anew. */
    assert_ptr_equal(tls_mitm_leaf(m, "www.site.test"), a);
    ((struct leaf *)strmap_get(&m->leaves, "www.site.test"))->renew_at = time(NULL) - 1;
    a = tls_mitm_leaf(m, "www.site.test");
    assert_int_not_equal(ASN1_INTEGER_cmp(serial_a, X509_get0_serialNumber(a)), 0);
    ASN1_INTEGER_free(serial_a);

    assert_null(tls_mitm_leaf(m, ""));
    tls_mitm_free(m);
}

static void test_cache_is_bounded(void **state)
{
    struct dirs *d = *state;
    char err[512], host[64];
    struct tls_mitm *m;
    ASN1_INTEGER *first;

    assert_int_equal(tls_ca_create(d->a, 0, err, sizeof(err)), 0);
    m = tls_mitm_new(d->a, NULL, err, sizeof(err));
    assert_non_null(m);
    first = ASN1_INTEGER_dup(X509_get0_serialNumber(tls_mitm_leaf(m, "h0.test")));
    for (int i = 1; i <= TLS_LEAF_CACHE; i++) {
        snprintf(host, sizeof(host), "h%d.test", i);
        assert_non_null(tls_mitm_leaf(m, host));
        /* h1 stays in use, so the least recently used is h0, then h2... */
        assert_non_null(tls_mitm_leaf(m, "h1.test"));
    }
    assert_int_equal(m->n_leaves, TLS_LEAF_CACHE);
    assert_null(strmap_get(&m->leaves, "h0.test"));
    assert_non_null(strmap_get(&m->leaves, "h1.test"));
    assert_non_null(strmap_get(&m->leaves, "h1024.test"));
    /* The evicted name gets a new leaf. */
    assert_int_not_equal(
        ASN1_INTEGER_cmp(first, X509_get0_serialNumber(tls_mitm_leaf(m, "h0.test"))), 0);
    assert_int_equal(m->n_leaves, TLS_LEAF_CACHE);
    ASN1_INTEGER_free(first);
    tls_mitm_free(m);
}

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
    ssl = tls_upstream_ssl_new(ctx, "www.site.test");
    assert_non_null(ssl);
    assert_string_equal(SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name), "www.site.test");
    assert_string_equal(X509_VERIFY_PARAM_get0_host(SSL_get0_param(ssl), 0), "www.site.test");
    SSL_free(ssl);
    /* An address gets no SNI (RFC 6066 forbids it) but is still checked. */
    ssl = tls_upstream_ssl_new(ctx, "127.0.0.1");
    assert_non_null(ssl);
    assert_null(SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name));
    SSL_free(ssl);
    SSL_CTX_free(ctx);

    /* Extra roots load; a file that holds none is named in the error. */
    assert_int_equal(tls_ca_create(d->a, 0, err, sizeof(err)), 0);
    assert_int_equal(tls_ca_paths(d->a, cert, key, sizeof(cert)), 0);
    ctx = tls_upstream_ctx_new(cert, err, sizeof(err));
    assert_non_null(ctx);
    SSL_CTX_free(ctx);
    assert_null(tls_upstream_ctx_new("/nonexistent/roots.pem", err, sizeof(err)));
    assert_non_null(strstr(err, "/nonexistent/roots.pem"));
}

static void test_no_intercept_globs(void **state)
{
    static const char *const globs[] = {"*.bank.test", "pinned.example"};

    (void)state;
    assert_true(tls_host_listed(globs, 2, "www.bank.test"));
    assert_true(tls_host_listed(globs, 2, "pinned.example"));
    assert_false(tls_host_listed(globs, 2, "bank.test"));
    assert_false(tls_host_listed(globs, 2, "www.pinned.example"));
    assert_false(tls_host_listed(NULL, 0, "www.bank.test"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_and_refuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_leaves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_is_bounded, setup, teardown),
        cmocka_unit_test_setup_teardown(test_upstream_ctx, setup, teardown),
        cmocka_unit_test(test_no_intercept_globs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
