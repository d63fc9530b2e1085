/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Engine speed against the full seed: the time of one decision (median and 99th percentile,
 * each call timed alone) for a mix of seeded trackers, their subdomains, unknown names and
 * first-party hosts on many sites, without and with 10,000 choices for one site only (and
 * the lookup of those choices alone), observations per second, and learning from an HTTP
 * Archive in entries per second. Run by `make bench`, not a test; `engine DATA_DIR decide`
 * measures the decisions alone, `engine DATA_DIR sites` the lookup of choices for one site.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/names.h"
#include "util/buf.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x2545f4914f6cdd1dULL;

static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* ---- decisions, each call timed alone ---- */

/* A request and the page it is for. */
struct pair {
    const char *host;
    const char *site;
    const char *url;
    const char *base; /* the site's base domain */
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The median and 99th percentile of n samples (sorted in place). */
static void print_quantiles(const char *what, uint32_t *ns, size_t n, size_t denied)
{
    double sum = 0;

    qsort(ns, n, sizeof(*ns), cmp_u32);
    for (size_t i = 0; i < n; i++)
        sum += ns[i];
    printf("%-44s median %5u ns, p99 %5u ns, mean %6.0f ns (%zu calls, %zu denied)\n", what,
           ns[n / 2], ns[n * 99 / 100], sum / (double)n, n, denied);
}

/* Decides n requests drawn from pairs[0..set), timing each call alone with the clock read
 * around it (the clock's own cost, shown first, is in every sample). */
static void bench_decide(struct brock_engine *e, const struct pair *pairs, size_t set, int with_url,
                         uint32_t *ns, size_t n, const char *what)
{
    struct brock_decision d;
    size_t denied = 0;

    for (size_t i = 0; i < n; i++) {
        const struct pair *p = &pairs[next_rand() % set];
        struct brock_request r = {
            .url = p->url, .host = p->host, .site = p->site, .type = BROCK_RESOURCE_SCRIPT};
        uint64_t t0 = now_ns();
        int rc = with_url ? brock_decide_request(e, &r, &d) : brock_decide(e, p->host, p->site, &d);
        uint64_t t1 = now_ns();
        ns[i] = (uint32_t)(t1 - t0);
        if (rc == 0 && d.effect == BROCK_DENY)
            denied++;
    }
    print_quantiles(what, ns, n, denied);
}

static void bench_clock(uint32_t *ns, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t t0 = now_ns();
        ns[i] = (uint32_t)(now_ns() - t0);
    }
    print_quantiles("clock_gettime alone (in every sample)", ns, n, 0);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Appends s to the packed names at *used (of cap bytes), returning where it starts. */
static const char *pack(char *text, size_t *used, size_t cap, const char *s)
{
    size_t n = strlen(s) + 1;
    char *at = text + *used;

    if (*used + n > cap)
        return "";
    memcpy(at, s, n);
    *used += n;
    return at;
}

/* Hosts as a browser meets them: seeded trackers, subdomains of them, unknown names, and the
 * page's own hosts; pages of many sites, a few under a two-label public suffix. The names are
 * packed one after another, as short strings sit in memory. */
static struct pair *make_pairs(struct brock_engine *e, size_t npairs, char **text)
{
    struct pair *pairs = calloc(npairs, sizeof(*pairs));
    size_t it = 0, used = 0, cap = npairs * 4 * 64, nkeys = 0, next = 0;
    char *buf = malloc(cap), host[BROCK_HOST_MAX], site[BROCK_HOST_MAX], url[BROCK_HOST_MAX];
    const char **keys = calloc(e->actions.len + 1, sizeof(*keys)), *key = "";

    if (!pairs || !buf || !keys)
        return NULL;
    /* The seed's names in order, so that every run asks the same questions. */
    while (strmap_next(&e->actions, &it, &keys[nkeys], NULL))
        nkeys++;
    qsort(keys, nkeys, sizeof(*keys), cmp_str);
    for (size_t i = 0; i < npairs; i++) {
        unsigned s = (unsigned)(next_rand() % 500), kind = (unsigned)(next_rand() % 100);

        snprintf(site, sizeof(site), s % 5 ? "www.site%u.example" : "news.site%u.co.uk", s);
        if (kind < 60 && !nkeys)
            kind = 99;
        else if (kind < 60)
            key = keys[next++ * 7919 % nkeys];
        if (kind < 40)
            snprintf(host, sizeof(host), "%s", key);
        else if (kind < 60)
            snprintf(host, sizeof(host), "cdn%u.%s", (unsigned)(next_rand() % 100), key);
        else if (kind < 85)
            snprintf(host, sizeof(host), "h%llx.example%u.com",
                     (unsigned long long)(next_rand() & 0xffffff), (unsigned)(next_rand() % 1000));
        else
            snprintf(host, sizeof(host), "static%u.%s", (unsigned)(next_rand() % 4),
                     strchr(site, '.') + 1);
        snprintf(url, sizeof(url), "https://%.200s/js/app.js?v=%u", host, s);
        pairs[i].host = pack(buf, &used, cap, host);
        pairs[i].site = pack(buf, &used, cap, site);
        pairs[i].url = pack(buf, &used, cap, url);
        pairs[i].base = pack(buf, &used, cap, brock__base(e, site));
    }
    free(keys);
    *text = buf;
    return pairs;
}

/* The lookup of a choice for one site alone (what every decision on a site does first), n
 * calls over the pairs, timed together: the mean time of one. */
static void bench_site_lookup(struct brock_engine *e, const struct pair *pairs, size_t set,
                              size_t n, const char *what)
{
    const char *source;
    size_t found = 0;
    double t0 = now_s(), t;

    for (size_t i = 0; i < n; i++) {
        const struct pair *p = &pairs[next_rand() % set];

        found += brock__site_action_find(e, p->base, p->host, &source) != BROCK_NOACTION;
    }
    t = now_s() - t0;
    printf("%-44s mean %5.0f ns (%zu calls, %zu found)\n", what, t * 1e9 / (double)n, n, found);
}

/* n choices for one site only, one on each of n sites: the pages' sites (www.siteN.example)
 * among them, each allowing a name that is not a tracker, so that the decisions stay the
 * same and only the lookup's cost shows. */
static int add_site_choices(struct brock_engine *e, unsigned n)
{
    char site[64], domain[64];

    for (unsigned i = 0; i < n; i++) {
        snprintf(site, sizeof(site), "site%u.example", i);
        snprintf(domain, sizeof(domain), "c%u.choice%u.net", i % 7, i);
        if (brock_set_site_action(e, site, domain, BROCK_USER_ALLOW) < 0) {
            fprintf(stderr, "bench: %s\n", brock_engine_errmsg(e));
            return -1;
        }
    }
    return 0;
}

/* Observations straight into the engine: what the proxy does per third-party exchange. */
static int bench_observe(struct brock_engine *e)
{
    double t0, t;
    size_t nobs = 1000000, recorded = 0;
    char host[64], site[64], cookie[40];
    struct brock_header h = {"Cookie", 6, cookie, 0};
    struct brock_observation o = {
        .host = host, .site = site, .headers = &h, .n_headers = 1, .flags = 0, .time_ms = 1};
    struct brock_learned l;

    t0 = now_s();
    for (size_t i = 0; i < nobs; i++) {
        uint64_t r = next_rand();
        snprintf(host, sizeof(host), "px.tracker%u.example", (unsigned)(r % 20000));
        snprintf(site, sizeof(site), "www.site%u.example", (unsigned)((r >> 20) % 3000));
        h.value_len = (size_t)snprintf(cookie, sizeof(cookie), "uid=%08x", (unsigned)r);
        if (brock_observe(e, &o, &l) == 0 && l.recorded)
            recorded++;
    }
    t = now_s() - t0;
    printf("observe: %zu observations in %.3f s: %.0f per second (%zu recorded)\n", nobs, t,
           (double)nobs / t, recorded);
    return 0;
}

/* A HAR of third-party requests with identifying cookies from many sites, learned from. */
static int bench_har(struct brock_engine *e)
{
    size_t entries = 200000, len;
    struct brock_stats st;
    struct buf har;
    double t0, t;
    char *text;

    buf_init(&har, (size_t)1 << 31);
    if (buf_puts(&har, "{\"log\": {\"version\": \"1.2\", \"entries\": [") < 0)
        return -1;
    for (size_t i = 0; i < entries; i++) {
        if (buf_printf(&har,
                       "%s{\"startedDateTime\": \"2026-01-01T00:00:00.000Z\", \"request\": "
                       "{\"method\": \"GET\", \"url\": \"https://t%zu.hartracker%zu.example/p\", "
                       "\"headers\": [{\"name\": \"Referer\", \"value\": "
                       "\"https://www.site%zu.example/\"}, {\"name\": \"Cookie\", \"value\": "
                       "\"uid=%016llx\"}]}, \"response\": {\"status\": 200, \"headers\": []}}",
                       i ? "," : "", i % 7, i % 5000, i % 997, (unsigned long long)next_rand()) < 0)
            return -1;
    }
    if (buf_puts(&har, "]}}") < 0)
        return -1;
    text = buf_detach(&har, &len);
    t0 = now_s();
    if (brock_learn_har(e, "bench.har", text, len, NULL, NULL, NULL, &st)) {
        fprintf(stderr, "bench: %s\n", brock_engine_errmsg(e));
        return -1;
    }
    t = now_s() - t0;
    printf("learn (JSON parsing included): %zu HAR entries (%.1f MB) in %.3f s: %.0f entries per "
           "second, "
           "%zu recorded, %zu blocked\n",
           st.entries, (double)len / 1e6, t, (double)st.entries / t, st.recorded, st.blocked);
    free(text);
    return 0;
}

int main(int argc, char **argv)
{
    struct brock_config cfg = {0};
    struct brock_engine *e;
    char err[512], *pair_text;
    size_t npairs = 200000, warm = 2000, calls = 1000000;
    int sites_only = argc > 2 && !strcmp(argv[2], "sites");
    struct pair *pairs;
    uint32_t *ns;

    cfg.data_dir = argc > 1 ? argv[1] : BROCK_DEFAULT_DATA_DIR;
    if (brock_engine_open(&cfg, &e, err, sizeof(err))) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    pairs = make_pairs(e, npairs, &pair_text);
    ns = calloc(calls, sizeof(*ns));
    if (!pairs || !ns)
        return 1;

    /* Warm: a browsing session's few thousand (host, page) pairs, decided over and over.
     * Cold: 200,000 pairs, more than any cache of recent answers holds. */
    if (sites_only) {
        bench_site_lookup(e, pairs, npairs, calls, "site choice lookup, none");
        if (add_site_choices(e, 10000) < 0)
            return 1;
        bench_site_lookup(e, pairs, npairs, calls, "site choice lookup, 10,000 choices");
        goto out;
    }
    bench_clock(ns, calls);
    bench_decide(e, pairs, warm, 0, ns, calls, "brock_decide, warm (2,000 pairs)");
    bench_decide(e, pairs, npairs, 0, ns, calls, "brock_decide, cold (200,000 pairs)");
    bench_decide(e, pairs, warm, 1, ns, calls, "brock_decide_request, warm (2,000 pairs)");
    bench_decide(e, pairs, npairs, 1, ns, calls, "brock_decide_request, cold (200,000 pairs)");
    /* The same cold decisions with 10,000 choices for one site only present. */
    bench_site_lookup(e, pairs, npairs, calls, "site choice lookup, none");
    if (add_site_choices(e, 10000) < 0)
        return 1;
    bench_decide(e, pairs, npairs, 0, ns, calls, "brock_decide, cold, 10,000 site choices");
    bench_site_lookup(e, pairs, npairs, calls, "site choice lookup, 10,000 choices");
    if (argc > 2 && !strcmp(argv[2], "decide"))
        goto out;

    if (bench_observe(e) < 0 || bench_har(e) < 0)
        return 1;
out:
    free(pairs);
    free(pair_text);
    free(ns);
    brock_engine_free(e);
    return 0;
}
