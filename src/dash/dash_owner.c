/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Who is brock's owner (owner.h), as the dashboard's door asks: a client of this machine, or a
 * browser holding a session; the routes that sign in and out; and the limits on sign-ins. A
 * wrong password from an address makes that address wait longer before its next try
 * (DASH_SIGNIN_FREE tries, then 1 s, 2 s, 4 s, ... up to DASH_SIGNIN_WAIT_MAX), and every check
 * waits for the one before it by DASH_SIGNIN_GAP_MS, whatever the address: a check costs the
 * event loop scrypt's time. Each wrong password is logged with its address. */
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <openssl/crypto.h>

#include "dash/dash_api.h"
#include "dash/owner.h"
#include "http/head.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/log.h"

struct signin_try {
    char addr[64];     /* "" : a free slot */
    unsigned failures; /* wrong passwords in a row */
    int64_t next_ms;   /* no check before this */
    int64_t last_ms;   /* the last try, to forget the quietest address first */
};

struct dash_owner {
    char path[4096];     /* the owner file; "" : none (no state folder) */
    struct owner o;      /* as last read */
    struct stat seen;    /* the file when read (st_ino 0: absent) */
    int64_t gap_next_ms; /* the next check, from any address */
    struct signin_try tries[DASH_SIGNIN_ADDRS];
};

int dash_owner_new(struct dash_env *env, const char *state_dir, char *err, size_t errlen)
{
    struct dash_owner *d = mem_calloc(1, sizeof(*d));
    int n;

    if (!d) {
        snprintf(err, errlen, "out of memory for the dashboard");
        return -1;
    }
    if (state_dir) {
        n = snprintf(d->path, sizeof(d->path), "%s/%s", state_dir, OWNER_FILE);
        if (n < 0 || (size_t)n >= sizeof(d->path)) {
            mem_free(d);
            snprintf(err, errlen, "--state %s: the path is too long", state_dir);
            return -1;
        }
    }
    env->owner = d;
    return 0;
}

void dash_owner_free(struct dash_env *env)
{
    if (env->owner)
        OPENSSL_cleanse(env->owner, sizeof(*env->owner));
    mem_free(env->owner);
    env->owner = NULL;
}

/* The owner file as it is now: read again when it changed (brock passwd ran). */
static const struct owner *owner_now(struct dash_owner *d)
{
    struct stat st;
    char err[4200];

    if (!d->path[0])
        return &d->o;
    if (stat(d->path, &st) < 0)
        memset(&st, 0, sizeof(st));
    if (st.st_ino == d->seen.st_ino && st.st_dev == d->seen.st_dev &&
        st.st_size == d->seen.st_size && st.st_mtim.tv_sec == d->seen.st_mtim.tv_sec &&
        st.st_mtim.tv_nsec == d->seen.st_mtim.tv_nsec)
        return &d->o;
    d->seen = st;
    if (owner_read(d->path, &d->o, err, sizeof(err)) < 0)
        log_msg(LOG_ERR, "the dashboard's owner: %s", err);
    return &d->o;
}

/* The value of rq's cookie name, among every Cookie field (HTTP/2 sends one a cookie), into
 * *v and *len. Returns 1 when found. */
static int cookie_find(const struct dash_request *rq, const char *name, const char **v, size_t *len)
{
    size_t nl = strlen(name);

    for (size_t i = 0; i < rq->n; i++) {
        const struct brock_header *h = &rq->h[i];
        const char *p = h->value, *end = h->value + h->value_len;

        if (!http_name_is(h->name, h->name_len, "cookie"))
            continue;
        while (p < end) {
            const char *semi = memchr(p, ';', (size_t)(end - p));
            const char *stop = semi ? semi : end;

            while (p < stop && (*p == ' ' || *p == '\t'))
                p++;
            if ((size_t)(stop - p) > nl && !memcmp(p, name, nl) && p[nl] == '=') {
                *v = p + nl + 1;
                *len = (size_t)(stop - *v);
                return 1;
            }
            p = semi ? semi + 1 : end;
        }
    }
    return 0;
}

int dash_owner_is(const struct dash_env *env, const struct dash_request *rq)
{
    const struct owner *o;
    const char *v;
    size_t len;

    if (rq->client_local)
        return 1;
    if (!rq->client || !cookie_find(rq, OWNER_COOKIE, &v, &len))
        return 0;
    o = owner_now(env->owner);
    return owner_session_valid(o, v, len, rq->client, clock_now_ms() / 1000);
}

/* ---- the limits ---- */

static struct signin_try *try_find(struct dash_owner *d, const char *addr, int make)
{
    struct signin_try *quietest = &d->tries[0];

    for (size_t i = 0; i < DASH_SIGNIN_ADDRS; i++) {
        struct signin_try *t = &d->tries[i];

        if (t->addr[0] && !strcmp(t->addr, addr))
            return t;
        if (!t->addr[0] || (quietest->addr[0] && t->last_ms < quietest->last_ms))
            quietest = t;
    }
    if (!make)
        return NULL;
    memset(quietest, 0, sizeof(*quietest));
    snprintf(quietest->addr, sizeof(quietest->addr), "%s", addr);
    return quietest;
}

/* How long addr waits before its next check, in ms: 0 when it may try now. */
static int64_t wait_ms(struct dash_owner *d, const char *addr, int64_t now)
{
    const struct signin_try *t = try_find(d, addr, 0);
    int64_t w = d->gap_next_ms - now;

    if (t && t->next_ms - now > w)
        w = t->next_ms - now;
    return w > 0 ? w : 0;
}

static unsigned note_failure(struct dash_owner *d, const char *addr, int64_t now)
{
    struct signin_try *t = try_find(d, addr, 1);
    int64_t wait = 0;

    t->failures++;
    t->last_ms = now;
    if (t->failures >= DASH_SIGNIN_FREE) {
        unsigned shift = t->failures - DASH_SIGNIN_FREE;

        wait = shift >= 16 ? DASH_SIGNIN_WAIT_MAX : (int64_t)1 << shift;
        if (wait > DASH_SIGNIN_WAIT_MAX)
            wait = DASH_SIGNIN_WAIT_MAX;
    }
    t->next_ms = now + wait * 1000;
    return t->failures;
}

/* ---- the routes ---- */

/* Over TLS, Secure: the browser never sends it over plain HTTP. */
static int set_cookie(struct dash_call *x, const char *value, int max_age)
{
    int n = snprintf(x->headers, sizeof(x->headers),
                     "Set-Cookie: %s=%s; Path=/; Max-Age=%d; HttpOnly; SameSite=Strict%s\r\n",
                     OWNER_COOKIE, value, max_age, x->rq->tls ? "; Secure" : "");

    return n > 0 && (size_t)n < sizeof(x->headers) ? 0 : -1;
}

/* The password of the body {"password": "..."}, which may hold any byte but NUL. */
static int body_password(struct dash_call *x, json_t **body, const char **pw, size_t *len)
{
    json_t *v;

    if (dash_body_object(x, body) < 0)
        return -1;
    if (!*body)
        return 0;
    v = json_object_get(*body, "password");
    if (!json_is_string(v)) {
        json_decref(*body);
        *body = NULL;
        return dash_error(x, 400, "the body needs the password: {\"password\": \"...\"}");
    }
    *pw = json_string_value(v);
    *len = json_string_length(v);
    return 0;
}

static int signin_refused(struct dash_call *x, int64_t wait)
{
    char msg[160];
    long s = (long)((wait + 999) / 1000);

    snprintf(x->headers, sizeof(x->headers), "Retry-After: %ld\r\n", s);
    snprintf(msg, sizeof(msg), "too many sign-ins: try again in %ld second%s", s,
             s == 1 ? "" : "s");
    return dash_error(x, 429, msg);
}

/* The sign-in page over HTTPS at the address rq reached, into out; "" when brock serves no
 * HTTPS (it does while it sees inside HTTPS: conn_start_pages_tls()). */
static void https_signin(const struct dash_env *env, const struct dash_request *rq, char *out,
                         size_t size)
{
    const char *colon = strrchr(env->listen_name, ':');

    out[0] = '\0';
    if (env->host.intercept && rq->local_host && colon)
        snprintf(out, size, "https://%s%s/signin.html", rq->local_host, colon);
}

int dash_api_signin(struct dash_call *x)
{
    struct dash_owner *d = x->env->owner;
    const char *addr = x->rq->client ? x->rq->client : "";
    const struct owner *o = owner_now(d);
    int64_t now = clock_now_ms(), wait = wait_ms(d, addr, now);
    char session[OWNER_SESSION_MAX + 1];
    json_t *body = NULL;
    const char *pw = NULL;
    size_t len = 0;
    int ok;

    char https[128], msg[256];

    if (!o->set)
        return dash_error(x, 409,
                          "brock's owner has no password yet: set one with brock passwd on the "
                          "machine brock runs on");
    /* Where the password could go encrypted, it never goes in the clear over the network. */
    https_signin(x->env, x->rq, https, sizeof(https));
    if (!x->rq->tls && !x->rq->client_local && https[0]) {
        snprintf(msg, sizeof(msg), "sign in over HTTPS, at %s", https);
        return dash_error(x, 403, msg);
    }
    if (wait > 0)
        return signin_refused(x, wait);
    if (body_password(x, &body, &pw, &len) < 0 || !body)
        return body ? -1 : 0;
    ok = owner_check(o, pw, len);
    json_decref(body);
    /* The waits run from the answer, however long the check took. */
    now = clock_now_ms();
    d->gap_next_ms = now + DASH_SIGNIN_GAP_MS;
    if (ok < 0)
        return dash_error(x, 500, "brock could not check the password (out of memory)");
    if (!ok) {
        unsigned n = note_failure(d, addr, now);

        log_msg(LOG_INFO, "%s: a wrong password for the dashboard (%u in a row)", addr, n);
        return dash_error(x, 401, "wrong password");
    }
    memset(try_find(d, addr, 1), 0, sizeof(struct signin_try));
    if (owner_session_make(o, addr, now / 1000, session, sizeof(session)) < 0 ||
        set_cookie(x, session, OWNER_SESSION_SECONDS) < 0)
        return dash_error(x, 500, "brock could not make a session");
    OPENSSL_cleanse(session, sizeof(session));
    log_msg(LOG_INFO, "%s: brock's owner signed in to the dashboard", addr);
    x->json = json_pack("{s:b}", "owner", 1);
    return x->json ? 0 : -1;
}

int dash_api_password_put(struct dash_call *x)
{
    struct dash_owner *d = x->env->owner;
    const char *pw = NULL;
    json_t *body = NULL;
    char err[4400];
    size_t len = 0;
    int rc;

    /* From the machine alone: a session from the network cannot lock its owner out. */
    if (!x->rq->client_local)
        return dash_error(x, 403,
                          "the password is set from the machine brock runs on (its dashboard, "
                          "or brock passwd)");
    if (!d->path[0])
        return dash_error(x, 409, "this brock has no state folder to keep a password in");
    if (body_password(x, &body, &pw, &len) < 0 || !body)
        return body ? -1 : 0;
    if (owner_password_ok(pw, len, err, sizeof(err)) < 0)
        rc = dash_error(x, 400, err);
    else if (owner_set_password(d->path, pw, len, err, sizeof(err)) < 0)
        rc = dash_error(x, 500, err);
    else
        rc = 1;
    json_decref(body);
    if (rc != 1)
        return rc;
    log_msg(LOG_INFO, "%s: the dashboard's password was set; every session is ended",
            x->rq->client ? x->rq->client : "this machine");
    x->json = json_pack("{s:b}", "password", 1);
    return x->json ? 0 : -1;
}

int dash_api_signout(struct dash_call *x)
{
    if (set_cookie(x, "", 0) < 0)
        return -1;
    x->json = json_pack("{s:b}", "owner", x->rq->client_local);
    return x->json ? 0 : -1;
}

int dash_api_session(struct dash_call *x)
{
    const struct owner *o = owner_now(x->env->owner);

    char https[128];

    https_signin(x->env, x->rq, https, sizeof(https));
    x->json = json_pack(
        "{s:b, s:b, s:b, s:s, s:s, s:b, s:s}", "owner", dash_owner_is(x->env, x->rq), "local",
        x->rq->client_local, "password", o->set, "address", x->rq->client ? x->rq->client : "",
        "name", x->rq->client_name ? x->rq->client_name : "", "tls", x->rq->tls, "https", https);
    return x->json ? 0 : -1;
}
