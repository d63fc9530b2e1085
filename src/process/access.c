/* SPDX-License-Identifier: GPL-3.0-or-later */
/* --allow CIDR lists and address comparisons; see access.h. */
#include "process/access.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

static const uint8_t v4_mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* sa as a 128-bit address (IPv4 mapped) and its port; -1 for another family. */
static int to_v6(const struct sockaddr *sa, uint8_t out[16], int *port)
{
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)sa;

        memcpy(out, v4_mapped_prefix, 12);
        memcpy(out + 12, &v4->sin_addr, 4);
        if (port)
            *port = ntohs(v4->sin_port);
        return 0;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)sa;

        memcpy(out, &v6->sin6_addr, 16);
        if (port)
            *port = ntohs(v6->sin6_port);
        return 0;
    }
    return -1;
}

static int prefix_matches(const uint8_t *a, const uint8_t *net, int bits)
{
    int whole = bits / 8, rest = bits % 8;

    if (memcmp(a, net, (size_t)whole) != 0)
        return 0;
    if (rest == 0)
        return 1;
    return ((a[whole] ^ net[whole]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

int access_add(struct access_list *l, const char *spec, char *err, size_t errlen)
{
    return access_add_for(l, "--allow", spec, err, errlen);
}

/* The address of spec (alen bytes: before its '/', if any) into r->addr, IPv4 mapped. Returns
 * 1 for IPv4, 0 for IPv6, or -1 with err set. */
static int range_address(struct access_range *r, const char *option, const char *spec, size_t alen,
                         char *err, size_t errlen)
{
    char addr[64];

    if (alen == 0 || alen >= sizeof(addr)) {
        snprintf(err, errlen,
                 "%s '%s': expected an address or ADDR/PREFIX (10.0.0.0/8, "
                 "::1/128)",
                 option, spec);
        return -1;
    }
    memcpy(addr, spec, alen);
    addr[alen] = '\0';
    if (inet_pton(AF_INET, addr, r->addr + 12) == 1) {
        memcpy(r->addr, v4_mapped_prefix, 12);
        return 1;
    }
    if (inet_pton(AF_INET6, addr, r->addr) == 1)
        return 0;
    snprintf(err, errlen, "%s '%s': '%s' is not an IPv4 or IPv6 address", option, spec, addr);
    return -1;
}

/* The prefix length after spec's '/' (slash), 0 to max. Returns it, or -1 with err set. */
static int range_bits(const char *option, const char *spec, const char *slash, int max, char *err,
                      size_t errlen)
{
    char *end = NULL;
    long b;

    if (slash[1] < '0' || slash[1] > '9') {
        snprintf(err, errlen, "%s '%s': the prefix length after '/' must be a number", option,
                 spec);
        return -1;
    }
    b = strtol(slash + 1, &end, 10);
    if (*end != '\0' || b < 0 || b > max) {
        snprintf(err, errlen, "%s '%s': the prefix length must be 0 to %d", option, spec, max);
        return -1;
    }
    return (int)b;
}

int access_add_for(struct access_list *l, const char *option, const char *spec, char *err,
                   size_t errlen)
{
    const char *slash = strchr(spec, '/');
    size_t alen = slash ? (size_t)(slash - spec) : strlen(spec);
    struct access_range r;
    struct access_range *v;
    int is_v4, max, bits;

    memset(&r, 0, sizeof(r));
    if ((is_v4 = range_address(&r, option, spec, alen, err, errlen)) < 0)
        return -1;
    max = is_v4 ? 32 : 128;
    bits = max;
    if (slash && (bits = range_bits(option, spec, slash, max, err, errlen)) < 0)
        return -1;
    r.bits = is_v4 ? bits + 96 : bits;
    for (int i = r.bits; i < 128; i++) {
        if (r.addr[i / 8] & (0x80 >> (i % 8))) {
            snprintf(err, errlen,
                     "%s '%s': the address has bits set past the /%d prefix "
                     "(did you mean a network address?)",
                     option, spec, bits);
            return -1;
        }
    }
    v = mem_realloc(l->v, (l->n + 1) * sizeof(*v));
    if (!v) {
        snprintf(err, errlen, "%s '%s': out of memory", option, spec);
        return -1;
    }
    v[l->n] = r;
    l->v = v;
    l->n++;
    return 0;
}

int access_allows(const struct access_list *l, const struct sockaddr *sa)
{
    uint8_t a[16];

    if (to_v6(sa, a, NULL) < 0)
        return 0;
    for (size_t i = 0; i < l->n; i++)
        if (prefix_matches(a, l->v[i].addr, l->v[i].bits))
            return 1;
    return 0;
}

int access_is_loopback(const struct sockaddr *sa)
{
    static const uint8_t v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    uint8_t a[16];

    if (to_v6(sa, a, NULL) < 0)
        return 0;
    if (memcmp(a, v4_mapped_prefix, 12) == 0)
        return a[12] == 127;
    return memcmp(a, v6_loopback, 16) == 0;
}

int access_is_wildcard(const struct sockaddr *sa)
{
    static const uint8_t zero[16];
    uint8_t a[16];

    if (to_v6(sa, a, NULL) < 0)
        return 0;
    if (memcmp(a, v4_mapped_prefix, 12) == 0)
        return memcmp(a + 12, zero, 4) == 0;
    return memcmp(a, zero, 16) == 0;
}

int access_same_endpoint(const struct sockaddr *a, const struct sockaddr *b)
{
    uint8_t x[16], y[16];
    int px, py;

    if (to_v6(a, x, &px) < 0 || to_v6(b, y, &py) < 0)
        return 0;
    return px == py && memcmp(x, y, 16) == 0;
}

int access_port(const struct sockaddr *sa)
{
    uint8_t a[16];
    int port = 0;

    return to_v6(sa, a, &port) < 0 ? 0 : port;
}

void access_cleanup(struct access_list *l)
{
    mem_free(l->v);
    l->v = NULL;
    l->n = 0;
}

void access_host_text(const struct sockaddr *sa, char *out, size_t size)
{
    char ip[INET6_ADDRSTRLEN] = "?";

    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

        if (IN6_IS_ADDR_V4MAPPED(a)) {
            inet_ntop(AF_INET, &a->s6_addr[12], ip, sizeof(ip));
            snprintf(out, size, "%s", ip);
            return;
        }
        inet_ntop(AF_INET6, a, ip, sizeof(ip));
        snprintf(out, size, "[%s]", ip);
        return;
    }
    if (sa->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, ip, sizeof(ip));
    snprintf(out, size, "%s", ip);
}

void access_name(const struct sockaddr *sa, char *out, size_t size)
{
    char host[INET6_ADDRSTRLEN + 2];

    access_host_text(sa, host, sizeof(host));
    snprintf(out, size, "%s:%d", host, access_port(sa));
}
