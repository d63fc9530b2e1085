/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The resolver: the CNAME chain built from c-ares' records (in order, deduplicated, normalised,
 * bounded, loops cut); then against a tiny DNS server of the test's own, a chain two hops deep
 * with its TTL, one query for look-ups of the same name at once, answers and failures from the
 * cache without a query, callbacks never inside dns_lookup(), cancelled look-ups never told,
 * /etc/hosts before the server, and --dns's error sentence. */
#include "test.h"

#include <arpa/inet.h>
#include <strings.h>
#include <sys/socket.h>

#include <ares.h>
#include <event2/dns.h>
#include <event2/dns_struct.h>
#include <event2/event.h>
#include <event2/util.h>

#include "net/dial.h"
#include "net/dns.h"

/* ---- the chain, from records made by hand ---- */

static struct ares_addrinfo_cname rec[16];

/* Record i: alias -> name, with ttl, linked after record i - 1. */
static void set(int i, const char *alias, const char *name, int ttl)
{
    rec[i] = (struct ares_addrinfo_cname){
        .ttl = ttl, .alias = (char *)(uintptr_t)alias, .name = (char *)(uintptr_t)name};
    if (i > 0)
        rec[i - 1].next = &rec[i];
}

static size_t build(const char *host, int n, char chain[DNS_CHAIN_MAX][DNS_NAME_MAX], int *ttl)
{
    *ttl = 1000;
    return dns_chain_build(host, n ? rec : NULL, chain, ttl);
}

static void test_chain_none(void **state)
{
    char chain[DNS_CHAIN_MAX][DNS_NAME_MAX];
    int ttl;

    (void)state;
    assert_int_equal(build("a.test", 0, chain, &ttl), 0);
    assert_int_equal(ttl, 1000);
    /* A record of another name is not the host's. */
    set(0, "other.test", "b.test", 5);
    assert_int_equal(build("a.test", 1, chain, &ttl), 0);
    assert_int_equal(ttl, 1000);
}

/* As c-ares lists them after asking A and AAAA: each hop twice. */
static void test_chain_two_hops_twice(void **state)
{
    char chain[DNS_CHAIN_MAX][DNS_NAME_MAX];
    int ttl;

    (void)state;
    set(0, "Hop.Test", "mid.test.", 300);
    set(1, "mid.test", "END.test", 60);
    set(2, "hop.test", "mid.test", 300);
    set(3, "mid.test.", "end.test", 60);
    assert_int_equal(build("hop.TEST.", 4, chain, &ttl), 2);
    assert_string_equal(chain[0], "mid.test");
    assert_string_equal(chain[1], "end.test");
    assert_int_equal(ttl, 60);
}

/* Followed from the host, whatever the order of the records. */
static void test_chain_out_of_order(void **state)
{
    char chain[DNS_CHAIN_MAX][DNS_NAME_MAX];
    int ttl;

    (void)state;
    set(0, "c.test", "d.test", 40);
    set(1, "unrelated.test", "x.test", 1);
    set(2, "b.test", "c.test", 50);
    set(3, "a.test", "b.test", 70);
    assert_int_equal(build("a.test", 4, chain, &ttl), 3);
    assert_string_equal(chain[0], "b.test");
    assert_string_equal(chain[1], "c.test");
    assert_string_equal(chain[2], "d.test");
    assert_int_equal(ttl, 40);
}

/* A loop ends the chain where it closes, back at the host or further on. */
static void test_chain_loops(void **state)
{
    char chain[DNS_CHAIN_MAX][DNS_NAME_MAX];
    int ttl;

    (void)state;
    set(0, "a.test", "b.test", 10);
    set(1, "b.test", "A.test", 10);
    assert_int_equal(build("a.test", 2, chain, &ttl), 1);
    assert_string_equal(chain[0], "b.test");
    set(0, "a.test", "x.test", 10);
    set(1, "x.test", "y.test", 10);
    set(2, "y.test", "x.test", 10);
    assert_int_equal(build("a.test", 3, chain, &ttl), 2);
    assert_string_equal(chain[0], "x.test");
    assert_string_equal(chain[1], "y.test");
    /* A name pointing at itself. */
    set(0, "a.test", "a.test", 10);
    assert_int_equal(build("a.test", 1, chain, &ttl), 0);
}

/* At most DNS_CHAIN_MAX names. */
static void test_chain_bounded(void **state)
{
    static char names[12][32];
    char chain[DNS_CHAIN_MAX][DNS_NAME_MAX];
    int ttl;

    (void)state;
    for (int i = 0; i < 12; i++)
        snprintf(names[i], sizeof(names[i]), "n%d.test", i);
    for (int i = 0; i < 11; i++)
        set(i, names[i], names[i + 1], 100 - i);
    assert_int_equal(build("n0.test", 11, chain, &ttl), DNS_CHAIN_MAX);
    assert_string_equal(chain[0], "n1.test");
    assert_string_equal(chain[DNS_CHAIN_MAX - 1], "n8.test");
    assert_int_equal(ttl, 100 - (DNS_CHAIN_MAX - 1));
}

/* ---- the resolver, against a DNS server of the test's own ---- */

struct world {
    struct event_base *base;
    struct dns *dns;
    struct evdns_server_port *server;
    evutil_socket_t fd;
    char addr[64]; /* the server's ADDR:PORT */
    int queries;   /* questions the server was asked */
    char asked[64][64];
};

/* What one look-up heard. */
struct heard {
    int called;
    int status;
    size_t n_addrs, n_chain;
    char chain[DNS_CHAIN_MAX][DNS_NAME_MAX];
    unsigned ttl;
    int family;
};

/* hop.test -> mid.test -> end.test, at 127.0.0.1 and ::1; nx.test does not exist; every other
 * name exists without an address. */
static void answer_hop(struct evdns_server_request *req, const struct evdns_server_question *q)
{
    struct in_addr v4;
    struct in6_addr v6;

    evdns_server_request_add_cname_reply(req, q->name, "mid.test", 300);
    evdns_server_request_add_cname_reply(req, "mid.test", "end.test", 30);
    if (q->type == EVDNS_TYPE_A) {
        inet_pton(AF_INET, "127.0.0.1", &v4);
        evdns_server_request_add_a_reply(req, "end.test", 1, &v4, 60);
    } else if (q->type == EVDNS_TYPE_AAAA) {
        inet_pton(AF_INET6, "::1", &v6);
        evdns_server_request_add_aaaa_reply(req, "end.test", 1, &v6, 60);
    }
}

static void on_query(struct evdns_server_request *req, void *arg)
{
    struct world *w = arg;
    int err = DNS_ERR_NONE;

    for (int i = 0; i < req->nquestions; i++) {
        const struct evdns_server_question *q = req->questions[i];

        if (w->queries < 64)
            snprintf(w->asked[w->queries], sizeof(w->asked[0]), "%s", q->name);
        w->queries++;
        if (!strcasecmp(q->name, "hop.test"))
            answer_hop(req, q);
        else if (!strcasecmp(q->name, "nx.test"))
            err = DNS_ERR_NOTEXIST;
    }
    evdns_server_request_respond(req, err);
}

static int setup(void **state)
{
    struct world *w = calloc(1, sizeof(*w));
    struct sockaddr_in sin = {.sin_family = AF_INET};
    socklen_t len = sizeof(sin);
    const char *servers[1];
    char err[256];

    assert_non_null(w);
    w->base = event_base_new();
    assert_non_null(w->base);
    w->fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(w->fd >= 0);
    assert_int_equal(inet_pton(AF_INET, "127.0.0.1", &sin.sin_addr), 1);
    assert_int_equal(bind(w->fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(getsockname(w->fd, (struct sockaddr *)&sin, &len), 0);
    assert_int_equal(evutil_make_socket_nonblocking(w->fd), 0);
    w->server = evdns_add_server_port_with_base(w->base, w->fd, 0, on_query, w);
    assert_non_null(w->server);
    snprintf(w->addr, sizeof(w->addr), "127.0.0.1:%d", ntohs(sin.sin_port));
    servers[0] = w->addr;
    w->dns = dns_new(w->base, servers, 1, err, sizeof(err));
    assert_non_null(w->dns);
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    struct world *w = *state;

    dns_free(w->dns);
    evdns_close_server_port(w->server);
    evutil_closesocket(w->fd);
    event_base_free(w->base);
    free(w);
    return 0;
}

static void on_heard(void *arg, const struct dns_answer *a)
{
    struct heard *h = arg;

    h->called++;
    h->status = a->status;
    h->n_addrs = a->n_addrs;
    h->n_chain = a->n_chain;
    h->ttl = a->ttl;
    h->family = a->n_addrs ? a->addrs[0].u.sa.sa_family : 0;
    for (size_t i = 0; i < a->n_chain && i < DNS_CHAIN_MAX; i++)
        snprintf(h->chain[i], sizeof(h->chain[i]), "%s", a->chain[i]);
}

static void on_give_up(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    *(int *)arg = 1;
}

/* Runs the loop until h has heard (5 s at most). */
static void wait_for(struct world *w, const struct heard *h)
{
    struct timeval five = {5, 0};
    int gave_up = 0;
    struct event *give_up = evtimer_new(w->base, on_give_up, &gave_up);

    assert_non_null(give_up);
    evtimer_add(give_up, &five);
    while (!h->called && !gave_up)
        event_base_loop(w->base, EVLOOP_ONCE);
    event_free(give_up);
    assert_int_equal(h->called, 1);
}

/* Looks host up; the callback never runs inside dns_lookup(). */
static struct dns_query *lookup(struct world *w, const char *host, struct heard *h)
{
    struct dns_query *q = NULL;

    assert_int_equal(dns_lookup(w->dns, host, on_heard, h, &q), 0);
    assert_non_null(q);
    assert_int_equal(h->called, 0);
    return q;
}

/* Two look-ups at once share one query (A and AAAA); the chain comes with the addresses. */
static void test_chain_from_dns(void **state)
{
    struct world *w = *state;
    struct heard one = {0}, two = {0};

    (void)lookup(w, "hop.test", &one);
    (void)lookup(w, "HOP.test.", &two);
    wait_for(w, &one);
    wait_for(w, &two);
    assert_int_equal(w->queries, 2);
    assert_int_equal(one.status, 0);
    assert_int_equal(one.n_addrs, 2);
    assert_int_equal(one.n_chain, 2);
    assert_string_equal(one.chain[0], "mid.test");
    assert_string_equal(one.chain[1], "end.test");
    assert_int_equal(one.ttl, 30);
    assert_int_equal(two.n_chain, 2);
    assert_string_equal(two.chain[1], "end.test");
}

/* An answer cached is had without a query: from dns_cached() at once, from dns_lookup() at
 * the loop's next turn. */
static void test_cache(void **state)
{
    struct world *w = *state;
    struct heard first = {0}, again = {0};
    const struct dns_answer *a;

    assert_null(dns_cached(w->dns, "hop.test"));
    (void)lookup(w, "hop.test", &first);
    assert_null(dns_cached(w->dns, "hop.test")); /* pending */
    wait_for(w, &first);
    a = dns_cached(w->dns, "Hop.Test.");
    assert_non_null(a);
    assert_int_equal(a->status, 0);
    assert_int_equal(a->n_chain, 2);
    assert_string_equal(a->chain[0], "mid.test");
    assert_int_equal(a->addrs[0].u.sa.sa_family, first.family);
    assert_int_equal(a->addrs[0].len, first.family == AF_INET ? sizeof(struct sockaddr_in)
                                                              : sizeof(struct sockaddr_in6));
    (void)lookup(w, "hop.test", &again);
    wait_for(w, &again);
    assert_int_equal(again.n_chain, 2);
    assert_int_equal(w->queries, 2);
}

/* A name that does not exist, and one without an address, are kept too (the dial right after
 * the failure asks nothing), with glibc's words for them. */
static void test_failures_cached(void **state)
{
    struct world *w = *state;
    struct heard nx = {0}, nx2 = {0}, empty = {0};
    const struct dns_answer *a;
    int queries;

    (void)lookup(w, "nx.test", &nx);
    wait_for(w, &nx);
    assert_int_equal(nx.status, EVUTIL_EAI_NONAME);
    assert_string_equal(dial_eai_text(nx.status), "Name or service not known");
    assert_int_equal(nx.n_addrs, 0);
    /* A and AAAA of the name as given: no search domain of resolv.conf's. */
    assert_int_equal(w->queries, 2);
    assert_string_equal(w->asked[0], "nx.test");
    queries = w->queries;
    a = dns_cached(w->dns, "nx.test");
    assert_non_null(a);
    assert_int_equal(a->status, EVUTIL_EAI_NONAME);
    (void)lookup(w, "nx.test", &nx2);
    wait_for(w, &nx2);
    assert_int_equal(nx2.status, EVUTIL_EAI_NONAME);
    assert_int_equal(w->queries, queries);
    (void)lookup(w, "empty.test", &empty);
    wait_for(w, &empty);
    assert_int_equal(empty.status, EVUTIL_EAI_NODATA);
    assert_non_null(dns_cached(w->dns, "empty.test"));
}

/* A cancelled look-up is never told, waiting on the network or on the cache; the query goes
 * on and its answer is kept. */
static void test_cancel(void **state)
{
    struct world *w = *state;
    struct heard gone = {0}, stays = {0}, cached = {0};
    struct timeval half = {0, 500000};

    dns_cancel(lookup(w, "hop.test", &gone));
    (void)lookup(w, "hop.test", &stays);
    wait_for(w, &stays);
    assert_non_null(dns_cached(w->dns, "hop.test"));
    dns_cancel(lookup(w, "hop.test", &cached));
    dns_cancel(NULL);
    event_base_loopexit(w->base, &half);
    event_base_dispatch(w->base);
    assert_int_equal(gone.called, 0);
    assert_int_equal(cached.called, 0);
    /* Alone on its query, and cancelled: the answer is still kept. */
    dns_cancel(lookup(w, "nx.test", &gone));
    event_base_loopexit(w->base, &half);
    event_base_dispatch(w->base);
    assert_int_equal(gone.called, 0);
    assert_non_null(dns_cached(w->dns, "nx.test"));
}

/* Freed with a look-up waiting: nothing is told, nothing leaks (ASan). */
static void test_free_while_waiting(void **state)
{
    struct world *w = *state;
    struct heard h = {0}, c = {0};

    (void)lookup(w, "hop.test", &h);
    wait_for(w, &h);
    (void)lookup(w, "hop.test", &c);
    memset(&h, 0, sizeof(h));
    (void)lookup(w, "nx.test", &h);
    dns_free(w->dns);
    w->dns = NULL;
    event_base_loop(w->base, EVLOOP_NONBLOCK);
    assert_int_equal(h.called, 0);
    assert_int_equal(c.called, 0);
}

/* /etc/hosts comes first: localhost is never asked of the server. */
static void test_hosts_first(void **state)
{
    struct world *w = *state;
    struct heard h = {0};

    (void)lookup(w, "localhost", &h);
    wait_for(w, &h);
    assert_int_equal(h.status, 0);
    assert_true(h.n_addrs >= 1);
    assert_int_equal(h.n_chain, 0);
    assert_int_equal(w->queries, 0);
}

/* A server that refuses (nothing listens) is a temporary failure, not kept. */
static void test_server_down(void **state)
{
    struct world *w = *state;
    struct heard h = {0};
    struct dns *down;
    const char *servers[] = {"127.0.0.1:9"};
    char err[256];

    dns_free(w->dns);
    w->dns = down = dns_new(w->base, servers, 1, err, sizeof(err));
    assert_non_null(down);
    (void)lookup(w, "hop.test", &h);
    wait_for(w, &h);
    assert_int_equal(h.status, EVUTIL_EAI_AGAIN);
    assert_null(dns_cached(down, "hop.test"));
}

static void test_new(void **state)
{
    struct event_base *base = event_base_new();
    const char *bad[] = {"127.0.0.1:53", "dns.example:53"};
    const char *v6[] = {"[::1]:5353"};
    char err[256] = "";
    struct dns *r;

    (void)state;
    assert_non_null(base);
    assert_null(dns_new(base, bad, 2, err, sizeof(err)));
    assert_string_equal(err,
                        "--dns 'dns.example:53': expected ADDR:PORT (an IP address and a port)");
    r = dns_new(base, v6, 1, err, sizeof(err));
    assert_non_null(r);
    dns_free(r);
    /* The system's, whatever /etc/resolv.conf holds. */
    r = dns_new(base, NULL, 0, err, sizeof(err));
    assert_non_null(r);
    dns_free(r);
    dns_free(NULL);
    event_base_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_none),
        cmocka_unit_test(test_chain_two_hops_twice),
        cmocka_unit_test(test_chain_out_of_order),
        cmocka_unit_test(test_chain_loops),
        cmocka_unit_test(test_chain_bounded),
        cmocka_unit_test_setup_teardown(test_chain_from_dns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failures_cached, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_free_while_waiting, setup, teardown),
        cmocka_unit_test_setup_teardown(test_hosts_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_server_down, setup, teardown),
        cmocka_unit_test(test_new),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
