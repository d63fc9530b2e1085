/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The text of brock's nftables table. */
#include "process/nftrules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Declaring a table that exists is no error; deleting it then always succeeds. */
#define NFT_DROP_TABLE "add table inet " NFT_TABLE "\ndelete table inet " NFT_TABLE "\n"

int nft_iface_ok(const char *name)
{
    size_t n = strlen(name);

    return n > 0 && n < 16 &&
           strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:@") == n;
}

int nft_ports_parse(struct nft_rules *r, const char *list, char *err, size_t errlen)
{
    int ports[NFT_PORTS_MAX];
    size_t n = 0;
    const char *p = list;

    for (;;) {
        size_t len = strcspn(p, ",");
        char *end;
        long v = len > 0 && len <= 5 && strspn(p, "0123456789") == len ? strtol(p, &end, 10) : 0;

        if (v < 1 || v > 65535) {
            snprintf(err, errlen, "--ports '%s': '%.*s' is no port (1-65535)", list, (int)len, p);
            return -1;
        }
        for (size_t i = 0; i < n; i++) {
            if (ports[i] == (int)v) {
                snprintf(err, errlen, "--ports '%s': %ld is given twice", list, v);
                return -1;
            }
        }
        if (n == NFT_PORTS_MAX) {
            snprintf(err, errlen, "--ports '%s': at most %d ports", list, NFT_PORTS_MAX);
            return -1;
        }
        ports[n++] = (int)v;
        if (!p[len])
            break;
        p += len + 1;
    }
    memcpy(r->ports, ports, n * sizeof(ports[0]));
    r->n_ports = n;
    return 0;
}

const char *nft_rules_remove_text(void)
{
    return NFT_DROP_TABLE;
}

int nft_rules_text(const struct nft_rules *r, int replace, char *out, size_t size)
{
    char ports[NFT_PORTS_MAX * 7 + 8] = "";
    size_t pn = 0;
    int n;

    if (!r->n_ports || r->n_ports > NFT_PORTS_MAX || r->port < 1 || r->port > 65535 ||
        (r->gateway && !nft_iface_ok(r->gateway)))
        return -1;
    for (size_t i = 0; i < r->n_ports; i++)
        pn += (size_t)snprintf(ports + pn, sizeof(ports) - pn, "%s%d", i ? ", " : "", r->ports[i]);
    if (r->gateway) {
        /* A router: what comes in from its LAN, except for the router itself (its own pages).
         * brock's own connections never pass prerouting. */
        n = snprintf(out, size,
                     "%s# brock transparent mode: the LAN on %s, to brock's port %d.\n"
                     "table inet " NFT_TABLE " {\n"
                     "\tchain prerouting {\n"
                     "\t\ttype nat hook prerouting priority -100; policy accept;\n"
                     "\t\tiifname \"%s\" fib daddr type local return\n"
                     "\t\tiifname \"%s\" tcp dport { %s } redirect to :%d\n"
                     "\t}\n"
                     "}\n",
                     replace ? NFT_DROP_TABLE : "", r->gateway, r->port, r->gateway, r->gateway,
                     ports, r->port);
    } else {
        /* This machine's programs: what they send out, except brock's own connections (which
         * would loop) and those to this machine itself. */
        n = snprintf(out, size,
                     "%s# brock transparent mode: this machine's programs, to brock's port %d;\n"
                     "# brock's own connections (user id %u) are not redirected.\n"
                     "table inet " NFT_TABLE " {\n"
                     "\tchain output {\n"
                     "\t\ttype nat hook output priority -100; policy accept;\n"
                     "\t\tmeta skuid %u return\n"
                     "\t\tfib daddr type local return\n"
                     "\t\ttcp dport { %s } redirect to :%d\n"
                     "\t}\n"
                     "}\n",
                     replace ? NFT_DROP_TABLE : "", r->port, (unsigned)r->uid, (unsigned)r->uid,
                     ports, r->port);
    }
    return n < 0 || (size_t)n >= size ? -1 : n;
}
