/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The upstream TLS session cache: one session per key, the oldest stored out first past the
 * bound, expired and unresumable sessions never handed out, a failed resumption's session
 * dropped but not one stored since; every reference returned (ASan sees a leak). */
#include "test.h"

#include <time.h>

#include "net/tls_sessions.h"

/* A session that OpenSSL would offer: it has an id, and lives timeout seconds from t. */
static SSL_SESSION *session(unsigned char id, long t, long timeout)
{
    SSL_SESSION *s = SSL_SESSION_new();
    unsigned char sid[32];

    assert_non_null(s);
    memset(sid, id, sizeof(sid));
    assert_int_equal(SSL_SESSION_set1_id(s, sid, sizeof(sid)), 1);
    assert_int_equal(SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION), 1);
    SSL_SESSION_set_time(s, t);
    SSL_SESSION_set_timeout(s, timeout);
    return s;
}

/* key's session, or NULL; the reference the lookup took is given back. */
static const SSL_SESSION *peek(struct tls_sessions *c, const char *key, time_t now)
{
    SSL_SESSION *s = tls_sessions_get(c, key, now);

    SSL_SESSION_free(s);
    return s;
}

static void test_bound(void **state)
{
    struct tls_sessions c;
    time_t now = time(NULL);
    SSL_SESSION *a = session(1, now, 300), *b = session(2, now, 300), *d = session(3, now, 300),
                *e = session(4, now, 300), *a2 = session(5, now, 300);

    (void)state;
    assert_int_equal(tls_sessions_init(&c, 3), 0);
    assert_int_equal(tls_sessions_put(&c, "a.test:443:verify", a), 1);
    assert_int_equal(tls_sessions_put(&c, "b.test:443:verify", b), 1);
    assert_int_equal(tls_sessions_put(&c, "d.test:443:verify", d), 1);
    /* A new session for a key takes the old one's place (and frees it). */
    assert_int_equal(tls_sessions_put(&c, "a.test:443:verify", a2), 1);
    assert_int_equal(c.count, 3);
    assert_ptr_equal(peek(&c, "a.test:443:verify", now), a2);
    /* Full: the oldest stored (b) goes; a was stored again since. */
    assert_int_equal(tls_sessions_put(&c, "e.test:443:verify", e), 1);
    assert_int_equal(c.count, 3);
    assert_null(peek(&c, "b.test:443:verify", now));
    assert_ptr_equal(peek(&c, "a.test:443:verify", now), a2);
    assert_ptr_equal(peek(&c, "d.test:443:verify", now), d);
    assert_ptr_equal(peek(&c, "e.test:443:verify", now), e);
    /* Keys match whole: another port, name or verification is another entry. */
    assert_null(peek(&c, "a.test:8443:verify", now));
    assert_null(peek(&c, "a.test:443:none", now));
    assert_null(peek(&c, "x.a.test:443:verify", now));
    tls_sessions_cleanup(&c);
    assert_int_equal(c.count, 0);
}

static void test_expiry_and_drop(void **state)
{
    struct tls_sessions c;
    time_t now = time(NULL);
    SSL_SESSION *old = session(1, now - 100, 50), *live = session(2, now, 300),
                *fresh = session(3, now, 300), *bare = SSL_SESSION_new();

    (void)state;
    assert_int_equal(tls_sessions_init(&c, 8), 0);
    assert_int_equal(tls_sessions_put(&c, "old.test:443:verify", old), 1);
    assert_int_equal(tls_sessions_put(&c, "live.test:443:verify", live), 1);
    /* A session with nothing to resume by is not kept: the reference stays the caller's. */
    assert_int_equal(tls_sessions_put(&c, "bare.test:443:verify", bare), 0);
    SSL_SESSION_free(bare);
    /* Expired: dropped when asked for. */
    assert_null(peek(&c, "old.test:443:verify", now));
    assert_int_equal(c.count, 1);
    /* Still live now, expired later. */
    assert_ptr_equal(peek(&c, "live.test:443:verify", now), live);
    assert_null(peek(&c, "live.test:443:verify", now + 301));
    assert_int_equal(c.count, 0);

    /* A failed resumption drops the session offered, not one stored since. */
    live = session(4, now, 300);
    assert_int_equal(tls_sessions_put(&c, "live.test:443:verify", live), 1);
    assert_int_equal(SSL_SESSION_up_ref(live), 1);
    assert_int_equal(tls_sessions_put(&c, "live.test:443:verify", fresh), 1);
    tls_sessions_drop(&c, "live.test:443:verify", live);
    assert_ptr_equal(peek(&c, "live.test:443:verify", now), fresh);
    tls_sessions_drop(&c, "live.test:443:verify", fresh);
    assert_null(peek(&c, "live.test:443:verify", now));
    SSL_SESSION_free(live);
    tls_sessions_cleanup(&c);
}

/* The cache on a context: made with it and freed with it; an SSL made for a host is offered
 * nothing before anything was stored. */
static void test_on_context(void **state)
{
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    SSL *ssl;

    (void)state;
    assert_non_null(ctx);
    assert_int_equal(tls_sessions_attach(ctx), 0);
    assert_int_equal(SSL_CTX_get_session_cache_mode(ctx),
                     SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    ssl = SSL_new(ctx);
    assert_non_null(ssl);
    assert_int_equal(tls_sessions_offer(ssl, "www.site.test", 443), 0);
    assert_null(SSL_get_session(ssl));
    SSL_free(ssl);
    SSL_CTX_free(ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bound),
        cmocka_unit_test(test_expiry_and_drop),
        cmocka_unit_test(test_on_context),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
