/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What the engine makes of an exchange: the request's first party and the decision for its
 * host, and the learning from a third-party request and its response. */
#include "proxy/conn.h"

#include <string.h>

#include "proxy/conn_internal.h"

const char *conn_header(const struct http_head *hh, const char *name)
{
    const struct brock_header *h = http_header_find(hh->h, hh->n, name);

    /* Values are NUL-terminated in the head's buffer. */
    return h ? h->value : NULL;
}

void conn_observe(struct conn *c, const struct http_head *hh, unsigned flags)
{
    const struct exchange *x = &c->c_ex;
    struct brock_observation o = {
        .host = x->host,
        .site = x->site,
        .headers = hh->h,
        .n_headers = hh->n,
        .flags = flags,
        .time_ms = conn_now_ms(c),
    };
    struct brock_learned learned;

    memset(&learned, 0, sizeof(learned));
    if (brock_observe(c->px->engine, &o, &learned) < 0) {
        log_msg(LOG_ERR, "learning from %s on %s failed: %s", x->host, x->site,
                brock_engine_errmsg(c->px->engine));
        return;
    }
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
    if (buf_printf(&c->c_url, "%s://%s", x->is_https ? "https" : "http", x->authority) < 0 ||
        buf_append(&c->c_url, path, path_len) < 0)
        return "";
    return c->c_url.data;
}

void conn_decide(struct conn *c, const char *path, size_t path_len)
{
    struct exchange *x = &c->c_ex;
    const struct http_head *hh = &c->c_client.head;
    struct proxy *px = c->px;
    struct brock_request req;
    char why[512];

    x->site_known = x->site_sure = 0;
    x->site[0] = '\0';
    if (!x->is_connect) {
        struct fp_request r = {
            .host = x->host,
            .referer = conn_header(hh, "referer"),
            .origin = conn_header(hh, "origin"),
            .fetch_mode = conn_header(hh, "sec-fetch-mode"),
            .fetch_dest = conn_header(hh, "sec-fetch-dest"),
            .fetch_site = conn_header(hh, "sec-fetch-site"),
        };

        enum fp_result fr = fp_infer(&px->fp, c->c_peer, &r, x->site);

        x->site_known = fr != FP_UNKNOWN;
        x->site_sure = fr == FP_KNOWN;
    }
    x->type = x->is_connect ? BROCK_RESOURCE_OTHER
                            : brock_resource_type_guess(
                                  conn_header(hh, "sec-fetch-dest"), conn_header(hh, "accept"),
                                  conn_header(hh, "content-type"), conn_header(hh, "upgrade"),
                                  conn_header(hh, "ping-to"));
    /* Without interception a tunnel says nothing of its page: decided as third party. */
    req.url = conn_url(c, path, path_len);
    req.host = x->host;
    req.site = x->site_known ? x->site : NULL;
    req.type = x->type;
    if (!*req.url)
        req.url = NULL; /* too long to copy: decided on its host */
    if (brock_decide_request(px->engine, &req, &x->d) < 0)
        x->d.effect = BROCK_PASS;
    /* A guessed page is decided on as it is, but is not evidence (PRIVACY-BADGER.md 1.5). */
    x->observe = x->site_sure && x->d.third_party && x->d.reason == BROCK_WHY_ACTION &&
                 x->d.effect != BROCK_DENY;
    if (x->d.effect == BROCK_DENY)
        px->n_blocked++;
    else if (x->d.effect == BROCK_STRIP_COOKIES)
        px->n_cookieblocked++;
    /* The dashboard's recent sites: what each page's third parties were given. */
    if (x->site_known && x->d.third_party && x->d.reason == BROCK_WHY_ACTION &&
        brock_page_seen(px->engine, x->site, x->d.tracker, x->d.action, conn_now_ms(c)) < 0)
        log_msg(LOG_ERR, "recording %s on %s failed: %s", x->d.tracker, x->site,
                brock_engine_errmsg(px->engine));
    if (x->d.effect != BROCK_PASS && log_enabled(LOG_INFO)) {
        brock_decision_explain(px->engine, &x->d, why, sizeof(why));
        log_msg(LOG_INFO, "%s %s on %s: %s", brock_effect_name(x->d.effect), x->host,
                x->site_known ? x->site : "an unknown page", why);
    }
}
