/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * SOCKS5 clients (--socks): the greeting and the request (socks.h), then what the client
 * speaks, from its first bytes (peek.h). A request is decided as a CONNECT to the same host
 * and port would be: when brock does not see inside it, a blocked host gets reply 2 and
 * nothing more. The client is answered before it speaks, so that its first bytes say what it
 * speaks: TLS is intercepted as a CONNECT's, plain HTTP is read request by request for where
 * it asked (DNT and GPC, blocking, learning, as any request through brock), and anything
 * else, or TLS brock passes unseen, is tunnelled to where it asked, as it came. And the port
 * they come to.
 */
#include "proxy/conn.h"

#include <stdio.h>
#include <string.h>

#include <event2/buffer.h>
#include <event2/listener.h>

#include "http/head.h"
#include "process/access.h"
#include "proxy/admit.h"
#include "proxy/limits.h"
#include "proxy/workers.h"
#include "proxy/conn_internal.h"
#include "proxy/peek.h"
#include "proxy/socks.h"
#include "util/alloc.h"
#include "util/log.h"

/* The most of a client's first bytes read before what they are is known. */
#define PEEK_BYTES_MAX (PEEK_HELLO_MAX + 64 * 5)

/* Each loop serves one connection at a time: one gathering space does for all. */
static uint8_t hello_scratch[PEEK_HELLO_MAX];

/* Sends the reply rep; a reply that is not success ends the connection once written. */
static void socks_answer(struct conn *c, uint8_t rep, const char *why)
{
    uint8_t out[SOCKS_REPLY_LEN];

    if (pump_write(&c->c_client, out, socks_reply(out, rep)) < 0) {
        conn_out_of_memory(c, "answering a SOCKS request");
        return;
    }
    if (rep != SOCKS_REP_OK)
        conn_flush_close(c, why);
}

/* The bytes the client sent so far, contiguous: at most max of them, *len how many. */
static const uint8_t *client_bytes(struct conn *c, size_t max, size_t *len)
{
    struct evbuffer *in = bufferevent_get_input(c->c_client.bev);

    *len = evbuffer_get_length(in);
    if (*len > max)
        *len = max;
    return *len ? evbuffer_pullup(in, (ev_ssize_t)*len) : NULL;
}

static void client_drain(struct conn *c, size_t n)
{
    evbuffer_drain(bufferevent_get_input(c->c_client.bev), n);
}

int conn_tunnel_exchange(struct conn *c, const char *host, int port, int *bad)
{
    struct exchange *x = &c->c_ex;

    *bad = 0;
    if (conn_exchange_reset(c) < 0) {
        conn_out_of_memory(c, "starting a tunnel");
        return -1;
    }
    if (brock_host_normalize(host, strlen(host), x->names->host) < 0) {
        *bad = 1;
        return -1;
    }
    snprintf(x->method, sizeof(x->method), "CONNECT");
    x->is_connect = 1;
    x->port = port;
    http_authority(x->names->host, x->port, 0, x->names->authority, sizeof(x->names->authority));
    mem_free(c->tunnel_host);
    if (!(c->tunnel_host = mem_strdup(x->names->host))) {
        conn_out_of_memory(c, "starting a tunnel");
        return -1;
    }
    c->tunnel_port = port;
    return 0;
}

/* The exchange a SOCKS request stands for: a CONNECT to host and port. Returns 0, or -1 (the
 * connection then ended). */
static int socks_exchange(struct conn *c, const struct socks_request *r)
{
    int bad;

    if (conn_tunnel_exchange(c, r->host, r->port, &bad) == 0)
        return 0;
    if (bad) {
        conn_log_failure(c, LOG_INFO, 0, "the SOCKS request names no host");
        socks_answer(c, SOCKS_REP_FAILURE, NULL);
    }
    return -1;
}

/* The request read: refused, or decided and answered. */
static void socks_start(struct conn *c, const struct socks_request *r)
{
    struct exchange *x = &c->c_ex;

    if (r->cmd != SOCKS_CMD_CONNECT) {
        conn_log_failure(c, LOG_INFO, 0,
                         r->cmd == SOCKS_CMD_BIND  ? "SOCKS BIND is not served"
                         : r->cmd == SOCKS_CMD_UDP ? "SOCKS UDP ASSOCIATE is not served"
                                                   : "the SOCKS command is none SOCKS5 has");
        socks_answer(c, SOCKS_REP_COMMAND, NULL);
        return;
    }
    if (socks_exchange(c, r) < 0)
        return;
    /* What brock will see inside is decided request by request: what it intercepts, and
     * plain HTTP, which port 80 carries (so that a tracker's own site loads, as through the
     * HTTP proxy). The rest is decided as a tunnel now, and a blocked one refused plainly. */
    if (!conn_may_intercept(c) && r->port != 80) {
        if (conn_decide(c, NULL, 0) < 0) {
            conn_out_of_memory(c, "deciding a SOCKS request");
            return;
        }
        if (x->d->effect == BROCK_DENY) {
            conn_status(c, 403, LIVELOG_ANSWER_BROCK);
            socks_answer(c, SOCKS_REP_NOT_ALLOWED, "blocked");
            return;
        }
    }
    socks_answer(c, SOCKS_REP_OK, NULL);
    if (c->c_state != CONN_CLOSED)
        conn_set_state(c, CONN_PEEK);
}

void conn_do_socks(struct conn *c)
{
    struct socks_request r;
    const char *why = NULL;
    uint8_t method = SOCKS_METHOD_REFUSED, rep = SOCKS_REP_FAILURE;
    size_t len;
    const uint8_t *p;
    int n;

    if (!c->socks_greeted) {
        p = client_bytes(c, SOCKS_GREETING_MAX, &len);
        n = socks_greeting(p, len, &method, &why);
        if (n == SOCKS_INCOMPLETE) {
            if (c->c_client.eof)
                conn_close(c, "the SOCKS client left before its greeting");
            return;
        }
        if (n == SOCKS_MALFORMED) {
            conn_close(c, why);
            return;
        }
        client_drain(c, (size_t)n);
        c->socks_greeted = 1;
        if (pump_write(&c->c_client, (const uint8_t[]){5, method}, 2) < 0) {
            conn_out_of_memory(c, "answering a SOCKS greeting");
            return;
        }
        if (method == SOCKS_METHOD_REFUSED) {
            conn_flush_close(c, "the SOCKS client offers no method brock takes (none needed)");
            return;
        }
    }
    p = client_bytes(c, SOCKS_REQUEST_MAX, &len);
    n = socks_request(p, len, &r, &rep, &why);
    if (n == SOCKS_INCOMPLETE) {
        if (c->c_client.eof)
            conn_close(c, "the SOCKS client left before its request");
        return;
    }
    if (n == SOCKS_MALFORMED) {
        conn_log_failure(c, LOG_INFO, 0, why);
        socks_answer(c, rep, NULL);
        return;
    }
    client_drain(c, (size_t)n);
    socks_start(c, &r);
}

void conn_socks_pass(struct conn *c)
{
    struct exchange *x = &c->c_ex;

    /* A redirected connection brock cannot name is passed undecided: it was never for brock
     * to judge (conn_transparent.c). */
    if (!x->decided && !c->unnamed) {
        if (conn_decide(c, NULL, 0) < 0) {
            conn_out_of_memory(c, "deciding a SOCKS tunnel");
            return;
        }
        /* Answered already: a blocked host's tunnel ends here. */
        if (x->d->effect == BROCK_DENY) {
            conn_status(c, 403, LIVELOG_ANSWER_BROCK);
            conn_close(c, "blocked");
            return;
        }
    }
    c->px->n_tunnels++;
    conn_set_state(c, CONN_CONNECT);
    upstream_start(c);
}

void conn_do_peek(struct conn *c)
{
    char name[256];
    const char *why = "";
    size_t len;
    const uint8_t *p = client_bytes(c, PEEK_BYTES_MAX, &len);
    enum peek_kind k = peek_classify(p, len, hello_scratch, name, &why);

    if (k == PEEK_MORE && len < PEEK_BYTES_MAX && !c->c_client.eof)
        return;
    if (c->way == CONN_WAY_TRANSPARENT) {
        conn_transparent_peeked(c, (int)k, name, why);
        return;
    }
    if (k == PEEK_HTTP) {
        /* A tunnel brock decided on: its line in the log says so before its requests'. */
        if (c->c_ex.decided)
            conn_status(c, 200, LIVELOG_ANSWER_TUNNEL);
        c->tunnel_plain = 1;
        conn_set_state(c, CONN_IDLE);
        return;
    }
    if (k == PEEK_TLS && conn_may_intercept(c)) {
        conn_socks_intercept(c, *name ? name : c->tunnel_host);
        return;
    }
    log_msg(LOG_DEBUG, "%s: the SOCKS tunnel to %s is passed through: %s", c->c_peer, c->c_ex.host,
            k == PEEK_TLS ? "TLS brock does not see inside" : why);
    conn_socks_pass(c);
}

/* ---- the SOCKS port ---- */

struct conn *conn_accept_way(struct proxy *px, evutil_socket_t fd, const struct sockaddr *sa,
                             char *who, size_t size, enum conn_way way)
{
    struct conn *c;

    admit_address(sa, who, size);
    if (!admit_room(px, who)) {
        evutil_closesocket(fd);
        return NULL;
    }
    if (!(c = conn_new(px, fd, sa))) {
        log_msg(LOG_ERR, "out of memory for a new connection; closed it");
        return NULL;
    }
    c->way = way;
    return c;
}

/* A SOCKS5 client: admitted as any, then its greeting read (conn_socks.c). A client brock
 * does not serve is closed without a word: an HTTP refusal means nothing to it. */
void conn_on_socks_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                          int len, void *arg)
{
    struct proxy *px = arg;
    char who[80];
    struct conn *c;

    (void)l;
    (void)len;
    access_name(sa, who, sizeof(who));
    if (px->allow.n ? !access_allows(&px->allow, sa) : !access_is_loopback(sa)) {
        px->metrics.forbidden++;
        log_msg(LOG_INFO, "refused SOCKS client %s: %s", who,
                px->allow.n ? "not in --allow" : "not a loopback address (see --allow)");
        evutil_closesocket(fd);
        return;
    }
    if ((c = conn_accept_way(px, fd, sa, who, sizeof(who), CONN_WAY_SOCKS)) != NULL)
        conn_set_state(c, CONN_SOCKS);
}
