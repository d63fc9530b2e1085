/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock transparent rules`: the nftables rules that send connections to `brock run
 * --transparent`, printed, or put in and taken out with nft(8), as a table of brock's own.
 */
#include "cli/cli.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "process/nftrules.h"
#include "process/privs.h"

#define TRANSPARENT_DEFAULT_PORT 8120

static const char transparent_help[] =
    "Programs that ignore proxy settings, and devices on a network whose owner cannot set a\n"
    "proxy on them, reach brock when nftables redirects their connections to it: `brock run\n"
    "--transparent PORT` takes them, and serves each as a request for the name in its Host\n"
    "header or TLS server name, sent where it was going. This prints the rules, in a table\n"
    "of brock's own (inet brock), or puts them in or takes them out (as root).\n"
    "\nOptions:\n"
    "  --local          this machine's programs (the default): their outgoing connections,\n"
    "                   except brock's own (its user's) and those to this machine\n"
    "  --gateway IFACE  a router's LAN: connections coming in on IFACE, except those to\n"
    "                   the router itself (brock run then needs --allow for the LAN)\n"
    "  --port PORT      brock's transparent port (default: the port of `transparent` in\n"
    "                   the configuration file, else 8120)\n"
    "  --ports LIST     the destination ports redirected (default 80,443)\n"
    "  --user NAME      --local: the user brock runs as (default: the user `brock run`\n"
    "                   started as root becomes, else yours)\n"
    "  --apply          put the rules in (replacing brock's table if it is there)\n"
    "  --remove         take brock's table out (nothing to do is no error)\n"
    "  -h, --help       print this help\n";

/* Runs nft -f - with text on its standard input. Returns 0, or -1 after a message. */
static int nft_load(const struct cmd_entry *self, const char *text)
{
    char w_nft[] = "nft", w_f[] = "-f", w_stdin[] = "-";
    char *argv[] = {w_nft, w_f, w_stdin, NULL};
    size_t len = strlen(text), off = 0;
    int fds[2], status = 0;
    pid_t pid;

    if (pipe(fds) < 0) {
        cli_error(self, "cannot run nft: %s", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid = fork();
    if (pid == 0) {
        dup2(fds[0], 0);
        close(fds[0]);
        close(fds[1]);
        execvp(argv[0], argv);
        dprintf(2, "brock: nft cannot be run: %s (Debian's package nftables)\n", strerror(errno));
        _exit(127);
    }
    close(fds[0]);
    if (pid < 0) {
        close(fds[1]);
        cli_error(self, "cannot run nft: %s", strerror(errno));
        return -1;
    }
    /* nft that died early must not kill brock with SIGPIPE: its status says it all. */
    signal(SIGPIPE, SIG_IGN);
    while (off < len) {
        ssize_t n = write(fds[1], text + off, len - off);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        off += (size_t)n;
    }
    close(fds[1]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        cli_error(self, "nft refused the rules (above); nothing was changed");
        return -1;
    }
    return 0;
}

/* The user whose connections the local rules spare. Returns 0, or -1 after a message. */
static int rules_user(const struct cmd_entry *self, const char *name, uid_t *uid)
{
    struct privs pv;
    char err[256];
    struct passwd *pw;

    if (name) {
        if (!(pw = getpwnam(name))) {
            cli_usage(self, "--user '%s': no such user", name);
            return -1;
        }
        *uid = pw->pw_uid;
        return 0;
    }
    if (geteuid() != 0) {
        *uid = geteuid();
        return 0;
    }
    if (privs_plan(NULL, &pv, err, sizeof(err)) < 0) {
        cli_error(self, "%s", err);
        return -1;
    }
    *uid = pv.uid;
    return 0;
}

/* The options read; *which is 'p' (print), 'a' (apply) or 'r' (remove). */
struct rules_args {
    struct nft_rules r;
    const char *user;
    int which, local;
};

static int rules_options(const struct cmd_entry *self, int argc, char **argv, struct rules_args *a)
{
    enum { OPT_LOCAL = 256, OPT_GATEWAY, OPT_PORT, OPT_PORTS, OPT_USER, OPT_APPLY, OPT_REMOVE };
    static const struct option opts[] = {
        {"local", no_argument, NULL, OPT_LOCAL},
        {"gateway", required_argument, NULL, OPT_GATEWAY},
        {"port", required_argument, NULL, OPT_PORT},
        {"ports", required_argument, NULL, OPT_PORTS},
        {"user", required_argument, NULL, OPT_USER},
        {"apply", no_argument, NULL, OPT_APPLY},
        {"remove", no_argument, NULL, OPT_REMOVE},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    char err[256];
    int c;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_LOCAL: a->local = 1; break;
        case OPT_GATEWAY:
            if (!nft_iface_ok(optarg))
                return cli_usage(self, "--gateway '%s': not an interface name", optarg);
            a->r.gateway = optarg;
            break;
        case OPT_PORT:
            a->r.port = strspn(optarg, "0123456789") == strlen(optarg) && strlen(optarg) <= 5
                            ? atoi(optarg)
                            : 0;
            if (a->r.port < 1 || a->r.port > 65535)
                return cli_usage(self, "--port '%s': expected a port (1-65535)", optarg);
            break;
        case OPT_PORTS:
            if (nft_ports_parse(&a->r, optarg, err, sizeof(err)) < 0)
                return cli_usage(self, "%s", err);
            break;
        case OPT_USER: a->user = optarg; break;
        case OPT_APPLY:
        case OPT_REMOVE:
            if (a->which != 'p')
                return cli_usage(self, "give --apply or --remove, once");
            a->which = c == OPT_APPLY ? 'a' : 'r';
            break;
        default: return cli_getopt_other(self, c, argv);
        }
    }
    if (optind >= argc || strcmp(argv[optind], "rules") != 0)
        return cli_usage(self,
                         optind < argc ? "unknown subcommand '%s' (expected rules)"
                                       : "expected: brock transparent rules",
                         optind < argc ? argv[optind] : "");
    if (optind + 1 < argc)
        return cli_usage(self, "unexpected argument '%s'", argv[optind + 1]);
    if (a->local && a->r.gateway)
        return cli_usage(self, "give --local or --gateway IFACE, not both");
    if (a->r.gateway && a->user)
        return cli_usage(self, "--user is for --local: a router's rules spare brock anyway");
    return CLI_OK;
}

/* The port of the configuration file's `transparent = [ADDR:]PORT`, the last one; 0: none. */
static int conf_port(const struct cli_conf *conf)
{
    int port = 0;

    for (size_t i = 0; conf && i < conf->n; i++) {
        const char *v = conf->v[i].value, *colon;

        if (strcmp(conf->v[i].key, "transparent") != 0)
            continue;
        colon = strrchr(v, ':');
        v = colon ? colon + 1 : v;
        port = strspn(v, "0123456789") == strlen(v) && strlen(v) <= 5 ? atoi(v) : 0;
    }
    return port >= 1 && port <= 65535 ? port : 0;
}

static int cmd_transparent_exec(struct cli *cli, const struct cmd_entry *self, int argc,
                                char **argv)
{
    struct rules_args a = {
        .r = {.port = TRANSPARENT_DEFAULT_PORT, .ports = {80, 443}, .n_ports = 2}, .which = 'p'};
    char text[2048];
    int rc;

    if (conf_port(cli->conf))
        a.r.port = conf_port(cli->conf);
    if ((rc = rules_options(self, argc, argv, &a)) != CLI_OK)
        return rc;
    if (a.which == 'r') {
        if (nft_load(self, nft_rules_remove_text()) < 0)
            return CLI_ERROR;
        printf("brock's nftables table (inet %s) is gone.\n", NFT_TABLE);
        return CLI_OK;
    }
    if (!a.r.gateway && rules_user(self, a.user, &a.r.uid) < 0)
        return CLI_USAGE;
    if (nft_rules_text(&a.r, a.which == 'a', text, sizeof(text)) < 0)
        return cli_error(self, "the rules do not fit");
    if (a.which == 'p') {
        fputs(text, stdout);
        return CLI_OK;
    }
    if (nft_load(self, text) < 0)
        return CLI_ERROR;
    printf("Connections to port%s", a.r.n_ports > 1 ? "s" : "");
    for (size_t i = 0; i < a.r.n_ports; i++)
        printf("%s %d", i ? "," : "", a.r.ports[i]);
    printf(" %s redirected to brock's port %d (table inet %s); `brock transparent rules "
           "--remove` takes them out.\n",
           a.r.gateway ? "coming in on the LAN are" : "from this machine's programs are", a.r.port,
           NFT_TABLE);
    return CLI_OK;
}

const struct cmd_entry cmd_transparent_entry = {
    .name = "transparent",
    .usage = "rules [--local | --gateway IFACE] [--port PORT] [--apply | --remove]",
    .summary = "The nftables rules that redirect connections to brock",
    .help = transparent_help,
    .exec = cmd_transparent_exec,
    .read_only = 1,
};
