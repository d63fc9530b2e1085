/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The local CA: its files, made once and read at start, and the certificates it signs. The
 * key is read into this file's struct and used only here, so that the connection code holds
 * certificates and SSL objects, never the means to make more. */
#include "net/ca.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/buffer.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "brock.h"
#include "net/tls.h"
#include "util/alloc.h"
#include "util/file.h"

struct ca {
    X509 *cert;
    EVP_PKEY *key;
};

/* A random positive serial of 127 bits, as RFC 5280 allows at most 20 octets. */
static int set_random_serial(X509 *x)
{
    unsigned char r[16];
    BIGNUM *bn;
    int ok;

    if (RAND_bytes(r, sizeof(r)) != 1)
        return -1;
    r[0] &= 0x7f;
    r[0] |= 0x40;
    bn = BN_bin2bn(r, sizeof(r), NULL);
    ok = bn && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) != NULL;
    BN_free(bn);
    return ok ? 0 : -1;
}

/* An extension of brock's own, from a constant of this file: never from a name. */
static int add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX v3;
    X509_EXTENSION *ext;
    int ok;

    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, issuer, x, NULL, NULL, 0);
    ext = X509V3_EXT_conf_nid(NULL, &v3, nid, value);
    if (!ext)
        return -1;
    ok = X509_add_ext(x, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : -1;
}

/* ---- making one ---- */

int ca_paths(const char *state_dir, char *cert, char *key, size_t size)
{
    int a = snprintf(cert, size, "%s/%s/%s", state_dir, CA_DIR, CA_CERT);
    int b = snprintf(key, size, "%s/%s/%s", state_dir, CA_DIR, CA_KEY);

    return a < 0 || b < 0 || (size_t)a >= size || (size_t)b >= size ? -1 : 0;
}

long ca_cert_pem(const char *cert, char *out, size_t size, char *err, size_t errlen)
{
    BIO *in = NULL, *mem = NULL;
    X509 *x = NULL;
    BUF_MEM *text = NULL;
    long rc = -1;

    if (access(cert, F_OK) != 0 && errno == ENOENT)
        return -2;
    in = BIO_new_file(cert, "r");
    if (!in) {
        snprintf(err, errlen, "%s: cannot be read", cert);
        goto out;
    }
    x = PEM_read_bio_X509(in, NULL, NULL, NULL);
    mem = BIO_new(BIO_s_mem());
    if (!x || !mem || PEM_write_bio_X509(mem, x) != 1) {
        snprintf(err, errlen, "%s: holds no certificate", cert);
        goto out;
    }
    BIO_get_mem_ptr(mem, &text);
    if (!text || text->length + 1 > size) {
        snprintf(err, errlen, "%s: the certificate is too large", cert);
        goto out;
    }
    memcpy(out, text->data, text->length);
    out[text->length] = '\0';
    rc = (long)text->length;
out:
    ERR_clear_error();
    X509_free(x);
    BIO_free(mem);
    BIO_free(in);
    return rc;
}

static X509 *ca_cert_new(EVP_PKEY *key)
{
    X509 *x = X509_new();
    X509_NAME *name;
    char host[256], cn[320];

    if (!x)
        return NULL;
    if (gethostname(host, sizeof(host)) != 0)
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    /* A CN is at most 64 characters. */
    snprintf(cn, sizeof(cn), "brock local CA on %.40s", host);
    name = X509_get_subject_name(x);
    if (!X509_set_version(x, 2) || set_random_serial(x) < 0 ||
        !X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"brock", -1,
                                    -1, 0) ||
        !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1, -1,
                                    0) ||
        !X509_set_issuer_name(x, name) || !X509_gmtime_adj(X509_getm_notBefore(x), -3600) ||
        !X509_gmtime_adj(X509_getm_notAfter(x), (long)CA_DAYS * 86400) ||
        !X509_set_pubkey(x, key) ||
        add_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") < 0 ||
        add_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") < 0 ||
        add_ext(x, x, NID_subject_key_identifier, "hash") < 0 ||
        X509_sign(x, key, EVP_sha256()) <= 0) {
        X509_free(x);
        return NULL;
    }
    return x;
}

/* PEM text of key or cert into *out (mem_free after wiping) and *len. */
static int pem_of(EVP_PKEY *key, X509 *cert, char **out, size_t *len)
{
    BIO *b = BIO_new(BIO_s_mem());
    char *p;
    long n;
    int rc = -1;

    *out = NULL;
    if (!b)
        return -1;
    if (key ? !PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL)
            : !PEM_write_bio_X509(b, cert))
        goto out;
    n = BIO_get_mem_data(b, &p);
    if (n <= 0)
        goto out;
    *out = mem_malloc((size_t)n);
    if (!*out)
        goto out;
    memcpy(*out, p, (size_t)n);
    *len = (size_t)n;
    rc = 0;
out:
    /* The memory BIO held the key's text; clear it before it is freed. */
    if (BIO_get_mem_data(b, &p) > 0)
        OPENSSL_cleanse(p, (size_t)BIO_get_mem_data(b, &p));
    BIO_free(b);
    return rc;
}

int ca_create(const char *state_dir, int force, char *err, size_t errlen)
{
    char cert_path[4096], key_path[4096], dir[4096], why[256];
    EVP_PKEY *key = NULL;
    X509 *cert = NULL;
    char *key_pem = NULL, *cert_pem = NULL;
    size_t key_len = 0, cert_len = 0;
    int rc = -1, e;

    if (ca_paths(state_dir, cert_path, key_path, sizeof(cert_path)) < 0 ||
        snprintf(dir, sizeof(dir), "%s/%s", state_dir, CA_DIR) >= (int)sizeof(dir)) {
        snprintf(err, errlen, "%s: the state folder's path is too long", state_dir);
        return -1;
    }
    if (!force && (access(cert_path, F_OK) == 0 || access(key_path, F_OK) == 0)) {
        snprintf(err, errlen,
                 "%s: a CA exists already; give --force to replace it (browsers "
                 "that trust the old one must then trust the new one)",
                 dir);
        return -1;
    }
    e = file_mkdirs(dir, 0700);
    if (e < 0) {
        snprintf(err, errlen, "%s: cannot create the folder: %s", dir, strerror(-e));
        return -1;
    }
    key = EVP_EC_gen("P-256");
    cert = key ? ca_cert_new(key) : NULL;
    if (!cert || pem_of(key, NULL, &key_pem, &key_len) < 0 ||
        pem_of(NULL, cert, &cert_pem, &cert_len) < 0) {
        tls_reason(why, sizeof(why));
        snprintf(err, errlen, "cannot create the CA's key and certificate: %s", why);
        goto out;
    }
    /* The key first: a certificate never sits beside a key it does not belong to unless
     * the second write fails, which loading then reports. */
    e = file_write_atomic(key_path, key_pem, key_len, 0600);
    if (e < 0) {
        snprintf(err, errlen, "%s: cannot write the CA's key: %s", key_path, strerror(-e));
        goto out;
    }
    e = file_write_atomic(cert_path, cert_pem, cert_len, 0600);
    if (e < 0) {
        snprintf(err, errlen, "%s: cannot write the CA's certificate: %s", cert_path, strerror(-e));
        goto out;
    }
    rc = 0;
out:
    if (key_pem) {
        OPENSSL_cleanse(key_pem, key_len);
        mem_free(key_pem);
    }
    mem_free(cert_pem);
    X509_free(cert);
    EVP_PKEY_free(key);
    return rc;
}

/* ---- loading it ---- */

/* Reads both PEM files; the key's mode must keep it to its owner. */
static int load_files(struct ca *ca, const char *state_dir, const char *init_cmd, char *err,
                      size_t errlen)
{
    char cert_path[4096], key_path[4096], why[256];
    struct stat st;
    BIO *b;

    if (ca_paths(state_dir, cert_path, key_path, sizeof(cert_path)) < 0) {
        snprintf(err, errlen, "%s: the state folder's path is too long", state_dir);
        return -1;
    }
    if (stat(key_path, &st) != 0 || access(cert_path, F_OK) != 0) {
        snprintf(err, errlen,
                 "--intercept needs a local CA and %s has none: run `%s` first, "
                 "then trust %s in your browsers",
                 state_dir, init_cmd ? init_cmd : "brock ca init", cert_path);
        return -1;
    }
    if (st.st_mode & 077) {
        snprintf(err, errlen,
                 "%s: the CA's key is readable by others (mode %03o); make it "
                 "mode 600 (chmod 600) or create a new CA",
                 key_path, (unsigned)(st.st_mode & 0777));
        return -1;
    }
    b = BIO_new_file(cert_path, "r");
    ca->cert = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    if (!ca->cert) {
        tls_reason(why, sizeof(why));
        snprintf(err, errlen, "%s: cannot read the CA's certificate: %s", cert_path, why);
        return -1;
    }
    b = BIO_new_file(key_path, "r");
    ca->key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    if (!ca->key) {
        tls_reason(why, sizeof(why));
        snprintf(err, errlen, "%s: cannot read the CA's key: %s", key_path, why);
        return -1;
    }
    if (X509_check_private_key(ca->cert, ca->key) != 1) {
        ERR_clear_error();
        snprintf(err, errlen, "%s: the key does not belong to %s; run `%s --force`", key_path,
                 cert_path, init_cmd ? init_cmd : "brock ca init");
        return -1;
    }
    return 0;
}

struct ca *ca_load(const char *state_dir, const char *init_cmd, char *err, size_t errlen)
{
    struct ca *ca = mem_calloc(1, sizeof(*ca));

    if (!ca) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    if (load_files(ca, state_dir, init_cmd, err, errlen) < 0) {
        ca_free(ca);
        return NULL;
    }
    return ca;
}

void ca_free(struct ca *ca)
{
    if (!ca)
        return;
    X509_free(ca->cert);
    EVP_PKEY_free(ca->key);
    mem_free(ca);
}

X509 *ca_cert(const struct ca *ca)
{
    return ca->cert;
}

/* ---- issuing ---- */

/* Whether s[0..len) is one label of a host name: letters, digits, '-' (not at either end) and
 * '_' (which real names hold, though RFC 1123 leaves it out), 1 to 63 of them. */
static int is_label(const char *s, size_t len)
{
    if (len == 0 || len > 63 || s[0] == '-' || s[len - 1] == '-')
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_'))
            return 0;
    }
    return 1;
}

enum ca_name ca_name_kind(const char *host, unsigned char *addr, size_t *addr_len)
{
    unsigned char tmp[16];
    size_t len = host ? strlen(host) : 0, start = 0;

    if (!addr)
        addr = tmp;
    if (len == 0 || len > CA_NAME_MAX)
        return CA_NAME_NONE;
    if (inet_pton(AF_INET, host, addr) == 1) {
        if (addr_len)
            *addr_len = 4;
        return CA_NAME_IP;
    }
    if (inet_pton(AF_INET6, host, addr) == 1) {
        if (addr_len)
            *addr_len = 16;
        return CA_NAME_IP;
    }
    for (size_t i = 0; i <= len; i++) {
        if (i < len && host[i] != '.')
            continue;
        if (!is_label(host + start, i - start))
            return CA_NAME_NONE;
        start = i + 1;
    }
    return CA_NAME_DNS;
}

/* The leaf's one name, as OpenSSL's structures say it: a dNSName, or an iPAddress holding the
 * address's bytes. Nothing is ever parsed from text here, so that no part of a name a client
 * sent can be read as another name or another kind of name. */
static int add_san(X509 *x, const char *host)
{
    GENERAL_NAMES *names = GENERAL_NAMES_new();
    GENERAL_NAME *gn = GENERAL_NAME_new();
    ASN1_STRING *value = NULL;
    unsigned char addr[16];
    size_t addr_len = 0;
    enum ca_name kind = ca_name_kind(host, addr, &addr_len);
    int rc = -1;

    if (!names || !gn || kind == CA_NAME_NONE)
        goto out;
    value = kind == CA_NAME_IP ? ASN1_OCTET_STRING_new() : ASN1_IA5STRING_new();
    if (!value || (kind == CA_NAME_IP ? !ASN1_OCTET_STRING_set(value, addr, (int)addr_len)
                                      : !ASN1_STRING_set(value, host, (int)strlen(host))))
        goto out;
    GENERAL_NAME_set0_value(gn, kind == CA_NAME_IP ? GEN_IPADD : GEN_DNS, value);
    value = NULL;
    if (!sk_GENERAL_NAME_push(names, gn))
        goto out;
    gn = NULL;
    if (X509_add1_ext_i2d(x, NID_subject_alt_name, names, 0, X509V3_ADD_DEFAULT) == 1)
        rc = 0;
out:
    ASN1_STRING_free(value);
    GENERAL_NAME_free(gn);
    GENERAL_NAMES_free(names);
    return rc;
}

X509 *ca_issue(struct ca *ca, const char *host, EVP_PKEY *key, int days, time_t now)
{
    X509 *x;
    X509_NAME *name;
    char cn[65];

    if (ca_name_kind(host, NULL, NULL) == CA_NAME_NONE)
        return NULL;
    x = X509_new();
    if (!x)
        return NULL;
    /* The CN is informative only (names are matched on subjectAltName) and at most 64. */
    snprintf(cn, sizeof(cn), "%s", host);
    name = X509_get_subject_name(x);
    if (!X509_set_version(x, 2) || set_random_serial(x) < 0 ||
        !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1, -1,
                                    0) ||
        !X509_set_issuer_name(x, X509_get_subject_name(ca->cert)) ||
        !X509_time_adj_ex(X509_getm_notBefore(x), 0, -3600, &now) ||
        !X509_time_adj_ex(X509_getm_notAfter(x), days, 0, &now) || !X509_set_pubkey(x, key) ||
        add_ext(x, ca->cert, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
        add_ext(x, ca->cert, NID_key_usage, "critical,digitalSignature") < 0 ||
        add_ext(x, ca->cert, NID_ext_key_usage, "serverAuth") < 0 || add_san(x, host) < 0 ||
        add_ext(x, ca->cert, NID_authority_key_identifier, "keyid:always") < 0 ||
        X509_sign(x, ca->key, EVP_sha256()) <= 0) {
        X509_free(x);
        ERR_clear_error();
        return NULL;
    }
    return x;
}
