/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The options of `brock run` checked for their shape before anything is opened, so that a typo
 * is a usage error; and the listening address as they give it. */
#include "proxy/proxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <event2/util.h>

#include "net/dial.h"
#include "net/resolve.h"
#include "process/access.h"
#include "process/clientnames.h"
#include "process/privs.h"
#include "proxy/workers.h"

int listen_parse(const char *spec, struct sockaddr_storage *ss, int *len)
{
    char copy[128];
    size_t n = strlen(spec);
    int any = n >= 2 && strcmp(spec + n - 2, ":0") == 0;

    if (n >= sizeof(copy))
        return -1;
    memcpy(copy, spec, n + 1);
    if (any)
        copy[n - 1] = '1';
    if (evutil_parse_sockaddr_port(copy, (struct sockaddr *)ss, len) < 0)
        return -1;
    if (any && ss->ss_family == AF_INET6)
        ((struct sockaddr_in6 *)ss)->sin6_port = 0;
    else if (any)
        ((struct sockaddr_in *)ss)->sin_port = 0;
    return 0;
}

int way_parse(enum way_port p, const char *spec, struct sockaddr_storage *ss, int *len)
{
    size_t digits = strspn(spec, "0123456789");
    char any[16];

    /* A port alone: every address, as a router's REDIRECT goes to its LAN address and this
     * machine's to loopback. */
    if (p == WAY_PORT_TRANSPARENT && digits > 0 && digits <= 5 && spec[digits] == '\0') {
        if (atoi(spec) > 65535)
            return -1;
        snprintf(any, sizeof(any), "[::]:%s", spec);
        spec = any;
    }
    return listen_parse(spec, ss, len);
}

/* --local's ranges, --dns's name servers and --client's names. Returns 0, or -1 with err. */
static int check_more_lists(const struct proxy_options *o, char *err, size_t errlen)
{
    struct access_list local = {NULL, 0};
    int rc = 0;

    for (size_t i = 0; i < o->n_local && rc == 0; i++) {
        if (strcmp(o->local[i], "none") != 0)
            rc = access_add_for(&local, "--local", o->local[i], err, errlen);
    }
    access_cleanup(&local);
    for (size_t i = 0; i < o->n_dns && rc == 0; i++) {
        struct sockaddr_storage dns;
        int dns_len;

        if (dial_dns_server(o->dns[i], &dns, &dns_len) < 0) {
            snprintf(err, errlen, "--dns '%s': expected ADDR:PORT (an IP address and a port)",
                     o->dns[i]);
            rc = -1;
        }
    }
    return rc == 0 ? clientnames_check(o->clients, o->n_clients, err, errlen) : -1;
}

/* --socks: an address to listen at, on loopback unless --allow names who may use it. Returns
 * 0, or -1 with err set. */
static int socks_check(const struct proxy_options *o, char *err, size_t errlen)
{
    struct sockaddr_storage socks;
    int slen = (int)sizeof(socks);

    if (!o->socks)
        return 0;
    if (way_parse(WAY_PORT_SOCKS, o->socks, &socks, &slen) < 0) {
        snprintf(err, errlen, "--socks '%s': expected ADDR:PORT or [IPV6]:PORT", o->socks);
        return -1;
    }
    if (!o->n_allow && !access_is_loopback((const struct sockaddr *)&socks)) {
        snprintf(err, errlen,
                 "SOCKS on %s exposes brock to the network; name who may use it with "
                 "--allow CIDR",
                 o->socks);
        return -1;
    }
    return 0;
}

/* --transparent: a port, or an address and a port. Anyone may reach it: it serves only
 * connections redirected to it, and of those only this machine's or --allow's. Returns 0, or
 * -1 with err set. */
static int transparent_check(const struct proxy_options *o, char *err, size_t errlen)
{
    struct sockaddr_storage ss;
    int slen = (int)sizeof(ss);

    if (o->transparent && way_parse(WAY_PORT_TRANSPARENT, o->transparent, &ss, &slen) < 0) {
        snprintf(err, errlen, "--transparent '%s': expected PORT, ADDR:PORT or [IPV6]:PORT",
                 o->transparent);
        return -1;
    }
    return 0;
}

int proxy_options_check(const struct proxy_options *o, char *err, size_t errlen)
{
    struct resolve_table t = {NULL, 0};
    struct access_list allow = {NULL, 0};
    struct sockaddr_storage ss;
    struct privs pv;
    int len = (int)sizeof(ss);

    if (socks_check(o, err, errlen) < 0 || transparent_check(o, err, errlen) < 0)
        return -1;
    if (o->listen && listen_parse(o->listen, &ss, &len) < 0) {
        snprintf(err, errlen, "--listen '%s': expected ADDR:PORT or [IPV6]:PORT", o->listen);
        return -1;
    }
    for (size_t i = 0; i < o->n_allow; i++) {
        if (access_add(&allow, o->allow[i], err, errlen) < 0) {
            access_cleanup(&allow);
            return -1;
        }
    }
    if (check_more_lists(o, err, errlen) < 0) {
        access_cleanup(&allow);
        return -1;
    }
    for (size_t i = 0; i < o->n_proxy_protocol_from; i++) {
        if (access_add_for(&allow, "--proxy-protocol-from", o->proxy_protocol_from[i], err,
                           errlen) < 0) {
            access_cleanup(&allow);
            return -1;
        }
    }
    access_cleanup(&allow);
    if (o->listen && !o->n_allow && !access_is_loopback((const struct sockaddr *)&ss)) {
        snprintf(err, errlen,
                 "listening on %s exposes brock to the network; name who may use "
                 "it with --allow CIDR",
                 o->listen);
        return -1;
    }
    if (privs_plan(o->user, &pv, err, errlen) < 0)
        return -1;
    for (size_t i = 0; i < o->n_resolve; i++) {
        if (resolve_add(&t, o->resolve[i], err, errlen) < 0) {
            resolve_cleanup(&t);
            return -1;
        }
    }
    resolve_cleanup(&t);
    return 0;
}
