/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * The command line's shared pieces: the global options, the entries of the command table,
 * and the helpers every command uses to report errors and to open and close the engine.
 */
#ifndef BROCK_CLI_H
#define BROCK_CLI_H

#include <stdio.h>

#include "brock.h"

/* Exit statuses. */
enum { CLI_OK = 0, CLI_ERROR = 1, CLI_USAGE = 2 };

/* Files the commands read whole (HAR, imports) are refused past this size. */
#define CLI_FILE_MAX ((size_t)1 << 30)

/* Options that come before the command. */
struct cli {
    const char *state_dir; /* --state, or NULL for the default */
    int state_given;       /* --state was given: hints repeat it */
    const char *store;     /* --store: a PostgreSQL connection string, or NULL for SQLite */
    const char *data_dir;  /* --data, or NULL for BROCK_DEFAULT_DATA_DIR */
    int no_seed;
    int no_learn;
    char state_buf[4096];  /* the default state folder, once computed */
};

/* One command, as the table in main.c lists it. */
struct cmd_entry {
    const char *name;
    const char *usage;   /* what follows the name in a synopsis */
    const char *summary; /* one line for `brock --help` */
    const char *help;    /* the options and arguments, for `brock CMD --help` */
    int (*exec)(struct cli *cli, const struct cmd_entry *self, int argc, char **argv);
    int read_only;       /* only reads the state: creates and writes nothing */
};

extern const struct cmd_entry cmd_run_entry;
extern const struct cmd_entry cmd_check_entry;
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
extern const struct cmd_entry cmd_help_entry;

/* Prints "brock CMD: message" on stderr and returns CLI_ERROR. */
int cli_error(const struct cmd_entry *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the message and a pointer to --help on stderr and returns CLI_USAGE. */
int cli_usage(const struct cmd_entry *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints a command's help text on f. */
void cli_help(const struct cmd_entry *cmd, FILE *f);

/* The options every command shares, to be put at the end of its long options. */
#define CLI_HELP_OPTION {"help", no_argument, NULL, 'h'}

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

/* DAYS: a whole number from 0 to BROCK_PAGE_VIEW_DAYS_MAX into *out. Returns 0, or -1. */
int cli_days_parse(const char *s, long *out);

struct jobs_options;

/* The options of the commands that fetch one file (dnt, update), and their help lines. */
struct cli_fetch {
    const char **resolve; /* --resolve specs, as given (owned array, borrowed strings) */
    size_t n_resolve;
    const char *upstream_ca; /* --upstream-ca, or NULL */
};

#define CLI_FETCH_HELP \
    "  --resolve HOSTGLOB[:PORT]=ADDR:PORT\n" \
    "                        connect to ADDR:PORT for matching hosts instead of using DNS;\n" \
    "                        may be repeated (the first that matches wins)\n" \
    "  --upstream-ca FILE    also trust the roots in FILE (PEM)\n" \
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
