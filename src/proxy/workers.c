/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock run --workers N`: a parent that binds N listening sockets on one port (SO_REUSEPORT,
 * so the kernel spreads new connections over them), forks one worker process per socket, and
 * then only watches: it passes its signals on, starts again a worker that died (with a
 * backoff), and tells the service manager when every worker is ready. Each worker is a whole
 * `brock run` of its own (its loop, its engine on the shared state); see docs/design.md.
 */
#include "proxy/workers.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <systemd/sd-daemon.h>

#include "net/origdst.h"
#include "process/access.h"
#include "process/activate.h"
#include "proxy/firstparty_share.h"
#include "proxy/limits.h"
#include "proxy/proxy.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/log.h"

#define RESTART_FIRST_MS 100    /* a worker that died waits this long to start again... */
#define RESTART_MAX_MS 30000    /* ...doubled each time it dies soon after, up to this */
#define RESTART_STEADY_MS 10000 /* a worker that served this long starts from the first delay */

struct worker_proc {
    pid_t pid;     /* 0: not running */
    int ready;     /* said ready since it started */
    int reloading; /* told of a SIGHUP, not yet ready again */
    int64_t started_ms;
    int64_t restart_ms; /* when to start it again; 0: not waiting */
    unsigned delay_ms;  /* the backoff's next delay */
    unsigned starts;
};

struct sup {
    const struct proxy_options *o;
    int (*serve)(void *arg, const struct proxy_worker *w);
    void *arg;
    unsigned n;
    int *fds;                /* the listening sockets, one a worker; -1 once closed */
    int *way_fds[WAY_PORTS]; /* the SOCKS and transparent ports', one a worker; NULL: not
                                * asked for */
    struct worker_proc *w;
    struct worker_slot *slots;
    size_t slots_size;
    struct firstparty_ring *firstparty_ring;

    int pipe[2]; /* workers write their index on [1] when ready */
    int sigfd;
    sigset_t old_mask;
    char listen_name[80];
    int stopping;              /* a stopping signal came: no worker starts again */
    int all_ready;             /* every worker was ready once: the start is over */
    int reloading;             /* a SIGHUP is being passed on */
    int reload_due;            /* a SIGHUP came while the workers started: passed on once all
                                  * of them serve */
    int failed;                /* a worker could not start, or ended with a failure */
    int activated;             /* fds are descriptors of the socket systemd passed */
    struct report_keys report; /* the secrets every worker shares */
    char dash_token[2 * 32 + 1];
};

unsigned proxy_workers_default(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);

    return n < 1 ? 1 : n > PROXY_MAX_WORKERS ? PROXY_MAX_WORKERS : (unsigned)n;
}

int proxy_worker_is_first(const struct proxy_worker *w)
{
    return !w || w->index == 0;
}

/* ---- the sockets ---- */

/* Whether ss is [::], every address. */
static int wildcard6(const struct sockaddr_storage *ss)
{
    return ss->ss_family == AF_INET6 && !memcmp(&((const struct sockaddr_in6 *)ss)->sin6_addr,
                                                &in6addr_any, sizeof(in6addr_any));
}

int listen_socket(struct sockaddr_storage *ss, int *len, int transparent, int reuseport)
{
    int fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int on = 1, off = 0, e;

    if (fd < 0 && errno == EAFNOSUPPORT && wildcard6(ss)) {
        /* A machine without IPv6: every IPv4 address. */
        struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
        int port = access_port((const struct sockaddr *)ss);

        memset(ss, 0, sizeof(*ss));
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *len = (int)sizeof(*v4);
        fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    }
    if (fd < 0)
        return -1;
    /* TPROXY delivers connections for any address to a listener marked so. */
    if (transparent && orig_transparent(fd, ss->ss_family) < 0)
        log_msg(LOG_DEBUG, "the transparent port has no IP_TRANSPARENT (%s): REDIRECT only",
                strerror(errno));
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on)) < 0 ||
        (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) < 0) ||
        (transparent && ss->ss_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0) ||
        bind(fd, (const struct sockaddr *)ss, (socklen_t)*len) < 0 ||
        listen(fd, LIMIT_LISTEN_BACKLOG) < 0) {
        e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

/* s->n sockets at *ss (len bytes), one a worker's, into fds: the first chooses the port
 * when it is 0, the others take the same (SO_REUSEPORT). Returns 0, or -1 with err set, its
 * words naming opt and spec. */
static int sup_bind_all(struct sup *s, int *fds, int transparent, struct sockaddr_storage *ss,
                        int len, const char *opt, const char *spec, char *err, size_t errlen)
{
    socklen_t got = sizeof(*ss);

    for (unsigned i = 0; i < s->n; i++) {
        fds[i] = listen_socket(ss, &len, transparent, 1);
        if (fds[i] < 0 || (i == 0 && getsockname(fds[0], (struct sockaddr *)ss, &got) < 0)) {
            snprintf(err, errlen, "%s %s: %s", opt, spec, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Binds s->n sockets for port p, as sup_listen() does the proxy's. Returns 0, or -1 with err
 * set. */
static int sup_listen_way(struct sup *s, enum way_port p, char *err, size_t errlen)
{
    const char *spec = way_spec(s->o, p);
    struct sockaddr_storage ss;
    int len = (int)sizeof(ss);

    memset(&ss, 0, sizeof(ss));
    if (way_parse(p, spec, &ss, &len) < 0) {
        snprintf(err, errlen, "%s %s: expected an address and a port", way_option(p), spec);
        return -1;
    }
    return sup_bind_all(s, s->way_fds[p], p == WAY_PORT_TRANSPARENT, &ss, len, way_option(p), spec,
                        err, errlen);
}

/* The SOCKS and transparent ports' sockets, those asked for. */
static int sup_listen_ways(struct sup *s, char *err, size_t errlen)
{
    for (int p = 0; p < WAY_PORTS; p++)
        if (way_spec(s->o, p) && sup_listen_way(s, p, err, errlen) < 0)
            return -1;
    return 0;
}

/* Binds s->n sockets on the address of --listen, the first one choosing the port when it is
 * 0, the others taking the same. With socket activation, the workers take a descriptor each
 * of systemd's one socket instead, and accept from its one queue. */
static int sup_listen(struct sup *s, char *err, size_t errlen)
{
    const char *spec = s->o->listen ? s->o->listen : PROXY_DEFAULT_LISTEN;
    struct sockaddr_storage ss;
    int len = (int)sizeof(ss);
    int fd = activate_socket(s->o->listen, s->o->n_allow != 0, s->listen_name,
                             sizeof(s->listen_name), err, errlen);

    if (fd < 0)
        return -1;
    if (fd > 0) {
        s->activated = 1;
        s->fds[0] = fd;
        for (unsigned i = 1; i < s->n; i++) {
            s->fds[i] = fcntl(fd, F_DUPFD_CLOEXEC, 0);
            if (s->fds[i] < 0) {
                snprintf(err, errlen, "the socket systemd passed: %s", strerror(errno));
                return -1;
            }
        }
        return sup_listen_ways(s, err, errlen);
    }
    memset(&ss, 0, sizeof(ss));
    if (listen_parse(spec, &ss, &len) < 0) {
        snprintf(err, errlen, "--listen %s: expected ADDR:PORT or [IPV6]:PORT", spec);
        return -1;
    }
    if (sup_bind_all(s, s->fds, 0, &ss, len, "--listen", spec, err, errlen) < 0)
        return -1;
    access_name((const struct sockaddr *)&ss, s->listen_name, sizeof(s->listen_name));
    return sup_listen_ways(s, err, errlen);
}

/* No new connection waits for a worker any more: the sockets close in the parent, and in
 * each worker as it drains. */
static void sup_close_listeners(struct sup *s)
{
    for (unsigned i = 0; s->fds && i < s->n; i++) {
        if (s->fds[i] >= 0)
            close(s->fds[i]);
        s->fds[i] = -1;
        for (int p = 0; p < WAY_PORTS; p++) {
            if (s->way_fds[p] && s->way_fds[p][i] >= 0)
                close(s->way_fds[p][i]);
            if (s->way_fds[p])
                s->way_fds[p][i] = -1;
        }
    }
}

/* ---- starting a worker ---- */

/* In the child: nothing of the parent's but worker i's socket and the pipe's writing end;
 * the signals as a fresh `brock run` finds them. Never returns. */
static void sup_child(struct sup *s, unsigned i)
{
    struct proxy_worker w = {
        .index = i,
        .count = s->n,
        .listen_fd = s->fds[i],
        .way_fds = {s->way_fds[0] ? s->way_fds[0][i] : -1, s->way_fds[1] ? s->way_fds[1][i] : -1},
        .activated = s->activated,
        .ready_fd = s->pipe[1],
        .slots = s->slots,
        .starts = s->w[i].starts,
        .report = &s->report,
        .dash_token = s->dash_token,
        .firstparty_ring = s->firstparty_ring};
    static const int reset[] = {SIGINT, SIGTERM, SIGQUIT, SIGCHLD};
    int rc;

    close(s->sigfd);
    close(s->pipe[0]);
    for (unsigned j = 0; j < s->n; j++) {
        if (j != i && s->fds[j] >= 0)
            close(s->fds[j]);
        for (int p = 0; p < WAY_PORTS; p++)
            if (j != i && s->way_fds[p] && s->way_fds[p][j] >= 0)
                close(s->way_fds[p][j]);
    }
    for (size_t j = 0; j < sizeof(reset) / sizeof(reset[0]); j++)
        signal(reset[j], SIG_DFL);
    signal(SIGHUP, SIG_IGN);
    sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
    /* The parent speaks for all of them to the service manager. */
    unsetenv("NOTIFY_SOCKET");
    rc = s->serve(s->arg, &w);
    exit(rc);
}

static int sup_start(struct sup *s, unsigned i)
{
    struct worker_proc *w = &s->w[i];
    pid_t pid;

    /* What a worker that ended had counted stays in the total. */
    for (int k = 0; k < SLOT_COUNT; k++) {
        if (k != SLOT_CONNECTIONS)
            s->slots[s->n].v[k] += s->slots[i].v[k];
        s->slots[i].v[k] = 0;
    }
    fflush(NULL);
    pid = fork();
    if (pid < 0) {
        log_msg(LOG_ERR, "could not start worker %u: %s", i + 1, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        w->starts++;
        sup_child(s, i);
    }
    w->pid = pid;
    w->starts++;
    w->ready = 0;
    w->reloading = 0;
    w->restart_ms = 0;
    w->started_ms = clock_now_ms();
    return 0;
}

static void sup_signal_all(struct sup *s, int sig)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->w[i].pid > 0 && kill(s->w[i].pid, sig) < 0 && errno != ESRCH)
            log_msg(LOG_ERR, "could not signal worker %u (pid %d): %s", i + 1, (int)s->w[i].pid,
                    strerror(errno));
}

static unsigned sup_running(const struct sup *s)
{
    unsigned k = 0;

    for (unsigned i = 0; i < s->n; i++)
        k += s->w[i].pid > 0;
    return k;
}

/* Stops every worker: no worker starts again and the parent ends once the last has. */
static void sup_stop(struct sup *s, int sig)
{
    if (!s->stopping && s->all_ready)
        (void)sd_notify(0, "STOPPING=1\nSTATUS=stopping the workers");
    s->stopping = 1;
    sup_close_listeners(s);
    sup_signal_all(s, sig);
}

/* The secrets the workers share, drawn once a start. Returns 0, or -1 without random bytes. */
static int sup_secrets(struct sup *s)
{
    unsigned char raw[32];

    if (report_keys_init(&s->report) < 0 || getrandom(raw, sizeof(raw), 0) != sizeof(raw))
        return -1;
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(s->dash_token + 2 * i, 3, "%02x", raw[i]);
    OPENSSL_cleanse(raw, sizeof(raw));
    return 0;
}

/* ---- what the parent hears ---- */

/* A SIGHUP passed on to every worker that serves; READY=1 once they all did it. */
static void sup_reload(struct sup *s)
{
    struct timespec ts;

    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
        (void)sd_notifyf(0,
                         "RELOADING=1\nSTATUS=the workers read their options again\n"
                         "MONOTONIC_USEC=%llu",
                         (unsigned long long)ts.tv_sec * 1000000ULL +
                             (unsigned long long)ts.tv_nsec / 1000ULL);
    s->reloading = 1;
    for (unsigned i = 0; i < s->n; i++)
        s->w[i].reloading = s->w[i].pid > 0 && s->w[i].ready;
    sup_signal_all(s, SIGHUP);
}

static void sup_on_ready(struct sup *s, unsigned i)
{
    struct worker_proc *w;
    int was_starting = !s->all_ready;

    if (i >= s->n || s->w[i].pid <= 0)
        return;
    w = &s->w[i];
    w->ready = 1;
    w->reloading = 0;
    if (!s->all_ready) {
        /* The first worker alone creates or seeds a new state; then the others start, unless
         * a stop came first (read in the same turn as this word): it closed their sockets. */
        for (unsigned j = 1; i == 0 && !s->stopping && j < s->n; j++)
            if (!s->w[j].pid && sup_start(s, j) < 0)
                s->failed = 1;
        if (s->failed) {
            sup_stop(s, SIGTERM);
            return;
        }
        s->all_ready = 1;
        for (unsigned j = 0; j < s->n; j++)
            s->all_ready &= s->w[j].ready;
    }
    if (s->all_ready && was_starting) {
        /* Until now a message belonged on the terminal, as for a single process. */
        if (s->o->log_file && log_open(s->o->log_file) < 0)
            log_msg(LOG_ERR, "--log-file %s: cannot open it", s->o->log_file);
        log_msg(LOG_INFO, "%u workers serve %s", s->n, s->listen_name);
        (void)sd_notifyf(0, "READY=1\nSTATUS=%u workers serving on %s", s->n, s->listen_name);
        if (s->reload_due && !s->stopping) {
            s->reload_due = 0;
            log_msg(LOG_INFO, "SIGHUP (received while the workers started): passed on now");
            sup_reload(s);
        }
    } else if (s->reloading) {
        for (unsigned j = 0; j < s->n; j++)
            if (s->w[j].pid > 0 && s->w[j].reloading)
                return;
        s->reloading = 0;
        (void)sd_notifyf(0, "READY=1\nSTATUS=%u workers serving on %s", s->n, s->listen_name);
    }
}

static void sup_read_pipe(struct sup *s)
{
    unsigned char b[64];
    ssize_t r;

    while ((r = read(s->pipe[0], b, sizeof(b))) > 0)
        for (ssize_t k = 0; k < r; k++)
            sup_on_ready(s, b[k]);
}

static void sup_describe(int status, char *out, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(out, size, "killed by signal %d (%s)", WTERMSIG(status),
                 strsignal(WTERMSIG(status)));
    else
        snprintf(out, size, "exited with status %d", WEXITSTATUS(status));
}

/* A worker ended: the end of brock when stopping; a failed start when the start is not over;
 * else it starts again after its backoff. */
static void sup_on_exit(struct sup *s, pid_t pid, int status)
{
    char how[96];
    unsigned i;
    int64_t now = clock_now_ms();

    for (i = 0; i < s->n && s->w[i].pid != pid; i++)
        ;
    if (i == s->n)
        return;
    s->w[i].pid = 0;
    s->w[i].reloading = 0;
    s->slots[i].v[SLOT_CONNECTIONS] = 0;
    sup_describe(status, how, sizeof(how));
    if (s->stopping) {
        /* One still starting when told to stop ends by the signal passed on: no failure. */
        int told =
            WIFSIGNALED(status) && (WTERMSIG(status) == SIGTERM || WTERMSIG(status) == SIGINT ||
                                    WTERMSIG(status) == SIGQUIT);

        if (!told && (!WIFEXITED(status) || WEXITSTATUS(status) != 0)) {
            s->failed = 1;
            log_msg(LOG_ERR, "worker %u (pid %d) %s", i + 1, (int)pid, how);
        }
        return;
    }
    if (!s->all_ready) {
        log_msg(LOG_ERR, "worker %u (pid %d) %s before it was ready; stopping", i + 1, (int)pid,
                how);
        s->failed = 1;
        sup_stop(s, SIGTERM);
        return;
    }
    if (now - s->w[i].started_ms >= RESTART_STEADY_MS || !s->w[i].delay_ms)
        s->w[i].delay_ms = RESTART_FIRST_MS;
    else if ((s->w[i].delay_ms *= 2) > RESTART_MAX_MS)
        s->w[i].delay_ms = RESTART_MAX_MS;
    s->w[i].restart_ms = now + s->w[i].delay_ms;
    log_msg(LOG_ERR, "worker %u (pid %d) %s; starting it again in %u ms", i + 1, (int)pid, how,
            s->w[i].delay_ms);
}

static void sup_reap(struct sup *s)
{
    pid_t pid;
    int status;

    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
        sup_on_exit(s, pid, status);
}

static void sup_on_signal(struct sup *s, int sig)
{
    if (sig == SIGCHLD) {
        sup_reap(s);
    } else if (sig == SIGHUP) {
        int rc = log_reopen();

        if (rc < 0)
            log_msg(LOG_ERR, "SIGHUP: could not open the log file again: %s", strerror(-rc));
        if (s->stopping)
            return;
        /* Workers still starting would lose it, those serving would miss it: it waits. */
        if (!s->all_ready)
            s->reload_due = 1;
        else
            sup_reload(s);
    } else {
        /* A second stopping signal reaches them too, and stops them at once. */
        sup_stop(s, sig);
    }
}

/* Starts the workers whose backoff is over; returns the poll timeout to the next one. */
static int sup_restarts(struct sup *s)
{
    int64_t now = clock_now_ms(), next = -1;

    for (unsigned i = 0; i < s->n && !s->stopping; i++) {
        int64_t at = s->w[i].restart_ms;

        if (!at || s->w[i].pid)
            continue;
        if (at <= now) {
            if (sup_start(s, i) < 0)
                s->w[i].restart_ms = now + RESTART_MAX_MS;
            else
                log_msg(LOG_INFO, "worker %u started again (pid %d)", i + 1, (int)s->w[i].pid);
            continue;
        }
        if (next < 0 || at - now < next)
            next = at - now;
    }
    return (int)next;
}

static int sup_loop(struct sup *s)
{
    struct pollfd p[2] = {{.fd = s->sigfd, .events = POLLIN}, {.fd = s->pipe[0], .events = POLLIN}};

    while (sup_running(s) > 0 || (!s->stopping && !s->failed)) {
        int timeout = sup_restarts(s);
        struct signalfd_siginfo si;

        if (poll(p, 2, timeout) < 0 && errno != EINTR) {
            log_msg(LOG_ERR, "poll: %s", strerror(errno));
            sup_stop(s, SIGTERM);
            s->failed = 1;
            break;
        }
        while (read(s->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
            sup_on_signal(s, (int)si.ssi_signo);
        sup_read_pipe(s);
        sup_reap(s);
    }
    /* The workers that are left (after a failure to poll) end with the parent. */
    while (sup_running(s) > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, 0);

        if (pid < 0)
            break;
        sup_on_exit(s, pid, status);
    }
    if (s->all_ready)
        log_msg(LOG_INFO, "every worker has stopped");
    return s->failed ? 1 : 0;
}

/* s set up for n workers serving o: nothing open yet, the workers' table and the memory they
 * share made. Returns 0, or -1 with err set (sup_cleanup() s even then). */
static int sup_init(struct sup *s, const struct proxy_options *o, unsigned n, char *err,
                    size_t errlen)
{
    s->o = o;
    s->n = n;
    s->pipe[0] = s->pipe[1] = s->sigfd = -1;
    s->fds = mem_calloc(n, sizeof(*s->fds));
    s->w = mem_calloc(n, sizeof(*s->w));
    s->slots_size = (n + 1) * sizeof(*s->slots);
    s->slots = mmap(NULL, s->slots_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    s->firstparty_ring = mmap(NULL, firstparty_share_ring_size(), PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (!s->fds || !s->w || s->slots == MAP_FAILED || s->firstparty_ring == MAP_FAILED) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (unsigned i = 0; i < n; i++)
        s->fds[i] = -1;
    for (int p = 0; p < WAY_PORTS; p++) {
        if (!way_spec(o, p))
            continue;
        if (!(s->way_fds[p] = mem_calloc(n, sizeof(*s->way_fds[p])))) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        for (unsigned i = 0; i < n; i++)
            s->way_fds[p][i] = -1;
    }
    return 0;
}

/* The signals the parent handles, blocked and read from s->sigfd. Returns 0, or -1 with err
 * set. */
static int sup_signals(struct sup *s, char *err, size_t errlen)
{
    sigset_t mask;

    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGQUIT);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGCHLD);
    if (sigprocmask(SIG_BLOCK, &mask, &s->old_mask) < 0 ||
        (s->sigfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC)) < 0) {
        snprintf(err, errlen, "could not wait for signals: %s", strerror(errno));
        return -1;
    }
    return 0;
}

/* Closes and frees what s holds, and unblocks the signals it blocked. */
static void sup_cleanup(struct sup *s)
{
    sup_close_listeners(s);
    if (s->sigfd >= 0) {
        close(s->sigfd);
        sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
    }
    for (int i = 0; i < 2; i++)
        if (s->pipe[i] >= 0)
            close(s->pipe[i]);
    if (s->slots && s->slots != MAP_FAILED)
        munmap(s->slots, s->slots_size);
    if (s->firstparty_ring && s->firstparty_ring != MAP_FAILED)
        munmap(s->firstparty_ring, firstparty_share_ring_size());
    mem_free(s->fds);
    for (int p = 0; p < WAY_PORTS; p++)
        mem_free(s->way_fds[p]);
    mem_free(s->w);
    report_keys_cleanup(&s->report);
    OPENSSL_cleanse(s->dash_token, sizeof(s->dash_token));
}

int proxy_workers_run(const struct proxy_options *o, unsigned n,
                      int (*serve)(void *arg, const struct proxy_worker *w), void *arg, char *err,
                      size_t errlen)
{
    struct sup s;
    int rc = -1;

    memset(&s, 0, sizeof(s));
    s.serve = serve;
    s.arg = arg;
    if (sup_init(&s, o, n, err, errlen) < 0)
        goto out;
    if (sup_secrets(&s) < 0) {
        snprintf(err, errlen, "no random bytes for the workers' keys");
        goto out;
    }
    if (sup_listen(&s, err, errlen) < 0)
        goto out;
    if (pipe2(s.pipe, O_CLOEXEC) < 0 || fcntl(s.pipe[0], F_SETFL, O_NONBLOCK) < 0) {
        snprintf(err, errlen, "could not make a pipe: %s", strerror(errno));
        goto out;
    }
    if (sup_signals(&s, err, errlen) < 0)
        goto out;
    /* The parent itself holds no client: a write to a worker gone is its own affair. */
    signal(SIGPIPE, SIG_IGN);
    if (sup_start(&s, 0) < 0) {
        snprintf(err, errlen, "could not start a worker: %s", strerror(errno));
        goto out;
    }
    rc = sup_loop(&s);
out:
    sup_cleanup(&s);
    return rc;
}
