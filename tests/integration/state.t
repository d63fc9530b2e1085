#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Keeping the state: its database deleted while brock browses (rm brock.db*), a backup put
// back over it (cp in place, mv), a command run as root on a state brock's service user owns,
// and a full disk at a new state's first start. Nothing learned may be lost, a restored
// backup's choices win, and every file keeps its owner and mode 0600.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const {
  DATA, BROCK, check, tmpdir, startBrock, run, brock, waitFor, trackerHit,
} = require('./harness.js');
const { startOrigin } = require('./origin.js');

let origin;

before(async () => { origin = await startOrigin(); });
after(async () => { if (origin) await origin.close(); });

const resolve = () => ['--no-update', '--resolve', `*.test=127.0.0.1:${origin.port}`];
const isRoot = process.getuid() === 0;

// The status of one tracker request from a page of site (trackerHit()).
const hit = async (port, tracker, site) => (await trackerHit(port, tracker, site)).status;

// Browses pairs [tracker, site]; each must pass (the tracker is still being learned).
async function browse(port, pairs) {
  for (const [tracker, site] of pairs)
    assert.equal(await hit(port, tracker, site), 200, `${tracker} on ${site}`);
}

// GET path from the dashboard's API, parsed.
// Until the store holds everything learned so far (a sync ran since), rather than a guess.
const written = (port) => waitFor('everything learned written', async () => {
  const st = (await api(port, '/api/status')).store;
  return st.pending === 0 && st.writing;
}, 10000);

function api(port, p) {
  return new Promise((done, fail) => {
    http.get({ host: '127.0.0.1', port, path: p, agent: false, timeout: 10000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => {
        try { done(JSON.parse(body)); } catch (e) { fail(new Error(`${p}: ${body}`)); }
      });
    }).on('error', fail);
  });
}

// domain -> { action, user, sites }, from `brock list --json --all`.
async function listed(state) {
  const r = await brock(state, ['list', '--json', '--all']);
  assert.equal(r.code, 0, r.stderr);
  const map = new Map();
  for (const row of JSON.parse(r.stdout)) {
    const sites = Array.isArray(row.sites) ? row.sites : String(row.sites || '').split(',');
    map.set(row.domain, { ...row, sites: new Set(sites.filter(Boolean)) });
  }
  return map;
}

function missing(map, pairs) {
  return pairs.filter(([t, s]) => {
    const base = t.split('.').slice(-2).join('.');
    return !(map.get(base) && map.get(base).sites.has(s));
  });
}

// The uid brock's files belong to: started as root, brock serves as nobody.
async function brockUid() {
  if (!isRoot) return process.getuid();
  const id = await run('id', ['-u', 'nobody']);
  assert.equal(id.code, 0, 'a user nobody to run as');
  return Number(id.stdout.trim());
}

// Every file in state belongs to uid and has mode 0600.
function assertFiles(state, uid) {
  const files = fs.readdirSync(state);
  assert.ok(files.includes('brock.db'), `no brock.db in ${state}: ${files.join(' ')}`);
  for (const f of files) {
    const st = fs.statSync(path.join(state, f));
    assert.equal(st.uid, uid, `${f} belongs to ${st.uid}, not ${uid}`);
    assert.equal(st.mode & 0o777, 0o600, `${f} has mode ${(st.mode & 0o777).toString(8)}`);
  }
}

async function assertSound(state) {
  const ic = await run('sqlite3', [path.join(state, 'brock.db'), 'PRAGMA integrity_check']);
  assert.equal(ic.code, 0, ic.stderr);
  assert.equal(ic.stdout.trim(), 'ok');
}

// A state folder inside a fresh folder open to brock's service user.
function stateDir(name) {
  const parent = tmpdir(name);
  fs.chmodSync(parent, 0o755);
  return path.join(parent, 'state');
}

const rmDb = (state) => {
  for (const f of ['brock.db', 'brock.db-wal', 'brock.db-shm'])
    fs.rmSync(path.join(state, f), { force: true });
};

// ---- the database deleted while brock browses ----

check('rm brock.db* while browsing: brock says so, writes it all anew, loses nothing',
  async () => {
    const state = stateDir('rm');
    const b = await startBrock({ state, args: ['-q', ...resolve()] });
    const seeded = (await api(b.port, '/api/status')).domains;
    assert.ok(seeded > 10000, `the seed: ${seeded} domains`);
    // Before the rm: two trackers on two sites each; the sync writes them.
    const early = [['px.early.test', 'site-a.test'], ['px.early.test', 'site-b.test'],
                   ['ads.second.test', 'site-a.test'], ['ads.second.test', 'site-c.test']];
    await browse(b.port, early);
    await waitFor('the first write', async () =>
      (await api(b.port, '/api/status')).store.last_write_ms > 0, 10000);
    await written(b.port);
    rmDb(state);

    const line = /the state database \S*brock\.db was deleted; writing the whole state to a new one/;
    await waitFor('the line about the deletion', () => line.test(b.log()), 10000);
    const st = (await api(b.port, '/api/status')).store;
    assert.equal(st.kind, 'file');
    assert.equal(st.recreated, 1);
    assert.equal(st.reloaded, 0);
    assert.match(st.event, line);
    assert.ok(st.event_ms > 0);

    // Learning goes on: a third site blocks early.test, a new tracker comes.
    const late = [['cdn.early.test', 'site-d.test'], ['px.late.test', 'site-a.test']];
    await browse(b.port, late);
    assert.equal(await hit(b.port, 'px.early.test', 'site-e.test'), 403);
    await written(b.port);
    assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
    assert.equal((b.log().match(line) || []).length, 1, b.log());
    assert.doesNotMatch(b.log(), /writing the state .*failed/);

    assertFiles(state, await brockUid());
    await assertSound(state);
    const map = await listed(state);
    assert.deepEqual(missing(map, [...early, ...late]), []);
    assert.equal(map.get('early.test').action, 'block');
    assert.ok(map.size >= seeded, `${map.size} domains after the restart, ${seeded} before`);
    // And a new start finds it whole.
    const again = await startBrock({ state, args: ['-q', ...resolve()] });
    assert.equal((await api(again.port, '/api/status')).domains, map.size);
    assert.equal(await hit(again.port, 'px.early.test', 'site-f.test'), 403);
    assert.deepEqual(await again.stop(), { code: 0, signal: null }, again.log());
  }, 90000);

// ---- a backup put back ----

// A backup taken while brock runs, choices and learning after it, then the backup put back by
// how (a function of the backup's path and the database's). The documented outcome: the
// backup's choices and settings win, what brock learned that the backup lacks is added.
async function restoreCase(name, putBack) {
  const state = stateDir(name);
  const db = path.join(state, 'brock.db');
  const backup = path.join(path.dirname(state), 'backup.db');
  const set = async (domain, action) => {
    const r = await brock(state, ['set', domain, action]);
    assert.equal(r.code, 0, r.stderr);
  };
  const b = await startBrock({ state, args: ['-q', ...resolve()] });
  await set('choice.test', 'block');
  const early = [['px.early.test', 'site-a.test'], ['px.early.test', 'site-b.test']];
  await browse(b.port, early);
  await written(b.port);
  const bk = await run('sqlite3', [db, `.backup ${backup}`]);
  assert.equal(bk.code, 0, bk.stderr);

  // After the backup: other choices, a block learned, another tracker.
  await set('choice.test', 'allow');
  await set('newer.test', 'cookieblock');
  const late = [['cdn.early.test', 'site-c.test'], ['px.late.test', 'site-a.test']];
  await browse(b.port, late);
  await waitFor('the choices in memory', async () =>
    (await api(b.port, '/api/trackers/newer.test')).user === 'user_cookieblock', 10000);
  await written(b.port);

  await putBack(backup, db);
  const line = /the state database \S*brock\.db was replaced; reloaded it/;
  await waitFor('the line about the replacement', () => line.test(b.log()), 10000);
  const st = (await api(b.port, '/api/status')).store;
  assert.equal(st.reloaded, 1);
  assert.equal(st.recreated, 0);
  assert.match(st.event, line);
  // The backup's choices: choice.test blocked again, newer.test back to what was learned.
  assert.equal((await api(b.port, '/api/trackers/choice.test')).user, 'user_block');
  const newer = await api(b.port, '/api/trackers/newer.test');
  assert.ok(!newer.user, JSON.stringify(newer));
  // What was learned after the backup stays: early.test blocked, late.test known.
  assert.equal(await hit(b.port, 'px.early.test', 'site-d.test'), 403);
  await new Promise((r) => setTimeout(r, 1500));
  assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
  assert.equal((b.log().match(line) || []).length, 1, b.log());
  assert.doesNotMatch(b.log(), /writing the state .*failed/);

  await assertSound(state);
  assertFiles(state, await brockUid());
  const map = await listed(state);
  assert.deepEqual(missing(map, [...early, ...late]), []);
  assert.equal(map.get('early.test').action, 'block');
  assert.equal(map.get('choice.test').action, 'user_block');
  assert.ok(!map.has('newer.test') || map.get('newer.test').action !== 'user_cookieblock');
}

check('a backup copied over brock.db in place (cp) is reloaded, its choices kept',
  () => restoreCase('cp', async (backup, db) => {
    const r = await run('cp', [backup, db]);
    assert.equal(r.code, 0, r.stderr);
  }), 90000);

check('a backup moved over brock.db (mv) is reloaded, its choices kept',
  () => restoreCase('mv', async (backup, db) => {
    // Put back as its owner would: the file brock's user reads and writes, mode 0600.
    const st = fs.statSync(db);
    fs.chownSync(backup, st.uid, st.gid);
    fs.chmodSync(backup, 0o600);
    const r = await run('mv', [backup, db]);
    assert.equal(r.code, 0, r.stderr);
  }), 90000);

// ---- root and the service user's state ----

check('brock set as root on a state nobody owns keeps every file nobody\'s, 0600',
  async (t) => {
    if (!isRoot) { t.skip('needs root: brock hands its state to nobody only when root'); return; }
    const state = stateDir('owner');
    const nobody = await brockUid();
    // A state handed over: made by root, then given to nobody as `brock run` does.
    const made = await brock(state, ['forget']);
    assert.equal(made.code, 0, made.stderr);
    const chown = await run('chown', ['-R', `${nobody}:${nobody}`, state]);
    assert.equal(chown.code, 0, chown.stderr);
    const set = async (domain, action) => {
      const r = await brock(state, ['set', domain, action]);
      assert.equal(r.code, 0, r.stderr);
    };
    await set('first.test', 'block');
    assertFiles(state, nobody);

    // While brock runs (as nobody), its -wal and -shm stay: root's command keeps them so.
    let b = await startBrock({ state, args: ['-q', ...resolve()] });
    await set('second.test', 'allow');
    assertFiles(state, nobody);
    await waitFor('the choice picked up', async () =>
      (await api(b.port, '/api/trackers/second.test')).user === 'user_allow', 10000);
    assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());

    // A database root makes anew in nobody's folder is nobody's.
    rmDb(state);
    await set('third.test', 'cookieblock');
    assertFiles(state, nobody);

    // And brock run, as nobody, writes to it.
    b = await startBrock({ state, args: ['-q', ...resolve()] });
    const pairs = [['px.owned.test', 'site-a.test'], ['px.owned.test', 'site-b.test']];
    await browse(b.port, pairs);
    await written(b.port);
    assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
    assert.doesNotMatch(b.log(), /writing the state|read-only/);
    assertFiles(state, nobody);
    const map = await listed(state);
    assert.deepEqual(missing(map, pairs), []);
    assert.equal(map.get('third.test').action, 'user_cookieblock');
  }, 60000);

// ---- a full disk at the first start ----

// The command that runs brock with a file size limit (a full disk to SQLite: EFBIG), as an
// unprivileged user when root, who ignores no limit but must be able to lift it later.
async function limited(dir, bytes) {
  const limit = ['prlimit', `--fsize=${bytes}:unlimited`];
  if (!isRoot) return { user: [], wrap: limit };
  const uid = await brockUid();
  fs.chownSync(dir, uid, uid);
  const user = ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups'];
  return { user, wrap: [...user, ...limit] };
}

// `brock list --json --all` on a state that does not exist: what a new state holds, the seed,
// read and created nowhere.
async function seedCount() {
  const none = path.join(tmpdir('none'), 'state');
  const r = await brock(none, ['list', '--json', '--all']);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(!fs.existsSync(none));
  return JSON.parse(r.stdout).length;
}

check('a full disk at a new state\'s first command: exit 1, a clear message, nothing made',
  async () => {
    const parent = tmpdir('full-set');
    const state = path.join(parent, 'state');
    const { wrap } = await limited(parent, 262144);
    const [cmd, ...pre] = [...wrap, BROCK];
    const r = await run(cmd, [...pre, '--state', state, '--data', DATA, 'set', 'x.test', 'block']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^brock set: cannot write the state: writing the state to \S*brock\.db failed: [^\n]*File too large[^\n]*\n$/);
    assert.deepEqual(fs.readdirSync(parent), []);
    // With room, the next one makes the state whole: the seed, and the choice.
    const ok = await brock(state, ['set', 'x.test', 'block']);
    assert.equal(ok.code, 0, ok.stderr);
    const map = await listed(state);
    assert.equal(map.size, await seedCount() + 1);
    assert.equal(map.get('x.test').action, 'user_block');
  }, 60000);

check('a full disk at brock run\'s first start: said, proxied from memory, seeded later',
  async () => {
    const parent = tmpdir('full-run');
    const state = path.join(parent, 'state');
    const { user, wrap } = await limited(parent, 262144);
    const want = await seedCount();
    // Stopped while the disk is still full: the state it could not write is not left behind.
    let b = await startBrock({ state, args: ['-q', ...resolve()], wrap });
    const fail = /writing the state to \S*brock\.db failed: [^\n]*File too large[^\n]*; learning is kept in memory and retried/;
    await waitFor('the write failure', () => fail.test(b.log()), 10000);
    const st = (await api(b.port, '/api/status')).store;
    assert.equal(st.writing, false);
    assert.match(st.last_error, /File too large/);
    assert.equal(st.last_write_ms, 0);
    // Decisions from memory: the seed blocks, learning blocks.
    const pairs = [['px.mem.test', 'site-a.test'], ['px.mem.test', 'site-b.test'],
                   ['px.mem.test', 'site-c.test']];
    await browse(b.port, pairs);
    assert.equal(await hit(b.port, 'px.mem.test', 'site-d.test'), 403);
    await b.stop();
    assert.ok(!fs.existsSync(path.join(state, 'brock.db')), fs.readdirSync(parent).join(' '));

    // Again, and the disk gets room while it runs: everything is written.
    b = await startBrock({ state, args: ['-q', ...resolve()], wrap });
    await waitFor('the write failure', () => fail.test(b.log()), 10000);
    await browse(b.port, pairs);
    const [lc, ...la] = [...user, 'prlimit'];
    const lift = await run(lc, [...la, '--pid', String(b.proc.pid), '--fsize=unlimited:unlimited']);
    assert.equal(lift.code, 0, lift.stderr);
    await waitFor('the recovery line', () => /writing the state works again/.test(b.log()), 10000);
    assert.ok((await api(b.port, '/api/status')).store.writing);
    assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
    const map = await listed(state);
    assert.deepEqual(missing(map, pairs), []);
    // The seed whole, and what was learned: px.mem.test's base and the name that blocked it.
    assert.equal(map.size, want + 2, `${map.size} domains, the seed has ${want}`);
    await assertSound(state);
  }, 90000);
