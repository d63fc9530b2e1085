/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The local CA and its leaves, and verified upstream TLS. The CA's key stays inside this
 * file: connections only ever see an SSL whose certificate was chosen here. */
#include "net/tls.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/bufferevent_ssl.h>
#include <event2/util.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include "brock.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/strmap.h"

/* The wire form of ALPN's only protocol. */
static const unsigned char alpn_http11[] = "\x08http/1.1";

/* A PEM file brock reads is far smaller than this. */
#define TLS_PEM_MAX ((size_t)64 * 1024)

static void openssl_reason(char *out, size_t size)
{
    unsigned long e = ERR_get_error();

    if (e)
        ERR_error_string_n(e, out, size);
    else
        snprintf(out, size, "unknown error");
    ERR_clear_error();
}

static int is_ip_literal(const char *host)
{
    unsigned char a[16];

    return evutil_inet_pton(AF_INET, host, a) == 1 || evutil_inet_pton(AF_INET6, host, a) == 1;
}

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

/* ---- the local CA ---- */

int tls_ca_paths(const char *state_dir, char *cert, char *key, size_t size)
{
    int a = snprintf(cert, size, "%s/%s/%s", state_dir, TLS_CA_DIR, TLS_CA_CERT);
    int b = snprintf(key, size, "%s/%s/%s", state_dir, TLS_CA_DIR, TLS_CA_KEY);

    return a < 0 || b < 0 || (size_t)a >= size || (size_t)b >= size ? -1 : 0;
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
        !X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, (const unsigned char *)"brock",
                                    -1, -1, 0) ||
        !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1,
                                    -1, 0) ||
        !X509_set_issuer_name(x, name) || !X509_gmtime_adj(X509_getm_notBefore(x), -3600) ||
        !X509_gmtime_adj(X509_getm_notAfter(x), (long)TLS_CA_DAYS * 86400) ||
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

int tls_ca_create(const char *state_dir, int force, char *err, size_t errlen)
{
    char cert_path[4096], key_path[4096], dir[4096], why[256];
    EVP_PKEY *key = NULL;
    X509 *cert = NULL;
    char *key_pem = NULL, *cert_pem = NULL;
    size_t key_len = 0, cert_len = 0;
    int rc = -1, e;

    if (tls_ca_paths(state_dir, cert_path, key_path, sizeof(cert_path)) < 0 ||
        snprintf(dir, sizeof(dir), "%s/%s", state_dir, TLS_CA_DIR) >= (int)sizeof(dir)) {
        snprintf(err, errlen, "%s: the state folder's path is too long", state_dir);
        return -1;
    }
    if (!force && (access(cert_path, F_OK) == 0 || access(key_path, F_OK) == 0)) {
        snprintf(err, errlen, "%s: a CA exists already; give --force to replace it (browsers "
                              "that trust the old one must then trust the new one)", dir);
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
        openssl_reason(why, sizeof(why));
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
        snprintf(err, errlen, "%s: cannot write the CA's certificate: %s", cert_path,
                 strerror(-e));
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

/* ---- leaves and their cache ---- */

struct leaf {
    struct leaf *prev, *next; /* most recently used first */
    char *host;
    X509 *cert;
    time_t renew_at;
};

struct tls_mitm {
    SSL_CTX *ctx;
    X509 *ca;
    EVP_PKEY *ca_key;
    EVP_PKEY *leaf_key;       /* one key for every leaf: issuing is a signature, no keygen */
    struct strmap leaves;     /* host -> struct leaf */
    struct leaf *lru_head, *lru_tail;
    size_t n_leaves;
    int host_index;           /* SSL ex_data slot: the CONNECT host */
};

static void leaf_free(struct leaf *l)
{
    if (!l)
        return;
    X509_free(l->cert);
    mem_free(l->host);
    mem_free(l);
}

static void leaf_free_cb(void *v)
{
    leaf_free(v);
}

static void lru_unlink(struct tls_mitm *m, struct leaf *l)
{
    if (l->prev)
        l->prev->next = l->next;
    else
        m->lru_head = l->next;
    if (l->next)
        l->next->prev = l->prev;
    else
        m->lru_tail = l->prev;
    l->prev = l->next = NULL;
}

static void lru_push(struct tls_mitm *m, struct leaf *l)
{
    l->prev = NULL;
    l->next = m->lru_head;
    if (m->lru_head)
        m->lru_head->prev = l;
    m->lru_head = l;
    if (!m->lru_tail)
        m->lru_tail = l;
}

static void leaf_drop(struct tls_mitm *m, struct leaf *l)
{
    lru_unlink(m, l);
    (void)strmap_del(&m->leaves, l->host);
    m->n_leaves--;
    leaf_free(l);
}

static X509 *leaf_issue(struct tls_mitm *m, const char *host)
{
    X509 *x = X509_new();
    X509_NAME *name;
    char san[BROCK_HOST_MAX + 8];
    char cn[65];

    if (!x)
        return NULL;
    snprintf(san, sizeof(san), "%s:%s", is_ip_literal(host) ? "IP" : "DNS", host);
    /* The CN is informative only (names are matched on subjectAltName) and at most 64. */
    snprintf(cn, sizeof(cn), "%s", host);
    name = X509_get_subject_name(x);
    if (!X509_set_version(x, 2) || set_random_serial(x) < 0 ||
        !X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)cn, -1,
                                    -1, 0) ||
        !X509_set_issuer_name(x, X509_get_subject_name(m->ca)) ||
        !X509_gmtime_adj(X509_getm_notBefore(x), -3600) ||
        !X509_gmtime_adj(X509_getm_notAfter(x), (long)TLS_LEAF_DAYS * 86400) ||
        !X509_set_pubkey(x, m->leaf_key) ||
        add_ext(x, m->ca, NID_basic_constraints, "critical,CA:FALSE") < 0 ||
        add_ext(x, m->ca, NID_key_usage, "critical,digitalSignature") < 0 ||
        add_ext(x, m->ca, NID_ext_key_usage, "serverAuth") < 0 ||
        add_ext(x, m->ca, NID_subject_alt_name, san) < 0 ||
        add_ext(x, m->ca, NID_authority_key_identifier, "keyid:always") < 0 ||
        X509_sign(x, m->ca_key, EVP_sha256()) <= 0) {
        X509_free(x);
        ERR_clear_error();
        return NULL;
    }
    return x;
}

X509 *tls_mitm_leaf(struct tls_mitm *m, const char *host)
{
    struct leaf *l;
    time_t now = time(NULL);

    if (!host || !host[0] || strlen(host) >= BROCK_HOST_MAX)
        return NULL;
    l = strmap_get(&m->leaves, host);
    if (l && now < l->renew_at) {
        lru_unlink(m, l);
        lru_push(m, l);
        return l->cert;
    }
    if (l)
        leaf_drop(m, l);
    l = mem_calloc(1, sizeof(*l));
    if (!l)
        return NULL;
    l->host = mem_strdup(host);
    l->cert = l->host ? leaf_issue(m, host) : NULL;
    l->renew_at = now + (TLS_LEAF_DAYS - 1) * 86400;
    if (!l->cert || strmap_put(&m->leaves, l->host, l) < 0) {
        leaf_free(l);
        return NULL;
    }
    m->n_leaves++;
    lru_push(m, l);
    if (m->n_leaves > TLS_LEAF_CACHE)
        leaf_drop(m, m->lru_tail);
    return l->cert;
}

/* Chooses the leaf once the client's hello is in: for its SNI, else the CONNECT host. */
static int on_servername(SSL *ssl, int *alert, void *arg)
{
    struct tls_mitm *m = arg;
    const char *sni = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    const char *host = sni && sni[0] ? sni : SSL_get_ex_data(ssl, m->host_index);
    char lower[BROCK_HOST_MAX];
    size_t n = host ? strlen(host) : 0;
    X509 *leaf;

    if (n == 0 || n >= sizeof(lower)) {
        *alert = SSL_AD_UNRECOGNIZED_NAME;
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)(host[i] >= 'A' && host[i] <= 'Z' ? host[i] + 32 : host[i]);
    leaf = tls_mitm_leaf(m, lower);
    if (!leaf || SSL_use_certificate(ssl, leaf) != 1 || SSL_use_PrivateKey(ssl, m->leaf_key) != 1) {
        ERR_clear_error();
        *alert = SSL_AD_INTERNAL_ERROR;
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    return SSL_TLSEXT_ERR_OK;
}

/* Only HTTP/1.1 is spoken inside; a client offering only others gets no ALPN answer. */
static int on_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                   const unsigned char *in, unsigned int inlen, void *arg)
{
    unsigned char *sel;

    (void)ssl;
    (void)arg;
    if (SSL_select_next_proto(&sel, outlen, alpn_http11, sizeof(alpn_http11) - 1, in, inlen) !=
        OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = sel;
    return SSL_TLSEXT_ERR_OK;
}

static void free_host(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl,
                      void *argp)
{
    (void)parent;
    (void)ad;
    (void)idx;
    (void)argl;
    (void)argp;
    mem_free(ptr);
}

/* Reads a PEM file; the key's mode must keep it to its owner. */
static int load_ca(struct tls_mitm *m, const char *state_dir, const char *init_cmd, char *err,
                   size_t errlen)
{
    char cert_path[4096], key_path[4096], why[256];
    struct stat st;
    BIO *b = NULL;
    int rc = -1;

    if (tls_ca_paths(state_dir, cert_path, key_path, sizeof(cert_path)) < 0) {
        snprintf(err, errlen, "%s: the state folder's path is too long", state_dir);
        return -1;
    }
    if (stat(key_path, &st) != 0 || access(cert_path, F_OK) != 0) {
        snprintf(err, errlen, "--intercept needs a local CA and %s has none: run `%s` first, "
                              "then trust %s in your browsers", state_dir,
                 init_cmd ? init_cmd : "brock ca init", cert_path);
        return -1;
    }
    if (st.st_mode & 077) {
        snprintf(err, errlen, "%s: the CA's key is readable by others (mode %03o); make it "
                              "mode 600 (chmod 600) or create a new CA", key_path,
                 (unsigned)(st.st_mode & 0777));
        return -1;
    }
    b = BIO_new_file(cert_path, "r");
    m->ca = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    if (!m->ca) {
        openssl_reason(why, sizeof(why));
        snprintf(err, errlen, "%s: cannot read the CA's certificate: %s", cert_path, why);
        goto out;
    }
    b = BIO_new_file(key_path, "r");
    m->ca_key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    if (!m->ca_key) {
        openssl_reason(why, sizeof(why));
        snprintf(err, errlen, "%s: cannot read the CA's key: %s", key_path, why);
        goto out;
    }
    if (X509_check_private_key(m->ca, m->ca_key) != 1) {
        ERR_clear_error();
        snprintf(err, errlen, "%s: the key does not belong to %s; run `%s --force`", key_path,
                 cert_path, init_cmd ? init_cmd : "brock ca init");
        goto out;
    }
    rc = 0;
out:
    return rc;
}

struct tls_mitm *tls_mitm_new(const char *state_dir, const char *init_cmd, char *err,
                              size_t errlen)
{
    struct tls_mitm *m = mem_calloc(1, sizeof(*m));
    char why[256];

    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    strmap_init(&m->leaves);
    m->host_index = -1;
    if (load_ca(m, state_dir, init_cmd, err, errlen) < 0)
        goto fail;
    m->leaf_key = EVP_EC_gen("P-256");
    m->ctx = SSL_CTX_new(TLS_server_method());
    m->host_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, free_host);
    if (!m->leaf_key || !m->ctx || m->host_index < 0 ||
        !SSL_CTX_set_min_proto_version(m->ctx, TLS1_2_VERSION)) {
        openssl_reason(why, sizeof(why));
        snprintf(err, errlen, "cannot set up TLS for interception: %s", why);
        goto fail;
    }
    /* A peer closing without close_notify ends the stream like one that sends it, rather than
     * failing with "unexpected eof": browsers close that way all the time, and whether
     * anything was cut short is for the HTTP framing to say (conn.c). */
    SSL_CTX_set_options(m->ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE |
                                    SSL_OP_IGNORE_UNEXPECTED_EOF);
    SSL_CTX_set_mode(m->ctx, SSL_MODE_RELEASE_BUFFERS);
    SSL_CTX_set_tlsext_servername_callback(m->ctx, on_servername);
    SSL_CTX_set_tlsext_servername_arg(m->ctx, m);
    SSL_CTX_set_alpn_select_cb(m->ctx, on_alpn, m);
    /* Resumed sessions skip the leaf choice; a new handshake is cheap with a cached leaf. */
    SSL_CTX_set_session_cache_mode(m->ctx, SSL_SESS_CACHE_SERVER);
    SSL_CTX_set_session_id_context(m->ctx, (const unsigned char *)"brock", 5);
    return m;
fail:
    tls_mitm_free(m);
    return NULL;
}

void tls_mitm_free(struct tls_mitm *m)
{
    if (!m)
        return;
    strmap_cleanup(&m->leaves, leaf_free_cb);
    SSL_CTX_free(m->ctx);
    X509_free(m->ca);
    EVP_PKEY_free(m->ca_key);
    EVP_PKEY_free(m->leaf_key);
    mem_free(m);
}

X509 *tls_mitm_ca_cert(const struct tls_mitm *m)
{
    return m->ca;
}

SSL *tls_mitm_ssl_new(struct tls_mitm *m, const char *host)
{
    SSL *ssl = SSL_new(m->ctx);
    char *copy = mem_strdup(host);

    if (!ssl || !copy || !SSL_set_ex_data(ssl, m->host_index, copy)) {
        SSL_free(ssl);
        mem_free(copy);
        ERR_clear_error();
        return NULL;
    }
    return ssl;
}

/* ---- upstream ---- */

SSL_CTX *tls_upstream_ctx_new(const char *upstream_ca, char *err, size_t errlen)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    char why[256];

    if (!ctx) {
        openssl_reason(why, sizeof(why));
        snprintf(err, errlen, "cannot set up upstream TLS: %s", why);
        return NULL;
    }
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    if (!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
        SSL_CTX_set_alpn_protos(ctx, alpn_http11, sizeof(alpn_http11) - 1) != 0) {
        openssl_reason(why, sizeof(why));
        snprintf(err, errlen, "cannot set up upstream TLS: %s", why);
        goto fail;
    }
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
        openssl_reason(why, sizeof(why));
        snprintf(err, errlen, "cannot load the system's trusted certificates: %s", why);
        goto fail;
    }
    if (upstream_ca && SSL_CTX_load_verify_locations(ctx, upstream_ca, NULL) != 1) {
        openssl_reason(why, sizeof(why));
        snprintf(err, errlen, "--upstream-ca %s: not a file of PEM certificates (%s)",
                 upstream_ca, why);
        goto fail;
    }
    SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
    /* As for clients (tls_mitm_new): a response cut short is told by its framing. */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    return ctx;
fail:
    SSL_CTX_free(ctx);
    return NULL;
}

SSL *tls_upstream_ssl_new(SSL_CTX *ctx, const char *host)
{
    SSL *ssl = SSL_new(ctx);
    int ok;

    if (!ssl)
        return NULL;
    if (is_ip_literal(host))
        ok = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host);
    else
        ok = SSL_set_tlsext_host_name(ssl, host) && SSL_set1_host(ssl, host);
    if (!ok) {
        SSL_free(ssl);
        ERR_clear_error();
        return NULL;
    }
    /* No partial wildcards ("w*.example"): browsers do not accept them either. */
    SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    return ssl;
}

struct bufferevent *tls_upstream_open(struct event_base *base, SSL_CTX *ctx,
                                      const struct sockaddr *sa, int len, const char *host)
{
    SSL *ssl = tls_upstream_ssl_new(ctx, host);
    struct bufferevent *bev;

    if (!ssl) {
        errno = ENOMEM;
        return NULL;
    }
    bev = bufferevent_openssl_socket_new(base, -1, ssl, BUFFEREVENT_SSL_CONNECTING,
                                         BEV_OPT_CLOSE_ON_FREE);
    if (!bev) {
        SSL_free(ssl);
        errno = ENOMEM;
        return NULL;
    }
    bufferevent_openssl_set_allow_dirty_shutdown(bev, 1);
    if (bufferevent_socket_connect(bev, sa, len) < 0) {
        int e = errno;

        bufferevent_free(bev);
        errno = e;
        return NULL;
    }
    return bev;
}

int tls_error_describe(struct bufferevent *bev, const char *host, char *out, size_t size)
{
    unsigned long e = bufferevent_get_openssl_error(bev);
    SSL *ssl = bufferevent_openssl_get_ssl(bev);
    long v = ssl ? SSL_get_verify_result(ssl) : X509_V_OK;
    char text[160];

    if (!ssl || (!e && v == X509_V_OK)) {
        ERR_clear_error();
        return 0;
    }
    if (v != X509_V_OK) {
        snprintf(out, size, "the certificate of %s does not verify: %s", host,
                 X509_verify_cert_error_string(v));
    } else {
        /* Drain the rest: a later failure must not report this one. */
        while (bufferevent_get_openssl_error(bev))
            ;
        ERR_error_string_n(e, text, sizeof(text));
        snprintf(out, size, "TLS with %s failed: %s", host, text);
    }
    ERR_clear_error();
    return 1;
}

int tls_host_listed(const char *const *globs, size_t n, const char *host)
{
    for (size_t i = 0; i < n; i++) {
        if (fnmatch(globs[i], host, FNM_CASEFOLD) == 0)
            return 1;
    }
    return 0;
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
