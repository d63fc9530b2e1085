#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Three brock instances on one PostgreSQL database (tests/pg-server), an HAProxy in front of
// them (mode tcp, send-proxy-v2) started by the test from a configuration it writes into a
// temporary folder and stopped by its pid whatever happens; the instances take the
// balancer's PROXY header (--proxy-protocol-from). A tracker seen on two sites through
// instance A and a third through instance B is blocked on instance C; through the balanced
// front (balance source) each client is served as itself: the instance names it in its log,
// learns from the pages it opened, and --allow is checked against it. Skipped, saying why,
// only when PostgreSQL's binaries or haproxy are missing.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { check, tmpdir, track, startBrock, freePort, waitFor, pg, startPg } = require('./harness.js');
const { startOrigin } = require('./origin.js');

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((f) => fs.existsSync(f));
let origin, pgDir, conninfo, skip, haproxy;
const instances = [];
const fronts = {}; // name -> the port HAProxy listens on

// A free loopback port (bound, then released for HAProxy).
before(async () => {
  if (!HAPROXY) {
    skip = 'haproxy is not installed (Debian package haproxy)';
    return;
  }
  origin = await startOrigin();
  ({ dir: pgDir, conninfo, skip } = startPg('front'));
});

after(async () => {
  if (haproxy && haproxy.exitCode === null && haproxy.signalCode === null) {
    const gone = new Promise((r) => haproxy.on('exit', r));
    haproxy.kill('SIGTERM');
    const t = setTimeout(() => haproxy.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(t);
  }
  for (const b of instances.splice(0)) await b.stop();
  if (conninfo) pg('stop', pgDir);
  if (origin) await origin.close();
});

// An instance on the shared database, taking PROXY headers from HAProxy (127.0.0.1) and
// serving the clients 127.0.0.0/29 (127.0.0.1 to .7).
async function instance() {
  const b = await startBrock({ state: tmpdir('front-state'), global: ['--store', conninfo,
                                                                      '--no-seed'],
                               args: ['--no-update', '--resolve',
                                      `*.test=127.0.0.1:${origin.port}`,
                                      '--proxy-protocol-from', '127.0.0.1',
                                      '--allow', '127.0.0.0/29', '-v'] });
  instances.push(b);
  return b;
}

// HAProxy's configuration: a front for each instance alone (a, b, c), and one balanced over
// the three by the client's address (all), each passing the client on with send-proxy-v2; the
// balanced one checks the instances' health twice a second with a header of its own (LOCAL).
function haproxyConfig(ports) {
  const lines = ['global', '    maxconn 256', 'defaults', '    mode tcp',
                 '    timeout connect 5s', '    timeout client 30s', '    timeout server 30s'];
  const names = ['a', 'b', 'c'];
  names.forEach((n, i) => {
    lines.push(`frontend front_${n}`, `    bind 127.0.0.1:${fronts[n]}`,
               `    default_backend only_${n}`,
               `backend only_${n}`, `    server ${n} 127.0.0.1:${ports[i]} send-proxy-v2`);
  });
  lines.push('frontend front_all', `    bind 127.0.0.1:${fronts.all}`, '    default_backend fleet',
             'backend fleet', '    balance source',
             ...names.map((n, i) => `    server ${n} 127.0.0.1:${ports[i]} send-proxy-v2 ` +
                                    'check check-send-proxy inter 500ms'));
  return lines.join('\n') + '\n';
}

const NAV = { 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document',
              'Sec-Fetch-Site': 'none' };

// A request for url through the proxy on port from the client address local; resolves with
// the status.
function getFrom(local, port, url, headers = {}) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: '127.0.0.1', port, localAddress: local, path: url,
                               agent: false, timeout: 10000,
                               headers: { Host: u.host, ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('timeout', () => req.destroy(new Error(`${url}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

// Client local opens site through the front on port, then loads tracker's pixel from it;
// resolves with the pixel's status.
async function hit(local, port, tracker, site) {
  assert.equal(await getFrom(local, port, `http://${site}/`, NAV), 200);
  return getFrom(local, port, `http://${tracker}/pixel.gif`,
                 { Referer: `http://${site}/`, Cookie: 'uid=5be0c7d2a19f43e8' });
}

check('three instances on one database start behind HAProxy', async (t) => {
  if (skip) { t.skip(skip); return; }
  const ports = [];
  for (let i = 0; i < 3; i++) ports.push((await instance()).port);
  for (const n of ['a', 'b', 'c', 'all']) fronts[n] = await freePort();
  const dir = tmpdir('front-haproxy');
  const cfg = path.join(dir, 'haproxy.cfg');
  fs.writeFileSync(cfg, haproxyConfig(ports));
  execFileSync(HAPROXY, ['-c', '-q', '-f', cfg], { timeout: 10000 });
  let log = '';
  haproxy = track(spawn(HAPROXY, ['-db', '-f', cfg], { stdio: ['ignore', 'ignore', 'pipe'] }));
  haproxy.stderr.on('data', (d) => { log += d; });
  // Ready once the balanced front answers through an instance.
  await waitFor(`HAProxy serving (${log})`, async () => {
    try {
      return await getFrom('127.0.0.2', fronts.all, 'http://ready.test/') === 200;
    } catch {
      return false;
    }
  }, 10000);
}, 60000);

check('a tracker seen on two sites through A and a third through B is blocked on C',
      async (t) => {
  if (skip) { t.skip(skip); return; }
  assert.equal(await hit('127.0.0.2', fronts.a, 'tracker1.test', 'site1.test'), 200);
  assert.equal(await hit('127.0.0.2', fronts.a, 'tracker1.test', 'site2.test'), 200);
  assert.equal(await hit('127.0.0.2', fronts.b, 'tracker1.test', 'site3.test'), 200);
  const t0 = Date.now();
  await waitFor('tracker1.test blocked on C', async () =>
    await hit('127.0.0.3', fronts.c, 'tracker1.test', 'site4.test') !== 200, 5000);
  t.diagnostic(`blocked on C ${Date.now() - t0} ms after the third site`);
  // Each instance saw the client itself, not HAProxy.
  const [a, b] = instances;
  assert.match(a.log(), /brock: 127\.0\.0\.2 GET tracker1\.test 200/);
  assert.match(b.log(), /brock: 127\.0\.0\.2 GET site3\.test 200/);
  for (const x of instances) assert.doesNotMatch(x.log(), /brock: 127\.0\.0\.1 GET site\d\.test/);
}, 30000);

check('through the balanced front each client is served as itself', async (t) => {
  if (skip) { t.skip(skip); return; }
  // Client .4 opens three sites and loads tracker2's pixel from each: the instance it is
  // balanced to knows the pages are .4's, learns, and blocks it on the fourth.
  for (const s of ['site5.test', 'site6.test', 'site7.test'])
    assert.equal(await hit('127.0.0.4', fronts.all, 'tracker2.test', s), 200);
  await waitFor('tracker2.test blocked for .4', async () =>
    await hit('127.0.0.4', fronts.all, 'tracker2.test', 'site8.test') !== 200, 5000);
  const served = instances.filter((x) => /brock: 127\.0\.0\.4 GET site5\.test 200/.test(x.log()));
  assert.equal(served.length, 1, 'one instance served client .4');
  // Client .5 loads tracker3's pixel on pages it never opened (.4 did): nothing learned.
  for (const s of ['site5.test', 'site6.test', 'site7.test'])
    assert.equal(await getFrom('127.0.0.5', fronts.all, 'http://tracker3.test/pixel.gif',
                               { Referer: `http://${s}/`, Cookie: 'uid=5be0c7d2a19f43e8' }), 200);
  assert.equal(await hit('127.0.0.5', fronts.all, 'tracker3.test', 'site8.test'), 200);
  // --allow holds the client HAProxy names: 127.0.0.9 is outside 127.0.0.0/29.
  assert.equal(await getFrom('127.0.0.9', fronts.all, 'http://site9.test/'), 403);
  await waitFor('the refusal logged with the client\'s address', () => instances.some((x) =>
    /refused 127\.0\.0\.9:\d+ with 403: not in --allow/.test(x.log())), 5000);
  // HAProxy's health checks were served as its own connections, never refused.
  for (const x of instances)
    assert.doesNotMatch(x.log(), /\(--proxy-protocol-from\)|refused 127\.0\.0\.1/);
}, 30000);

check('the instances stop cleanly', async (t) => {
  if (skip) { t.skip(skip); return; }
  for (const b of instances.splice(0)) {
    const r = await b.stop();
    assert.deepEqual(r, { code: 0, signal: null }, b.log());
  }
});
