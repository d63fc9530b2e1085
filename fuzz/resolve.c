/* SPDX-License-Identifier: GPL-3.0-or-later */
/* --resolve specs: each line of the input a spec added to one table (bad ones must leave it
 * unchanged and say why) and read as an address literal, then a few hosts and ports looked
 * up in the table. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "net/resolve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const hosts[] = {"example.com", "www.example.com",   "127.0.0.1",
                                        "::1",         "a.b.c.example.org", ""};
    struct resolve_table t = {0};
    char *text = malloc(size + 1);
    char *line, *save = NULL;
    char err[512];
    struct sockaddr_storage ss;
    int len;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        size_t before = t.n;

        /* A literal's address has the family its length says. */
        if (resolve_literal(line, 443, &ss, &len) &&
            !(ss.ss_family == AF_INET && len == (int)sizeof(struct sockaddr_in)) &&
            !(ss.ss_family == AF_INET6 && len == (int)sizeof(struct sockaddr_in6)))
            abort();
        err[0] = '\0';
        if (resolve_add(&t, line, err, sizeof(err)) < 0) {
            if (t.n != before || err[0] == '\0')
                abort(); /* a refused spec changes nothing and says why */
        } else if (t.n != before + 1) {
            abort();
        }
    }
    for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
        (void)resolve_find(&t, hosts[i], 0);
        (void)resolve_find(&t, hosts[i], 443);
    }
    resolve_cleanup(&t);
    free(text);
    return 0;
}
