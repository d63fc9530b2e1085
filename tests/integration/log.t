#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The log of `brock run`: every line stamped with the local time (none when the journal
// stamps them).
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
  const probe = net.createServer();
  await new Promise((r) => probe.listen(0, '127.0.0.1', r));
  downPort = probe.address().port;
  await new Promise((r) => probe.close(r));
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

function raw(b, data, opts = {}) {
  return h.raw(b.port, data, { wait: 10000, ...opts });
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
