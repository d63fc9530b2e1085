/* SPDX-License-Identifier: GPL-3.0-or-later */
/* How a host becomes an address without DNS: --resolve HOSTGLOB[:PORT]=ADDR:PORT rules, then
 * an address literal. Parsing and matching are pure. */
#ifndef BROCK_NET_RESOLVE_H
#define BROCK_NET_RESOLVE_H

#include <stddef.h>
#include <sys/socket.h>

struct resolve_rule {
    char *glob;                   /* fnmatch pattern on the lower-cased host */
    int port;                     /* the request port it applies to; 0: any */
    struct sockaddr_storage addr; /* where to connect instead */
    int addr_len;
};

struct resolve_table {
    struct resolve_rule *v;
    size_t n;
};

/* Parses one spec and appends it to t. On failure returns -1 and writes a sentence naming
 * the spec and the problem into err; t is unchanged. */
int resolve_add(struct resolve_table *t, const char *spec, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* The first rule matching host (normalised) and port, or NULL. Borrowed from t. */
const struct resolve_rule *resolve_find(const struct resolve_table *t, const char *host, int port);

void resolve_cleanup(struct resolve_table *t);

/* Whether host is an IPv4 or IPv6 address literal (without brackets). If so, and ss is not
 * NULL, writes the address with port into *ss and its length into *len. Returns 1 or 0. */
int resolve_literal(const char *host, int port, struct sockaddr_storage *ss, int *len);

#endif
