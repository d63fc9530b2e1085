/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock status`: asks the running brock's dashboard (GET /api/status) whether it runs, where,
 * since when and what it has done. The address is --listen, else the configuration file's
 * `listen`, else brock's default; a wildcard address is asked on loopback.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "jobs/jobs.h"
#include "proxy/proxy.h"
#include "util/alloc.h"
#include "util/clock.h"

/* /api/status is a few KiB. */
#define STATUS_MAX ((size_t)1 << 20)

static const char status_help[] =
    "Options:\n"
    "  --listen ADDR:PORT    where brock runs (default: the configuration file's listen,\n"
    "                        else " PROXY_DEFAULT_LISTEN ")\n"
    "  --json                print the dashboard's /api/status object as it is\n"
    "  -h, --help            print this help\n"
    "\nExits 0 when brock answers, 1 when it does not (or something else does).\n";

/* The configuration file's last `listen`, or NULL. */
static const char *conf_listen(const struct cli_conf *c)
{
    const char *v = NULL;

    for (size_t i = 0; c && i < c->n; i++)
        if (!strcmp(c->v[i].key, "listen"))
            v = c->v[i].value;
    return v;
}

/* The URL of the dashboard's what ("status", "settings") at listen, a wildcard address
 * asked on loopback. */
static int api_url(const char *listen, const char *what, char *out, size_t size)
{
    const char *port = strrchr(listen, ':');
    int n;

    if (!port || port == listen)
        return -1;
    if (!strncmp(listen, "0.0.0.0:", 8))
        n = snprintf(out, size, "http://127.0.0.1%s/api/%s", port, what);
    else if (!strncmp(listen, "[::]:", 5))
        n = snprintf(out, size, "http://[::1]%s/api/%s", port, what);
    else
        n = snprintf(out, size, "http://%s/api/%s", listen, what);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* brock off for a while: the pause (from /api/status), and the sites off until a time (from
 * /api/settings at settings_url, asked only then; nothing is said of them when it does not
 * answer). */
static void offtime_print(json_t *status, const char *settings_url)
{
    json_t *until = json_object_get(status, "paused_until_ms"), *settings, *ends, *one;
    int64_t now = clock_now_ms();
    struct jobs_get_result r;
    char when[160], err[256];
    size_t i;

    /* As `brock pause` and `brock settings` say it, and what ends it sooner. */
    if (json_is_true(json_object_get(status, "paused")))
        printf("paused %s (brock resume)\n",
               json_is_integer(until)
                   ? cli_until(json_integer_value(until), now, when, sizeof(when))
                   : "until you resume it");
    if (jobs_get(settings_url, STATUS_MAX, &r, err, sizeof(err)) < 0)
        return;
    settings = r.body ? json_loadb(r.body, r.len, 0, NULL) : NULL;
    ends = json_object_get(settings, "disabled_until");
    json_array_foreach(ends, i, one) {
        const char *site = json_string_value(json_object_get(one, "site"));
        int64_t end = json_integer_value(json_object_get(one, "until_ms"));

        printf("%s %s %s", i ? "," : "off for a while on", site ? site : "?",
               cli_until(end, now, when, sizeof(when)));
    }
    if (json_array_size(ends))
        printf("\n");
    json_decref(settings);
    mem_free(r.body);
}

static long long num(json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

/* The status in a few lines. */
static void status_print(json_t *j)
{
    json_t *s = json_object_get(j, "since_start"), *a = json_object_get(j, "actions");
    json_t *store = json_object_get(j, "store"), *https;
    long long started = num(j, "started_ms"), up = (clock_now_ms() - started) / 1000;
    time_t t = (time_t)(started / 1000);
    char when[64] = "?";
    struct tm tm;

    if (started > 0 && localtime_r(&t, &tm))
        strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S %z", &tm);
    printf("brock %s is running on %s (dashboard http://%s/), since %s "
           "(%lldd %02lld:%02lld:%02lld)\n",
           json_string_value(json_object_get(j, "version")),
           json_string_value(json_object_get(j, "listen")),
           json_string_value(json_object_get(j, "listen")), when, up / 86400, up / 3600 % 24,
           up / 60 % 60, up % 60);
    printf("since then: %lld requests, %lld blocked, %lld cookieblocked, %lld tunnels, "
           "%lld trackers learned, %lld links cleaned; %lld connections open\n",
           num(s, "requests"), num(s, "blocked"), num(s, "cookieblocked"), num(s, "tunnels"),
           num(s, "learned"), num(s, "cleaned"), num(s, "connections"));
    printf("trackers: %lld blocked, %lld cookieblocked, %lld allowed (your choices: %lld, %lld, "
           "%lld)\n",
           num(a, "block"), num(a, "cookieblock"), num(a, "allow"), num(a, "user_block"),
           num(a, "user_cookieblock"), num(a, "user_allow"));
    https = json_object_get(j, "https");
    if (json_is_string(json_object_get(https, "why")))
        printf("%s%s%s%s\n", json_string_value(json_object_get(https, "why")),
               json_is_string(json_object_get(https, "fix")) ? "; `" : "",
               json_is_string(json_object_get(https, "fix"))
                   ? json_string_value(json_object_get(https, "fix"))
                   : "",
               json_is_string(json_object_get(https, "fix")) ? "` lets it see inside" : "");
    printf("state: %s%s%s%s\n", json_string_value(json_object_get(store, "path")),
           json_is_true(json_object_get(store, "writing")) ? "" : " (not writing: ",
           json_is_true(json_object_get(store, "writing"))
               ? ""
               : json_string_value(json_object_get(store, "last_error")),
           json_is_true(json_object_get(store, "writing")) ? "" : ")");
}

static int cmd_status_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    enum { OPT_LISTEN = 256, OPT_JSON };
    static const struct option opts[] = {
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"json", no_argument, NULL, OPT_JSON},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    const char *listen = conf_listen(cli->conf);
    struct jobs_get_result r;
    char url[256], settings_url[256], err[1024];
    json_t *j;
    int c, as_json = 0;

    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (c == OPT_LISTEN)
            listen = optarg;
        else if (c == OPT_JSON)
            as_json = 1;
        else
            return cli_getopt_other(self, c, argv);
    }
    if (optind < argc)
        return cli_usage(self, "'%s': status takes no arguments", argv[optind]);
    if (!listen)
        listen = PROXY_DEFAULT_LISTEN;
    if (api_url(listen, "status", url, sizeof(url)) < 0 ||
        api_url(listen, "settings", settings_url, sizeof(settings_url)) < 0)
        return cli_usage(self, "--listen '%s': expected ADDR:PORT or [IPV6]:PORT", listen);
    if (jobs_get(url, STATUS_MAX, &r, err, sizeof(err)) < 0)
        return cli_error(self, "brock is not running on %s: %s", listen, err);
    j = r.body ? json_loadb(r.body, r.len, 0, NULL) : NULL;
    if (!j || !json_is_string(json_object_get(j, "version")) ||
        !json_is_object(json_object_get(j, "since_start"))) {
        json_decref(j);
        mem_free(r.body);
        return cli_error(self, "%s answers, but not as brock's dashboard (HTTP status %d)", listen,
                         r.http_status);
    }
    if (as_json) {
        printf("%s\n", r.body);
    } else {
        status_print(j);
        offtime_print(j, settings_url);
    }
    json_decref(j);
    mem_free(r.body);
    return CLI_OK;
}

const struct cmd_entry cmd_status_entry = {
    .name = "status",
    .usage = "[--listen ADDR:PORT] [--json]",
    .summary = "Whether brock runs, where, since when, and what it has done",
    .help = status_help,
    .exec = cmd_status_exec,
    .read_only = 1,
};
