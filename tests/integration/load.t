#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Load and slow peers: 2,000 idle keep-alive clients held in bounded memory and still usable;
// slowloris clients cut at --header-timeout while others are served at once; an upstream that
// never answers, or answers a byte a second, gets 504 at --upstream-timeout without holding
// anyone else; running out of descriptors pauses accepting, never crashes. (The connection
// limits and floods: flood.t.)
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const { check, tmpdir, startBrock, waitFor, rssKiB } = require('./harness.js');
const { startOrigin } = require('./origin.js');

// A keep-alive client connection to the proxy: get() sends one request and resolves with
// { status, ms, body } once the whole response (Content-Length) arrived.
class Client {
  constructor(port) {
    this.sock = net.connect(port, '127.0.0.1');
    this.sock.setNoDelay(true);
    this.buf = Buffer.alloc(0);
    this.waiting = null;
    this.closed = false;
    this.ready = new Promise((resolve, reject) => {
      this.sock.once('connect', resolve);
      this.sock.once('error', reject);
    });
    this.sock.on('data', (d) => { this.buf = Buffer.concat([this.buf, d]); this.parse(); });
    this.sock.on('close', () => {
      this.closed = true;
      if (this.waiting) this.waiting.reject(new Error('closed: ' + this.buf.toString('latin1')));
      this.waiting = null;
    });
    this.sock.on('error', () => {});
  }

  parse() {
    if (!this.waiting) return;
    const text = this.buf.toString('latin1');
    const end = text.indexOf('\r\n\r\n');
    if (end < 0) return;
    const len = Number((/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end)) || [0, 0])[1]);
    if (this.buf.length < end + 4 + len) return;
    const w = this.waiting;
    this.waiting = null;
    const status = Number(text.slice(9, 12));
    const body = this.buf.subarray(end + 4, end + 4 + len).toString('latin1');
    this.buf = this.buf.subarray(end + 4 + len);
    w.resolve({ status, ms: Date.now() - w.t0, body });
  }

  get(url, wait = 10000) {
    return new Promise((resolve, reject) => {
      const host = new URL(url).host;
      const timer = setTimeout(() => reject(new Error(`no answer for ${url} in ${wait} ms`)),
                               wait);
      this.waiting = {
        t0: Date.now(),
        resolve: (r) => { clearTimeout(timer); resolve(r); },
        reject: (e) => { clearTimeout(timer); reject(e); },
      };
      this.sock.write(`GET ${url} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    });
  }

  close() { this.sock.destroy(); }
}

// Runs fn over items with at most n at a time.
async function pool(items, n, fn) {
  let next = 0;
  const out = new Array(items.length);
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
  return out;
}

// A connection that sends `data` one byte every `everyMs`; resolves with what came back,
// whether the peer closed, and when (ms after the first byte).
function trickle(port, data, everyMs, wait) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let got = '';
    let i = 0, t0 = 0, timer = null, settled = false;
    const done = (closed) => {
      if (settled) return;
      settled = true;
      clearInterval(timer);
      clearTimeout(limit);
      s.destroy();
      resolve({ text: got, closed, ms: Date.now() - t0 });
    };
    const limit = setTimeout(() => done(false), wait);
    s.on('connect', () => {
      t0 = Date.now();
      s.write(data[i++]);
      timer = setInterval(() => { if (i < data.length) s.write(data[i++]); }, everyMs);
    });
    s.on('data', (d) => { got += d.toString('latin1'); });
    s.on('end', () => done(true));
    s.on('close', () => done(true));
    s.on('error', () => done(true));
  });
}

// Origins that misbehave by the Host header: silent.test accepts and never answers,
// drip.test sends a valid response a byte a second.
function startSlowOrigin() {
  const socks = new Set();
  const timers = new Set();
  const server = net.createServer((s) => {
    socks.add(s);
    s.on('close', () => socks.delete(s));
    s.on('error', () => {});
    let head = '';
    s.on('data', (d) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n') || !/\r\nhost: *drip\.test/i.test(head)) return;
      const answer = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello';
      let i = 0;
      const t = setInterval(() => {
        if (i >= answer.length || s.destroyed) { clearInterval(t); timers.delete(t); return; }
        s.write(answer[i++]);
      }, 1000);
      timers.add(t);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({
      port: server.address().port,
      close() {
        for (const t of timers) clearInterval(t);
        for (const s of socks) s.destroy();
        return new Promise((r) => server.close(r));
      },
    }));
  });
}

const quick = (ms) => (r) => { assert.equal(r.status, 200); assert.ok(r.ms < ms, `${r.ms} ms`); };

check('2,000 idle keep-alive connections stay under 64 MiB and stay usable', async () => {
  const origin = await startOrigin();
  // All from one address: no cap per address here.
  const b = await startBrock({ state: tmpdir('load-idle'),
                               args: ['-q', '--no-update', '--max-client-connections', '0',
                                      '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  const clients = [];
  try {
    const base = rssKiB(b.proc.pid);
    for (let i = 0; i < 2000; i++) clients.push(new Client(b.port));
    await Promise.all(clients.map((c) => c.ready));
    const first = await pool(clients, 100, (c, i) => c.get(`http://site.test/?n=${i}`));
    for (const r of first) assert.equal(r.status, 200);
    await new Promise((r) => setTimeout(r, 500));
    const rss = rssKiB(b.proc.pid);
    const per = (rss - base) / 2000;
    console.log(`# RSS ${rss} KiB with 2000 idle connections (${base} KiB before, ` +
                `${per.toFixed(1)} KiB each)`);
    // A sanitizer build's shadow memory and redzones make the figure meaningless there.
    const asan = /libasan|libclang_rt\.asan/.test(fs.readFileSync(`/proc/${b.proc.pid}/maps`, 'utf8'));
    if (!asan) assert.ok(rss < 64 * 1024, `RSS ${rss} KiB`);
    assert.equal(clients.filter((c) => c.closed).length, 0, 'brock closed idle connections');
    // A second request on every 20th connection.
    const sample = clients.filter((_, i) => i % 20 === 0);
    const second = await pool(sample, 50, (c, i) => c.get(`http://site.test/?again=${i}`));
    for (const r of second) {
      assert.equal(r.status, 200);
      assert.match(r.body, /"host":"site.test"/);
    }
  } finally {
    for (const c of clients) c.close();
    await b.stop();
    await origin.close();
  }
}, 60000);

check('500 slowloris clients are cut at --header-timeout; others are served quickly',
      async () => {
  const origin = await startOrigin();
  const b = await startBrock({ state: tmpdir('load-loris'),
                               args: ['-q', '--no-update', '--header-timeout', '4',
                                      '--max-client-connections', '0',
                                      '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  try {
    const head = 'GET http://site.test/ HTTP/1.1\r\nHost: site.test\r\nX-Pad: ' +
                 'a'.repeat(200) + '\r\n\r\n';
    const loris = [];
    for (let i = 0; i < 500; i++) {
      loris.push(trickle(b.port, head, 2000 + (i % 2) * 1000, 12000));
      if (i % 50 === 49) await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 500));
    const c = new Client(b.port);
    await c.ready;
    const normal = [];
    for (let i = 0; i < 50; i++) {
      normal.push(await c.get(`http://site.test/?n=${i}`));
      await new Promise((r) => setTimeout(r, 40));
    }
    c.close();
    normal.forEach(quick(1000));
    const cut = await Promise.all(loris);
    for (const r of cut) {
      assert.ok(r.closed, 'a slowloris connection was never cut');
      assert.ok(r.text === '' || /^HTTP\/1\.1 408 /.test(r.text), r.text.slice(0, 80));
      assert.ok(r.ms >= 3500 && r.ms < 4000 + 2500, `cut after ${r.ms} ms`);
    }
    assert.ok(cut.filter((r) => /^HTTP\/1\.1 408 /.test(r.text)).length >= 450,
              'most slowloris clients got 408');
    const ms = normal.map((r) => r.ms).sort((x, y) => x - y);
    console.log(`# during 500 slowloris: p50 ${ms[25]} ms, max ${ms[49]} ms`);
  } finally {
    await b.stop();
    await origin.close();
  }
}, 60000);

check('a silent upstream and a dripping one get 504 at --upstream-timeout; others go on',
      async () => {
  const origin = await startOrigin();
  const slow = await startSlowOrigin();
  const b = await startBrock({ state: tmpdir('load-up'),
                               args: ['-q', '--no-update', '--upstream-timeout', '3',
                                      '--resolve', `silent.test=127.0.0.1:${slow.port}`,
                                      '--resolve', `drip.test=127.0.0.1:${slow.port}`,
                                      '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  try {
    const stuck = [];
    for (let i = 0; i < 20; i++) {
      const c = new Client(b.port);
      stuck.push(c.ready.then(() => c.get(`http://${i % 2 ? 'drip' : 'silent'}.test/${i}`))
        .finally(() => c.close()));
    }
    const t0 = Date.now();
    const c = new Client(b.port);
    await c.ready;
    const normal = [];
    while (Date.now() - t0 < 2500) {
      normal.push(await c.get(`http://site.test/?t=${Date.now()}`));
      await new Promise((r) => setTimeout(r, 50));
    }
    c.close();
    assert.ok(normal.length >= 10);
    normal.forEach(quick(1000));
    const got = await Promise.all(stuck);
    for (const r of got) {
      assert.equal(r.status, 504, r.body);
      assert.ok(r.ms >= 2800 && r.ms < 5000, `504 after ${r.ms} ms`);
      assert.match(r.body, /did not answer within 3 s/);
    }
  } finally {
    await b.stop();
    await slow.close();
    await origin.close();
  }
}, 30000);

check('out of descriptors, brock pauses accepting, stays up and recovers', async () => {
  const origin = await startOrigin();
  // 24 descriptors: about ten left once brock runs, fewer than the fewest connections it
  // serves with (16), so silent clients, holding no upstream, run accepting out of them
  // before the connection limit is reached. (Clients that send requests would as often run
  // out at the upstream's connect, a 502, which is no test of accepting.)
  const b = await startBrock({ state: tmpdir('load-fd'),
                               wrap: ['prlimit', '--nofile=24:24', '--'],
                               args: ['--no-update',
                                      '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  const socks = [];
  try {
    for (let i = 0; i < 40; i++) {
      const s = net.connect(b.port, '127.0.0.1');
      s.on('error', () => {});
      socks.push(s);
    }
    await waitFor('the accept failure to be logged',
                  () => /accept failed: Too many open files/.test(b.log()), 10000)
      .catch((e) => { throw new Error(`${e.message}; brock said:\n${b.log()}`); });
    for (const s of socks) s.destroy();
    assert.equal(b.proc.exitCode, null, 'brock exited');
    // Accepting resumes within about a second, and works.
    const r = await waitFor('a normal request', async () => {
      const c = new Client(b.port);
      try {
        await c.ready;
        return await c.get('http://site.test/?after=1', 3000);
      } catch {
        return null;
      } finally {
        c.close();
      }
    }, 15000);
    assert.equal(r.status, 200);
    assert.equal(b.proc.exitCode, null, 'brock exited');
  } finally {
    for (const s of socks) s.destroy();
    await b.stop();
    await origin.close();
  }
}, 40000);

check('a peer that takes nothing holds brock to its buffer limits, both ways', async () => {
  const origin = await startOrigin();
  // An upstream that accepts and reads nothing.
  const stuck = new Set();
  const sink = net.createServer((s) => { stuck.add(s); s.pause(); s.on('error', () => {}); });
  await new Promise((r) => sink.listen(0, '127.0.0.1', r));
  const b = await startBrock({ state: tmpdir('load-stall'),
                               args: ['-q', '--no-update',
                                      '--resolve', `sink.test=127.0.0.1:${sink.address().port}`,
                                      '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  const size = 64 << 20;
  const socks = [];
  try {
    const base = rssKiB(b.proc.pid);
    // A client that asks for 64 MiB and reads none of it.
    const down = net.connect(b.port, '127.0.0.1');
    socks.push(down);
    down.on('error', () => {});
    down.pause();
    down.write(`GET http://big.test/bytes?n=${size} HTTP/1.1\r\nHost: big.test\r\n\r\n`);
    // And one that sends 64 MiB to the upstream that reads none of it.
    const up = net.connect(b.port, '127.0.0.1');
    socks.push(up);
    up.on('error', () => {});
    up.write(`POST http://sink.test/ HTTP/1.1\r\nHost: sink.test\r\nContent-Length: ${size}\r\n\r\n`);
    for (let i = 0; i < 64; i++) up.write(Buffer.alloc(1 << 20, 'x'));
    await waitFor('the sink to be connected', () => stuck.size > 0, 5000);
    await new Promise((r) => setTimeout(r, 3000));
    const grown = rssKiB(b.proc.pid) - base;
    console.log(`# RSS grew ${grown} KiB while holding 2 x 64 MiB back`);
    // A sanitizer build's shadow memory and redzones make the figure meaningless there.
    const asan = /libasan|libclang_rt\.asan/.test(fs.readFileSync(`/proc/${b.proc.pid}/maps`, 'utf8'));
    if (!asan) assert.ok(grown < 16 * 1024, `brock grew by ${grown} KiB`);
    assert.equal(b.proc.exitCode, null);
  } finally {
    for (const s of socks) s.destroy();
    for (const s of stuck) s.destroy();
    await b.stop();
    await new Promise((r) => sink.close(r));
    await origin.close();
  }
}, 60000);
