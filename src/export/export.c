/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Exporting the state: the one table of the formats and their writers (export_*.c here,
 * pbjson.c of the engine for Privacy Badger's own JSON), and brock.h's export calls over it.
 */
#include "export/export.h"

#include <stdio.h>
#include <string.h>

#include "util/buf.h"

/* The export formats, in the order they are offered: the one list of them. Each name is its
 * writer's: FORMAT(pb) is written by brock__export_pb(). */
#define EXPORT_FORMATS(FORMAT)                                                                     \
    FORMAT(pb)                                                                                     \
    FORMAT(hosts)                                                                                  \
    FORMAT(abp)                                                                                    \
    FORMAT(dnsmasq)                                                                                \
    FORMAT(unbound)                                                                                \
    FORMAT(rpz)                                                                                    \
    FORMAT(privoxy)                                                                                \
    FORMAT(ubo)                                                                                    \
    FORMAT(adguard)                                                                                \
    FORMAT(dnr)                                                                                    \
    FORMAT(safari)

#define EXPORTER(name) {#name, brock__export_##name},
static const struct brock__exporter exporters[] = {EXPORT_FORMATS(EXPORTER)};
#undef EXPORTER

#define FORMAT_NAME(name) #name,
static const char *const format_names[] = {EXPORT_FORMATS(FORMAT_NAME) NULL};
#undef FORMAT_NAME

const char *const *brock_export_formats(void)
{
    return format_names;
}

/* The refusal of a format brock does not write, naming those it does. */
static int export_unknown(struct brock_engine *e, const char *format)
{
    char list[256] = "";
    size_t n = 0;

    for (const char *const *f = format_names; *f; f++) {
        int w = snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", *f);

        if (w < 0 || (size_t)w >= sizeof(list) - n)
            break;
        n += (size_t)w;
    }
    return brock__fail(e, BROCK_EINVAL, "'%s' is not an export format (%s)", format, list);
}

int brock_export_actions_parse(const char *list, unsigned *flags, char *err, size_t errlen)
{
    unsigned got = 0;
    const char *p = list;

    if (err && errlen)
        err[0] = '\0';
    for (;;) {
        size_t n = p ? strcspn(p, ",") : 0;

        if (n == 5 && !strncmp(p, "block", n)) {
            got |= BROCK_EXPORT_BLOCK;
        } else if (n == 11 && !strncmp(p, "cookieblock", n)) {
            got |= BROCK_EXPORT_COOKIEBLOCK;
        } else {
            if (err && errlen)
                snprintf(err, errlen, "'%.*s' is not an action to export (block, cookieblock)",
                         (int)(n > 64 ? 64 : n), p ? p : "");
            return BROCK_EINVAL;
        }
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    *flags = got;
    return 0;
}

int brock_export_names_sites(struct brock_engine *e, const char *format, unsigned flags)
{
    for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++) {
        int rc;

        if (strcmp(format, exporters[i].name) != 0)
            continue;
        /* Privacy Badger's JSON holds the snitch map and the disabled sites, whatever else. */
        if (exporters[i].write == brock__export_pb)
            return 1;
        rc = brock__plan_names_sites(e, flags);
        return rc < 0 ? brock__fail(e, rc, "out of memory") : rc;
    }
    return export_unknown(e, format);
}

int brock_export(struct brock_engine *e, const char *format, char **out, size_t *len)
{
    return brock_export_with(e, format, BROCK_EXPORT_DEFAULT, out, len);
}

int brock_export_with(struct brock_engine *e, const char *format, unsigned flags, char **out,
                      size_t *len)
{
    struct buf b;

    *out = NULL;
    *len = 0;
    for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++) {
        int rc;
        if (strcmp(format, exporters[i].name) != 0)
            continue;
        if (flags & ~(unsigned)(BROCK_EXPORT_DEFAULT | BROCK_EXPORT_LEARNED_ONLY))
            return brock__fail(e, BROCK_EINVAL, "export as %s: unknown flags %#x", format, flags);
        if (!(flags & BROCK_EXPORT_DEFAULT))
            return brock__fail(e, BROCK_EINVAL, "export as %s: no action chosen to export", format);
        /* Privacy Badger's JSON is the whole state, to be read back: a part of it would
         * import as a state that forgot the rest. */
        if (exporters[i].write == brock__export_pb && flags != BROCK_EXPORT_DEFAULT)
            return brock__fail(e, BROCK_EINVAL,
                               "export as pb: the whole state only (choosing actions or "
                               "learned names is for block lists)");
        buf_init(&b, (size_t)1 << 30);
        rc = exporters[i].write(e, flags, &b);
        if (rc < 0) {
            buf_cleanup(&b);
            return brock__fail(e, rc, "export as %s: %s", format, brock_strerror(rc));
        }
        *out = buf_detach(&b, len);
        return *out ? 0 : brock__fail(e, BROCK_ENOMEM, "out of memory");
    }
    return export_unknown(e, format);
}
