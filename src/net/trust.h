/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where brock's CA is trusted on this machine, and putting it there or taking it away:
 * Debian's system store (/usr/local/share/ca-certificates and update-ca-certificates, which
 * curl, wget, Python, Node with the system store and most programs read), the NSS database
 * Chromium reads for a user (~/.pki/nssdb), every Firefox profile of the user, and Firefox's
 * enterprise policy (Certificates.Install), which profiles made later read. The NSS databases
 * are changed with NSS's own certutil, run as the user who owns them. */
#ifndef BROCK_NET_TRUST_H
#define BROCK_NET_TRUST_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* Debian's places. Tests move them (never the machine's own) with the environment variables
 * BROCK_TRUST_SYSTEM_DIR, BROCK_TRUST_UPDATE (the command run after the system folder
 * changed; empty: none) and BROCK_TRUST_FIREFOX_POLICIES (the policy file). */
#define TRUST_SYSTEM_DIR "/usr/local/share/ca-certificates"
#define TRUST_UPDATE_CMD "update-ca-certificates"
/* Firefox on Linux reads its policy from SysConfD/policies/policies.json, SysConfD being
 * /etc/firefox for Debian's firefox-esr too (its own /etc/firefox-esr holds preferences only). */
#define TRUST_FIREFOX_POLICIES "/etc/firefox/policies/policies.json"

/* A user whose own stores are changed: the one running brock, or the one who ran sudo. */
struct trust_user {
    char name[64];
    char home[PATH_MAX];
    uid_t uid;
    gid_t gid;
};

struct trust {
    char cert_file[PATH_MAX]; /* the CA's certificate */
    char pem[8192];           /* its PEM text, as OpenSSL writes it */
    size_t pem_len;
    char fp[17];   /* the first 16 hex digits of its DER's SHA-256 */
    char nick[64]; /* its name in NSS databases: "brock local CA FP" */
    char system_dir[PATH_MAX];
    char system_file[PATH_MAX]; /* system_dir/brock-FP.crt */
    char update_cmd[PATH_MAX];  /* "" : none */
    char policy_file[PATH_MAX];
    struct trust_user user; /* whose ~/.pki/nssdb and Firefox profiles */
    int have_user;
};

/* What one place says: place names it ("system store", "Chromium (NSS) ~/.pki/nssdb", ...),
 * path where, state one of the words below, detail why (NULL or "" for nothing). */
enum trust_state {
    TRUST_DONE,    /* installed or removed just now */
    TRUST_ALREADY, /* it was so already */
    TRUST_YES,     /* status: trusted there */
    TRUST_NO,      /* status: not trusted there */
    TRUST_FAILED,  /* could not: detail says why */
    TRUST_SKIPPED, /* nothing to do there (no such store): detail says why */
};

typedef void (*trust_say_fn)(void *arg, const char *place, const char *path, enum trust_state state,
                             const char *detail);

/* Reads the CA certificate cert_file and works out the places: the user is the one who ran
 * sudo (SUDO_USER) when running as root through sudo, else the process's own (HOME). Returns
 * 0, or -1 with a sentence in err (no certificate, a path too long). */
int trust_init(struct trust *t, const char *cert_file, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* Puts the certificate in every place, saying one line a place through say. A place that
 * cannot be written is said (TRUST_FAILED) and the others are still done; nothing done is
 * undone. Returns the number of places that failed. */
int trust_install(const struct trust *t, trust_say_fn say, void *arg);

/* Takes the certificate out of every place install writes; the same rules. */
int trust_uninstall(const struct trust *t, trust_say_fn say, void *arg);

/* Says, for every place, whether the certificate is trusted there. Returns how many places
 * trust it. */
int trust_status(const struct trust *t, trust_say_fn say, void *arg);

/* Whether the system store holds this certificate (the file install writes, byte for byte):
 * what makes `brock run` intercept by default. */
int trust_in_system(const struct trust *t);

/* "done", "already", "yes", "no", "failed", "skipped". */
const char *trust_state_name(enum trust_state s);

#endif
