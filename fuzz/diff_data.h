/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Small lists for the differential targets, written once into a temporary folder (removed at
 * exit), so that their engines decide with every kind of list: a cookieblock list, site
 * fixes, multi-domain first parties, CNAME aliases (one to an address) and a widget. The
 * names are those of fuzz_names[], which the targets pick from. */
#ifndef BROCK_FUZZ_DIFF_DATA_H
#define BROCK_FUZZ_DIFF_DATA_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brock.h"

static const char *const fuzz_files[][2] = {
    {"pbconfig.json",
     "{\"dnt_policy_hashes\": {\"DNT Policy v1.0\": \"f3ef2c1e3a1b3e33e2dc8e1b1c0a4a0b5d6e7f80\"},"
     " \"sitefixes\": {\"ignore\": {\"tracker.example\": [\"www.news.example\"],"
     " \"1.2.3.4\": [\"shop.example\"]},"
     " \"yellowlist\": {\"ads.example\": [\"www.news.example\"]},"
     " \"gpc\": [\"www.shop.example\"]},"
     " \"yellowlist\": [\"yellow.example\", \"cdn.tracker.example\", \"cdnjs.cloudflare.com\"]}"},
    {"multi-domain-first-parties.json",
     "[[\"google.com\", \"youtube.com\", \"ytimg.com\"], [\"news.example\", \"newscdn.example\"],"
     " [\"bbc.co.uk\", \"bbci.co.uk\"]]"},
    {"cname_domains.json",
     "{\"metrics.shop.example\": \"shop.example.eulerian.net\","
     " \"t.news.example\": \"px.tracker.example\", \"ip.news.example\": \"1.2.3.4\","
     " \"c.newscdn.example\": \"news.example\"}"},
    {"socialwidgets.json",
     "{\"Example Video\": {\"domain\": \"video.example\", \"buttonSelectors\":"
     " [\"iframe[src^='https://video.example/']\"], \"replacementButton\":"
     " {\"unblockDomains\": [\"video.example\", \"*.videocdn.example\"], \"type\": 4}}}"},
};

/* Names the targets decide on and learn about: the lists' own, addresses and dotted numbers,
 * IPv6, public suffixes, names under wildcards and exceptions, upper case, a trailing dot,
 * punycode, and long ones (past what a kept answer holds). */
static const char *const fuzz_names[] = {
    "tracker.example",
    "px.tracker.example",
    "cdn.tracker.example",
    "yellow.example",
    "a.yellow.example",
    "ads.example",
    "www.news.example",
    "news.example",
    "t.news.example",
    "ip.news.example",
    "c.newscdn.example",
    "newscdn.example",
    "shop.example",
    "www.shop.example",
    "metrics.shop.example",
    "eulerian.net",
    "shop.example.eulerian.net",
    "google.com",
    "www.youtube.com",
    "i.ytimg.com",
    "video.example",
    "x.videocdn.example",
    "1.2.3.4",
    "2.2.3.4",
    "a.1.2.3.4",
    "1.2.3",
    "1.2.0x3.0x4",
    "0x7f000001",
    "10.0.0.1",
    "127.0.0.1",
    "localhost",
    "::1",
    "[2001:db8::1]",
    "co.uk",
    "bbc.co.uk",
    "www.bbci.co.uk",
    "x.github.io",
    "y.github.io",
    "www.ck",
    "a.x.ck",
    "xn--bcher-kva.de",
    "WWW.Tracker.EXAMPLE",
    "tracker.example.",
    "cdnjs.cloudflare.com",
    "a.b.c.d.e.f.g.h.i.j.k.l.m.n.tracker.example",
    "very-long-label-to-go-past-what-one-kept-answer-holds.for-names.tracker.example.com",
    "",
};

#define FUZZ_NAMES (sizeof(fuzz_names) / sizeof(fuzz_names[0]))

static char fuzz_data_dir[4096];

static void fuzz_data_remove(void)
{
    char path[4200];

    for (size_t i = 0; i < sizeof(fuzz_files) / sizeof(fuzz_files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", fuzz_data_dir, fuzz_files[i][0]);
        unlink(path);
    }
    rmdir(fuzz_data_dir);
}

/* The folder, made at the first call. */
static inline const char *fuzz_data(void)
{
    const char *tmp = getenv("TMPDIR");
    char path[4200];

    if (fuzz_data_dir[0])
        return fuzz_data_dir;
    snprintf(fuzz_data_dir, sizeof(fuzz_data_dir), "%s/brock-fuzz-data.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(fuzz_data_dir))
        abort();
    for (size_t i = 0; i < sizeof(fuzz_files) / sizeof(fuzz_files[0]); i++) {
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", fuzz_data_dir, fuzz_files[i][0]);
        f = fopen(path, "w");
        if (!f || fputs(fuzz_files[i][1], f) < 0 || fclose(f) != 0)
            abort();
    }
    atexit(fuzz_data_remove);
    return fuzz_data_dir;
}

/* A fresh memory-only engine on those lists, without the seed. */
static inline struct brock_engine *fuzz_engine_lists(void)
{
    struct brock_config cfg = {0};
    struct brock_engine *e = NULL;
    char err[512];

    cfg.no_seed = 1;
    cfg.data_dir = fuzz_data();
    if (brock_engine_open(&cfg, &e, err, sizeof(err)) != 0) {
        fprintf(stderr, "diff_data.h: %s\n", err);
        abort();
    }
    return e;
}

#endif
