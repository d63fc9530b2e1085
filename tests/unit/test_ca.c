/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The local CA: creation and the refusals when loading, and the certificates it issues for
 * names and addresses, which chain to it. */
#include "test.h"

#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/x509v3.h>

#include "tls_dirs.h"

static void test_create_and_refuse(void **state)
{
    struct dirs *d = *state;
    char err[512], cert[4096], key[4096];
    struct stat st;
    char *first, *again;
    X509 *x;
    struct ca *ca;

    assert_int_equal(ca_create(d->a, 0, err, sizeof(err)), 0);
    assert_int_equal(ca_paths(d->a, cert, key, sizeof(cert)), 0);
    assert_int_equal(stat(key, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    first = slurp(cert);

    /* A second init keeps the CA; --force replaces it. */
    assert_int_equal(ca_create(d->a, 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "--force"));
    again = slurp(cert);
    assert_string_equal(first, again);
    mem_free(again);
    assert_int_equal(ca_create(d->a, 1, err, sizeof(err)), 0);
    again = slurp(cert);
    assert_true(strcmp(first, again) != 0);
    mem_free(again);
    mem_free(first);

    ca = ca_load(d->a, NULL, err, sizeof(err));
    assert_non_null(ca);
    x = ca_cert(ca);
    assert_int_equal(X509_check_ca(x), 1);
    assert_true(X509_get_extension_flags(x) & EXFLAG_SS);
    assert_true(X509_get_key_usage(x) & KU_KEY_CERT_SIGN);
    ca_free(ca);

    /* No CA: the message says what to run, as given. */
    assert_null(ca_load(d->b, NULL, err, sizeof(err)));
    assert_non_null(strstr(err, "brock ca init"));
    assert_null(ca_load(d->b, "brock --state X ca init", err, sizeof(err)));
    assert_non_null(strstr(err, "brock --state X ca init"));

    /* A key others can read is refused. */
    assert_int_equal(chmod(key, 0644), 0);
    assert_null(ca_load(d->a, NULL, err, sizeof(err)));
    assert_non_null(strstr(err, "readable by others"));
    assert_int_equal(chmod(key, 0600), 0);

    /* A key that belongs to another CA is refused. */
    {
        char cert_b[4096], key_b[4096];
        char *other;

        assert_int_equal(ca_create(d->b, 0, err, sizeof(err)), 0);
        assert_int_equal(ca_paths(d->b, cert_b, key_b, sizeof(cert_b)), 0);
        other = slurp(key_b);
        assert_int_equal(file_write_atomic(key, other, strlen(other), 0600), 0);
        mem_free(other);
        assert_null(ca_load(d->a, NULL, err, sizeof(err)));
        assert_non_null(strstr(err, "does not belong"));
    }
    ca_free(NULL);
}

/* The certificate verifies against the CA alone, for the name asked. */
static void assert_issued_for(X509 *ca, X509 *leaf, const char *host, int ip)
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

static void test_issue(void **state)
{
    struct dirs *d = *state;
    char err[512];
    struct ca *ca;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    time_t now = time(NULL);
    X509 *a, *b, *ip, *ip6;

    assert_non_null(key);
    assert_int_equal(ca_create(d->a, 0, err, sizeof(err)), 0);
    ca = ca_load(d->a, NULL, err, sizeof(err));
    assert_non_null(ca);

    a = ca_issue(ca, "www.site.test", key, 7, now);
    b = ca_issue(ca, "www.site.test", key, 7, now);
    ip = ca_issue(ca, "127.0.0.1", key, 7, now);
    ip6 = ca_issue(ca, "::1", key, 7, now);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(ip);
    assert_non_null(ip6);
    assert_issued_for(ca_cert(ca), a, "www.site.test", 0);
    assert_issued_for(ca_cert(ca), ip, "127.0.0.1", 1);
    assert_issued_for(ca_cert(ca), ip6, "::1", 1);
    /* Each its own serial, over the key given. */
    assert_int_not_equal(ASN1_INTEGER_cmp(X509_get0_serialNumber(a), X509_get0_serialNumber(b)),
                         0);
    assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(a), key), 1);
    /* Valid for the days asked from now, not beyond. */
    {
        time_t in = now + 6 * 86400, out = now + 8 * 86400;

        assert_true(X509_cmp_time(X509_get0_notAfter(a), &in) > 0);
        assert_true(X509_cmp_time(X509_get0_notAfter(a), &out) < 0);
    }
    assert_null(ca_issue(ca, "", key, 7, now));
    X509_free(a);
    X509_free(b);
    X509_free(ip);
    X509_free(ip6);
    EVP_PKEY_free(key);
    ca_free(ca);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_and_refuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_issue, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
