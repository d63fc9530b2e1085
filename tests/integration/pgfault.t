#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The shared PostgreSQL store riding out a database that is slow, stopped or killed
// (tests/pg-server, a real server started and stopped by the test): brock keeps answering at
// once and learning in memory, says so in its log and on /api/status, and writes everything
// when the database is back, where a second instance finds it; without a usable libpq.so.5
// the store is refused, naming it. Skipped, saying why, only when PostgreSQL's binaries are
// missing.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');
const { check, tmpdir, startBrock, run, brock, waitFor, track, trackerHit, pg, startPg } =
  require('./harness.js');
const { startOrigin } = require('./origin.js');

let origin, pgDir, conninfo, skip;
const instances = [];

before(async () => {
  origin = await startOrigin();
  ({ dir: pgDir, conninfo, skip } = startPg('pgfault'));
});

after(async () => {
  for (const b of instances.splice(0)) await b.stop();
  if (conninfo) pg('stop', pgDir);
  if (origin) await origin.close();
});

const resolve = () => ['--no-update', '--resolve', `*.test=127.0.0.1:${origin.port}`];

async function instance() {
  const b = await startBrock({ state: tmpdir('pgfault-state'), global: ['--store', conninfo],
                               args: resolve() });
  instances.push(b);
  return b;
}

// One tracker request from a page of site: { status, ms } (trackerHit()).
const hit = (port, tracker, site) => trackerHit(port, tracker, site);

// The dashboard's /api/status "store" object.
function store(port) {
  return new Promise((done, fail) => {
    http.get({ host: '127.0.0.1', port, path: '/api/status', agent: false, timeout: 5000,
               headers: { Host: `127.0.0.1:${port}` } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => {
        try { done(JSON.parse(body).store); } catch (e) { fail(e); }
      });
    }).on('error', fail);
  });
}

const quantile = (v, q) => [...v].sort((x, y) => x - y)[Math.min(v.length - 1,
                                                                  Math.floor(q * v.length))];
const lines = (b, re) => b.log().split('\n').filter((l) => re.test(l)).length;

// Every tracker the database holds (domain -> brock list's row), through the command line.
async function listed() {
  const r = await brock(tmpdir('pgfault-cli'), ['--store', conninfo, 'list', '--json', '--all']);
  assert.equal(r.code, 0, r.stderr);
  return new Map(JSON.parse(r.stdout).map((x) => [x.domain, x]));
}

let a, b;

check('a new instance on a populated database loads it and serves within seconds', async (t) => {
  if (skip) { t.skip(skip); return; }
  a = await instance();
  await waitFor('the seed written', async () => (await store(a.port)).pending === 0, 20000);
  const t0 = Date.now();
  b = await instance();
  assert.equal((await hit(b.port, 'first.test', 'site1.test')).status, 200);
  const ms = Date.now() - t0;
  t.diagnostic(`second instance started on the seeded database and answered in ${ms} ms`);
  assert.ok(ms < 5000, `${ms} ms`);
  const st = await store(b.port);
  assert.equal(st.backend, 'postgresql');
  assert.equal(st.connected, true);
}, 60000);

check('a slow database slows no request', async (t) => {
  if (skip) { t.skip(skip); return; }
  // Another session holds the writers' lock for 3 s: every write waits for it.
  const holder = track(spawn('psql', [conninfo, '-qc',
                                      'SELECT pg_advisory_lock(422827204459), pg_sleep(3)'],
                                     { stdio: 'ignore' }));
  await new Promise((r) => setTimeout(r, 300));
  const ms = [];
  const t0 = Date.now();
  for (let i = 0; Date.now() - t0 < 2500; i++)
    ms.push((await hit(a.port, `slow${i % 5}.test`, `site${i}.test`)).ms);
  await new Promise((r) => holder.on('exit', r));
  t.diagnostic(`while the database made writes wait 3 s: ${ms.length} requests, ` +
               `p50 ${quantile(ms, 0.5).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`);
  assert.ok(Math.max(...ms) < 500, `max ${Math.max(...ms)} ms`);
  await waitFor('the waiting changes written', async () => (await store(a.port)).pending === 0,
                10000);
}, 60000);

check('the database stopped: brock serves and learns, and writes it all when it is back',
      async (t) => {
  if (skip) { t.skip(skip); return; }
  const normal = [];
  for (let i = 0; i < 30; i++) normal.push((await hit(a.port, 'calm.test', `site${i}.test`)).ms);
  pg('down', pgDir, 'fast');
  await waitFor('A says the database is lost', async () => !(await store(a.port)).connected,
                5000);
  const down = Date.now();
  const during = [];
  for (const site of ['site1.test', 'site2.test', 'site3.test'])
    during.push((await hit(a.port, 'outage.test', site)).ms);
  for (let i = 0; Date.now() - down < 3000; i++)
    during.push((await hit(a.port, `dark${i % 10}.test`, `site${i}.test`)).ms);
  // Learned in memory: blocked at once on A.
  assert.equal((await hit(a.port, 'outage.test', 'site4.test')).status !== 200, true);
  const st = await store(a.port);
  assert.equal(st.connected, false);
  assert.ok(st.pending > 0, JSON.stringify(st));
  assert.match(st.last_error, /\S/);
  t.diagnostic(`requests: normal p50 ${quantile(normal, 0.5).toFixed(1)} ms, p95 ` +
               `${quantile(normal, 0.95).toFixed(1)} ms; database stopped p50 ` +
               `${quantile(during, 0.5).toFixed(1)} ms, p95 ${quantile(during, 0.95).toFixed(1)} ` +
               `ms (${during.length} requests); ${st.pending} changes waiting`);
  assert.ok(quantile(during, 0.95) < 200, `p95 ${quantile(during, 0.95)} ms`);

  const up = Date.now();
  pg('up', pgDir, String(process.pid));
  const started = Date.now();
  await waitFor('A connected again, nothing left to write', async () => {
    const s = await store(a.port);
    return s.connected && s.pending === 0;
  }, 40000);
  t.diagnostic(`server started in ${started - up} ms; A connected and wrote everything ` +
               `${Date.now() - started} ms after`);
  const rows = await listed();
  const row = rows.get('outage.test');
  assert.ok(row, 'outage.test is in the database');
  for (const s of ['site1.test', 'site2.test', 'site3.test'])
    assert.ok(row.sites.includes(s), `${s} in ${row.sites}`);
  assert.equal(row.action, 'block');
  for (let i = 0; i < 10; i++) assert.ok(rows.has(`dark${i}.test`), `dark${i}.test`);
  // B, cut off too, catches up from the journal.
  await waitFor('B blocks what A learned while the database was down', async () =>
    (await hit(b.port, 'outage.test', 'site5.test')).status !== 200, 10000);
  assert.equal(lines(a, /brock: lost the PostgreSQL database/), 1, a.log());
  assert.equal(lines(a, /brock: connected to the PostgreSQL database .* again/), 1, a.log());
}, 90000);

check('the database killed during writes: nothing learned is lost, nothing corrupt',
      async (t) => {
  if (skip) { t.skip(skip); return; }
  let stop = false, n = 0;
  const sites = new Map();
  const load = (async () => {
    while (!stop) {
      const tr = `burst${n % 20}.test`, site = `site${n}.test`;
      (sites.get(tr) || sites.set(tr, []).get(tr)).push(site);
      await hit(a.port, tr, site);
      n++;
    }
  })();
  await new Promise((r) => setTimeout(r, 1500));
  pg('down', pgDir, 'kill');
  await new Promise((r) => setTimeout(r, 1500));
  pg('up', pgDir, String(process.pid));
  await new Promise((r) => setTimeout(r, 500));
  stop = true;
  await load;
  await waitFor('A connected again, nothing left to write', async () => {
    const s = await store(a.port);
    return s.connected && s.pending === 0;
  }, 40000);
  t.diagnostic(`${n} requests around a crash of the database`);
  const rows = await listed();
  for (const [tr, seen] of sites) {
    const row = rows.get(tr);
    assert.ok(row, `${tr} in the database`);
    // A blocked tracker is not learned from again; the three sites that blocked it are kept.
    const kept = seen.filter((s) => row.sites.includes(s));
    assert.ok(kept.length >= Math.min(3, seen.length), `${tr}: ${row.sites} of ${seen}`);
  }
  // The server's own check of brock's indexes against their tables (amcheck, shipped with
  // the server): a write half-done by the crash would show here.
  const checked = execFileSync('psql', [conninfo, '-Atqc',
    'CREATE EXTENSION IF NOT EXISTS amcheck; SELECT count(bt_index_check(c.oid, true))' +
    " FROM pg_class c WHERE c.relname LIKE 'brock_%' AND c.relkind = 'i'"],
  { encoding: 'utf8', timeout: 20000 });
  assert.ok(Number(checked.trim()) >= 8, checked);
  const missing = [];
  try {
    await waitFor('B agrees on every tracker', async () => {
      missing.length = 0;
      for (const tr of sites.keys())
        if ((await hit(b.port, tr, 'site-last.test')).status === 200) missing.push(tr);
      return missing.length === 0;
    }, 10000);
  } catch (e) {
    throw new Error(`${e.message}: ${missing} ${JSON.stringify(await store(b.port))} ${b.log()}`);
  }
}, 90000);

check('an instance killed during writes: what it learned before its last two seconds is kept',
      async (t) => {
  if (skip) { t.skip(skip); return; }
  const c = await instance();
  instances.splice(instances.indexOf(c), 1);
  // A new tracker at each request, so that learning never stops (a blocked one teaches no more).
  const answered = [];
  let stop = false, n = 0;
  const load = (async () => {
    while (!stop) {
      const tr = `gone${n}.test`, site = `site${n % 7}.test`;
      n++;
      try {
        if ((await hit(c.port, tr, site)).status === 200) answered.push([tr, site, Date.now()]);
      } catch {
        break;
      }
    }
  })();
  await new Promise((r) => setTimeout(r, 3500));
  const killedAt = Date.now();
  c.proc.kill('SIGKILL');
  stop = true;
  assert.equal((await c.exited).signal, 'SIGKILL');
  await load;
  const due = answered.filter(([, , ms]) => ms < killedAt - 2000);
  t.diagnostic(`${answered.length} trackers learned, ${due.length} of them before the last 2 s`);
  assert.ok(due.length >= 20, `${due.length} of ${answered.length}`);
  const rows = await listed();
  const lost = due.filter(([tr, site]) => !(rows.get(tr) && rows.get(tr).sites.includes(site)));
  assert.deepEqual(lost, []);
}, 60000);

check('a change the database refuses for good is left out, and the rest is written',
      async (t) => {
  if (skip) { t.skip(skip); return; }
  // A rule of the database's own that one of brock's rows breaks (as a value it cannot keep
  // would): retrying that batch could never succeed.
  const psql = (sql) => execFileSync('psql', [conninfo, '-qc', sql], { timeout: 20000 });
  psql("ALTER TABLE brock_snitch ADD CONSTRAINT refuse_one CHECK (site <> 'refused.test')");
  try {
    for (const site of ['site-r1.test', 'refused.test', 'site-r2.test'])
      assert.equal((await hit(a.port, 'picky.test', site)).status, 200);
    await hit(a.port, 'beside.test', 'site-r1.test');
    await waitFor('the batch written without the refused row', async () => {
      const s = await store(a.port);
      return s.refused >= 1 && s.pending === 0;
    }, 20000);
    const st = await store(a.port);
    assert.equal(st.refused, 1, JSON.stringify(st));
    assert.equal(st.connected, true);
    assert.match(st.last_error, /refused 1 change for good.*refuse_one/);
    // Writing goes on after it.
    await hit(a.port, 'later.test', 'site-r3.test');
    await waitFor('a later change written', async () => (await store(a.port)).pending === 0,
                  20000);
    const rows = await listed();
    assert.deepEqual([...rows.get('picky.test').sites].sort(), ['site-r1.test', 'site-r2.test']);
    assert.ok(rows.has('beside.test') && rows.has('later.test'));
    assert.equal(lines(a, /brock: writing the state to .*refused 1 change for good/), 1, a.log());
  } finally {
    psql('ALTER TABLE brock_snitch DROP CONSTRAINT refuse_one');
  }
}, 60000);

check('an instance started while the database is down refuses, saying why', async (t) => {
  if (skip) { t.skip(skip); return; }
  pg('down', pgDir, 'fast');
  try {
    const r = await brock(tmpdir('pgfault-cli'), ['--store', conninfo, 'run', '--listen',
                                                   '127.0.0.1:0']);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /cannot connect to the PostgreSQL database/);
    assert.match(r.stderr, /does not start without the state it shares/);
  } finally {
    pg('up', pgDir, String(process.pid));
  }
}, 60000);

check('without libpq.so.5, or with one that lacks a function, the store is refused, naming it, ' +
      'and nothing is written', async () => {
  const dir = tmpdir('pgfault-libpq');
  const none = path.join(dir, 'none'), old = path.join(dir, 'old');
  fs.mkdirSync(none);
  fs.mkdirSync(old);
  // A file by the library's name that is no library, and a library with one of its functions.
  fs.writeFileSync(path.join(none, 'libpq.so.5'), '');
  fs.writeFileSync(path.join(dir, 'old.c'),
                   'int PQclear(void);\nint PQclear(void) { return 0; }\n');
  const cc = await run(process.env.CC || 'cc', ['-shared', '-fPIC', '-o',
                                                path.join(old, 'libpq.so.5'),
                                                path.join(dir, 'old.c')]);
  assert.equal(cc.code, 0, cc.stderr);
  const want = [
    [none, /PostgreSQL store: cannot load libpq\.so\.5 \(install libpq5\): .*libpq\.so\.5/],
    [old, /PostgreSQL store: libpq\.so\.5 has no function PQconnectdbParams \(libpq 14 or newer/],
  ];
  for (const [lib, re] of want) {
    const r = await brock(tmpdir('pgfault-cli'), ['--store', conninfo || 'dbname=none',
                                                   'set', 'nolibpq.test', 'block'],
                          { env: { LD_LIBRARY_PATH: lib } });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, re);
  }
  if (conninfo) assert.ok(!(await listed()).has('nolibpq.test'));
}, 60000);

check('both instances stop cleanly', async (t) => {
  if (skip) { t.skip(skip); return; }
  for (const x of instances.splice(0)) {
    const r = await x.stop();
    assert.deepEqual(r, { code: 0, signal: null }, x.log());
  }
}, 60000);
