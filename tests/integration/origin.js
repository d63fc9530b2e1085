// SPDX-License-Identifier: GPL-3.0-or-later
// A small origin server for the integration tests: several virtual hosts on one loopback
// port, chosen by the Host header, recording every request it receives. Hosts whose name
// starts with "tracker" set an identifying cookie, "lang" hosts set lang=en, the host given
// as `cookieHost` sets an identifying cookie too, any host sets what ?setcookie= (and
// ?setcookie2=, as Set-Cookie2) asks;
// every other host is a plain site. /html serves an HTML document (htmlPage).
'use strict';

const http = require('node:http');
const http2 = require('node:http2');
const https = require('node:https');
const net = require('node:net');
const { createServer: createTlsServer } = require('node:tls');
const crypto = require('node:crypto');
const zlib = require('node:zlib');

// Deterministic bytes: the tests compute the same stream to compare what arrived.
function bytes(n, seed = 'brock') {
  const out = Buffer.alloc(n);
  let block = crypto.createHash('sha256').update(seed).digest();
  for (let off = 0; off < n; off += block.length) {
    block.copy(out, off, 0, Math.min(block.length, n - off));
    block = crypto.createHash('sha256').update(block).digest();
  }
  return out;
}

// n bytes made quickly from seed, for payloads of megabytes (bytes() takes seconds for
// those): the keystream of AES-128-CTR under a key drawn from the seed.
function streamBytes(n, seed = 'brock') {
  const key = crypto.createHash('sha256').update(seed).digest().subarray(0, 16);
  return crypto.createCipheriv('aes-128-ctr', key, Buffer.alloc(16)).update(Buffer.alloc(n));
}

function sha256(buf) {
  return crypto.createHash('sha256').update(buf).digest('hex');
}

function headerPairs(raw) {
  const pairs = [];
  for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i].toLowerCase(), raw[i + 1]]);
  return pairs;
}

// The HTML document /html serves: a small page, or with n, one of n bytes (a head, then
// numbered paragraphs up to the size), or with spaces, one whose body is that many spaces (a
// gzip of it is a thousandth of its size).
function htmlText(n, spaces = 0) {
  const head = '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
               '<title>A page</title>\n</head>\n<body>\n';
  if (spaces) return Buffer.concat([Buffer.from(head), Buffer.alloc(spaces, ' '),
                                     Buffer.from('</body>\n</html>\n')]);
  if (!n) return Buffer.from(head + '<p>Hello.</p>\n</body>\n</html>\n');
  const parts = [head];
  let len = head.length;
  for (let i = 0; len < n; i++) {
    const p = `<p>Paragraph ${i} of a long page.</p>\n`;
    parts.push(p);
    len += p.length;
  }
  return Buffer.from(parts.join('')).subarray(0, n);
}

// Content codings as node makes them; deflate-raw is deflate without zlib's wrapper, which
// some servers send as "deflate".
const ENCODERS = {
  gzip: ['gzip', zlib.gzipSync], deflate: ['deflate', zlib.deflateSync],
  'deflate-raw': ['deflate', zlib.deflateRawSync], br: ['br', zlib.brotliCompressSync],
};

// /html?n=&spaces=&enc=&ce=&mode=chunked&type=&csp=&cspro=&status=&corrupt=1: htmlText(n), encoded
// (Content-Encoding set), with a Content-Encoding header whatever the bytes, in pieces without a length, with another Content-Type, with
// Content-Security-Policy (repeatable) or -Report-Only headers, another status; corrupt spoils
// the encoded bytes after their first 20. &etag=: that ETag, and a 304 to a request whose
// If-None-Match names it (compared weakly, as RFC 9110 13.1.2 says); &digests=1: Digest,
// Content-Digest and Repr-Digest headers.
function htmlPage(q, req, res) {
  const etag = q.get('etag');
  if (etag) {
    res.setHeader('ETag', etag);
    const bare = (t) => t.trim().replace(/^W\//, '');
    const asked = (req.headers['if-none-match'] || '').split(',').map(bare);
    if (asked.includes(bare(etag)) || asked.includes('*')) {
      res.statusCode = 304;
      res.end();
      return;
    }
  }
  let data = htmlText(Number(q.get('n')), Number(q.get('spaces')));
  const enc = ENCODERS[q.get('enc')];
  if (enc) {
    data = enc[1](data);
    res.setHeader('Content-Encoding', enc[0]);
  }
  if (q.get('ce')) res.setHeader('Content-Encoding', q.get('ce'));
  if (q.get('corrupt')) data.fill(0x55, 20);
  res.statusCode = Number(q.get('status') || 200);
  res.setHeader('Content-Type', q.get('type') || 'text/html; charset=utf-8');
  if (q.getAll('csp').length) res.setHeader('Content-Security-Policy', q.getAll('csp'));
  if (q.get('cspro')) res.setHeader('Content-Security-Policy-Report-Only', q.get('cspro'));
  res.setHeader('Content-MD5', crypto.createHash('md5').update(data).digest('base64'));
  if (q.get('digests')) {
    const sha = crypto.createHash('sha256').update(data).digest('base64');
    res.setHeader('Digest', `sha-256=${sha}`);
    res.setHeader('Content-Digest', `sha-256=:${sha}:`);
    res.setHeader('Repr-Digest', `sha-256=:${sha}:`);
  }
  if (q.get('mode') === 'chunked') {
    for (let off = 0; off < data.length; off += 7919) res.write(data.subarray(off, off + 7919));
    res.end();
    return;
  }
  res.setHeader('Content-Length', data.length);
  res.end(data);
}

// With tls ({ key, cert }), the same origin speaks HTTPS; at: [port, address] to listen at other
// than a loopback port of the system's choosing.
function startOrigin({ cookieHost, tls, at = [0, '127.0.0.1'] } = {}) {
  const requests = [];
  const handler = (req, res) => {
    const host = (req.headers.host || '').replace(/:\d+$/, '');
    const url = new URL(req.url, 'http://' + (req.headers.host || 'x'));
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const record = {
        host,
        method: req.method,
        path: req.url,
        headers: headerPairs(req.rawHeaders),
        remotePort: req.socket.remotePort,
        bodyLength: body.length,
        bodySha: sha256(body),
      };
      requests.push(record);
      const cookies = [];
      if (host.startsWith('tracker') || host === cookieHost)
        cookies.push(`uid=${crypto.randomBytes(16).toString('hex')}; Path=/`);
      if (host.startsWith('lang')) cookies.push('lang=en; Path=/');
      // A page asks for the cookies it sets: ?setcookie=<a Set-Cookie value>, repeatable.
      for (const v of url.searchParams.getAll('setcookie')) cookies.push(v);
      if (cookies.length) res.setHeader('Set-Cookie', cookies);
      // The same in RFC 2965's obsolete header: ?setcookie2=<a Set-Cookie2 value>.
      const cookies2 = url.searchParams.getAll('setcookie2');
      if (cookies2.length) res.setHeader('Set-Cookie2', cookies2);
      if (url.pathname === '/status') {
        // A response without a body: 204 and 304 say so by their status alone.
        res.statusCode = Number(url.searchParams.get('code'));
        res.end();
        return;
      }
      if (url.pathname === '/bytes') {
        const n = Number(url.searchParams.get('n'));
        const data = bytes(n, url.searchParams.get('seed') || 'brock');
        res.setHeader('Content-Type', 'application/octet-stream');
        if (url.searchParams.get('mode') === 'chunked') {
          // Many writes of odd sizes: chunk boundaries everywhere.
          for (let off = 0; off < n; off += 7919) res.write(data.subarray(off, off + 7919));
          res.end();
        } else {
          res.setHeader('Content-Length', n);
          res.end(data);
        }
        return;
      }
      if (url.pathname === '/html') {
        htmlPage(url.searchParams, req, res);
        return;
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ host, n: url.searchParams.get('n'), bodyLength: body.length,
                               bodySha: record.bodySha }));
    });
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  // Upgrades: answer 101 and echo whatever arrives, to show bytes pass both ways.
  server.on('upgrade', (req, socket, head) => {
    requests.push({ host: (req.headers.host || '').replace(/:\d+$/, ''), method: req.method,
                    path: req.url, headers: headerPairs(req.rawHeaders), upgrade: true });
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n' +
                 'Connection: Upgrade\r\n\r\n');
    if (head.length) socket.write(head);
    socket.pipe(socket);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(...at, () => {
      resolve({
        port: server.address().port,
        requests,
        to(host) { return requests.filter((r) => r.host === host); },
        close() { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
      });
    });
  });
}

// A raw origin for what a well-behaved server never does, chosen by the Host header:
// eof.test answers without Content-Length or chunking (read until close); flaky.test answers
// the first request of each connection and closes the connection on the second without a
// word; garbage.test answers with bytes that are not HTTP; cut.test promises 1000 bytes,
// sends 10 and closes.
function startRawOrigin() {
  const seen = [];
  const server = net.createServer((socket) => {
    let got = '';
    let answered = 0;
    socket.on('data', (d) => {
      got += d.toString('latin1');
      for (;;) {
        const end = got.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = got.slice(0, end);
        got = got.slice(end + 4);
        const host = (/^host:\s*([^:\r\n]+)/mi.exec(head) || [])[1] || '';
        const m = /[?&]n=(\d+)/.exec(head);
        const n = m ? Number(m[1]) : 0;
        seen.push({ host, head, connection: socket.remotePort });
        if (host === 'eof.test') {
          socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n');
          socket.end(bytes(n, 'eof'));
          return;
        }
        if (host === 'flaky.test') {
          if (answered++ > 0) {
            socket.destroy();
            return;
          }
          socket.write(`HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nflaky`);
          continue;
        }
        if (host === 'garbage.test') {
          socket.end('SPEAKING SOMETHING ELSE\r\n\r\n');
          return;
        }
        if (host === 'cut.test') {
          socket.end('HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789');
          return;
        }
        socket.destroy();
        return;
      }
    });
    socket.on('error', () => {});
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({
      port: server.address().port,
      seen,
      close() { return new Promise((r) => server.close(r)); },
    }));
  });
}

// A raw origin that records every connection and every byte it receives, and answers each
// request head it sees with reply(head, conn) (a string written as is, or null for no answer;
// conn is the connection's number from 0). A Content-Length body is skipped; a chunked one is
// split at empty lines like heads. seen.connections counts connections, seen.bytes is all that
// arrived (latin1) and seen.heads every head.
function startRecordingOrigin(reply) {
  const seen = { connections: 0, bytes: '', heads: [] };
  const server = net.createServer((socket) => {
    const conn = seen.connections++;
    let got = '';
    let skip = 0; // of a Content-Length body still to come
    socket.on('data', (d) => {
      seen.bytes += d.toString('latin1');
      got += d.toString('latin1');
      for (let end; ;) {
        const n = Math.min(skip, got.length);
        got = got.slice(n);
        skip -= n;
        if (skip > 0 || (end = got.indexOf('\r\n\r\n')) < 0) break;
        const head = got.slice(0, end);
        got = got.slice(end + 4);
        skip = Number((/\r\ncontent-length:\s*(\d+)/i.exec(head) || [])[1] || 0);
        seen.heads.push({ head, conn });
        const answer = reply(head, conn);
        if (answer !== null) socket.write(answer);
      }
    });
    socket.on('error', () => {});
  });
  const sockets = new Set();
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({
      port: server.address().port,
      seen,
      close() {
        for (const s of sockets) s.destroy();
        return new Promise((r) => server.close(r));
      },
    }));
  });
}

// An origin that sends /slow?ms=MS&n=N as N KiB spread over MS milliseconds, in pieces of
// 1 KiB or of &chunk=C KiB (Content-Length given first), and says when each such request
// arrived. The bytes are fill(N * 1024, tag).
function startSlowOrigin(tag = 'slow', fill = bytes) {
  const arrived = [];
  const waiting = [];
  const timers = new Set();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const n = Number(url.searchParams.get('n')), ms = Number(url.searchParams.get('ms'));
    const chunk = Number(url.searchParams.get('chunk') || 1);
    const data = fill(n * 1024, tag);
    let i = 0;
    res.setHeader('Content-Length', data.length);
    res.flushHeaders();
    const t = setInterval(() => {
      if (res.destroyed || i >= n) {
        clearInterval(t);
        timers.delete(t);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(data.subarray(i * 1024, (i = Math.min(i + chunk, n)) * 1024));
    }, ms / Math.ceil(n / chunk));
    timers.add(t);
    arrived.push(req.url);
    while (waiting.length) waiting.shift()();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({
      port: server.address().port,
      // Resolves once a request has arrived (at once when one already has since `since`).
      arrival(since) {
        return new Promise((r) => (arrived.length > since ? r() : waiting.push(r)));
      },
      count: () => arrived.length,
      close() {
        for (const t of timers) clearInterval(t);
        server.closeAllConnections();
        return new Promise((r) => server.close(r));
      },
    }));
  });
}

// A site of a test's own on a loopback port: handle(req, res, host) answers each request
// (host: the Host header without its port). Every request is recorded first as { host,
// path, headers (node's object of them), time (Date.now()) }. With tls ({ key, cert }) it
// speaks HTTPS. Resolves with { port, requests, to(host[, path]): the requests to host (and
// path), connections(): how many were made, close() }. at: [port, address] to listen at other
// than a loopback port of the system's choosing.
function startSite(handle, { tls, h2 = false, at = [0, '127.0.0.1'] } = {}) {
  const requests = [];
  let connections = 0;
  const handler = (req, res) => {
    const host = (req.headers.host || req.headers[':authority'] || '').replace(/:\d+$/, '');
    requests.push({ host, path: req.url, headers: req.headers, time: Date.now(),
                    version: req.httpVersion });
    handle(req, res, host);
  };
  // With h2, an origin that offers HTTP/2 by ALPN (and HTTP/1.1 to clients without it). Its
  // session may hold many streams' responses at once: Node's cap on that memory (10 MB)
  // would refuse streams no real server refuses.
  const server = !tls ? http.createServer(handler)
    : h2 ? http2.createSecureServer({ ...tls, allowHTTP1: true, maxSessionMemory: 256 }, handler)
      : https.createServer(tls, handler);
  server.on(h2 ? 'secureConnection' : 'connection', () => { connections++; });
  const sessions = new Set();
  server.on('session', (sn) => { sessions.add(sn); sn.on('close', () => sessions.delete(sn)); });
  // A client that refuses the site's certificate is none of the site's business.
  server.on('tlsClientError', () => {});
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(...at, () => resolve({
      port: server.address().port,
      requests,
      to(host, p) { return requests.filter((r) => r.host === host && (!p || r.path === p)); },
      connections: () => connections,
      close() {
        if (h2) for (const sn of sessions) sn.destroy();
        else server.closeAllConnections();
        return new Promise((r) => server.close(r));
      },
    }));
  });
}

// An origin that answers by hand, for framing of a test's own or ends a well-behaved server
// never makes: each connection carries one request, read whole (its head, then a body of
// Content-Length bytes), and answer({ head, target, host, body }, socket) writes the answer
// and ends the connection its own way; what comes after the request is not read. With tls
// ({ key, cert }) it speaks TLS. Resolves with { port, close() }.
function startOneShotOrigin(answer, { tls } = {}) {
  const sockets = new Set();
  const serve = (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let got = Buffer.alloc(0);
    const read = (d) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = got.subarray(0, end).toString('latin1');
      const length = Number((/\r\ncontent-length:\s*(\d+)/i.exec(head) || [])[1] || 0);
      if (got.length < end + 4 + length) return;
      socket.removeListener('data', read);
      answer({ head, target: head.split(' ')[1] || '',
               host: (/^host:\s*([^:\r\n]+)/mi.exec(head) || [])[1] || '',
               body: got.subarray(end + 4, end + 4 + length) }, socket);
    };
    socket.on('data', read);
  };
  const server = tls ? createTlsServer(tls, serve) : net.createServer(serve);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({
      port: server.address().port,
      close() {
        for (const s of sockets) s.destroy();
        return new Promise((r) => server.close(r));
      },
    }));
  });
}

module.exports = {
  startOrigin, startRawOrigin, startRecordingOrigin, startSlowOrigin, startSite,
  startOneShotOrigin, bytes, streamBytes, sha256, htmlText,
  ENCODERS,
};
