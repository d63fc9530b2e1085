/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SOCKS5's two messages from the client, read from the bytes received so far, and brock's
 * reply. A message is whole or not there yet; nothing is read past it. */
#include "proxy/socks.h"

#include <arpa/inet.h>
#include <string.h>

#define SOCKS_VERSION 5

#define ATYP_IPV4 1
#define ATYP_DOMAIN 3
#define ATYP_IPV6 4

int socks_greeting(const uint8_t *p, size_t len, uint8_t *method, const char **why)
{
    size_t n;

    if (len < 1)
        return SOCKS_INCOMPLETE;
    if (p[0] != SOCKS_VERSION) {
        *why = "the client does not speak SOCKS version 5";
        return SOCKS_MALFORMED;
    }
    if (len < 2)
        return SOCKS_INCOMPLETE;
    n = p[1];
    if (n == 0) {
        *why = "the client's SOCKS greeting offers no method";
        return SOCKS_MALFORMED;
    }
    if (len < 2 + n)
        return SOCKS_INCOMPLETE;
    *method = memchr(p + 2, SOCKS_METHOD_NONE, n) ? SOCKS_METHOD_NONE : SOCKS_METHOD_REFUSED;
    return (int)(2 + n);
}

/* A domain's bytes as the client sent them: one to 255 of what a name may hold, printable
 * ASCII without space or '/' (a later look-up refuses what is no host name). Returns 0, or -1
 * with *why set. */
static int domain_take(const uint8_t *d, size_t n, char *out, const char **why)
{
    if (n == 0) {
        *why = "the SOCKS request names an empty domain";
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (d[i] <= ' ' || d[i] >= 0x7f || d[i] == '/') {
            *why = "the SOCKS request's domain has a byte no host name has";
            return -1;
        }
    }
    memcpy(out, d, n);
    out[n] = '\0';
    return 0;
}

/* The length of the address of the request at p (its type at p[3]), a domain's length byte
 * included; 0 for a type SOCKS5 does not have. */
static size_t address_len(const uint8_t *p, size_t len)
{
    switch (p[3]) {
    case ATYP_IPV4: return 4;
    case ATYP_IPV6: return 16;
    case ATYP_DOMAIN: return len > 4 ? 1 + (size_t)p[4] : 1;
    default: return 0;
    }
}

static int malformed(uint8_t *rep, uint8_t code, const char **why, const char *text)
{
    *rep = code;
    *why = text;
    return SOCKS_MALFORMED;
}

int socks_request(const uint8_t *p, size_t len, struct socks_request *r, uint8_t *rep,
                  const char **why)
{
    size_t alen, total;
    const uint8_t *a = p + 4;

    if (len >= 1 && p[0] != SOCKS_VERSION)
        return malformed(rep, SOCKS_REP_FAILURE, why, "the SOCKS request is not version 5");
    if (len >= 3 && p[2] != 0)
        return malformed(rep, SOCKS_REP_FAILURE, why, "the SOCKS request's reserved byte is not 0");
    if (len < 4)
        return SOCKS_INCOMPLETE;
    if (!(alen = address_len(p, len)))
        return malformed(rep, SOCKS_REP_ADDRESS, why,
                         "the SOCKS request's address is of a type SOCKS5 does not have");
    /* A domain's length byte is needed before its length is known. */
    if (p[3] == ATYP_DOMAIN && len < 5)
        return SOCKS_INCOMPLETE;
    total = 4 + alen + 2;
    if (len < total)
        return SOCKS_INCOMPLETE;
    memset(r, 0, sizeof(*r));
    r->cmd = p[1];
    r->atyp = p[3];
    r->port = p[total - 2] << 8 | p[total - 1];
    if (p[3] == ATYP_DOMAIN && domain_take(a + 1, alen - 1, r->host, why) < 0) {
        *rep = SOCKS_REP_FAILURE;
        return SOCKS_MALFORMED;
    }
    if (p[3] != ATYP_DOMAIN &&
        !inet_ntop(p[3] == ATYP_IPV4 ? AF_INET : AF_INET6, a, r->host, sizeof(r->host)))
        return malformed(rep, SOCKS_REP_FAILURE, why, "the SOCKS request's address is not one");
    if (r->port == 0)
        return malformed(rep, SOCKS_REP_FAILURE, why, "the SOCKS request names port 0");
    return (int)total;
}

size_t socks_reply(uint8_t out[SOCKS_REPLY_LEN], uint8_t rep)
{
    static const uint8_t bound[] = {SOCKS_VERSION, 0, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0};

    _Static_assert(sizeof(bound) == SOCKS_REPLY_LEN, "a reply with an IPv4 address");
    memcpy(out, bound, SOCKS_REPLY_LEN);
    out[1] = rep;
    return SOCKS_REPLY_LEN;
}
