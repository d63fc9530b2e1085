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
    assert_int_not_equal(ASN1_INTEGER_cmp(X509_get0_serialNumber(a), X509_get0_serialNumber(b)), 0);
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

/* The one name of leaf's subjectAltName: its type (GEN_DNS, GEN_IPADD) and its bytes. */
static int san_one(X509 *leaf, unsigned char *out, size_t size, size_t *len)
{
    GENERAL_NAMES *names = X509_get_ext_d2i(leaf, NID_subject_alt_name, NULL, NULL);
    const GENERAL_NAME *gn;
    const ASN1_STRING *v;
    int type;

    assert_non_null(names);
    assert_int_equal(sk_GENERAL_NAME_num(names), 1);
    gn = sk_GENERAL_NAME_value(names, 0);
    v = GENERAL_NAME_get0_value(gn, &type);
    assert_true((size_t)ASN1_STRING_length(v) <= size);
    *len = (size_t)ASN1_STRING_length(v);
    memcpy(out, ASN1_STRING_get0_data(v), *len);
    GENERAL_NAMES_free(names);
    return type;
}

/* A name of CA_NAME_MAX bytes: labels of 50 letters between dots. */
static void make_longest(char *longest)
{
    memset(longest, 'a', CA_NAME_MAX);
    for (size_t i = 50; i < CA_NAME_MAX; i += 51)
        longest[i] = '.';
    longest[CA_NAME_MAX] = '\0';
}

/* Names a client may send (SNI) that go into a certificate as one host name, and text that a
 * configuration string would read as more names, or as another kind of name. */
static const char *const name_hosts[] = {
    "www.site.test",
    "a",
    "xn--bcher-kva.example",
    "r3---sn-abc.example",
    "_dmarc.example",
    "UPPER.Example",
    "1.2.3.4.5",
    NULL,
};
static const char *const name_refused[] = {
    "",
    "x.example,email:a@b",
    "weird name with spaces",
    "x.example,DNS:other.example",
    "IP:1.2.3.4",
    "email:a@b",
    "*.example",
    "a..b",
    ".a",
    "a.",
    "-a.example",
    "a-.example",
    "a/b",
    "a\nb",
    "caf\xc3\xa9.example",
    "[::1]",
    "1.2.3.4:443",
    "dirName:sect",
    "a;b",
    NULL,
};
/* Which names are a host name, which an address, which none; the lengths a name may have. */
static void test_name_kinds(void **state)
{
    char label[70], longest[CA_NAME_MAX + 2];
    unsigned char addr[16];
    size_t addr_len = 0;

    (void)state;
    for (size_t i = 0; name_hosts[i]; i++)
        assert_int_equal(ca_name_kind(name_hosts[i], NULL, NULL), CA_NAME_DNS);
    for (size_t i = 0; name_refused[i]; i++)
        assert_int_equal(ca_name_kind(name_refused[i], NULL, NULL), CA_NAME_NONE);
    assert_int_equal(ca_name_kind(NULL, NULL, NULL), CA_NAME_NONE);
    assert_int_equal(ca_name_kind("192.0.2.7", addr, &addr_len), CA_NAME_IP);
    assert_int_equal(addr_len, 4);
    assert_memory_equal(addr, "\xc0\x00\x02\x07", 4);
    assert_int_equal(ca_name_kind("2001:db8::1", addr, &addr_len), CA_NAME_IP);
    assert_int_equal(addr_len, 16);
    /* A label of 63 is a label; 64 is not. A name of CA_NAME_MAX is a name; one more is not. */
    memset(label, 'a', 63);
    label[63] = '\0';
    assert_int_equal(ca_name_kind(label, NULL, NULL), CA_NAME_DNS);
    strcat(label, "a");
    assert_int_equal(ca_name_kind(label, NULL, NULL), CA_NAME_NONE);
    make_longest(longest);
    assert_int_equal(ca_name_kind(longest, NULL, NULL), CA_NAME_DNS);
    strcat(longest, "a");
    assert_int_equal(ca_name_kind(longest, NULL, NULL), CA_NAME_NONE);
}

/* A name a client sends (SNI) goes into the certificate only as one host name or one address:
 * text that is not one of those gets no certificate at all. */
static void test_names(void **state)
{
    struct dirs *d = *state;
    char err[512], longest[CA_NAME_MAX + 2];
    unsigned char got[300];
    size_t len = 0;
    EVP_PKEY *key = EVP_EC_gen("P-256");
    time_t now = time(NULL);
    struct ca *ca;
    X509 *x;

    make_longest(longest);
    strcat(longest, "a");
    assert_non_null(key);
    assert_int_equal(ca_create(d->a, 0, err, sizeof(err)), 0);
    ca = ca_load(d->a, NULL, err, sizeof(err));
    assert_non_null(ca);
    for (size_t i = 0; name_refused[i]; i++)
        assert_null(ca_issue(ca, name_refused[i], key, 7, now));

    /* The name as one dNSName, byte for byte; an address as one iPAddress of its bytes. */
    x = ca_issue(ca, "www.site.test", key, 7, now);
    assert_non_null(x);
    assert_int_equal(san_one(x, got, sizeof(got), &len), GEN_DNS);
    assert_int_equal(len, strlen("www.site.test"));
    assert_memory_equal(got, "www.site.test", len);
    X509_free(x);
    x = ca_issue(ca, "192.0.2.7", key, 7, now);
    assert_non_null(x);
    assert_int_equal(san_one(x, got, sizeof(got), &len), GEN_IPADD);
    assert_int_equal(len, 4);
    assert_memory_equal(got, "\xc0\x00\x02\x07", 4);
    assert_int_equal(X509_check_ip_asc(x, "192.0.2.7", 0), 1);
    X509_free(x);
    x = ca_issue(ca, "2001:db8::1", key, 7, now);
    assert_non_null(x);
    assert_int_equal(san_one(x, got, sizeof(got), &len), GEN_IPADD);
    assert_int_equal(len, 16);
    X509_free(x);
    x = ca_issue(ca, longest + 1, key, 7, now);
    assert_non_null(x);
    assert_int_equal(san_one(x, got, sizeof(got), &len), GEN_DNS);
    assert_int_equal(len, CA_NAME_MAX);
    X509_free(x);
    EVP_PKEY_free(key);
    ca_free(ca);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_create_and_refuse, setup, teardown),
        cmocka_unit_test_setup_teardown(test_issue, setup, teardown),
        cmocka_unit_test(test_name_kinds),
        cmocka_unit_test_setup_teardown(test_names, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
