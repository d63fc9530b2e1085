#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// A connection flood locks no one out: 5,000 silent connections from one address (some with
// half a request head, reconnecting as they are closed) only ever displace that address's own
// idle connections, or, with no cap per address, the oldest idle ones, while another
// address's requests are all answered quickly; a client that has sent a whole request is never
// the one closed; 503 only when every slot holds a request in flight.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { startOrigin, startSlowOrigin, bytes, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { check, tmpdir, track, waitFor } = h;

let origin, slow;

before(async () => {
  origin = await startOrigin();
  slow = await startSlowOrigin('flood');
});
after(async () => {
  if (origin) await origin.close();
  if (slow) await slow.close();
});

function start(name, args = [], wrap) {
  return h.startBrock({ state: path.join(tmpdir(name), 'state'), wrap,
                        args: ['--no-update', '--resolve', `slow.test=127.0.0.1:${slow.port}`,
                               '--resolve', `*.test=127.0.0.1:${origin.port}`, ...args] });
}

// One request on a fresh connection from localAddress; resolves with { status, ms, body }
// once the whole response (Content-Length) is in, or rejects.
function request(port, url, { localAddress = '127.0.0.1', wait = 10000 } = {}) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const s = net.connect({ port, host: '127.0.0.1', localAddress });
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => { s.destroy(); reject(new Error(`no answer for ${url}`)); },
                             wait);
    s.setNoDelay(true);
    s.on('connect', () => s.write(`GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n` +
                                  'Connection: close\r\n\r\n'));
    s.on('data', (d) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = got.subarray(0, end).toString('latin1');
      const len = Number((/\r\ncontent-length: *(\d+)/i.exec(head) || [0, 0])[1]);
      if (got.length < end + 4 + len) return;
      clearTimeout(timer);
      s.destroy();
      resolve({ status: Number(head.slice(9, 12)), body: got.subarray(end + 4, end + 4 + len),
                ms: Number(process.hrtime.bigint() - t0) / 1e6 });
    });
    s.on('error', (e) => { clearTimeout(timer); reject(e); });
    s.on('close', () => { clearTimeout(timer); reject(new Error(`closed: ${got}`)); });
  });
}

// The flood (flooder.js) as a child process; resolves once its connections are all opened.
async function flood(port, count) {
  const child = track(spawn(process.execPath, [path.join(__dirname, 'flooder.js'),
                                               String(port), String(count), '127.0.0.2'],
                            { stdio: ['pipe', 'pipe', 'inherit'] }));
  const lines = [];
  let waiting = null;
  let buf = '';
  child.stdout.on('data', (d) => {
    buf += d;
    for (let i; (i = buf.indexOf('\n')) >= 0; buf = buf.slice(i + 1)) {
      lines.push(JSON.parse(buf.slice(0, i)));
      if (waiting) waiting();
    }
  });
  const next = (n) => new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`the flood exited (${code})`)));
    const look = () => { if (lines.length >= n) resolve(lines[n - 1]); };
    waiting = look;
    look();
  });
  const started = next(1);
  return {
    started,
    async stop() { child.stdin.end(); return next(2); },
  };
}

// Requests from 127.0.0.1 one after another, with a pause between, until done(count) says
// so.
async function serve(port, done) {
  const out = [];
  for (let i = 0; !done(out.length); i++) {
    out.push(await request(port, `http://site.test/?n=${i}`));
    await new Promise((r) => setTimeout(r, 15));
  }
  return out;
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

// A sanitizer build accepts and closes connections some three times slower, and the suite
// runs it on loaded machines: its p99 (measured 30 to 60 ms where the plain build's is 10 to
// 20 ms, over 200 ms with the machine's two cores busy elsewhere) gets a bound of 400 ms.
function isAsan(pid) {
  return /libasan|libclang_rt\.asan/.test(fs.readFileSync(`/proc/${pid}/maps`, 'utf8'));
}

// The flood's ordeal for b: a busy client from the flooding address downloads slowly, the
// flood comes, and requests from 127.0.0.1 go on meanwhile and while it goes on reconnecting:
// 300 of them at least, so that the p99 of a loaded machine is not one stray pause.
async function ordeal(b, count) {
  const busy = request(b.port, 'http://slow.test/slow?ms=4000&n=64',
                       { localAddress: '127.0.0.2', wait: 20000 });
  await new Promise((r) => setTimeout(r, 300));
  const f = await flood(b.port, count);
  let stopAt = Infinity;
  f.started.then(() => { stopAt = Date.now() + 1500; });
  const served = await serve(b.port, (n) => Date.now() > stopAt && n >= 300);
  const end = await f.stop();
  const whole = await busy;
  return { served, end, whole };
}

function report(what, served, b) {
  const ms = served.map((r) => r.ms).sort((x, y) => x - y);
  const p50 = percentile(ms, 0.5), p99 = percentile(ms, 0.99);
  console.log(`# ${what}: ${served.length} requests, p50 ${p50.toFixed(1)} ms, ` +
              `p99 ${p99.toFixed(1)} ms, max ${ms[ms.length - 1].toFixed(1)} ms`);
  for (const r of served) assert.equal(r.status, 200, r.body.toString());
  const bound = isAsan(b.proc.pid) ? 400 : 100;
  assert.ok(p99 < bound, `p99 ${p99.toFixed(1)} ms (bound ${bound} ms)`);
}

// What the dashboard's /api/status says of the run so far.
async function status(b) {
  const r = await h.run('curl', ['-s', '--max-time', '10', `http://127.0.0.1:${b.port}/api/status`]);
  return JSON.parse(r.stdout).since_start;
}

check('5,000 silent connections from one address: another address is served, p99 under ' +
      '100 ms; the flood only displaces its own idle connections', async () => {
  const b = await start('flood-client');
  try {
    await waitFor('the limits', () => /serving up to \d+ connections at once \(\d+ descriptors\), 256 from one address/.test(b.log()), 5000);
    const { served, end, whole } = await ordeal(b, 5000);
    report('during 5,000 connections from 127.0.0.2', served, b);
    assert.ok(served.length >= 20, `only ${served.length} requests`);
    assert.equal(end.opened >= 5000, true);
    // All but its share of 256 were closed to make room for its own newer ones.
    assert.ok(end.cut >= 5000 - 256 - 100, `brock closed ${end.cut} of ${end.opened}`);
    assert.equal(whole.status, 200);
    assert.equal(sha256(whole.body), sha256(bytes(64 * 1024, 'flood')),
                 'a client that had sent its request was cut');
    await waitFor('the summary line', () => /in the last second: closed \d+ idle connections of clients at their share of 256 \(--max-client-connections; the last: 127\.0\.0\.2\)/.test(b.log()), 5000);
    const summaries = b.log().split('\n').filter((l) => /in the last second:/.test(l));
    assert.ok(summaries.length <= 15, `${summaries.length} summary lines`);
    assert.ok(!/refused .* with 503/.test(b.log()), 'a connection was refused');
    // The dashboard's status counts them since the start.
    const st = await status(b);
    assert.ok(st.connections_cut >= 5000 - 256 - 100, JSON.stringify(st));
    assert.equal(st.connections_refused, 0);
  } finally {
    await b.stop();
  }
}, 90000);

check('with no cap per address, the oldest idle connections make room when every slot is ' +
      'taken', async () => {
  // Descriptors for about 280 client connections.
  const b = await start('flood-full', ['--max-client-connections', '0'],
                        ['prlimit', '--nofile=1200:1200', '--']);
  try {
    const m = await waitFor('the limits', () => /serving up to (\d+) connections at once \(1200 descriptors\), any number from one address/.exec(b.log()), 5000);
    const max = Number(m[1]);
    assert.ok(max > 100 && max < 600, `${max} connections`);
    const { served, end, whole } = await ordeal(b, 2000);
    report(`during 2,000 connections from 127.0.0.2, ${max} slots`, served, b);
    assert.ok(end.cut >= 2000 - max - 100, `brock closed ${end.cut} of ${end.opened}`);
    assert.equal(whole.status, 200);
    assert.equal(sha256(whole.body), sha256(bytes(64 * 1024, 'flood')),
                 'a client that had sent its request was cut');
    await waitFor('the summary line', () => new RegExp(`in the last second: closed \\d+ idle connections to make room, all ${max} slots being taken`).test(b.log()), 5000);
  } finally {
    await b.stop();
  }
}, 90000);

check('503 only when every slot holds a request in flight; it is said once a second', async () => {
  // Descriptors for the fewest slots brock serves with (16).
  const b = await start('flood-503', [], ['prlimit', '--nofile=100:100', '--']);
  const busy = [];
  try {
    await waitFor('the limits', () => /serving up to 16 connections at once \(100 descriptors\)/.test(b.log()), 5000);
    // Sixteen downloads from different addresses hold every slot with a request in flight.
    for (let i = 0; i < 16; i++)
      busy.push(request(b.port, `http://slow.test/slow?ms=4000&n=16&i=${i}`,
                        { localAddress: `127.0.1.${i + 1}`, wait: 20000 }));
    await new Promise((r) => setTimeout(r, 800));
    const refused = await request(b.port, 'http://site.test/?over=1');
    assert.equal(refused.status, 503);
    assert.match(refused.body.toString(), /too many connections/);
    const again = await request(b.port, 'http://site.test/?over=2');
    assert.equal(again.status, 503);
    for (const r of await Promise.all(busy)) {
      assert.equal(r.status, 200);
      assert.equal(r.body.length, 16 * 1024);
    }
    await waitFor('the summary line', () => /in the last second: refused 2 connections with 503, as none could be closed/.test(b.log()), 5000);
    // The downloads done, a new client is served.
    assert.equal((await request(b.port, 'http://site.test/?after=1')).status, 200);
    assert.equal((await status(b)).connections_refused, 2);
  } finally {
    await Promise.allSettled(busy);
    await b.stop();
  }
}, 60000);
