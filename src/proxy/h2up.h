/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP/2 toward origins: one connection to an origin (https, host and port) carries all the
 * requests to it at once, as a browser's would, rather than one connection each.
 *
 * A request's connection (struct conn) still speaks HTTP/1.1 to its upstream side, which here
 * is one end of a bufferevent pair; the origin's session holds the other end. It reads the
 * request written into the pair (with the same reader as a client's, side.c) into a HEADERS
 * frame and DATA frames, and writes the response back into the pair as HTTP/1.1: its status
 * line and fields, its body by its Content-Length, or chunked when it has none. So all that a
 * connection does with a response (cookies, blocking, the script, the live log) is done in one
 * place whatever the origin speaks; the pair toward the browser (h2front.h) is the same trick
 * the other way round.
 *
 * A dial to an origin offers h2 and http/1.1 (ALPN). While it is under way, other requests to
 * the origin wait for it instead of dialing too: if the origin chooses h2, they all go on its
 * connection; if it chooses HTTP/1.1 (remembered for H2UP_H1_MEMORY_MS), each dials its own,
 * and keep-alive pooling (upstream.c) goes on as before. Streams past what the origin allows at
 * once (SETTINGS_MAX_CONCURRENT_STREAMS) wait in nghttp2's queue; past H2UP_MAX_STREAMS on
 * one connection, a request dials another. A response stops being read from the origin while
 * its connection has not taken what it got (its stream's window closes), and a stream the
 * connection lets go of before the end is reset. A GOAWAY from the origin lets the streams it
 * took finish; those it did not are closed without a response, which the connection sends
 * again once on a fresh connection (as a pooled HTTP/1.1 connection closed meanwhile).
 *
 * Connections are coalesced as browsers do (RFC 9113 9.1.1): a dial whose name resolves to the
 * address and port of an HTTP/2 connection already open, whose certificate also covers that
 * name, ends there, and the name's requests go on that connection. An origin that answers
 * such a request with 421 (Misdirected Request) is no longer sent there; the request is sent
 * again on a connection of its own. */
#ifndef BROCK_PROXY_H2UP_H
#define BROCK_PROXY_H2UP_H

#include <stdint.h>

#include <sys/socket.h>

#include <event2/bufferevent.h>

struct conn;
struct proxy;
struct h2up;
struct h2up_stream;

/* Requests one HTTP/2 connection to an origin carries at once, counting those in nghttp2's
 * queue, and requests that wait for one dial. */
#define H2UP_MAX_STREAMS 256
#define H2UP_MAX_WAITING 256

/* Other origins one HTTP/2 connection carries, at most (coalesced). */
#define H2UP_MAX_ALIASES 32

/* The window a response may fill on each stream, and on the whole connection, before brock
 * gives bytes back (its SETTINGS_INITIAL_WINDOW_SIZE, and the connection's window). */
#define H2UP_STREAM_WINDOW (256 * 1024)
#define H2UP_CONN_WINDOW (4 * 1024 * 1024)

/* How long an origin that chose HTTP/1.1 is remembered as such: its requests meanwhile dial
 * at once, without waiting for another's dial to learn what it speaks. */
#define H2UP_H1_MEMORY_MS ((int64_t)10 * 60 * 1000)
/* Origins remembered so, at most (past it, all are forgotten). */
#define H2UP_H1_MEMORY_MAX 4096

/* The wire form of ALPN's protocols offered to origins: h2 first. */
#define H2UP_ALPN_PROTOS "\x02h2\x08http/1.1"

/* The transport of a connection's upstream side on a stream: a pair's end, read and written
 * by the bufferevent. */
extern const struct io_ops h2up_io;

/* Whether c's request may go over HTTP/2: HTTP/2 is on, it is for an https origin, and it is
 * neither a tunnel nor an upgrade (a WebSocket needs HTTP/1.1 on the wire). */
int h2up_eligible(const struct conn *c);

/* Whether c's origin chose HTTP/1.1 lately (H2UP_H1_MEMORY_MS): its dial need not offer h2. */
int h2up_known_h1(struct conn *c);

/* Finds an upstream for c (eligible) among its origin's HTTP/2 connections and the dial under
 * way to it. Returns 1 when c is taken care of: on a stream (conn_upstream_ready() ran), or
 * waiting for the dial; 0 when c must connect itself. */
int h2up_take(struct conn *c);

/* Whether c's origin has an HTTP/2 session with room, or a dial under way to it. */
int h2up_has(struct conn *c);

/* c starts a dial to its origin that offers h2: until it ends, requests to the same origin wait
 * for it (when no other dial is under way). */
void h2up_dialing(struct conn *c);

/* Asked by c's dial before it tries the address sa: whether an open HTTP/2 connection to sa
 * (the same address and port) showed a certificate that covers c's host too. When one did,
 * and c makes the dial that may open its origin's connection (h2up_dialing()), that
 * connection now carries the origin's requests, and the dial should end (DIAL_TAKEN). */
int h2up_coalesce(struct conn *c, const struct sockaddr *sa);

/* c's dial ended, with bev connected, or NULL and why, or with both NULL after
 * h2up_coalesce(). Returns 1 when the origin chose h2 (its session took bev), or the dial
 * ended at a connection it shares: c is on a stream. Returns 0 when c goes on with bev
 * (HTTP/1.1), or fails, as it would without HTTP/2, or dials again (both NULL: the shared
 * connection ended meanwhile). Either way the requests that waited for the dial go on: on the
 * session, or each on its own (failing with why when the dial failed). */
int h2up_dialed(struct conn *c, struct bufferevent *bev, const char *why);

/* c no longer waits for a dial, or its own dial stopped (upstream_cancel()). */
void h2up_cancel(struct conn *c);

/* c lets go of its stream (upstream_release()): its end of the pair is freed, and the stream
 * is reset if it has not ended. */
void h2up_release(struct conn *c);

/* Closes every session of px (brock stops), and forgets the origins that chose HTTP/1.1. */
void h2up_cleanup(struct proxy *px);

#endif
