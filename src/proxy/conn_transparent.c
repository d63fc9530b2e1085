/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Connections redirected to brock (--transparent): nftables' REDIRECT on this machine's own
 * programs or a router's LAN, or TPROXY. The client never chose brock: it connected to a
 * site, and brock learns where from the connection itself (net/origdst.h). Its first bytes
 * (peek.h) say the rest: plain HTTP names its host in each request's Host header, TLS in its
 * ClientHello. A named connection is served as a proxy's client's request for that name would
 * be (decided, intercepted or tunnelled, learnt from, logged), but always to where the client
 * was going, whatever brock's DNS says of the name. One without a name (TLS without one,
 * another protocol, a client that waits for its server to speak) is passed there untouched.
 */
#include "proxy/conn.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event2/listener.h>

#include "http/head.h"
#include "net/origdst.h"
#include "proxy/conn_internal.h"
#include "proxy/limits.h"
#include "proxy/peek.h"
#include "proxy/proxy.h"
#include "proxy/workers.h"
#include "util/alloc.h"
#include "util/log.h"

/* The address the client was going to, bare (no brackets), into out. */
static void orig_text(const struct conn *c, char *out, size_t size)
{
    access_host_text(&c->orig_dst->u.sa, out, size);
    if (out[0] == '[') {
        size_t n = strlen(out);

        memmove(out, out + 1, n);
        out[strcspn(out, "]")] = '\0';
    }
}

static int orig_port(const struct conn *c)
{
    return access_port(&c->orig_dst->u.sa);
}

void conn_transparent_host(const struct conn *c, char *host)
{
    const struct http_head *hh = &c->c_client.head;
    const struct brock_header *h = http_header_find(hh->h, hh->n, "Host");
    struct http_target t;
    char url[BROCK_HOST_MAX + 16], addr[INET6_ADDRSTRLEN + 8];
    int n;

    /* The Host header is an authority (RFC 9110 7.2): read as a CONNECT's target is. */
    if (h && h->value_len > 0 && h->value_len < sizeof(url)) {
        memcpy(url, h->value, h->value_len);
        url[h->value_len] = '\0';
        if (!strchr(url, ':'))
            snprintf(url + h->value_len, sizeof(url) - h->value_len, ":%d", orig_port(c));
        if (http_parse_target(url, strlen(url), 1, &t) == 0) {
            memcpy(host, t.host, BROCK_HOST_MAX);
            return;
        }
    }
    orig_text(c, addr, sizeof(addr));
    n = brock_host_normalize(addr, strlen(addr), host);
    if (n < 0)
        snprintf(host, BROCK_HOST_MAX, "%s", addr);
}

/* Passed to where it was going as it came, undecided: brock cannot name it. */
static void pass_unnamed(struct conn *c, const char *why)
{
    char addr[INET6_ADDRSTRLEN + 8];
    int bad;

    orig_text(c, addr, sizeof(addr));
    c->px->metrics.transparent_unnamed++;
    log_msg(LOG_DEBUG, "%s: the connection to %s port %d is passed through unseen: %s", c->c_peer,
            addr, orig_port(c), why);
    if (conn_tunnel_exchange(c, addr, orig_port(c), &bad) < 0) {
        if (bad)
            conn_close(c, "the redirected connection's address is no host");
        return;
    }
    c->unnamed = 1;
    conn_socks_pass(c);
}

void conn_transparent_peeked(struct conn *c, int kind, const char *name, const char *why)
{
    char addr[INET6_ADDRSTRLEN + 8];
    int bad;

    if (kind == PEEK_HTTP) {
        /* Each request names its own host (conn_transparent_host()). */
        orig_text(c, addr, sizeof(addr));
        mem_free(c->tunnel_host);
        if (!(c->tunnel_host = mem_strdup(addr))) {
            conn_out_of_memory(c, "starting a redirected connection");
            return;
        }
        c->tunnel_port = orig_port(c);
        c->tunnel_plain = 1;
        conn_set_state(c, CONN_IDLE);
        return;
    }
    if (kind != PEEK_TLS || !*name) {
        pass_unnamed(c, kind == PEEK_TLS ? "TLS without a server name" : why);
        return;
    }
    if (conn_tunnel_exchange(c, name, orig_port(c), &bad) < 0) {
        if (bad)
            pass_unnamed(c, "its TLS server name is no host name");
        return;
    }
    /* As a CONNECT to the name: intercepted when brock sees inside it, else decided now and
     * tunnelled (conn_socks_pass()), a blocked name's connection closed. */
    if (conn_may_intercept(c))
        conn_socks_intercept(c, name);
    else
        conn_socks_pass(c);
}

/* ---- the transparent port ---- */

/* Who may come in redirected: --allow's clients, or without it this machine's own programs
 * (whose address is any of its interfaces': REDIRECT keeps the source it had). */
static int transparent_admits(struct proxy *px, const struct sockaddr *sa)
{
    if (px->allow.n)
        return access_allows(&px->allow, sa);
    return access_is_loopback(sa) || upstream_is_local_address(sa);
}

static void on_transparent_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa,
                                  int len, void *arg)
{
    struct proxy *px = arg;
    char who[80], to[80];
    struct dns_addr dst, from;
    enum orig_how how;
    struct conn *c;

    (void)l;
    /* The dual-stack socket's IPv4 clients by their IPv4 addresses, as at the proxy port. */
    memset(&from, 0, sizeof(from));
    if (len > 0 && (size_t)len <= sizeof(from.u)) {
        memcpy(&from.u, sa, (size_t)len);
        from.len = (socklen_t)len;
        orig_unmap(&from);
        sa = &from.u.sa;
    }
    access_name(sa, who, sizeof(who));
    if (!transparent_admits(px, sa)) {
        px->metrics.forbidden++;
        log_msg(LOG_INFO, "refused redirected client %s: %s", who,
                px->allow.n ? "not in --allow" : "not this machine (see --allow)");
        evutil_closesocket(fd);
        return;
    }
    if (orig_dst(fd, &dst, &how) < 0) {
        log_msg(LOG_INFO, "refused redirected client %s: where it was going is unknown: %s", who,
                strerror(errno));
        evutil_closesocket(fd);
        return;
    }
    /* A connection made to the port itself, not redirected (a client taking it for a proxy),
     * or one redirected back to brock by a rule that does not spare brock's own: refused,
     * whatever its address, before it could loop. */
    if (upstream_is_self(px, &dst.u.sa)) {
        access_name(&dst.u.sa, to, sizeof(to));
        px->metrics.transparent_self++;
        log_msg(LOG_INFO,
                "refused %s: its connection to %s is to brock itself, not redirected by a rule "
                "(the transparent port serves only connections redirected to it)",
                who, to);
        evutil_closesocket(fd);
        return;
    }
    if (log_enabled(LOG_DEBUG)) {
        access_name(&dst.u.sa, to, sizeof(to));
        log_msg(LOG_DEBUG, "%s: redirected, going to %s (%s)", who, to,
                how == ORIG_NAT ? "REDIRECT" : "TPROXY");
    }
    if (!(c = conn_accept_way(px, fd, sa, who, sizeof(who), CONN_WAY_TRANSPARENT)))
        return;
    if (!(c->orig_dst = mem_malloc(sizeof(*c->orig_dst)))) {
        conn_close(c, "out of memory for a redirected connection");
        return;
    }
    *c->orig_dst = dst;
    conn_set_state(c, CONN_PEEK);
}

int conn_way_listen(struct proxy *px, enum way_port p, const char *spec, char *err, size_t errlen)
{
    const char *opt = way_option(p);
    struct sockaddr_storage ss,
        *bound = p == WAY_PORT_SOCKS ? &px->socks_addr : &px->transparent_addr;
    struct evconnlistener **l =
        p == WAY_PORT_SOCKS ? &px->socks_listener : &px->transparent_listener;
    socklen_t got = sizeof(*bound);
    int len = (int)sizeof(ss);
    evutil_socket_t fd = px->opts->worker ? px->opts->worker->way_fds[p] : -1;

    /* A worker's was bound by the parent. */
    if (fd < 0) {
        memset(&ss, 0, sizeof(ss));
        if (way_parse(p, spec, &ss, &len) < 0) {
            snprintf(err, errlen, "%s %s: expected %s", opt, spec,
                     p == WAY_PORT_SOCKS ? "ADDR:PORT or [IPV6]:PORT"
                                         : "PORT, ADDR:PORT or [IPV6]:PORT");
            return -1;
        }
        if ((fd = listen_socket(&ss, &len, p == WAY_PORT_TRANSPARENT, 0)) < 0) {
            snprintf(err, errlen, "%s %s: %s", opt, spec, strerror(errno));
            return -1;
        }
    }
    if (getsockname(fd, (struct sockaddr *)bound, &got) < 0) {
        snprintf(err, errlen, "%s %s: %s", opt, spec, strerror(errno));
        close(fd);
        return -1;
    }
    /* Listening already: a backlog of 0 says so to libevent. */
    *l = evconnlistener_new(px->base,
                            p == WAY_PORT_SOCKS ? conn_on_socks_accept : on_transparent_accept, px,
                            LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 0, fd);
    if (!*l) {
        snprintf(err, errlen, "%s %s: out of memory", opt, spec);
        close(fd);
        return -1;
    }
    return 0;
}

void conn_listeners_close(struct proxy *px)
{
    if (px->listener)
        evconnlistener_free(px->listener);
    if (px->socks_listener)
        evconnlistener_free(px->socks_listener);
    if (px->transparent_listener)
        evconnlistener_free(px->transparent_listener);
    px->listener = px->socks_listener = px->transparent_listener = NULL;
}
