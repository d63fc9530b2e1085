#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock as a service: SIGHUP never ends it (it reads Privacy Badger's data again, applying a
// changed cookieblock list and refusing a broken one whole); SIGTERM, SIGINT and SIGQUIT stop
// it without cutting downloads in flight, within --grace, a second signal at once; every way
// out writes the learning of the last second to the state.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { startOrigin, startSlowOrigin, bytes, streamBytes, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { check, brock, tmpdir, waitFor } = h;

let origin, slow, big;

before(async () => {
  origin = await startOrigin();
  slow = await startSlowOrigin();
  big = await startSlowOrigin('big', streamBytes);
});
after(async () => {
  if (origin) await origin.close();
  if (slow) await slow.close();
  if (big) await big.close();
});

// A copy of Privacy Badger's data that a test may change; brock reads it as the user it
// serves as when started as root, so it is open to others.
function dataCopy(name) {
  const d = path.join(tmpdir(name), 'pb');
  fs.cpSync(h.DATA, d, { recursive: true, dereference: true });
  fs.chmodSync(d, 0o755);
  return d;
}

function start(state, data, args = []) {
  return h.startBrock({ state, global: data ? ['--data', data] : [],
                        args: ['--no-update', '--resolve', `slow.test=127.0.0.1:${slow.port}`,
                               '--resolve', `big.test=127.0.0.1:${big.port}`,
                               '--resolve', `*.test=127.0.0.1:${origin.port}`, ...args] });
}

// A page of site (opened first) requests tracker through b, with an identifying cookie.
async function visit(b, tracker, site) {
  await h.navigate(b.port, `http://${site}/`);
  return h.curl(b.port, ['-H', `Referer: http://${site}/`, '-b',
                         `uid=${sha256(site + tracker).slice(0, 24)}`,
                         `http://${tracker}/pixel.gif`]);
}

async function learn(b, tracker, sites) {
  for (const site of sites) {
    const r = await visit(b, tracker, site);
    assert.equal(r.status, 200, `${tracker} on ${site}: ${r.stderr}`);
  }
}

// What the state holds once brock stopped: tracker -> { action, sites }.
async function listed(state, data) {
  const r = await brock(state, ['--data', data, 'list', '--json', '--all']);
  assert.equal(r.code, 0, r.stderr);
  const out = {};
  for (const t of JSON.parse(r.stdout)) out[t.domain] = { action: t.action, sites: t.sites };
  return out;
}

const lines = (b, re) => b.log().split('\n').filter((l) => re.test(l));

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

check('SIGHUP during learning: brock keeps serving, and what it learned survives a restart',
      async () => {
  const state = path.join(tmpdir('sig-hup'), 'state');
  const data = dataCopy('sig-hup-data');
  const b = await start(state, data);
  try {
    await learn(b, 'tracker-before.test', ['a1.test', 'a2.test']);
    // Three SIGHUPs while a tracker is being learned on three sites at once.
    const during = Promise.all(['b1.test', 'b2.test', 'b3.test']
      .map((site) => learn(b, 'tracker-during.test', [site])));
    for (let i = 0; i < 3; i++) {
      b.proc.kill('SIGHUP');
      await sleep(60);
    }
    await during;
    await waitFor('three reloads logged',
                  () => lines(b, /SIGHUP: read Privacy Badger's data again/).length === 3, 10000);
    assert.equal(b.proc.exitCode, null, 'brock exited on SIGHUP');
    assert.equal(b.proc.signalCode, null, 'brock died on SIGHUP');
    assert.match(lines(b, /SIGHUP:/)[0],
                 /SIGHUP: read Privacy Badger's data again: \d+ domains on the cookieblock list \(0 added, 0 removed\)/);
    await learn(b, 'tracker-after.test', ['c1.test']);
    const blocked = await visit(b, 'tracker-during.test', 'b4.test');
    assert.equal(blocked.status, 403, 'learned on three sites: blocked');
  } finally {
    assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
  }
  const got = await listed(state, data);
  assert.deepEqual(got['tracker-before.test'].sites.sort(), ['a1.test', 'a2.test']);
  assert.deepEqual(got['tracker-during.test'].sites.sort(), ['b1.test', 'b2.test', 'b3.test']);
  assert.equal(got['tracker-during.test'].action, 'block');
  assert.deepEqual(got['tracker-after.test'].sites, ['c1.test']);
  // Started again on the state, brock blocks what it learned.
  const again = await start(state, data);
  try {
    assert.equal((await visit(again, 'tracker-during.test', 'b5.test')).status, 403);
  } finally {
    assert.deepEqual(await again.stop(), { code: 0, signal: null }, again.log());
  }
}, 60000);

check('SIGHUP applies a cookieblock list changed in the data folder; a broken one changes ' +
      'nothing and says why', async () => {
  const state = path.join(tmpdir('sig-list'), 'state');
  const data = dataCopy('sig-list-data');
  const b = await start(state, data);
  try {
    await learn(b, 'tracker-listed.test', ['l1.test', 'l2.test', 'l3.test']);
    assert.equal((await visit(b, 'tracker-listed.test', 'l4.test')).status, 403);

    // A broken file: refused whole, with the file named; the lists in force stay.
    const pbconfig = path.join(data, 'pbconfig.json');
    const good = JSON.parse(fs.readFileSync(pbconfig, 'utf8'));
    fs.writeFileSync(pbconfig, JSON.stringify({ ...good, yellowlist: ['Not A Domain'] }));
    b.proc.kill('SIGHUP');
    const [refused] = await waitFor('the refusal', () => lines(b, /SIGHUP: /).length && lines(b, /SIGHUP: /));
    assert.match(refused, /SIGHUP: Privacy Badger's data was not read again, the lists in force stay: .*pbconfig\.json: yellowlist entry 1 \(Not A Domain\) is not a valid domain/);
    assert.equal((await visit(b, 'tracker-listed.test', 'l5.test')).status, 403);

    // The tracker put on the cookieblock list: cookieblocked at once, as an update does.
    fs.writeFileSync(pbconfig, JSON.stringify({ ...good,
                                                yellowlist: [...good.yellowlist,
                                                             'tracker-listed.test'] }));
    b.proc.kill('SIGHUP');
    await waitFor('the reload', () => lines(b, /SIGHUP: read Privacy Badger's data again/).length);
    assert.match(lines(b, /SIGHUP: read/)[0],
                 new RegExp(`: ${good.yellowlist.length + 1} domains on the cookieblock list ` +
                            '\\(1 added, 0 removed\\)'));
    const before = origin.to('tracker-listed.test').length;
    const r = await visit(b, 'tracker-listed.test', 'l6.test');
    assert.equal(r.status, 200, 'cookieblocked, no longer blocked');
    const sent = origin.to('tracker-listed.test').slice(before);
    assert.equal(sent.length, 1);
    assert.ok(!sent[0].headers.some(([k]) => k === 'cookie'), 'the cookie was stripped');
    assert.ok(!r.headers.toLowerCase().includes('set-cookie'), 'Set-Cookie was stripped');
  } finally {
    assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
  }
  // The state follows the new list: after a restart the tracker stays cookieblocked.
  assert.equal((await listed(state, data))['tracker-listed.test'].action, 'cookieblock');
}, 60000);

// A download of n KiB from the slow origin over ms, through b; resolves with curl's result.
function download(b, n, ms) {
  return h.curl(b.port, [`http://slow.test/slow?ms=${ms}&n=${n}`], { maxTime: 30, timeout: 40000 });
}

// Resolves with { closed, ms } once the peer closes a connection that sent nothing.
function idleConnection(port) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    s.on('error', () => {});
    s.once('connect', () => {
      s.ready = true;
      resolve({
        closed: new Promise((r) => {
          s.on('close', () => r(Date.now()));
        }),
        destroy: () => s.destroy(),
      });
    });
    s.once('error', reject);
  });
}

// 8 MiB over 2.5 seconds, in 64 KiB pieces: two SIGHUPs (the second reading a changed
// cookieblock list) land in the middle of it, and brock reads the data again while it runs.
check('SIGHUP in the middle of an 8 MiB download keeps it whole, and brock serves on, ' +
      'with one process and with workers', async (t) => {
  const want = sha256(streamBytes(8192 * 1024, 'big'));
  const data = dataCopy('sig-hup-download');
  const state = path.join(tmpdir('sig-hup-download'), 'state');
  const pbconfig = path.join(data, 'pbconfig.json');
  const good = fs.readFileSync(pbconfig, 'utf8');
  for (const workers of [[], ['--workers', '2']]) {
    fs.writeFileSync(pbconfig, good);
    const b = await start(state, data, workers);
    const reads = () => lines(b, /SIGHUP: read Privacy Badger's data again/).length;
    try {
      if (workers.length) {
        // A SIGHUP while the second worker still starts is passed on once both serve.
        if (/workers serve/.test(b.log())) t.diagnostic('the workers were ready: no early SIGHUP');
        b.proc.kill('SIGHUP');
        await waitFor('the early reload in both workers', () => reads() === 2, 10000);
        assert.match(b.log(), /2 workers serve/);
      }
      const base = reads();
      const since = big.count();
      let ended = 0;
      const got = h.curl(b.port, ['http://big.test/slow?ms=2500&n=8192&chunk=64'],
                         { maxTime: 30, timeout: 40000 }).finally(() => { ended = Date.now(); });
      await big.arrival(since);
      await sleep(400);
      b.proc.kill('SIGHUP');
      await sleep(400);
      const list = JSON.parse(good);
      fs.writeFileSync(pbconfig, JSON.stringify({ ...list, yellowlist: [...list.yellowlist,
                                                                        'hup-download.test'] }));
      assert.equal(ended, 0, 'the download ended before the second SIGHUP');
      b.proc.kill('SIGHUP');
      // With workers, each of them reads the data again.
      await waitFor('both reloads', () => reads() === base + (workers.length ? 4 : 2), 10000);
      assert.match(lines(b, /SIGHUP: read/).at(-1), /\(1 added, 0 removed\)/);
      const r = await got;
      for (const l of lines(b, /SIGHUP: read/).slice(base)) {
        assert.ok(h.stampTime(l) < ended, `a reload came after the download: ${l}`);
      }
      assert.equal(r.code, 0, r.stderr + b.log());
      assert.equal(r.status, 200);
      assert.equal(r.body.length, 8192 * 1024);
      assert.equal(sha256(r.body), want, 'the download is whole');
      assert.equal(b.proc.exitCode, null, 'brock exited');
      const after = await h.curl(b.port, ['http://site-after-hup.test/']);
      assert.equal(after.status, 200, after.stderr);
    } finally {
      assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
    }
  }
}, 60000);

check('SIGTERM lets a slow download finish whole, refuses new clients, closes idle ones, ' +
      'then exits 0', async () => {
  const state = path.join(tmpdir('sig-term'), 'state');
  const b = await start(state);
  const idle = await idleConnection(b.port);
  try {
    const since = slow.count();
    const got = download(b, 48, 3000);
    await slow.arrival(since);
    await sleep(300);
    const t0 = Date.now();
    b.proc.kill('SIGTERM');
    // The idle connection closes at once; a new client is refused.
    assert.ok((await idle.closed) - t0 < 2000, 'the idle connection was not closed at once');
    await waitFor('the listener to close', () => new Promise((r) => {
      const s = net.connect(b.port, '127.0.0.1');
      s.on('error', (e) => r(e.code === 'ECONNREFUSED'));
      s.on('connect', () => { s.destroy(); r(false); });
    }), 5000);
    const r = await got;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.status, 200);
    assert.equal(sha256(r.body), sha256(bytes(48 * 1024, 'slow')), 'the download is whole');
    const exit = await b.exited;
    assert.deepEqual(exit, { code: 0, signal: null }, b.log());
    assert.ok(Date.now() - t0 < 6000, `brock took ${Date.now() - t0} ms to stop`);
    const log = b.log();
    assert.match(log, /SIGTERM: stopping: no new connections; 1 busy connections get 10 s to finish \(SIGTERM again stops at once\)/);
    assert.match(log, /every exchange in flight is done/);
    assert.match(log, /learning is written to the state; stopped/);
  } finally {
    idle.destroy();
    await b.stop();
  }
}, 60000);

check('a second SIGTERM stops at once; --grace ends a download that takes longer; ' +
      '--grace 0 does not wait', async () => {
  for (const [args, second, within] of [[[], true, 2500], [['--grace', '1'], false, 3000],
                                        [['--grace', '0'], false, 1500]]) {
    const what = args.join(' ') || 'a second SIGTERM';
    const b = await start(path.join(tmpdir('sig-again'), 'state'), null, args);
    try {
      const since = slow.count();
      const got = download(b, 64, 8000);
      await slow.arrival(since);
      await sleep(300);
      const t0 = Date.now();
      b.proc.kill('SIGTERM');
      if (second) {
        await sleep(500);
        b.proc.kill('SIGTERM');
      }
      const exit = await b.exited;
      assert.deepEqual(exit, { code: 0, signal: null }, `${what}: ${b.log()}`);
      assert.ok(Date.now() - t0 < within, `${what}: brock took ${Date.now() - t0} ms to stop`);
      const r = await got;
      assert.notEqual(r.code, 0, `${what}: the download finished`);
      assert.ok(r.body.length < 64 * 1024, `${what}: the download finished`);
      assert.match(b.log(), /learning is written to the state; stopped/);
      if (second) assert.match(b.log(), /SIGTERM again: stopping at once, closing 1 busy connections/);
      else if (args[1] === '1') assert.match(b.log(), /the grace period is over: closing the 1 connections still busy/);
      else assert.match(b.log(), /stopping at once \(--grace 0\): closing 1 busy connections/);
    } finally {
      await b.stop();
    }
  }
}, 60000);

check('SIGQUIT and SIGINT write the learning of the last second before brock exits',
      async () => {
  for (const sig of ['SIGQUIT', 'SIGINT']) {
    const state = path.join(tmpdir('sig-quit'), 'state');
    const data = dataCopy('sig-quit-data');
    const b = await start(state, data);
    try {
      await learn(b, `tracker-${sig.toLowerCase()}.test`, ['q1.test', 'q2.test', 'q3.test']);
      // At once: the once-a-second sync has not written the last of it yet.
      b.proc.kill(sig);
      assert.deepEqual(await b.exited, { code: 0, signal: null }, b.log());
      assert.match(b.log(), new RegExp(`${sig}: stopping; no exchange is in flight`));
    } finally {
      await b.stop();
    }
    const got = (await listed(state, data))[`tracker-${sig.toLowerCase()}.test`];
    assert.ok(got, `${sig}: nothing learned was written`);
    assert.deepEqual(got.sites.sort(), ['q1.test', 'q2.test', 'q3.test']);
    assert.equal(got.action, 'block');
  }
}, 60000);
