/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Where a connection redirected to brock was going (Linux): the address netfilter's REDIRECT or
 * DNAT rewrote, IPv4 or IPv6; or, for a connection TPROXY delivered to a listener with
 * IP_TRANSPARENT, the address it was accepted at, which is its destination unchanged. */
#ifndef BROCK_NET_ORIGDST_H
#define BROCK_NET_ORIGDST_H

#include "net/dns.h"

/* How orig_dst() knew. */
enum orig_how {
    ORIG_NAT,    /* conntrack's record of the connection before it was rewritten */
    ORIG_SOCKET, /* the socket's own local address: TPROXY, or no rewriting at all */
};

/* The destination of the accepted connection fd into *out (an IPv4 address for an IPv4
 * connection, even on an IPv6 socket). Returns 0 and how it knew in *how, or -1 with errno
 * set when the socket has no address (it is no TCP socket). */
int orig_dst(int fd, struct dns_addr *out, enum orig_how *how);

/* An IPv4 address written as IPv6 (::ffff:a.b.c.d), in a, as the IPv4 address it is; any
 * other left as it is. */
void orig_unmap(struct dns_addr *a);

/* Sets IP_TRANSPARENT (IPV6_TRANSPARENT too on an IPv6 socket) on the socket fd before it is
 * bound, so that TPROXY may deliver to it connections for any address. Needs CAP_NET_ADMIN.
 * Returns 0, or -1 with errno set. */
int orig_transparent(int fd, int family);

#endif
