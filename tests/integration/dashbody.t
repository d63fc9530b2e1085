#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Bodies sent to brock's own address: each request is routed and checked from its head (Host,
// route, method, token, the body its route takes) before any of its body is read. Refusals
// (403, 404, 405, 413) are answered at once and the connection closed, the body unread, so
// that clients sending huge bodies slowly hold nothing of brock's memory; an import, the one
// large body brock takes, streams to a temporary file and still works.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const h = require('./harness.js');
const { check, run } = h;

const tmp = h.tmpdir('dashbody-t');
let brock, token;

// A client that sends head and then the body bit by bit (64 KiB every 10 ms) until brock
// answers or ms pass. Resolves with the answer's text, when its head came and when brock
// ended the connection (null: not within ms), in ms from the start, and the bytes sent.
function trickle(head, total, ms = 5000) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const s = net.connect(brock.port, '127.0.0.1');
    const piece = Buffer.alloc(64 * 1024, 'x');
    let got = '', answered = null, ended = null, sent = 0, settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      clearInterval(tick);
      clearTimeout(limit);
      s.destroy();
      resolve({ text: got, answered, ended, sent });
    };
    const tick = setInterval(() => {
      if (answered !== null || sent >= total || s.destroyed) return;
      const n = Math.min(piece.length, total - sent);
      s.write(piece.subarray(0, n));
      sent += n;
    }, 10);
    const limit = setTimeout(done, ms);
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (answered === null && got.includes('\r\n\r\n')) answered = Date.now() - t0;
    });
    s.on('end', () => { ended = Date.now() - t0; done(); });
    s.on('error', () => { if (ended === null) ended = Date.now() - t0; done(); });
    s.write(head);
  });
}

before(h.flat(async () => {
  brock = await h.startBrock({ state: path.join(tmp, 'state'), global: ['--no-seed'],
                               args: ['--no-update'] });
  const r = await run('curl', ['-s', '--max-time', '10', `http://127.0.0.1:${brock.port}/`]);
  token = /<meta name="brock-token" content="([0-9a-f]{64})">/.exec(r.stdout)[1];
}));

after(async () => {
  if (brock) await brock.stop();
});

check('huge bodies to brock are refused from their heads, unread, and hold no memory',
      async () => {
  const host = `Host: 127.0.0.1:${brock.port}\r\n`;
  const big = 'Content-Length: 67000000\r\n';
  const cases = [
    // No such page, eight times over: the attack, as the issue measured it.
    ...Array.from({ length: 8 }, () => [`POST /no-such-page HTTP/1.1\r\n${host}${big}\r\n`,
                                        404]),
    // A foreign name (DNS rebinding), a method the route does not take, a change without the
    // token, a body larger than a change takes, a body where none is taken.
    [`POST /api/import HTTP/1.1\r\nHost: rebound.example:${brock.port}\r\n${big}\r\n`, 403],
    [`PUT /api/status HTTP/1.1\r\n${host}${big}\r\n`, 405],
    [`POST /api/import HTTP/1.1\r\n${host}${big}\r\n`, 403],
    [`PUT /api/settings HTTP/1.1\r\n${host}X-Brock-Token: ${token}\r\n${big}\r\n`, 413],
    [`POST /api/reset HTTP/1.1\r\n${host}X-Brock-Token: ${token}\r\n${big}\r\n`, 413],
    [`GET /api/status HTTP/1.1\r\n${host}${big}\r\n`, 413],
    [`POST /api/import HTTP/1.1\r\n${host}X-Brock-Token: ${token}\r\n` +
     'Content-Length: 67108865\r\n\r\n', 413],
  ];
  const rss0 = h.rssKiB(brock.proc.pid);
  let peak = rss0;
  const watch = setInterval(() => { peak = Math.max(peak, h.rssKiB(brock.proc.pid)); }, 20);
  let results;
  try {
    results = await Promise.all(cases.map(([head]) => trickle(head, 67000000)));
  } finally {
    clearInterval(watch);
  }
  peak = Math.max(peak, h.rssKiB(brock.proc.pid));
  process.stdout.write(`# RSS ${rss0} KiB before, ${peak} KiB at most with ${cases.length} ` +
                       'huge bodies sent\n');
  // AddressSanitizer's shadow alone passes 64 MB: there, only what brock grew by counts.
  const asan = /libasan|libclang_rt\.asan/.test(fs.readFileSync(`/proc/${brock.proc.pid}/maps`,
                                                                'utf8'));
  assert.ok(asan ? peak - rss0 < 32 * 1024 : peak < 64 * 1024,
            `brock's RSS went from ${rss0} KiB to ${peak} KiB`);
  cases.forEach(([head, status], i) => {
    const r = results[i];
    const what = head.split('\r\n')[0];
    assert.match(r.text, new RegExp(`^HTTP/1\\.1 ${status} `), `${what}: ${r.text.slice(0, 200)}`);
    assert.match(r.text, /^connection: close\r$/mi, what);
    assert.ok(r.answered !== null && r.answered < 2000, `${what} answered after ${r.answered} ms`);
    assert.ok(r.ended !== null && r.ended < 3000, `${what}: connection ended after ${r.ended} ms`);
    assert.ok(r.sent < 8 * 1024 * 1024, `${what}: ${r.sent} bytes sent before the answer`);
  });
  // brock goes on serving.
  const ok = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '--max-time', '10',
                                `http://127.0.0.1:${brock.port}/api/status`]);
  assert.equal(ok.stdout, '200');
});

check('a chunked body past what its route takes is refused as it comes', async () => {
  const chunk = 'x'.repeat(32 * 1024);
  const body = `${chunk.length.toString(16)}\r\n${chunk}\r\n`.repeat(3) + '0\r\n\r\n';
  const r = await h.raw(brock.port, `PUT /api/settings HTTP/1.1\r\nHost: 127.0.0.1:${brock.port}` +
                                    `\r\nX-Brock-Token: ${token}\r\nTransfer-Encoding: chunked` +
                                    `\r\n\r\n${body}`, { wait: 5000 });
  assert.match(r.text, /^HTTP\/1\.1 413 /);
  assert.match(r.text, /larger than this request takes/);
  assert.equal(r.closed, true);
  // A change within it, on a kept connection, then another request on it.
  const small = '{"learn": true}';
  const k = await h.raw(brock.port, `PUT /api/settings HTTP/1.1\r\nHost: 127.0.0.1:${brock.port}` +
                                    `\r\nX-Brock-Token: ${token}\r\nContent-Length: ` +
                                    `${small.length}\r\n\r\n${small}GET /api/status HTTP/1.1\r\n` +
                                    `Host: 127.0.0.1:${brock.port}\r\nConnection: close\r\n\r\n`,
                        { wait: 5000 });
  assert.equal(k.text.match(/^HTTP\/1\.1 200 /gm).length, 2, k.text.slice(0, 400));
});

check('a large import streams to a file and is merged', async () => {
  // A valid Privacy Badger export of some 40 MB: 20,000 trackers seen on three sites each,
  // and whitespace a writer may put between them.
  const file = path.join(tmp, 'export.json');
  const fd = fs.openSync(file, 'w');
  const pad = ' '.repeat(1500);
  fs.writeSync(fd, '{"action_map": {');
  for (let i = 0; i < 20000; i++)
    fs.writeSync(fd, `${i ? ',' : ''}"big${i}.test": {"heuristicAction": "block", "dnt": false,` +
                     ` "userAction": "", "nextUpdateTime": 0}${pad}`);
  fs.writeSync(fd, '}, "snitch_map": {');
  for (let i = 0; i < 20000; i++)
    fs.writeSync(fd, `${i ? ',' : ''}"big${i}.test": ["a${i}.example", "b${i}.example", ` +
                     `"c${i}.example"]${pad}`);
  fs.writeSync(fd, '}}\n');
  fs.closeSync(fd);
  const size = fs.statSync(file).size;
  assert.ok(size > 32 * 1024 * 1024 && size < 64 * 1024 * 1024, `${size} bytes`);
  const r = await run('curl', ['-s', '--max-time', '120', '-X', 'POST',
                               '-H', `X-Brock-Token: ${token}`, '--data-binary', `@${file}`,
                               `http://127.0.0.1:${brock.port}/api/import`], { timeout: 130000 });
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.entries, 20000, r.stdout);
  assert.equal(out.recorded, 60000);
  const t = await run('curl', ['-s', '--max-time', '10',
                               `http://127.0.0.1:${brock.port}/api/trackers/big19999.test`]);
  assert.equal(JSON.parse(t.stdout).action, 'block');
  // Nothing of it stays behind in the state folder.
  assert.deepEqual(fs.readdirSync(path.join(tmp, 'state')).filter((n) => !/^brock\.db/.test(n)),
                   []);
}, 150000);
