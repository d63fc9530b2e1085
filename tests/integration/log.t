#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The log of `brock run`: every line stamped with the local time (none when the journal
// stamps them), and at the default level one line for each request or connection brock
// refuses or cannot complete, naming the client, the method and host, the status and why,
// never a path; -q keeps only brock's own errors.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const path = require('node:path');
const { startOrigin, startRawOrigin } = require('./origin.js');
const h = require('./harness.js');
const { check, tmpdir, linesFrom } = h;

let origin, rawOrigin, silent, downPort;

before(async () => {
  origin = await startOrigin();
  rawOrigin = await startRawOrigin();
  // Accepts and never answers: the upstream timeout.
  silent = net.createServer(() => {});
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  downPort = await h.freePort();
});

after(async () => {
  if (origin) await origin.close();
  if (rawOrigin) await rawOrigin.close();
  if (silent) await new Promise((r) => silent.close(r));
});

// brock serving 127.0.0.1 only (127.0.0.2 is refused: linesFrom's marker), with tracker.test
// blocked by the user and short timeouts; what it logs as it starts is behind it.
async function start(args = [], env = {}) {
  const state = path.join(tmpdir('log-t'), 'state');
  const set = await h.brock(state, ['set', 'tracker.test', 'block']);
  assert.equal(set.code, 0, set.stderr);
  const b = await h.startBrock({ state, env, args: [
    '--no-update', '--allow', '127.0.0.1/32', '--header-timeout', '1',
    '--upstream-timeout', '1',
    '--resolve', `silent.test=127.0.0.1:${silent.address().port}`,
    '--resolve', `down.test=127.0.0.1:${downPort}`,
    '--resolve', `cut.test=127.0.0.1:${rawOrigin.port}`,
    '--resolve', `plain.test:443=127.0.0.1:${origin.port}`,
    '--resolve', `*.test=127.0.0.1:${origin.port}`,
    ...args,
  ] });
  if (!args.includes('-q'))
    await linesFrom(b, async () => {});
  return b;
}

// Stops b: a clean exit, nothing from the sanitizers.
async function stop(b) {
  const r = await b.stop();
  assert.deepEqual(r, { code: 0, signal: null }, b.log().slice(-2000));
  assert.doesNotMatch(b.log(), /Sanitizer|runtime error/);
}

function raw(b, data, opts = {}) {
  return h.raw(b.port, data, { wait: 10000, ...opts });
}

// A request whose body stops short, then the client goes away: with a FIN, or a reset.
function abandonBody(b, reset = false) {
  return new Promise((resolve, reject) => {
    const s = net.connect(b.port, '127.0.0.1');
    s.on('error', reject);
    s.write('POST http://site.test/upload?secret=1 HTTP/1.1\r\nHost: site.test\r\n' +
            'Content-Length: 100\r\n\r\n0123456789', () => {
      setTimeout(() => {
        if (reset) s.resetAndDestroy();
        else s.destroy();
        resolve();
      }, 300);
    });
  });
}

check('every line is stamped with the local time; under the journal, none is', async () => {
  // A zone with a half-hour offset, in POSIX form (no time zone data needed): the stamp is
  // local time, and says how far from UTC.
  const b = await start(['-v'], { TZ: 'BRK-5:30' });
  let r;
  try {
    await raw(b, 'THIS IS NOT HTTP\r\n\r\n');
    await h.curl(b.port, ['-e', 'http://site.test/', 'http://tracker.test/p.gif']);
    await h.curl(b.port, ['http://site.test/echo?n=1']);
  } finally {
    r = await b.stop();
  }
  assert.equal(r.code, 0, b.log());
  const lines = b.log().split('\n').slice(0, -1);
  assert.ok(lines.length >= 5, b.log());
  for (const l of lines) {
    assert.match(l, h.STAMP, 'a line without its time stamp');
    assert.match(l, / \+0530 brock: /, 'the offset of the zone brock runs in');
    const ms = h.stampTime(l).getTime();
    assert.ok(Math.abs(ms - Date.now()) < 120000, `the time is now: ${l}`);
  }
  assert.equal(lines.filter((l) => / brock: listening on 127\.0\.0\.1:\d+$/.test(l)).length, 1);

  const j = await start([], { JOURNAL_STREAM: '1:2' });
  try {
    await raw(j, 'THIS IS NOT HTTP\r\n\r\n');
  } finally {
    r = await j.stop();
  }
  assert.equal(r.code, 0, j.log());
  const jl = j.log().split('\n').slice(0, -1);
  assert.ok(jl.length >= 2, j.log());
  for (const l of jl) assert.match(l, /^brock: /, 'the journal stamps lines itself');
});

check('each refusal is one line at the default level: who, what, status and why', async () => {
  const b = await start();
  const cases = [
    ['not HTTP', () => raw(b, 'THIS IS NOT HTTP\r\n\r\n'),
     /brock: 127\.0\.0\.1 -: 400 /],
    ['a target brock cannot proxy', () => raw(b, 'GET ftp://site.test/secret?q=secret ' +
                                               'HTTP/1.1\r\nHost: site.test\r\n\r\n'),
     /brock: 127\.0\.0\.1 GET: 400 brock cannot parse the request's target/],
    ['ambiguous framing', () => raw(b, 'POST http://site.test/secret HTTP/1.1\r\n' +
                                     'Host: site.test\r\nContent-Length: 3\r\n' +
                                     'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n'),
     /brock: 127\.0\.0\.1 \S*: 400 /],
    ['a head too large', () => raw(b, 'GET http://site.test/secret HTTP/1.1\r\n' +
                                    `Host: site.test\r\nX-Big: ${'a'.repeat(70000)}\r\n\r\n`),
     /brock: 127\.0\.0\.1 -: 431 /],
    ['a body too large', () => raw(b, 'POST http://site.test/secret HTTP/1.1\r\n' +
                                    'Host: site.test\r\nContent-Length: 99999999999\r\n\r\n'),
     /brock: 127\.0\.0\.1 POST: 413 /],
    ['a head too slow', () => raw(b, 'GET http://site.test/secret HTTP/1.1\r\n'),
     /brock: 127\.0\.0\.1 -: 408 the request head did not arrive in time/],
    ['a client outside --allow', () => h.rawFrom('127.0.0.2', b.port, 'GET / HTTP/1.1\r\n\r\n'),
     /brock: refused 127\.0\.0\.2:\d+ with 403: not in --allow/],
    ['a tunnel to brock itself', () => raw(b, `CONNECT 127.0.0.1:${b.port} HTTP/1.1\r\n` +
                                            `Host: 127.0.0.1:${b.port}\r\n\r\n`),
     /brock: 127\.0\.0\.1 CONNECT 127\.0\.0\.1: 403 brock does not open a tunnel to itself/],
    ['a blocked tunnel', () => raw(b, 'CONNECT tracker.test:443 HTTP/1.1\r\n' +
                                   'Host: tracker.test:443\r\n\r\n'),
     /brock: block tracker\.test on an unknown page: /],
    ['a blocked request', () => h.curl(b.port, ['-e', 'http://site.test/secret',
                                                'http://tracker.test/secret?q=secret']),
     /brock: block tracker\.test on site\.test: /],
    ['an upstream that refuses', () => h.curl(b.port, ['http://down.test/secret']),
     /brock: 127\.0\.0\.1 GET down\.test: 502 brock could not connect to down\.test/],
    ['an upstream that does not speak TLS',
     () => raw(b, 'GET https://plain.test/secret HTTP/1.1\r\nHost: plain.test\r\n' +
                  'Connection: close\r\n\r\n'),
     /brock: 127\.0\.0\.1 GET plain\.test: 502 TLS with plain\.test failed: /],
    ['an upstream that does not answer', () => h.curl(b.port, ['http://silent.test/secret']),
     /brock: 127\.0\.0\.1 GET silent\.test: 504 silent\.test did not answer within 1 s/],
    ['a response cut short', () => h.curl(b.port, ['http://cut.test/secret']),
     /brock: 127\.0\.0\.1 GET cut\.test: the upstream closed the connection mid-response/],
    ['a request body cut short', () => abandonBody(b),
     /brock: 127\.0\.0\.1 POST site\.test: the client closed the connection mid-request/],
    ['a request body cut off by a reset', () => abandonBody(b, true),
     /brock: 127\.0\.0\.1 POST site\.test: the client closed the connection mid-request/],
    ['a client that goes between requests', () => raw(b, 'GET http://site.test/echo HTTP/1.1\r\n' +
                                                      'Host: site.test\r\n\r\n',
                                                      { until: (t) => t.includes('}') }),
     null],
  ];
  try {
    for (const [what, action, line] of cases) {
      const lines = await linesFrom(b, action);
      if (!line) {
        assert.deepEqual(lines, [], `${what}: no news`);
        continue;
      }
      assert.equal(lines.length, 1, `${what}: ${lines.length} lines: ${lines.join(' | ')}`);
      assert.match(lines[0], line, what);
      assert.match(lines[0], h.STAMP, what);
      assert.doesNotMatch(lines[0], /secret/, `${what}: a path in the log`);
    }
  } finally {
    await stop(b);
  }
});

check('-q logs none of it; -v logs each request besides', async () => {
  const q = await start(['-q']);
  let r;
  try {
    await raw(q, 'THIS IS NOT HTTP\r\n\r\n');
    await h.curl(q.port, ['http://cut.test/']);
    await abandonBody(q);
    await h.curl(q.port, ['-e', 'http://site.test/', 'http://tracker.test/']);
    await h.rawFrom('127.0.0.2', q.port, 'GET / HTTP/1.1\r\n\r\n');
  } finally {
    r = await q.stop();
  }
  assert.equal(r.code, 0, q.log());
  const lines = q.log().split('\n').slice(0, -1);
  assert.equal(lines.length, 1, q.log());
  assert.match(lines[0], / brock: listening on /);
  const v = await start(['-v']);
  try {
    const ok = await linesFrom(v, () => h.curl(v.port, ['http://site.test/echo?n=v']));
    assert.ok(ok.some((l) => /brock: 127\.0\.0\.1 GET site\.test 200 pass/.test(l)),
              ok.join(' | '));
    const cut = await linesFrom(v, () => h.curl(v.port, ['http://cut.test/']));
    assert.equal(cut.filter((l) => /mid-response/.test(l)).length, 1, cut.join(' | '));
  } finally {
    await stop(v);
  }
});
