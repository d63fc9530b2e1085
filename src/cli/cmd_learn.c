/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock learn`: learning from recorded browsing (HTTP Archive files). Either every file
 * is learned from or none is: all but the first are validated before anything is learned.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/file.h"

/* Files at least this large get a progress line when stderr is a terminal. */
#define LEARN_PROGRESS_BYTES ((size_t)8 << 20)

static const char learn_help[] =
    "Reads HAR 1.2 files as browsers' developer tools, Playwright and debugging proxies save\n"
    "them, and learns from the cookies each third-party request and response carried. The\n"
    "first party of a request is the top-level page its tab showed when it started, never a\n"
    "frame: its page's latest navigation, else its Referer; requests with neither are\n"
    "skipped. An odd field is read as absent and an unreadable entry skipped, with a\n"
    "warning; if a file is not a HAR at all, nothing is learned from any of them.\n"
    "\nOptions:\n"
    "  -h, --help    print this help\n";

struct learn_progress {
    const struct cmd_entry *self;
    const char *name;
    int show;  /* draw progress lines */
    int width; /* of the last line drawn, to erase it */
};

static void on_progress(void *arg, size_t done, size_t total)
{
    struct learn_progress *p = arg;

    if (!p->show)
        return;
    if (total && done >= total) {
        fprintf(stderr, "\r%*s\r", p->width, "");
        return;
    }
    if (total == 0)
        p->width = fprintf(stderr, "\r%s: %zu entries read", p->name, done);
    else
        p->width = fprintf(stderr, "\r%s: %zu of %zu entries learned (%zu%%)", p->name, done, total,
                           done * 100 / total);
    if (p->width > 0)
        p->width--; /* the \r */
    else
        p->width = 0;
}

static void on_warning(void *arg, const char *msg)
{
    const struct learn_progress *p = arg;

    fprintf(stderr, "brock %s: warning: %s\n", p->self->name, msg);
}

static int read_har(const struct cmd_entry *self, const char *path, char **text, size_t *len)
{
    int err = file_read(path, CLI_FILE_MAX, text, len);

    if (err == -EFBIG)
        return cli_error(self, "%s: larger than %zu MiB", path, CLI_FILE_MAX >> 20);
    if (err < 0)
        return cli_error(self, "%s: %s", path, strerror(-err));
    return CLI_OK;
}

/* One file into e: a regular file is read a chunk at a time; anything else (a pipe) whole. */
static int learn_one(const struct cmd_entry *self, struct brock_engine *e, const char *path,
                     int show, struct brock_stats *total)
{
    struct learn_progress prog = {self, path, 0, 0};
    struct brock_stats st;
    struct stat sb;
    char *text = NULL;
    size_t len = 0;
    int fd, rc, err;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cli_error(self, "%s: %s", path, strerror(errno));
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
        prog.show = show && (size_t)sb.st_size >= LEARN_PROGRESS_BYTES && isatty(STDERR_FILENO);
        err = brock_learn_har_fd(e, path, fd, on_progress, on_warning, &prog, &st);
        close(fd);
    } else {
        close(fd);
        rc = read_har(self, path, &text, &len);
        if (rc != CLI_OK)
            return rc;
        prog.show = show && len >= LEARN_PROGRESS_BYTES && isatty(STDERR_FILENO);
        err = brock_learn_har(e, path, text, len, on_progress, on_warning, &prog, &st);
        mem_free(text);
    }
    if (err < 0)
        return cli_error(self, "%s", brock_engine_errmsg(e));
    total->entries += st.entries;
    total->third_party += st.third_party;
    total->recorded += st.recorded;
    total->blocked += st.blocked;
    total->skipped += st.skipped;
    total->unreadable += st.unreadable;
    return CLI_OK;
}

static int cmd_learn_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    static const struct option opts[] = {CLI_HELP_OPTION, {NULL, 0, NULL, 0}};
    struct brock_engine *e = NULL;
    struct brock_stats total;
    int c, rc;

    cli_getopt_start();
    c = getopt_long(argc, argv, ":h", opts, NULL);
    if (c != -1)
        return cli_getopt_other(self, c, argv);
    if (optind == argc)
        return cli_usage(self, "at least one HAR file is needed");
    for (int i = optind; i < argc; i++) {
        if (access(argv[i], R_OK) != 0)
            return cli_error(self, "%s: %s", argv[i], strerror(errno));
    }

    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    if (!brock_engine_learning(e)) {
        rc = cli_error(self, "learning is off (--no-learn, or the state's learn setting): "
                             "nothing learned");
        goto out;
    }
    /* A bad file fails the command; nothing learned from any file is then written. */
    memset(&total, 0, sizeof(total));
    for (int i = optind; i < argc && rc == CLI_OK; i++)
        rc = learn_one(self, e, argv[i], 1, &total);
    if (rc == CLI_OK) {
        printf("%zu entries read, %zu third-party requests, %zu trackers newly blocked, "
               "%zu skipped (first party unknown)",
               total.entries, total.third_party, total.blocked, total.skipped);
        if (total.unreadable)
            printf(", %zu skipped (unreadable)", total.unreadable);
        printf("\n");
    }
out:
    return cli_close(self, e, rc);
}

const struct cmd_entry cmd_learn_entry = {
    .name = "learn",
    .usage = "FILE.har...",
    .summary = "Learn from recorded browsing (HTTP Archive files)",
    .help = learn_help,
    .exec = cmd_learn_exec,
};
