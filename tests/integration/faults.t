#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The state under faults: kill -9 in the middle of heavy learning, a write that fails (a file
// size limit standing in for a full disk), a read-only state folder, and a database that is
// damaged or from a newer brock. Learning that was answered must survive, proxying must go
// on, and a damaged file must be reported and left exactly as it was.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const {
  BROCK, DATA, check, tmpdir, startBrock, run, brock, curl, waitFor, trackerHit,
} = require('./harness.js');
const { startOrigin } = require('./origin.js');

let origin;

before(async () => { origin = await startOrigin(); });
after(async () => { if (origin) await origin.close(); });

const resolve = () => ['--resolve', `*.test=127.0.0.1:${origin.port}`];

// The status of one tracker request from a page of site (trackerHit()).
const hit = async (agent, port, tracker, site) =>
  (await trackerHit(port, tracker, site, agent)).status;

// GET /api/status, parsed.
function status(port) {
  return new Promise((done, fail) => {
    http.get({ host: '127.0.0.1', port, path: '/api/status', agent: false, timeout: 10000 },
             (res) => {
               let body = '';
               res.on('data', (d) => { body += d; });
               res.on('end', () => done(JSON.parse(body)));
             }).on('error', fail);
  });
}

function sha(file) {
  return crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

// tracker -> sites, from `brock list --json --all`.
async function learned(state, opts) {
  const r = await brock(state, ['list', '--json', '--all'], opts);
  assert.equal(r.code, 0, r.stderr);
  const map = new Map();
  for (const row of JSON.parse(r.stdout)) {
    const sites = Array.isArray(row.sites) ? row.sites : String(row.sites || '').split(',');
    map.set(row.domain, new Set(sites.filter(Boolean)));
  }
  return map;
}

function missing(map, pairs) {
  return pairs.filter(([t, s]) => !(map.get(t) && map.get(t).has(s)));
}

// A seeded state folder, closed cleanly: brock.db alone, no -wal. Its parent is open to
// everyone: `brock run` started as root hands the state to an unprivileged user.
async function seededState(name) {
  const parent = tmpdir(name);
  fs.chmodSync(parent, 0o755);
  const state = path.join(parent, 'state');
  // A command that writes (list only reads, and creates nothing).
  const r = await brock(state, ['forget']);
  assert.equal(r.code, 0, r.stderr);
  return state;
}

check('kill -9 during heavy learning loses nothing answered 1.5 s before', async (t) => {
  const state = await seededState('kill');
  const b = await startBrock({ state, args: ['-q', ...resolve()] });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const answered = []; // [tracker, site, ms]
  const started = Date.now();
  let stop = false, next = 0, errors = 0;
  // Each tracker on two sites: learned, not yet blocked, so every answer is a 200.
  const worker = async () => {
    while (!stop) {
      const k = next++;
      const tracker = `tracker${Math.floor(k / 2)}.test`;
      const site = `site${k % 2 ? 'b' : 'a'}${Math.floor(k / 2) % 7}.test`;
      try {
        const status = await hit(agent, b.port, tracker, site);
        if (status === 200) answered.push([tracker, site, Date.now()]);
      } catch {
        errors++;
      }
    }
  };
  const workers = Array.from({ length: 8 }, worker);
  await new Promise((r) => setTimeout(r, 4000));
  const killedAt = Date.now();
  b.proc.kill('SIGKILL');
  stop = true;
  const r = await b.exited;
  await Promise.allSettled(workers);
  agent.destroy();
  assert.equal(r.signal, 'SIGKILL');
  const due = answered.filter(([, , ms]) => ms < killedAt - 1500).map(([t, s]) => [t, s]);
  assert.ok(due.length > 200, `only ${due.length} answers before the last 1.5 s ` +
            `(${answered.length} in ${killedAt - started} ms, ${errors} errors)`);
  const db = path.join(state, 'brock.db');
  const ic = await run('sqlite3', [db, 'PRAGMA integrity_check']);
  assert.equal(ic.code, 0, ic.stderr);
  assert.equal(ic.stdout.trim(), 'ok');
  // brock itself starts on it again.
  const again = await startBrock({ state, args: ['-q', ...resolve()] });
  assert.deepEqual(await again.stop(), { code: 0, signal: null }, again.log());
  const map = await learned(state);
  const lost = missing(map, due);
  assert.deepEqual(lost.slice(0, 5), [], `${lost.length} of ${due.length} answered pairs lost`);
  const kept = answered.length - missing(map, answered.map(([tr, s]) => [tr, s])).length;
  t.diagnostic(`${answered.length} pairs answered in ${killedAt - started} ms, ${due.length} ` +
               `of them 1.5 s before the kill; ${kept} of all answered survived`);
}, 60000);

check('a write failure is logged once, proxying goes on, and the batch is written later',
  async (t) => {
    const state = await seededState('full');
    const user = await unprivileged(state);
    if (user.skip) { t.skip(user.skip); return; }
    // Room for the -shm and a few WAL frames: the first batches fit, later ones do not. Only
    // the soft limit: brock's own user may lift it later without privilege.
    const b = await startBrock({ state, args: ['-q', ...resolve()],
                                 wrap: [...user.wrap, 'prlimit', '--fsize=131072:unlimited'] });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const pairs = [];
    let k = 0;
    const learnSome = async (n) => {
      for (let i = 0; i < n; i++, k++) {
        const p = [`full${k}.test`, `site${k % 5}.test`];
        assert.equal(await hit(agent, b.port, p[0], p[1]), 200);
        pairs.push(p);
      }
    };
    const failLine = /writing the state to .*brock\.db failed: [^\n]+; learning is kept in memory and retried/g;
    await waitFor('the write failure', async () => {
      await learnSome(20);
      return failLine.test(b.log());
    }, 30000);
    // Going on: more learning over several syncs, still answered, still one line.
    for (let i = 0; i < 4; i++) {
      await learnSome(10);
      await new Promise((r) => setTimeout(r, 500));
    }
    const shown = b.log().match(failLine) || [];
    assert.equal(shown.length, 1, b.log());
    assert.match(shown[0], new RegExp(`${state.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/brock\\.db`));
    const plain = await curl(b.port, ['http://site-x.test/echo']);
    assert.equal(plain.status, 200);
    const failing = (await status(b.port)).store;
    assert.equal(failing.writing, false);
    assert.match(failing.last_error, /^writing the state to .*brock\.db failed: /);
    assert.ok(failing.last_error_ms > 0);
    // The disk has room again: the pending batch goes out and brock says so.
    const [lc, ...la] = [...user.wrap, 'prlimit'];
    const lift = await run(lc, [...la, '--pid', String(b.proc.pid), '--fsize=unlimited:unlimited']);
    assert.equal(lift.code, 0, lift.stderr);
    await waitFor('the recovery line', () => /writing the state works again/.test(b.log()), 10000);
    assert.equal((await status(b.port)).store.writing, true);
    await learnSome(5);
    await new Promise((r) => setTimeout(r, 1500));
    assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
    agent.destroy();
    assert.equal((b.log().match(failLine) || []).length, 1, b.log());
    const ic = await run('sqlite3', [path.join(state, 'brock.db'), 'PRAGMA integrity_check']);
    assert.equal(ic.stdout.trim(), 'ok', ic.stderr);
    const lost = missing(await learned(state), pairs);
    assert.deepEqual(lost, [], `${lost.length} of ${pairs.length} pairs not written`);
  }, 60000);

// When the tests run as root: the command to run brock as the user nobody, the state folder
// handed to that user; root ignores file modes, and only a process's own user may change its
// limits without CAP_SYS_RESOURCE. Not root: no command.
async function unprivileged(dir) {
  if (process.getuid() !== 0) return { wrap: [] };
  const id = await run('id', ['-u', 'nobody']);
  if (id.code !== 0) return { skip: 'no user nobody to run brock as' };
  const uid = Number(id.stdout.trim());
  fs.chownSync(dir, uid, uid);
  for (const f of fs.readdirSync(dir)) fs.chownSync(path.join(dir, f), uid, uid);
  return { wrap: ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups'] };
}

// Makes the state folder and its file read-only for brock, by mode (see unprivileged()).
// Returns the command to run brock under, or the reason to skip.
async function readonlyWrap(dir) {
  const user = await unprivileged(dir);
  if (user.skip) return user;
  const wrap = user.wrap;
  fs.chmodSync(dir, 0o500);
  for (const f of fs.readdirSync(dir)) fs.chmodSync(path.join(dir, f), 0o400);
  const probe = await run(wrap[0] || 'sh', [...wrap.slice(1), ...(wrap.length ? ['sh'] : []),
                                            '-c', '! touch "$0/probe" 2>/dev/null', dir]);
  if (probe.code !== 0) return { skip: 'could not make the folder read-only: ' + probe.stderr };
  return { wrap };
}

check('a read-only state folder: run proxies and learns in memory, set fails', async (t) => {
  const state = await seededState('ro');
  const db = path.join(state, 'brock.db');
  const before = sha(db);
  const ro = await readonlyWrap(state);
  if (ro.skip) { t.skip(ro.skip); return; }
  const b = await startBrock({ state, args: ['-q', ...resolve()], wrap: ro.wrap });
  assert.match(b.log(), /warning: the state database .*brock\.db is read-only \(Permission denied\); brock proxies, but what it learns is not saved/);
  const { store } = await status(b.port);
  assert.equal(store.kind, 'read-only');
  assert.match(store.why, /brock\.db is read-only \(Permission denied\)/);
  assert.equal(store.writing, false);
  const agent = new http.Agent({ keepAlive: true });
  // Decisions still come from memory: three sites of cookies, then blocked.
  for (const site of ['ro-a.test', 'ro-b.test', 'ro-c.test'])
    assert.equal(await hit(agent, b.port, 'tracker-ro.test', site), 200);
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(await hit(agent, b.port, 'tracker-ro.test', 'ro-d.test'), 403);
  agent.destroy();
  assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
  assert.doesNotMatch(b.log(), /writing the state/);
  const [cmd, ...pre] = [...ro.wrap, process.env.BROCK];
  const brockArgs = ['--state', state, '--data', DATA];
  const set = await run(cmd, [...pre, ...brockArgs, 'set', 'example.com', 'block']);
  assert.equal(set.code, 1);
  assert.match(set.stderr, /^brock set: .*brock\.db is read-only \(Permission denied\).*not saved\n$/);
  const list = await run(cmd, [...pre, ...brockArgs, 'list']);
  assert.equal(list.code, 0, list.stderr);
  fs.chmodSync(state, 0o700);
  assert.equal(sha(db), before);
  assert.deepEqual(fs.readdirSync(state), ['brock.db']);
}, 60000);

// A state folder the user brock runs as cannot open (root's, mode 0700, for nobody; mode
// 000 for a user who owns it): run refuses to start as list refuses to read, naming the
// folder and why, rather than serving from a new state in memory without the user's
// choices; nothing is created or changed.
check('a state folder brock cannot read: run refuses to start, as list does', async (t) => {
  const state = await seededState('closed');
  const db = path.join(state, 'brock.db');
  assert.equal((await brock(state, ['disable', 'bank.test'])).code, 0);
  const before = sha(db);
  let wrap = [];
  if (process.getuid() === 0) {
    const id = await run('id', ['-u', 'nobody']);
    if (id.code !== 0) { t.skip('no user nobody to run brock as'); return; }
    const uid = Number(id.stdout.trim());
    wrap = ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups'];
    fs.chmodSync(state, 0o700);
  } else {
    fs.chmodSync(state, 0o000);
  }
  try {
    const [cmd, ...pre] = [...wrap, BROCK];
    for (const where of [state, path.join(state, 'inner')]) {
      const args = [...pre, '--state', where, '--data', DATA];
      const list = await run(cmd, [...args, 'list']);
      assert.equal(list.code, 1, list.stdout);
      assert.equal(list.stderr, `brock list: cannot read the state in ${where}: Permission denied\n`);
      const r = await run(cmd, [...args, 'run', '--listen', '127.0.0.1:0', '--no-update'],
                          { timeout: 15000 });
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr, `brock run: cannot read the state in ${where}: Permission denied\n`);
    }
  } finally {
    fs.chmodSync(state, 0o700);
  }
  assert.equal(sha(db), before);
  assert.deepEqual(fs.readdirSync(state), ['brock.db']);
}, 60000);

// Damage done to a copy of a good state; each must be reported by list and by run.
const damages = {
  'garbage': (db) => fs.writeFileSync(db, crypto.randomBytes(200000)),
  'truncated': (db) => fs.truncateSync(db, Math.floor(fs.statSync(db).size / 3)),
  'a damaged page': (db) => {
    const fd = fs.openSync(db, 'r+');
    fs.writeSync(fd, Buffer.alloc(200, 0xff), 0, 200, 4096 * 5);
    fs.closeSync(fd);
  },
};

for (const [what, damage] of Object.entries(damages)) {
  check(`a corrupt database (${what}) is reported and left unchanged`, async () => {
    const state = await seededState('corrupt');
    const db = path.join(state, 'brock.db');
    damage(db);
    const before = sha(db);
    const list = await brock(state, ['list']);
    assert.equal(list.code, 1);
    assert.match(list.stderr, new RegExp('^brock list: the state database .*brock\\.db is ' +
      'corrupt \\([^\\n]+\\); brock did not change it - move it away to start afresh, or ' +
      'restore a backup\\n$'));
    const r = await brock(state, ['run', '--listen', '127.0.0.1:0', '-q']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^brock run: the state database .*brock\.db is corrupt \(/);
    assert.equal(sha(db), before);
  });
}

check('a database from a newer brock is refused and left unchanged', async () => {
  const state = await seededState('newer');
  const db = path.join(state, 'brock.db');
  const set = await run('sqlite3', [db, 'PRAGMA user_version = 99']);
  assert.equal(set.code, 0, set.stderr);
  const before = sha(db);
  for (const args of [['list'], ['run', '--listen', '127.0.0.1:0']]) {
    const r = await brock(state, args);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /brock\.db: the state database has schema version 99, newer than this brock knows \(\d+\); brock did not change it/);
  }
  assert.equal(sha(db), before);
});
