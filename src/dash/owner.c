/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The owner file and sessions (owner.h). The file is two lines of text:
 *
 *     scrypt LOG_N R P SALT HASH
 *     key KEY
 *
 * each binary value in lower-case hex, after any number of comment lines ("#"). */
#include "dash/owner.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "util/alloc.h"
#include "util/file.h"
#include "util/hex.h"

/* The file is refused past this size: it holds two short lines. */
#define OWNER_FILE_MAX 4096

int owner_password_ok(const char *pw, size_t len, char *err, size_t errlen)
{
    if (len == 0) {
        snprintf(err, errlen, "the password is empty");
        return -1;
    }
    if (len > OWNER_PASSWORD_MAX) {
        snprintf(err, errlen, "the password is %zu bytes long; at most %d are kept", len,
                 OWNER_PASSWORD_MAX);
        return -1;
    }
    if (memchr(pw, '\0', len)) {
        snprintf(err, errlen, "the password holds a NUL byte");
        return -1;
    }
    return 0;
}

static int random_bytes(unsigned char *out, size_t n)
{
    size_t got = 0;

    while (got < n) {
        ssize_t r = getrandom(out + got, n - got, 0);

        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

static int scrypt(const struct owner *o, const char *pw, size_t len,
                  unsigned char out[OWNER_HASH_BYTES])
{
    uint64_t n = (uint64_t)1 << o->log_n;
    /* What scrypt needs (128 r N, and 128 r p), with room: OpenSSL refuses past maxmem. */
    uint64_t mem = 128 * (uint64_t)o->r * (n + o->p) + (1u << 20);

    return EVP_PBE_scrypt(pw, len, o->salt, sizeof(o->salt), n, o->r, o->p, mem, out,
                          OWNER_HASH_BYTES) == 1
               ? 0
               : -1;
}

/* ---- the file ---- */

/* Exactly n bytes from 2n hex digits at s, followed by the end of the word. Returns the
 * position after them, or NULL. */
static const char *hex_word(const char *s, unsigned char *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hex_digit(s[2 * i]), lo = hi < 0 ? -1 : hex_digit(s[2 * i + 1]);

        if (hi < 0 || lo < 0)
            return NULL;
        out[i] = (unsigned char)(hi * 16 + lo);
    }
    s += 2 * n;
    return *s == ' ' || *s == '\n' || *s == '\0' ? s : NULL;
}

static int parse_scrypt(const char *line, struct owner *o)
{
    int used = 0;
    const char *p;

    if (sscanf(line, "scrypt %u %u %u %n", &o->log_n, &o->r, &o->p, &used) != 3 || !used)
        return -1;
    /* Costs a file could ask for and brock still computes in bounded memory. */
    if (o->log_n < 10 || o->log_n > 20 || o->r < 1 || o->r > 32 || o->p < 1 || o->p > 16)
        return -1;
    p = hex_word(line + used, o->salt, sizeof(o->salt));
    if (!p || *p != ' ')
        return -1;
    p = hex_word(p + 1, o->hash, sizeof(o->hash));
    return p && (*p == '\n' || *p == '\0') ? 0 : -1;
}

static int parse_key(const char *line, struct owner *o)
{
    const char *p;

    if (strncmp(line, "key ", 4) != 0)
        return -1;
    p = hex_word(line + 4, o->key, sizeof(o->key));
    return p && (*p == '\n' || *p == '\0') ? 0 : -1;
}

/* The lines of text (NUL-terminated; cut into lines in place) into *o. Returns 0, or -1. */
static int parse_lines(char *text, struct owner *o)
{
    int have_scrypt = 0, have_key = 0;

    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (*line == '#' || *line == '\0')
            continue;
        if (!have_scrypt && parse_scrypt(line, o) == 0)
            have_scrypt = 1;
        else if (!have_key && parse_key(line, o) == 0)
            have_key = 1;
        else
            return -1;
    }
    return have_scrypt && have_key ? 0 : -1;
}

int owner_read(const char *path, struct owner *o, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len;
    int rc = file_read(path, OWNER_FILE_MAX, &text, &len);

    memset(o, 0, sizeof(*o));
    if (rc == -ENOENT)
        return 0;
    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", path, strerror(-rc));
        return -1;
    }
    rc = owner_parse(text, len, o);
    OPENSSL_cleanse(text, len);
    mem_free(text);
    if (rc < 0) {
        snprintf(err, errlen,
                 "%s is not an owner file brock wrote (set the password again with brock "
                 "passwd)",
                 path);
        return -1;
    }
    return 0;
}

int owner_parse(const char *text, size_t len, struct owner *o)
{
    char *copy = len < OWNER_FILE_MAX && !memchr(text, '\0', len) ? mem_strndup(text, len) : NULL;
    int rc = copy ? parse_lines(copy, o) : -1;

    if (copy) {
        OPENSSL_cleanse(copy, len);
        mem_free(copy);
    }
    if (rc < 0) {
        OPENSSL_cleanse(o, sizeof(*o));
        return -1;
    }
    o->set = 1;
    return 0;
}

static int write_file(const char *path, const struct owner *o, char *err, size_t errlen)
{
    char salt[2 * OWNER_SALT_BYTES + 1], hash[2 * OWNER_HASH_BYTES + 1];
    char key[2 * OWNER_KEY_BYTES + 1], text[512];
    int n, rc;

    hex_encode(o->salt, sizeof(o->salt), salt);
    hex_encode(o->hash, sizeof(o->hash), hash);
    hex_encode(o->key, sizeof(o->key), key);
    n = snprintf(text, sizeof(text),
                 "# brock's dashboard owner, written by brock passwd: the password's scrypt\n"
                 "# hash (never the password) and the key that signs sessions\n"
                 "scrypt %u %u %u %s %s\nkey %s\n",
                 o->log_n, o->r, o->p, salt, hash, key);
    rc = n > 0 && (size_t)n < sizeof(text) ? file_write_atomic(path, text, (size_t)n, 0600)
                                           : -ENAMETOOLONG;
    OPENSSL_cleanse(text, sizeof(text));
    OPENSSL_cleanse(key, sizeof(key));
    if (rc < 0) {
        snprintf(err, errlen, "could not write %s: %s", path, strerror(-rc));
        return -1;
    }
    return 0;
}

int owner_set_password(const char *path, const char *pw, size_t len, char *err, size_t errlen)
{
    struct owner o = {
        .set = 1, .log_n = OWNER_SCRYPT_LOG_N, .r = OWNER_SCRYPT_R, .p = OWNER_SCRYPT_P};
    int rc = -1;

    if (owner_password_ok(pw, len, err, errlen) < 0)
        return -1;
    if (random_bytes(o.salt, sizeof(o.salt)) < 0 || random_bytes(o.key, sizeof(o.key)) < 0)
        snprintf(err, errlen, "no random bytes: %s", strerror(errno));
    else if (scrypt(&o, pw, len, o.hash) < 0)
        snprintf(err, errlen, "could not hash the password (out of memory)");
    else
        rc = write_file(path, &o, err, errlen);
    OPENSSL_cleanse(&o, sizeof(o));
    return rc;
}

int owner_sign_out_all(const char *path, char *err, size_t errlen)
{
    struct owner o;
    int rc = -1;

    if (owner_read(path, &o, err, errlen) < 0)
        return -1;
    if (!o.set)
        snprintf(err, errlen, "no password is set (brock passwd sets one)");
    else if (random_bytes(o.key, sizeof(o.key)) < 0)
        snprintf(err, errlen, "no random bytes: %s", strerror(errno));
    else
        rc = write_file(path, &o, err, errlen);
    OPENSSL_cleanse(&o, sizeof(o));
    return rc;
}

int owner_check(const struct owner *o, const char *pw, size_t len)
{
    unsigned char got[OWNER_HASH_BYTES];
    struct owner cost = {.log_n = OWNER_SCRYPT_LOG_N, .r = OWNER_SCRYPT_R, .p = OWNER_SCRYPT_P};
    char err[128];
    int ok;

    /* Without a password, or with one that could not be, the work is done all the same. */
    if (!o->set || owner_password_ok(pw, len, err, sizeof(err)) < 0) {
        (void)!scrypt(&cost, "", 0, got);
        OPENSSL_cleanse(got, sizeof(got));
        return 0;
    }
    if (scrypt(o, pw, len, got) < 0)
        return -1;
    ok = CRYPTO_memcmp(got, o->hash, sizeof(got)) == 0;
    OPENSSL_cleanse(got, sizeof(got));
    return ok;
}

/* ---- sessions ---- */

/* HMAC-SHA256 under o's key of "END client" into 64 hex digits and a NUL. */
static int session_mac(const struct owner *o, int64_t end, const char *client, char *out)
{
    unsigned char mac[32];
    unsigned mac_len = 0;
    char msg[160];
    int n = snprintf(msg, sizeof(msg), "%" PRId64 " %s", end, client);

    if (n < 0 || (size_t)n >= sizeof(msg) ||
        !HMAC(EVP_sha256(), o->key, sizeof(o->key), (const unsigned char *)msg, (size_t)n, mac,
              &mac_len) ||
        mac_len != sizeof(mac))
        return -1;
    hex_encode(mac, sizeof(mac), out);
    return 0;
}

int owner_session_make(const struct owner *o, const char *client, int64_t now_s, char *out,
                       size_t size)
{
    char mac[65];
    int64_t end = now_s + OWNER_SESSION_SECONDS;
    int n;

    if (!o->set || session_mac(o, end, client, mac) < 0)
        return -1;
    n = snprintf(out, size, "%" PRId64 ".%s", end, mac);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

int owner_session_valid(const struct owner *o, const char *value, size_t len, const char *client,
                        int64_t now_s)
{
    char mac[65], copy[OWNER_SESSION_MAX + 1];
    const char *dot;
    char *end_p;
    long long end;

    if (!o->set || len == 0 || len > OWNER_SESSION_MAX)
        return 0;
    memcpy(copy, value, len);
    copy[len] = '\0';
    dot = strchr(copy, '.');
    /* The one form brock writes: digits without a leading zero, a dot, 64 lower-case hex. */
    if (!dot || dot == copy || copy[0] < '1' || copy[0] > '9')
        return 0;
    errno = 0;
    end = strtoll(copy, &end_p, 10);
    if (errno || end_p != dot || end <= now_s || end > now_s + OWNER_SESSION_SECONDS)
        return 0;
    if (strlen(dot + 1) != 64 || session_mac(o, end, client, mac) < 0)
        return 0;
    return CRYPTO_memcmp(mac, dot + 1, 64) == 0;
}
