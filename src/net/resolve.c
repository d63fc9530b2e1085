/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The --resolve table: specs parsed once at start, then matched per upstream connection; and
 * address literals, which need no resolver either. */
#include "net/resolve.h"

#include <ctype.h>
#include <fnmatch.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/util.h>

#include "util/alloc.h"

static int parse_port(const char *s, size_t n)
{
    long v = 0;

    if (n == 0 || n > 5)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v >= 1 && v <= 65535 ? (int)v : -1;
}

int resolve_add(struct resolve_table *t, const char *spec, char *err, size_t errlen)
{
    struct resolve_rule r;
    const char *eq = strchr(spec, '=');
    const char *colon;
    size_t glob_len;
    struct resolve_rule *grown;

    memset(&r, 0, sizeof(r));
    if (!eq || eq == spec || !eq[1]) {
        snprintf(err, errlen, "--resolve %s: expected HOSTGLOB[:PORT]=ADDR:PORT", spec);
        return -1;
    }
    glob_len = (size_t)(eq - spec);
    colon = memchr(spec, ':', glob_len);
    if (colon) {
        r.port = parse_port(colon + 1, (size_t)(eq - colon - 1));
        if (r.port < 0) {
            snprintf(err, errlen, "--resolve %s: the port after the host is not 1-65535", spec);
            return -1;
        }
        glob_len = (size_t)(colon - spec);
    }
    r.addr_len = (int)sizeof(r.addr);
    if (evutil_parse_sockaddr_port(eq + 1, (struct sockaddr *)&r.addr, &r.addr_len) < 0 ||
        (r.addr.ss_family == AF_INET && ((struct sockaddr_in *)&r.addr)->sin_port == 0) ||
        (r.addr.ss_family == AF_INET6 && ((struct sockaddr_in6 *)&r.addr)->sin6_port == 0)) {
        snprintf(err, errlen, "--resolve %s: '%s' is not ADDR:PORT (an IP address and a port)",
                 spec, eq + 1);
        return -1;
    }
    r.glob = mem_strndup(spec, glob_len);
    grown = r.glob ? mem_realloc(t->v, (t->n + 1) * sizeof(*t->v)) : NULL;
    if (!grown) {
        mem_free(r.glob);
        snprintf(err, errlen, "--resolve %s: out of memory", spec);
        return -1;
    }
    for (char *p = r.glob; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    t->v = grown;
    t->v[t->n++] = r;
    return 0;
}

const struct resolve_rule *resolve_find(const struct resolve_table *t, const char *host, int port)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct resolve_rule *r = &t->v[i];

        if (r->port && r->port != port)
            continue;
        if (fnmatch(r->glob, host, FNM_CASEFOLD) == 0)
            return r;
    }
    return NULL;
}

void resolve_cleanup(struct resolve_table *t)
{
    for (size_t i = 0; i < t->n; i++)
        mem_free(t->v[i].glob);
    mem_free(t->v);
    t->v = NULL;
    t->n = 0;
}

/* The C library's inet_pton() first: strict and quick, where libevent's reads IPv4 with
 * sscanf(), which showed in every request's profile. libevent's still decides what the C
 * library refuses (leading zeros, say), so what counts as an address stays what it was; a
 * name that begins with a letter is neither (its sscanf() stops at the first character, and
 * an IPv6 address has a colon). */
static int parse_address(int af, const char *host, void *dst)
{
    if (inet_pton(af, host, dst) == 1)
        return 1;
    if (isalpha((unsigned char)host[0]) || (af == AF_INET6 && !strchr(host, ':')))
        return 0;
    return evutil_inet_pton(af, host, dst) == 1;
}

int resolve_literal(const char *host, int port, struct sockaddr_storage *ss, int *len)
{
    struct sockaddr_storage tmp;
    struct sockaddr_in *v4;
    struct sockaddr_in6 *v6;

    if (!ss)
        ss = &tmp;
    v4 = (struct sockaddr_in *)ss;
    v6 = (struct sockaddr_in6 *)ss;
    memset(ss, 0, sizeof(*ss));
    if (parse_address(AF_INET, host, &v4->sin_addr)) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        if (len)
            *len = (int)sizeof(*v4);
        return 1;
    }
    if (parse_address(AF_INET6, host, &v6->sin6_addr)) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        if (len)
            *len = (int)sizeof(*v6);
        return 1;
    }
    return 0;
}
