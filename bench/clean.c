/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The cost of cleaning a request's URL by ClearURLs' rules, with every provider loaded, as
 * the proxy asks for it (brock_request_clean()): the median and 99th percentile of one call,
 * each timed alone, for URLs with no query, with one parameter that stays, with ten
 * parameters (campaign ones among them), and on the sites whose providers have many rules
 * (Amazon, Google); then the same through the plain path that runs every provider's
 * expression (brock__clean_url_plain()), which the fast path stands in for. Run by `make
 * bench`, not a test: `clean RULES` (ClearURLs' data.min.json); `clean RULES N` times the
 * fast path on the Nth kind of URL alone.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine.h"
#include "util/alloc.h"
#include "util/file.h"

#define CALLS 200000
#define SITES 500

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

    return x < y ? -1 : x > y;
}

/* One kind of URL, made for many sites. */
struct kind {
    const char *what;
    const char *pattern; /* each '#': the site's number */
};

/* pattern with each '#' replaced by n, into out (size bytes). */
static void make_url(const char *pattern, unsigned n, char *out, size_t size)
{
    size_t used = 0;

    for (const char *p = pattern; *p && used + 12 < size; p++) {
        if (*p == '#')
            used += (size_t)snprintf(out + used, size - used, "%u", n);
        else
            out[used++] = *p;
    }
    out[used] = '\0';
}

static const struct kind kinds[] = {
    {"no query", "https://www.site#.example/articles/2026/12/a-long-title-of-a-story.html"},
    {"one parameter that stays", "https://shop#.example/item?id=#"},
    {"ten parameters, three tracking",
     "https://news#.example/story?utm_source=mail&utm_medium=email&id=#&page=2&sort=new&"
     "lang=en&view=full&ref_src=x&utm_campaign=winter&theme=dark"},
    {"Amazon product page", "https://www.amazon.com/dp/B08N5W#/ref=sr_1_1?keywords=lamp&qid=16"
                            "11234567&sr=8-1&th=1"},
    {"Google search", "https://www.google.com/search?q=brock+#&sca_esv=1&ei=abc&ved=0ahUKE&"
                      "uact=5&oq=brock"},
};

typedef int (*clean_fn)(struct brock_engine *e, const struct brock_request *r, char *out,
                        size_t size, struct brock_clean *info);

static int plain(struct brock_engine *e, const struct brock_request *r, char *out, size_t size,
                 struct brock_clean *info)
{
    return brock__clean_url_plain(e, r->url, out, size, info);
}

static void run(struct brock_engine *e, const struct kind *k, clean_fn fn, const char *path,
                uint32_t *ns)
{
    static char urls[SITES][512];
    char out[BROCK_URL_MAX];
    size_t changed = 0;
    double sum = 0;

    for (unsigned i = 0; i < SITES; i++)
        make_url(k->pattern, i, urls[i], sizeof(urls[i]));
    for (size_t i = 0; i < CALLS; i++) {
        struct brock_request r = {.url = urls[i % SITES], .site = "reader.example"};
        struct brock_clean info;
        uint64_t t0 = now_ns();
        int rc = fn(e, &r, out, sizeof(out), &info);

        ns[i] = (uint32_t)(now_ns() - t0);
        changed += rc > 0;
    }
    qsort(ns, CALLS, sizeof(*ns), cmp_u32);
    for (size_t i = 0; i < CALLS; i++)
        sum += ns[i];
    printf("clean, %-6s %-32s median %6u ns, p99 %6u ns, mean %7.0f ns (%zu%% changed)\n", path,
           k->what, ns[CALLS / 2], ns[CALLS * 99 / 100], sum / CALLS, changed * 100 / CALLS);
}

int main(int argc, char **argv)
{
    struct brock_config cfg = {.no_seed = 1};
    struct brock_engine *e;
    char err[512];
    size_t len = 0;
    char *rules = NULL;
    uint32_t *ns = calloc(CALLS, sizeof(*ns));

    if (argc < 2 || file_read(argv[1], (size_t)1 << 24, &rules, &len) != 0 || !ns) {
        fprintf(stderr, "usage: clean RULES (ClearURLs' data.min.json)\n");
        return 2;
    }
    if (brock_engine_open(&cfg, &e, err, sizeof(err)) != 0 ||
        brock_clearurls_load(e, rules, len) != 0) {
        fprintf(stderr, "bench: %s\n", err[0] ? err : brock_engine_errmsg(e));
        return 1;
    }
    printf("clean: %zu providers\n", brock_clearurls_providers(e, NULL));
    /* `clean RULES N`: the fast path on the Nth kind alone, for a profiler. */
    if (argc > 2) {
        size_t k = (size_t)strtoul(argv[2], NULL, 10);

        if (k < sizeof(kinds) / sizeof(kinds[0]))
            run(e, &kinds[k], brock_request_clean, "fast", ns);
    } else {
        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
            run(e, &kinds[k], brock_request_clean, "fast", ns);
        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
            run(e, &kinds[k], plain, "plain", ns);
    }
    brock_engine_free(e);
    mem_free(rules);
    free(ns);
    return 0;
}
