#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// RFC 9113's MUSTs that a server meets, as a table run against brock's interception: each row
// a frame sequence written byte by byte after the connection preface, and the answer RFC 9113
// asks for (a GOAWAY or a RST_STREAM with its error code, a PING acknowledged, a response).
// h2spec is in neither Debian nor npm; this is the part of its cases a proxy's server side
// answers for, written from the RFC. Then nghttp2's own client (nghttp, Debian's
// nghttp2-client) as a second, independent client: ten requests multiplexed on one
// connection, through a CONNECT made for it.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const path = require('node:path');
const h = require('./harness.js');
const c2 = require('./h2client.js');
const { TYPE, FLAG, frame, block, literal, settings, errorCode, PREFACE } = c2;
const { flat } = h;

const tmp = h.tmpdir('h2spec-t');
const state = path.join(tmp, 'state');
const SITE = 'site.test';
const E = { NO_ERROR: 0, PROTOCOL_ERROR: 1, FLOW_CONTROL_ERROR: 3, STREAM_CLOSED: 5,
            FRAME_SIZE_ERROR: 6, COMPRESSION_ERROR: 9 };

let origin, brock, ca;

before(flat(async () => {
  ({ origin, brock, ca } = await c2.intercepting(tmp, state, [SITE], (req, res) => {
    req.resume();
    req.on('end', () => res.end(`ok ${req.url}\n`));
  }));
}));

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

const REQ = (p = '/', method = 'GET') => [[':method', method], [':scheme', 'https'],
                                          [':authority', SITE], [':path', p]];
const EH = FLAG.END_HEADERS, ES = FLAG.END_STREAM;
const get = (id, fields = REQ(), flags = EH | ES) => frame(TYPE.HEADERS, flags, id, block(fields));
const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32BE(n >>> 0); return b; };
const u16u32 = (id, v) => { const b = Buffer.alloc(6); b.writeUInt16BE(id); b.writeUInt32BE(v, 2); return b; };

// Each row: the section, what is sent, and the answer: goaway(code), rst(id, code), a ping's
// acknowledgement, or a response with :status 200 (nghttp2 sends it indexed: 0x88).
const goaway = (code) => ({ goaway: code });
const rst = (id, code) => ({ rst: [id, code] });
const TABLE = [
  ['3.4', 'a preface that is not HTTP/2\'s ends the connection', { raw: true },
   () => [Buffer.from('PRI * HTTP/1.1\r\n\r\nSM\r\n\r\n')], { closed: true }],
  ['4.2', 'a frame past SETTINGS_MAX_FRAME_SIZE is a FRAME_SIZE_ERROR', {},
   () => [frame(TYPE.HEADERS, EH | ES, 1, Buffer.concat([block(REQ()),
                                                         literal('x-pad', 'p'.repeat(17000))]))],
   goaway(E.FRAME_SIZE_ERROR)],
  ['4.3', 'a header block that does not decode is a COMPRESSION_ERROR', {},
   () => [frame(TYPE.HEADERS, EH | ES, 1, Buffer.from([0x80]))], goaway(E.COMPRESSION_ERROR)],
  ['5.1', 'DATA on an idle stream is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.DATA, ES, 1, Buffer.from('x'))], goaway(E.PROTOCOL_ERROR)],
  ['5.1', 'DATA on a stream the client ended is STREAM_CLOSED', {},
   () => [get(1, REQ('/slow', 'POST'), EH | ES), frame(TYPE.DATA, 0, 1, Buffer.from('x'))],
   { either: [rst(1, E.STREAM_CLOSED), goaway(E.STREAM_CLOSED)] }],
  ['5.1.1', 'a client stream with an even id is a PROTOCOL_ERROR', {},
   () => [get(2)], goaway(E.PROTOCOL_ERROR)],
  ['5.1.1', 'a stream id lower than one already used is a PROTOCOL_ERROR', {},
   () => [get(5, REQ('/five')), get(3, REQ('/three'))], goaway(E.PROTOCOL_ERROR)],
  ['5.5', 'a frame of an unknown type is ignored', {},
   () => [frame(0x42, 0, 0, Buffer.from('what')), frame(TYPE.PING, 0, 0, Buffer.from('pingpong'))],
   { ping: 'pingpong' }],
  ['6.1', 'DATA on stream 0 is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.DATA, 0, 0, Buffer.from('x'))], goaway(E.PROTOCOL_ERROR)],
  ['6.2', 'HEADERS on stream 0 is a PROTOCOL_ERROR', {},
   () => [get(0)], goaway(E.PROTOCOL_ERROR)],
  ['6.3', 'PRIORITY of a length other than 5 is a FRAME_SIZE_ERROR', {},
   () => [frame(TYPE.PRIORITY, 0, 1, Buffer.alloc(4))],
   { either: [rst(1, E.FRAME_SIZE_ERROR), goaway(E.FRAME_SIZE_ERROR)] }],
  ['6.4', 'RST_STREAM on stream 0 is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.RST_STREAM, 0, 0, u32(8))], goaway(E.PROTOCOL_ERROR)],
  ['6.4', 'RST_STREAM on an idle stream is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.RST_STREAM, 0, 1, u32(8))], goaway(E.PROTOCOL_ERROR)],
  ['6.4', 'RST_STREAM of a length other than 4 is a FRAME_SIZE_ERROR', {},
   () => [get(1, REQ('/', 'POST'), EH), frame(TYPE.RST_STREAM, 0, 1, Buffer.alloc(3))],
   goaway(E.FRAME_SIZE_ERROR)],
  ['6.5', 'a SETTINGS acknowledgement with a payload is a FRAME_SIZE_ERROR', {},
   () => [frame(TYPE.SETTINGS, FLAG.ACK, 0, u16u32(3, 100))], goaway(E.FRAME_SIZE_ERROR)],
  ['6.5', 'SETTINGS of a length not a multiple of 6 is a FRAME_SIZE_ERROR', {},
   () => [frame(TYPE.SETTINGS, 0, 0, Buffer.alloc(5))], goaway(E.FRAME_SIZE_ERROR)],
  ['6.5', 'SETTINGS on a stream is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.SETTINGS, 0, 1, Buffer.alloc(0))], goaway(E.PROTOCOL_ERROR)],
  ['6.5.2', 'SETTINGS_ENABLE_PUSH other than 0 or 1 is a PROTOCOL_ERROR', {},
   () => [settings([[2, 2]])], goaway(E.PROTOCOL_ERROR)],
  ['6.5.2', 'SETTINGS_INITIAL_WINDOW_SIZE past 2^31-1 is a FLOW_CONTROL_ERROR', {},
   () => [settings([[4, 0x80000000]])], goaway(E.FLOW_CONTROL_ERROR)],
  ['6.5.2', 'SETTINGS_MAX_FRAME_SIZE under 16384 is a PROTOCOL_ERROR', {},
   () => [settings([[5, 16383]])], goaway(E.PROTOCOL_ERROR)],
  ['6.5.3', 'SETTINGS are acknowledged', {},
   () => [settings([[3, 50]])], { settingsAck: true }],
  ['6.7', 'a PING is answered with the same payload', {},
   () => [frame(TYPE.PING, 0, 0, Buffer.from('01234567'))], { ping: '01234567' }],
  ['6.7', 'a PING on a stream is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.PING, 0, 1, Buffer.from('01234567'))], goaway(E.PROTOCOL_ERROR)],
  ['6.7', 'a PING of a length other than 8 is a FRAME_SIZE_ERROR', {},
   () => [frame(TYPE.PING, 0, 0, Buffer.from('0123456'))], goaway(E.FRAME_SIZE_ERROR)],
  ['6.8', 'a GOAWAY on a stream is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.GOAWAY, 0, 1, Buffer.alloc(8))], goaway(E.PROTOCOL_ERROR)],
  ['6.9', 'a connection WINDOW_UPDATE of 0 is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.WINDOW_UPDATE, 0, 0, u32(0))], goaway(E.PROTOCOL_ERROR)],
  ['6.9', 'a stream WINDOW_UPDATE of 0 is a PROTOCOL_ERROR', {},
   () => [get(1, REQ('/', 'POST'), EH), frame(TYPE.WINDOW_UPDATE, 0, 1, u32(0))],
   { either: [rst(1, E.PROTOCOL_ERROR), goaway(E.PROTOCOL_ERROR)] }],
  ['6.9.1', 'a window past 2^31-1 is a FLOW_CONTROL_ERROR', {},
   () => [frame(TYPE.WINDOW_UPDATE, 0, 0, u32(0x7fffffff))], goaway(E.FLOW_CONTROL_ERROR)],
  ['6.10', 'CONTINUATION without HEADERS before it is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.CONTINUATION, EH, 1, block(REQ()))], goaway(E.PROTOCOL_ERROR)],
  ['6.10', 'another frame inside a header block is a PROTOCOL_ERROR', {},
   () => [frame(TYPE.HEADERS, ES, 1, block(REQ())), frame(TYPE.PING, 0, 0, Buffer.alloc(8))],
   goaway(E.PROTOCOL_ERROR)],
  ['8.1.1', 'a Content-Length the DATA frames disagree with is malformed', {},
   () => [get(1, [...REQ('/', 'POST'), ['content-length', '3']], EH),
          frame(TYPE.DATA, ES, 1, Buffer.from('12345'))],
   { either: [rst(1, E.PROTOCOL_ERROR), goaway(E.PROTOCOL_ERROR)] }],
  ['8.2.1', 'a field name in upper case is malformed', {},
   () => [get(1, [...REQ(), ['Accept', '*/*']])], rst(1, E.PROTOCOL_ERROR)],
  ['8.2.2', 'a connection-specific field is malformed', {},
   () => [get(1, [...REQ(), ['keep-alive', '5']])], rst(1, E.PROTOCOL_ERROR)],
  ['8.2.2', 'TE other than "trailers" is malformed', {},
   () => [get(1, [...REQ(), ['te', 'gzip']])], rst(1, E.PROTOCOL_ERROR)],
  ['8.3', 'a pseudo-header after a regular field is malformed', {},
   () => [get(1, [[':method', 'GET'], [':scheme', 'https'], ['accept', '*/*'],
                  [':authority', SITE], [':path', '/']])], rst(1, E.PROTOCOL_ERROR)],
  ['8.3', 'a pseudo-header HTTP/2 does not define is malformed', {},
   () => [get(1, [...REQ(), [':colour', 'blue']])], rst(1, E.PROTOCOL_ERROR)],
  ['8.3', 'a response\'s pseudo-header in a request is malformed', {},
   () => [get(1, [[':status', '200'], ...REQ()])], rst(1, E.PROTOCOL_ERROR)],
  ['8.3.1', 'a request without :method is malformed', {},
   () => [get(1, REQ().slice(1))], rst(1, E.PROTOCOL_ERROR)],
  ['8.3.1', 'a request without :path is malformed', {},
   () => [get(1, REQ().slice(0, 3))], rst(1, E.PROTOCOL_ERROR)],
  ['8.3.1', 'an empty :path is malformed', {},
   () => [get(1, [...REQ().slice(0, 3), [':path', '']])], rst(1, E.PROTOCOL_ERROR)],
  ['8.3.1', 'a :path twice is malformed', {},
   () => [get(1, [...REQ(), [':path', '/again']])], rst(1, E.PROTOCOL_ERROR)],
  ['8.4', 'PUSH_PROMISE from a client is a PROTOCOL_ERROR', {},
   () => [get(1, REQ('/', 'POST'), EH), frame(TYPE.PUSH_PROMISE, EH, 1,
                                             Buffer.concat([u32(2), block(REQ())]))],
   goaway(E.PROTOCOL_ERROR)],
  ['8.1', 'a well-formed request is answered', {},
   () => [get(1, REQ('/fine'))], { ok: 1 }],
];

// Whether frame f is the answer a row asks for.
function matches(expect, f) {
  if (expect.goaway !== undefined) return f.type === TYPE.GOAWAY && errorCode(f) === expect.goaway;
  if (expect.rst) {
    return f.type === TYPE.RST_STREAM && f.id === expect.rst[0] && errorCode(f) === expect.rst[1];
  }
  if (expect.ping) {
    return f.type === TYPE.PING && (f.flags & FLAG.ACK) && f.payload.toString() === expect.ping;
  }
  if (expect.settingsAck) return f.type === TYPE.SETTINGS && (f.flags & FLAG.ACK);
  if (expect.ok) return f.type === TYPE.HEADERS && f.id === expect.ok && f.payload[0] === 0x88;
  if (expect.either) return expect.either.some((e) => matches(e, f));
  return false;
}

for (const [section, name, opts, send, expect] of TABLE) {
  h.check(`RFC 9113 ${section}: ${name}`, async () => {
    let c;
    if (opts.raw) {
      // No preface of HTTP/2's own: the bytes given instead, and the connection must end.
      const t = await c2.tlsTo(brock.port, SITE, ca, ['h2']);
      const closed = new Promise((r) => t.on('close', r));
      t.on('error', () => {});
      t.resume();
      t.write(Buffer.concat(send()));
      await Promise.race([closed, new Promise((_, j) => setTimeout(() => j(new Error(
        'the connection stayed open')), 10000))]);
      return;
    }
    c = await c2.raw(brock.port, SITE, ca);
    try {
      await c.until((f) => f.type === TYPE.SETTINGS && !(f.flags & FLAG.ACK));
      // Only what comes after the row's frames counts.
      const from = c.frames.length;
      c.send(...send());
      const f = await c.until((x) => c.frames.indexOf(x) >= from && matches(expect, x));
      assert.ok(f);
    } finally {
      c.close();
    }
  }, 20000);
}

h.check('the origin got no request of a refused row, and brock still serves', async () => {
  const refused = origin.requests.filter((r) => !['/fine', '/slow', '/five'].includes(r.path));
  assert.deepEqual(refused.map((r) => r.path), []);
  const s = await c2.session(brock.port, SITE, ca);
  const r = await c2.request(s, { ':path': '/after' });
  s.close();
  assert.equal(r.status, 200);
});

// A local port whose connections brock's CONNECT carries to host:443, for a client that speaks
// no proxy (nghttp).
function forwarder(host) {
  const server = net.createServer(async (sock) => {
    sock.on('error', () => {});
    try {
      const t = await c2.tunnel(brock.port, host);
      t.on('error', () => sock.destroy());
      sock.pipe(t).pipe(sock);
    } catch {
      sock.destroy();
    }
  });
  return new Promise((r) => server.listen(0, '127.0.0.1', () => r(server)));
}

h.check('nghttp: ten requests multiplexed on one connection, each answered', async (t) => {
  const which = await h.run('sh', ['-c', 'command -v nghttp']);
  if (which.code !== 0) {
    t.skip('no nghttp (Debian\'s nghttp2-client)');
    return;
  }
  const fwd = await forwarder(SITE);
  try {
    const port = fwd.address().port;
    const uris = Array.from({ length: 10 }, (_, i) => `https://127.0.0.1:${port}/nghttp/${i}`);
    const r = await h.run('nghttp', ['-nv', '-H', `:authority: ${SITE}`, ...uris],
                          { timeout: 20000 });
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /negotiated protocol: h2/);
    assert.equal((r.stdout.match(/:status: 200/g) || []).length, 10, r.stdout);
    for (let i = 0; i < 10; i++)
      assert.equal(origin.to(SITE, `/nghttp/${i}`).length, 1, `request ${i} reached the origin`);
  } finally {
    fwd.close();
  }
});
