/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The load clients' common frame: CONNS processes each run one client until a deadline and
 * report one count (requests, bytes) through a pipe; the parent sums them. Included by the
 * bench programs that need it, each built alone.
 */
#ifndef BROCK_BENCH_FANOUT_H
#define BROCK_BENCH_FANOUT_H

#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Forks conns processes, each calling one(i, arg) and sending back what it returns (< 0: that
 * client failed); waits for them all. Returns the sum of the counts, and sets *failed to the
 * clients that failed; -1 when no pipe could be made. */
static long long fanout(int conns, long long (*one)(int i, void *arg), void *arg, int *failed)
{
    int fds[2];
    long long sum = 0, got;

    *failed = 0;
    if (pipe(fds) < 0)
        return -1;
    for (int i = 0; i < conns; i++) {
        if (fork() == 0) {
            close(fds[0]);
            got = one(i, arg);
            _exit(write(fds[1], &got, sizeof(got)) == (ssize_t)sizeof(got) ? 0 : 1);
        }
    }
    close(fds[1]);
    while (read(fds[0], &got, sizeof(got)) == (ssize_t)sizeof(got)) {
        if (got < 0)
            (*failed)++;
        else
            sum += got;
    }
    close(fds[0]);
    while (wait(NULL) > 0)
        ;
    return sum;
}

#endif
