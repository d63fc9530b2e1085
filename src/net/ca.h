/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The local certificate authority that interception signs with: created by `brock ca init`,
 * loaded by `brock run --intercept`. Its key never leaves ca.c: callers get certificates
 * issued with it, never the key itself. */
#ifndef BROCK_NET_CA_H
#define BROCK_NET_CA_H

#include <stddef.h>
#include <time.h>

/* OpenSSL's X509 and EVP_PKEY, named without its headers. */
struct x509_st;
struct evp_pkey_st;

/* The CA's files, under the state folder. */
#define CA_DIR "ca"
#define CA_CERT "ca.pem"
#define CA_KEY "ca-key.pem"

/* How long a CA lasts. */
#define CA_DAYS (3 * 365)

/* Writes the paths of the CA's certificate and key under state_dir into cert and key (each
 * size bytes). Returns 0, or -1 when a path does not fit. */
int ca_paths(const char *state_dir, char *cert, char *key, size_t size)
    __attribute__((warn_unused_result));

/* Creates a CA under state_dir/ca: an EC P-256 key (mode 0600) and a self-signed certificate
 * naming brock and this machine. Both files are written to temporary files and renamed into
 * place. An existing CA is kept unless force. Returns 0, or -1 with a sentence in err. */
int ca_create(const char *state_dir, int force, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* The certificate in the file cert (a CA's, as ca_paths() names it) as PEM text, read and
 * written again by OpenSSL so that nothing but the certificate is copied (never a key that
 * shared the file): at most size bytes, NUL-terminated, into out. Returns its length; -2
 * when the file does not exist; -1 with a sentence in err when it cannot be read, holds no
 * certificate, or does not fit. */
long ca_cert_pem(const char *cert, char *out, size_t size, char *err, size_t errlen)
    __attribute__((warn_unused_result));

struct ca;

/* Loads the CA under state_dir. init_cmd is the command that makes one, as the user would
 * type it for this state (NULL: "brock ca init"). Returns a new CA (free with ca_free), or
 * NULL with a sentence in err: no CA (says to run init_cmd), a key readable by others, a
 * key that does not belong to the certificate, a file that does not parse. */
struct ca *ca_load(const char *state_dir, const char *init_cmd, char *err, size_t errlen);

/* Frees ca and wipes its key; NULL is a no-op. */
void ca_free(struct ca *ca);

/* The CA's certificate, borrowed from ca. */
struct x509_st *ca_cert(const struct ca *ca);

/* The longest name a leaf is made for, as DNS allows. */
#define CA_NAME_MAX 253

/* What a name a client asked for is, for a leaf certificate. */
enum ca_name {
    CA_NAME_NONE, /* neither: no leaf is made for it */
    CA_NAME_DNS,  /* a host name: dot-separated labels of 1 to 63 letters, digits, '-' (not
                     first or last) and '_', CA_NAME_MAX in all, no dot at the end */
    CA_NAME_IP,   /* an IPv4 or IPv6 address as inet_pton(3) reads it, without brackets */
};

/* What host is. For an address, its bytes (4 or 16) go to addr (16 bytes, or NULL) and their
 * number to *addr_len (or NULL). */
enum ca_name ca_name_kind(const char *host, unsigned char *addr, size_t *addr_len);

/* Issues a server certificate for host, named in its subjectAltName as a dNSName or an
 * iPAddress (ca_name_kind()), over the public half of key, valid from an hour before now for
 * days days, with a random serial, signed by ca. Returns a new certificate (X509_free), or
 * NULL when out of memory or host is neither a host name nor an address. */
struct x509_st *ca_issue(struct ca *ca, const char *host, struct evp_pkey_st *key, int days,
                         time_t now);

#endif
