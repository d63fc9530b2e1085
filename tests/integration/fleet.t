#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Two brock instances on one PostgreSQL database (--store), the server started by the test
// from Debian's packages (tests/pg-server) and stopped by its pid whatever happens: a tracker
// seen on two sites through one instance and on a third through the other is blocked on both,
// and a `brock set` is in force on both within two seconds; import and export give what
// they give on the SQLite file. Skipped, saying why, only when
// PostgreSQL's binaries are missing.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { DATA, check, tmpdir, startBrock, brock, waitFor, trackerHit, pg, startPg } =
  require('./harness.js');
const { startOrigin } = require('./origin.js');

let origin, pgDir, conninfo, skip;
const instances = [];

before(async () => {
  origin = await startOrigin();
  ({ dir: pgDir, conninfo, skip } = startPg('fleet'));
});

after(async () => {
  for (const b of instances.splice(0)) await b.stop();
  if (conninfo) pg('stop', pgDir);
  if (origin) await origin.close();
});

const resolve = () => ['--no-update', '--resolve', `*.test=127.0.0.1:${origin.port}`];

// An instance on the shared database, with a state folder of its own (for its CA).
async function instance() {
  const b = await startBrock({ state: tmpdir('fleet-state'), global: ['--store', conninfo,
                                                                      '--no-seed'],
                               args: resolve() });
  instances.push(b);
  return b;
}

// The status of one tracker request from a page of site (trackerHit()).
const hit = async (port, tracker, site) => (await trackerHit(port, tracker, site)).status;

// How long (ms) until fn() holds, polled every 50 ms, at most ms.
async function timeUntil(what, fn, ms) {
  const t0 = Date.now();
  await waitFor(what, fn, ms);
  return Date.now() - t0;
}

let a, b;

check('two instances start on one new database', async (t) => {
  if (skip) { t.skip(skip); return; }
  a = await instance();
  b = await instance();
  const r = await brock(tmpdir('fleet-cli'), ['--store', conninfo, 'list', '--count']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim(), '0');
}, 60000);

check('a tracker seen on two sites through A and a third through B is blocked on both',
      async (t) => {
  if (skip) { t.skip(skip); return; }
  assert.equal(await hit(a.port, 'tracker1.test', 'site1.test'), 200);
  assert.equal(await hit(a.port, 'tracker1.test', 'site2.test'), 200);
  assert.equal(await hit(b.port, 'tracker1.test', 'site3.test'), 200);
  const ms = await timeUntil('tracker1.test blocked through A and B', async () =>
    await hit(a.port, 'tracker1.test', 'site4.test') !== 200 &&
    await hit(b.port, 'tracker1.test', 'site5.test') !== 200, 5000);
  t.diagnostic(`blocked on both ${ms} ms after the third site`);
  // Blocking needs each instance's memory alone; the database has what each learned once
  // its writer's next turn ran (each second), which a loaded machine may hold back.
  let r, row;
  await waitFor('the three sites in the database', async () => {
    r = await brock(tmpdir('fleet-cli'), ['--store', conninfo, 'list', '--json', '--action',
                                          'block']);
    assert.equal(r.code, 0, r.stderr);
    row = JSON.parse(r.stdout).find((x) => x.domain === 'tracker1.test');
    return row && ['site1.test', 'site2.test', 'site3.test'].every((s) => row.sites.includes(s));
  }, 10000);
}, 60000);

check('a brock set through one is in force on both within two seconds', async (t) => {
  if (skip) { t.skip(skip); return; }
  assert.equal(await hit(a.port, 'tracker2.test', 'site1.test'), 200);
  assert.equal(await hit(b.port, 'tracker2.test', 'site1.test'), 200);
  // Let both write what they learned (their sync runs every second), then choose.
  await new Promise((r) => setTimeout(r, 1200));
  const r = await brock(tmpdir('fleet-cli'), ['--store', conninfo, 'set', 'tracker2.test',
                                               'block']);
  assert.equal(r.code, 0, r.stderr);
  const ms = await timeUntil('the choice in force on A and B', async () =>
    await hit(a.port, 'tracker2.test', 'site2.test') !== 200 &&
    await hit(b.port, 'tracker2.test', 'site2.test') !== 200, 2000);
  t.diagnostic(`user_block in force on both after ${ms} ms`);
  const back = await brock(tmpdir('fleet-cli'), ['--store', conninfo, 'set', 'tracker1.test',
                                                  'allow']);
  assert.equal(back.code, 0, back.stderr);
  const ms2 = await timeUntil('allow in force on A and B', async () =>
    await hit(a.port, 'tracker1.test', 'site6.test') === 200 &&
    await hit(b.port, 'tracker1.test', 'site6.test') === 200, 2000);
  t.diagnostic(`user_allow in force on both after ${ms2} ms`);
}, 60000);

check('a connection string with a password is refused', async (t) => {
  if (skip) { t.skip(skip); return; }
  const r = await brock(tmpdir('fleet-cli'), ['--store', `${conninfo} password=hunter2`,
                                               'set', 'tracker3.test', 'block']);
  assert.notEqual(r.code, 0);
  assert.match(r.stderr, /holds a password/);
  assert.doesNotMatch(r.stderr, /hunter2/);
});

check('both instances stop cleanly, their last changes written', async (t) => {
  if (skip) { t.skip(skip); return; }
  for (const b of instances.splice(0)) {
    const r = await b.stop();
    assert.deepEqual(r, { code: 0, signal: null }, b.log());
  }
  const l = await brock(tmpdir('fleet-cli'), ['--store', conninfo, 'list', '--json', '--all']);
  assert.equal(l.code, 0, l.stderr);
  const rows = new Map(JSON.parse(l.stdout).map((x) => [x.domain, x]));
  assert.equal(rows.get('tracker1.test').action, 'user_allow');
  assert.equal(rows.get('tracker2.test').action, 'user_block');
  assert.ok(!rows.has('tracker3.test'), 'the refused command wrote nothing');
});

check('import and export work on the database as on the file', async (t) => {
  if (skip) { t.skip(skip); return; }
  execFileSync('psql', [conninfo, '-qc', 'CREATE DATABASE transfer'], { timeout: 20000 });
  const db = `${conninfo} dbname=transfer`;
  // A slice of the seed (every part of it: actions, snitch, tracking and fingerprinting maps),
  // so that each command loads little.
  const full = JSON.parse(fs.readFileSync(path.join(DATA, 'seed.json'), 'utf8'));
  const slice = (m, n) => Object.fromEntries(Object.entries(m || {}).slice(0, n));
  const seed = path.join(tmpdir('fleet-seed'), 'slice.json');
  fs.writeFileSync(seed, JSON.stringify({
    version: full.version, action_map: slice(full.action_map, 400),
    snitch_map: slice(full.snitch_map, 400), tracking_map: slice(full.tracking_map, 50),
    fp_scripts: slice(full.fp_scripts, 50),
  }));
  const file = tmpdir('fleet-sqlite');
  const viaDb = (args) => brock(tmpdir('fleet-cli'), ['--store', db, '--no-seed', ...args]);
  const viaFile = (args) => brock(file, ['--no-seed', ...args]);
  for (const args of [['import', seed]]) {
    const [x, y] = await Promise.all([viaDb(args), viaFile(args)]);
    assert.equal(x.code, 0, x.stderr);
    assert.equal(y.code, 0, y.stderr);
    assert.equal(x.stdout, y.stdout);
  }
  for (const format of ['pb', 'hosts']) {
    const [x, y] = await Promise.all([viaDb(['export', '--format', format]),
                                      viaFile(['export', '--format', format])]);
    assert.equal(x.code, 0, x.stderr);
    assert.ok(x.stdout.length > 500, `${format}: ${x.stdout.slice(0, 200)}`);
    assert.equal(x.stdout, y.stdout, `${format} differs`);
  }
}, 60000);

// Started as root, brock makes a state folder that does not exist yet and hands it to the
// user it becomes, with either store: the PostgreSQL store keeps nothing in it, but the
// folder is brock's all the same (the CA goes there).
check('as root: a new state folder under root\'s own is made and handed over, as on SQLite',
      async (t) => {
  if (skip) { t.skip(skip); return; }
  if (process.getuid() !== 0) { t.skip('brock gives up root only when started as root'); return; }
  const parent = tmpdir('fleet-new');
  assert.equal(fs.statSync(parent).mode & 0o777, 0o755);
  assert.equal(fs.statSync(parent).uid, 0);
  const made = {};
  for (const [name, store] of [['sqlite', []], ['postgresql', ['--store', conninfo]]]) {
    const state = path.join(parent, name);
    const b = await startBrock({ state, global: [...store, '--no-seed'], args: resolve() });
    try {
      const m = /running as the user \S+ \(uid (\d+)\)/.exec(
        await waitFor('the drop', () => /running as the user .*\n/.exec(b.log())?.[0], 5000));
      const st = fs.statSync(state);
      made[name] = { dir: st.isDirectory(), mode: (st.mode & 0o7777).toString(8),
                     uid: st.uid, user: Number(m[1]) };
    } finally {
      const r = await b.stop();
      assert.deepEqual(r, { code: 0, signal: null }, b.log());
    }
  }
  assert.deepEqual(made.sqlite, { dir: true, mode: '700', uid: made.sqlite.user,
                                  user: made.sqlite.user });
  assert.deepEqual(made.postgresql, made.sqlite);
}, 60000);
