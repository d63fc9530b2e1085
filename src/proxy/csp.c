/* SPDX-License-Identifier: GPL-3.0-or-later */
/* Content-Security-Policy read as CSP Level 3 parses it (policies split at ',', directives at
 * ';', the first of a name wins, names and keywords ASCII case-insensitive), amended in
 * place: the rest of the value is copied byte for byte. */
#include "proxy/csp.h"

#include <string.h>
#include <strings.h>

/* One directive of a policy: its name's bytes and its value's (trimmed). */
struct directive {
    const char *value;
    size_t value_len;
    int found;
};

/* The directives that can govern inline scripts, strongest first. */
enum { D_SCRIPT_ELEM, D_SCRIPT, D_DEFAULT, D_COUNT };

static const char *const governing[D_COUNT] = {"script-src-elem", "script-src", "default-src"};

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

static int word_is(const char *p, size_t n, const char *word)
{
    return n == strlen(word) && strncasecmp(p, word, n) == 0;
}

/* Whether a source expression lets inline scripts run by their nonce or hash, or trusts only
 * those ('strict-dynamic'): with one, 'unsafe-inline' is ignored. */
static int is_nonce_or_hash(const char *p, size_t n)
{
    static const char *const prefixes[] = {"'nonce-", "'sha256-", "'sha384-", "'sha512-"};

    if (word_is(p, n, "'strict-dynamic'"))
        return 1;
    for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
        if (n > strlen(prefixes[i]) && strncasecmp(p, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* Reads one policy's directives (p[0..n)): the first of each governing name. */
static void read_policy(const char *p, size_t n, struct directive d[D_COUNT])
{
    size_t i = 0;

    memset(d, 0, sizeof(*d) * D_COUNT);
    while (i < n) {
        size_t end = i, name, name_end, vend;

        while (end < n && p[end] != ';')
            end++;
        name = i;
        while (name < end && is_space(p[name]))
            name++;
        name_end = name;
        while (name_end < end && !is_space(p[name_end]))
            name_end++;
        vend = end;
        while (vend > name_end && is_space(p[vend - 1]))
            vend--;
        for (int k = 0; k < D_COUNT; k++) {
            if (d[k].found || !word_is(p + name, name_end - name, governing[k]))
                continue;
            d[k].found = 1;
            d[k].value = p + name_end;
            d[k].value_len = vend - name_end;
        }
        i = end + 1;
    }
}

/* What one policy needs: *at and *cut say where the hash goes in (replacing cut bytes: a
 * 'none'), or nothing (returns 0). */
static int policy_edit(const char *p, size_t n, const char **at, size_t *cut)
{
    struct directive d[D_COUNT];
    const struct directive *g = NULL;
    const char *none = NULL;
    int unsafe_inline = 0, nonce_or_hash = 0;

    read_policy(p, n, d);
    for (int k = 0; k < D_COUNT && !g; k++)
        if (d[k].found)
            g = &d[k];
    if (!g)
        return 0;
    for (size_t i = 0; i < g->value_len;) {
        const char *s = g->value + i;
        size_t len = 0;

        while (len < g->value_len - i && !is_space(s[len]))
            len++;
        if (len > 0 && word_is(s, len, "'none'") && !none)
            none = s;
        unsafe_inline |= len > 0 && word_is(s, len, "'unsafe-inline'");
        nonce_or_hash |= len > 0 && is_nonce_or_hash(s, len);
        i += len > 0 ? len : 1;
    }
    if (unsafe_inline && !nonce_or_hash)
        return 0;
    *at = none ? none : g->value + g->value_len;
    *cut = none ? strlen("'none'") : 0;
    return 1;
}

int csp_amend(const char *v, size_t len, const char *hash, struct buf *out)
{
    size_t copied = 0, i = 0;
    int changed = 0;

    buf_reset(out);
    while (i <= len) {
        size_t end = i;
        const char *at;
        size_t cut;

        while (end < len && v[end] != ',')
            end++;
        if (policy_edit(v + i, end - i, &at, &cut)) {
            size_t pos = (size_t)(at - v);

            if (buf_append(out, v + copied, pos - copied) < 0 ||
                buf_puts(out, cut ? "" : " ") < 0 || buf_puts(out, hash) < 0)
                return -1;
            copied = pos + cut;
            changed = 1;
        }
        i = end + 1;
    }
    if (!changed)
        return 0;
    return buf_append(out, v + copied, len - copied) < 0 ? -1 : 1;
}
