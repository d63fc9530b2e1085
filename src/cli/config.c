/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The configuration file (/etc/brock/brock.conf, or --config FILE): one `key = value` a line,
 * each key a long option's name. A line becomes the argument `--key=value` (a flag's yes or no:
 * `--key` or nothing) and goes through the command's own getopt_long table and handler, so that
 * an option's shape and checks live in one place; its messages then name the file and line.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/file.h"

/* Options that mean nothing in a file. */
static int conf_key_excluded(const char *key)
{
    return !strcmp(key, "help") || !strcmp(key, "version") || !strcmp(key, "config");
}

static const struct option *conf_find(const struct option *opts, const char *key)
{
    if (conf_key_excluded(key))
        return NULL;
    for (; opts->name; opts++)
        if (!strcmp(opts->name, key))
            return opts;
    return NULL;
}

static char *trim(char *s)
{
    char *end;

    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    end = s + strlen(s);
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        *--end = '\0';
    return s;
}

/* A flag's value: 1 for yes, 0 for no, -1 for neither. */
static int conf_bool(const char *v)
{
    static const char *const yes[] = {"yes", "true", "on", "1"}, *const no[] = {"no", "false",
                                                                                "off", "0"};

    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (!strcasecmp(v, yes[i]))
            return 1;
        if (!strcasecmp(v, no[i]))
            return 0;
    }
    return -1;
}

/* The argument a line stands for, into l->arg (NULL for a flag that is no). */
static int conf_arg(struct cli_conf *c, struct cli_conf_line *l, const struct option *o)
{
    size_t size = strlen(o->name) + strlen(l->value) + 4;
    int b = 0;

    if (o->has_arg == no_argument && (b = conf_bool(l->value)) < 0)
        return cli_error(NULL, "%s:%u: '%s' is a flag: its value is yes or no, not '%s'", c->path,
                         l->line, o->name, l->value);
    if (o->has_arg != no_argument && !*l->value)
        return cli_error(NULL, "%s:%u: '%s' needs a value", c->path, l->line, o->name);
    /* A flag that is no says nothing, unless its opposite is an option too: `intercept = no`
     * stands for --no-intercept, which turns off what is otherwise on by itself. */
    if (o->has_arg == no_argument && !b) {
        char neg[64];

        snprintf(neg, sizeof(neg), "no-%s", o->name);
        if (!conf_find(cmd_run_options, neg) && !conf_find(cli_global_options, neg))
            return CLI_OK;
        l->arg = mem_malloc(size + 3);
        if (!l->arg)
            return cli_error(NULL, "out of memory");
        snprintf(l->arg, size + 3, "--%s", neg);
        return CLI_OK;
    }
    l->arg = mem_malloc(size);
    if (!l->arg)
        return cli_error(NULL, "out of memory");
    if (o->has_arg == no_argument)
        snprintf(l->arg, size, "--%s", o->name);
    else
        snprintf(l->arg, size, "--%s=%s", o->name, l->value);
    return CLI_OK;
}

/* One line (NUL-terminated, without its line feed) into c's next entry, or nothing for a
 * blank line or a comment. Returns CLI_OK, or CLI_ERROR with a message naming the line. */
static int conf_line(struct cli_conf *c, char *text, unsigned line)
{
    const struct option *o;
    char *key, *value, *eq;

    key = trim(text);
    if (!*key || *key == '#')
        return CLI_OK;
    eq = strchr(key, '=');
    if (!eq)
        return cli_error(NULL, "%s:%u: expected 'key = value'", c->path, line);
    *eq = '\0';
    value = trim(eq + 1);
    key = trim(key);
    if (!*key)
        return cli_error(NULL, "%s:%u: no key before '='", c->path, line);
    /* `client NAME = CIDR` stands for --client=NAME=CIDR: the name moves beside its range. */
    if (!strncmp(key, "client", 6) && (key[6] == ' ' || key[6] == '\t')) {
        char *name = trim(key + 7);
        size_t len = strlen(name);

        memmove(name + len + 1, value, strlen(value) + 1);
        name[len] = '=';
        value = name;
        key[6] = '\0';
    }
    o = conf_find(cli_global_options, key);
    if (!o)
        o = conf_find(cmd_run_options, key);
    if (!o)
        return cli_error(NULL,
                         "%s:%u: unknown key '%s' (the keys are the long options of "
                         "brock and brock run)",
                         c->path, line, key);
    c->v[c->n].key = key;
    c->v[c->n].value = value;
    c->v[c->n].line = line;
    c->n++;
    return conf_arg(c, &c->v[c->n - 1], o);
}

int cli_conf_read(const char *path, int must, struct cli_conf **out)
{
    struct cli_conf *c = NULL;
    unsigned line = 0;
    size_t len = 0, lines = 1;
    char *text = NULL, *p, *nl;
    int rc;

    *out = NULL;
    rc = file_read(path, CLI_CONF_MAX, &text, &len);
    if (rc == -ENOENT && !must)
        return CLI_OK;
    if (rc < 0)
        return cli_error(NULL, "%s: %s", path, rc == -EFBIG ? "too large" : strerror(-rc));
    if (memchr(text, '\0', len)) {
        mem_free(text);
        return cli_error(NULL, "%s: not a text file", path);
    }
    for (p = text; (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
        lines++;
    c = mem_calloc(1, sizeof(*c));
    if (c)
        c->v = mem_calloc(lines, sizeof(*c->v));
    if (c)
        c->path = mem_strdup(path);
    if (!c || !c->v || !c->path) {
        mem_free(text);
        cli_conf_free(c);
        return cli_error(NULL, "out of memory");
    }
    c->text = text;
    for (p = text; p; p = nl) {
        nl = strchr(p, '\n');
        if (nl)
            *nl++ = '\0';
        if (conf_line(c, p, ++line) != CLI_OK) {
            cli_conf_free(c);
            return CLI_ERROR;
        }
    }
    *out = c;
    return CLI_OK;
}

void cli_conf_free(struct cli_conf *c)
{
    if (!c)
        return;
    for (size_t i = 0; c->v && i < c->n; i++)
        mem_free(c->v[i].arg);
    mem_free(c->text);
    mem_free(c->v);
    mem_free(c->path);
    mem_free(c);
}

/* One entry through getopt_long and fn, as the argument it stands for. */
static int conf_apply_one(const char *path, const struct cli_conf_line *l,
                          const struct cmd_entry *cmd, const struct option *opts,
                          int (*fn)(void *arg, int c, char **argv), void *arg)
{
    char where[CLI_WHERE_MAX], name[32], *argv[3] = {name, l->arg, NULL};
    int c, rc;

    if (!l->arg)
        return CLI_OK;
    snprintf(name, sizeof(name), "%s", cmd ? cmd->name : "brock");
    snprintf(where, sizeof(where), "%s:%u", path, l->line);
    cli_getopt_start();
    c = getopt_long(2, argv, ":", opts, NULL);
    cli_message_where(where);
    rc = fn(arg, c, argv);
    cli_message_where(NULL);
    return rc;
}

int cli_conf_apply(const struct cli_conf *c, const struct cmd_entry *cmd, const struct option *opts,
                   int (*fn)(void *arg, int c, char **argv), void *arg)
{
    int rc = CLI_OK;

    if (!c)
        return CLI_OK;
    for (size_t i = 0; i < c->n && rc == CLI_OK; i++) {
        if (conf_find(opts, c->v[i].key))
            rc = conf_apply_one(c->path, &c->v[i], cmd, opts, fn, arg);
    }
    return rc;
}
