/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The hosts passed through unseen (src/engine/passthrough.c, src/proxy/passthrough.c): the
 * state's list (the user's entries and patterns, those learned from refusals, capped oldest
 * first, a shipped host taken off), the shipped list as read from AdGuard's files, and the
 * count of refusals that passes a host through. */
#include "test.h"

#include <string.h>

#include "engine/engine.h"
#include "proxy/passthrough.h"

static int count_entries(void *arg, const struct brock_passthrough *p)
{
    size_t *n = arg;

    (void)p;
    (*n)++;
    return 0;
}

static size_t entries(struct brock_engine *e)
{
    size_t n = 0;

    assert_int_equal(brock_passthrough_each(e, count_entries, &n), 0);
    return n;
}

static void test_state_list(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    struct brock_passthrough p;

    (void)state;
    assert_int_equal(brock_passthrough_add(e, "*.Bank.example", "my bank", 1000, 0), 0);
    assert_int_equal(brock_passthrough_add(e, "App.Example.", NULL, 2000, 0), 0);
    assert_int_equal(brock_passthrough_find(e, "www.bank.example", &p), 1);
    assert_string_equal(p.host, "*.bank.example");
    assert_string_equal(p.why, "my bank");
    assert_int_equal(p.time_ms, 1000);
    assert_int_equal(p.learned, 0);
    assert_int_equal(brock_passthrough_find(e, "bank.example", NULL), 0);
    assert_int_equal(brock_passthrough_find(e, "app.example", NULL), 1);
    assert_int_equal(brock_passthrough_find(e, "x.app.example", NULL), 0);
    /* What the user said stays theirs. */
    assert_int_equal(brock_passthrough_add(e, "app.example", "refused", 3000, 1), 0);
    assert_int_equal(brock_passthrough_find(e, "app.example", &p), 1);
    assert_int_equal(p.learned, 0);
    assert_int_equal(p.time_ms, 2000);
    /* Bad input changes nothing. */
    assert_int_equal(brock_passthrough_add(e, "bad host", NULL, 0, 0), BROCK_EINVAL);
    assert_int_equal(brock_passthrough_add(e, "", NULL, 0, 0), BROCK_EINVAL);
    assert_int_equal(brock_passthrough_add(e, NULL, NULL, 0, 0), BROCK_EINVAL);
    assert_int_equal(brock_passthrough_add(e, "*.x.example", NULL, 0, 1), BROCK_EINVAL);
    assert_int_equal(entries(e), 2);
    assert_int_equal(brock_passthrough_remove(e, "APP.example"), 0);
    assert_int_equal(brock_passthrough_remove(e, "app.example"), BROCK_ENOTFOUND);
    assert_int_equal(entries(e), 1);
    /* A shipped host taken off: an entry no host matches. */
    assert_int_equal(brock_passthrough_add(e, "!PayPal.com", NULL, 0, 0), 0);
    assert_int_equal(brock_passthrough_find(e, "paypal.com", NULL), 0);
    assert_int_equal(brock_passthrough_find(e, "!paypal.com", NULL), 1);
    assert_int_equal(brock_passthrough_add(e, "!*.x.example", NULL, 0, 0), BROCK_EINVAL);
    brock_engine_free(e);
}

/* Learned entries are capped, the oldest going first; the user's stay. */
static void test_learned_cap(void **state)
{
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    char host[64];

    (void)state;
    assert_int_equal(brock_passthrough_add(e, "mine.example", NULL, 0, 0), 0);
    for (int i = 0; i < BROCK_PASSTHROUGH_LEARNED_MAX + 5; i++) {
        snprintf(host, sizeof(host), "h%d.example", i);
        assert_int_equal(brock_passthrough_add(e, host, "refused", i, 1), 0);
    }
    assert_int_equal(entries(e), BROCK_PASSTHROUGH_LEARNED_MAX + 1);
    assert_int_equal(brock_passthrough_find(e, "mine.example", NULL), 1);
    for (int i = 0; i < 5; i++) {
        snprintf(host, sizeof(host), "h%d.example", i);
        assert_int_equal(brock_passthrough_find(e, host, NULL), 0);
    }
    snprintf(host, sizeof(host), "h%d.example", BROCK_PASSTHROUGH_LEARNED_MAX + 4);
    assert_int_equal(brock_passthrough_find(e, host, NULL), 1);
    /* Learned again, a host becomes the newest: the next to go is another. */
    assert_int_equal(brock_passthrough_add(e, "h5.example", "refused", 99999, 1), 0);
    assert_int_equal(brock_passthrough_add(e, "new.example", "refused", 99999, 1), 0);
    assert_int_equal(brock_passthrough_find(e, "h5.example", NULL), 1);
    assert_int_equal(brock_passthrough_find(e, "h6.example", NULL), 0);
    brock_engine_free(e);
}

static void test_shipped(void **state)
{
    struct passthrough *p = passthrough_new();
    struct brock_engine *e = test_engine_open(NULL, NULL, 1);
    const char *globs[] = {"*.corp.example"};
    char why[512];

    (void)state;
    assert_non_null(p);
    /* AdGuard's files hold some four thousand hosts; "$app=" lines are left out. */
    assert_true(passthrough_shipped_count(p) > 3000);
    assert_non_null(passthrough_why(p, e, NULL, 0, "paypal.com", why, sizeof(why)));
    assert_non_null(strstr(why, "bank or payment"));
    /* The host and its subdomains. */
    assert_non_null(passthrough_why(p, e, NULL, 0, "www.paypal.com", why, sizeof(why)));
    assert_null(passthrough_why(p, e, NULL, 0, "notpaypal.com", why, sizeof(why)));
    assert_null(passthrough_why(p, e, NULL, 0, "sahibinden-vod2.mncdn.com", why, sizeof(why)));
    /* Odd lines of the files read as hosts: a quoted one, one with a comment after it. */
    assert_non_null(passthrough_why(p, e, NULL, 0, "lastpass.com", why, sizeof(why)));
    assert_non_null(passthrough_why(p, e, NULL, 0, "certsign.ro", why, sizeof(why)));
    /* --no-intercept, then the state, before the shipped list. */
    assert_non_null(passthrough_why(p, e, globs, 1, "a.corp.example", why, sizeof(why)));
    assert_non_null(strstr(why, "--no-intercept"));
    assert_int_equal(brock_passthrough_add(e, "!paypal.com", NULL, 0, 0), 0);
    assert_null(passthrough_why(p, e, NULL, 0, "www.paypal.com", why, sizeof(why)));
    assert_int_equal(brock_passthrough_add(e, "learned.example", "an alert", 0, 1), 0);
    assert_non_null(passthrough_why(p, e, NULL, 0, "learned.example", why, sizeof(why)));
    assert_non_null(strstr(why, "refused brock's certificate"));
    brock_engine_free(e);
    passthrough_free(p);
}

static void test_refusals(void **state)
{
    struct passthrough *p = passthrough_new();
    int64_t min = 60 * 1000;

    (void)state;
    assert_int_equal(passthrough_refused(p, "a.example", 0), 0);
    assert_int_equal(passthrough_refused(p, "b.example", 1), 0);
    assert_int_equal(passthrough_refused(p, "a.example", 9 * min), 1);
    /* Counted again from nothing after it passed. */
    assert_int_equal(passthrough_refused(p, "a.example", 9 * min + 1), 0);
    /* More than ten minutes apart: two first refusals. */
    assert_int_equal(passthrough_refused(p, "b.example", 11 * min), 0);
    assert_int_equal(passthrough_refused(p, "b.example", 12 * min), 1);
    /* Many other hosts push the oldest count out, never beyond the table. */
    for (int i = 0; i < PASSTHROUGH_COUNTED * 2; i++) {
        char host[32];

        snprintf(host, sizeof(host), "x%d.example", i);
        assert_int_equal(passthrough_refused(p, host, 13 * min), 0);
    }
    passthrough_free(p);
}

/* Quiet closes are held PASSTHROUGH_TOGETHER_MS, then due; a client that ends a spoken
 * connection about then (a browser quitting) makes its quiet closes none, whichever came
 * first; another client's stay. */
static void test_quiet_closes(void **state)
{
    struct passthrough *p = passthrough_new();
    const int64_t t = 1000000, w = PASSTHROUGH_TOGETHER_MS;
    char host[BROCK_HOST_MAX];
    const char *why = NULL;

    (void)state;
    assert_non_null(p);
    /* Alone: due once held long enough, once, with its host and why. */
    assert_int_equal(passthrough_quiet(p, "10.0.0.1", "pinned.example", "closed", t), 1);
    assert_int_equal(passthrough_due(p, t + w, host, &why), 0);
    assert_int_equal(passthrough_due(p, t + w + 1, host, &why), 1);
    assert_string_equal(host, "pinned.example");
    assert_string_equal(why, "closed");
    assert_int_equal(passthrough_due(p, t + w + 1, host, &why), 0);
    /* A spoken close of the same client just after it: no refusal. */
    assert_int_equal(passthrough_quiet(p, "10.0.0.1", "a.example", "closed", 2 * t), 1);
    assert_int_equal(passthrough_quiet(p, "10.0.0.2", "b.example", "closed", 2 * t), 1);
    passthrough_spoke_closed(p, "10.0.0.1", 2 * t + w);
    assert_int_equal(passthrough_due(p, 3 * t, host, &why), 1);
    assert_string_equal(host, "b.example");
    assert_int_equal(passthrough_due(p, 3 * t, host, &why), 0);
    /* One just before it: none either; later than the window, it counts. */
    passthrough_spoke_closed(p, "10.0.0.1", 4 * t);
    assert_int_equal(passthrough_quiet(p, "10.0.0.1", "c.example", "closed", 4 * t + w), 0);
    assert_int_equal(passthrough_quiet(p, "10.0.0.1", "d.example", "closed", 4 * t + w + 1), 1);
    assert_int_equal(passthrough_due(p, 5 * t, host, &why), 1);
    assert_string_equal(host, "d.example");
    /* A full table forgets its oldest, never more than it holds. */
    for (int i = 0; i <= PASSTHROUGH_HELD; i++) {
        char name[32];

        snprintf(name, sizeof(name), "h%d.example", i);
        assert_int_equal(passthrough_quiet(p, "10.0.0.3", name, "closed", 6 * t + i), 1);
    }
    for (int i = 1; i <= PASSTHROUGH_HELD; i++)
        assert_int_equal(passthrough_due(p, 7 * t, host, &why), 1);
    assert_int_equal(passthrough_due(p, 7 * t, host, &why), 0);
    passthrough_free(p);
}

/* A client that spoke for a host about when it dropped other connections to it refused
 * nothing; another client, or another host, or later, still counts. */
static void test_trusted(void **state)
{
    struct passthrough *p = passthrough_new();
    const int64_t t = 1000000, w = PASSTHROUGH_TRUSTED_MS;
    char host[BROCK_HOST_MAX];
    const char *why = NULL;

    (void)state;
    assert_non_null(p);
    assert_int_equal(passthrough_trusts(p, "10.0.0.1", "a.example", t), 0);
    passthrough_trusted(p, "10.0.0.1", "a.example", t);
    assert_int_equal(passthrough_trusts(p, "10.0.0.1", "a.example", t + w), 1);
    assert_int_equal(passthrough_trusts(p, "10.0.0.1", "a.example", t + w + 1), 0);
    assert_int_equal(passthrough_trusts(p, "10.0.0.2", "a.example", t), 0);
    assert_int_equal(passthrough_trusts(p, "10.0.0.1", "b.example", t), 0);
    /* After it: not held at all. Another client's and another host's are. */
    assert_int_equal(passthrough_quiet(p, "10.0.0.1", "a.example", "closed", t + 5), 0);
    assert_int_equal(passthrough_quiet(p, "10.0.0.2", "a.example", "closed", t + 5), 1);
    assert_int_equal(passthrough_quiet(p, "10.0.0.1", "b.example", "closed", t + 5), 1);
    /* Before it: held, then dropped once the client speaks for the host. */
    assert_int_equal(passthrough_quiet(p, "10.0.0.3", "c.example", "closed", 2 * t), 1);
    passthrough_trusted(p, "10.0.0.3", "c.example", 2 * t + 100);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(passthrough_due(p, 3 * t, host, &why), 1);
        assert_true(strcmp(host, "a.example") == 0 || strcmp(host, "b.example") == 0);
    }
    assert_int_equal(passthrough_due(p, 3 * t, host, &why), 0);
    /* Spoken again, the window starts again. */
    passthrough_trusted(p, "10.0.0.1", "a.example", 4 * t);
    assert_int_equal(passthrough_quiet(p, "10.0.0.1", "a.example", "closed", 4 * t + w), 0);
    passthrough_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_state_list),   cmocka_unit_test(test_learned_cap),
        cmocka_unit_test(test_shipped),      cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_quiet_closes), cmocka_unit_test(test_trusted),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
