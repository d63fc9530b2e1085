/* SPDX-License-Identifier: GPL-3.0-or-later */
/* First-party inference: Referer, Origin, fetch metadata, and the per-client memory of
 * top-level pages and their frames. */
#include "test.h"

#include <stdio.h>
#include <string.h>

#include "proxy/firstparty.h"
#include "proxy/limits.h"
#include "util/alloc.h"

struct step {
    const char *client;
    const char *host;
    const char *referer, *origin, *mode, *dest, *site_hdr;
    enum firstparty_result want;
    const char *want_site;
    const char *accept, *uir; /* Accept, Upgrade-Insecure-Requests */
};

static void run_steps(const char *name, const struct step *steps, size_t n)
{
    struct firstparty_memory *m = mem_malloc(sizeof(*m));

    assert_non_null(m);
    firstparty_memory_init(m);
    for (size_t i = 0; i < n; i++) {
        const struct step *s = &steps[i];
        struct firstparty_request r = {s->host, s->referer,  s->origin, s->mode,
                                       s->dest, s->site_hdr, s->accept, s->uir};
        char site[BROCK_HOST_MAX];
        enum firstparty_result got = firstparty_infer(m, s->client, &r, site);

        if (got != s->want || strcmp(site, s->want_site) != 0)
            fail_msg("%s, step %zu (%s): got %d '%s', expected %d '%s'", name, i, s->host, got,
                     site, s->want, s->want_site);
    }
    firstparty_memory_cleanup(m);
    mem_free(m);
}

#define RUN(steps) run_steps(#steps, steps, sizeof(steps) / sizeof(steps[0]))

static void test_headers(void **state)
{
    static const struct step steps[] = {
        /* Neither header nor fetch metadata: an unknown page's (an image of a page that sends
         * no referrer, a program), decided as its third party and never learned from... */
        {"c", "a.test", NULL, NULL, NULL, NULL, NULL, FIRSTPARTY_UNKNOWN, "", NULL, NULL},
        {"c", "a.test", NULL, NULL, NULL, NULL, NULL, FIRSTPARTY_UNKNOWN, "", "image/avif,*/*",
         NULL},
        /* ... but a browser's plain-HTTP navigation (typed, a bookmark) is its own page, a
         * guess; a page's request cannot send Upgrade-Insecure-Requests. */
        {"c", "a.test", NULL, NULL, NULL, NULL, NULL, FIRSTPARTY_GUESS, "a.test",
         "text/html,application/xhtml+xml,*/*;q=0.8", "1"},
        {"c", "a.test", NULL, NULL, NULL, NULL, NULL, FIRSTPARTY_UNKNOWN, "", "text/html", NULL},
        {"c", "a.test", NULL, NULL, NULL, NULL, NULL, FIRSTPARTY_UNKNOWN, "", "text/htmlx", "1"},
        /* Same-site fetch metadata: the host's own site; "none" (typed, not a navigation
         * the proxy saw as one) a guess. */
        {"c", "a.test", NULL, NULL, "cors", "empty", "same-origin", FIRSTPARTY_KNOWN, "a.test",
         NULL, NULL},
        {"c", "a.test", NULL, NULL, "no-cors", "image", "none", FIRSTPARTY_GUESS, "a.test", NULL,
         NULL},
        /* The Referer's host, normalised: a page the client was never seen to navigate to is
         * a guess. */
        {"c", "t.test", "http://WWW.Site.TEST:8080/p?q#f", NULL, NULL, NULL, NULL, FIRSTPARTY_GUESS,
         "www.site.test", NULL, NULL},
        {"c", "t.test", "https://user:pw@site.test/", NULL, NULL, NULL, NULL, FIRSTPARTY_GUESS,
         "site.test", NULL, NULL},
        {"c", "t.test", "http://[::1]:81/x", NULL, NULL, NULL, NULL, FIRSTPARTY_GUESS, "::1", NULL,
         NULL},
        /* The Origin when there is no Referer; "null" cannot be told. */
        {"c", "t.test", NULL, "https://shop.test", NULL, NULL, NULL, FIRSTPARTY_GUESS, "shop.test",
         NULL, NULL},
        {"c", "t.test", NULL, "null", NULL, NULL, NULL, FIRSTPARTY_UNKNOWN, "", NULL, NULL},
        /* The Referer wins over the Origin. */
        {"c", "t.test", "http://r.test/", "http://o.test", NULL, NULL, NULL, FIRSTPARTY_GUESS,
         "r.test", NULL, NULL},
        /* A Referer that is not a URL: unknown. */
        {"c", "t.test", "garbage", NULL, NULL, NULL, NULL, FIRSTPARTY_UNKNOWN, "", NULL, NULL},
        /* A top-level navigation is its own page, whatever its Referer... */
        {"c", "b.test", "http://a.test/", NULL, "navigate", "document", "cross-site",
         FIRSTPARTY_KNOWN, "b.test", NULL, NULL},
        /* ...and from then on a page the record knows, by Referer or by Origin. */
        {"c", "t.test", "https://b.test/story", NULL, "no-cors", "image", "cross-site",
         FIRSTPARTY_KNOWN, "b.test", NULL, NULL},
        {"c", "t.test", NULL, "https://b.test", "cors", "empty", "cross-site", FIRSTPARTY_KNOWN,
         "b.test", NULL, NULL},
        /* Another client's pages are not this one's. */
        {"d", "t.test", "https://b.test/story", NULL, "no-cors", "image", "cross-site",
         FIRSTPARTY_GUESS, "b.test", NULL, NULL},
    };

    (void)state;
    RUN(steps);
}

static void test_frames(void **state)
{
    static const struct step steps[] = {
        {"c1", "news.test", NULL, NULL, "navigate", "document", "none", FIRSTPARTY_KNOWN,
         "news.test", NULL, NULL},
        /* The page opens a third-party frame... */
        {"c1", "widget.test", "http://news.test/story", NULL, "navigate", "iframe", "cross-site",
         FIRSTPARTY_KNOWN, "news.test", NULL, NULL},
        /* ...whose own requests are judged against the top-level page. */
        {"c1", "tracker.test", "http://widget.test/embed", NULL, "no-cors", "image", "cross-site",
         FIRSTPARTY_KNOWN, "news.test", NULL, NULL},
        /* A frame inside that frame still belongs to the top-level page. */
        {"c1", "inner.test", "http://widget.test/embed", NULL, "navigate", "iframe", "cross-site",
         FIRSTPARTY_KNOWN, "news.test", NULL, NULL},
        {"c1", "tracker.test", "http://inner.test/", NULL, "no-cors", "script", "cross-site",
         FIRSTPARTY_KNOWN, "news.test", NULL, NULL},
        /* A frame whose document brock never saw (an ad's, from a cache) is only a guess. */
        {"c1", "tracker.test", "http://adframe.test/", NULL, "no-cors", "image", "cross-site",
         FIRSTPARTY_GUESS, "adframe.test", NULL, NULL},
        /* Another client has no such frames. */
        {"c2", "tracker.test", "http://widget.test/embed", NULL, NULL, NULL, NULL, FIRSTPARTY_GUESS,
         "widget.test", NULL, NULL},
        /* A frame opened by a page the record does not know stays a guess, inside too. */
        {"c2", "ads.test", "http://blog.test/", NULL, "navigate", "iframe", "cross-site",
         FIRSTPARTY_GUESS, "blog.test", NULL, NULL},
        {"c2", "tracker.test", "http://ads.test/slot", NULL, "no-cors", "image", "cross-site",
         FIRSTPARTY_GUESS, "blog.test", NULL, NULL},
        /* Visiting the frame's site at top level makes it a page of its own again. */
        {"c1", "widget.test", NULL, NULL, "navigate", "document", "none", FIRSTPARTY_KNOWN,
         "widget.test", NULL, NULL},
        {"c1", "tracker.test", "http://widget.test/", NULL, "no-cors", "image", "cross-site",
         FIRSTPARTY_KNOWN, "widget.test", NULL, NULL},
        /* The earlier page is still known (another tab, or the back button). */
        {"c1", "tracker.test", "http://news.test/", NULL, "no-cors", "image", "cross-site",
         FIRSTPARTY_KNOWN, "news.test", NULL, NULL},
        /* A cross-site request with no referrer at all: a page that hid its address, which
         * nothing tells. */
        {"c1", "tracker.test", NULL, NULL, "no-cors", "image", "cross-site", FIRSTPARTY_UNKNOWN, "",
         NULL, NULL},
        {"c3", "tracker.test", NULL, NULL, "no-cors", "image", "cross-site", FIRSTPARTY_UNKNOWN, "",
         NULL, NULL},
        /* A popup the page opened to the tracker's own site does not make the tracker's next
         * image without a referrer a first party. */
        {"c4", "news.test", NULL, NULL, "navigate", "document", "none", FIRSTPARTY_KNOWN,
         "news.test", NULL, NULL},
        {"c4", "tracker.test", NULL, NULL, "navigate", "document", "cross-site", FIRSTPARTY_KNOWN,
         "tracker.test", NULL, NULL},
        {"c4", "tracker.test", NULL, NULL, "no-cors", "image", "cross-site", FIRSTPARTY_UNKNOWN, "",
         NULL, NULL},
    };

    (void)state;
    RUN(steps);
}

/* Memory stays bounded: past the limits the oldest clients and frames are forgotten. */
static void test_bounds(void **state)
{
    struct firstparty_memory *m = mem_malloc(sizeof(*m));
    char client[32], host[64], site[BROCK_HOST_MAX];

    (void)state;
    assert_non_null(m);
    firstparty_memory_init(m);
    for (int i = 0; i < LIMIT_FP_CLIENTS + 10; i++) {
        struct firstparty_request top = {"page.test", NULL, NULL, "navigate",
                                         "document",  NULL, NULL, NULL};

        snprintf(client, sizeof(client), "10.0.0.%d", i);
        assert_int_equal(firstparty_infer(m, client, &top, site), FIRSTPARTY_KNOWN);
    }
    assert_int_equal(m->n, LIMIT_FP_CLIENTS);
    {
        /* 10.0.0.1 was among the first, forgotten: it navigates again. */
        struct firstparty_request top = {"page.test", NULL, NULL, "navigate",
                                         "document",  NULL, NULL, NULL};

        assert_int_equal(firstparty_infer(m, "10.0.0.1", &top, site), FIRSTPARTY_KNOWN);
    }
    for (int i = 0; i < LIMIT_FP_FRAMES + 5; i++) {
        struct firstparty_request frame = {
            host, "http://page.test/", NULL, "navigate", "iframe", NULL, NULL, NULL};

        snprintf(host, sizeof(host), "frame%d.test", i);
        assert_int_equal(firstparty_infer(m, "10.0.0.1", &frame, site), FIRSTPARTY_KNOWN);
        assert_string_equal(site, "page.test");
    }
    {
        /* The first frames made room for the last. */
        struct firstparty_request old = {
            "t.test", "http://frame0.test/", NULL, NULL, NULL, NULL, NULL, NULL};
        struct firstparty_request recent = {
            "t.test", "http://frame36.test/", NULL, NULL, NULL, NULL, NULL, NULL};

        assert_int_equal(firstparty_infer(m, "10.0.0.1", &old, site), FIRSTPARTY_GUESS);
        assert_string_equal(site, "frame0.test");
        assert_int_equal(firstparty_infer(m, "10.0.0.1", &recent, site), FIRSTPARTY_KNOWN);
        assert_string_equal(site, "page.test");
    }
    /* So did the first top-level pages. */
    for (int i = 0; i < LIMIT_FP_TOPS + 1; i++) {
        struct firstparty_request top = {host,       NULL, NULL, "navigate",
                                         "document", NULL, NULL, NULL};

        snprintf(host, sizeof(host), "top%d.test", i);
        assert_int_equal(firstparty_infer(m, "10.0.0.2", &top, site), FIRSTPARTY_KNOWN);
    }
    {
        struct firstparty_request old = {
            "t.test", "http://top0.test/", NULL, NULL, NULL, NULL, NULL, NULL};
        struct firstparty_request recent = {
            "t.test", "http://top1.test/", NULL, NULL, NULL, NULL, NULL, NULL};

        assert_int_equal(firstparty_infer(m, "10.0.0.2", &old, site), FIRSTPARTY_GUESS);
        assert_int_equal(firstparty_infer(m, "10.0.0.2", &recent, site), FIRSTPARTY_KNOWN);
        assert_string_equal(site, "top1.test");
    }
    firstparty_memory_cleanup(m);
    mem_free(m);
}

/* What the client's pages loaded as third parties, and when they last did. */
static void test_seen(void **state)
{
    struct firstparty_memory *m = mem_malloc(sizeof(*m));
    struct firstparty_request r = {.host = "t.test", .referer = "http://frame.test/x"};
    char site[BROCK_HOST_MAX], host[64];

    (void)state;
    assert_non_null(m);
    firstparty_memory_init(m);
    assert_int_equal(firstparty_seen_at(m, "c", "site.test", "frame.test"), -1);
    firstparty_saw(m, "c", "site.test", "frame.test", 1000);
    assert_int_equal(firstparty_seen_at(m, "c", "site.test", "frame.test"), 1000);
    /* Loaded again later: the later time. Told of an older load (by another worker that
     * heard late): the later time still. */
    firstparty_saw(m, "c", "site.test", "frame.test", 5000);
    assert_int_equal(firstparty_seen_at(m, "c", "site.test", "frame.test"), 5000);
    firstparty_saw(m, "c", "site.test", "frame.test", 3000);
    assert_int_equal(firstparty_seen_at(m, "c", "site.test", "frame.test"), 5000);
    assert_int_equal(firstparty_seen_at(m, "other", "site.test", "frame.test"), -1);
    assert_int_equal(firstparty_seen_at(m, "c", "site.tes", "frame.test"), -1);
    assert_int_equal(firstparty_seen_at(m, "c", "site.test", "frame.tes"), -1);
    assert_int_equal(firstparty_seen_at(m, "c", "frame.test", "site.test"), -1);
    /* Seen loaded is not a frame's page: its requests are still a guess on its own host. */
    assert_int_equal(firstparty_infer(m, "c", &r, site), FIRSTPARTY_GUESS);
    assert_string_equal(site, "frame.test");
    assert_int_equal(firstparty_page_of(m, "c", "nowhere.test", site), FIRSTPARTY_GUESS);
    assert_string_equal(site, "nowhere.test");
    /* The ring keeps the newest LIMIT_FP_SEEN pairs, each with its time. */
    for (int i = 0; i < LIMIT_FP_SEEN; i++) {
        snprintf(host, sizeof(host), "h%d.test", i);
        firstparty_saw(m, "c", "site.test", host, 6000 + i);
    }
    assert_int_equal(firstparty_seen_at(m, "c", "site.test", "frame.test"), -1);
    assert_int_equal(firstparty_seen_at(m, "c", "site.test", "h0.test"), 6000);
    snprintf(host, sizeof(host), "h%d.test", LIMIT_FP_SEEN - 1);
    assert_int_equal(firstparty_seen_at(m, "c", "site.test", host), 6000 + LIMIT_FP_SEEN - 1);
    firstparty_memory_cleanup(m);
    mem_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_headers),
        cmocka_unit_test(test_frames),
        cmocka_unit_test(test_bounds),
        cmocka_unit_test(test_seen),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
