/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Who may use brock: --allow CIDR lists, matching a client's address against them, and
 * whether an address is loopback or brock's own. Pure: parsing and comparing only. */
#ifndef BROCK_PROCESS_ACCESS_H
#define BROCK_PROCESS_ACCESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* One range: an IPv4 range is kept as its IPv4-mapped IPv6 form, so that one comparison
 * covers clients of a dual-stack listener. */
struct access_range {
    uint8_t addr[16]; /* network address, host bits cleared */
    int bits;         /* prefix length over the 128-bit form */
};

struct access_list {
    struct access_range *v; /* owned; free with access_cleanup */
    size_t n;
};

/* Parses spec ("10.0.0.0/8", "::1/128", or a bare address: /32 or /128) and appends it to
 * l. On failure returns -1 and writes a sentence naming the spec into err; l is unchanged.
 * A prefix with host bits set ("10.1.2.3/8") is refused: it is most likely a typo. */
int access_add(struct access_list *l, const char *spec, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* The same, with the sentence naming option (say "--proxy-protocol-from") and not --allow. */
int access_add_for(struct access_list *l, const char *option, const char *spec, char *err,
                   size_t errlen) __attribute__((warn_unused_result));

/* Whether sa (AF_INET or AF_INET6, IPv4-mapped handled) lies in one of l's ranges. */
int access_allows(const struct access_list *l, const struct sockaddr *sa);

/* Whether sa is a loopback address: 127.0.0.0/8 or ::1 (or ::ffff:127.0.0.0/104). The
 * wildcards 0.0.0.0 and :: are not. */
int access_is_loopback(const struct sockaddr *sa);

/* Whether sa is the wildcard address (0.0.0.0 or ::). */
int access_is_wildcard(const struct sockaddr *sa);

/* Whether a and b are the same address and port (IPv4-mapped compared as IPv4). */
int access_same_endpoint(const struct sockaddr *a, const struct sockaddr *b);

/* The port of sa (host order), 0 for another family. */
int access_port(const struct sockaddr *sa);

/* sa as a URL's host: "192.0.2.1", or "[2001:db8::1]"; an IPv4-mapped address as IPv4. */
void access_host_text(const struct sockaddr *sa, char *out, size_t size);

/* sa as "HOST:PORT" in that form, for messages and logs. */
void access_name(const struct sockaddr *sa, char *out, size_t size);

void access_cleanup(struct access_list *l);

#endif
