/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Where URLs are cleaned (clearurls.c's rules, then the names learned as link decoration,
 * linkdeco.c): what the proxy asks of the engine for a request, and the sites where the user
 * keeps links as they are, under brock's settings key "brockCleanUrlsOff" (a list of sites,
 * each matching its subdomains too).
 */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

#define OFF_KEY "brockCleanUrlsOff"

int brock_clean_site_off(const struct brock_engine *e, const char *site_host)
{
    return brock__settings_list_match(e, OFF_KEY, site_host);
}

int brock_clean_site_set(struct brock_engine *e, const char *site, int off)
{
    return brock__settings_list_set(e, OFF_KEY, site, off);
}

int brock_clean_sites_each(const struct brock_engine *e, int (*cb)(void *arg, const char *site),
                           void *arg)
{
    return brock__settings_list_each(e, OFF_KEY, cb, arg);
}

/* Whether from (a host; NULL: none) is another site than url's host: only a link from another
 * site decorates, and a name learned against it is taken out of those alone. Were it taken
 * out of every navigation, pages that had a person click their links could have brock strip a
 * name that a site's own forms need (q, id) on every site. */
static int cross_site(const char *from, const char *url)
{
    char host[BROCK_HOST_MAX], a[BROCK_HOST_MAX], b[BROCK_HOST_MAX];

    if (!from || !*from || brock_url_host(url, host) < 0 || brock_base_domain(host, a) < 0 ||
        brock_base_domain(from, b) < 0)
        return 0;
    return strcmp(a, b) != 0;
}

int brock_request_clean(struct brock_engine *e, const struct brock_request *r, char *out,
                        size_t size, struct brock_clean *info)
{
    const char *site;

    memset(info, 0, sizeof(*info));
    if (!r || !r->url)
        return brock__fail(e, BROCK_EINVAL, "a request to clean needs its URL");
    site = r->site && *r->site ? r->site : NULL;
    if (brock_setting(e, BROCK_SETTING_CLEAN_URLS) && !brock_clean_site_off(e, site) &&
        !brock__site_off(e, site) && !brock__client_off(e, r->client, site)) {
        int rc = brock_clean_url(e, r->url, out, size, info);

        /* A navigation from another site loses the names learned as link decoration too. */
        if (rc >= 0 && rc != BROCK_CLEAN_BLOCK && r->type == BROCK_RESOURCE_MAIN_FRAME &&
            cross_site(r->frame_host, out) && brock__link_params_strip(e, out, info)) {
            if (rc == BROCK_CLEAN_NONE) {
                rc = BROCK_CLEAN_STRIPPED;
                snprintf(info->provider, sizeof(info->provider), "learned");
            }
            info->result = (enum brock_clean_result)rc;
        }
        return rc;
    }
    if (strlen(r->url) >= size)
        return brock__fail(e, BROCK_EINVAL, "a URL of %zu bytes is longer than brock cleans",
                           strlen(r->url));
    memcpy(out, r->url, strlen(r->url) + 1);
    return BROCK_CLEAN_NONE;
}
