/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Interception's leaves: one per name from the cache, issued anew a day before they end,
 * the cache bounded with the least recently used dropped; refusals without a CA; the
 * --no-intercept globs. */
#include "test.h"

#include <string.h>

#include <openssl/evp.h>
#include <openssl/x509v3.h>

#include "proxy/intercept.h"
#include "tls_dirs.h"

static void test_needs_a_ca(void **state)
{
    struct dirs *d = *state;
    char err[512];
    struct intercept *m;

    assert_null(intercept_new(d->b, "brock --state B ca init", err, sizeof(err)));
    assert_non_null(strstr(err, "--intercept needs a local CA"));
    assert_non_null(strstr(err, "brock --state B ca init"));
    assert_int_equal(ca_create(d->a, 0, err, sizeof(err)), 0);
    m = intercept_new(d->a, NULL, err, sizeof(err));
    assert_non_null(m);
    intercept_free(m);
    intercept_free(NULL);
}

static int same_serial(X509 *a, X509 *b)
{
    return ASN1_INTEGER_cmp(X509_get0_serialNumber(a), X509_get0_serialNumber(b)) == 0;
}

static void test_leaves(void **state)
{
    struct dirs *d = *state;
    char err[512];
    struct intercept *m;
    struct ca *ca;
    X509 *a, *b;
    ASN1_INTEGER *serial_a;
    time_t now = time(NULL);

    assert_int_equal(ca_create(d->a, 0, err, sizeof(err)), 0);
    m = intercept_new(d->a, NULL, err, sizeof(err));
    assert_non_null(m);
    ca = ca_load(d->a, NULL, err, sizeof(err));
    assert_non_null(ca);

    a = intercept_leaf(m, "www.site.test", now);
    assert_non_null(a);
    assert_int_equal(X509_check_issued(ca_cert(ca), a), X509_V_OK);
    assert_int_equal(X509_check_host(a, "www.site.test", 0, 0, NULL), 1);
    serial_a = ASN1_INTEGER_dup(X509_get0_serialNumber(a));
    b = intercept_leaf(m, "other.test", now);
    assert_non_null(b);
    assert_false(same_serial(a, b));
    /* One key for every leaf: issuing is a signature, no key generation. */
    assert_int_equal(EVP_PKEY_eq(X509_get0_pubkey(a), X509_get0_pubkey(b)), 1);
    assert_int_equal(X509_check_ip_asc(intercept_leaf(m, "127.0.0.1", now), "127.0.0.1", 0), 1);

    /* A short validity: a week at most. */
    {
        time_t week = now + (INTERCEPT_LEAF_DAYS + 1) * 86400;

        assert_true(X509_cmp_time(X509_get0_notAfter(a), &week) < 0);
    }

    /* The same name comes from the cache until a day before its end, then anew. */
    a = intercept_leaf(m, "www.site.test", now + (INTERCEPT_LEAF_DAYS - 1) * 86400 - 1);
    assert_int_equal(ASN1_INTEGER_cmp(serial_a, X509_get0_serialNumber(a)), 0);
    a = intercept_leaf(m, "www.site.test", now + (INTERCEPT_LEAF_DAYS - 1) * 86400);
    assert_int_not_equal(ASN1_INTEGER_cmp(serial_a, X509_get0_serialNumber(a)), 0);
    ASN1_INTEGER_free(serial_a);

    assert_null(intercept_leaf(m, "", now));
    /* A name that is no host name gets no leaf, and nothing is cached for it. */
    assert_null(intercept_leaf(m, "x.example,email:a@b", now));
    assert_null(intercept_leaf(m, "weird name with spaces", now));
    ca_free(ca);
    intercept_free(m);
}

static void test_cache_is_bounded(void **state)
{
    struct dirs *d = *state;
    char err[512], host[64];
    struct intercept *m;
    ASN1_INTEGER *h0, *h1, *h2, *last;
    time_t now = time(NULL);

    assert_int_equal(ca_create(d->a, 0, err, sizeof(err)), 0);
    m = intercept_new(d->a, NULL, err, sizeof(err));
    assert_non_null(m);
    h0 = ASN1_INTEGER_dup(X509_get0_serialNumber(intercept_leaf(m, "h0.test", now)));
    h1 = ASN1_INTEGER_dup(X509_get0_serialNumber(intercept_leaf(m, "h1.test", now)));
    h2 = ASN1_INTEGER_dup(X509_get0_serialNumber(intercept_leaf(m, "h2.test", now)));
    for (int i = 3; i <= INTERCEPT_LEAF_CACHE; i++) {
        snprintf(host, sizeof(host), "h%d.test", i);
        assert_non_null(intercept_leaf(m, host, now));
        /* h1 stays in use, so the least recently used is h0, then h2... */
        assert_non_null(intercept_leaf(m, "h1.test", now));
    }
    /* One name more than the cache holds went in: h0 went, h1 (in use) stayed. */
    snprintf(host, sizeof(host), "h%d.test", INTERCEPT_LEAF_CACHE);
    last = ASN1_INTEGER_dup(X509_get0_serialNumber(intercept_leaf(m, host, now)));
    assert_int_equal(
        ASN1_INTEGER_cmp(h1, X509_get0_serialNumber(intercept_leaf(m, "h1.test", now))), 0);
    /* The evicted name gets a new leaf, which evicts h2 in turn. */
    assert_int_not_equal(
        ASN1_INTEGER_cmp(h0, X509_get0_serialNumber(intercept_leaf(m, "h0.test", now))), 0);
    assert_int_equal(ASN1_INTEGER_cmp(last, X509_get0_serialNumber(intercept_leaf(m, host, now))),
                     0);
    assert_int_not_equal(
        ASN1_INTEGER_cmp(h2, X509_get0_serialNumber(intercept_leaf(m, "h2.test", now))), 0);
    ASN1_INTEGER_free(h0);
    ASN1_INTEGER_free(h1);
    ASN1_INTEGER_free(h2);
    ASN1_INTEGER_free(last);
    intercept_free(m);
}

static void test_no_intercept_globs(void **state)
{
    static const char *const globs[] = {"*.bank.test", "pinned.example"};

    (void)state;
    assert_true(intercept_host_listed(globs, 2, "www.bank.test"));
    assert_true(intercept_host_listed(globs, 2, "pinned.example"));
    assert_false(intercept_host_listed(globs, 2, "bank.test"));
    assert_false(intercept_host_listed(globs, 2, "www.pinned.example"));
    assert_false(intercept_host_listed(NULL, 0, "www.bank.test"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_needs_a_ca, setup, teardown),
        cmocka_unit_test_setup_teardown(test_leaves, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_is_bounded, setup, teardown),
        cmocka_unit_test(test_no_intercept_globs),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
