#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The daily counters: requests made through brock are counted as they were decided (blocked,
// cookieblocked, allowed), with the tracker learned and the sites visited; GET /api/stats and
// `brock stats` say the same, and the counts survive a restart and grow on from there.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startOrigin, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { check } = h;

let origin, brock;
const tmp = h.tmpdir('stats-t');
const S = path.join(tmp, 'state');

async function start() {
  brock = await h.startBrock({ state: S, global: ['--no-seed'],
                               args: ['--no-update', '--resolve',
                                      `*.test=127.0.0.1:${origin.port}`] });
}

// A top-level page of site, then, when given, a request its page makes to url.
async function browse(site, url, cookie) {
  const nav = await h.curl(brock.port, [...h.NAVIGATE_ARGS, `http://${site}/`]);
  assert.equal(nav.status, 200, `${site} opens`);
  if (!url) return null;
  const args = ['-e', `http://${site}/`];
  if (cookie) args.push('-b', cookie);
  return h.curl(brock.port, [...args, url]);
}

async function stats(q = '?days=3') {
  const r = await h.run('curl', ['-s', '--max-time', '10', '-w', '\n%{http_code}',
                                 `http://127.0.0.1:${brock.port}/api/stats${q}`]);
  const i = r.stdout.lastIndexOf('\n');
  return { status: Number(r.stdout.slice(i + 1)), json: JSON.parse(r.stdout.slice(0, i)) };
}

// The days summed (a run across midnight splits them between two days).
function total(days) {
  const t = { blocked: 0, cookieblocked: 0, allowed: 0, learned: 0 };
  for (const d of days) for (const k of Object.keys(t)) t[k] += d[k];
  return t;
}

before(async () => {
  origin = await startOrigin();
  for (const [d, a] of [['blocked.test', 'block'], ['strip.test', 'cookieblock']]) {
    const r = await h.brock(S, ['--no-seed', 'set', d, a]);
    assert.equal(r.code, 0, r.stderr);
  }
  await start();
});

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

check('requests are counted as they were decided, with what was learned', async () => {
  let r = await browse('a.test', 'http://blocked.test/x.gif');
  assert.notEqual(r.status, 200, 'blocked.test is blocked');
  r = await browse('a.test', 'http://strip.test/x.gif', 'id=0123456789abcdef');
  assert.equal(r.status, 200);
  for (const site of ['a.test', 'b.test', 'c.test']) {
    r = await browse(site, 'http://tracker.test/pixel.gif',
                     `uid=${sha256(site + 'tracker').slice(0, 24)}`);
    assert.equal(r.status, 200, `tracker.test on ${site} passes while learning`);
  }
  r = await browse('b.test', 'http://tracker.test/pixel.gif');
  assert.notEqual(r.status, 200, 'tracker.test is blocked once learned');

  const s = await stats();
  assert.equal(s.status, 200);
  assert.equal(s.json.length, 3, 'one entry per day asked for');
  const today = new Date().toISOString().slice(0, 10);
  assert.equal(s.json[2].day, today, 'the last day is today (UTC)');
  assert.ok(s.json[0].day < s.json[1].day && s.json[1].day < s.json[2].day, 'oldest first');
  // Six pages opened (a.test three times), nine requests made by them.
  assert.deepEqual(total(s.json), { blocked: 2, cookieblocked: 1, allowed: 9, learned: 1 });
  assert.equal(s.json[2].sites, 3, 'a.test, b.test and c.test');
  assert.equal(s.json[2].time_ms, Date.parse(today + 'T00:00:00Z'));
});

check('a bad number of days is refused, naming it', async () => {
  for (const q of ['?days=0', '?days=3651', '?days=x', '?days=', '?days=-1', '?days=2x']) {
    const s = await stats(q);
    assert.equal(s.status, 400, q);
    assert.match(s.json.error, /"days"/, q);
  }
  const s = await stats('');
  assert.equal(s.status, 200);
  assert.equal(s.json.length, 7, 'seven days by default');
});

check('the counts survive a restart, and the command line says the same', async () => {
  const before = (await stats('?days=2')).json;
  await brock.stop();
  brock = null;
  const cli = await h.brock(S, ['stats', '--days', '2', '--json']);
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual(JSON.parse(cli.stdout), before, 'brock stats --json is the API answer');
  const text = await h.brock(S, ['stats', '--days', '2']);
  assert.equal(text.code, 0, text.stderr);
  const rows = text.stdout.trim().split('\n');
  assert.match(rows[0], /^day\s+blocked\s+cookieblocked\s+allowed\s+learned\s+sites\s+cleaned$/);
  const last = before[1];
  assert.deepEqual(rows[2].trim().split(/\s+/),
                   [last.day, ...['blocked', 'cookieblocked', 'allowed', 'learned', 'sites',
                                  'cleaned'].map((k) => String(last[k]))]);

  await start();
  assert.deepEqual((await stats('?days=2')).json, before, 'read back after the restart');
  await browse('d.test');
  const after = (await stats('?days=2')).json;
  assert.equal(total(after).allowed, total(before).allowed + 1, 'counting goes on');
  assert.equal(after[1].sites, before[1].sites + 1);
  await brock.stop();
  brock = null;
  const again = await h.brock(S, ['stats', '--days', '2', '--json']);
  assert.deepEqual(JSON.parse(again.stdout), after, 'added to what the state held');
});

check('brock stats refuses a bad --days', async () => {
  for (const bad of ['0', '3651', 'x', '-2']) {
    const r = await h.brock(S, ['stats', '--days', bad]);
    assert.equal(r.code, 2, bad);
    assert.match(r.stderr, /--days/, bad);
  }
});
