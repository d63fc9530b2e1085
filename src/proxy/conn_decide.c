/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the engine makes of an exchange: the request's first party and the decision for its
 * host, and the learning from a third-party request and its response. */
#include "proxy/conn.h"

#include <string.h>

#include "monitor/metrics.h"
#include "proxy/conn_internal.h"
#include "proxy/firstparty_share.h"
#include "proxy/limits.h"
#include "proxy/proxy.h"
#include "proxy/report.h"
#include "proxy/workers.h"
#include "util/alloc.h"
#include "util/hash.h"

const char *conn_header(const struct http_head *hh, const char *name)
{
    const struct brock_header *h = http_header_find(hh->h, hh->n, name);

    /* Values are NUL-terminated in the head's buffer. */
    return h ? h->value : NULL;
}

/* The exchange as learning takes it (brock_exchange_*), r its request as decided. */
static void conn_exchange(struct conn *c, struct brock_request *r, struct brock_exchange *ex)
{
    const struct exchange *x = &c->c_ex;

    memset(r, 0, sizeof(*r));
    r->url = c->c_url.len ? c->c_url.data : NULL;
    r->host = x->host;
    r->site = x->site_known ? x->site : NULL;
    r->type = x->type;
    memset(ex, 0, sizeof(*ex));
    ex->request = r;
    ex->decision = x->d;
    ex->page_known = x->site_sure;
    ex->sc = c->px->sc;
    ex->client = c->c_peer;
    ex->time_ms = conn_now_ms(c);
}

void conn_learn(struct conn *c, const struct http_head *hh, int request)
{
    const struct exchange *x = &c->c_ex;
    struct brock_engine *e = c->px->engine;
    struct brock_learned learned;
    struct brock_request r;
    struct brock_exchange ex;
    int err;

    conn_exchange(c, &r, &ex);
    err = request ? brock_exchange_request(e, &ex, x->learn, hh->h, hh->n, &learned)
                  : brock_exchange_response(e, &ex, x->learn, hh->h, hh->n, &learned);
    if (err < 0) {
        log_msg(LOG_ERR, "learning from %s on %s failed: %s", x->host, x->site,
                brock_engine_errmsg(e));
        return;
    }
    if (learned.recorded)
        c->px->metrics.evidence++;
    if (learned.blocked) {
        c->px->n_learned++;
        log_msg(LOG_INFO, "learned: %s tracks across sites (seen on %s); blocked from now on",
                learned.tracker, x->site);
    } else if (learned.recorded) {
        log_msg(LOG_DEBUG, "learned: %s tracks on %s", learned.tracker, x->site);
    }
}

/* The URL the engine is given: scheme, authority and the request's path; for a CONNECT, the
 * authority alone (its host is all a tunnel says). "" when it does not fit. */
static const char *conn_url(struct conn *c, const char *path, size_t path_len)
{
    const struct exchange *x = &c->c_ex;

    buf_reset(&c->c_url);
    if (x->is_connect || !path)
        return x->authority;
    if ((x->is_https ? buf_append(&c->c_url, "https://", 8) : buf_append(&c->c_url, "http://", 7)) <
            0 ||
        buf_puts(&c->c_url, x->authority) < 0 || buf_append(&c->c_url, path, path_len) < 0) {
        buf_reset(&c->c_url); /* no URL half made: conn_learn() reads it */
        return "";
    }
    return c->c_url.data;
}

enum metrics_decision conn_decision_kind(const struct brock_decision *d)
{
    if (d->effect == BROCK_DENY)
        return METRICS_DECISION_BLOCK;
    if (d->effect == BROCK_STRIP_COOKIES)
        return METRICS_DECISION_COOKIEBLOCK;
    if (d->reason == BROCK_WHY_FIRST_PARTY || d->reason == BROCK_WHY_PRIVATE)
        return METRICS_DECISION_FIRST_PARTY;
    if (d->reason == BROCK_WHY_DISABLED)
        return METRICS_DECISION_DISABLED;
    return METRICS_DECISION_ALLOW;
}

void conn_decision_free(struct exchange *x)
{
    mem_free(x->d);
    x->d = NULL;
}

static int is(const char *v, const char *want)
{
    return v && strcmp(v, want) == 0;
}

/* Whether two hosts are of one site (one base domain; a name without one, an address, is its
 * own): a page can read the DOM of a same-site frame only when they share an origin, but
 * brock cannot tell origins from the headers it sees, and a same-site frame is the page's
 * owner's anyway. */
static int same_site(const char *a, const char *b)
{
    char ba[BROCK_HOST_MAX], bb[BROCK_HOST_MAX];

    if (brock_base_domain(a, ba) < 0 || brock_base_domain(b, bb) < 0)
        return strcmp(a, b) == 0;
    return strcmp(ba, bb) == 0;
}

/* Whether the request is a navigation that brock gives a token for its script's reports
 * (report.h): inside HTTPS that brock intercepts, where browsers send fetch metadata and no
 * page script can set it; to a top-level page, or to a frame whose top-level page the record
 * knows for sure from the Referer of the frame's navigation (a frame that hides its
 * embedder's address is placed by a guess, which a token must not carry). Its flags
 * (REPORT_DOC_*), or 0. Anything over plain HTTP and a frame brock cannot place get the
 * script, but no token; a fetch() of a page (Sec-Fetch-Dest: empty) gets neither. */
static unsigned conn_navigation(const struct conn *c, const struct firstparty_request *r,
                                enum firstparty_result fr)
{
    const struct exchange *x = &c->c_ex;

    if (!c->intercepted || !x->is_https || !is(r->fetch_mode, "navigate"))
        return 0;
    if (is(r->fetch_dest, "document"))
        return REPORT_DOC_TOP;
    if ((!is(r->fetch_dest, "iframe") && !is(r->fetch_dest, "frame")) || fr != FIRSTPARTY_KNOWN ||
        !r->referer || !*r->referer)
        return 0;
    return REPORT_DOC_FRAME | (same_site(x->host, x->site) ? 0 : REPORT_DOC_CROSS);
}

/* Resets the exchange's decision for a new one; its storage is kept from one request to the
 * next. Returns it, or NULL when out of memory. */
static struct brock_decision *conn_decision_reset(struct exchange *x)
{
    if (!x->d && !(x->d = mem_malloc(sizeof(*x->d))))
        return NULL;
    memset(x->d, 0, sizeof(*x->d));
    x->site_known = x->site_sure = x->site_self = 0;
    x->navigation = 0;
    x->names->site[0] = '\0';
    x->cleaned = BROCK_CLEAN_NONE;
    x->names->removed[0] = '\0';
    x->decided = 1;
    return x->d;
}

/* The request's first party, from the client's record of its pages (firstparty.h), shared
 * with the other workers; and whether it is a navigation that gets a report token. */
static void conn_infer_first_party(struct conn *c)
{
    struct exchange *x = &c->c_ex;
    const struct http_head *hh = &c->c_client.head;
    struct proxy *px = c->px;
    struct firstparty_request r = {
        .host = x->host,
        .referer = conn_header(hh, "referer"),
        .origin = conn_header(hh, "origin"),
        .fetch_mode = conn_header(hh, "sec-fetch-mode"),
        .fetch_dest = conn_header(hh, "sec-fetch-dest"),
        .fetch_site = conn_header(hh, "sec-fetch-site"),
        .accept = conn_header(hh, "accept"),
        .upgrade_insecure = conn_header(hh, "upgrade-insecure-requests"),
    };
    enum firstparty_result fr;

    firstparty_share_apply(px->opts->worker, &px->firstparty, &px->firstparty_next);
    fr = firstparty_infer(&px->firstparty, c->c_peer, &r, x->names->site);
    firstparty_share_infer(px->opts->worker, c->c_peer, &r);

    x->site_known = fr != FIRSTPARTY_UNKNOWN;
    x->site_sure = fr == FIRSTPARTY_KNOWN;
    /* A guess with no Referer or Origin is the request's own host; a Referer's page that is
     * the same host was still named by the request. */
    x->site_self = fr == FIRSTPARTY_GUESS && !(r.referer && *r.referer) && !(r.origin && *r.origin);
    x->navigation = conn_navigation(c, &r, fr);
}

static enum brock_resource_type conn_guess_type(const struct conn *c)
{
    const struct exchange *x = &c->c_ex;
    const struct http_head *hh = &c->c_client.head;

    return x->is_connect ? BROCK_RESOURCE_OTHER : brock_request_type(x->method, hh->h, hh->n);
}

/* The widgets the user let load on this page (checkAction's first line): matched against the
 * request's host or its frame's, which its Referer names. allow and frame hold what req
 * points to. */
static void conn_widget_allowances(struct conn *c, struct brock_request *req,
                                   const char *allow[LIMIT_WIDGET_ALLOWS],
                                   char frame[BROCK_HOST_MAX])
{
    struct exchange *x = &c->c_ex;
    struct proxy *px = c->px;
    const char *ref;

    if (!x->site_known)
        return;
    req->n_widget_allow = widget_allows_get(&px->widgets, c->c_peer, x->site, conn_now_ms(c), allow,
                                            LIMIT_WIDGET_ALLOWS);
    req->widget_allow = allow;
    ref = conn_header(&c->c_client.head, "referer");
    if (ref && brock_url_host(ref, frame) >= 0)
        req->frame_host = frame;
}

/* The engine's decision for req into d; a request it cannot decide passes. */
static void conn_decide_request(struct conn *c, const struct brock_request *req,
                                struct brock_decision *d)
{
    if (brock_decide_request(c->px->engine, req, d) < 0)
        d->effect = BROCK_PASS;
}

/* What learning takes from the exchange, by the rules a recording is learned by: a guessed
 * page is decided on as it is, but is not evidence (PRIVACY-BADGER.md 1.5). */
static void conn_learn_flags(struct conn *c)
{
    struct brock_request learn_req;
    struct brock_exchange ex;

    conn_exchange(c, &learn_req, &ex);
    c->c_ex.learn = brock_exchange_flags(c->px->engine, &ex);
}

/* What the client's pages loaded as third parties, and when: a page's canvas report counts
 * only for a script loaded there since the page was given its token. The other workers hear
 * of a pair when it is new, and of a later load once a second at most (a token's time is in
 * seconds). */
static void conn_note_load(struct conn *c, const struct brock_decision *d)
{
    struct exchange *x = &c->c_ex;
    struct proxy *px = c->px;
    int64_t now, at;

    if (!x->site_known || !d->third_party)
        return;
    now = conn_now_ms(c);
    at = firstparty_seen_at(&px->firstparty, c->c_peer, x->site, x->host);
    firstparty_saw(&px->firstparty, c->c_peer, x->site, x->host, now);
    if (at < 0 || at / 1000 < now / 1000)
        firstparty_share_saw(px->opts->worker, c->c_peer, x->site, x->host, now);
}

/* The counts of blocked and cookieblocked requests, and of decisions by kind. */
static void conn_count_metrics(struct proxy *px, const struct brock_decision *d)
{
    if (d->effect == BROCK_DENY) {
        px->n_blocked++;
        metrics_blocked(&px->metrics, d->base);
    } else if (d->effect == BROCK_STRIP_COOKIES) {
        px->n_cookieblocked++;
    }
    px->metrics.decisions[conn_decision_kind(d)]++;
    px->metrics.uncloaked += (uint64_t)(d->via_dns != 0);
}

/* The daily counters: what brock did each day, and for how many sites. */
static void conn_count_daily(struct conn *c, const struct brock_decision *d)
{
    struct brock_engine *e = c->px->engine;
    char buf[64];

    if (brock_client_daily_count(e, conn_client_key(c, buf), d, conn_now_ms(c)) < 0)
        log_msg(LOG_ERR, "counting a request to %s failed: %s", c->c_ex.host,
                brock_engine_errmsg(e));
}

/* The dashboard's recent sites: what each page's third parties were given. */
static void conn_note_page_view(struct conn *c, const struct brock_decision *d)
{
    const struct exchange *x = &c->c_ex;
    struct brock_engine *e = c->px->engine;
    char buf[64];

    if (x->site_known && d->third_party && d->reason == BROCK_WHY_ACTION &&
        brock_client_page_seen(e, conn_client_key(c, buf), x->site, d->tracker, d->action,
                               conn_now_ms(c)) < 0)
        log_msg(LOG_ERR, "recording %s on %s failed: %s", d->tracker, x->site,
                brock_engine_errmsg(e));
}

/* A request blocked or cookieblocked, and why, at LOG_INFO. */
static void conn_log_decision(struct conn *c, const struct brock_decision *d)
{
    const struct exchange *x = &c->c_ex;
    char why[512];

    if (d->effect == BROCK_PASS || !log_enabled(LOG_INFO))
        return;
    brock_decision_explain(c->px->engine, d, why, sizeof(why));
    log_msg(LOG_INFO, "%s %s on %s: %s", brock_effect_name(d->effect), x->host,
            x->site_known ? x->site : "an unknown page", why);
}

/* Link decoration (brock_navigation_observe()): a top-level navigation from another site's
 * page, clicked (Sec-Fetch-User: ?1, so that no page's script can send one), whose query may
 * carry the leaving page's identifier, read against that site's cookies the client's requests
 * showed. Only where fetch metadata vouches for it: inside HTTPS that brock intercepts. */
static void conn_learn_navigation(struct conn *c)
{
    const struct exchange *x = &c->c_ex;
    const struct http_head *hh = &c->c_client.head;
    struct brock_engine *e = c->px->engine;
    const char *ref = conn_header(hh, "referer");
    char from[BROCK_HOST_MAX], base[BROCK_HOST_MAX], cookies[BROCK_SC_TEXT_MAX];
    struct brock_navigation n = {0};
    struct brock_link_decoration got;

    if (!(x->navigation & REPORT_DOC_TOP) || strcmp(x->method, "GET") != 0 || !c->c_url.len ||
        !strchr(c->c_url.data, '?') || !is(conn_header(hh, "sec-fetch-user"), "?1") ||
        !is(conn_header(hh, "sec-fetch-site"), "cross-site") || !ref ||
        brock_url_host(ref, from) < 0 || brock_base_domain(from, base) < 0 ||
        !brock_site_cookies_get(c->px->sc, c->c_peer, base, cookies, sizeof(cookies)))
        return;
    n.url = c->c_url.data;
    n.from = ref;
    n.cookies = cookies;
    n.user_agent = conn_header(hh, "user-agent");
    n.time_ms = conn_now_ms(c);
    if (brock_navigation_observe(e, &n, &got) < 0) {
        log_msg(LOG_ERR, "learning from a link to %s failed: %s", x->host, brock_engine_errmsg(e));
        return;
    }
    if (got.found)
        log_msg(LOG_INFO, "learned: a link from %s handed %s its cookie %s in parameter %s%s", base,
                got.tracker, got.cookie, got.param,
                got.param_learned ? "; that parameter is taken out of links from now on" : "");
    if (got.recorded)
        c->px->metrics.evidence++;
    if (got.blocked) {
        c->px->n_learned++;
        log_msg(LOG_INFO, "learned: %s tracks across sites; blocked from now on", got.tracker);
    }
}

int conn_decide(struct conn *c, const char *path, size_t path_len)
{
    struct exchange *x = &c->c_ex;
    struct brock_request req = {0};
    struct brock_decision *d;
    const char *allow[LIMIT_WIDGET_ALLOWS];
    char frame[BROCK_HOST_MAX], client[64];

    if (!(d = conn_decision_reset(x)))
        return -1;
    /* Without interception a tunnel says nothing of its page: decided as third party. */
    if (!x->is_connect)
        conn_infer_first_party(c);
    x->type = conn_guess_type(c);
    req.url = conn_url(c, path, path_len);
    req.host = x->host;
    req.site = x->site_known ? x->site : NULL;
    req.type = x->type;
    req.client = conn_client_key(c, client);
    if (!*req.url)
        req.url = NULL; /* too long to copy: decided on its host */
    conn_widget_allowances(c, &req, allow, frame);
    conn_decide_request(c, &req, d);
    conn_learn_flags(c);
    if (x->type == BROCK_RESOURCE_MAIN_FRAME)
        conn_learn_navigation(c);
    conn_note_load(c, d);
    conn_count_metrics(c->px, d);
    c->px->metrics.by_way[c->way]++;
    conn_count_daily(c, d);
    conn_note_page_view(c, d);
    conn_log_decision(c, d);
    return 0;
}

/* ---- URLs cleaned ---- */

/* What is done with a document's URL cleaned into clean, by what the client was sent to
 * lately (struct conn_cleaned): sent to clean the first time in CONN_CLEANED_MS; a URL that
 * comes back as it was sent from (a site that sends the client back) goes on cleaned the
 * second time, as it came the third; another URL cleaning to the same address (another link
 * to it) is sent there too, up to CONN_CLEANED_SENDS times, then goes on cleaned. */
static enum conn_clean_do conn_cleaned_how(struct conn *c, const char *clean, int same)
{
    struct conn_cleaned *m = &c->px->cleaned;
    int64_t now = conn_now_ms(c);
    uint64_t peer = hash_mix(0x6272636bULL, c->c_peer, strlen(c->c_peer));
    uint64_t key = hash_mix(peer, clean, strlen(clean));
    uint64_t from = hash_mix(peer, c->c_url.data, c->c_url.len);
    size_t oldest = 0;

    for (size_t i = 0; i < CONN_CLEANED_SLOTS; i++) {
        if (m->v[i].key == key && m->v[i].n && now - m->v[i].at_ms < CONN_CLEANED_MS) {
            m->v[i].at_ms = now;
            if (m->v[i].from != from && m->v[i].sends < CONN_CLEANED_SENDS) {
                m->v[i].from = from;
                m->v[i].sends++;
                m->v[i].n = 1;
                return CONN_CLEAN_REDIRECT;
            }
            return m->v[i].n++ == 1 && same ? CONN_CLEAN_FORWARD : CONN_CLEAN_KEEP;
        }
        if (m->v[i].at_ms < m->v[oldest].at_ms)
            oldest = i;
    }
    m->v[oldest].key = key;
    m->v[oldest].from = from;
    m->v[oldest].at_ms = now;
    m->v[oldest].n = 1;
    m->v[oldest].sends = 1;
    return CONN_CLEAN_REDIRECT;
}

/* Whether url can go in a Location header as it is: an http(s) URL of printable ASCII (a
 * wrapper's address is percent-decoded, and may hold anything). */
static int conn_url_sendable(const char *url)
{
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return 0;
    for (const unsigned char *p = (const unsigned char *)url; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f)
            return 0;
    return 1;
}

/* What is done with a cleaned URL (out, r as brock_request_clean() said): a document's GET,
 * and a wrapper opened for any GET, is sent to it (unless that would loop); a URL of the same
 * origin goes upstream cleaned; anything else as it came. */
static enum conn_clean_do conn_clean_how(struct conn *c, int r, const char *out, size_t prefix)
{
    const struct exchange *x = &c->c_ex;
    int get = !strcmp(x->method, "GET") || !strcmp(x->method, "HEAD");
    int doc = x->type == BROCK_RESOURCE_MAIN_FRAME || x->type == BROCK_RESOURCE_SUB_FRAME;
    int same = r == BROCK_CLEAN_STRIPPED && !strncmp(out, c->c_url.data, prefix) &&
               (out[prefix] == '/' || out[prefix] == '\0');

    if (get && (doc || !same) && conn_url_sendable(out))
        return conn_cleaned_how(c, out, same);
    return same ? CONN_CLEAN_FORWARD : CONN_CLEAN_KEEP;
}

/* A comma-separated list of names into out (size bytes): as many as fit, each whole. */
static void names_copy(char *out, size_t size, const char *names)
{
    size_t n = strnlen(names, size - 1);

    while (n && names[n] && names[n] != ',')
        n--;
    memcpy(out, names, n);
    out[n] = '\0';
}

/* A URL cleaned: counted (the day's, the client's, /api/status), and said at LOG_INFO. */
static void conn_count_cleaned(struct conn *c, const struct brock_clean *info)
{
    struct exchange *x = &c->c_ex;
    struct brock_engine *e = c->px->engine;
    char client[64];

    x->cleaned = (unsigned char)info->result;
    names_copy(x->names->removed, sizeof(x->names->removed), info->removed);
    c->px->n_cleaned++;
    if (brock_clean_count(e, conn_client_key(c, client), x->d->site, conn_now_ms(c)) < 0)
        log_msg(LOG_ERR, "counting a cleaned URL failed: %s", brock_engine_errmsg(e));
    if (info->result == BROCK_CLEAN_REDIRECT)
        log_msg(LOG_INFO, "unwrapped a link to %s (%s)", x->host, info->provider);
    else
        log_msg(LOG_INFO, "took %s out of a URL of %s (%s)", info->removed, x->host,
                info->provider);
}

enum conn_clean_do conn_clean(struct conn *c, const char **path, size_t *path_len, char *out,
                              size_t size)
{
    struct exchange *x = &c->c_ex;
    struct brock_request req = {0};
    struct brock_clean info;
    enum conn_clean_do how;
    char client[64], from[BROCK_HOST_MAX];
    const char *ref = conn_header(&c->c_client.head, "referer");
    size_t prefix;
    int r;

    /* A tunnel says nothing of its URL; an upgrade's is a socket's, not a page's. */
    if (x->is_connect || x->is_upgrade || !c->c_url.len || !*path || *path_len > c->c_url.len)
        return CONN_CLEAN_KEEP;
    req.url = c->c_url.data;
    /* A page's own address is its site, whatever could be told of where it was opened from. */
    req.site = x->site_known ? x->site : x->type == BROCK_RESOURCE_MAIN_FRAME ? x->host : NULL;
    req.client = conn_client_key(c, client);
    req.type = x->type;
    /* For a page's address: the page it was left from (learned names go from links alone). */
    if (x->type == BROCK_RESOURCE_MAIN_FRAME && ref && brock_url_host(ref, from) >= 0)
        req.frame_host = from;
    r = brock_request_clean(c->px->engine, &req, out, size, &info);
    if (r != BROCK_CLEAN_STRIPPED && r != BROCK_CLEAN_REDIRECT)
        return CONN_CLEAN_KEEP;
    /* "http://authority" (or https), the part that stays when only the path changes. */
    prefix = c->c_url.len - *path_len;
    how = conn_clean_how(c, r, out, prefix);
    /* A blocked request goes nowhere: only a wrapper's address is worth sending it to. */
    if (how == CONN_CLEAN_KEEP || (conn_effect(x) == BROCK_DENY && how != CONN_CLEAN_REDIRECT))
        return CONN_CLEAN_KEEP;
    conn_count_cleaned(c, &info);
    if (how == CONN_CLEAN_FORWARD) {
        *path = out[prefix] ? out + prefix : "/";
        *path_len = strlen(*path);
    }
    return how;
}
