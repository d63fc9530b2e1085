/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Client names (clientnames.h): each spec is parsed again where it is used; there are a few,
 * read for the dashboard's requests alone. */
#include "process/clientnames.h"

#include <stdio.h>
#include <string.h>

#include "process/access.h"

/* One spec's name (into name, CLIENTNAMES_NAME_MAX + 1 bytes) and range (into *r). Returns 0,
 * or -1 with a sentence in err. */
static int parse(const char *spec, char *name, struct access_range *r, char *err, size_t errlen)
{
    const char *eq = strchr(spec, '=');
    struct access_list l = {NULL, 0};
    size_t len = eq ? (size_t)(eq - spec) : 0;

    if (!eq || len == 0 || len > CLIENTNAMES_NAME_MAX) {
        snprintf(err, errlen,
                 "--client '%s': expected NAME=CIDR, the name 1 to %d letters, digits, '-', "
                 "'_' or '.'",
                 spec, CLIENTNAMES_NAME_MAX);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        char c = spec[i];

        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.')) {
            snprintf(err, errlen, "--client '%s': a name holds letters, digits, '-', '_' or '.'",
                     spec);
            return -1;
        }
    }
    memcpy(name, spec, len);
    name[len] = '\0';
    if (access_add_for(&l, "--client", eq + 1, err, errlen) < 0)
        return -1;
    *r = l.v[0];
    access_cleanup(&l);
    return 0;
}

/* Whether range a lies inside b (or is b). */
static int inside(const struct access_range *a, const struct access_range *b)
{
    if (a->bits < b->bits)
        return 0;
    for (int i = 0; i < b->bits; i++) {
        int mask = 0x80 >> (i % 8);

        if ((a->addr[i / 8] & mask) != (b->addr[i / 8] & mask))
            return 0;
    }
    return 1;
}

int clientnames_check(const char *const *specs, size_t n, char *err, size_t errlen)
{
    char name[CLIENTNAMES_NAME_MAX + 1], other[CLIENTNAMES_NAME_MAX + 1];
    struct access_range a, b;

    for (size_t i = 0; i < n; i++) {
        if (parse(specs[i], name, &a, err, errlen) < 0)
            return -1;
        for (size_t j = 0; j < i; j++) {
            if (parse(specs[j], other, &b, err, errlen) < 0)
                return -1;
            if (a.bits == b.bits && inside(&a, &b)) {
                snprintf(err, errlen, "--client '%s': the range is named already ('%s')", specs[i],
                         specs[j]);
                return -1;
            }
        }
    }
    return 0;
}

void clientnames_overlaps(const char *const *specs, size_t n,
                          void (*say)(void *arg, const char *sentence), void *arg)
{
    char name[CLIENTNAMES_NAME_MAX + 1], other[CLIENTNAMES_NAME_MAX + 1], err[256], line[512];
    struct access_range a, b;

    for (size_t i = 0; i < n; i++) {
        if (parse(specs[i], name, &a, err, sizeof(err)) < 0)
            continue;
        for (size_t j = 0; j < n; j++) {
            if (j == i || parse(specs[j], other, &b, err, sizeof(err)) < 0 || a.bits == b.bits ||
                !inside(&a, &b))
                continue;
            snprintf(line, sizeof(line),
                     "client %s (%s) lies inside client %s (%s): the narrower range wins, so "
                     "its addresses are %s",
                     name, strchr(specs[i], '=') + 1, other, strchr(specs[j], '=') + 1, name);
            say(arg, line);
        }
    }
}

void clientnames_find(const char *const *specs, size_t n, const struct sockaddr *sa, char *out,
                      size_t size)
{
    char name[CLIENTNAMES_NAME_MAX + 1], err[256];
    int best = -1;

    out[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        struct access_range r;
        struct access_list one = {&r, 1};

        if (parse(specs[i], name, &r, err, sizeof(err)) < 0 || r.bits <= best ||
            !access_allows(&one, sa))
            continue;
        best = r.bits;
        snprintf(out, size, "%s", name);
    }
}
