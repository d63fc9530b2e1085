/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The dashboard owner's password and sessions (src/dash/owner.c): what a password may be, the
 * file written and read back (and every malformed one refused, changing nothing), the check,
 * and sessions bound to their address, their end and their key. */
#include "test.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "dash/owner.h"

struct ctx {
    char dir[128];
    char path[160];
};

static int setup(void **state)
{
    static struct ctx c;

    test_mkdtemp("owner", c.dir, sizeof(c.dir));
    snprintf(c.path, sizeof(c.path), "%s/%s", c.dir, OWNER_FILE);
    *state = &c;
    return 0;
}

static int teardown(void **state)
{
    struct ctx *c = *state;

    return test_rmtree(c->dir);
}

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

static void test_password_ok(void **state)
{
    char err[160], big[OWNER_PASSWORD_MAX + 2];

    (void)state;
    memset(big, 'x', sizeof(big));
    assert_int_equal(owner_password_ok("a", 1, err, sizeof(err)), 0);
    assert_int_equal(owner_password_ok(big, OWNER_PASSWORD_MAX, err, sizeof(err)), 0);
    assert_int_equal(owner_password_ok("", 0, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "empty"));
    assert_int_equal(owner_password_ok(big, OWNER_PASSWORD_MAX + 1, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "1025 bytes"));
    assert_int_equal(owner_password_ok("a\0b", 3, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "NUL"));
}

static void test_set_and_check(void **state)
{
    struct ctx *c = *state;
    struct owner o;
    struct stat st;
    char err[4400], text[1024];
    FILE *f;
    size_t n;

    assert_int_equal(owner_read(c->path, &o, err, sizeof(err)), 0);
    assert_int_equal(o.set, 0);
    assert_int_equal(owner_check(&o, "pw", 2), 0);
    assert_int_equal(owner_set_password(c->path, "", 0, err, sizeof(err)), -1);
    assert_int_equal(stat(c->path, &st), -1);
    assert_int_equal(owner_set_password(c->path, "s3cret pass", 11, err, sizeof(err)), 0);
    assert_int_equal(stat(c->path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    f = fopen(c->path, "r");
    assert_non_null(f);
    n = fread(text, 1, sizeof(text) - 1, f);
    fclose(f);
    text[n] = '\0';
    assert_null(strstr(text, "s3cret"));
    assert_int_equal(owner_read(c->path, &o, err, sizeof(err)), 0);
    assert_int_equal(o.set, 1);
    assert_int_equal(o.log_n, OWNER_SCRYPT_LOG_N);
    assert_int_equal(owner_check(&o, "s3cret pass", 11), 1);
    assert_int_equal(owner_check(&o, "s3cret pasS", 11), 0);
    assert_int_equal(owner_check(&o, "s3cret pas", 10), 0);
    assert_int_equal(owner_check(&o, "", 0), 0);
}

/* Each malformed file is refused with a sentence, and says no password is set. */
static void test_malformed(void **state)
{
    struct ctx *c = *state;
    const char *salt = "00112233445566778899aabbccddeeff";
    const char *hash = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    char good[512], bad[16][512];
    struct owner o;
    char err[4400];
    size_t n = 0;

    snprintf(good, sizeof(good), "# c\nscrypt 14 8 1 %s %s\nkey %s\n", salt, hash, hash);
    put(c->path, good);
    assert_int_equal(owner_read(c->path, &o, err, sizeof(err)), 0);
    assert_int_equal(o.set, 1);
    snprintf(bad[n++], 512, "scrypt 14 8 1 %s %s\n", salt, hash);               /* no key */
    snprintf(bad[n++], 512, "key %s\n", hash);                                  /* no hash */
    snprintf(bad[n++], 512, "scrypt 30 8 1 %s %s\nkey %s\n", salt, hash, hash); /* N too big */
    snprintf(bad[n++], 512, "scrypt 14 0 1 %s %s\nkey %s\n", salt, hash, hash);
    snprintf(bad[n++], 512, "scrypt 14 8 1 %.30s %s\nkey %s\n", salt, hash, hash); /* short */
    snprintf(bad[n++], 512, "scrypt 14 8 1 %s %sff\nkey %s\n", salt, hash, hash);  /* long */
    snprintf(bad[n++], 512, "scrypt 14 8 1 %s %s\nkey %.62sxx\n", salt, hash, hash);
    snprintf(bad[n++], 512, "scrypt 14 8 1 %s %s\nkey %s\nkey %s\n", salt, hash, hash, hash);
    snprintf(bad[n++], 512, "scrypt 14 8 1 %s %s\nkey %s\nmore\n", salt, hash, hash);
    snprintf(bad[n++], 512, "scrypt -1 8 1 %s %s\nkey %s\n", salt, hash, hash);
    snprintf(bad[n++], 512, "%s", "");
    for (size_t i = 0; i < n; i++) {
        put(c->path, bad[i]);
        memset(&o, 0xff, sizeof(o));
        err[0] = '\0';
        assert_int_equal(owner_read(c->path, &o, err, sizeof(err)), -1);
        assert_int_equal(o.set, 0);
        assert_non_null(strstr(err, "brock passwd"));
    }
}

static void test_sessions(void **state)
{
    struct ctx *c = *state;
    struct owner o, other;
    char err[4400], s[OWNER_SESSION_MAX + 1], forged[OWNER_SESSION_MAX + 1];
    const int64_t now = 1800000000;

    assert_int_equal(owner_set_password(c->path, "pw", 2, err, sizeof(err)), 0);
    assert_int_equal(owner_read(c->path, &o, err, sizeof(err)), 0);
    assert_int_equal(owner_session_make(&o, "192.0.2.7", now, s, sizeof(s)), 0);
    assert_int_equal(owner_session_valid(&o, s, strlen(s), "192.0.2.7", now), 1);
    assert_int_equal(
        owner_session_valid(&o, s, strlen(s), "192.0.2.7", now + OWNER_SESSION_SECONDS - 1), 1);
    /* Its end, another address, a byte changed, cut short. */
    assert_int_equal(
        owner_session_valid(&o, s, strlen(s), "192.0.2.7", now + OWNER_SESSION_SECONDS), 0);
    assert_int_equal(owner_session_valid(&o, s, strlen(s), "192.0.2.70", now), 0);
    memcpy(forged, s, sizeof(s));
    forged[strlen(forged) - 1] ^= 1;
    assert_int_equal(owner_session_valid(&o, forged, strlen(forged), "192.0.2.7", now), 0);
    assert_int_equal(owner_session_valid(&o, s, strlen(s) - 1, "192.0.2.7", now), 0);
    assert_int_equal(owner_session_valid(&o, "", 0, "192.0.2.7", now), 0);
    assert_int_equal(owner_session_valid(&o, "x.y", 3, "192.0.2.7", now), 0);
    /* An end moved later under the same MAC. */
    memcpy(forged, s, sizeof(s));
    forged[0] = (char)(forged[0] == '9' ? '8' : forged[0] + 1);
    assert_int_equal(owner_session_valid(&o, forged, strlen(forged), "192.0.2.7", now), 0);
    /* A new key ends it; so does a new password. */
    assert_int_equal(owner_sign_out_all(c->path, err, sizeof(err)), 0);
    assert_int_equal(owner_read(c->path, &other, err, sizeof(err)), 0);
    assert_int_equal(owner_check(&other, "pw", 2), 1);
    assert_int_equal(owner_session_valid(&other, s, strlen(s), "192.0.2.7", now), 0);
    /* Without a password, no session at all. */
    memset(&other, 0, sizeof(other));
    assert_int_equal(owner_session_make(&other, "192.0.2.7", now, s, sizeof(s)), -1);
    assert_int_equal(owner_sign_out_all("/nonexistent/owner", err, sizeof(err)), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_password_ok),
        cmocka_unit_test_setup_teardown(test_set_and_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sessions, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
