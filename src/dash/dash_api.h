/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Inside the dashboard: its environment, and the JSON API's handlers as the door (dash.c)
 * calls them. Nothing outside src/dash/ includes this. */
#ifndef BROCK_DASH_API_H
#define BROCK_DASH_API_H

#include <jansson.h>

#include "dash/dash.h"
#include "dash/dash_lists.h"

#define DASH_TOKEN_BYTES 32

/* The largest CA certificate /ca.pem serves, as PEM. */
#define DASH_CA_PEM_MAX 8192

struct dash_env {
    struct dash_host host;    /* listen_name points at listen_name below */
    struct dash_lists *lists; /* what the live lists served, in this start */
    char listen_name[80];
    char token[DASH_TOKEN_BYTES * 2 + 1]; /* hex, random per start */
    const char *const *no_proxy;          /* --no-proxy globs (dash_env_set_no_proxy()) */
    size_t n_no_proxy;
    char ca_cert[4096];           /* host.ca_cert points here when set */
    char https_fix[4096 + 64];    /* host.https_fix points here when set */
    char ca_pem[DASH_CA_PEM_MAX]; /* the certificate as read at start (as root, before
                                     becoming another user); ca_pem_len 0: none */
    size_t ca_pem_len;
    struct dash_owner *owner; /* the owner's password and the sign-ins (dash_owner.c) */
};

/* What a handler is given and fills in. */
struct dash_call {
    const struct dash_env *env;
    struct brock_engine *e;
    const struct dash_request *rq;
    const char *arg;   /* the path segment after the route's prefix, decoded; "" if none */
    const char *query; /* after '?', not decoded; "" if none */
    int own_host;      /* the Host header names brock itself, not a name that merely
                          resolves to it (only ANY_HOST routes are called without) */
    int status;        /* 200 unless the handler says otherwise */
    json_t *json;      /* the answer (a new reference), or NULL with text below */
    struct buf text;   /* a non-JSON answer (exports), with its type and file name */
    const char *type;
    char filename[64];
    char validators[160]; /* ETag and Last-Modified header lines of a cacheable answer */
    int stream;           /* text is the start of a stream that the host goes on writing: no
                             Content-Length, and the connection ends with it */
    char headers[256];    /* more header lines for the answer (Set-Cookie, Retry-After) */
};

/* The handlers of the routes under /api/. Each returns 0, or -1 when out of memory; a refusal
 * is an answer (status and {"error": sentence}), not a failure. */
int dash_api_status(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_sites(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_site(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_trackers(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_tracker(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_tracker_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_stats(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_map(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_settings(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_settings_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_passthrough(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_passthrough_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_passthrough_delete(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_pause_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_pause_delete(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_disabled_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_disabled_delete(struct dash_call *x) __attribute__((warn_unused_result));

/* ---- dash_clean.c ---- */

/* PUT /api/clean-off/SITE: links are left as they are on SITE (brock_clean_site_set());
 * DELETE: cleaned there again. Both answer /api/settings. */
int dash_api_clean_off_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_clean_off_delete(struct dash_call *x) __attribute__((warn_unused_result));

/* PUT /api/uncloak-off/NAME: a CNAME chain is judged no further at NAME
 * (brock_cname_target_set()); DELETE: judged there again. Both answer /api/settings. */
int dash_api_uncloak_off_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_uncloak_off_delete(struct dash_call *x) __attribute__((warn_unused_result));

/* GET /api/params: the parameter names noted as link decoration (brock_link_params_json());
 * PUT /api/params/NAME {"keep": bool}: kept in links, or back to what was learned; DELETE:
 * forgotten (404 when it was not noted). The changes answer GET /api/params. */
int dash_api_params(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_param_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_param_delete(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_widget_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_widget_delete(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_export(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_list(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_import(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_reset(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_forget(struct dash_call *x) __attribute__((warn_unused_result));

/* The value of key in query (after '?', not decoded: the values brock reads are plain words)
 * into out, of size bytes. Returns 0, or -1 when key is absent or its value does not fit. */
int dash_query_get(const char *query, const char *key, char *out, size_t size);
/* Whether the query names key at all, with a value or not. */
int dash_query_has(const char *query, const char *key);

/* The query's key as a whole number from min to max into *out, left as it is when key is
 * absent. Returns 0, or -1 when key is there with anything else. */
int dash_query_number(const char *query, const char *key, long min, long max, long *out);

/* Whose page views and daily counts x answers with, into out: a client that is not the
 * owner, its own (the name the owner gave it, or its address); the owner, everyone's ("")
 * or, with ?client=NAME, that client's. Returns 0; 1 when x was answered with a refusal (a
 * malformed client, a client brock cannot name); -1 when out of memory. */
int dash_views(struct dash_call *x, char out[BROCK_CLIENT_MAX]) __attribute__((warn_unused_result));

/* A duration from the body's "for" (brock_duration_parse()'s words) into *ms: 1 when there
 * is one, 0 when the body is empty or has no "for" (*until_resume then says whether it asks
 * for no end), or the answer set to a 400 (-2), or -1 when out of memory. */
int dash_body_for(struct dash_call *x, int64_t *ms, int *until_resume)
    __attribute__((warn_unused_result));

/* dash_me.c: a client's own switches. GET /api/me: its own (brock_client_settings_json())
 * with everyone's pause; PUT and DELETE /api/me/pause, /api/me/disabled/SITE,
 * /api/me/widgets/SITE: brock paused, or off on SITE, or a widget let load on SITE, for that
 * client alone (with ?client=NAME, the owner's choice for one client). */
int dash_api_me(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_me_pause_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_me_pause_delete(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_me_disabled_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_me_disabled_delete(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_me_widget_put(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_me_widget_delete(struct dash_call *x) __attribute__((warn_unused_result));

/* dash_owner.c: brock's owner (owner.h) and the sign-ins. Wrong passwords an address may give
 * before it waits; then it waits 1 s, 2 s, 4 s, ... up to DASH_SIGNIN_WAIT_MAX seconds. */
#define DASH_SIGNIN_FREE 3
#define DASH_SIGNIN_WAIT_MAX 300
/* Between two checks of a password, from any addresses: each costs the loop scrypt's time. */
#define DASH_SIGNIN_GAP_MS 250
/* Addresses whose wrong passwords are remembered at once (past it, the quietest is
 * forgotten). */
#define DASH_SIGNIN_ADDRS 1024

/* Gives env its owner record, for the owner file of state_dir (NULL: none, so that no
 * password can be set). Returns 0, or -1 with a sentence in err. */
int dash_owner_new(struct dash_env *env, const char *state_dir, char *err, size_t errlen)
    __attribute__((warn_unused_result));
void dash_owner_free(struct dash_env *env);

/* Whether rq comes from brock's owner: a client of this machine (rq->client_local), or a
 * browser with a session for its address. */
int dash_owner_is(const struct dash_env *env, const struct dash_request *rq);

/* POST /api/signin {"password": "..."}: a session cookie, or 401, 409 (no password yet), 429
 * (too many tries: Retry-After says how long); POST /api/signout: the cookie cleared; GET
 * /api/session: {owner, local, password, address}, what the page shows. */
int dash_api_signin(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_signout(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_session(struct dash_call *x) __attribute__((warn_unused_result));

/* PUT /api/owner/password {"password": "..."}: sets the owner's password, from this machine
 * alone (403 from the network), ending every session; 400 for a password that cannot be
 * one. */
int dash_api_password_put(struct dash_call *x) __attribute__((warn_unused_result));

/* dash_metrics.c: GET /metrics, Prometheus' text format. */
int dash_api_metrics(struct dash_call *x) __attribute__((warn_unused_result));

/* dash_log.c: GET /api/log, the live request log as Server-Sent Events; GET /api/clients, the
 * clients of the requests it holds: [{address, name, requests, last}], in the order first
 * seen. */
int dash_api_log(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_clients(struct dash_call *x) __attribute__((warn_unused_result));

/* dash_setup.c: GET /proxy.pac and /wpad.dat, the proxy auto-config file; GET /ca.pem, the
 * local CA's certificate (404 when there is none). */
int dash_api_pac(struct dash_call *x) __attribute__((warn_unused_result));
int dash_api_ca_pem(struct dash_call *x) __attribute__((warn_unused_result));

/* Reads the CA's certificate (env->host.ca_cert) into env, for /ca.pem to serve when the
 * file cannot be read later; none is no error. */
void dash_setup_ca_read(struct dash_env *env);

/* The request's body as a JSON object into *out. Returns 0, with *out NULL when the answer is
 * set to a 400 instead, or -1 when out of memory. */
int dash_body_object(struct dash_call *x, json_t **out) __attribute__((warn_unused_result));

/* Sets x's answer to status with {"error": msg}. Returns 0, or -1 when out of memory. */
int dash_error(struct dash_call *x, int status, const char *msg)
    __attribute__((warn_unused_result));

#endif
