/* SPDX-License-Identifier: GPL-3.0-or-later */
/* SOCKS version 5 (RFC 1928) as brock speaks it with a client: its greeting, its request, and
 * brock's replies. No authentication beyond who may connect (--allow). Pure: parsing and
 * writing only. */
#ifndef BROCK_PROXY_SOCKS_H
#define BROCK_PROXY_SOCKS_H

#include <stddef.h>
#include <stdint.h>

/* What the parsers return besides a message's length. */
#define SOCKS_INCOMPLETE (-1) /* a message so far: wait for more bytes */
#define SOCKS_MALFORMED (-2)  /* not one: answer *rep, then close */

/* The methods of authentication brock names: none needed, or none it takes. */
#define SOCKS_METHOD_NONE 0x00
#define SOCKS_METHOD_REFUSED 0xff

/* A request's commands. */
#define SOCKS_CMD_CONNECT 1
#define SOCKS_CMD_BIND 2
#define SOCKS_CMD_UDP 3

/* The reply codes (RFC 1928 6). */
#define SOCKS_REP_OK 0x00
#define SOCKS_REP_FAILURE 0x01     /* general failure (and a malformed request) */
#define SOCKS_REP_NOT_ALLOWED 0x02 /* connection not allowed by ruleset: blocked */
#define SOCKS_REP_NET 0x03         /* network unreachable */
#define SOCKS_REP_HOST 0x04        /* host unreachable: the name did not resolve */
#define SOCKS_REP_REFUSED 0x05     /* connection refused */
#define SOCKS_REP_TTL 0x06         /* TTL expired: timed out */
#define SOCKS_REP_COMMAND 0x07     /* command not supported: BIND, UDP ASSOCIATE */
#define SOCKS_REP_ADDRESS 0x08     /* address type not supported */

/* The longest greeting (2 + 255 methods) and request (a domain of 255 bytes). */
#define SOCKS_GREETING_MAX 257
#define SOCKS_REQUEST_MAX 262
#define SOCKS_REPLY_LEN 10

/* The greeting (VER 5, NMETHODS, the methods) at the start of p (len bytes: those received so
 * far). Returns its length, with *method SOCKS_METHOD_NONE when the client offers no
 * authentication, else SOCKS_METHOD_REFUSED (brock answers it and closes); SOCKS_INCOMPLETE;
 * or SOCKS_MALFORMED with *why a static sentence: not version 5, or no method at all. */
int socks_greeting(const uint8_t *p, size_t len, uint8_t *method, const char **why)
    __attribute__((warn_unused_result));

/* A request: its command and where to. */
struct socks_request {
    uint8_t cmd;  /* SOCKS_CMD_*, or another the client sent (refused) */
    uint8_t atyp; /* 1: IPv4, 3: a domain name, 4: IPv6 */
    /* A domain as the client sent it (1 to 255 bytes, no NUL, no space or control byte), or
     * the address as text (an IPv6 one without brackets). */
    char host[256];
    int port; /* 0 to 65535 */
};

/* The request (VER 5, CMD, RSV 0, ATYP, DST.ADDR, DST.PORT) at the start of p. Returns its
 * length with *r filled (any command: the caller refuses all but CONNECT with
 * SOCKS_REP_COMMAND); SOCKS_INCOMPLETE; or SOCKS_MALFORMED with *rep the reply to send
 * (SOCKS_REP_ADDRESS for an address type that is none of the three; SOCKS_REP_FAILURE for
 * the rest) and *why a static sentence: not version 5, a reserved byte that is not 0, a
 * domain of no byte or with a byte no name has, port 0. */
int socks_request(const uint8_t *p, size_t len, struct socks_request *r, uint8_t *rep,
                  const char **why) __attribute__((warn_unused_result));

/* The reply rep to a request, with 0.0.0.0:0 as the bound address (the client has no use for
 * brock's own side), into out. Returns SOCKS_REPLY_LEN. */
size_t socks_reply(uint8_t out[SOCKS_REPLY_LEN], uint8_t rep);

#endif
