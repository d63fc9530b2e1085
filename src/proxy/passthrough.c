/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The hosts passed through unseen (passthrough.h). */
#include "proxy/passthrough.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/strmap.h"

/* What each shipped file holds, in words. */
static const struct {
    const char *file, *why;
} shipped_kinds[] = {
    {"banks.txt", "a bank or payment service"},
    {"sensitive.txt", "a service holding sensitive personal data"},
};

static const char *const shipped_other = "a host whose clients break under interception";

struct refusal {
    char host[BROCK_HOST_MAX];
    int64_t first_ms;
    unsigned count;
};

/* A quiet close held, or a spoken close remembered (then host is "" and why NULL). */
struct held_close {
    char client[PASSTHROUGH_CLIENT_MAX];
    char host[BROCK_HOST_MAX];
    const char *why;
    int64_t at_ms;
    int used;
};

struct passthrough {
    struct strmap shipped; /* host → its kind's words (static) */
    struct refusal refused[PASSTHROUGH_COUNTED];
    size_t next_refused;
    struct held_close quiet[PASSTHROUGH_HELD]; /* quiet closes not yet counted */
    struct held_close spoke[PASSTHROUGH_HELD]; /* spoken closes, a ring */
    size_t next_spoke;
    struct held_close trusted[PASSTHROUGH_HELD]; /* clients that spoke for a host, a ring */
    size_t next_trusted;
};

static const char *kind_of(const char *file)
{
    for (size_t i = 0; i < sizeof(shipped_kinds) / sizeof(shipped_kinds[0]); i++)
        if (!strcmp(file, shipped_kinds[i].file))
            return shipped_kinds[i].why;
    return shipped_other;
}

/* One line of a shipped file, as AdGuard writes them: a host, or "*." and a host (both mean
 * the host and its subdomains), perhaps quoted or followed by a "//" comment. Returns 0 with
 * the host normalised into out, or -1 for a line that names none. */
static int shipped_host(const char *line, size_t len, char *out)
{
    const char *end = line + len, *c;

    while (line < end && (*line == ' ' || *line == '\t' || *line == '"'))
        line++;
    if (line >= end || *line == '!' || (end - line >= 2 && line[0] == '/' && line[1] == '/'))
        return -1;
    if (memchr(line, '$', (size_t)(end - line)))
        return -1;
    if ((c = strstr(line, "//")) && c < end)
        end = c;
    while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '"' || end[-1] == '\r' ||
                          end[-1] == '.'))
        end--;
    if (end - line >= 2 && line[0] == '*' && line[1] == '.')
        line += 2;
    if (end <= line)
        return -1;
    return brock_host_normalize(line, (size_t)(end - line), out) < 0 ? -1 : 0;
}

struct passthrough *passthrough_new(void)
{
    struct passthrough *p = mem_calloc(1, sizeof(*p));
    const char *at = passthrough_shipped, *end = passthrough_shipped + passthrough_shipped_len;
    const char *kind = shipped_other;

    if (!p)
        return NULL;
    strmap_init(&p->shipped);
    while (at < end) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        size_t len = nl ? (size_t)(nl - at) : (size_t)(end - at);
        char host[BROCK_HOST_MAX];

        if (len > 7 && !memcmp(at, "//file ", 7)) {
            char file[64];

            snprintf(file, sizeof(file), "%.*s", (int)(len - 7), at + 7);
            kind = kind_of(file);
        } else if (shipped_host(at, len, host) == 0 &&
                   strmap_put(&p->shipped, host, (void *)(uintptr_t)kind) < 0) {
            passthrough_free(p);
            return NULL;
        }
        at += len + 1;
    }
    return p;
}

void passthrough_free(struct passthrough *p)
{
    if (!p)
        return;
    strmap_cleanup(&p->shipped, NULL);
    mem_free(p);
}

size_t passthrough_shipped_count(const struct passthrough *p)
{
    return p ? p->shipped.len : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int passthrough_shipped_each(const struct passthrough *p,
                             int (*fn)(void *arg, const char *host, const char *kind), void *arg)
{
    const char **keys = mem_calloc(p->shipped.len + 1, sizeof(*keys));
    const char *k;
    size_t it = 0, n = 0;
    int rc = 0;

    if (!keys)
        return -1;
    while (strmap_next(&p->shipped, &it, &k, NULL) && n < p->shipped.len)
        keys[n++] = k;
    qsort(keys, n, sizeof(*keys), by_name);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = fn(arg, keys[i], strmap_get(&p->shipped, keys[i]));
    mem_free(keys);
    return rc;
}

/* The shipped kind of host or of a name above it. */
static const char *shipped_of(const struct passthrough *p, const char *host, const char **name)
{
    for (const char *h = host; h; h = strchr(h, '.') ? strchr(h, '.') + 1 : NULL) {
        const char *kind = strmap_get(&p->shipped, h);

        if (kind) {
            *name = h;
            return kind;
        }
    }
    return NULL;
}

const char *passthrough_why(const struct passthrough *p, const struct brock_engine *e,
                            const char *const *globs, size_t n_globs, const char *host, char *why,
                            size_t size)
{
    struct brock_passthrough entry;
    char taken[BROCK_HOST_MAX + 1];
    const char *kind, *name = host;

    if (e && brock_passthrough_find(e, host, &entry)) {
        if (entry.learned)
            snprintf(why, size, "its clients refused brock's certificate: %s", entry.why);
        else if (*entry.why)
            snprintf(why, size, "you chose so (%s): %s", entry.host, entry.why);
        else
            snprintf(why, size, "you chose so (%s)", entry.host);
        return why;
    }
    for (size_t i = 0; i < n_globs; i++)
        if (fnmatch(globs[i], host, FNM_CASEFOLD) == 0) {
            snprintf(why, size, "--no-intercept %s", globs[i]);
            return why;
        }
    kind = p ? shipped_of(p, host, &name) : NULL;
    if (!kind)
        return NULL;
    /* The user took it off: an entry "!HOST" in the state. */
    snprintf(taken, sizeof(taken), "!%s", name);
    if (e && brock_passthrough_find(e, taken, NULL))
        return NULL;
    snprintf(why, size, "%s is on the list brock ships: %s", name, kind);
    return why;
}

int passthrough_refused(struct passthrough *p, const char *host, int64_t now_ms)
{
    struct refusal *r = NULL;

    for (size_t i = 0; i < PASSTHROUGH_COUNTED; i++)
        if (p->refused[i].count && !strcmp(p->refused[i].host, host)) {
            r = &p->refused[i];
            break;
        }
    if (r && now_ms - r->first_ms > PASSTHROUGH_FAILURE_WINDOW_MS)
        r->count = 0;
    if (!r) {
        /* A ring: the oldest counted host makes room. */
        r = &p->refused[p->next_refused];
        p->next_refused = (p->next_refused + 1) % PASSTHROUGH_COUNTED;
        r->count = 0;
        snprintf(r->host, sizeof(r->host), "%s", host);
    }
    if (r->count == 0)
        r->first_ms = now_ms;
    if (++r->count < PASSTHROUGH_FAILURES)
        return 0;
    r->count = 0;
    return 1;
}

static int64_t apart(int64_t a, int64_t b)
{
    return a > b ? a - b : b - a;
}

/* Where client's speaking for host is remembered, or PASSTHROUGH_HELD when it is not. */
static size_t trusted_find(const struct passthrough *p, const char *client, const char *host)
{
    for (size_t i = 0; i < PASSTHROUGH_HELD; i++) {
        const struct held_close *t = &p->trusted[i];

        if (t->used && !strcmp(t->host, host) && !strcmp(t->client, client))
            return i;
    }
    return PASSTHROUGH_HELD;
}

int passthrough_trusts(const struct passthrough *p, const char *client, const char *host,
                       int64_t now_ms)
{
    size_t i = trusted_find(p, client, host);

    return i < PASSTHROUGH_HELD && apart(now_ms, p->trusted[i].at_ms) <= PASSTHROUGH_TRUSTED_MS;
}

void passthrough_trusted(struct passthrough *p, const char *client, const char *host,
                         int64_t now_ms)
{
    size_t at = trusted_find(p, client, host);

    if (at == PASSTHROUGH_HELD) {
        at = p->next_trusted;
        p->next_trusted = (p->next_trusted + 1) % PASSTHROUGH_HELD;
        snprintf(p->trusted[at].client, sizeof(p->trusted[at].client), "%s", client);
        snprintf(p->trusted[at].host, sizeof(p->trusted[at].host), "%s", host);
        p->trusted[at].used = 1;
    }
    p->trusted[at].at_ms = now_ms;
    for (size_t i = 0; i < PASSTHROUGH_HELD; i++) {
        struct held_close *q = &p->quiet[i];

        if (q->used && !strcmp(q->host, host) && !strcmp(q->client, client) &&
            apart(now_ms, q->at_ms) <= PASSTHROUGH_TRUSTED_MS)
            q->used = 0;
    }
}

int passthrough_quiet(struct passthrough *p, const char *client, const char *host, const char *why,
                      int64_t now_ms)
{
    struct held_close *slot = &p->quiet[0];

    if (passthrough_trusts(p, client, host, now_ms))
        return 0;
    for (size_t i = 0; i < PASSTHROUGH_HELD; i++) {
        const struct held_close *s = &p->spoke[i];

        if (s->used && !strcmp(s->client, client) &&
            apart(now_ms, s->at_ms) <= PASSTHROUGH_TOGETHER_MS)
            return 0;
    }
    /* A free slot, else the oldest held close's, forgotten uncounted. */
    for (size_t i = 0; i < PASSTHROUGH_HELD && slot->used; i++)
        if (!p->quiet[i].used || p->quiet[i].at_ms < slot->at_ms)
            slot = &p->quiet[i];
    snprintf(slot->client, sizeof(slot->client), "%s", client);
    snprintf(slot->host, sizeof(slot->host), "%s", host);
    slot->why = why;
    slot->at_ms = now_ms;
    slot->used = 1;
    return 1;
}

void passthrough_spoke_closed(struct passthrough *p, const char *client, int64_t now_ms)
{
    struct held_close *s = &p->spoke[p->next_spoke];

    p->next_spoke = (p->next_spoke + 1) % PASSTHROUGH_HELD;
    snprintf(s->client, sizeof(s->client), "%s", client);
    s->at_ms = now_ms;
    s->used = 1;
    for (size_t i = 0; i < PASSTHROUGH_HELD; i++) {
        struct held_close *q = &p->quiet[i];

        if (q->used && !strcmp(q->client, client) &&
            apart(now_ms, q->at_ms) <= PASSTHROUGH_TOGETHER_MS)
            q->used = 0;
    }
}

int passthrough_due(struct passthrough *p, int64_t now_ms, char *host, const char **why)
{
    for (size_t i = 0; i < PASSTHROUGH_HELD; i++) {
        struct held_close *q = &p->quiet[i];

        if (q->used && now_ms - q->at_ms > PASSTHROUGH_TOGETHER_MS) {
            snprintf(host, BROCK_HOST_MAX, "%s", q->host);
            *why = q->why;
            q->used = 0;
            return 1;
        }
    }
    return 0;
}
