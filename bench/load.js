// SPDX-License-Identifier: GPL-3.0-or-later
// The load half of bench/load, against one proxy: idle keep-alive connections held (and the
// proxy's memory with them), then normal requests timed while slowloris clients dribble
// heads. Prints one JSON object. Usage: node load.js PROXY_PORT PROXY_PID IDLE... .
'use strict';

const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');

const [proxyPort, pid, ...idleCounts] = process.argv.slice(2).map(Number);
const SLOW = Number(process.env.BENCH_SLOWLORIS || 500);
const NORMAL = Number(process.env.BENCH_NORMAL || 200);
// How long the slow clients keep dribbling before those still open are counted.
const HOLD_MS = Number(process.env.BENCH_HOLD || 20) * 1000;
// BENCH_IDLE_KEEP=1: each count of idle connections is opened beside those before (kept open
// until all are measured), so that the difference between two counts is what each further
// connection adds; else each count is closed before the next.
const KEEP = process.env.BENCH_IDLE_KEEP === '1';
const kept = [];
// How long the idle connections stay idle before the proxy's memory is read.
const IDLE_MS = Number(process.env.BENCH_IDLE_WAIT || 1) * 1000;
const body = Buffer.alloc(1024, 'b');

// A /proc/PID/status figure in KiB (VmRSS, RssAnon), summed over p and its children.
function rssKiB(p, field = 'VmRSS') {
  let total = 0;
  const kids = (() => {
    try { return fs.readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/); }
    catch { return []; }
  })();
  for (const q of [String(p), ...kids.filter(Boolean)]) {
    try {
      const m = new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync(`/proc/${q}/status`, 'utf8'));
      if (m) total += Number(m[1]);
    } catch { /* gone */ }
  }
  return total;
}

// One request on socket s through the proxy; resolves when its whole answer is in.
function ask(s, originPort) {
  return new Promise((resolve) => {
    let got = '';
    const onData = (d) => {
      got += d.toString('latin1');
      const end = got.indexOf('\r\n\r\n');
      const m = /content-length:\s*(\d+)/i.exec(got);
      if (end >= 0 && m && got.length >= end + 4 + Number(m[1])) {
        s.off('data', onData);
        resolve(/^HTTP\/1\.[01] 200/.test(got));
      }
    };
    s.on('data', onData);
    s.once('close', () => resolve(false));
    s.write(`GET http://127.0.0.1:${originPort}/1k HTTP/1.1\r\nHost: 127.0.0.1:${originPort}\r\n\r\n`);
  });
}

function connect() {
  return new Promise((resolve) => {
    const s = net.connect(proxyPort, '127.0.0.1', () => resolve(s));
    s.on('error', () => resolve(null));
  });
}

async function idle(n, originPort) {
  const socks = [];
  let ok = 0;
  for (let i = 0; i < n; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, n - i) }, connect));
    const answers = await Promise.all(batch.map((s) => (s ? ask(s, originPort) : false)));
    ok += answers.filter(Boolean).length;
    socks.push(...batch.filter(Boolean));
  }
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const rss = rssKiB(pid), anon = rssKiB(pid, 'RssAnon');
  const open = socks.filter((s) => !s.destroyed).length;
  if (KEEP) {
    kept.push(...socks);
  } else {
    for (const s of socks) s.destroy();
    await new Promise((r) => setTimeout(r, 1000));
  }
  return { connections: n, answered: ok, open, rss_kib: rss, anon_kib: anon };
}

async function slowloris(originPort) {
  const head = `GET http://127.0.0.1:${originPort}/1k HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: `;
  const slow = [];
  const start = Date.now();
  for (let i = 0; i < SLOW; i++) {
    const s = await connect();
    if (!s) continue;
    s.on('data', () => {});
    s.on('close', () => s.destroy());
    let at = 0;
    const t = setInterval(() => {
      if (s.destroyed) { clearInterval(t); return; }
      s.write(head[at % head.length]);
      at++;
    }, 2000 + (i % 10) * 100);
    slow.push({ s, t });
  }
  const times = [];
  let failed = 0;
  for (let i = 0; i < NORMAL; i++) {
    const s = await connect();
    const t0 = process.hrtime.bigint();
    const ok = s ? await ask(s, originPort) : false;
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    if (!ok) failed++;
    if (s) s.destroy();
  }
  await new Promise((r) => setTimeout(r, Math.max(0, HOLD_MS - (Date.now() - start))));
  const open = slow.filter((x) => !x.s.destroyed).length;
  for (const x of slow) { clearInterval(x.t); x.s.destroy(); }
  times.sort((a, b) => a - b);
  const q = (f) => times[Math.min(times.length - 1, Math.floor(f * times.length))];
  return { slow: SLOW, still_open: open, normal: NORMAL, failed,
           p50_ms: +q(0.5).toFixed(2), p99_ms: +q(0.99).toFixed(2) };
}

(async () => {
  const origin = http.createServer({ keepAliveTimeout: 600000 }, (req, res) => {
    res.writeHead(200, { 'Content-Length': body.length, 'Content-Type': 'text/plain' });
    res.end(body);
  });
  origin.maxConnections = 100000;
  await new Promise((r) => origin.listen(0, '127.0.0.1', r));
  const originPort = origin.address().port;
  const base = rssKiB(pid);
  const out = { base_rss_kib: base, base_anon_kib: rssKiB(pid, 'RssAnon'), idle: [] };
  for (const n of idleCounts) out.idle.push(await idle(n, originPort));
  for (const s of kept) s.destroy();
  // BENCH_SLOWLORIS=0: the idle connections alone (bench/memory).
  if (SLOW > 0) out.slowloris = await slowloris(originPort);
  console.log(JSON.stringify(out));
  origin.close();
  process.exit(0);
})();
