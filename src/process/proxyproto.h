/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The PROXY protocol header (versions 1 and 2) a load balancer sends first on each connection
 * it opens to brock, carrying the address of the client it serves. Pure: parsing only. */
#ifndef BROCK_PROCESS_PROXYPROTO_H
#define BROCK_PROCESS_PROXYPROTO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* The longest header read: a version 1 line is at most 107 bytes with its CRLF; a version 2
 * header is 16 bytes and its announced length, of which brock takes this much at most (the
 * addresses take up to 216 bytes; the rest are extensions, skipped). */
#define PROXYPROTO_V1_MAX 107
#define PROXYPROTO_MAX 1024

/* What proxyproto_parse() returns besides a header's length. */
#define PROXYPROTO_INCOMPLETE (-1) /* a header so far: wait for more bytes */
#define PROXYPROTO_MALFORMED (-2)  /* not a header, or a broken one */

/* What a header says. With has_source 0 (version 1 UNKNOWN, version 2 LOCAL, or a version 2
 * family other than TCP over IPv4 or IPv6) the connection's own address stands. */
struct proxyproto {
    int version;      /* 1 or 2 */
    const char *kind; /* "TCP4", "TCP6", "UNKNOWN", "LOCAL", "PROXY": a static string */
    int has_source;
    struct sockaddr_storage src; /* the client's address and port, AF_INET or AF_INET6 */
};

/* Parses the header at the start of p (len bytes: those received so far). Returns the
 * header's length (the bytes to take off the stream before the client's own), with *out
 * filled; PROXYPROTO_INCOMPLETE when the bytes so far begin a header but do not end it; or
 * PROXYPROTO_MALFORMED with *why set to a static sentence naming what is wrong. A stream
 * that cannot begin a header is malformed at its first byte, not incomplete. */
int proxyproto_parse(const uint8_t *p, size_t len, struct proxyproto *out, const char **why)
    __attribute__((warn_unused_result));

#endif
