/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The original destination of a redirected connection, from netfilter's getsockopt()s. */
#include "net/origdst.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/* The option numbers of <linux/netfilter_ipv4.h> and <linux/netfilter_ipv6/ip6_tables.h>,
 * whose headers do not mix with the C library's. Both are 80. */
#ifndef SO_ORIGINAL_DST
#define SO_ORIGINAL_DST 80
#endif
#ifndef IP6T_SO_ORIGINAL_DST
#define IP6T_SO_ORIGINAL_DST 80
#endif

void orig_unmap(struct dns_addr *a)
{
    static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    struct sockaddr_in v4;

    if (a->u.sa.sa_family != AF_INET6 || memcmp(a->u.v6.sin6_addr.s6_addr, prefix, 12) != 0)
        return;
    memset(&v4, 0, sizeof(v4));
    v4.sin_family = AF_INET;
    v4.sin_port = a->u.v6.sin6_port;
    memcpy(&v4.sin_addr, a->u.v6.sin6_addr.s6_addr + 12, 4);
    memset(&a->u, 0, sizeof(a->u));
    a->u.v4 = v4;
    a->len = sizeof(v4);
}

int orig_dst(int fd, struct dns_addr *out, enum orig_how *how)
{
    struct sockaddr_storage local;
    socklen_t len = sizeof(local);

    memset(out, 0, sizeof(*out));
    memset(&local, 0, sizeof(local));
    if (getsockname(fd, (struct sockaddr *)&local, &len) < 0)
        return -1;
    if (local.ss_family != AF_INET && local.ss_family != AF_INET6) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    /* An IPv6 socket may carry an IPv4 connection (a mapped address): conntrack knows it by
     * its IPv4 tuple, which the IPv4 option reads on either socket. */
    len = sizeof(out->u.v6);
    if (local.ss_family == AF_INET6 &&
        getsockopt(fd, SOL_IPV6, IP6T_SO_ORIGINAL_DST, &out->u.v6, &len) == 0 &&
        out->u.sa.sa_family == AF_INET6) {
        out->len = sizeof(out->u.v6);
        *how = ORIG_NAT;
        return 0;
    }
    memset(out, 0, sizeof(*out));
    len = sizeof(out->u.v4);
    if (getsockopt(fd, SOL_IP, SO_ORIGINAL_DST, &out->u.v4, &len) == 0 &&
        out->u.sa.sa_family == AF_INET) {
        out->len = sizeof(out->u.v4);
        *how = ORIG_NAT;
        return 0;
    }
    /* No record of a rewrite: TPROXY, which leaves the destination as it was, or a
     * connection made to brock's port itself. */
    memset(out, 0, sizeof(*out));
    memcpy(&out->u, &local, local.ss_family == AF_INET ? sizeof(out->u.v4) : sizeof(out->u.v6));
    out->len = local.ss_family == AF_INET ? sizeof(out->u.v4) : sizeof(out->u.v6);
    orig_unmap(out);
    *how = ORIG_SOCKET;
    return 0;
}

int orig_transparent(int fd, int family)
{
    int on = 1;

    if (setsockopt(fd, SOL_IP, IP_TRANSPARENT, &on, sizeof(on)) < 0)
        return -1;
    if (family == AF_INET6 && setsockopt(fd, SOL_IPV6, IPV6_TRANSPARENT, &on, sizeof(on)) < 0)
        return -1;
    return 0;
}
