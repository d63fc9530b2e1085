/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The PostgreSQL store's own thread, for a process that must never wait on the database (brock
 * run): brock_sync() hands it batches taken out of memory's marks and takes what it read of
 * other instances' changes; the thread alone talks to the database, waits on it, notices a lost
 * connection and connects again, backing off, while memory goes on serving and learning.
 */
#include "store/store_pg.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/clock.h"

/* Connecting again after a failure waits BACKOFF_FIRST_MS, then twice as long each time it
 * fails, up to BACKOFF_MAX_MS. */
#define BACKOFF_FIRST_MS 500
#define BACKOFF_MAX_MS 30000

/* With nothing to do, the thread looks at the connection at least this often. */
#define IDLE_WAIT_MS 1000

static void bg_wake(struct brock__pg_bg *bg)
{
    uint64_t one = 1;
    ssize_t n = write(bg->wake_fd, &one, sizeof(one));

    (void)n; /* a counter already set wakes the thread as well */
}

/* Records a failure in the status; a connection lost changes the state once. */
static void bg_failed(struct brock__pg *p, int64_t *backoff)
{
    struct brock__pg_bg *bg = p->bg;
    int lost = brock__pq->PQstatus(p->conn) != CONNECTION_OK;

    pthread_mutex_lock(&bg->mu);
    snprintf(bg->error, sizeof(bg->error), "%s", p->pgerr);
    bg->error_ms = clock_now_ms();
    if (lost && bg->connected) {
        bg->connected = 0;
        bg->since_ms = bg->error_ms;
        bg->sock = -1;
        bg->down++;
    }
    pthread_mutex_unlock(&bg->mu);
    *backoff = *backoff ? *backoff * 2 : BACKOFF_FIRST_MS;
    if (*backoff > BACKOFF_MAX_MS)
        *backoff = BACKOFF_MAX_MS;
}

/* Connects again (bounded by the connection's connect_timeout), prepares the statements and
 * listens; what was missed meanwhile is read from the journal next. 0 or -1. */
static int bg_connect(struct brock__pg *p)
{
    struct brock__pg_bg *bg = p->bg;

    brock__pq->PQreset(p->conn);
    if (brock__pq->PQstatus(p->conn) != CONNECTION_OK) {
        brock__pg_note_err(p, brock__pq->PQerrorMessage(p->conn));
        return -1;
    }
    if (brock__pg_session(p, 1) < 0)
        return -1;
    pthread_mutex_lock(&bg->mu);
    bg->connected = 1;
    bg->since_ms = clock_now_ms();
    bg->sock = brock__pq->PQsocket(p->conn);
    p->notified = 1;
    pthread_mutex_unlock(&bg->mu);
    return 0;
}

/* Waits up to ms for the engine's wake-up or, with watch, for the server's notifications.
 * 0, or -1 when the connection was found lost. */
static int bg_sleep(struct brock__pg *p, int64_t ms, int watch)
{
    struct brock__pg_bg *bg = p->bg;
    struct pollfd fds[2] = {{.fd = bg->wake_fd, .events = POLLIN},
                            {.fd = watch ? brock__pq->PQsocket(p->conn) : -1, .events = POLLIN}};
    int n = poll(fds, 2, (int)ms), others;

    if (n <= 0)
        return 0;
    if (fds[0].revents) {
        uint64_t v;
        ssize_t got = read(bg->wake_fd, &v, sizeof(v));

        (void)got;
    }
    if (!fds[1].revents)
        return 0;
    if ((others = brock__pg_take_notifications(p)) < 0)
        return -1;
    if (others) {
        pthread_mutex_lock(&bg->mu);
        p->notified = 1;
        pthread_mutex_unlock(&bg->mu);
    }
    return 0;
}

/* Writes b; once it is in, it leaves the queue. A batch the server refuses for good (a value
 * it cannot keep) would stop every write after it if it were retried: it is written again one
 * statement at a time, the refused ones left out and said. 0 or -1. */
static int bg_write(struct brock__pg *p, struct brock__pg_batch *b)
{
    struct brock__pg_bg *bg = p->bg;
    uint64_t refused = 0;

    if (brock__pg_batch_exec(p, b, &bg->mu) < 0 &&
        (!brock__pg_refused_for_good(p) || brock__pg_batch_exec_each(p, b, &bg->mu, &refused) < 0))
        return -1;
    pthread_mutex_lock(&bg->mu);
    if (refused) {
        bg->refused += refused;
        bg->error_ms = clock_now_ms();
        snprintf(bg->error, sizeof(bg->error),
                 "the database refused %llu change%s for good, left out (the rest is written): "
                 "%.400s",
                 (unsigned long long)refused, refused == 1 ? "" : "s", p->pgerr);
    }
    bg->queued = NULL;
    bg->written_ms = clock_now_ms();
    bg->written_rows += b->n - refused;
    pthread_cond_broadcast(&bg->written);
    pthread_mutex_unlock(&bg->mu);
    brock__pg_batch_free(b);
    return 0;
}

/* Reads what others wrote since journal row since. While it reads, and until the engine has
 * applied what it read, the engine makes no batch: its changes stay marked in memory, and so
 * win over the rows read (rows read before a batch of ours was written would otherwise undo
 * changes no longer marked). The news is handed over only when that held. 0 or -1. */
static int bg_read(struct brock__pg *p, int64_t since, uint64_t made)
{
    struct brock__pg_bg *bg = p->bg;
    struct brock__pg_news *news = brock__pg_news_read(p, since);
    int rc = news ? 0 : -1;

    pthread_mutex_lock(&bg->mu);
    bg->reading = 0;
    if (news && bg->made == made && !bg->news) {
        bg->news = news;
        bg->news_made = made;
        news = NULL;
        p->notified = 0;
    }
    pthread_mutex_unlock(&bg->mu);
    brock__pg_news_free(news);
    return rc;
}

/*
 * The thread's round, until told to stop:
 *   1. while a failure's backoff runs, wait (a wake-up does not shorten it);
 *   2. not connected: connect again;
 *   3. a batch queued: write it (the queue holds one; it is written before anything is read);
 *   4. another instance wrote, and the engine took the last news: read the journal;
 *   5. else wait for the engine or a notification, IDLE_WAIT_MS at most.
 */
static void *bg_main(void *arg)
{
    struct brock__pg *p = arg;
    struct brock__pg_bg *bg = p->bg;
    int64_t backoff = 0, retry_at = 0;

    for (;;) {
        struct brock__pg_batch *b;
        int64_t now = clock_now_ms(), since;
        uint64_t made;
        int connected, read, rc;

        if (now < retry_at) {
            (void)bg_sleep(p, retry_at - now, 0);
            pthread_mutex_lock(&bg->mu);
            rc = bg->stop;
            pthread_mutex_unlock(&bg->mu);
            if (rc)
                break;
            continue;
        }
        pthread_mutex_lock(&bg->mu);
        if (bg->stop) {
            pthread_mutex_unlock(&bg->mu);
            break;
        }
        b = bg->queued;
        connected = bg->connected;
        read = connected && !b && p->notified && !bg->news;
        bg->reading = read;
        made = bg->made;
        since = p->last_seq;
        pthread_mutex_unlock(&bg->mu);

        if (!connected)
            rc = bg_connect(p);
        else if (b)
            rc = bg_write(p, b);
        else if (read)
            rc = bg_read(p, since, made);
        else
            rc = bg_sleep(p, IDLE_WAIT_MS, 1);
        if (rc < 0) {
            bg_failed(p, &backoff);
            retry_at = clock_now_ms() + backoff;
        } else {
            backoff = 0;
        }
    }
    return NULL;
}

int brock__pg_bg_start(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    struct brock__pg_bg *bg;
    pthread_condattr_t ca;
    sigset_t all, old;
    int rc;

    if (p->bg)
        return 0;
    if (!(bg = mem_calloc(1, sizeof(*bg))))
        return brock__fail(e, BROCK_ENOMEM, "out of memory");
    bg->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (bg->wake_fd < 0) {
        mem_free(bg);
        return brock__fail(e, BROCK_EIO, "cannot start the store's thread: eventfd: %s",
                           strerror(errno));
    }
    pthread_mutex_init(&bg->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&bg->written, &ca);
    pthread_condattr_destroy(&ca);
    bg->connected = 1;
    bg->since_ms = clock_now_ms();
    bg->sock = brock__pq->PQsocket(p->conn);
    p->bg = bg;
    /* Signals are the event loop's: the thread takes none. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = pthread_create(&bg->thread, NULL, bg_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        p->bg = NULL;
        close(bg->wake_fd);
        pthread_cond_destroy(&bg->written);
        pthread_mutex_destroy(&bg->mu);
        mem_free(bg);
        return brock__fail(e, BROCK_EIO, "cannot start the store's thread: %s", strerror(rc));
    }
    return 0;
}

void brock__pg_bg_stop(struct brock__pg *p)
{
    struct brock__pg_bg *bg = p ? p->bg : NULL;

    if (!bg)
        return;
    pthread_mutex_lock(&bg->mu);
    bg->stop = 1;
    /* A statement waiting on a database that does not answer returns at once. */
    if (bg->sock >= 0)
        shutdown(bg->sock, SHUT_RDWR);
    pthread_mutex_unlock(&bg->mu);
    bg_wake(bg);
    pthread_join(bg->thread, NULL);
    p->bg = NULL;
    close(bg->wake_fd);
    pthread_cond_destroy(&bg->written);
    pthread_mutex_destroy(&bg->mu);
    brock__pg_batch_free(bg->queued);
    brock__pg_news_free(bg->news);
    mem_free(bg);
}

/* ---- the engine's side ---- */

int brock__pg_bg_flush(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    struct brock__pg_bg *bg = p->bg;
    int busy, rc;

    /* One batch at a time, and none while the thread reads others' changes: meanwhile later
     * changes stay marked in memory, and the next batch takes them all at once. */
    pthread_mutex_lock(&bg->mu);
    busy = bg->queued || bg->reading || bg->news;
    pthread_mutex_unlock(&bg->mu);
    if (busy)
        return 0;
    if ((rc = brock__pg_batch_make(e)) < 0)
        return rc;
    pthread_mutex_lock(&bg->mu);
    bg->queued = p->batch;
    bg->made++;
    pthread_mutex_unlock(&bg->mu);
    p->batch = NULL;
    brock__store_marks_clear(e);
    bg_wake(bg);
    return 0;
}

/* Copies the thread's view of the connection into the engine's health (bg->mu held). */
static void bg_health(struct brock_engine *e, const struct brock__pg_bg *bg)
{
    struct brock__store_health *h = &e->health;

    h->connected = bg->connected;
    h->since_ms = bg->since_ms;
    h->queued = bg->queued ? bg->queued->n : 0;
    h->last_write_ms = bg->written_ms;
    h->written_rows = bg->written_rows;
    h->refused = bg->refused;
    if (bg->error_ms > h->last_error_ms) {
        snprintf(h->last_error, sizeof(h->last_error), "%s", bg->error);
        h->last_error_ms = bg->error_ms;
    }
}

int brock__pg_bg_poll(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    struct brock__pg_bg *bg = p->bg;
    struct brock__pg_news *news;
    int64_t old_seq = 0;
    int n;

    pthread_mutex_lock(&bg->mu);
    bg_health(e, bg);
    news = bg->news;
    bg->news = NULL;
    if (news && bg->news_made != bg->made) {
        /* Read before a batch of ours went in: read again after it. */
        brock__pg_news_free(news);
        news = NULL;
        p->notified = 1;
    } else if (news) {
        old_seq = p->last_seq;
        p->last_seq = news->max;
    }
    pthread_mutex_unlock(&bg->mu);
    if (!news) {
        bg_wake(bg);
        return 0;
    }
    n = brock__pg_news_apply(e, news);
    if (n < 0) {
        pthread_mutex_lock(&bg->mu);
        p->last_seq = old_seq;
        p->notified = 1;
        pthread_mutex_unlock(&bg->mu);
    }
    brock__pg_news_free(news);
    return n;
}

int brock__pg_bg_health(struct brock_engine *e)
{
    struct brock__pg *p = e->store;
    struct brock__pg_bg *bg = p->bg;

    if (!bg)
        return 0;
    pthread_mutex_lock(&bg->mu);
    bg_health(e, bg);
    /* A connection lost, or a batch refused since the last one went in, is a failing store,
     * though brock_sync() succeeds. */
    e->health.failing = !bg->connected || (bg->queued && bg->error_ms > bg->written_ms);
    pthread_mutex_unlock(&bg->mu);
    return 1;
}

int brock__pg_bg_wait(struct brock_engine *e, int timeout_ms)
{
    struct brock__pg *p = e->store;
    struct brock__pg_bg *bg = p->bg;
    struct timespec deadline;
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &deadline);
    deadline.tv_sec += timeout_ms / 1000;
    deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    for (;;) {
        int timed_out = 0, queued;

        pthread_mutex_lock(&bg->mu);
        while (bg->queued && !timed_out)
            timed_out = pthread_cond_timedwait(&bg->written, &bg->mu, &deadline) != 0;
        queued = bg->queued != NULL;
        pthread_mutex_unlock(&bg->mu);
        if (!queued && !brock__store_unsaved(e))
            return 0;
        if (timed_out || queued)
            break;
        if ((rc = brock__pg_flush(e)) < 0)
            return rc;
    }
    (void)brock__pg_bg_health(e);
    return brock__fail(e, BROCK_ESTORE, "%s: %llu changes were not written before the deadline: %s",
                       p->where, (unsigned long long)e->health.queued + e->dirty + e->deleted.n,
                       e->health.last_error[0] ? e->health.last_error : "the database is slow");
}
