/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a connection that named no proxy request speaks, from its first bytes, read without
 * taking them: a TLS ClientHello and the server name it asks for, an HTTP request, or
 * something else, which brock passes to its destination untouched. For connections that come
 * in through SOCKS or redirected to brock (transparent mode). Pure. */
#ifndef BROCK_PROXY_PEEK_H
#define BROCK_PROXY_PEEK_H

#include <stddef.h>
#include <stdint.h>

/* The most of a ClientHello read: its handshake message, across as many records as it
 * spans (a record carries 16 KiB at most). A longer one is passed through unread. */
#define PEEK_HELLO_MAX 32768

/* What the bytes so far are. */
enum peek_kind {
    PEEK_MORE,  /* not known yet: wait for more (or, at the idle timeout, pass it on) */
    PEEK_TLS,   /* a TLS ClientHello; name holds its server name, "" when it has none */
    PEEK_HTTP,  /* an HTTP/1 request line begins: a method token and a space */
    PEEK_OTHER, /* neither, or a ClientHello brock cannot read: passed through */
};

/* What the len bytes at p (the first the client sent) are. For PEEK_TLS the hello's
 * server_name (a host name as sent, lower-cased; "" when there is none, or it is no host
 * name) goes into name (256 bytes); scratch (PEEK_HELLO_MAX bytes) holds the handshake
 * gathered from its records. *why says, for PEEK_OTHER, what the bytes were (a static
 * sentence). */
enum peek_kind peek_classify(const uint8_t *p, size_t len, uint8_t *scratch, char name[256],
                             const char **why);

#endif
