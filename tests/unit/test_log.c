/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The log: a file opened over stderr and opened again under its name after a rotation moved
 * it away; with stderr as given, a reopen touches nothing. */
#include "test.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/file.h"
#include "util/log.h"

struct fixture {
    char dir[128];
    int saved; /* the test's own stderr, put back by teardown */
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));

    assert_non_null(f);
    test_mkdtemp("log", f->dir, sizeof(f->dir));
    f->saved = dup(STDERR_FILENO);
    assert_true(f->saved >= 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    int rc = test_rmtree(f->dir);

    if (dup2(f->saved, STDERR_FILENO) < 0)
        rc = -1;
    close(f->saved);
    free(f);
    return rc;
}

static char *slurp(const char *path)
{
    char *text = NULL;
    size_t n = 0;
    int rc = file_read(path, 1 << 20, &text, &n);

    if (rc != 0)
        fail_msg("%s cannot be read: %s", path, strerror(-rc));
    return text;
}

static void test_reopen_after_rotation(void **state)
{
    struct fixture *f = *state;
    char path[256], rotated[256];
    char *text;

    snprintf(path, sizeof(path), "%s/brock.log", f->dir);
    snprintf(rotated, sizeof(rotated), "%s/brock.log.1", f->dir);
    assert_int_equal(log_open(path), 0);
    log_msg(LOG_ERR, "before the rotation");
    assert_int_equal(rename(path, rotated), 0);
    log_msg(LOG_ERR, "while the file is being rotated");
    assert_int_equal(log_reopen(), 1);
    log_msg(LOG_ERR, "after the rotation");

    text = slurp(rotated);
    assert_non_null(strstr(text, "brock: before the rotation\n"));
    assert_non_null(strstr(text, "brock: while the file is being rotated\n"));
    assert_null(strstr(text, "after"));
    mem_free(text);
    text = slurp(path);
    assert_non_null(strstr(text, "brock: after the rotation\n"));
    assert_null(strstr(text, "before"));
    mem_free(text);

    /* A folder gone: the reopen fails, and lines go on to the file they went to. */
    assert_int_equal(unlink(path), 0);
    snprintf(rotated, sizeof(rotated), "%s/gone", f->dir);
    assert_int_equal(mkdir(rotated, 0700), 0);
    snprintf(path, sizeof(path), "%s/gone/brock.log", f->dir);
    assert_int_equal(log_open(path), 0);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(rotated), 0);
    assert_int_equal(log_reopen(), -ENOENT);
    log_msg(LOG_ERR, "still written");
}

/* Without a log file, a reopen leaves stderr as it was given. */
static void test_reopen_stderr(void **state)
{
    struct fixture *f = *state;
    struct stat before, after;
    char path[256];

    assert_int_equal(fstat(STDERR_FILENO, &before), 0);
    assert_int_equal(log_reopen(), 0);
    assert_int_equal(fstat(STDERR_FILENO, &after), 0);
    assert_true(before.st_dev == after.st_dev && before.st_ino == after.st_ino);
    /* A file that cannot be opened leaves stderr alone too. */
    snprintf(path, sizeof(path), "%s/no/such/folder/brock.log", f->dir);
    assert_int_equal(log_open(path), -ENOENT);
    assert_int_equal(fstat(STDERR_FILENO, &after), 0);
    assert_true(before.st_dev == after.st_dev && before.st_ino == after.st_ino);
}

int main(void)
{
    /* The stderr test first: the other leaves a log file named. */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_reopen_stderr, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reopen_after_rotation, setup, teardown),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
