/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * Engine speed against the full seed: decisions per second for random hosts (a mix of
 * seeded trackers, their subdomains and unknown names), observations per second, and
 * learning from an HTTP Archive in entries per second. Run by `make bench`, not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
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

int main(int argc, char **argv)
{
    struct brock_config cfg = {0};
    struct brock_engine *e;
    char err[512], (*hosts)[BROCK_HOST_MAX];
    const char *key;
    size_t n = 0, it = 0, nhosts = 100000, rounds = 2000000, entries = 200000, len;
    struct brock_decision d;
    struct buf har;
    double t0, t;
    size_t blocked = 0;
    struct brock_stats st;
    char *text;

    cfg.data_dir = argc > 1 ? argv[1] : BROCK_DEFAULT_DATA_DIR;
    if (brock_engine_open(&cfg, &e, err, sizeof(err))) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    hosts = calloc(nhosts, sizeof(*hosts));
    if (!hosts)
        return 1;
    while (n < nhosts / 2 && strmap_next(&e->actions, &it, &key, NULL)) {
        snprintf(hosts[n++], BROCK_HOST_MAX, "%s", key);
        if (n < nhosts / 2)
            snprintf(hosts[n++], BROCK_HOST_MAX, "cdn%u.%s", (unsigned)(next_rand() % 100), key);
    }
    while (n < nhosts)
        snprintf(hosts[n++], BROCK_HOST_MAX, "h%llx.example%u.com",
                 (unsigned long long)(next_rand() & 0xffffff), (unsigned)(next_rand() % 1000));

    /* A browsing session touches a few thousand hosts; a cold pass spreads over all 100,000. */
    for (size_t set = 2000;; set = nhosts) {
        blocked = 0;
        t0 = now_s();
        for (size_t i = 0; i < rounds; i++) {
            if (brock_decide(e, hosts[next_rand() % set], "www.news-site.example", &d) == 0 &&
                d.effect == BROCK_DENY)
                blocked++;
        }
        t = now_s() - t0;
        printf("decide (%zu hosts): %zu decisions in %.3f s: %.0f per second, %.0f ns each "
               "(%zu blocked)\n",
               set, rounds, t, (double)rounds / t, t * 1e9 / (double)rounds, blocked);
        if (set == nhosts)
            break;
    }

    /* Observations straight into the engine: what the proxy does per third-party exchange. */
    {
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
    }

    /* A HAR of third-party requests with identifying cookies from many sites. */
    buf_init(&har, (size_t)1 << 31);
    if (buf_puts(&har, "{\"log\": {\"version\": \"1.2\", \"entries\": [") < 0)
        return 1;
    for (size_t i = 0; i < entries; i++) {
        if (buf_printf(&har,
                       "%s{\"startedDateTime\": \"2026-01-01T00:00:00.000Z\", \"request\": "
                       "{\"method\": \"GET\", \"url\": \"https://t%zu.hartracker%zu.example/p\", "
                       "\"headers\": [{\"name\": \"Referer\", \"value\": "
                       "\"https://www.site%zu.example/\"}, {\"name\": \"Cookie\", \"value\": "
                       "\"uid=%016llx\"}]}, \"response\": {\"status\": 200, \"headers\": []}}",
                       i ? "," : "", i % 7, i % 5000, i % 997,
                       (unsigned long long)next_rand()) < 0)
            return 1;
    }
    if (buf_puts(&har, "]}}") < 0)
        return 1;
    text = buf_detach(&har, &len);
    t0 = now_s();
    if (brock_learn_har(e, "bench.har", text, len, NULL, NULL, NULL, &st)) {
        fprintf(stderr, "bench: %s\n", brock_engine_errmsg(e));
        return 1;
    }
    t = now_s() - t0;
    printf("learn (JSON parsing included): %zu HAR entries (%.1f MB) in %.3f s: %.0f entries per second, "
           "%zu recorded, %zu blocked\n",
           st.entries, (double)len / 1e6, t, (double)st.entries / t, st.recorded, st.blocked);
    free(text);
    free(hosts);
    brock_engine_free(e);
    return 0;
}
