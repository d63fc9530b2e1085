/* SPDX-License-Identifier: GPL-3.0-or-later */
/* A fetch whose loop stops right after its callback (brock run told to stop as a DNT check
 * ends): fetch_free_finished() frees what the reaper would have, so that nothing leaks. */
#include "test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <event2/event.h>

#include "jobs/fetch.h"
#include "net/dial.h"

struct ended {
    struct event_base *base;
    int called;
    enum fetch_status status;
};

static void on_fetched(void *arg, const struct fetch_result *r)
{
    struct ended *e = arg;

    e->called++;
    e->status = r->status;
    /* As a stopping signal does: the loop ends before the reaper's turn. */
    event_base_loopbreak(e->base);
}

/* A loopback port where nothing listens: bound, then closed. */
static int closed_port(void)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;

    assert_true(fd >= 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    port = ntohs(sa.sin_port);
    close(fd);
    return port;
}

static void test_loop_stopped_after_callback(void **state)
{
    struct ended e = {0};
    struct dial_env env = {0};
    char url[64];

    (void)state;
    e.base = event_base_new();
    assert_non_null(e.base);
    env.base = e.base;
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/.well-known/dnt-policy.txt", closed_port());
    assert_int_equal(fetch_start(&env, url, FETCH_DNT_MAX, on_fetched, &e, NULL), 0);
    event_base_dispatch(e.base);
    assert_int_equal(e.called, 1);
    assert_int_not_equal(e.status, FETCH_OK);
    /* The reaper has not run: the fetch waits here to be freed, or it and its reaper would
     * leak when the loop goes. */
    assert_int_equal(fetch_free_finished(), 1);
    assert_int_equal(fetch_free_finished(), 0);
    event_base_free(e.base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop_stopped_after_callback),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
