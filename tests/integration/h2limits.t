#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// What HTTP/2 lets a client do that HTTP/1.1 does not, against `brock run --intercept`, with
// frames written byte by byte: requests that an HTTP/1.1 upstream would read differently (a
// header value with CR, LF or NUL, a name with a colon or in upper case, Transfer-Encoding,
// Connection, a Content-Length the DATA frames disagree with) are reset and never reach the
// origin whole; CONTINUATION floods, HPACK bombs, rapid reset, SETTINGS and PING floods from a
// client that does not read, more streams than SETTINGS allow, too many or too large header
// fields, and a flow-control window held at zero are each bounded, and brock serves the next
// client as before.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const h = require('./harness.js');
const c2 = require('./h2client.js');
const { TYPE, FLAG, frame, block, literal, indexed, errorCode } = c2;
const { flat } = h;

function check(name, fn) {
  h.check(name, fn, 60000);
}

const tmp = h.tmpdir('h2limits-t');
const state = path.join(tmp, 'state');
const SITE = 'site.test';
const PROTOCOL_ERROR = 1, INTERNAL_ERROR = 2, REFUSED_STREAM = 7;

let origin, brock, ca;
// Requests whose body the origin read to its end, by path.
const whole = [];
// The bytes the origin could hand to its socket for /endless, and whether that connection
// closed.
const endless = { written: 0, closed: false };

function serve(req, res) {
  if (req.url === '/endless') {
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!res.destroyed) {
        endless.written += chunk.length;
        if (!res.write(chunk)) { res.once('drain', pump); return; }
      }
    };
    res.on('close', () => { endless.closed = true; });
    pump();
    return;
  }
  req.resume();
  req.on('end', () => {
    whole.push(req.url);
    res.setHeader('Content-Type', 'text/plain');
    res.end(`ok ${req.url}\n`);
  });
}

before(flat(async () => {
  ({ origin, brock, ca } = await c2.intercepting(tmp, state, [SITE], serve));
}));

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

const REQUEST = (p, method = 'GET') => [[':method', method], [':scheme', 'https'],
                                         [':authority', SITE], [':path', p]];

// HEADERS for stream id with the given fields, ending the stream unless open.
function headers(id, fields, { open = false } = {}) {
  return frame(TYPE.HEADERS, FLAG.END_HEADERS | (open ? 0 : FLAG.END_STREAM), id, block(fields));
}

const rstOn = (id) => (f) => (f.type === TYPE.RST_STREAM && f.id === id) ||
                             f.type === TYPE.GOAWAY;
const dataOn = (id) => (f) => f.type === TYPE.DATA && f.id === id;

// brock still serves a well-behaved client, and the origin got the request whole.
async function stillServes(p) {
  const s = await c2.session(brock.port, SITE, ca);
  const r = await c2.request(s, { ':path': p });
  s.close();
  assert.equal(r.status, 200, `brock still serves: ${p}`);
  assert.ok(whole.includes(p));
}

check('requests HTTP/1.1 would read differently are reset, and never reach the origin whole',
      async () => {
  const cases = [
    ['lf', [['x-a', 'b\nx-injected: 1']]],
    ['cr', [['x-a', 'b\rx-injected: 1']]],
    ['nul', [['x-a', 'b\0c']]],
    ['colon', [['x:a', 'b']]],
    ['upper', [['X-Upper', 'b']]],
    ['te', [['transfer-encoding', 'chunked']]],
    ['connection', [['connection', 'keep-alive']]],
    ['te-gzip', [['te', 'gzip']]],
    ['two-lengths', [['content-length', '5'], ['content-length', '6']]],
    ['smuggled-line', [['x-a', 'b\r\n\r\nGET /smuggled HTTP/1.1\r\nhost: site.test']]],
  ];
  const c = await c2.raw(brock.port, SITE, ca);
  let id = 1;
  for (const [name, fields] of cases) {
    c.send(headers(id, [...REQUEST(`/bad-${name}`), ...fields]));
    const f = await c.until(rstOn(id));
    assert.equal(f.type, TYPE.RST_STREAM, `${name}: the stream is reset, the connection stays`);
    assert.equal(errorCode(f), PROTOCOL_ERROR, name);
    id += 2;
  }
  // A Content-Length the DATA frames pass, and one they fall short of.
  c.send(headers(id, [...REQUEST('/bad-more', 'POST'), ['content-length', '4']], { open: true }),
         frame(TYPE.DATA, FLAG.END_STREAM, id, Buffer.from('12345678')));
  assert.equal((await c.until(rstOn(id))).type, TYPE.RST_STREAM, 'more DATA than declared');
  id += 2;
  c.send(headers(id, [...REQUEST('/bad-less', 'POST'), ['content-length', '10']], { open: true }),
         frame(TYPE.DATA, FLAG.END_STREAM, id, Buffer.from('123')));
  assert.equal((await c.until(rstOn(id))).type, TYPE.RST_STREAM, 'less DATA than declared');
  c.close();
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(whole.filter((p) => /^\/(bad-|smuggled)/.test(p)), [],
                   'no refused request reached the origin whole');
  assert.equal(origin.requests.filter((q) => /^\/(bad-(lf|cr|nul|colon|upper|te|connection|two|smug))|smuggled/
    .test(q.path)).length, 0, 'nor the head of any refused before its body');
  await stillServes('/after-bad');
});

check('an HPACK bomb and a header list past the limits are answered 431', async () => {
  const c = await c2.raw(brock.port, SITE, ca);
  // 4000 bytes in the decoder's table (a field of its own stream), then twenty references to
  // it: 80 KB decoded from 20 bytes.
  const big = literal('x-big', 'b'.repeat(4000), { index: true });
  c.send(frame(TYPE.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 1,
               Buffer.concat([block(REQUEST('/bomb-seed')), big])));
  await c.until(dataOn(1));
  c.send(frame(TYPE.HEADERS, FLAG.END_HEADERS | FLAG.END_STREAM, 3,
               Buffer.concat([block(REQUEST('/bomb')), ...Array(20).fill(indexed(62))])));
  let f = await c.until(dataOn(3));
  assert.match(f.payload.toString(), /header list is too large/);
  const many = Array.from({ length: 140 }, (_, i) => [`x-field-${i}`, 'v']);
  c.send(headers(5, [...REQUEST('/many-fields'), ...many]));
  f = await c.until(dataOn(5));
  assert.match(f.payload.toString(), /header list is too large/);
  c.close();
  assert.ok(!origin.requests.some((q) => q.path === '/bomb' || q.path === '/many-fields'));
  await stillServes('/after-bomb');
});

check('a CONTINUATION flood ends the connection', async () => {
  const c = await c2.raw(brock.port, SITE, ca);
  const parts = [frame(TYPE.HEADERS, 0, 1, block(REQUEST('/continued')))];
  for (let i = 0; i < 2000; i++)
    parts.push(frame(TYPE.CONTINUATION, 0, 1, literal(`x-c${i}`, 'v')));
  c.send(...parts);
  const end = (f) => f.type === TYPE.GOAWAY;
  end.closeToo = true;
  await c.until(end);
  c.close();
  assert.ok(!origin.requests.some((q) => q.path === '/continued'));
  await stillServes('/after-continuation');
});

check('rapid reset: streams opened and cancelled by the thousand end the connection', async () => {
  const c = await c2.raw(brock.port, SITE, ca);
  const parts = [];
  for (let id = 1; id < 2 * 3000; id += 2) {
    parts.push(headers(id, REQUEST(`/reset-${id}`)),
               frame(TYPE.RST_STREAM, 0, id, Buffer.from([0, 0, 0, 8])));
  }
  c.send(...parts);
  const f = await c.until((x) => x.type === TYPE.GOAWAY, 20000);
  // nghttp2's answer to rapid reset (CVE-2023-44487), as in its own servers.
  assert.equal(errorCode(f), INTERNAL_ERROR, 'GOAWAY');
  // brock's line may reach this process after the frame does.
  await h.waitFor('the log line', () => /brock ended the client's HTTP\/2 connection: INTERNAL_ERROR/
    .test(brock.log()), 10000);
  c.close();
  await stillServes('/after-reset');
  // What the cancelled streams opened is gone again.
  await h.waitFor('the stream connections to close', async () => {
    const m = (await h.curl(brock.port, [`http://127.0.0.1:${brock.port}/metrics`])).body
      .toString();
    return Number(/^brock_connections (\d+)/m.exec(m)[1]) <= 2;
  });
});

check('SETTINGS and PINGs from a client that does not read end the connection', async () => {
  const c = await c2.raw(brock.port, SITE, ca);
  await c.until((f) => f.type === TYPE.SETTINGS && (f.flags & FLAG.ACK));
  c.socket.pause();
  const parts = [];
  for (let i = 0; i < 20000; i++) {
    parts.push(frame(TYPE.SETTINGS, 0, 0),
               frame(TYPE.PING, 0, 0, Buffer.alloc(8, i & 0xff)));
  }
  c.send(...parts);
  const gone = Date.now();
  await h.waitFor('brock to end the connection for the flood',
                  () => /the client broke HTTP\/2: Flooding was detected/.test(brock.log()), 20000);
  c.socket.resume();
  assert.ok(Date.now() - gone < 20000);
  c.close();
  await stillServes('/after-flood');
});

check('streams past SETTINGS_MAX_CONCURRENT_STREAMS are refused', async () => {
  const c = await c2.raw(brock.port, SITE, ca);
  await c.until((f) => f.type === TYPE.SETTINGS && (f.flags & FLAG.ACK));
  const parts = [];
  // Each waits for a body that never comes.
  for (let i = 0; i < 101; i++)
    parts.push(headers(2 * i + 1, REQUEST(`/open-${i}`, 'POST'), { open: true }));
  c.send(...parts);
  // RFC 9113 5.1.2 asks for a stream error; nghttp2 ends the connection (GOAWAY), which
  // refuses the stream too.
  const f = await c.until(rstOn(201));
  assert.ok((f.type === TYPE.RST_STREAM && [REFUSED_STREAM, PROTOCOL_ERROR].includes(errorCode(f))) ||
            (f.type === TYPE.GOAWAY && errorCode(f) === PROTOCOL_ERROR),
            `${f.type} ${errorCode(f)}`);
  if (f.type === TYPE.GOAWAY) {
    await h.waitFor('the log line', () => /max concurrent streams exceeded/.test(brock.log()),
                    10000);
  }
  c.close();
  await stillServes('/after-streams');
});

check('a window held at zero holds the origin back, within bounds', async () => {
  // SETTINGS_INITIAL_WINDOW_SIZE 0: brock may send no DATA at all.
  const c = await c2.raw(brock.port, SITE, ca, { initial: [[4, 0]] });
  c.send(headers(1, REQUEST('/endless')));
  await c.until((f) => f.type === TYPE.HEADERS && f.id === 1);
  await new Promise((r) => setTimeout(r, 1500));
  const held = endless.written;
  await new Promise((r) => setTimeout(r, 1000));
  assert.ok(endless.written - held <= 128 * 1024, `the origin stopped (${endless.written - held} more)`);
  assert.ok(endless.written < 16 * 1024 * 1024,
            `brock held a bounded amount (${endless.written} bytes)`);
  assert.equal(c.frames.filter(dataOn(1)).length, 0, 'and sent nothing past the window');
  // The client gives up: the origin's connection goes too.
  c.send(frame(TYPE.RST_STREAM, 0, 1, Buffer.from([0, 0, 0, 8])));
  await h.waitFor('the origin\'s connection to close', () => endless.closed, 10000);
  c.close();
  await stillServes('/after-window');
});
