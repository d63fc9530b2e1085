/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The nftables rules that redirect connections to brock's transparent port (brock run
 * --transparent), for this machine's own programs or for a router's LAN, in a table of brock's
 * own ("inet brock") that can be put in and taken out whole. Pure: the text alone. */
#ifndef BROCK_PROCESS_NFTRULES_H
#define BROCK_PROCESS_NFTRULES_H

#include <stddef.h>
#include <sys/types.h>

#define NFT_TABLE "brock"
#define NFT_PORTS_MAX 16

struct nft_rules {
    const char *gateway;      /* the LAN interface of a router; NULL: this machine */
    uid_t uid;                /* this machine: the user brock runs as, whose own
                                   * connections are never redirected (not for a gateway) */
    int port;                 /* brock's transparent port */
    int ports[NFT_PORTS_MAX]; /* the destination ports redirected */
    size_t n_ports;
};

/* Whether name can be a network interface's (1 to 15 bytes of letters, digits, '-', '_', '.',
 * ':' and '@'): nothing else goes into the rules' text. */
int nft_iface_ok(const char *name);

/* Parses "80,443" into r->ports. Returns 0, or -1 with a sentence in err (a port that is no
 * number from 1 to 65535, more than NFT_PORTS_MAX of them, or one given twice). */
int nft_ports_parse(struct nft_rules *r, const char *list, char *err, size_t errlen);

/* The rules as nft(8) reads them (nft -f), a table "inet brock" with one chain, into out (size
 * bytes). With replace, the text first removes the table if it is there, so that loading it
 * replaces the rules in one transaction. Returns the length, or -1 when r is not valid or out
 * is too small. */
int nft_rules_text(const struct nft_rules *r, int replace, char *out, size_t size);

/* The text that removes the table, and succeeds when there is none. */
const char *nft_rules_remove_text(void);

#endif
