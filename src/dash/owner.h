/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dashboard's owner: the password that lets a browser on the network manage brock, and the
 * sessions it opens. The state folder's file `owner` keeps the password's scrypt hash (never the
 * password) and the key that signs sessions; `brock passwd` writes it, the running proxy reads
 * it again whenever it changed. A session is a cookie that names its end and carries an
 * HMAC-SHA256 of that end and the client's address under the key: it is valid until its end,
 * from that address alone, and a new key (a new password, `brock passwd --sign-out-all`) ends
 * every session at once. No session is kept in memory, so several processes serving
 * (--workers) accept each other's. */
#ifndef BROCK_DASH_OWNER_H
#define BROCK_DASH_OWNER_H

#include <stddef.h>
#include <stdint.h>

/* The file, in the state folder. */
#define OWNER_FILE "owner"

/* A password's bytes: at least 1, at most this many. */
#define OWNER_PASSWORD_MAX 1024

/* scrypt's cost: N = 2^14, r = 8, p = 1 (16 MiB, under 0.1 s a check), the cost for
 * interactive sign-ins that RFC 7914 and scrypt's paper name. A check runs on the proxy's event
 * loop: the sign-in's limits (dash_owner.c) bound how often. */
#define OWNER_SCRYPT_LOG_N 14
#define OWNER_SCRYPT_R 8
#define OWNER_SCRYPT_P 1

/* How long a session lasts, in seconds: a week (7 * 86400). */
#define OWNER_SESSION_SECONDS 604800

/* The cookie's name. */
#define OWNER_COOKIE "brock_owner"

/* A cookie's value at most: "END.HMAC" (decimal seconds, 64 hex digits). */
#define OWNER_SESSION_MAX 96

#define OWNER_SALT_BYTES 16
#define OWNER_HASH_BYTES 32
#define OWNER_KEY_BYTES 32

struct owner {
    int set; /* a password is set; else nothing below is */
    unsigned log_n, r, p;
    unsigned char salt[OWNER_SALT_BYTES];
    unsigned char hash[OWNER_HASH_BYTES];
    unsigned char key[OWNER_KEY_BYTES];
};

/* Whether pw (len bytes) may be a password: not empty, at most OWNER_PASSWORD_MAX bytes,
 * without a NUL. Returns 0, or -1 with a sentence in err. */
int owner_password_ok(const char *pw, size_t len, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Reads the owner file at path into *o: o->set 0 when there is none. Returns 0, or -1 with a
 * sentence in err (unreadable, malformed: then *o says no password is set). */
int owner_read(const char *path, struct owner *o, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* The same for the file's text (len bytes) already read. Returns 0 with o->set, or -1 (and o
 * says no password is set). */
int owner_parse(const char *text, size_t len, struct owner *o) __attribute__((warn_unused_result));

/* Sets the password to pw (owner_password_ok()) with a new salt and a new session key (every
 * session ends), replacing the file at path atomically (mode 0600). Returns 0, or -1 with a
 * sentence in err and the file as it was. */
int owner_set_password(const char *path, const char *pw, size_t len, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* A new session key, the password kept: every session ends. Returns 0, or -1 with a sentence in
 * err (no password set, the file unreadable or not writable) and the file as it was. */
int owner_sign_out_all(const char *path, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Whether pw (len bytes) is o's password, compared in constant time. Returns 1 or 0, or -1
 * when the hash could not be computed (out of memory). A password that could not be one is
 * hashed all the same, so that its answer takes as long. */
int owner_check(const struct owner *o, const char *pw, size_t len)
    __attribute__((warn_unused_result));

/* A new session for the client at address client (text, as the proxy names it), from now_s
 * for OWNER_SESSION_SECONDS, into out (OWNER_SESSION_MAX + 1 bytes). Returns 0, or -1. */
int owner_session_make(const struct owner *o, const char *client, int64_t now_s, char *out,
                       size_t size) __attribute__((warn_unused_result));

/* Whether value (len bytes, a cookie's) is a session of o's current key, for client, not past
 * its end at now_s. */
int owner_session_valid(const struct owner *o, const char *value, size_t len, const char *client,
                        int64_t now_s);

#endif
