/* SPDX-License-Identifier: GPL-3.0-or-later */
/* The proxy's shared structures: the running proxy, and one client connection with its two
 * symmetric sides (client and upstream) driven by an explicit state machine. */
#ifndef BROCK_PROXY_CONN_H
#define BROCK_PROXY_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <event2/util.h>
#include <http_parser.h>

#include "brock.h"
#include "monitor/livelog.h"
#include "monitor/metrics.h"
#include "process/access.h"
#include "proxy/admit.h"
#include "proxy/firstparty.h"
#include "proxy/framing.h"
#include "http/head.h"
#include "proxy/limits.h"
#include "net/dial.h"
#include "net/io.h"
#include "process/privs.h"
#include "net/resolve.h"
#include "proxy/reportlimit.h"
#include "proxy/rewrite.h"
#include "proxy/side.h"
#include "proxy/widgetallow.h"
#include "proxy/workers.h"
#include "util/buf.h"
#include "util/strmap.h"

struct conn;
struct conn_hooks;
struct conn_spare;
struct h2front;
struct h2stream;
struct h2up;
struct h2up_stream;
struct dash_env;
struct dntcheck;
struct front_wait;
struct pool_entry;
struct proxy_options;
struct refresh;
struct intercept;
struct report_keys;

/* The clean URLs a client was lately sent to (conn_clean()), so that a site that sends it
 * back to the address with its parameters does not make a loop of it (conn_decide.c): a slot
 * a hash of client and clean URL, with the URL last sent from, the oldest slot reused. */
#define CONN_CLEANED_SLOTS 64
#define CONN_CLEANED_MS 10000
#define CONN_CLEANED_SENDS 3 /* redirects to one clean URL from different URLs, at most */
struct conn_cleaned {
    struct {
        uint64_t key, from;
        int64_t at_ms;
        unsigned n, sends;
    } v[CONN_CLEANED_SLOTS];
};

struct proxy {
    const struct conn_hooks *hooks; /* the page features, as the relay's core calls them */
    struct event_base *base;
    struct dns *dns;
    struct brock_engine *engine;
    struct resolve_table resolve;
    struct evconnlistener *listener;
    struct evconnlistener *socks_listener;       /* --socks; NULL: none */
    struct evconnlistener *transparent_listener; /* --transparent; NULL: none */
    /* Their bound addresses, which brock must never connect to (upstream_is_self());
     * ss_family 0: none. */
    struct sockaddr_storage socks_addr, transparent_addr;
    char listen_name[80];                /* "127.0.0.1:8119", "[::1]:8119" */
    struct sockaddr_storage listen_addr; /* the bound address (access.c compares with it) */
    int activated;              /* the socket is systemd's (socket activation), not bound here */
    struct access_list allow;   /* --allow; empty: loopback clients only */
    struct access_list pp_from; /* --proxy-protocol-from: balancers, who send a PROXY header */
    LIST_HEAD(, front_wait) fronts; /* their connections waiting for it (front.c) */
    size_t n_fronts;
    int t_head, t_connect, t_response; /* seconds: TIMEOUT_HEAD and so on, or the options */

    LIST_HEAD(conn_list, conn) conns; /* live connections */
    struct conn_list closing;         /* closed, freed by the reaper after this loop iteration */
    struct event *reaper;
    struct event *accept_pause; /* re-enables accepting after running out of descriptors */
    struct event *accept_more;  /* re-enables it after a burst, once the others had a turn */
    int accept_burst;           /* accepted since accepting was last enabled */
    size_t n_conns;
    uint64_t next_id;
    struct admit admit; /* the limits, each client's share, what may be cut (admit.c) */
    size_t nofile;      /* the descriptors brock may have open (RLIMIT_NOFILE) */

    /* Scratch of the heads written on this loop, one at a time (each used whole before the
     * loop goes on): a head's rewritten headers, and a response head as it goes out. Kept
     * here, not in each connection: 4 KiB less in every one. */
    struct rewrite_out rw;
    struct buf head_out;
    size_t n_released;        /* connections that freed their scratch since the last sweep */
    struct conn_spare *spare; /* scratch that idle connections handed back, emptied, kept for
                                 * the next exchanges (conn.c), up to LIMIT_SPARE_SCRATCH */
    size_t n_spare;

    LIST_HEAD(, pool_entry) pool; /* idle upstream connections, most recent first */
    size_t n_pool;
    /* HTTP/2 to origins (h2up.c): their connections, and the dials that may become one; the
     * origins ("https:host:port") that chose HTTP/1.1 lately, each with when that is
     * forgotten (a time in ms in the pointer). */
    LIST_HEAD(, h2up) h2up;
    struct strmap h1_known;

    struct firstparty_memory firstparty;
    uint64_t firstparty_next;      /* the next entry of the workers' shared record to apply */
    struct widget_allows widgets;  /* "Allow once" on widget placeholders (widgetallow.h) */
    struct brock_site_cookies *sc; /* the first parties' cookies, for pixel cookie sharing */

    struct dntcheck *dnt; /* DNT policy checks (dntcheck.c); NULL: none */

    /* TLS: leaves for intercepted tunnels (intercept.c; NULL: no --intercept), the verifying
     * context of https:// upstreams (net/tls.c), and the --no-intercept host globs. */
    struct intercept *mitm;
    struct ssl_ctx_st *tls_up;
    const char *const *no_intercept;
    size_t n_no_intercept;
    struct passthrough *pass; /* the hosts passed through unseen (passthrough.h); with mitm */

    /* brock's script in HTML documents (conn_inject.c): its text (NULL with --no-inject),
     * the same in every document, and its hash as a Content-Security-Policy source,
     * "'sha256-...'". */
    const char *inject_js;
    size_t inject_js_len;
    char inject_hash[128];

    /* The channel of the script's reports (conn_report.c; NULL with --no-inject), and the
     * refused reports not yet said in the log, with when the last line said them. */
    struct report_keys *report;
    uint64_t report_unsaid;
    int64_t report_said_ms;
    struct report_limits report_limits; /* what pages' scripts said lately (reportlimit.h) */

    /* For the dashboard's /api/status, and /metrics (monitor/metrics.h: counted here, on the loop). */
    uint64_t n_requests, n_blocked, n_cookieblocked, n_tunnels, n_learned;
    uint64_t n_cleaned;          /* URLs with tracking parameters taken out, or unwrapped */
    struct conn_cleaned cleaned; /* the URLs redirected to clean ones lately (conn_decide.c) */
    struct metrics metrics;

    /* The live request log (monitor/livelog.h: the ring), and the connections streaming it to the
     * dashboard (CONN_STREAM), which each new event wakes. */
    struct livelog log;
    struct conn *watchers[LIMIT_LOG_CLIENTS];
    size_t n_watchers;

    /* Tunnels moved by splice(2) now, and how many may be: each holds two pipes, four
     * descriptors set aside for them (admit_size). */
    size_t n_spliced, splice_max;
    struct dash_env *dash; /* the dashboard's engine, address and token (dash.h) */

    /* loop.c: what proxy_new() readied for proxy_run(): the options at start, and those in
     * force (the same, or what SIGHUP read again: reconfig.c). */
    const struct proxy_options *opts;
    const struct proxy_options *live;
    struct privs privs;
    struct dial_env dial;     /* how brock's own fetches connect out */
    struct dial_env dial_up;  /* the same for upstreams, their DNS answers' CNAME chains
                                 told to the engine (upstream_chain_tell()) */
    struct dial_env dial_h2;  /* dial_up offering origins HTTP/2 (h2up.h) */
    struct refresh *refresh;  /* the daily pbconfig.json refresh; NULL: --no-update */
    struct event *signals[4]; /* SIGINT, SIGTERM, SIGQUIT: stop; SIGHUP: read data again */
    struct event *sync;
    struct event *offtime; /* the nearest end of the pause or a site's time off
                              * (offtime.c); NULL: none was ever due */

    /* Stopping (loop.c): no longer accepting, the exchanges in flight finish within the grace
     * period, then brock exits. */
    int draining;
    struct event *grace; /* ends the grace period */
};

/* How a client came in: as an HTTP proxy's client, through --socks, or redirected to
 * --transparent. The last two are answered before they speak (no CONNECT answer, no HTTP
 * answer inside a tunnel), and tunnel_host is where they asked or were going. */
enum conn_way {
    CONN_WAY_PROXY,
    CONN_WAY_SOCKS,
    CONN_WAY_TRANSPARENT,
    CONN_WAYS,
};

enum conn_state {
    CONN_IDLE,      /* keep-alive: waiting for the first byte of a request */
    CONN_REQ_HEAD,  /* reading a request head */
    CONN_CONNECT,   /* resolving and connecting upstream */
    CONN_REQ_BODY,  /* the head went out (or was answered); the request's body follows */
    CONN_RESP_HEAD, /* the request went out; waiting for the response head */
    CONN_RESP_BODY, /* streaming the response body to the client */
    CONN_TUNNEL,    /* CONNECT or an upgraded connection: bytes both ways */
    CONN_STREAM,    /* the dashboard's live log: events written as they come, until the
                       client leaves */
    CONN_H2,        /* an intercepted client speaking HTTP/2: frames both ways, each request
                       stream handed to a stream connection of its own (h2front.h) */
    CONN_SOCKS,     /* a SOCKS5 client's greeting and request (conn_socks.c) */
    CONN_PEEK,      /* what a SOCKS5 or redirected client speaks, from its first bytes
                       (peek.h) */
    CONN_FLUSH,     /* writing the last bytes, then closing */
    CONN_CLOSED,    /* waiting to be freed */
};

/* Where the body of a request that brock answers itself goes. */
enum local_body {
    LOCAL_BODY_KEEP, /* into c_body, for the dashboard or the script's channel */
    LOCAL_BODY_DROP, /* read and dropped: a blocked request's, before its answer, so that the
                        * connection stays open */
    LOCAL_BODY_FILE, /* into a temporary file (spool_fd), never held in memory: an import */
};

/* An exchange's names, allocated with it. */
#define EXCHANGE_AUTHORITY_MAX (BROCK_HOST_MAX + 8)
struct exchange_names {
    char host[BROCK_HOST_MAX];
    char authority[EXCHANGE_AUTHORITY_MAX];
    char site[BROCK_HOST_MAX];
    char removed[128]; /* the parameters conn_clean() took out, comma-separated */
    /* The target's path, in the client's head, while the request waits for DNS before its
     * decision (upstream_resolve_first()). */
    const char *path;
    size_t path_len;
};

/* The exchange in progress: one request and its response. All of it belongs to that request
 * alone and is emptied in one place, conn_exchange_reset(), when the first byte of the next
 * request arrives (with the contents of the connection's scratch buffers), so that nothing of
 * one exchange colours the next, or an error logged for it. */
struct exchange {
    /* The request, as its head said. */
    char method[24];
    int is_head, is_connect;
    int is_upgrade; /* it asks to upgrade the connection (WebSocket) */
    int client_keepalive, client_http10;
    int req_has_body;
    enum frame req_frame; /* how its body goes upstream */
    int req_done;         /* the whole request was read */

    /* Its names (conn_exchange_reset() allocates them, written through names; the
     * connection hands them back once idle, with the decision): host, authority and site read
     * them, or "" while the exchange holds none. Not in the connection: 776 bytes less in every
     * idle one. */
    struct exchange_names *names;

    /* Where it goes: host and port, and whether the upstream speaks TLS. */
    const char *host;
    int port;
    const char *authority;
    int is_https;

    /* What the engine made of it. */
    const char *site;              /* the first party, when site_known */
    enum brock_resource_type type; /* what it fetches, from its headers */
    unsigned site_known : 1;
    unsigned site_sure : 1;   /* and the record of the client's pages vouches for it: what
                             * the exchange shows is evidence (firstparty.h) */
    unsigned site_self : 1;   /* nothing named a page (no Referer, no Origin): the request's
                             * own host was taken as its page (the live log's "self") */
    unsigned navigation;      /* a navigation whose document brock's script gets a token
                                 * for its reports (report.h's REPORT_DOC_* flags: a top-level
                                 * page, a frame, cross-site to its page); 0: none */
    struct brock_decision *d; /* the engine's decision (conn_decide()): its own allocation,
                                 * freed with the exchange or once the connection is idle (and
                                 * the live log has it), so that an idle connection does not
                                 * hold its 1.4 KiB; NULL: none (then conn_effect() says
                                 * BROCK_PASS) */
    unsigned learn;           /* what learning takes from it: BROCK_EXCHANGE_* flags
                                 * (brock_exchange_flags()), the same as from a recording */
    unsigned char cleaned;    /* enum brock_clean_result: what conn_clean() did to its URL,
                                 * the parameters in names->removed */

    /* Answered by brock itself (blocked, or the dashboard) rather than sent upstream. */
    int is_local;
    int local_wait;          /* a dashboard request waits for its body */
    size_t local_off;        /* where the dashboard's target starts in the request line's
                                * target: past "http://ADDR:PORT" for one sent to brock's own
                                * address through the proxy */
    int body_too_big;        /* and the body passed body_room (REPORT_BODY_MAX): the rest
                                * was not read */
    int report;              /* a request of brock's script in a page (conn_report.c): which
                                * of the channel's paths (enum report_path); 0: none */
    enum local_body body_to; /* where the body of a request answered here goes */
    int spool_fd;            /* LOCAL_BODY_FILE: the temporary file, closed with the
                                * exchange */
    uint64_t body_room;      /* the bytes of that body still taken: the route's cap
                                * (dash_admit()) or LIMIT_BLOCKED_BODY, less what came */

    /* The upstream connection (upstream.c sets these). */
    int reused;      /* taken from the pool */
    int retried;     /* sent again on a fresh one after a pooled one closed */
    int up_doubtful; /* the request or its response was framed in a way brock passes
                        * on but bets no connection on (struct side's doubtful): the
                        * upstream connection closes after the response */

    /* The response. */
    int resp_bytes;        /* the upstream sent something */
    int resp_final;        /* a final (not interim) head went to the client */
    enum frame resp_frame; /* how its body goes to the client */
    int must_close;        /* the client's connection closes after it */
    int status;            /* the status the client got (0: none yet) */
    void *filter;          /* the body is rewritten (px->hooks' filter); NULL: not */
    int decided;           /* conn_decide() ran: the exchange goes to the live log */
    int logged;            /* and it went there, with the status its client got */
};

struct conn {
    LIST_ENTRY(conn) link; /* in px->conns while live, then in px->closing */
    struct proxy *px;
    uint64_t id;
    enum conn_state c_state;
    struct event *c_timer;
    char c_peer[64]; /* the client's address, without port */
    struct side c_client, c_up;
    struct exchange c_ex;

    /* Scratch the exchanges reuse: their capacity stays, their contents are the exchange's. */
    struct buf c_req_out; /* the rewritten request head, kept for one retry */
    struct buf c_body;    /* a dashboard request's body, read whole before the answer */
    struct buf c_url;     /* the request's URL as the engine is given it:
                             * scheme://authority/path?query */

    /* The client connection itself. The flags are bits: every idle connection pays for this
     * struct. */
    unsigned shut_wr : 1;       /* closing: the client's write half is shut */
    unsigned intercepted : 1;   /* the client speaks TLS inside a CONNECT to tunnel_host */
    unsigned tls_counted : 1;   /* its handshake was counted (/metrics) */
    unsigned tls_spoke : 1;     /* it sent something inside TLS */
    unsigned tunnel_on : 1;     /* a tunnel, from its start to the connection's close */
    unsigned no_splice : 1;     /* its bytes are copied through brock: splicing failed, or it
                                 * is not for this tunnel */
    unsigned watching : 1;      /* CONN_STREAM: c is in px->watchers */
    unsigned log_full : 1;      /* its backlog was full at the last ping, and has been since */
    unsigned h2_carrier : 1;    /* it speaks HTTP/2 with its client (CONN_H2): h2.front */
    unsigned h2_stream : 1;     /* it serves one stream of a carrier: h2.stream, NULL once the
                                 * carrier let go of it */
    unsigned up_waiting : 1;    /* up2.session: c waits for its dial */
    unsigned up_dialer : 1;     /* up2.session: c makes its dial, which others wait for */
    unsigned up_h2 : 1;         /* up2.stream: c's upstream is an HTTP/2 stream */
    unsigned pages_tls : 1;     /* the client spoke TLS to brock's own port: inside are
                                 * requests for brock's pages (conn_start_pages_tls()) */
    unsigned log_own : 1;       /* CONN_STREAM: the client's own events alone (not the owner) */
    unsigned resolving : 1;     /* dns_q, not dial: its host is looked up before its decision */
    unsigned way : 2;           /* how it came in: enum conn_way */
    unsigned socks_greeted : 1; /* its SOCKS greeting was answered */
    unsigned unnamed : 1;       /* redirected, it named no host: passed through undecided */
    unsigned tunnel_plain : 1;  /* it speaks plain HTTP inside: origin-form requests for
                                   * tunnel_host over http (SOCKS) */
    int64_t tls_done_ms;        /* when its TLS handshake with brock ended; 0: not yet */
    char *tunnel_host;          /* allocated for an intercepted tunnel alone; NULL: none */
    int tunnel_port;
    unsigned char tunnel_shut[2]; /* a tunnel's way's end was passed on (shutdown(2)) */

    /* A tunnel's bytes both ways as they are (conn_tunnel.c). */
    struct splice_pair *spl;   /* moved by the kernel (net/splice.h); NULL: through brock */
    uint64_t tunnel_copied[2]; /* bytes copied client to upstream, and upstream to client */
    /* CONN_WAY_TRANSPARENT: where the client was going, allocated; its requests go there
     * whatever DNS says of their names. NULL: elsewhere. */
    struct dns_addr *orig_dst;

    /* upstream.c: the upstream connection being made; or, resolving, the look-up before the
     * request's decision (upstream_resolve_first()). */
    union {
        struct dial *dial;
        struct dns_query *dns_q;
    };

    /* HTTP/2 to the origin (h2up.c): the dial c waits for or makes (up_waiting,
     * up_dialer), or the stream its upstream side is on (up_h2). */
    union {
        struct h2up *session;
        struct h2up_stream *stream;
    } up2;

    /* HTTP/2 (h2front.c): a carrier's session, or a stream connection's stream. */
    union {
        struct h2front *front;
        struct h2stream *stream;
    } h2;

    /* CONN_STREAM (conn_log.c): the id of the next live log event this client gets. */
    uint64_t log_next;

    /* admit.c: the client's share, and c's place among the connections that may be cut. */
    struct admit_client *a_client;   /* NULL: not counted (closed) */
    struct admit_node a_all, a_mine; /* in px->admit's lists, in its client's */
    int a_tier;                      /* ADMIT_IDLE, ADMIT_HEAD, or -1: never cut */
};

/* conn_inject.c: brock's script made ready once (px->inject_js and inject_hash) with the keys
 * of its reports (px->report); returns 0, or -1 with a sentence in err. conn_inject_cleanup()
 * wipes the keys. */
int conn_inject_prepare(struct proxy *px, char *err, size_t errlen)
    __attribute__((warn_unused_result));
void conn_inject_cleanup(struct proxy *px);

/* conn.c */
const char *conn_state_name(enum conn_state s);
struct conn *conn_new(struct proxy *px, evutil_socket_t fd, const struct sockaddr *sa);

/* A stream connection of carrier (h2front.h): its client side is bev (one end of a pair,
 * handed over), its client, tunnel host and port the carrier's, and it serves one exchange of
 * stream st. Admitted as one of the client's connections (never cut: the carrier's stream limit
 * bounds them). NULL when out of memory (bev is then freed). */
struct conn *conn_new_stream(struct conn *carrier, struct bufferevent *bev, struct h2stream *st);

/* A new client connection fd (handed over) from sa, or from the client a balancer's PROXY
 * header named: refused with 403 outside --allow, with 503 when no slot can be made, else
 * served (loop.c). */
void proxy_admit(struct proxy *px, evutil_socket_t fd, const struct sockaddr *sa);
/* Closes c at once (again: nothing); it is freed after this loop iteration. reason is logged
 * with -v, and may be NULL when a line said why already. */
void conn_close(struct conn *c, const char *reason);

/* Reads what c's client sent that is still waiting in its socket, and lets c act on it (a
 * request head completed, an end seen), before c would be closed as silent (admit.c). Returns
 * 1 when there were such bytes (c may have moved on, or closed), 0 when c is silent. */
int conn_wake(struct conn *c);

/* brock is stopping (px->draining set): a connection with no request in flight closes now,
 * once what is still being written to it is out; a busy one goes on, and closes when its
 * exchange completes instead of waiting for another request. */
void conn_stop(struct conn *c);
void conn_free(struct conn *c);

/* Called by upstream.c once the upstream side can take the request, or could not. */
void conn_upstream_ready(struct conn *c);
void conn_upstream_failed(struct conn *c, int status, const char *why);

/* conn_transparent.c: takes connections at port p on px's loop (px->socks_listener or
 * transparent_listener): SOCKS5 clients at spec ("ADDR:PORT"), or connections redirected to
 * brock (spec "ADDR:PORT", or a port alone: every address, IPv4 and IPv6; IP_TRANSPARENT when
 * brock may set it, for TPROXY). A worker takes the socket its parent bound. Returns 0, or -1
 * with a sentence in err. */
int conn_way_listen(struct proxy *px, enum way_port p, const char *spec, char *err, size_t errlen)
    __attribute__((warn_unused_result));

/* conn_transparent.c: no connection is taken any more, at any port. */
void conn_listeners_close(struct proxy *px);

/* upstream.c: connections to origins, and the pool of idle ones. */
void upstream_start(struct conn *c);
void upstream_cancel(struct conn *c);
void upstream_release(struct conn *c, int reusable);
void pool_cleanup(struct proxy *px);
/* A redirected client's own idle upstream connection (plain HTTP, kept for its next requests
 * alone) closed with it. */
void pool_forget(struct conn *c);
/* The CNAME chain of DNS's answer a for host goes to the engine (brock_cname_chain_set()),
 * for c's decision and the later ones; upstream_on_names() is the same as px->dial_up's
 * names hook (its arg a struct conn). */
void upstream_chain_tell(struct conn *c, const char *host, const struct dns_answer *a);
void upstream_on_names(void *arg, const char *host, const struct dns_answer *a);
/* Before c's request is decided: when its host's CNAME chain may decide it (uncloaking on),
 * DNS has no fresh answer for it, and it will be dialed (no --resolve rule or literal, no
 * idle or HTTP/2 connection to its origin, not blocked on its own name anyway), looks the
 * host up, the dial to follow taking the answer from the cache: cb(c, a) runs once DNS
 * answered or failed (upstream_cancel() stops it), and 1 is returned. Otherwise tells the
 * engine a fresh answer's chain, if any, and returns 0: decide now. */
int upstream_resolve_first(struct conn *c, void (*cb)(void *arg, const struct dns_answer *a));

/* conn.c: run every second (SYNC_INTERVAL_MS). A connection hands back its scratch (both
 * heads, the request as sent, its URL and body: 2-3 KiB) and frees its last exchange's
 * decision and names (1.4 KiB and 776 bytes) as soon as it is idle again (conn_run()), so
 * that thousands of idle keep-alive clients hold none of it: the loop keeps up to
 * LIMIT_SPARE_SCRATCH of it for the next exchanges (a busy keep-alive client allocates none
 * again), and the sweep frees those, then, once enough was freed since the last sweep, hands
 * back the pages freed among the connections' own blocks (malloc_trim(3)). */
void conn_sweep_idle(struct proxy *px);
/* Frees the spare scratch (px->spare): at every sweep, and when the proxy is freed. */
void conn_spare_cleanup(struct proxy *px);
/* conn_tunnel.c: run every second too. The quiet closes held past PASSTHROUGH_TOGETHER_MS,
 * none of the client's spoken connections ending with them, are counted as refusals of
 * brock's certificate (passthrough.h). */
void conn_tls_quiet_due(struct proxy *px);
/* Whether connecting to sa would reach one of brock's own listeners, the proxy's, SOCKS's or
 * the transparent one (any local address on its port when it listens on a wildcard). */
int upstream_is_self(const struct proxy *px, const struct sockaddr *sa);
/* Whether sa's address (its port aside) is one of this machine's interfaces'. */
int upstream_is_local_address(const struct sockaddr *sa);
/* Whether c's target (host and port) names brock itself without asking DNS: an address
 * literal, a --resolve rule's address, or localhost. */
int upstream_names_self(const struct conn *c);

/* The callbacks conn.c installs on an upstream bufferevent. */
void conn_on_up_read(struct bufferevent *bev, void *arg);
void conn_on_up_write(struct bufferevent *bev, void *arg);
void conn_on_up_event(struct bufferevent *bev, short what, void *arg);

#endif
