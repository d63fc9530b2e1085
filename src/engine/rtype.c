/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a request fetches (enum brock_resource_type): Privacy Badger's names for the types,
 * and the type told from a request's headers, as a proxy must tell it without a browser's
 * webRequest API. */
#include <stddef.h>
#include <string.h>
#include <strings.h>

#include "brock.h"

static const char *const type_names[BROCK_RESOURCE_COUNT] = {
    [BROCK_RESOURCE_OTHER] = "other",
    [BROCK_RESOURCE_MAIN_FRAME] = "main_frame",
    [BROCK_RESOURCE_SUB_FRAME] = "sub_frame",
    [BROCK_RESOURCE_SCRIPT] = "script",
    [BROCK_RESOURCE_STYLESHEET] = "stylesheet",
    [BROCK_RESOURCE_IMAGE] = "image",
    [BROCK_RESOURCE_FONT] = "font",
    [BROCK_RESOURCE_MEDIA] = "media",
    [BROCK_RESOURCE_XHR] = "xmlhttprequest",
    [BROCK_RESOURCE_PING] = "ping",
    [BROCK_RESOURCE_WEBSOCKET] = "websocket",
    [BROCK_RESOURCE_OBJECT] = "object",
};

const char *brock_resource_type_name(enum brock_resource_type t)
{
    if ((unsigned)t >= BROCK_RESOURCE_COUNT)
        return type_names[BROCK_RESOURCE_OTHER];
    return type_names[t];
}

int brock_resource_type_parse(const char *word)
{
    if (!word)
        return BROCK_EINVAL;
    for (int t = 0; t < BROCK_RESOURCE_COUNT; t++) {
        if (strcmp(word, type_names[t]) == 0)
            return t;
    }
    return BROCK_EINVAL;
}

/* Sec-Fetch-Dest's destinations (Fetch standard, "request destination"). */
static const struct {
    const char *dest;
    enum brock_resource_type type;
} dests[] = {
    {"document", BROCK_RESOURCE_MAIN_FRAME}, {"iframe", BROCK_RESOURCE_SUB_FRAME},
    {"frame", BROCK_RESOURCE_SUB_FRAME},     {"fencedframe", BROCK_RESOURCE_SUB_FRAME},
    {"script", BROCK_RESOURCE_SCRIPT},       {"worker", BROCK_RESOURCE_SCRIPT},
    {"sharedworker", BROCK_RESOURCE_SCRIPT}, {"serviceworker", BROCK_RESOURCE_SCRIPT},
    {"audioworklet", BROCK_RESOURCE_SCRIPT}, {"paintworklet", BROCK_RESOURCE_SCRIPT},
    {"style", BROCK_RESOURCE_STYLESHEET},    {"xslt", BROCK_RESOURCE_STYLESHEET},
    {"image", BROCK_RESOURCE_IMAGE},         {"font", BROCK_RESOURCE_FONT},
    {"audio", BROCK_RESOURCE_MEDIA},         {"video", BROCK_RESOURCE_MEDIA},
    {"track", BROCK_RESOURCE_MEDIA},         {"object", BROCK_RESOURCE_OBJECT},
    {"embed", BROCK_RESOURCE_OBJECT},        {"websocket", BROCK_RESOURCE_WEBSOCKET},
    {"empty", BROCK_RESOURCE_XHR},
};

/* Whether the media range list accept starts with a type of the given prefix ("image/"), or
 * names the given type anywhere ("text/css"). Case-insensitive, as media types are. */
static int accept_starts(const char *accept, const char *prefix)
{
    while (*accept == ' ' || *accept == '\t')
        accept++;
    return strncasecmp(accept, prefix, strlen(prefix)) == 0;
}

static int accept_has(const char *accept, const char *type)
{
    size_t n = strlen(type);

    for (const char *p = accept; (p = strcasestr(p, type)) != NULL; p += n) {
        char after = p[n];
        if ((p == accept || p[-1] == ',' || p[-1] == ' ' || p[-1] == '\t') &&
            (after == '\0' || after == ',' || after == ';' || after == ' '))
            return 1;
    }
    return 0;
}

enum brock_resource_type brock_resource_type_guess(const char *fetch_dest, const char *accept,
                                                   const char *content_type, const char *upgrade,
                                                   const char *ping_to)
{
    if (fetch_dest) {
        for (size_t i = 0; i < sizeof(dests) / sizeof(dests[0]); i++) {
            if (strcasecmp(fetch_dest, dests[i].dest) == 0) {
                /* A beacon's destination is "empty" too: its body's type tells it apart. */
                if (dests[i].type == BROCK_RESOURCE_XHR &&
                    ((content_type && brock_is_beacon_type(content_type, strlen(content_type))) ||
                     ping_to))
                    return BROCK_RESOURCE_PING;
                return dests[i].type;
            }
        }
    }
    if (ping_to || (content_type && brock_is_beacon_type(content_type, strlen(content_type))))
        return BROCK_RESOURCE_PING;
    if (upgrade && strcasecmp(upgrade, "websocket") == 0)
        return BROCK_RESOURCE_WEBSOCKET;
    if (!accept)
        return BROCK_RESOURCE_OTHER;
    if (accept_starts(accept, "text/html") || accept_starts(accept, "application/xhtml+xml"))
        return BROCK_RESOURCE_MAIN_FRAME;
    if (accept_starts(accept, "text/css"))
        return BROCK_RESOURCE_STYLESHEET;
    if (accept_starts(accept, "image/"))
        return BROCK_RESOURCE_IMAGE;
    if (accept_has(accept, "application/javascript") || accept_has(accept, "text/javascript") ||
        accept_has(accept, "application/ecmascript"))
        return BROCK_RESOURCE_SCRIPT;
    return BROCK_RESOURCE_OTHER;
}

/* The value of the first header named name (its length in *len), or NULL. */
static const char *header_value(const struct brock_header *h, size_t n, const char *name,
                                size_t *len)
{
    size_t nl = strlen(name);

    for (size_t i = 0; h && i < n; i++) {
        if (h[i].name && h[i].value && h[i].name_len == nl &&
            strncasecmp(h[i].name, name, nl) == 0) {
            *len = h[i].value_len;
            return h[i].value;
        }
    }
    return NULL;
}

/* The first header named name as a string of its own into buf (size bytes; a longer value
 * is cut, which no value this file reads needs), or NULL when there is none. */
static const char *header_text(const struct brock_header *h, size_t n, const char *name, char *buf,
                               size_t size)
{
    size_t len = 0;
    const char *v = header_value(h, n, name, &len);

    if (!v)
        return NULL;
    if (len >= size)
        len = size - 1;
    memcpy(buf, v, len);
    buf[len] = '\0';
    return buf;
}

static int value_is(const char *v, const char *want)
{
    return v && strcasecmp(v, want) == 0;
}

enum brock_resource_type brock_request_type(const char *method, const struct brock_header *h,
                                            size_t n)
{
    char dest[32], mode[32], accept[512], ct[128], upgrade[32], ping[8];
    const char *d = header_text(h, n, "sec-fetch-dest", dest, sizeof(dest));
    enum brock_resource_type t =
        brock_resource_type_guess(d, header_text(h, n, "accept", accept, sizeof(accept)),
                                  header_text(h, n, "content-type", ct, sizeof(ct)),
                                  header_text(h, n, "upgrade", upgrade, sizeof(upgrade)),
                                  header_text(h, n, "ping-to", ping, sizeof(ping)));

    /* sendBeacon()'s request: keepalive, credentials, no answer the page reads; fetch
     * metadata is all a proxy sees of it. */
    if (t == BROCK_RESOURCE_XHR && value_is(d, "empty") && value_is(method, "POST") &&
        value_is(header_text(h, n, "sec-fetch-mode", mode, sizeof(mode)), "no-cors"))
        return BROCK_RESOURCE_PING;
    return t;
}
