#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock off for a while, on a running brock: `brock pause 2s` turns it off everywhere (a
// blocked tracker passes, no DNT is sent) and the pause ends by itself with no request coming,
// said once in the log and at once on /api/status, the next request blocked and signalled
// again; with --workers 2 both workers pass the tracker while paused and block it after; a
// pause is kept across a restart, and one that ended while brock was stopped is over; `brock
// disable SITE --for 2s` ends by itself too; a public suffix is refused as a site to disable,
// on the command line and the API, and an address is taken.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const h = require('./harness.js');
const { startOrigin } = require('./origin.js');

const TRACKER = 'tracker-p.test';
let origin;

before(async () => {
  origin = await startOrigin();
});

after(async () => {
  if (origin) await origin.close();
});

// A state where TRACKER is blocked by the user's choice.
async function blockingState(name) {
  // A folder inside the temporary one, which brock makes 0700: no warning on stderr.
  const state = path.join(h.tmpdir(name), 'state');
  const r = await h.brock(state, ['set', TRACKER, 'block']);
  assert.equal(r.code, 0, r.stderr);
  return state;
}

function start(state, args = []) {
  return h.startBrock({ state, args: ['--no-update', '--resolve',
                                      `*.test=127.0.0.1:${origin.port}`, ...args] });
}

// One GET on agent (a fresh connection when false): { status, body }.
function get(port, agent, path, headers) {
  return new Promise((done, fail) => {
    const req = http.request({ host: '127.0.0.1', port, agent, path, headers, timeout: 10000 },
                             (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => done({ status: res.statusCode, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', fail);
    req.end();
  });
}

// The dashboard's /api/status (or another of its answers), asked on agent.
async function api(b, path, agent = false) {
  return JSON.parse((await get(b.port, agent, path, { Host: `127.0.0.1:${b.port}` })).body);
}

// A change on the dashboard, with the page's token: { status, json }.
async function change(b, method, path, body) {
  const page = await get(b.port, false, '/', { Host: `127.0.0.1:${b.port}` });
  const token = /<meta name="brock-token" content="([0-9a-f]{64})">/.exec(page.body)[1];
  const args = ['-s', '-X', method, '-H', `X-Brock-Token: ${token}`, '-w', '\n%{http_code}'];
  if (body !== undefined) args.push('-H', 'Content-Type: application/json', '--data-binary',
                                    JSON.stringify(body));
  const r = await h.run('curl', [...args, `http://127.0.0.1:${b.port}${path}`]);
  const lines = r.stdout.split('\n');
  return { status: Number(lines.pop()), json: JSON.parse(lines.join('\n') || 'null') };
}

// TRACKER's pixel on a page of site (opened first), on agent: its status (403 when blocked).
async function pixel(b, site, agent = false) {
  return (await h.trackerHit(b.port, TRACKER, site, agent)).status;
}

// A plain request on a page of site: the DNT header the origin got ('' when none).
async function dntSent(b, site) {
  const path = `/dnt-${Date.now()}-${Math.random()}`;
  const r = await get(b.port, false, `http://plain-p.test${path}`,
                      { Host: 'plain-p.test', Referer: `http://${site}/` });
  assert.equal(r.status, 200);
  const rec = origin.to('plain-p.test').find((x) => x.path === path);
  const dnt = rec.headers.find(([k]) => k === 'dnt');
  return dnt ? dnt[1] : '';
}

// Stops b, which must end cleanly (under a sanitizer, with nothing leaked).
async function stopped(b) {
  assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
}

const count = (text, re) => (text.match(new RegExp(re.source, 'g')) || []).length;

check('a pause of 2 s ends by itself, with no request coming', async (t) => {
  const state = await blockingState('pause');
  const b = await start(state);
  try {
    assert.equal(await pixel(b, 'news-p.test'), 403);
    assert.equal(await dntSent(b, 'news-p.test'), '1');
    const p = await h.brock(state, ['pause', '2s']);
    assert.equal(p.code, 0, p.stderr);
    assert.match(p.stdout, /^brock is paused until .*, 2s left; brock resume ends it sooner\n$/);
    // A running brock reads it at its next sync, within a second.
    const st = await h.waitFor('the pause on /api/status', async () => {
      const s = await api(b, '/api/status');
      return s.paused && s;
    }, 1500);
    assert.ok(st.paused_until_ms > Date.now(), JSON.stringify(st));
    assert.match(b.log(), /brock: paused until \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}: brock blocks nothing/);
    assert.equal(await pixel(b, 'news-p.test'), 200, 'paused, the blocked tracker passes');
    assert.equal(await dntSent(b, 'news-p.test'), '', 'paused, no DNT is added');
    // Nothing is asked of brock from here until the end has passed.
    const line = await h.waitFor('the end in the log', () =>
      b.log().split('\n').find((l) => /brock: resumed: the pause ended$/.test(l)), 4000);
    const late = h.stampTime(line).getTime() - st.paused_until_ms;
    t.diagnostic(`ended ${late} ms after its time`);
    assert.ok(late >= -5 && late < 1000, `ended ${late} ms after its time`);
    const now = await api(b, '/api/status');
    assert.deepEqual([now.paused, now.paused_until_ms], [false, null]);
    assert.equal(await pixel(b, 'news-p.test'), 403, 'blocked again');
    assert.equal(await dntSent(b, 'news-p.test'), '1', 'DNT sent again');
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(count(b.log(), /resumed: the pause ended/), 1, b.log());
    assert.equal(count(b.log(), /brock: resumed$/m), 0, b.log());
    await stopped(b);
  } finally {
    await b.stop();
  }
});

check('with --workers 2, both workers pass the tracker while paused and block it after',
      async (t) => {
  const state = await blockingState('pause-workers');
  const b = await start(state, ['--workers', '2']);
  const agents = [];
  try {
    // A connection held to each worker, found by the pid its dashboard answers with.
    const pids = new Set();
    for (let i = 0; i < 200 && agents.length < 2; i++) {
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const pid = (await api(b, '/api/status', agent)).pid;
      if (pids.has(pid)) { agent.destroy(); continue; }
      pids.add(pid);
      agents.push(agent);
    }
    assert.equal(agents.length, 2, 'both workers answered');
    for (const a of agents) assert.equal(await pixel(b, 'news-w.test', a), 403);
    const t0 = Date.now();
    const p = await h.brock(state, ['pause', '4s']);
    assert.equal(p.code, 0, p.stderr);
    for (const a of agents)
      await h.waitFor('the pause on each worker', async () =>
        (await api(b, '/api/status', a)).paused, 2000);
    t.diagnostic(`paused on both workers ${Date.now() - t0} ms after the command`);
    // Several requests on each worker's connection: every one passes.
    for (let i = 0; i < 3; i++)
      for (const a of agents) assert.equal(await pixel(b, `news-w${i}.test`, a), 200);
    await h.waitFor('the end in the log', () => /resumed: the pause ended/.test(b.log()), 6000);
    for (const a of agents)
      await h.waitFor('blocked again on each worker', async () =>
        await pixel(b, 'news-w.test', a) === 403, 1000);
    await new Promise((r) => setTimeout(r, 1200));
    assert.equal(count(b.log(), /resumed: the pause ended/), 1, 'said once, for all workers');
    for (const a of agents) a.destroy();
    await stopped(b);
  } finally {
    for (const a of agents) a.destroy();
    await b.stop();
  }
});

check('a pause outlives a restart; one that ended while brock was stopped is over',
      async () => {
  const state = await blockingState('pause-restart');
  let p = await h.brock(state, ['pause', '1h']);
  assert.equal(p.code, 0, p.stderr);
  let b = await start(state);
  try {
    const s = await api(b, '/api/status');
    assert.equal(s.paused, true);
    assert.ok(s.paused_until_ms > Date.now() + 3500 * 1000, JSON.stringify(s));
    assert.match(b.log(), /brock: paused until /);
    assert.equal(await pixel(b, 'news-r.test'), 200);
    const st = await h.run(h.BROCK, ['status', '--listen', `127.0.0.1:${b.port}`]);
    assert.equal(st.code, 0, st.stderr);
    assert.match(st.stdout, /^paused until \d{4}-\d\d-\d\d [\d:]{8} [+-]\d{4}, (1h|59m5\ds) left \(brock resume\)$/m);
    await stopped(b);
  } finally {
    await b.stop();
  }
  b = await start(state);
  try {
    assert.equal((await api(b, '/api/status')).paused, true, 'still paused after a restart');
    assert.equal(await pixel(b, 'news-r.test'), 200);
    await stopped(b);
  } finally {
    await b.stop();
  }
  // Stopped, the pause's end passes.
  p = await h.brock(state, ['pause', '1s']);
  assert.equal(p.code, 0, p.stderr);
  await new Promise((r) => setTimeout(r, 1500));
  b = await start(state);
  try {
    const s = await api(b, '/api/status');
    assert.deepEqual([s.paused, s.paused_until_ms], [false, null]);
    assert.equal(await pixel(b, 'news-r.test'), 403);
    await new Promise((r) => setTimeout(r, 1200));
    assert.doesNotMatch(b.log(), /paused until|resumed/);
    await stopped(b);
  } finally {
    await b.stop();
  }
});

check('disable SITE --for 2s ends by itself', async () => {
  const state = await blockingState('pause-site');
  const b = await start(state);
  try {
    const r = await h.brock(state, ['disable', 'https://shop-s.test/cart', '--for', '2s']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^disabled_sites    shop-s\.test \(until .*, 2s left\)\n$/);
    const s = await h.waitFor('the site off', async () => {
      const x = await api(b, '/api/settings');
      return x.disabled_sites.includes('shop-s.test') && x;
    }, 1500);
    assert.equal(s.disabled_until.length, 1);
    assert.equal(s.disabled_until[0].site, 'shop-s.test');
    assert.equal(await pixel(b, 'shop-s.test'), 200, 'off on the site');
    const st = await h.run(h.BROCK, ['status', '--listen', `127.0.0.1:${b.port}`]);
    assert.match(st.stdout, /^off for a while on shop-s\.test until .*, [12]s left$/m);
    assert.doesNotMatch(st.stdout, /^paused/m);
    assert.equal(await pixel(b, 'other-s.test'), 403, 'on everywhere else');
    await h.waitFor('the end in the log', () =>
      /brock: brock is on again on shop-s\.test: its time off ended/.test(b.log()), 4000);
    const after = await api(b, '/api/settings');
    assert.deepEqual([after.disabled_sites, after.disabled_until], [[], []]);
    assert.equal(await pixel(b, 'shop-s.test'), 403, 'on again there');
    // Set on the dashboard, and ended early by enabling the site.
    const put = await change(b, 'PUT', '/api/disabled/shop-s.test', { for: '1h' });
    assert.equal(put.status, 200, JSON.stringify(put.json));
    assert.equal(put.json.disabled_until[0].site, 'shop-s.test');
    assert.equal(await pixel(b, 'shop-s.test'), 200);
    const del = await change(b, 'DELETE', '/api/disabled/shop-s.test');
    assert.equal(del.status, 200);
    assert.equal(await pixel(b, 'shop-s.test'), 403);
    await stopped(b);
  } finally {
    await b.stop();
  }
});

check('the dashboard\'s pause: PUT and DELETE /api/pause, and what they refuse', async () => {
  const state = await blockingState('pause-api');
  const b = await start(state);
  try {
    let r = await change(b, 'PUT', '/api/pause', { for: '10m' });
    assert.equal(r.status, 200);
    assert.equal(r.json.paused, true);
    assert.ok(Math.abs(r.json.paused_until_ms - Date.now() - 600000) < 5000);
    assert.equal(await pixel(b, 'news-a.test'), 200);
    r = await change(b, 'PUT', '/api/pause', { until_resume: true });
    assert.deepEqual(r.json, { paused: true, paused_until_ms: null });
    assert.deepEqual([(await api(b, '/api/status')).paused_until_ms], [null]);
    r = await change(b, 'DELETE', '/api/pause');
    assert.deepEqual(r.json, { paused: false, paused_until_ms: null });
    assert.equal(await pixel(b, 'news-a.test'), 403);
    for (const [body, re] of [[{ for: '8d' }, /'8d' is more than 7 days/],
                              [{ for: '0m' }, /no time at all/],
                              [{ for: 'soon' }, /is not a duration/],
                              [{ for: 10 }, /"for" is a duration/],
                              [{}, /the body says how long/]]) {
      r = await change(b, 'PUT', '/api/pause', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.json.error, re);
    }
    assert.equal((await api(b, '/api/status')).paused, false, 'nothing refused paused brock');
    // Without the page's token, nothing changes.
    const bare = await h.run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'PUT',
                                      '--data-binary', '{"for":"1h"}',
                                      `http://127.0.0.1:${b.port}/api/pause`]);
    assert.equal(bare.stdout, '403');
    assert.equal((await api(b, '/api/status')).paused, false);
    await stopped(b);
  } finally {
    await b.stop();
  }
});

check('a public suffix is refused as a site to disable, an address is taken', async () => {
  const state = await blockingState('pause-suffix');
  for (const site of ['com', 'co.uk', '*.co.uk', 'https://github.io/']) {
    const r = await h.brock(state, ['disable', site]);
    assert.equal(r.code, 1, site);
    assert.match(r.stderr, /^brock disable: '[a-z.]+' is a public suffix, under which anyone can have a site: brock off there would be off on all of them; give one site \(example\.[a-z.]+\)\n$/);
  }
  const r = await h.brock(state, ['disable', 'co.uk', '--for', '10m']);
  assert.equal(r.code, 1);
  const ok = await h.brock(state, ['disable', '1.2.3.4']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, 'disabled_sites    1.2.3.4\n');
  const b = await start(state);
  try {
    for (const site of ['com', 'co.uk', 'github.io']) {
      const put = await change(b, 'PUT', `/api/disabled/${site}`);
      assert.equal(put.status, 400, site);
      assert.match(put.json.error, /is a public suffix/);
    }
    const timed = await change(b, 'PUT', '/api/disabled/co.uk', { for: '1h' });
    assert.equal(timed.status, 400);
    const addr = await change(b, 'PUT', '/api/disabled/10.1.2.3');
    assert.equal(addr.status, 200);
    assert.deepEqual(addr.json.disabled_sites, ['1.2.3.4', '10.1.2.3']);
    const bad = await change(b, 'PUT', '/api/disabled/shop.test', { for: '2 hours' });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /is not a duration/);
    await stopped(b);
  } finally {
    await b.stop();
  }
});

function check(name, fn) {
  h.check(name, fn, 60000);
}
