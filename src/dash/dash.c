/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dashboard's door: every request to brock's own address goes through the table of
 * routes below. Only brock's own names are answered (no DNS rebinding; the proxy auto-config
 * file excepted, for WPAD), only the owner (dash_owner.c) reaches what is not OPEN, a route
 * that changes state also needs the page's token and no foreign Origin, and every answer
 * carries headers that keep it out of other pages' frames and scripts. */
#include "dash/dash.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include <openssl/crypto.h>

#include "dash/dash_api.h"
#include "http/head.h"
#include "util/alloc.h"
#include "util/hex.h"

#define TOKEN_PLACEHOLDER "@BROCK_TOKEN@"

/* Sent with every answer: the page runs only its own script and style, loads nothing from
 * elsewhere, is never framed, and leaks no address in a Referer. */
#define SECURITY_HEADERS                                                                           \
    "Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; "           \
    "img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; "                    \
    "frame-ancestors 'none'\r\n"                                                                   \
    "X-Frame-Options: DENY\r\n"                                                                    \
    "Referrer-Policy: no-referrer\r\n"                                                             \
    "X-Content-Type-Options: nosniff\r\n"                                                          \
    "Cross-Origin-Resource-Policy: same-origin\r\n"

/* CHANGES_STATE: needs the page's token and no foreign Origin. ANY_HOST: answered whatever
 * the Host header names, for WPAD, which fetches by a name of the network ("wpad.lan"); under
 * a name not brock's own the handler says nothing that the client could not learn from
 * brock's own address (dash_call.own_host). BODY_FILE: the body is streamed to a temporary
 * file (dash_request.body_fd), never held in memory. OPEN: answered to every client --allow
 * admits; every other route is the owner's (dash_owner_is()), and answers anyone else 401.
 * SAME_ORIGIN: no foreign Origin, but no token (the sign-in page does not hold it). MINE:
 * answered to every client too, about that client alone unless it is the owner (its handler
 * asks dash_owner_is() or dash_views()); MINE with CHANGES_STATE, a change a client makes for
 * itself, needs no foreign Origin, and the token from the owner alone. */
enum { CHANGES_STATE = 1, ANY_HOST = 2, BODY_FILE = 4, OPEN = 8, SAME_ORIGIN = 16, MINE = 32 };

/* What a route's body may hold: nothing, a JSON change, an import. */
#define NO_BODY 0
#define JSON_BODY ((uint64_t)DASH_LIMIT_JSON)
#define IMPORT_BODY DASH_LIMIT_IMPORT

struct route {
    const char *method; /* GET also answers HEAD */
    const char *path;   /* exact; with a trailing '/', one segment follows (dash_call.arg) */
    unsigned flags;
    uint64_t body_max; /* the largest body it takes, in bytes; NO_BODY: none */
    int (*handler)(struct dash_call *x);
};

static const struct route routes[] = {
    {"GET", "/api/status", 0, NO_BODY, dash_api_status},
    {"GET", "/api/sites", MINE, NO_BODY, dash_api_sites},
    {"GET", "/api/sites/", MINE, NO_BODY, dash_api_site},
    {"GET", "/api/trackers", 0, NO_BODY, dash_api_trackers},
    {"GET", "/api/trackers/", 0, NO_BODY, dash_api_tracker},
    {"PUT", "/api/trackers/", CHANGES_STATE, JSON_BODY, dash_api_tracker_put},
    {"GET", "/api/stats", MINE, NO_BODY, dash_api_stats},
    {"GET", "/api/map", MINE, NO_BODY, dash_api_map},
    {"GET", "/api/settings", 0, NO_BODY, dash_api_settings},
    {"PUT", "/api/settings", CHANGES_STATE, JSON_BODY, dash_api_settings_put},
    {"GET", "/api/passthrough", 0, NO_BODY, dash_api_passthrough},
    {"PUT", "/api/passthrough/", CHANGES_STATE, JSON_BODY, dash_api_passthrough_put},
    {"DELETE", "/api/passthrough/", CHANGES_STATE, NO_BODY, dash_api_passthrough_delete},
    {"PUT", "/api/pause", CHANGES_STATE, JSON_BODY, dash_api_pause_put},
    {"DELETE", "/api/pause", CHANGES_STATE, NO_BODY, dash_api_pause_delete},
    {"PUT", "/api/disabled/", CHANGES_STATE, JSON_BODY, dash_api_disabled_put},
    {"DELETE", "/api/disabled/", CHANGES_STATE, NO_BODY, dash_api_disabled_delete},
    {"PUT", "/api/clean-off/", CHANGES_STATE, NO_BODY, dash_api_clean_off_put},
    {"DELETE", "/api/clean-off/", CHANGES_STATE, NO_BODY, dash_api_clean_off_delete},
    {"PUT", "/api/uncloak-off/", CHANGES_STATE, NO_BODY, dash_api_uncloak_off_put},
    {"DELETE", "/api/uncloak-off/", CHANGES_STATE, NO_BODY, dash_api_uncloak_off_delete},
    {"GET", "/api/params", 0, NO_BODY, dash_api_params},
    {"PUT", "/api/params/", CHANGES_STATE, JSON_BODY, dash_api_param_put},
    {"DELETE", "/api/params/", CHANGES_STATE, NO_BODY, dash_api_param_delete},
    {"PUT", "/api/widgets/", CHANGES_STATE, JSON_BODY, dash_api_widget_put},
    {"DELETE", "/api/widgets/", CHANGES_STATE, JSON_BODY, dash_api_widget_delete},
    {"GET", "/api/export", 0, NO_BODY, dash_api_export},
    {"GET", "/lists/", OPEN, NO_BODY, dash_api_list},
    {"POST", "/api/import", CHANGES_STATE | BODY_FILE, IMPORT_BODY, dash_api_import},
    {"POST", "/api/reset", CHANGES_STATE, NO_BODY, dash_api_reset},
    {"POST", "/api/forget", CHANGES_STATE, NO_BODY, dash_api_forget},
    {"GET", "/api/log", MINE, NO_BODY, dash_api_log},
    {"GET", "/api/clients", 0, NO_BODY, dash_api_clients},
    {"GET", "/api/me", MINE, NO_BODY, dash_api_me},
    {"PUT", "/api/me/pause", MINE | CHANGES_STATE, JSON_BODY, dash_api_me_pause_put},
    {"DELETE", "/api/me/pause", MINE | CHANGES_STATE, NO_BODY, dash_api_me_pause_delete},
    {"PUT", "/api/me/disabled/", MINE | CHANGES_STATE, JSON_BODY, dash_api_me_disabled_put},
    {"DELETE", "/api/me/disabled/", MINE | CHANGES_STATE, NO_BODY, dash_api_me_disabled_delete},
    {"PUT", "/api/me/widgets/", MINE | CHANGES_STATE, JSON_BODY, dash_api_me_widget_put},
    {"DELETE", "/api/me/widgets/", MINE | CHANGES_STATE, JSON_BODY, dash_api_me_widget_delete},
    {"GET", "/metrics", OPEN, NO_BODY, dash_api_metrics},
    {"GET", "/proxy.pac", ANY_HOST | OPEN, NO_BODY, dash_api_pac},
    {"GET", "/wpad.dat", ANY_HOST | OPEN, NO_BODY, dash_api_pac},
    {"GET", "/ca.pem", OPEN, NO_BODY, dash_api_ca_pem},
    {"POST", "/api/signin", OPEN | SAME_ORIGIN, JSON_BODY, dash_api_signin},
    {"POST", "/api/signout", OPEN | SAME_ORIGIN, NO_BODY, dash_api_signout},
    {"GET", "/api/session", OPEN, NO_BODY, dash_api_session},
    {"PUT", "/api/owner/password", CHANGES_STATE, JSON_BODY, dash_api_password_put},
};

/* web/'s files that every client may load: the sign-in page and what it needs, and the page
 * that says how to trust brock's CA. */
static const char *const open_files[] = {"/signin.html", "/signin.js", "/me.html",
                                         "/me.js",       "/app.css",   "/favicon.svg",
                                         "/favicon.ico", "/ca",        "/ca.html"};

#define SIGN_IN_FIRST "this is for brock's owner: sign in first (/signin.html)"
#define OWNER_ONLY                                                                                 \
    "only brock's owner changes this for everyone (/signin.html); a client's own switches are "    \
    "under /api/me/"

/* ---- the environment ---- */

/* Random per start: a page that did not come from brock in this start cannot know it. */
static int token_make(char *out)
{
    unsigned char raw[DASH_TOKEN_BYTES];
    size_t got = 0;

    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    OPENSSL_cleanse(raw, sizeof(raw));
    return 0;
}

struct dash_env *dash_env_new(const struct dash_host *h, char *err, size_t errlen)
{
    struct dash_env *env = NULL;
    int n;

    env = mem_calloc(1, sizeof(*env));
    if (!env) {
        snprintf(err, errlen, "out of memory for the dashboard");
        goto fail;
    }
    env->host = *h;
    env->lists = mem_calloc(1, sizeof(*env->lists));
    if (!env->lists) {
        snprintf(err, errlen, "out of memory for the dashboard");
        goto fail;
    }
    n = snprintf(env->listen_name, sizeof(env->listen_name), "%s", h->listen_name);
    if (n < 0 || (size_t)n >= sizeof(env->listen_name)) {
        snprintf(err, errlen, "the dashboard's address %s is too long", h->listen_name);
        goto fail;
    }
    env->host.listen_name = env->listen_name;
    if (h->https_fix) {
        snprintf(env->https_fix, sizeof(env->https_fix), "%s", h->https_fix);
        env->host.https_fix = env->https_fix;
    }
    if (h->ca_cert) {
        n = snprintf(env->ca_cert, sizeof(env->ca_cert), "%s", h->ca_cert);
        if (n < 0 || (size_t)n >= sizeof(env->ca_cert)) {
            snprintf(err, errlen, "the CA's path %s is too long", h->ca_cert);
            goto fail;
        }
        env->host.ca_cert = env->ca_cert;
        dash_setup_ca_read(env);
    }
    if (dash_owner_new(env, h->state_dir, err, errlen) < 0)
        goto fail;
    if (h->token && strlen(h->token) == sizeof(env->token) - 1) {
        memcpy(env->token, h->token, sizeof(env->token));
        env->host.token = NULL;
    } else if (token_make(env->token) < 0) {
        snprintf(err, errlen, "no random bytes for the dashboard's token: %s", strerror(errno));
        goto fail;
    }
    return env;
fail:
    dash_env_free(env);
    return NULL;
}

void dash_env_free(struct dash_env *env)
{
    if (!env)
        return;
    OPENSSL_cleanse(env->token, sizeof(env->token));
    dash_owner_free(env);
    mem_free(env->lists);
    mem_free(env);
}

/* ---- the request ---- */

static const char *header(const struct dash_request *rq, const char *name)
{
    const struct brock_header *h = http_header_find(rq->h, rq->n, name);

    return h ? h->value : NULL;
}

/* The port brock listens on, out of "ADDR:PORT" or "[V6]:PORT". */
static const char *listen_port(const struct dash_env *env)
{
    const char *colon = strrchr(env->listen_name, ':');

    return colon ? colon + 1 : "";
}

/* Whether host (a Host header, or an Origin's part after "http://") names brock itself: one
 * of the loopback names, the address it listens on, or the one this client reached it at
 * (on a wildcard listen), with its port (which may be left out only when it is 80). A name
 * that merely resolves to brock is not its own: that is what DNS rebinding looks like. */
static int is_own_host(const struct dash_env *env, const struct dash_request *rq, const char *host)
{
    static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
    const char *port = listen_port(env);
    size_t hl = strlen(host), pl = strlen(port);
    char addr[sizeof(env->listen_name)];
    const size_t nn = sizeof(names) / sizeof(names[0]);

    snprintf(addr, sizeof(addr), "%.*s", (int)(strlen(env->listen_name) - (pl ? pl + 1 : 0)),
             env->listen_name);
    for (size_t i = 0; i <= nn + 1; i++) {
        const char *name = i < nn ? names[i] : i == nn ? addr : rq->local_host;
        size_t nl;

        if (!name)
            continue;
        nl = strlen(name);
        if (hl < nl || strncasecmp(host, name, nl) != 0)
            continue;
        if (hl == nl && !strcmp(port, "80"))
            return 1;
        if (hl == nl + 1 + pl && host[nl] == ':' && !strcmp(host + nl + 1, port))
            return 1;
    }
    return 0;
}

/* A state change is refused when another origin's page sent it. */
static const char *foreign_origin(const struct dash_env *env, const struct dash_request *rq)
{
    const char *origin = header(rq, "origin");
    const char *site = header(rq, "sec-fetch-site");

    /* brock's own origin: http:// in the clear, https:// over TLS (its pages over HTTPS). */
    size_t scheme = !origin                                          ? 0
                    : !rq->tls && !strncasecmp(origin, "http://", 7) ? 7
                    : rq->tls && !strncasecmp(origin, "https://", 8) ? 8
                                                                     : 0;

    if (origin && (!scheme || !is_own_host(env, rq, origin + scheme)))
        return "a page of another origin may not change brock";
    if (site && strcasecmp(site, "same-origin") != 0 && strcasecmp(site, "none") != 0)
        return "a request from another site may not change brock";
    return NULL;
}

static int token_matches(const struct dash_env *env, const struct dash_request *rq)
{
    const char *t = header(rq, "x-brock-token");
    size_t len = strlen(env->token);

    return t && strlen(t) == len && CRYPTO_memcmp(t, env->token, len) == 0;
}

/* Percent-decodes one path segment into out (size bytes). Returns -1 for a bad escape, a NUL,
 * a '/' or a segment too long. */
static int segment_decode(const char *s, size_t len, char *out, size_t size)
{
    size_t o = 0;

    for (size_t i = 0; i < len; i++) {
        int c = (unsigned char)s[i];

        if (c == '/')
            return -1;
        if (c == '%') {
            int hi = i + 2 < len ? hex_digit(s[i + 1]) : -1;
            int lo = i + 2 < len ? hex_digit(s[i + 2]) : -1;

            if (hi < 0 || lo < 0)
                return -1;
            c = hi * 16 + lo;
            i += 2;
        }
        if (c == 0 || o + 1 >= size)
            return -1;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return 0;
}

/* ---- the answer ---- */

/* Text from json_dumps() goes back to jansson's allocator, which brock may have replaced. */
static void json_text_free(char *text)
{
    json_free_t free_fn = NULL;

    json_get_alloc_funcs(NULL, &free_fn);
    if (text && free_fn)
        free_fn(text);
}

static const char *file_type(const char *name)
{
    const char *dot = strrchr(name, '.');

    if (dot && !strcmp(dot, ".html"))
        return "text/html; charset=utf-8";
    if (dot && !strcmp(dot, ".css"))
        return "text/css; charset=utf-8";
    if (dot && !strcmp(dot, ".js"))
        return "text/javascript; charset=utf-8";
    if (dot && !strcmp(dot, ".svg"))
        return "image/svg+xml";
    if (dot && !strcmp(dot, ".png"))
        return "image/png";
    return "application/octet-stream";
}

static const struct dash_file *file_find(const char *name)
{
    for (size_t i = 0; i < dash_n_files; i++)
        if (!strcmp(dash_files[i].name, name))
            return &dash_files[i];
    return NULL;
}

/* A built-in file into body; index.html gets this start's token. */
static int file_body(const struct dash_env *env, const struct dash_file *f, struct buf *body)
{
    const char *at;

    if (strcmp(f->name, "index.html") != 0 ||
        !(at = memmem(f->data, f->len, TOKEN_PLACEHOLDER, strlen(TOKEN_PLACEHOLDER))))
        return buf_append(body, f->data, f->len);
    if (buf_append(body, f->data, (size_t)(at - (const char *)f->data)) < 0 ||
        buf_puts(body, env->token) < 0)
        return -1;
    at += strlen(TOKEN_PLACEHOLDER);
    return buf_append(body, at, f->len - (size_t)(at - (const char *)f->data));
}

/* Where an answer goes, and how: a HEAD gets the head alone, with the Content-Length a GET's
 * body has; without keep-alive the answer says it closes. */
struct answer {
    struct buf *out;
    int head;
    int keep_alive;
};

/* Writes the answer: status, and for any status but 304 the body of type, saved as filename
 * when not NULL or "". The answer is never stored by a cache unless validators (its header
 * lines: ETag, Last-Modified) say how to ask again; headers, when not NULL, are more lines.
 * Returns status, or -1 when out of memory. */
static int write_response(const struct answer *a, int status, const char *type,
                          const char *filename, const char *validators, const char *headers,
                          const struct buf *body)
{
    char disposition[128] = "", entity[160] = "";

    if (filename && *filename)
        snprintf(disposition, sizeof(disposition),
                 "Content-Disposition: attachment; filename=\"%s\"\r\n", filename);
    if (status != 304)
        snprintf(entity, sizeof(entity), "Content-Type: %s\r\nContent-Length: %zu\r\n", type,
                 body->len);
    if (buf_printf(
            a->out, "HTTP/1.1 %d %s\r\n%s" SECURITY_HEADERS "Cache-Control: %s\r\n%s%s%s%s\r\n",
            status, http_reason(status), entity,
            validators && *validators ? "no-cache" : "no-store", validators ? validators : "",
            headers ? headers : "", disposition, a->keep_alive ? "" : "Connection: close\r\n") < 0)
        return -1;
    if (status != 304 && !a->head && body->len && buf_append(a->out, body->data, body->len) < 0)
        return -1;
    return status;
}

/* The head of a stream (the live log) and its first bytes: no length, as it ends only when
 * the connection does, which it says; nothing between may buffer it. Returns 200, or -1. */
static int write_stream_head(const struct answer *a, const char *type, const struct buf *start)
{
    if (buf_printf(a->out,
                   "HTTP/1.1 200 OK\r\nContent-Type: %s\r\n" SECURITY_HEADERS
                   "Cache-Control: no-store\r\nX-Accel-Buffering: no\r\n"
                   "Connection: close\r\n\r\n",
                   type) < 0)
        return -1;
    if (!a->head && start->len && buf_append(a->out, start->data, start->len) < 0)
        return -1;
    return 200;
}

/* A refusal before any route ran, as the API's JSON. Returns status, or -1. */
static int refuse(const struct answer *a, int status, const char *msg)
{
    json_t *j = json_pack("{s:s}", "error", msg);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    struct buf body;
    int rc = -1;

    buf_init(&body, DASH_LIMIT_RESPONSE);
    if (text && buf_puts(&body, text) == 0 && buf_puts(&body, "\n") == 0)
        rc = write_response(a, status, "application/json; charset=utf-8", NULL, NULL, NULL, &body);
    buf_cleanup(&body);
    json_text_free(text);
    json_decref(j);
    return rc;
}

/* Runs a route's handler and writes what it answered. Returns the status, or -1. */
static int run_route(const struct dash_env *env, const struct dash_request *rq,
                     const struct route *r, const char *arg, const char *query,
                     const struct answer *a, int own)
{
    struct dash_call x = {.env = env,
                          .e = env->host.engine,
                          .rq = rq,
                          .arg = arg,
                          .query = query,
                          .own_host = own,
                          .status = 200,
                          .type = "application/json; charset=utf-8"};
    char *text = NULL;
    int rc = -1;

    buf_init(&x.text, DASH_LIMIT_RESPONSE);
    if (r->handler(&x) < 0)
        goto out;
    if (x.json) {
        buf_reset(&x.text);
        text = json_dumps(x.json, JSON_COMPACT | JSON_ENSURE_ASCII);
        if (!text || buf_puts(&x.text, text) < 0 || buf_puts(&x.text, "\n") < 0)
            goto out;
        x.type = "application/json; charset=utf-8";
    }
    if (x.stream && x.status == 200)
        rc = write_stream_head(a, x.type, &x.text);
    else
        rc = write_response(a, x.status, x.type, x.filename, x.validators, x.headers, &x.text);
out:
    json_text_free(text);
    json_decref(x.json);
    buf_cleanup(&x.text);
    return rc;
}

/* A GET of one of web/'s files, or 404. */
static int serve_file(const struct dash_env *env, const struct dash_request *rq, size_t path_len,
                      const struct answer *a, int owner)
{
    const struct dash_file *f = NULL;
    char name[128];
    struct buf body;
    int rc;

    /* The dashboard is the owner's; any other client gets a page of its own. */
    if (path_len == 1)
        f = file_find(owner ? "index.html" : "me.html");
    else if (path_len == 3 && !strncmp(rq->target, "/ca", 3))
        f = file_find("ca.html");
    else if (path_len == 12 && !strncmp(rq->target, "/favicon.ico", 12))
        f = file_find("favicon.svg"); /* what every browser asks for, whatever a page says */
    else if (segment_decode(rq->target + 1, path_len - 1, name, sizeof(name)) == 0)
        f = file_find(name);
    if (!f)
        return refuse(a, 404, "brock has no such page");
    buf_init(&body, DASH_LIMIT_RESPONSE);
    rc = file_body(env, f, &body) < 0
             ? -1
             : write_response(a, 200, file_type(f->name), NULL, NULL, NULL, &body);
    buf_cleanup(&body);
    return rc;
}

/* Whether path (path_len bytes) is r's: exactly, or with one segment after a trailing '/'. */
static int route_matches(const struct route *r, const char *path, size_t path_len)
{
    size_t pl = strlen(r->path);

    if (r->path[pl - 1] == '/')
        return path_len > pl && strncmp(path, r->path, pl) == 0;
    return path_len == pl && strncmp(path, r->path, pl) == 0;
}

/* With several processes serving (brock run --workers), the page's next request may reach
 * another one: an answer first picks up what the others wrote. A change is written to the
 * state before it is answered, however many processes serve: the page then reads its own
 * writes anywhere, and a command run right after it (brock pause, brock set) starts from it
 * rather than racing the once-a-second sync, where the settings written whole would have
 * set one of the two changes aside. */
static int shared_sync(const struct dash_env *env)
{
    return env->host.workers > 1 ? brock_sync(env->host.engine) : 0;
}

static int run_shared_route(const struct dash_env *env, const struct dash_request *rq,
                            const struct route *r, const char *arg, const char *query,
                            const struct answer *a, int own)
{
    int status;

    /* A state that cannot be read now: memory answers, and the loop's sync says why. */
    if (shared_sync(env) < 0 || !(r->flags & CHANGES_STATE))
        return run_route(env, rq, r, arg, query, a, own);
    status = run_route(env, rq, r, arg, query, a, own);
    if (brock_sync(env->host.engine) < 0) {
        /* The change stays in memory, for the loop's next sync to write. */
    }
    return status;
}

/* Whether the file at path (path_len bytes) is one every client may load. */
static int file_open(const char *path, size_t path_len)
{
    for (size_t i = 0; i < sizeof(open_files) / sizeof(open_files[0]); i++) {
        if (strlen(open_files[i]) == path_len && !strncmp(path, open_files[i], path_len))
            return 1;
    }
    return 0;
}

/* A page of the owner's asked for by another: the sign-in page instead. Returns 303, or -1. */
static int to_sign_in(const struct answer *a)
{
    struct buf body;
    int rc;

    buf_init(&body, DASH_LIMIT_RESPONSE);
    rc = buf_puts(&body, SIGN_IN_FIRST "\n") < 0
             ? -1
             : write_response(a, 303, "text/plain; charset=utf-8", NULL, NULL,
                              "Location: /signin.html\r\n", &body);
    buf_cleanup(&body);
    return rc;
}

/* Where the door lets a request through: its route (NULL: one of web/'s files), the decoded
 * path segment and the query the route is given, whether the Host names brock itself, and
 * whether the client is brock's owner. */
struct passage {
    const struct route *route;
    size_t path_len;
    int own;
    int owner;
    char query[2048];
    char arg[BROCK_HOST_MAX * 3];
};

/* The body rq's head declares (or a body read in pieces that passed the route's cap) against
 * what the route takes. Returns 0, or the status of the refusal written to a. */
static int body_check(const struct dash_request *rq, const struct route *r, const struct answer *a)
{
    uint64_t max = r ? r->body_max : NO_BODY;

    if (rq->body_too_big || (rq->body_declared && max == NO_BODY) ||
        (rq->body_declared != DASH_BODY_UNKNOWN && rq->body_declared > max))
        return refuse(a, 413,
                      max == NO_BODY ? "this request takes no body"
                                     : "the request body is larger than this "
                                       "request takes");
    return 0;
}

/* The door: rq's route and every check the head allows, in this order: the Host (403), the
 * route (404), the method (405), the owner (401, or for a page 303 to the sign-in page), for
 * a change its Origin and token (403), the body's size (413). Nothing here needs the body. Returns 0 with p filled in, the status of a refusal
 * written to a, or -1 when out of memory. */
/* Who may take route r: the owner, or anyone for OPEN and MINE; a change with no foreign
 * Origin, and the token, but for a client's change of its own, which holds none (its page
 * has none: the Origin check is its guard). Returns 0, or the status of the refusal written
 * to a. */
static int route_guard(const struct dash_env *env, const struct dash_request *rq,
                       const struct route *r, int owner, const struct answer *a)
{
    const char *why;

    /* A change of the owner's is forbidden to a client (whatever it may sign in as later);
     * the rest asks it to sign in. */
    if (!(r->flags & (OPEN | MINE)) && !owner)
        return (r->flags & CHANGES_STATE) ? refuse(a, 403, OWNER_ONLY)
                                          : refuse(a, 401, SIGN_IN_FIRST);
    if ((r->flags & (CHANGES_STATE | SAME_ORIGIN)) && (why = foreign_origin(env, rq)))
        return refuse(a, 403, why);
    if ((r->flags & CHANGES_STATE) && (owner || !(r->flags & MINE)) && !token_matches(env, rq))
        return refuse(a, 403, "a change needs the dashboard's token (the X-Brock-Token header)");
    return 0;
}

static int door(const struct dash_env *env, const struct dash_request *rq, const struct answer *a,
                struct passage *p)
{
    const char *host = header(rq, "host");
    const char *method = a->head ? "GET" : rq->method;
    const char *q = memchr(rq->target, '?', rq->target_len);
    const struct route *allowed = NULL;
    int rc;

    p->route = NULL;
    p->path_len = q ? (size_t)(q - rq->target) : rq->target_len;
    p->own = host && is_own_host(env, rq, host);
    p->owner = dash_owner_is(env, rq);
    p->arg[0] = '\0';
    snprintf(p->query, sizeof(p->query), "%.*s", q ? (int)(rq->target_len - p->path_len - 1) : 0,
             q ? q + 1 : "");
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        const struct route *r = &routes[i];
        size_t pl = strlen(r->path);
        int segment = r->path[pl - 1] == '/';

        if (!route_matches(r, rq->target, p->path_len))
            continue;
        if (!p->own && !(r->flags & ANY_HOST))
            break;
        if (segment &&
            segment_decode(rq->target + pl, p->path_len - pl, p->arg, sizeof(p->arg)) < 0)
            return refuse(a, 400, "the name in the path is malformed or too long");
        if (strcmp(r->method, method) != 0) {
            allowed = r;
            continue;
        }
        if ((rc = route_guard(env, rq, r, p->owner, a)) != 0)
            return rc;
        if (!segment)
            p->arg[0] = '\0';
        p->route = r;
        return (rc = body_check(rq, r, a)) != 0 ? rc : 0;
    }
    if (!p->own)
        return refuse(a, 403,
                      "brock's dashboard answers only to its own address (127.0.0.1, "
                      "localhost, [::1] or the address brock listens at, with its port)");
    if (allowed)
        return refuse(a, 405, "this method is not allowed here");
    if (strcmp(method, "GET") != 0 || rq->target[0] != '/')
        return refuse(a, 404, "brock has no such page");
    if (!p->owner && p->path_len > 1 && !file_open(rq->target, p->path_len))
        return to_sign_in(a);
    return (rc = body_check(rq, NULL, a)) != 0 ? rc : 0;
}

int dash_admit(const struct dash_env *env, const struct dash_request *rq, struct dash_body *body,
               struct buf *out)
{
    const struct answer a = {out, !strcmp(rq->method, "HEAD"), rq->keep_alive};
    struct passage p;
    int rc = door(env, rq, &a, &p);

    body->max = p.route && rc == 0 ? p.route->body_max : NO_BODY;
    body->to_file = p.route && rc == 0 && (p.route->flags & BODY_FILE);
    return rc;
}

int dash_respond(const struct dash_env *env, const struct dash_request *rq, struct buf *out)
{
    const struct answer a = {out, !strcmp(rq->method, "HEAD"), rq->keep_alive};
    struct passage p;
    int rc = door(env, rq, &a, &p);

    if (rc != 0)
        return rc;
    if (!p.route)
        return serve_file(env, rq, p.path_len, &a, p.owner);
    return run_shared_route(env, rq, p.route, p.arg, p.query, &a, p.own);
}
