#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// CONNECT tunnels that brock does not intercept, moved by splice(2) and, with no descriptors
// set aside for pipes, copied: large bodies both ways byte-exact, one end's close passed on
// while the other way goes on (half-close), a client that stops reading holds brock to a
// bounded memory and then gets every byte; and plain HTTP's large bodies and keep-alive after
// brock reads its sockets itself.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const h = require('./harness.js');
const { startOrigin, bytes, sha256 } = require('./origin.js');

const { check, flat } = h;
let origin, closer, spliced, copied;
const tmp = h.tmpdir('tunnel-t');

// An origin that reads until the client's end, then answers with the SHA-256 of what came
// and `n` bytes more (?n in the first line), and closes: it needs the half-close passed on.
function startCloser() {
  const server = net.createServer((s) => {
    const hash = crypto.createHash('sha256');
    let first = null;
    s.on('data', (d) => {
      if (first === null) first = d.toString('latin1').split('\n')[0];
      hash.update(d);
    });
    s.on('end', () => {
      const n = Number((/n=(\d+)/.exec(first || '') || [0, 0])[1]);
      s.write(hash.digest('hex') + '\n');
      s.end(bytes(n, 'closer'));
    });
    s.on('error', () => {});
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: server.address().port,
    close: () => new Promise((r) => server.close(r)),
  })));
}

function start(name, wrap) {
  return h.startBrock({ state: path.join(tmp, name), wrap, args: [
    '-v', '--no-update',
    '--resolve', `closer.test=127.0.0.1:${closer.port}`,
    '--resolve', `*.test=127.0.0.1:${origin.port}`,
  ] });
}

// A raw tunnel through brock on port to host:port; resolves with the socket once brock said
// 200, and any bytes after its answer.
function tunnel(port, target) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no CONNECT answer')); },
                             10000);
    const onData = (d) => {
      got = Buffer.concat([got, d]);
      const end = got.indexOf('\r\n\r\n');
      if (end < 0) return;
      clearTimeout(timer);
      s.off('data', onData);
      assert.match(got.subarray(0, end).toString('latin1'), /^HTTP\/1\.1 200 /);
      resolve(s);
    };
    s.on('data', onData);
    s.on('error', reject);
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

// Everything the socket sends until its end.
function readAll(s, ms = 30000) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no end')); }, ms);
    s.on('data', (d) => chunks.push(d));
    s.on('end', () => { clearTimeout(timer); resolve(Buffer.concat(chunks)); });
    s.on('error', (e) => { clearTimeout(timer); reject(e); });
  });
}

before(flat(async () => {
  origin = await startOrigin();
  closer = await startCloser();
  spliced = await start('spliced');
  // 120 descriptors: none set aside for pipes (one in 16 of those past brock's reserve of 64,
  // four a tunnel), so every tunnel copies.
  copied = await start('copied', ['prlimit', '--nofile=120:120', '--']);
}));

after(async () => {
  for (const b of [spliced, copied]) if (b) await b.stop();
  if (origin) await origin.close();
  if (closer) await closer.close();
});

for (const [name, b, how] of [['spliced', () => spliced, 'spliced'],
                              ['copied', () => copied, 'copied']]) {
  check(`large bodies cross a tunnel byte-exact both ways (${name})`, async () => {
    const n = 8 * 1024 * 1024 + 11;
    const down = await h.curl(b().port, ['-p', `http://site-a.test/bytes?n=${n}`]);
    assert.equal(down.connect, 200);
    assert.equal(down.body.length, n);
    assert.equal(sha256(down.body), sha256(bytes(n)));
    const file = path.join(tmp, `upload-${name}`);
    fs.writeFileSync(file, bytes(n, 'up'));
    const up = await h.curl(b().port, ['-p', '--data-binary', `@${file}`,
                                       'http://site-a.test/upload']);
    assert.equal(up.status, 200);
    const got = JSON.parse(up.body.toString());
    assert.equal(got.bodyLength, n);
    assert.equal(got.bodySha, sha256(bytes(n, 'up')));
    await h.waitFor('the tunnels to be logged', () =>
      (b().log().match(new RegExp(`tunnel to site-a\\.test ended: \\d+ bytes up, \\d+ down, ${how}`,
                                  'g')) || []).length >= 2, 5000);
  });

  check(`a client's close passes through a tunnel while the answer comes back (${name})`,
        async () => {
    const s = await tunnel(b().port, 'closer.test:80');
    const sent = Buffer.concat([Buffer.from('GET n=3000000\n'), bytes(3 << 20, 'half')]);
    const all = readAll(s);
    s.end(sent);
    const got = await all;
    const nl = got.indexOf('\n');
    assert.equal(got.subarray(0, nl).toString(), sha256(sent), 'the origin got every byte');
    const rest = got.subarray(nl + 1);
    assert.equal(rest.length, 3000000, 'and its answer came back whole after the close');
    assert.equal(sha256(rest), sha256(bytes(3000000, 'closer')));
  });

  check(`a client that stops reading holds a tunnel to bounded memory (${name})`, async () => {
    const n = 48 << 20;
    const s = await tunnel(b().port, 'site-b.test:80');
    const base = h.rssKiB(b().proc.pid);
    s.pause();
    s.write(`GET /bytes?n=${n}&seed=stall HTTP/1.1\r\nHost: site-b.test\r\nConnection: close\r\n\r\n`);
    await new Promise((r) => setTimeout(r, 2500));
    const grown = h.rssKiB(b().proc.pid) - base;
    console.log(`# RSS grew ${grown} KiB with the client not reading (${name})`);
    const asan = /libasan/.test(fs.readFileSync(`/proc/${b().proc.pid}/maps`, 'utf8'));
    if (!asan) assert.ok(grown < 16 * 1024, `brock grew by ${grown} KiB`);
    const all = readAll(s, 60000);
    s.resume();
    const got = await all;
    const body = got.subarray(got.indexOf('\r\n\r\n') + 4);
    assert.equal(body.length, n);
    assert.equal(sha256(body), sha256(bytes(n, 'stall')));
  }, 90000);
}

check('plain HTTP: large bodies both ways and keep-alive, byte-exact', async () => {
  const n = 6 * 1024 * 1024 + 3;
  const file = path.join(tmp, 'upload-plain');
  fs.writeFileSync(file, bytes(n, 'plain'));
  const proxy = ['-s', '-x', `http://127.0.0.1:${spliced.port}`, '-w', '%{num_connects} '];
  const r = await h.run('curl', [...proxy,
    '-o', path.join(tmp, 'd1'), `http://site-c.test/bytes?n=${n}`,
    '-o', path.join(tmp, 'd2'), `http://site-c.test/bytes?n=${n}&mode=chunked`,
    '--next', ...proxy, '-o', path.join(tmp, 'u1'), '--data-binary', `@${file}`,
    'http://site-c.test/upload']);
  assert.equal(r.code, 0);
  assert.deepEqual(r.stdout.trim().split(' ').map(Number), [1, 0, 0], 'one connection');
  for (const f of ['d1', 'd2']) assert.equal(sha256(fs.readFileSync(path.join(tmp, f))),
                                             sha256(bytes(n)), f);
  const got = JSON.parse(fs.readFileSync(path.join(tmp, 'u1'), 'utf8'));
  assert.equal(got.bodyLength, n);
  assert.equal(got.bodySha, sha256(bytes(n, 'plain')));
});
