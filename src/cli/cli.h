/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The command line's shared pieces: the global options, the entries of the command table,
 * and the helpers every command uses to report errors and to open and close the engine.
 */
#ifndef BROCK_CLI_H
#define BROCK_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "brock.h"

/* Exit statuses. */
enum { CLI_OK = 0, CLI_ERROR = 1, CLI_USAGE = 2 };

/* Files the commands read whole (HAR, imports) are refused past this size. */
#define CLI_FILE_MAX ((size_t)1 << 30)

/* The configuration file read when --config is not given, when it exists. */
#define CLI_SYSTEM_CONFIG "/etc/brock/brock.conf"

/* A configuration file is refused past this size. */
#define CLI_CONF_MAX ((size_t)1 << 20)

/* Options that come before the command. */
struct cli {
    const char *state_dir; /* --state, or NULL for the default */
    int state_given;       /* --state was given: hints repeat it */
    const char *store;     /* --store: a PostgreSQL connection string, or NULL for SQLite */
    const char *data_dir;  /* --data, or NULL for BROCK_DEFAULT_DATA_DIR */
    int no_seed;
    int no_learn;
    const char *config;    /* --config FILE, or NULL: CLI_SYSTEM_CONFIG when it exists */
    struct cli_conf *conf; /* the configuration file read at start, or NULL: none */
    int argc;              /* the whole command line, for reading it again (SIGHUP) */
    char **argv;
    char state_buf[4096]; /* the default state folder, once computed */
};

/* The global options' getopt_long table, and brock run's: the configuration file's keys. */
extern const struct option cli_global_options[];
extern const struct option cmd_run_options[];

/* One command, as the table in main.c lists it. */
struct cmd_entry {
    const char *name;
    const char *usage;   /* what follows the name in a synopsis */
    const char *summary; /* one line for `brock --help` */
    const char *help;    /* the options and arguments, for `brock CMD --help` */
    int (*exec)(struct cli *cli, const struct cmd_entry *self, int argc, char **argv);
    int read_only; /* only reads the state: creates and writes nothing */
};

extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_check_entry;
extern const struct cmd_entry cmd_clean_entry;
extern const struct cmd_entry cmd_uncloak_entry;
extern const struct cmd_entry cmd_transparent_entry;
extern const struct cmd_entry cmd_learn_entry;
extern const struct cmd_entry cmd_list_entry;
extern const struct cmd_entry cmd_set_entry;
extern const struct cmd_entry cmd_import_entry;
extern const struct cmd_entry cmd_export_entry;
extern const struct cmd_entry cmd_dnt_entry;
extern const struct cmd_entry cmd_update_entry;
extern const struct cmd_entry cmd_ca_entry;
extern const struct cmd_entry cmd_forget_entry;
extern const struct cmd_entry cmd_stats_entry;
extern const struct cmd_entry cmd_settings_entry;
extern const struct cmd_entry cmd_disable_entry;
extern const struct cmd_entry cmd_enable_entry;
extern const struct cmd_entry cmd_pause_entry;
extern const struct cmd_entry cmd_resume_entry;
extern const struct cmd_entry cmd_status_entry;
extern const struct cmd_entry cmd_passthrough_entry;
extern const struct cmd_entry cmd_passwd_entry;
extern const struct cmd_entry cmd_help_entry;

/* Prints "brock CMD: message" on stderr and returns CLI_ERROR. */
int cli_error(const struct cmd_entry *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the message and a pointer to --help on stderr and returns CLI_USAGE. */
int cli_usage(const struct cmd_entry *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* "FILE:LINE" (at most CLI_WHERE_MAX bytes), put after "brock CMD: " in the messages of
 * cli_error() and cli_usage() until cli_message_where(NULL); where is borrowed till then. */
#define CLI_WHERE_MAX 4200
void cli_message_where(const char *where);

/* While buf is not NULL, the first message of cli_error() and cli_usage() goes into buf
 * (size bytes, NUL-terminated; without "brock CMD: " or a pointer to --help) rather than to
 * stderr, and the rest are dropped: for a file read again while brock runs, whose messages go
 * to the log. buf is borrowed until cli_message_capture(NULL, 0). */
void cli_message_capture(char *buf, size_t size);

/* Prints a command's help text on f. */
void cli_help(const struct cmd_entry *cmd, FILE *f);

/* The options every command shares, to be put at the end of its long options. */
#define CLI_HELP_OPTION                                                                            \
    {                                                                                              \
        "help", no_argument, NULL, 'h'                                                             \
    }

/* Starts a command's getopt_long scan over argv (argv[0] is the command's name) with
 * getopt's own messages off. */
void cli_getopt_start(void);

/* What a command does with a getopt_long result it has no case for: 'h' prints its help
 * and gives CLI_OK; a bad option or a missing argument gives CLI_USAGE, with a message. */
int cli_getopt_other(const struct cmd_entry *cmd, int c, char **argv);

/* Settles cli->state_dir: --state, or the default folder (see README: $XDG_STATE_HOME/brock,
 * ~/.local/state/brock, or BROCK_SYSTEM_STATE_DIR for root), which is not created here. A path
 * that names something other than a folder is refused. Returns CLI_OK, or CLI_ERROR with a
 * message. */
int cli_state(struct cli *cli, const struct cmd_entry *cmd);

/* The command line that runs `brock ... WHAT` on the same state as this one (with --state
 * when it was given, quoted for a shell), into out. Returns out. */
const char *cli_again(const struct cli *cli, const char *what, char *out, size_t size);

/* Opens the engine on the global options. Returns CLI_OK, or CLI_ERROR with a message. */
int cli_open(struct cli *cli, const struct cmd_entry *cmd, struct brock_engine **e);

/* Ends a command: with rc CLI_OK writes its changes (brock_sync(), once); then frees e.
 * Returns rc, or CLI_ERROR when the state could not be written. */
int cli_close(const struct cmd_entry *cmd, struct brock_engine *e, int rc);

/* cli_close() but for the freeing: for a command that prints what is written. */
int cli_sync(const struct cmd_entry *cmd, struct brock_engine *e, int rc);

/* An end for people, into out: "until 2026-12-06 16:04:05 +0000, 9m58s left", in local time,
 * what is left of it after now_ms as brock_duration_parse() reads a duration. until_ms is
 * Unix ms, not BROCK_NO_END. Returns out. */
const char *cli_until(int64_t until_ms, int64_t now_ms, char *out, size_t size);

/* DAYS: a whole number from 0 to BROCK_PAGE_VIEW_DAYS_MAX into *out. Returns 0, or -1. */
int cli_days_parse(const char *s, long *out);

/* A configuration file's lines, in order: its key = value pairs (the strings point into
 * text), with their line numbers, and the argument each stands for (owned; NULL for a flag
 * that is no), which the options parsed from it borrow. */
struct cli_conf_line {
    const char *key, *value;
    unsigned line;
    char *arg;
};

struct cli_conf {
    char *path;
    char *text;
    struct cli_conf_line *v;
    size_t n;
};

/* Reads the configuration file at path into *out (free with cli_conf_free()): NULL when path
 * does not exist and must is 0. A line that is not blank, a comment (`#` first) or `key =
 * value` with a key of cli_global_options or cmd_run_options is refused. Returns CLI_OK, or
 * CLI_ERROR with a message naming the file and line, *out NULL. */
int cli_conf_read(const char *path, int must, struct cli_conf **out);

void cli_conf_free(struct cli_conf *c);

/* Hands each line of c (NULL: none) whose key is in opts, in order, to fn as the argument it
 * stands for: `--key=value`, or for a flag (no_argument) `--key` when its value is yes (yes,
 * true, on, 1) and nothing when it is no (no, false, off, 0). fn gets arg, getopt_long's
 * result and the argv it scanned, as a command's own option loop would; its messages, and a
 * value a flag cannot have, name the file and line. Returns CLI_OK, or the first result of fn
 * that is not CLI_OK. */
int cli_conf_apply(const struct cli_conf *c, const struct cmd_entry *cmd, const struct option *opts,
                   int (*fn)(void *arg, int c, char **argv), void *arg);

/* The global options of conf (NULL: none), then those of the command line argc, argv (whose
 * first word is the program's), into cli, which is emptied first; optind is then at the
 * command. Returns CLI_OK, or the exit status after a message, or after --help or --version
 * (*done then 1). */
int cli_globals(struct cli *cli, const struct cli_conf *conf, int argc, char **argv, int *done);

/* The configuration file of cli (--config, or CLI_SYSTEM_CONFIG when it exists) read again,
 * into *out (NULL: there is none). Returns CLI_OK, or CLI_ERROR with a message. */
int cli_conf_reread(const struct cli *cli, struct cli_conf **out);

struct jobs_options;

/* The options of the commands that fetch one file (dnt, update), and their help lines. */
struct cli_fetch {
    const char **resolve; /* --resolve specs, as given (owned array, borrowed strings) */
    size_t n_resolve;
    const char *upstream_ca; /* --upstream-ca, or NULL */
};

#define CLI_FETCH_HELP                                                                             \
    "  --resolve HOSTGLOB[:PORT]=ADDR:PORT\n"                                                      \
    "                        connect to ADDR:PORT for matching hosts instead of using DNS;\n"      \
    "                        may be repeated (the first that matches wins)\n"                      \
    "  --upstream-ca FILE    also trust the roots in FILE (PEM)\n"                                 \
    "  -h, --help            print this help\n"

#define CLI_FETCH_USAGE "[--resolve HOSTGLOB[:PORT]=ADDR:PORT]... [--upstream-ca FILE]"

/* Parses a fetching command's options; optind is then at its first operand. Returns CLI_OK
 * with *done 0 to go on; otherwise *done is 1 and the command returns the result (CLI_OK
 * after --help). Call cli_fetch_cleanup() either way. */
int cli_fetch_parse(const struct cmd_entry *self, struct cli_fetch *f, int argc, char **argv,
                    int *done);

/* Opens the state, runs job (a jobs.h call, with f's options and arg) on it, and closes it,
 * writing what job changed only when job succeeded. Returns CLI_OK, or CLI_ERROR with job's
 * sentence (or the state's failure) printed. */
int cli_fetch_run(struct cli *cli, const struct cmd_entry *self, const struct cli_fetch *f,
                  int (*job)(struct brock_engine *e, const struct jobs_options *o, void *arg,
                             char *err, size_t errlen),
                  void *arg);

void cli_fetch_cleanup(struct cli_fetch *f);

#endif
