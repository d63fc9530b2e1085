/* SPDX-License-Identifier: GPL-3.0-or-later */
/* HTTP/2 with the client inside an intercepted tunnel (ALPN h2), with nghttp2 on the loop.
 *
 * The connection that negotiated h2 becomes a carrier (CONN_H2): it reads the client's frames
 * and writes brock's. Each request stream is handed to a connection of its own, a stream
 * connection, exactly like a client connection inside an intercepted tunnel but for its
 * transport: one end of a bufferevent pair, whose other end the carrier holds. The carrier
 * writes the stream's request into the pair as one HTTP/1.1 request (its pseudo-headers as the
 * request line and Host, its cookie fields joined, its body framed by its Content-Length or
 * chunked), and reads the HTTP/1.1 response the stream connection writes back, with the same
 * reader as an upstream's (side.c), into HEADERS and DATA frames. So every rule brock applies
 * to a request inside a tunnel applies to each stream through the one decision path
 * (conn_request.c onwards), and nothing of HTTP/2 reaches it.
 *
 * What HTTP/2 brings that HTTP/1.1 does not is bounded here: streams at once
 * (H2_MAX_STREAMS), each also a connection that brock's admission counts against its client;
 * header lists (LIMIT_HEAD_BYTES, LIMIT_HEADERS, as a head); resets, CONTINUATION frames,
 * SETTINGS and PINGs (nghttp2's limits, set explicitly); the bytes a stream's request body and
 * response may hold in brock (flow control: a request's window is given back only as the
 * stream connection takes its bytes, and a response stops being read while
 * LIMIT_PENDING_BYTES of it wait for the client's window). A request that HTTP/1.1 would read
 * differently from HTTP/2 is refused before a byte of it is written to the pair: a header name
 * or value with CR, LF, NUL or a colon, a connection-specific header, a Transfer-Encoding, a
 * Content-Length that is not one number or disagrees with the DATA frames, a Host that names
 * another authority. */
#ifndef BROCK_PROXY_H2FRONT_H
#define BROCK_PROXY_H2FRONT_H

#include <event2/bufferevent.h>

struct conn;
struct h2front;
struct h2stream;

/* Streams a client may have open at once on one connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
#define H2_MAX_STREAMS 100

/* The window each stream's request body, and the connection's, may fill before brock gives
 * bytes back (SETTINGS_INITIAL_WINDOW_SIZE, and the connection's window). */
#define H2_STREAM_WINDOW (256 * 1024)
#define H2_CONN_WINDOW (1024 * 1024)

/* The wire form of ALPN's protocols when brock speaks HTTP/2 inside interception: h2 first,
 * http/1.1 for clients that offer only that. */
#define H2_ALPN_PROTOS "\x02h2\x08http/1.1"

/* The transport of a stream connection's client side: one end of a bufferevent pair, read and
 * written by the bufferevent (no fill, no flush, no splice). */
extern const struct io_ops h2front_io;

/* After the TLS handshake on bev (an intercepted client's): whether the client chose h2. */
int h2front_negotiated(struct bufferevent *bev);

/* c (an intercepted client whose handshake chose h2) becomes a carrier: its session made, its
 * SETTINGS queued, in CONN_H2. Returns 0, or -1 when out of memory (c is then closed). */
int h2front_start(struct conn *c);

/* CONN_H2: reads the client's frames (each stream's request to its connection), then writes
 * brock's while the client's output has room. Closes c when the session ends. */
void h2front_run(struct conn *c);

/* Whether a carrier has streams open (one that has none may be cut like an idle connection). */
int h2front_busy(const struct conn *c);

/* Whether a carrier has a stream connection at work: each has timeouts of its own, and the
 * carrier's idle timeout waits for them (a stream that is only open, its header block or body
 * never finished, does not hold the carrier open). */
int h2front_working(const struct conn *c);

/* brock is stopping, or the carrier was idle for TIMEOUT_IDLE: it takes no new stream (GOAWAY)
 * and closes once those in flight are done; told again (the next timeout), it closes at once. */
void h2front_stop(struct conn *c);

/* The carrier closes (conn_close): every stream connection closes too, and the session goes. */
void h2front_free(struct conn *c);

/* A stream connection closes (conn_close): its stream ends with what its response got (whole,
 * or reset when cut short). */
void h2front_stream_gone(struct conn *c);

#endif
