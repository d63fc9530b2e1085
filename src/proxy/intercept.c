/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The client-facing TLS of intercepted tunnels: the server context, the leaf chosen once the
 * client's hello names the site, and the cache of leaves. The CA's key stays in net/ca.c;
 * this file only asks it for certificates. */
#include "proxy/intercept.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <sys/queue.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "brock.h"
#include "net/ca.h"
#include "net/tls.h"
#include "proxy/h2front.h"
#include "util/alloc.h"
#include "util/strmap.h"

struct leaf {
    TAILQ_ENTRY(leaf) lru; /* most recently used first */
    char *host;
    X509 *cert;
    time_t renew_at;
};

struct intercept {
    SSL_CTX *ctx;
    struct ca *ca;
    EVP_PKEY *leaf_key;   /* one key for every leaf: issuing is a signature, no keygen */
    struct strmap leaves; /* host -> struct leaf */
    TAILQ_HEAD(leaf_lru, leaf) lru;
    size_t n_leaves;
    int host_index;  /* SSL ex_data slot: the CONNECT host */
    int why_index;   /* SSL ex_data slot: why the handshake was refused (allocated),
                       for the connection's log line */
    int pages_index; /* SSL ex_data slot: set for brock's own pages, HTTP/1.1 alone */
    int h2;          /* clients may choose HTTP/2 */
};

/* ---- the cache of leaves ---- */

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

static void leaf_drop(struct intercept *m, struct leaf *l)
{
    TAILQ_REMOVE(&m->lru, l, lru);
    (void)strmap_del(&m->leaves, l->host);
    m->n_leaves--;
    leaf_free(l);
}

X509 *intercept_leaf(struct intercept *m, const char *host, time_t now)
{
    struct leaf *l;

    if (!host || !host[0] || strlen(host) >= BROCK_HOST_MAX)
        return NULL;
    l = strmap_get(&m->leaves, host);
    if (l && now < l->renew_at) {
        TAILQ_REMOVE(&m->lru, l, lru);
        TAILQ_INSERT_HEAD(&m->lru, l, lru);
        return l->cert;
    }
    if (l)
        leaf_drop(m, l);
    l = mem_calloc(1, sizeof(*l));
    if (!l)
        return NULL;
    l->host = mem_strdup(host);
    l->cert = l->host ? ca_issue(m->ca, host, m->leaf_key, INTERCEPT_LEAF_DAYS, now) : NULL;
    l->renew_at = now + (time_t)(INTERCEPT_LEAF_DAYS - 1) * 86400;
    if (!l->cert || strmap_put(&m->leaves, l->host, l) < 0) {
        leaf_free(l);
        return NULL;
    }
    m->n_leaves++;
    TAILQ_INSERT_HEAD(&m->lru, l, lru);
    if (m->n_leaves > INTERCEPT_LEAF_CACHE)
        leaf_drop(m, TAILQ_LAST(&m->lru, leaf_lru));
    return l->cert;
}

/* ---- the handshake ---- */

/* The name a client asked for, fit for a log line: printable ASCII as it is, any other byte
 * (and '\\' and '"', which would make it ambiguous) as \xNN, cut at 64 bytes. */
static void name_printable(const char *name, char *out, size_t size)
{
    size_t o = 0, i;

    for (i = 0; i < 64 && name[i] && o + 5 < size; i++) {
        unsigned char c = (unsigned char)name[i];

        if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
            out[o++] = (char)c;
        else
            o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
    }
    if (name[i] && o + 4 < size) {
        memcpy(out + o, "...", 3);
        o += 3;
    }
    out[o] = '\0';
}

/* Keeps why the handshake of ssl is refused for the connection's log line (a failure to keep
 * it leaves OpenSSL's own words there). */
static void refusal_keep(struct intercept *m, SSL *ssl, const char *sni)
{
    char shown[64 * 4 + 8], why[sizeof(shown) + 160];
    char *copy;

    name_printable(sni, shown, sizeof(shown));
    snprintf(why, sizeof(why),
             "TLS refused: the server name the client sent (SNI \"%s\") is not a host name or "
             "an address, and brock makes no certificate for it",
             shown);
    copy = mem_strdup(why);
    if (copy && !SSL_set_ex_data(ssl, m->why_index, copy))
        mem_free(copy);
}

/* Chooses the leaf once the client's hello is in: for its SNI, else the CONNECT host. A name
 * that is neither a host name nor an address gets none: it would go into the certificate, so
 * a client could otherwise have brock's CA sign names of its choosing. */
static int on_servername(SSL *ssl, int *alert, void *arg)
{
    struct intercept *m = arg;
    const char *sni = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
    const char *host = sni && sni[0] ? sni : SSL_get_ex_data(ssl, m->host_index);
    char lower[BROCK_HOST_MAX];
    size_t n = host ? strlen(host) : 0;
    X509 *leaf;

    if (n == 0 || n >= sizeof(lower) || ca_name_kind(host, NULL, NULL) == CA_NAME_NONE) {
        if (host)
            refusal_keep(m, ssl, host);
        *alert = SSL_AD_UNRECOGNIZED_NAME;
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)(host[i] >= 'A' && host[i] <= 'Z' ? host[i] + 32 : host[i]);
    leaf = intercept_leaf(m, lower, time(NULL));
    if (!leaf || SSL_use_certificate(ssl, leaf) != 1 || SSL_use_PrivateKey(ssl, m->leaf_key) != 1) {
        ERR_clear_error();
        *alert = SSL_AD_INTERNAL_ERROR;
        return SSL_TLSEXT_ERR_ALERT_FATAL;
    }
    return SSL_TLSEXT_ERR_OK;
}

const char *intercept_refusal(const struct intercept *m, SSL *ssl)
{
    return ssl && m->why_index >= 0 ? SSL_get_ex_data(ssl, m->why_index) : NULL;
}

/* HTTP/2 when the client offers it (and brock speaks it: intercept_set_h2()), else HTTP/1.1;
 * a client offering only others gets no ALPN answer. */
static int on_alpn(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                   const unsigned char *in, unsigned int inlen, void *arg)
{
    const struct intercept *m = arg;
    int h2 = m->h2 && !SSL_get_ex_data(ssl, m->pages_index);
    const unsigned char *ours = (const unsigned char *)(h2 ? H2_ALPN_PROTOS : TLS_ALPN_HTTP11);
    unsigned ours_len = h2 ? sizeof(H2_ALPN_PROTOS) - 1 : sizeof(TLS_ALPN_HTTP11) - 1;
    unsigned char *sel;

    if (SSL_select_next_proto(&sel, outlen, ours, ours_len, in, inlen) != OPENSSL_NPN_NEGOTIATED)
        return SSL_TLSEXT_ERR_NOACK;
    *out = sel;
    return SSL_TLSEXT_ERR_OK;
}

static void free_host(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
    (void)parent;
    (void)ad;
    (void)idx;
    (void)argl;
    (void)argp;
    mem_free(ptr);
}

/* ---- the object ---- */

struct intercept *intercept_new(const char *state_dir, const char *init_cmd, char *err,
                                size_t errlen)
{
    struct intercept *m = mem_calloc(1, sizeof(*m));
    char why[256];

    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    strmap_init(&m->leaves);
    TAILQ_INIT(&m->lru);
    m->host_index = -1;
    m->why_index = -1;
    m->pages_index = -1;
    m->ca = ca_load(state_dir, init_cmd, err, errlen);
    if (!m->ca)
        goto fail;
    m->leaf_key = EVP_EC_gen("P-256");
    m->ctx = SSL_CTX_new(TLS_server_method());
    m->host_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, free_host);
    m->why_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, free_host);
    m->pages_index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
    if (!m->leaf_key || !m->ctx || m->host_index < 0 || m->why_index < 0 || m->pages_index < 0 ||
        !SSL_CTX_set_min_proto_version(m->ctx, TLS1_2_VERSION)) {
        tls_reason(why, sizeof(why));
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
    intercept_free(m);
    return NULL;
}

void intercept_free(struct intercept *m)
{
    if (!m)
        return;
    strmap_cleanup(&m->leaves, leaf_free_cb);
    SSL_CTX_free(m->ctx);
    ca_free(m->ca);
    EVP_PKEY_free(m->leaf_key);
    mem_free(m);
}

SSL *intercept_ssl_new(struct intercept *m, const char *host)
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

SSL *intercept_ssl_new_pages(struct intercept *m, const char *host)
{
    SSL *ssl = intercept_ssl_new(m, host);

    if (ssl && !SSL_set_ex_data(ssl, m->pages_index, m)) {
        SSL_free(ssl);
        ERR_clear_error();
        return NULL;
    }
    return ssl;
}

void intercept_set_h2(struct intercept *m, int on)
{
    m->h2 = on;
}

int intercept_host_listed(const char *const *globs, size_t n, const char *host)
{
    for (size_t i = 0; i < n; i++) {
        if (fnmatch(globs[i], host, FNM_CASEFOLD) == 0)
            return 1;
    }
    return 0;
}
