/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dialer against local sockets and a tiny DNS server of the test's own: a --resolve rule
 * beats a literal beats DNS; each address is tried in turn; the failure sentence names every
 * address and its error; resolver errors read as glibc's. */
#include "test.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/dns.h>
#include <event2/dns_struct.h>
#include <event2/event.h>
#include <event2/listener.h>

#include "net/dial.h"
#include "net/tls.h"

struct world {
    struct event_base *base;
    struct dns *dns;
    struct evdns_server_port *dns_server;
    evutil_socket_t dns_fd;
    int dns_queries;
    struct evconnlistener *listener; /* on 127.0.0.1 only: 127.0.0.2 and .3 refuse */
    int port, accepted;
    struct resolve_table resolve;
};

/* What one dial ended with. */
struct outcome {
    int called;
    struct bufferevent *bev;
    char why[1024];
    int why_null;      /* the callback's why was NULL */
    char tried[8][64]; /* the addresses, in the order the dialer asked about them */
    int n_tried;
    const char *refuse_why; /* NULL: let every address be tried */
    const char *take;       /* an address the caller holds a connection to (DIAL_TAKEN) */
    int hook;               /* set env.names */
    int n_names;            /* the names hook's calls */
    char named[64];         /* the host it was told of */
    size_t named_addrs;     /* the answer's addresses */
    int tried_then;         /* the addresses refuse had heard of by then */
};

/* ---- the world: a listener and a DNS server ---- */

static void on_query(struct evdns_server_request *req, void *arg)
{
    struct world *w = arg;
    int err = DNS_ERR_NONE;

    w->dns_queries++;
    for (int i = 0; i < req->nquestions; i++) {
        const struct evdns_server_question *q = req->questions[i];
        struct in_addr a[2];

        /* A resolver may ask in mixed case (libevent's defence against spoofing). */
        if (!strcasecmp(q->name, "two.test") || !strcasecmp(q->name, "none.test")) {
            if (q->type != EVDNS_TYPE_A)
                continue;
            inet_pton(AF_INET, !strcasecmp(q->name, "two.test") ? "127.0.0.2" : "127.0.0.3", &a[0]);
            inet_pton(AF_INET, !strcasecmp(q->name, "two.test") ? "127.0.0.1" : "127.0.0.2", &a[1]);
            /* One record an address: libevent would put both in one record, which only
             * libevent reads. */
            evdns_server_request_add_a_reply(req, q->name, 1, &a[0], 60);
            evdns_server_request_add_a_reply(req, q->name, 1, &a[1], 60);
        } else {
            err = DNS_ERR_NOTEXIST;
        }
    }
    evdns_server_request_respond(req, err);
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len,
                      void *arg)
{
    struct world *w = arg;

    (void)l;
    (void)sa;
    (void)len;
    w->accepted++;
    evutil_closesocket(fd);
}

static void bind_loopback(struct sockaddr_in *sin, const char *ip)
{
    memset(sin, 0, sizeof(*sin));
    sin->sin_family = AF_INET;
    assert_int_equal(inet_pton(AF_INET, ip, &sin->sin_addr), 1);
}

static int setup(void **state)
{
    struct world *w = calloc(1, sizeof(*w));
    struct sockaddr_in sin;
    socklen_t len = sizeof(sin);
    char ns[64], err[256];
    const char *servers[] = {ns};

    assert_non_null(w);
    w->base = event_base_new();
    assert_non_null(w->base);

    bind_loopback(&sin, "127.0.0.1");
    w->listener =
        evconnlistener_new_bind(w->base, on_accept, w, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE,
                                -1, (struct sockaddr *)&sin, sizeof(sin));
    assert_non_null(w->listener);
    assert_int_equal(getsockname(evconnlistener_get_fd(w->listener), (struct sockaddr *)&sin, &len),
                     0);
    w->port = ntohs(sin.sin_port);

    w->dns_fd = socket(AF_INET, SOCK_DGRAM, 0);
    assert_true(w->dns_fd >= 0);
    bind_loopback(&sin, "127.0.0.1");
    len = sizeof(sin);
    assert_int_equal(bind(w->dns_fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    assert_int_equal(getsockname(w->dns_fd, (struct sockaddr *)&sin, &len), 0);
    assert_int_equal(evutil_make_socket_nonblocking(w->dns_fd), 0);
    w->dns_server = evdns_add_server_port_with_base(w->base, w->dns_fd, 0, on_query, w);
    assert_non_null(w->dns_server);

    /* Only the test's server, after /etc/hosts (which has none of the test's names). */
    snprintf(ns, sizeof(ns), "127.0.0.1:%d", ntohs(sin.sin_port));
    w->dns = dns_new(w->base, servers, 1, err, sizeof(err));
    assert_non_null(w->dns);
    *state = w;
    return 0;
}

static int teardown(void **state)
{
    struct world *w = *state;

    resolve_cleanup(&w->resolve);
    dns_free(w->dns);
    evdns_close_server_port(w->dns_server);
    evutil_closesocket(w->dns_fd);
    evconnlistener_free(w->listener);
    event_base_free(w->base);
    free(w);
    return 0;
}

static void add_rule(struct world *w, const char *glob, const char *addr)
{
    char spec[128], err[256];

    snprintf(spec, sizeof(spec), "%s=%s:%d", glob, addr, w->port);
    assert_int_equal(resolve_add(&w->resolve, spec, err, sizeof(err)), 0);
}

/* ---- dialing ---- */

static int on_refuse(void *arg, const struct sockaddr *sa, char *why, size_t size)
{
    struct outcome *o = arg;
    const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;
    char ip[INET_ADDRSTRLEN];

    assert_int_equal(sa->sa_family, AF_INET);
    inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
    if (o->n_tried < 8)
        snprintf(o->tried[o->n_tried++], sizeof(o->tried[0]), "%s", ip);
    if (o->take && !strcmp(ip, o->take))
        return DIAL_TAKEN;
    if (!o->refuse_why)
        return 0;
    snprintf(why, size, "%s", o->refuse_why);
    return 1;
}

static void on_dialed(void *arg, struct bufferevent *bev, const char *why)
{
    struct outcome *o = arg;

    o->called++;
    o->bev = bev;
    o->why_null = !why;
    snprintf(o->why, sizeof(o->why), "%s", why ? why : "");
}

static void on_names(void *arg, const char *host, const struct dns_answer *a)
{
    struct outcome *o = arg;

    o->n_names++;
    snprintf(o->named, sizeof(o->named), "%s", host);
    o->named_addrs = a->n_addrs;
    o->tried_then = o->n_tried;
}

static void on_give_up(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    event_base_loopbreak(arg);
}

/* Dials host:port over io and runs the loop until the dial's callback (5 s at most). */
static void dial_over(struct world *w, struct dns *dns, const char *host, const struct io_ops *io,
                      SSL_CTX *tls, struct outcome *o)
{
    struct dial_env env = {.base = w->base,
                           .dns = dns,
                           .resolve = &w->resolve,
                           .tls = tls,
                           .names = o->hook ? on_names : NULL};
    struct timeval five = {5, 0};
    struct event *give_up = evtimer_new(w->base, on_give_up, w->base);
    struct dial *d;

    assert_non_null(give_up);
    evtimer_add(give_up, &five);
    assert_int_equal(dial_start(&env, host, w->port, io, on_refuse, on_dialed, o, &d), 0);
    assert_non_null(d);
    /* Never from inside dial_start(). */
    assert_int_equal(o->called, 0);
    while (!o->called && evtimer_pending(give_up, NULL))
        event_base_loop(w->base, EVLOOP_ONCE);
    event_free(give_up);
    assert_int_equal(o->called, 1);
}

static void dial(struct world *w, struct dns *dns, const char *host, struct outcome *o)
{
    dial_over(w, dns, host, &io_tcp, NULL, o);
}

/* The address bev is connected to. */
static void assert_peer(struct bufferevent *bev, const char *ip)
{
    struct sockaddr_in sin;
    socklen_t len = sizeof(sin);
    char got[INET_ADDRSTRLEN];

    assert_non_null(bev);
    assert_int_equal(getpeername(bufferevent_getfd(bev), (struct sockaddr *)&sin, &len), 0);
    inet_ntop(AF_INET, &sin.sin_addr, got, sizeof(got));
    assert_string_equal(got, ip);
}

static void test_rule_beats_literal(void **state)
{
    struct world *w = *state;
    struct outcome o = {0};

    /* 127.0.0.3 refuses; the rule sends it to the listener. */
    add_rule(w, "127.0.0.3", "127.0.0.1");
    dial(w, w->dns, "127.0.0.3", &o);
    assert_peer(o.bev, "127.0.0.1");
    assert_int_equal(o.n_tried, 1);
    assert_int_equal(w->dns_queries, 0);
    bufferevent_free(o.bev);
}

static void test_rule_beats_dns(void **state)
{
    struct world *w = *state;
    struct outcome o = {0};

    add_rule(w, "*.test", "127.0.0.1");
    dial(w, w->dns, "none.test", &o);
    assert_peer(o.bev, "127.0.0.1");
    assert_int_equal(w->dns_queries, 0);
    bufferevent_free(o.bev);
}

static void test_literal_needs_no_resolver(void **state)
{
    struct world *w = *state;
    struct outcome o = {0}, name = {0};

    dial(w, NULL, "127.0.0.1", &o);
    assert_peer(o.bev, "127.0.0.1");
    bufferevent_free(o.bev);
    /* A name does. */
    dial(w, NULL, "two.test", &name);
    assert_null(name.bev);
    assert_string_equal(name.why, "brock could not resolve two.test: it has no DNS resolver "
                                  "(no /etc/resolv.conf?)");
    /* And a literal never reaches DNS even with a resolver. */
    memset(&o, 0, sizeof(o));
    dial(w, w->dns, "127.0.0.1", &o);
    assert_peer(o.bev, "127.0.0.1");
    assert_int_equal(w->dns_queries, 0);
    bufferevent_free(o.bev);
}

static void test_dns_tries_each_address(void **state)
{
    struct world *w = *state;
    struct outcome o = {0};

    /* two.test is 127.0.0.2 (refuses), then 127.0.0.1: both asked about before the first is
     * tried (for DIAL_TAKEN), then each as it is tried. */
    dial(w, w->dns, "two.test", &o);
    assert_true(w->dns_queries > 0);
    assert_int_equal(o.n_tried, 4);
    assert_string_equal(o.tried[0], "127.0.0.2");
    assert_string_equal(o.tried[1], "127.0.0.1");
    assert_string_equal(o.tried[2], "127.0.0.2");
    assert_string_equal(o.tried[3], "127.0.0.1");
    assert_peer(o.bev, "127.0.0.1");
    bufferevent_free(o.bev);
}

/* The names hook hears DNS's answer before refuse hears of any address, from the network and
 * from the cache (which asks the server nothing); a rule, and a name that did not resolve, are
 * not told. */
static void test_names_hook(void **state)
{
    struct world *w = *state;
    struct outcome o = {.hook = 1}, again = {.hook = 1}, rule = {.hook = 1}, nx = {.hook = 1};
    int queries;

    dial(w, w->dns, "two.test", &o);
    assert_int_equal(o.n_names, 1);
    assert_string_equal(o.named, "two.test");
    assert_int_equal(o.named_addrs, 2);
    assert_int_equal(o.tried_then, 0);
    assert_peer(o.bev, "127.0.0.1");
    bufferevent_free(o.bev);
    queries = w->dns_queries;
    dial(w, w->dns, "TWO.test", &again);
    assert_int_equal(w->dns_queries, queries);
    assert_int_equal(again.n_names, 1);
    assert_string_equal(again.named, "TWO.test");
    assert_int_equal(again.tried_then, 0);
    assert_peer(again.bev, "127.0.0.1");
    bufferevent_free(again.bev);
    add_rule(w, "ruled.test", "127.0.0.1");
    dial(w, w->dns, "ruled.test", &rule);
    assert_int_equal(rule.n_names, 0);
    bufferevent_free(rule.bev);
    dial(w, w->dns, "nx.test", &nx);
    assert_int_equal(nx.n_names, 0);
    assert_null(nx.bev);
}

static void test_no_address_answers(void **state)
{
    struct world *w = *state;
    struct outcome o = {0}, one = {0};
    char want[512];

    dial(w, w->dns, "none.test", &o);
    assert_null(o.bev);
    snprintf(want, sizeof(want),
             "brock could not connect to none.test: none of its 2 addresses "
             "answered (127.0.0.3:%d: Connection refused; 127.0.0.2:%d: Connection refused)",
             w->port, w->port);
    assert_string_equal(o.why, want);
    /* One address: named with its error. */
    add_rule(w, "down.test", "127.0.0.2");
    dial(w, w->dns, "down.test", &one);
    assert_null(one.bev);
    snprintf(want, sizeof(want),
             "brock could not connect to down.test (127.0.0.2:%d): "
             "Connection refused",
             w->port);
    assert_string_equal(one.why, want);
    assert_int_equal(w->accepted, 0);
}

/* Over TLS, an address that refuses is a failed connection like any other, not a TLS
 * failure that would end the dial: the next address is tried. */
static void test_tls_tries_each_address(void **state)
{
    struct world *w = *state;
    struct outcome o = {0};
    char err[256], want[512];
    SSL_CTX *ctx = tls_upstream_ctx_new(NULL, err, sizeof(err));

    assert_non_null(ctx);
    dial_over(w, w->dns, "none.test", &io_tls, ctx, &o);
    assert_null(o.bev);
    assert_int_equal(o.n_tried, 4);
    snprintf(want, sizeof(want),
             "brock could not connect to none.test: none of its 2 addresses "
             "answered (127.0.0.3:%d: Connection refused; 127.0.0.2:%d: Connection refused)",
             w->port, w->port);
    assert_string_equal(o.why, want);
    SSL_CTX_free(ctx);
}

static void test_refused_address(void **state)
{
    struct world *w = *state;
    struct outcome o = {.refuse_why = "it is brock itself (not forwarded)"};
    char want[256];

    add_rule(w, "self.test", "127.0.0.1");
    dial(w, w->dns, "self.test", &o);
    assert_null(o.bev);
    snprintf(want, sizeof(want),
             "brock could not connect to self.test (127.0.0.1:%d): it is "
             "brock itself (not forwarded)",
             w->port);
    assert_string_equal(o.why, want);
    /* Nothing was opened. */
    event_base_loop(w->base, EVLOOP_NONBLOCK);
    assert_int_equal(w->accepted, 0);
}

/* The caller holds a connection to an address (an HTTP/2 connection another origin shares):
 * the dial ends without connecting, its callback with neither a connection nor a reason, at
 * the loop's next turn. */
static void test_taken(void **state)
{
    struct world *w = *state;
    struct outcome o = {.take = "127.0.0.1"}, rule = {.take = "127.0.0.1"};

    /* DNS: the second address is the one held, and the first is never tried. */
    dial(w, w->dns, "two.test", &o);
    assert_int_equal(o.called, 1);
    assert_null(o.bev);
    assert_int_equal(o.why_null, 1);
    assert_int_equal(o.n_tried, 2);
    /* A rule, asked inside dial_start(): still told later. */
    add_rule(w, "held.test", "127.0.0.1");
    dial(w, w->dns, "held.test", &rule);
    assert_int_equal(rule.called, 1);
    assert_null(rule.bev);
    assert_int_equal(rule.why_null, 1);
    event_base_loop(w->base, EVLOOP_NONBLOCK);
    assert_int_equal(w->accepted, 0);
}

static void test_unknown_name(void **state)
{
    struct world *w = *state;
    struct outcome o = {0};

    dial(w, w->dns, "nx.test", &o);
    assert_null(o.bev);
    assert_string_equal(o.why, "brock could not resolve nx.test: Name or service not known");
}

static void test_cancel(void **state)
{
    struct world *w = *state;
    struct dial_env env = {.base = w->base, .dns = w->dns, .resolve = &w->resolve};
    struct outcome o = {0};
    struct dial *d;
    struct timeval half = {0, 500000};

    /* While resolving, and while connecting: the callback never comes. */
    assert_int_equal(dial_start(&env, "two.test", w->port, &io_tcp, NULL, on_dialed, &o, &d), 0);
    dial_cancel(d);
    assert_int_equal(dial_start(&env, "127.0.0.1", w->port, &io_tcp, NULL, on_dialed, &o, &d), 0);
    dial_cancel(d);
    /* An address that refuses: its failure is never told either. */
    assert_int_equal(dial_start(&env, "127.0.0.2", w->port, &io_tcp, NULL, on_dialed, &o, &d), 0);
    dial_cancel(d);
    dial_cancel(NULL);
    event_base_loopexit(w->base, &half);
    event_base_dispatch(w->base);
    assert_int_equal(o.called, 0);
}

/* dial_start_at(): the one address given, whatever a rule or DNS says of the name; the names
 * hook not told; an address of no family refused. */
static void test_at(void **state)
{
    struct world *w = *state;
    struct outcome o = {.hook = 1};
    struct dial_env env = {
        .base = w->base, .dns = w->dns, .resolve = &w->resolve, .names = on_names};
    struct dns_addr at = {.len = sizeof(struct sockaddr_in)};
    struct timeval five = {5, 0};
    struct dial *d;

    /* The rule and DNS would send one.test elsewhere (127.0.0.3 refuses). */
    add_rule(w, "one.test", "127.0.0.3");
    at.u.v4.sin_family = AF_INET;
    at.u.v4.sin_port = htons((uint16_t)w->port);
    at.u.v4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(dial_start_at(&env, &at, "one.test", &io_tcp, on_refuse, on_dialed, &o, &d),
                     0);
    event_base_loopexit(w->base, &five);
    while (!o.called)
        event_base_loop(w->base, EVLOOP_ONCE);
    assert_peer(o.bev, "127.0.0.1");
    assert_int_equal(o.n_tried, 1);
    assert_int_equal(o.n_names, 0);
    assert_int_equal(w->dns_queries, 0);
    bufferevent_free(o.bev);
    at.u.sa.sa_family = AF_UNIX;
    assert_int_equal(dial_start_at(&env, &at, "one.test", &io_tcp, NULL, on_dialed, &o, &d), -1);
    assert_null(d);
    at.u.sa.sa_family = AF_INET;
    at.len = 0;
    assert_int_equal(dial_start_at(&env, &at, "one.test", &io_tcp, NULL, on_dialed, &o, &d), -1);
}

static void test_needs_tls_context(void **state)
{
    struct world *w = *state;
    struct dial_env env = {.base = w->base, .dns = w->dns};
    struct outcome o = {0};
    struct dial *d = NULL;

    /* io_tls without a context to verify with is refused at once. */
    assert_int_equal(dial_start(&env, "127.0.0.1", w->port, &io_tls, NULL, on_dialed, &o, &d), -1);
    assert_null(d);
    assert_int_equal(o.called, 0);
}

static void test_eai_text(void **state)
{
    static const int codes[] = {EAI_NONAME,   EAI_AGAIN,   EAI_FAIL,      EAI_FAMILY,
                                EAI_SOCKTYPE, EAI_SERVICE, EAI_BADFLAGS,  EAI_MEMORY,
                                EAI_SYSTEM,   EAI_NODATA,  EAI_ADDRFAMILY};

    (void)state;
    assert_string_equal(dial_eai_text(EVUTIL_EAI_NONAME), "Name or service not known");
    assert_string_equal(dial_eai_text(EVUTIL_EAI_AGAIN), "Temporary failure in name resolution");
    assert_string_equal(dial_eai_text(EVUTIL_EAI_FAIL),
                        "Non-recoverable failure in name resolution");
    assert_string_equal(dial_eai_text(EVUTIL_EAI_NODATA), "No address associated with hostname");
    assert_string_equal(dial_eai_text(EVUTIL_EAI_MEMORY), "Memory allocation failure");
    assert_string_equal(dial_eai_text(EVUTIL_EAI_CANCEL), "Request canceled");
    /* Word for word what the C library says for its own codes. */
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++)
        assert_string_equal(dial_eai_text(codes[i]), gai_strerror(codes[i]));
    /* A code brock does not know still says something. */
    assert_non_null(dial_eai_text(-12345));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rule_beats_literal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rule_beats_dns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_literal_needs_no_resolver, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dns_tries_each_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_names_hook, setup, teardown),
        cmocka_unit_test_setup_teardown(test_no_address_answers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tls_tries_each_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused_address, setup, teardown),
        cmocka_unit_test_setup_teardown(test_taken, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_name, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
        cmocka_unit_test_setup_teardown(test_at, setup, teardown),
        cmocka_unit_test_setup_teardown(test_needs_tls_context, setup, teardown),
        cmocka_unit_test(test_eai_text),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
