/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock`: the global options, the command table and its dispatch, help, and the helpers
 * the commands share to open the engine on the state folder and close it again.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const struct cmd_entry *const cmd_table[] = {
    &cmd_run_entry,
    &cmd_check_entry,
    &cmd_learn_entry,
    &cmd_list_entry,
    &cmd_set_entry,
    &cmd_import_entry,
    &cmd_export_entry,
    &cmd_dnt_entry,
    &cmd_settings_entry,
    &cmd_disable_entry,
    &cmd_enable_entry,
    &cmd_pause_entry,
    &cmd_resume_entry,
    &cmd_update_entry,
    &cmd_ca_entry,
    &cmd_forget_entry,
    &cmd_stats_entry,
    &cmd_status_entry,
    &cmd_passthrough_entry,
    &cmd_passwd_entry,
    &cmd_clean_entry,
    &cmd_uncloak_entry,
    &cmd_transparent_entry,
    &cmd_help_entry,
    NULL,
};

static const char global_help[] =
    "Global options (before the command):\n"
    "  --config FILE the configuration file: `key = value` lines, the keys the long\n"
    "                options of brock and brock run (default " CLI_SYSTEM_CONFIG "\n"
    "                when it exists); options given here win\n"
    "  --state DIR   the state folder (default $XDG_STATE_HOME/brock, else\n"
    "                ~/.local/state/brock; for root " BROCK_SYSTEM_STATE_DIR ")\n"
    "  --store CONNINFO  keep the learned state in a PostgreSQL database shared by\n"
    "                several brock instances: postgresql://HOST/DB or service=NAME (a\n"
    "                libpq connection string; passwords from ~/.pgpass, a service file\n"
    "                or PGPASSWORD, never on the command line)\n"
    "  --data DIR    Privacy Badger's data (default " BROCK_DEFAULT_DATA_DIR ")\n"
    "  --no-seed     make a new state without Privacy Badger's seed (it stays so)\n"
    "  --no-learn    never learn, whatever the state's setting says\n"
    "  -h, --help    print this help; `brock help COMMAND` or `brock COMMAND --help`\n"
    "                describe one command\n"
    "  -V, --version print brock's version\n";

/* Where the option in hand came from ("FILE:LINE"), and where messages go instead of stderr
 * (cli_message_capture()): the buffer, its size, and whether it holds one already. */
static const char *msg_where;
static char *msg_buf;
static size_t msg_size;
static int msg_held;

void cli_message_where(const char *where)
{
    msg_where = where;
}

void cli_message_capture(char *buf, size_t size)
{
    msg_buf = size ? buf : NULL;
    msg_size = size;
    msg_held = 0;
    if (msg_buf)
        msg_buf[0] = '\0';
}

static void vmessage(const struct cmd_entry *cmd, const char *fmt, va_list ap)
{
    if (msg_buf) {
        int n = msg_held ? -1
                         : snprintf(msg_buf, msg_size, "%s%s", msg_where ? msg_where : "",
                                    msg_where ? ": " : "");

        if (n >= 0 && (size_t)n < msg_size)
            vsnprintf(msg_buf + n, msg_size - (size_t)n, fmt, ap);
        msg_held = 1;
        return;
    }
    fflush(stdout);
    if (cmd)
        fprintf(stderr, "brock %s: ", cmd->name);
    else
        fputs("brock: ", stderr);
    if (msg_where)
        fprintf(stderr, "%s: ", msg_where);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const struct cmd_entry *cmd, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    return CLI_ERROR;
}

int cli_usage(const struct cmd_entry *cmd, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vmessage(cmd, fmt, ap);
    va_end(ap);
    if (msg_buf)
        return CLI_USAGE;
    if (cmd)
        fprintf(stderr, "Try 'brock %s --help'.\n", cmd->name);
    else
        fputs("Try 'brock --help'.\n", stderr);
    return CLI_USAGE;
}

void cli_help(const struct cmd_entry *cmd, FILE *f)
{
    fprintf(f, "Usage: brock [GLOBAL OPTIONS] %s%s%s\n%s.\n", cmd->name, *cmd->usage ? " " : "",
            cmd->usage, cmd->summary);
    if (cmd->help && *cmd->help)
        fprintf(f, "\n%s", cmd->help);
}

static void main_help(FILE *f)
{
    fputs("Usage: brock [GLOBAL OPTIONS] [COMMAND [ARGS]]\n"
          "A filtering HTTP/HTTPS proxy that learns, as Privacy Badger does, which third-party\n"
          "domains track people across sites, and blocks them. The default command is run.\n"
          "\nCommands:\n",
          f);
    for (size_t i = 0; cmd_table[i]; i++)
        fprintf(f, "  %-8s %s\n", cmd_table[i]->name, cmd_table[i]->summary);
    fprintf(f, "\n%s", global_help);
}

void cli_getopt_start(void)
{
    /* 0, not 1: glibc then forgets the previous scan, including its '+' mode. */
    optind = 0;
    opterr = 0;
}

int cli_getopt_other(const struct cmd_entry *cmd, int c, char **argv)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";

    if (c == 'h') {
        cli_help(cmd, stdout);
        return CLI_OK;
    }
    if (c == ':')
        return cli_usage(cmd, "option '%s' needs an argument", arg);
    if (optopt && optopt != '?')
        return cli_usage(cmd, "unknown option '-%c'", optopt);
    return cli_usage(cmd, "unknown option '%s'", arg);
}

/* Where the state is when --state is not given. Root gets the system's folder: brock run as
 * root serves as an unprivileged user, who cannot enter root's home (mode 0700). */
static int default_state(struct cli *cli, const struct cmd_entry *cmd)
{
    const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    int n;

    /* The XDG rules say a relative $XDG_STATE_HOME is to be ignored. */
    if (xdg && xdg[0] == '/')
        n = snprintf(cli->state_buf, sizeof(cli->state_buf), "%s/brock", xdg);
    else if (geteuid() == 0)
        n = snprintf(cli->state_buf, sizeof(cli->state_buf), "%s", BROCK_SYSTEM_STATE_DIR);
    else if (home && home[0] == '/')
        n = snprintf(cli->state_buf, sizeof(cli->state_buf), "%s/.local/state/brock", home);
    else
        return cli_error(cmd, "no state folder: HOME and XDG_STATE_HOME are unset or not "
                              "absolute; give --state DIR");
    if (n < 0 || (size_t)n >= sizeof(cli->state_buf))
        return cli_error(cmd, "the default state folder's path is too long; give --state DIR");
    cli->state_dir = cli->state_buf;
    return CLI_OK;
}

/* A state folder others can read or enter holds a browsing history they can see: said once
 * a process, and left as it is (the user may share it on purpose). */
static void state_check_mode(const char *dir)
{
    static int warned;
    struct stat st;

    if (warned || stat(dir, &st) < 0 || !(st.st_mode & 077))
        return;
    warned = 1;
    fflush(stdout);
    fprintf(stderr,
            "brock: warning: %s is readable by other users; brock keeps a browsing "
            "history there: chmod 700 %s\n",
            dir, dir);
}

int cli_state(struct cli *cli, const struct cmd_entry *cmd)
{
    int rc = cli->state_dir ? CLI_OK : default_state(cli, cmd);
    struct stat st;

    if (rc != CLI_OK || !cli->state_dir)
        return rc != CLI_OK ? rc : cli_error(cmd, "no state folder; give --state DIR");
    if (stat(cli->state_dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return cli_error(cmd, "%s%s is not a folder", cli->state_given ? "--state " : "",
                         cli->state_dir);
    state_check_mode(cli->state_dir);
    return CLI_OK;
}

/* Whether text can go on a shell's command line as it is. */
static int shell_plain(const char *text)
{
    if (!*text)
        return 0;
    for (const char *p = text; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+,:=@%", *p))
            return 0;
    return 1;
}

/* Appends text to out (size bytes, n used); returns the new length, which may pass size
 * (then out holds what fitted). */
static size_t put(char *out, size_t size, size_t n, const char *text, size_t len)
{
    if (n < size)
        snprintf(out + n, size - n, "%.*s", (int)len, text);
    return n + len;
}

const char *cli_again(const struct cli *cli, const char *what, char *out, size_t size)
{
    size_t n = put(out, size, 0, "brock", 5);

    if (cli->state_given && shell_plain(cli->state_dir)) {
        n = put(out, size, n, " --state ", 9);
        n = put(out, size, n, cli->state_dir, strlen(cli->state_dir));
    } else if (cli->state_given) {
        /* In single quotes, where only a quote itself needs care: '\''. */
        n = put(out, size, n, " --state '", 10);
        for (const char *p = cli->state_dir; *p; p++)
            n = *p == '\'' ? put(out, size, n, "'\\''", 4) : put(out, size, n, p, 1);
        n = put(out, size, n, "'", 1);
    }
    n = put(out, size, n, " ", 1);
    put(out, size, n, what, strlen(what));
    return out;
}

/* ClearURLs' data.min.json as built in (scripts/embed.c --text: after a "//file" line). */
extern const char clearurls_shipped[];
extern const size_t clearurls_shipped_len;

int cli_open(struct cli *cli, const struct cmd_entry *cmd, struct brock_engine **e)
{
    struct brock_config cfg = {0};
    const char *rules = memchr(clearurls_shipped, '\n', clearurls_shipped_len);
    char err[512];

    *e = NULL;
    if (cli_state(cli, cmd) != CLI_OK)
        return CLI_ERROR;
    cfg.state_dir = cli->state_dir;
    cfg.store = cli->store;
    cfg.data_dir = cli->data_dir ? cli->data_dir : BROCK_DEFAULT_DATA_DIR;
    cfg.no_seed = cli->no_seed;
    cfg.no_learn = cli->no_learn;
    /* The proxy runs on a read-only state, learning in memory; other commands fail. */
    cfg.readonly_ok = cmd == &cmd_run_entry;
    /* The proxy never waits on a database: a thread of the engine's own talks to it. */
    cfg.store_thread = cmd == &cmd_run_entry;
    cfg.read_only = cmd->read_only;
    /* The rules brock ships, until `brock update` fetches newer ones into the state. */
    cfg.clearurls = rules ? rules + 1 : clearurls_shipped;
    cfg.clearurls_len = clearurls_shipped_len - (size_t)(cfg.clearurls - clearurls_shipped);
    err[0] = '\0';
    if (brock_engine_open(&cfg, e, err, sizeof(err)) < 0)
        return cli_error(cmd, "%s", *err ? err : "cannot open the engine");
    return CLI_OK;
}

int cli_sync(const struct cmd_entry *cmd, struct brock_engine *e, int rc)
{
    if (e && rc == CLI_OK && brock_sync(e) < 0)
        rc = cli_error(cmd, "cannot write the state: %s", brock_engine_errmsg(e));
    return rc;
}

int cli_close(const struct cmd_entry *cmd, struct brock_engine *e, int rc)
{
    rc = cli_sync(cmd, e, rc);
    brock_engine_free(e);
    return rc;
}

const char *cli_until(int64_t until_ms, int64_t now_ms, char *out, size_t size)
{
    static const struct {
        char unit;
        int64_t s;
    } units[] = {{'d', 86400}, {'h', 3600}, {'m', 60}, {'s', 1}};
    time_t t = (time_t)(until_ms / 1000);
    /* Whole seconds, rounded up: a pause of 10m just begun has 10m left, not 9m59s. */
    int64_t left = until_ms > now_ms ? (until_ms - now_ms + 999) / 1000 : 0;
    char when[64] = "?", rest[64] = "";
    size_t used = 0;
    struct tm tm;

    if (localtime_r(&t, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]) && used < sizeof(rest); i++) {
        if (left / units[i].s == 0)
            continue;
        used += (size_t)snprintf(rest + used, sizeof(rest) - used, "%lld%c",
                                 (long long)(left / units[i].s), units[i].unit);
        left %= units[i].s;
    }
    snprintf(out, size, "until %s, %s left", when, used ? rest : "nothing");
    return out;
}

int cli_days_parse(const char *s, long *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || *s == '-' || *s == '+' || v > BROCK_PAGE_VIEW_DAYS_MAX)
        return -1;
    *out = v;
    return 0;
}

static const struct cmd_entry *cmd_find(const char *name)
{
    for (size_t i = 0; cmd_table[i]; i++) {
        if (strcmp(cmd_table[i]->name, name) == 0)
            return cmd_table[i];
    }
    return NULL;
}

/* `brock help [COMMAND]`. */
static int cmd_help_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    static const struct option opts[] = {CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    const struct cmd_entry *cmd;
    int c;

    (void)cli;
    cli_getopt_start();
    c = getopt_long(argc, argv, ":h", opts, NULL);
    if (c != -1)
        return cli_getopt_other(self, c, argv);
    if (argc - optind > 1)
        return cli_usage(self, "too many arguments");
    if (argc == optind) {
        main_help(stdout);
        return CLI_OK;
    }
    cmd = cmd_find(argv[optind]);
    if (!cmd)
        return cli_usage(self, "'%s' is not a command", argv[optind]);
    cli_help(cmd, stdout);
    return CLI_OK;
}

const struct cmd_entry cmd_help_entry = {
    .name = "help",
    .usage = "[COMMAND]",
    .summary = "Print the commands, or one command's options",
    .help = "",
    .exec = cmd_help_exec,
    .read_only = 1,
};

enum { OPT_STATE = 256, OPT_STORE, OPT_DATA, OPT_NO_SEED, OPT_NO_LEARN, OPT_CONFIG };

const struct option cli_global_options[] = {
    {"state", required_argument, NULL, OPT_STATE},
    {"store", required_argument, NULL, OPT_STORE},
    {"data", required_argument, NULL, OPT_DATA},
    {"no-seed", no_argument, NULL, OPT_NO_SEED},
    {"no-learn", no_argument, NULL, OPT_NO_LEARN},
    {"config", required_argument, NULL, OPT_CONFIG},
    {"version", no_argument, NULL, 'V'},
    CLI_HELP_OPTION,
    {NULL, 0, NULL, 0},
};

/* What the global option scan tells its caller beyond a status: --help or --version done. */
struct global_scan {
    struct cli *cli;
    int done;
};

/* One global option (c from getopt_long over argv). Returns CLI_OK to go on, else the exit
 * status after a message (or after --help or --version, with done set). */
static int global_option(void *arg, int c, char **argv)
{
    struct global_scan *g = arg;
    struct cli *cli = g->cli;

    switch (c) {
    case OPT_STATE:
        if (!*optarg)
            return cli_usage(NULL, "--state needs a folder");
        cli->state_dir = optarg;
        cli->state_given = 1;
        return CLI_OK;
    case OPT_STORE:
        if (!*optarg)
            return cli_usage(NULL, "--store needs a PostgreSQL connection string");
        cli->store = optarg;
        return CLI_OK;
    case OPT_DATA:
        if (!*optarg)
            return cli_usage(NULL, "--data needs a folder");
        cli->data_dir = optarg;
        return CLI_OK;
    case OPT_NO_SEED: cli->no_seed = 1; return CLI_OK;
    case OPT_NO_LEARN: cli->no_learn = 1; return CLI_OK;
    case OPT_CONFIG:
        if (!*optarg)
            return cli_usage(NULL, "--config needs a file");
        cli->config = optarg;
        return CLI_OK;
    case 'V':
        g->done = 1;
        printf("brock %s\n", brock_version());
        return CLI_OK;
    case 'h':
        g->done = 1;
        main_help(stdout);
        return CLI_OK;
    case ':': return cli_usage(NULL, "option '%s' needs an argument", argv[optind - 1]);
    default:
        if (optopt && optopt != '?')
            return cli_usage(NULL, "unknown option '-%c'", optopt);
        return cli_usage(NULL, "unknown option '%s'", argv[optind - 1]);
    }
}

int cli_globals(struct cli *cli, const struct cli_conf *conf, int argc, char **argv, int *done)
{
    struct global_scan g = {cli, 0};
    int c, rc;

    memset(cli, 0, sizeof(*cli));
    *done = 0;
    rc = cli_conf_apply(conf, NULL, cli_global_options, global_option, &g);
    /* A file's option names itself, and the state a hint repeats is the command line's. */
    cli->state_given = 0;
    cli_getopt_start();
    /* '+': the first word that is not an option is the command; the rest is its own. */
    while (rc == CLI_OK && !g.done &&
           (c = getopt_long(argc, argv, "+:hV", cli_global_options, NULL)) != -1)
        rc = global_option(&g, c, argv);
    *done = g.done;
    return rc;
}

int cli_conf_reread(const struct cli *cli, struct cli_conf **out)
{
    return cli_conf_read(cli->config ? cli->config : CLI_SYSTEM_CONFIG, cli->config != NULL, out);
}

/* The global options: the command line's first, for --config (and --help, --version, a bad
 * option), then the configuration file's with the command line's over them. Returns CLI_OK
 * with optind at the command, or the exit status (*done 1 after --help or --version). */
static int main_globals(struct cli *cli, int argc, char **argv, int *done)
{
    struct cli first;
    struct cli_conf *conf = NULL;
    int rc;

    memset(&first, 0, sizeof(first));
    rc = cli_globals(&first, NULL, argc, argv, done);

    if (rc != CLI_OK || *done)
        return rc;
    rc = cli_conf_reread(&first, &conf);
    if (rc == CLI_OK)
        rc = cli_globals(cli, conf, argc, argv, done);
    if (rc != CLI_OK) {
        cli_conf_free(conf);
        return rc;
    }
    cli->conf = conf;
    cli->argc = argc;
    cli->argv = argv;
    return CLI_OK;
}

int main(int argc, char **argv)
{
    static char run_name[] = "run";
    char *run_argv[] = {run_name, NULL};
    struct cli cli;
    const struct cmd_entry *cmd;
    int rc, done;

    memset(&cli, 0, sizeof(cli));
    /* The state is a browsing history: whatever brock creates is its user's alone. */
    umask(077);
    /* Past a file size limit a write then fails with EFBIG, reported like a full disk,
     * instead of killing the process. */
    signal(SIGXFSZ, SIG_IGN);
    rc = main_globals(&cli, argc, argv, &done);
    if (rc != CLI_OK || done)
        return rc;
    if (optind == argc) {
        cmd = &cmd_run_entry;
        rc = cmd->exec(&cli, cmd, 1, run_argv);
    } else {
        cmd = cmd_find(argv[optind]);
        if (!cmd) {
            cli_conf_free(cli.conf);
            return cli_usage(NULL, "'%s' is not a command", argv[optind]);
        }
        rc = cmd->exec(&cli, cmd, argc - optind, argv + optind);
    }
    cli_conf_free(cli.conf);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        int e = errno;
        fprintf(stderr, "brock %s: writing to standard output: %s\n", cmd->name, strerror(e));
        rc = CLI_ERROR;
    }
    return rc;
}
