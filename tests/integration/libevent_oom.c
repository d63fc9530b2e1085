/* SPDX-License-Identifier: GPL-3.0-or-later */
/* libevent running out of memory on purpose, for oom.t: built as a shared library and loaded
 * into brock with LD_PRELOAD, it hands libevent an allocator (event_set_mem_functions, before
 * brock's main runs) whose Nth allocation after each accepted connection fails. N is read at
 * every accept from the file BROCK_OOM_AT names (0: none fails); each failure appends N to the
 * file BROCK_OOM_LOG names, so that the test knows the connection met it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

static long fail_at, count;

/* Writes with write(2): libevent may be in the middle of something when this runs. */
static void note_failure(void)
{
    const char *path = getenv("BROCK_OOM_LOG");
    char line[32];
    int fd, n;

    if (!path)
        return;
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    n = snprintf(line, sizeof(line), "%ld\n", fail_at);
    if (write(fd, line, (size_t)n) != n)
        n = 0;
    close(fd);
}

static int should_fail(void)
{
    if (fail_at <= 0 || ++count != fail_at)
        return 0;
    note_failure();
    return 1;
}

static void *oom_malloc(size_t n)
{
    return should_fail() ? NULL : malloc(n);
}

static void *oom_realloc(void *p, size_t n)
{
    return should_fail() ? NULL : realloc(p, n);
}

static void oom_free(void *p)
{
    free(p);
}

static long read_fail_at(void)
{
    const char *path = getenv("BROCK_OOM_AT");
    char text[32] = "";
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    ssize_t n;

    if (fd < 0)
        return 0;
    n = read(fd, text, sizeof(text) - 1);
    close(fd);
    return n > 0 ? strtol(text, NULL, 10) : 0;
}

/* libevent's listener accepts with accept4(); each connection starts the count afresh. */
int accept4(int fd, struct sockaddr *sa, socklen_t *len, int flags)
{
    static int (*real)(int, struct sockaddr *, socklen_t *, int);
    int rc;

    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "accept4");
    rc = real(fd, sa, len, flags);
    if (rc >= 0) {
        fail_at = read_fail_at();
        count = 0;
    }
    return rc;
}

__attribute__((constructor)) static void oom_start(void)
{
    event_set_mem_functions(oom_malloc, oom_realloc, oom_free);
}
