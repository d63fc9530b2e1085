/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * `brock check`: the decision for one request, as one JSON object, so that scripts and
 * people can ask what the proxy would do and why without sending anything.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <jansson.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"

static const char check_help[] =
    "URL is a full http(s) URL or a host name. Prints one JSON object: url, host, tracker\n"
    "(when CNAME uncloaking changed the host), via_cname (that tracker, when the chain\n"
    "came from DNS), base, site, third_party, type, action, effect, reason, surrogate (the\n"
    "token of the stand-in served instead, when there is one) and why.\n"
    "\nOptions:\n"
    "  --site URL    the page that makes the request (URL or host); without it the page\n"
    "                is unknown, which is judged third party\n"
    "  --type TYPE   what the request fetches: other (the default), main_frame, sub_frame,\n"
    "                script, stylesheet, image, font, media, xmlhttprequest, ping,\n"
    "                websocket or object; a script can be a fingerprinting script of a\n"
    "                cookieblocked CDN, and a blocked script or stylesheet can have a\n"
    "                surrogate\n"
    "  --cname NAME  decide as `brock run` does once DNS answered that the URL's host is\n"
    "                an alias of NAME; repeat it for each name of a longer chain, in\n"
    "                order (at most 8). The proxy learns chains from its own look-ups;\n"
    "                without this, check knows only Privacy Badger's static list\n"
    "  -h, --help    print this help\n";

/* The words "reason" takes, one per enum brock_reason. */
static const char *reason_word(enum brock_reason r)
{
    switch (r) {
    case BROCK_WHY_INVALID: return "invalid";
    case BROCK_WHY_FIRST_PARTY: return "first_party";
    case BROCK_WHY_PRIVATE: return "private";
    case BROCK_WHY_DISABLED: return "disabled";
    case BROCK_WHY_ACTION: return "action";
    case BROCK_WHY_IGNORED: return "ignored";
    case BROCK_WHY_FP_SCRIPT: return "fp_script";
    case BROCK_WHY_WIDGET: return "widget";
    }
    return "action";
}

/* brock_url_host() reads the host out of any scheme; requests the proxy decides on are web
 * requests (or bare hosts, as CONNECT names them), so anything else is a bad URL here. */
static int is_web(const char *url)
{
    static const char *const schemes[] = {"http", "https", "ws", "wss"};
    size_t n = strspn(url, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+.-");

    if (n == 0 || url[n] != ':' || (url[n + 1] >= '0' && url[n + 1] <= '9'))
        return 1;
    if (strncmp(url + n + 1, "//", 2) != 0)
        return 0;
    for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
        if (strlen(schemes[i]) == n && strncasecmp(url, schemes[i], n) == 0)
            return 1;
    }
    return 0;
}

static int set_str(json_t *o, const char *key, const char *val)
{
    return json_object_set_new(o, key, json_string(val));
}

/* The explanation, and the surrogate served in the request's place. */
static int set_why(json_t *o, const char *why, const struct brock_decision *d)
{
    char *text;
    int rc;

    if (!d->surrogate || d->reason == BROCK_WHY_FP_SCRIPT)
        return set_str(o, "why", why);
    size_t size = strlen(why) + sizeof(d->surrogate_token) + 80;

    text = mem_malloc(size);
    if (!text)
        return -1;
    snprintf(text, size, "%s A harmless stand-in (surrogate %s) is answered instead.", why,
             d->surrogate_token);
    rc = set_str(o, "why", text);
    mem_free(text);
    return rc;
}

static json_t *decision_json(struct brock_engine *e, const char *url,
                             const struct brock_decision *d)
{
    json_t *o = json_object();
    char why[512], *big = NULL;
    size_t need;
    int bad;

    if (!o)
        return NULL;
    need = brock_decision_explain(e, d, why, sizeof(why));
    if (need >= sizeof(why)) {
        big = mem_malloc(need + 1);
        if (big)
            brock_decision_explain(e, d, big, need + 1);
    }
    bad = set_str(o, "url", url) | set_str(o, "host", d->host);
    if (strcmp(d->tracker, d->host) != 0 && d->tracker[0])
        bad |= set_str(o, "tracker", d->tracker);
    if (d->via_dns)
        bad |= set_str(o, "via_cname", d->tracker);
    bad |= set_str(o, "base", d->base) | set_str(o, "site", d->site) |
           json_object_set_new(o, "third_party", json_boolean(d->third_party)) |
           set_str(o, "type", brock_resource_type_name(d->type)) |
           set_str(o, "action", brock_action_name(d->action)) |
           set_str(o, "effect", brock_effect_name(d->effect)) |
           set_str(o, "reason", reason_word(d->reason));
    if (d->site_choice)
        bad |= json_object_set_new(o, "site_choice", json_true());
    if (d->surrogate)
        bad |= set_str(o, "surrogate", d->surrogate_token);
    bad |= set_why(o, big ? big : why, d);
    mem_free(big);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* What check was asked: the request, its URL and host, the page's URL (NULL: none) and host,
 * and the CNAME chain to decide with. */
struct check_args {
    struct brock_request req;
    const char *url, *site_url;
    char host[BROCK_HOST_MAX], site[BROCK_HOST_MAX];
    const char *cnames[BROCK_CNAME_CHAIN_MAX];
    size_t n_cnames;
};

/* check's options and its URL into a. *done is 0 when the command is to go on (CLI_OK); else
 * it is set, and the command's result (after a message, or after --help) is returned. */
static int check_args(const struct cmd_entry *self, int argc, char **argv, struct check_args *a,
                      int *done)
{
    static const struct option opts[] = {
        {"site", required_argument, NULL, 's'},
        {"type", required_argument, NULL, 't'},
        {"cname", required_argument, NULL, 'c'},
        CLI_HELP_OPTION,
        {NULL, 0, NULL, 0},
    };
    int c;

    *done = 1; /* until the options say to go on */
    cli_getopt_start();
    while ((c = getopt_long(argc, argv, ":s:t:h", opts, NULL)) != -1) {
        if (c == 's') {
            a->site_url = optarg;
        } else if (c == 'c') {
            if (a->n_cnames == BROCK_CNAME_CHAIN_MAX)
                return cli_usage(self, "--cname: a chain has at most 8 names");
            a->cnames[a->n_cnames++] = optarg;
        } else if (c == 't') {
            int t = brock_resource_type_parse(optarg);
            if (t < 0)
                return cli_usage(self, "--type: use other, main_frame, sub_frame, script, "
                                       "stylesheet, image, font, media, xmlhttprequest, ping, "
                                       "websocket or object");
            a->req.type = (enum brock_resource_type)t;
        } else {
            return cli_getopt_other(self, c, argv);
        }
    }
    if (argc - optind != 1)
        return cli_usage(self, argc == optind ? "a URL is needed" : "one URL only, please");
    a->url = argv[optind];
    if (!is_web(a->url) || brock_url_host(a->url, a->host) < 0)
        return cli_error(self, "'%s' is not an http(s) URL or a host name", a->url);
    if (a->site_url && (!is_web(a->site_url) || brock_url_host(a->site_url, a->site) < 0))
        return cli_error(self, "--site '%s' is not an http(s) URL or a host name", a->site_url);
    *done = 0;
    return CLI_OK;
}

static int cmd_check_exec(struct cli *cli, const struct cmd_entry *self, int argc, char **argv)
{
    struct check_args a = {.req.type = BROCK_RESOURCE_OTHER};
    struct brock_engine *e = NULL;
    struct brock_decision d;
    json_t *o = NULL;
    int rc, done;

    rc = check_args(self, argc, argv, &a, &done);
    if (rc != CLI_OK || done)
        return rc;
    rc = cli_open(cli, self, &e);
    if (rc != CLI_OK)
        return rc;
    /* The chain is the engine's for this run alone: nothing of it is written. */
    if (a.n_cnames && brock_cname_chain_set(e, a.host, a.cnames, a.n_cnames) < 0) {
        rc = cli_error(self, "--cname: %s", brock_engine_errmsg(e));
        goto out;
    }
    /* A URL with a scheme is decided on whole (its path can matter); a bare host alone. */
    if (strstr(a.url, "://"))
        a.req.url = a.url;
    else
        a.req.host = a.host;
    a.req.site = a.site_url ? a.site : NULL;
    if (brock_decide_request(e, &a.req, &d) < 0) {
        rc = cli_error(self, "'%s': %s", a.url, brock_engine_errmsg(e));
        goto out;
    }
    o = decision_json(e, a.url, &d);
    if (!o) {
        rc = cli_error(self, "out of memory");
        goto out;
    }
    if (json_dumpf(o, stdout, JSON_INDENT(2)) < 0 || fputc('\n', stdout) == EOF)
        rc = cli_error(self, "cannot write to standard output");
out:
    json_decref(o);
    return cli_close(self, e, rc);
}

const struct cmd_entry cmd_check_entry = {
    .name = "check",
    .usage = "[--site URL] [--type TYPE] [--cname NAME]... URL",
    .summary = "Print the decision for a request to URL made by a page of SITE (JSON)",
    .help = check_help,
    .exec = cmd_check_exec,
    .read_only = 1,
};
