/* SPDX-License-Identifier: GPL-3.0-or-later */
/* What a client fetches to set itself up: the proxy auto-config file (/proxy.pac, and
 * /wpad.dat for WPAD) naming brock at the address the client reached it, and the local CA's
 * certificate (/ca.pem) with the page that says how to trust it (/ca). */
#include "dash/dash.h"

#include <stdio.h>
#include <string.h>

#include "dash/dash_api.h"
#include "net/ca.h"
#include "http/head.h"

/* ---- the proxy auto-config file ---- */

int dash_no_proxy_check(const char *glob, char *err, size_t errlen)
{
    size_t len = strlen(glob);

    if (len == 0 || len >= BROCK_HOST_MAX ||
        strspn(glob, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:*") !=
            len) {
        snprintf(err, errlen,
                 "--no-proxy '%s': expected a host name, an address or a glob "
                 "of them such as *.example.com",
                 glob);
        return -1;
    }
    return 0;
}

void dash_env_set_no_proxy(struct dash_env *env, const char *const *globs, size_t n)
{
    env->no_proxy = globs;
    env->n_no_proxy = n;
}

/* Whether host (len bytes) can be written into the file as it is: a name or IPv4 address
 * of letters, digits, '.', '-', or an IPv6 address in brackets. */
static int is_plain_host(const char *host, size_t len)
{
    if (len == 0 || len >= BROCK_HOST_MAX)
        return 0;
    if (host[0] == '[')
        return len > 2 && host[len - 1] == ']' &&
               strspn(host + 1, "0123456789abcdefABCDEF:.") == len - 2;
    for (size_t i = 0; i < len; i++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-", host[i]))
            return 0;
    return 1;
}

/* The address that the file names, "HOST:PORT", into out: the Host header's when it names
 * brock's port (the client reached brock directly under that name, which a NAT in between
 * would hide from the connection), else the address the connection reached (on a wildcard
 * listen, the one of the interface the client came in by), else where brock listens. */
static void pac_proxy(const struct dash_env *env, const struct dash_request *rq, char *out,
                      size_t size)
{
    const struct brock_header *hh = http_header_find(rq->h, rq->n, "host");
    const char *port = strrchr(env->listen_name, ':');
    const char *colon;

    port = port ? port + 1 : "";
    if (hh && (colon = strrchr(hh->value, ':')) && colon > hh->value && colon[-1] != ':' &&
        !strcmp(colon + 1, port) && is_plain_host(hh->value, (size_t)(colon - hh->value))) {
        snprintf(out, size, "%.*s:%s", (int)(colon - hh->value), hh->value, port);
        return;
    }
    if (rq->local_host && is_plain_host(rq->local_host, strlen(rq->local_host))) {
        snprintf(out, size, "%s:%s", rq->local_host, port);
        return;
    }
    snprintf(out, size, "%s", env->listen_name);
}

int dash_api_pac(struct dash_call *x)
{
    char proxy[BROCK_HOST_MAX + 16], self[BROCK_HOST_MAX + 16];
    const char *colon;
    struct buf *b = &x->text;

    pac_proxy(x->env, x->rq, proxy, sizeof(proxy));
    colon = strrchr(proxy, ':');
    snprintf(self, sizeof(self), "%.*s", (int)(colon - proxy), proxy);
    x->type = "application/x-ns-proxy-autoconfig";
    /* Loopback and brock's own address go direct; everything else through brock, with no
     * DIRECT fallback: a browser that cannot reach brock fails rather than browsing
     * unprotected without a word. Names are compared as written, never resolved, so that
     * the file costs no DNS lookup. */
    if (buf_printf(b,
                   "// brock's proxy auto-config: every request through brock at %s, except\n"
                   "// loopback, brock's own address and the hosts of --no-proxy%s.\n"
                   "function FindProxyForURL(url, host) {\n"
                   "    host = host.toLowerCase();\n"
                   "    if (host === \"localhost\" || shExpMatch(host, \"*.localhost\") ||\n"
                   "        shExpMatch(host, \"127.*\") || host === \"::1\" || "
                   "host === \"[::1]\" ||\n"
                   "        host === \"%s\")\n"
                   "        return \"DIRECT\";\n",
                   proxy,
                   x->own_host ? "" : " (named only\n// when asked for at brock's own address)",
                   self) < 0)
        return -1;
    /* The --no-proxy list names the network's own hosts, which a page must not learn: under
     * a name that is not brock's own (WPAD's "wpad.lan", or a page's name that its DNS
     * pointed at brock) the file leaves it out. A WPAD name proves nothing, as anyone can
     * name a host wpad.attacker.example. */
    for (size_t i = 0; x->own_host && i < x->env->n_no_proxy; i++)
        if (buf_printf(b, "    if (shExpMatch(host, \"%s\"))\n        return \"DIRECT\";\n",
                       x->env->no_proxy[i]) < 0)
            return -1;
    return buf_printf(b, "    return \"PROXY %s\";\n}\n", proxy) < 0 ? -1 : 0;
}

/* ---- the CA's certificate ---- */

int dash_api_ca_pem(struct dash_call *x)
{
    const struct dash_env *env = x->env;
    char pem[DASH_CA_PEM_MAX], err[512];
    long n = -2;

    if (env->host.ca_cert)
        n = ca_cert_pem(env->host.ca_cert, pem, sizeof(pem), err, sizeof(err));
    /* Started as root, brock reads the CA's folder before it becomes another user, who may
     * not read it: the certificate read then serves. */
    if (n == -1 && env->ca_pem_len) {
        memcpy(pem, env->ca_pem, env->ca_pem_len + 1);
        n = (long)env->ca_pem_len;
    }
    if (n == -2)
        return dash_error(x, 404, "brock has no CA: `brock ca init` makes one");
    if (n < 0)
        return dash_error(x, 500, err);
    x->type = "application/x-x509-ca-cert";
    snprintf(x->filename, sizeof(x->filename), "brock-ca.pem");
    return buf_append(&x->text, pem, (size_t)n);
}

void dash_setup_ca_read(struct dash_env *env)
{
    char err[512];
    long n;

    if (!env->host.ca_cert)
        return;
    n = ca_cert_pem(env->host.ca_cert, env->ca_pem, sizeof(env->ca_pem), err, sizeof(err));
    env->ca_pem_len = n > 0 ? (size_t)n : 0;
}
