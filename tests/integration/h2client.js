// SPDX-License-Identifier: GPL-3.0-or-later
// HTTP/2 clients of brock's interception for the tests: Node's own (node:http2, an
// implementation independent of the nghttp2 brock uses... mostly: Node links nghttp2 too, but
// its checks of what it sends are its own), over a CONNECT tunnel and TLS with ALPN; and a raw
// one that writes frames byte by byte, for what no well-behaved client sends (a header value
// with a line feed, floods, a window held at zero), with a reader of the frames brock sends.
'use strict';

const fs = require('node:fs');
const http2 = require('node:http2');
const net = require('node:net');
const path = require('node:path');
const tls = require('node:tls');

// A socket through brock's CONNECT to host:443, once brock answered 200.
function tunnel(port, host, { timeout = 10000 } = {}) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => { s.destroy(); reject(new Error('CONNECT timed out')); },
                             timeout);
    s.on('error', (e) => { clearTimeout(timer); reject(e); });
    s.on('connect', () => s.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`));
    const onData = (d) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      s.removeListener('data', onData);
      clearTimeout(timer);
      const line = got.subarray(0, got.indexOf('\r\n')).toString();
      if (!/^HTTP\/1\.1 200 /.test(line)) { s.destroy(); reject(new Error(line)); return; }
      if (got.length > end + 4) s.unshift(got.subarray(end + 4));
      resolve(s);
    };
    s.on('data', onData);
  });
}

// TLS with brock inside the tunnel, offering alpn; resolves once the handshake is done.
async function tlsTo(port, host, ca, alpn = ['h2', 'http/1.1']) {
  const socket = await tunnel(port, host);
  return new Promise((resolve, reject) => {
    const t = tls.connect({ socket, servername: host, ca, ALPNProtocols: alpn });
    t.once('secureConnect', () => resolve(t));
    t.once('error', reject);
  });
}

// A node:http2 session with brock as host (through its CONNECT), and what ALPN chose.
async function session(port, host, ca, settings = {}) {
  const t = await tlsTo(port, host, ca);
  // Node refuses new streams of its own once a session holds 10 MB (maxSessionMemory): an
  // upload brock holds back stays in the client until then, and a loaded machine would make
  // that a refusal no browser makes.
  const s = http2.connect(`https://${host}`, { createConnection: () => t, settings,
                                               maxSessionMemory: 256 });
  s.on('error', () => {});
  s.alpn = t.alpnProtocol;
  return s;
}

// One request on s: headers (the pseudo-headers too), an optional body (a Buffer or string,
// sent with END_STREAM). Resolves with { status, headers, body, rst } (rst: the stream's reset
// code, when it was reset).
function request(s, headers, body) {
  return new Promise((resolve) => {
    const req = s.request(headers, { endStream: body === undefined });
    const chunks = [];
    let head = {};
    req.on('response', (hd) => { head = hd; });
    req.on('data', (d) => chunks.push(d));
    const done = () => resolve({ status: head[':status'], headers: head,
                                 body: Buffer.concat(chunks), rst: req.rstCode });
    req.on('end', done);
    req.on('error', () => {});
    req.on('close', done);
    if (body !== undefined) req.end(body);
  });
}

// ---- raw frames ----

const TYPE = { DATA: 0, HEADERS: 1, PRIORITY: 2, RST_STREAM: 3, SETTINGS: 4, PUSH_PROMISE: 5,
               PING: 6, GOAWAY: 7, WINDOW_UPDATE: 8, CONTINUATION: 9 };
const FLAG = { END_STREAM: 1, ACK: 1, END_HEADERS: 4, PADDED: 8, PRIORITY: 0x20 };
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

function frame(type, flags, id, payload = Buffer.alloc(0)) {
  const h = Buffer.alloc(9);
  h.writeUIntBE(payload.length, 0, 3);
  h[3] = type;
  h[4] = flags;
  h.writeUInt32BE(id & 0x7fffffff, 5);
  return Buffer.concat([h, payload]);
}

// HPACK integers with an n-bit prefix (RFC 7541 5.1).
function hpackInt(value, n, first) {
  const max = (1 << n) - 1;
  if (value < max) return Buffer.from([first | value]);
  const out = [first | max];
  value -= max;
  while (value >= 128) { out.push((value & 127) | 128); value = Math.floor(value / 128); }
  out.push(value);
  return Buffer.from(out);
}

function hpackString(s) {
  const b = Buffer.isBuffer(s) ? s : Buffer.from(s, 'latin1');
  return Buffer.concat([hpackInt(b.length, 7, 0), b]);
}

// A field as a literal, never indexed by brock's decoder (0x00) or added to its table (0x40).
function literal(name, value, { index = false } = {}) {
  return Buffer.concat([Buffer.from([index ? 0x40 : 0x00]), hpackString(name),
                        hpackString(value)]);
}

// A field of the decoder's table by index (RFC 7541 6.1): 62 is the newest dynamic entry.
function indexed(i) {
  return hpackInt(i, 7, 0x80);
}

// A request's header block, in the order given ([[name, value], ...]).
function block(fields) {
  return Buffer.concat(fields.map(([n, v]) => literal(n, v)));
}

function settings(pairs = []) {
  const p = Buffer.alloc(6 * pairs.length);
  pairs.forEach(([id, v], i) => { p.writeUInt16BE(id, 6 * i); p.writeUInt32BE(v, 6 * i + 2); });
  return frame(TYPE.SETTINGS, 0, 0, p);
}

// A raw HTTP/2 connection to brock as host: the preface and an empty SETTINGS sent (and
// brock's acknowledged), every frame brock sends parsed into frames ({ type, flags, id,
// payload }), closed says when the connection ended.
async function raw(port, host, ca, { initial = [] } = {}) {
  const t = await tlsTo(port, host, ca, ['h2']);
  const c = { frames: [], closed: false, socket: t };
  let buf = Buffer.alloc(0);
  const waiters = new Set();
  const wake = () => { for (const w of waiters) w(); };
  t.on('data', (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 9) {
      const len = buf.readUIntBE(0, 3);
      if (buf.length < 9 + len) break;
      const f = { type: buf[3], flags: buf[4], id: buf.readUInt32BE(5) & 0x7fffffff,
                  payload: buf.subarray(9, 9 + len) };
      buf = buf.subarray(9 + len);
      c.frames.push(f);
      if (f.type === TYPE.SETTINGS && !(f.flags & FLAG.ACK)) t.write(frame(TYPE.SETTINGS, FLAG.ACK, 0));
    }
    wake();
  });
  t.on('error', () => {});
  t.on('close', () => { c.closed = true; wake(); });
  c.send = (...bufs) => { if (!t.destroyed) t.write(Buffer.concat(bufs)); };
  // Resolves with the first frame (or true, for a close) that pred accepts, from the start;
  // rejects after ms.
  c.until = (pred, ms = 10000) => new Promise((resolve, reject) => {
    const look = () => {
      const f = c.frames.find(pred);
      if (f || (pred.closeToo && c.closed)) {
        waiters.delete(look);
        clearTimeout(timer);
        resolve(f || true);
      }
    };
    const timer = setTimeout(() => {
      waiters.delete(look);
      reject(new Error(`no such frame within ${ms} ms; got ${
        c.frames.map((f) => `${f.type}/${f.flags}/${f.id}`).join(' ')}${c.closed ? ' (closed)' : ''}`));
    }, ms);
    waiters.add(look);
    look();
  });
  c.close = () => t.destroy();
  c.send(PREFACE, settings(initial));
  return c;
}

// An HTTPS origin for names (serve: its request handler) and a brock in state (a folder under
// tmp) intercepting every *.test name to it: { origin, brock, ca: brock's CA (PEM bytes) }.
async function intercepting(tmp, state, names, serve) {
  const h = require('./harness.js');
  const { startSite } = require('./origin.js');
  const certs = h.originCerts(tmp, names, `brock ${path.basename(tmp)}`);
  const origin = await startSite(serve, { tls: { key: certs.key, cert: certs.cert } });
  const r = await h.brock(state, ['ca', 'init']);
  if (r.code !== 0) throw new Error(r.stderr);
  const brock = await h.startBrock({ state, args: ['--no-update', '--intercept', '--upstream-ca',
                                                   certs.ca, ...h.resolveTo(origin.port, '*.test')] });
  return { origin, brock, ca: fs.readFileSync(path.join(state, 'ca', 'ca.pem')) };
}

// The error code of a RST_STREAM or GOAWAY frame.
function errorCode(f) {
  return f.type === TYPE.GOAWAY ? f.payload.readUInt32BE(4) : f.payload.readUInt32BE(0);
}

module.exports = { intercepting, tunnel, tlsTo, session, request, raw, frame, literal, indexed, block,
                   settings, errorCode, hpackInt, hpackString, TYPE, FLAG, PREFACE };
