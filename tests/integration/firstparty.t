#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// `brock run` and `brock learn` agree on the first party. A browsing recorded by Chromium
// (tests/data/har/browsing.har, see tests/data/README.md) is learned from by `brock learn`,
// and replayed request by request through `brock run` against a local origin that answers
// as the recording says, Set-Cookie included: once with the browser's fetch metadata
// (Sec-Fetch-*), once without it. With it, the proxy learns what `brock learn` learns, site for
// site: a pixel fired inside an ad frame counts on the page that shows the frame. Without it
// the proxy cannot tell a link to another site from a frame (the two requests are the same
// bytes), so it learns nothing it cannot vouch for: never a site `brock learn` does not
// count, and no block `brock learn` does not make. playwright-one-page.har, recorded over
// plain http where Chromium sends no fetch metadata with documents, is replayed as recorded:
// its frame's pixel is not counted on the frame's site either. pixel-cookie-share.har, where
// an image carries each site's own cookie value in its URL, is learned alike both ways: by
// pixel cookie sharing, from the cookies the sites' pages could read.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const h = require('./harness.js');
const { flat } = h;

const HARS = path.join(process.env.BROCK_TESTDATA || path.join(__dirname, '..', 'data'), 'har');
// Privacy Badger's threshold: a tracker is blocked on the third site it was seen on.
const THRESHOLD = 3;

const tmp = h.tmpdir('firstparty-t');

function check(name, fn) {
  h.check(name, fn, 60000);
}

// The entries of a HAR in the order they started, as brock learn takes them.
function readHar(file) {
  const log = JSON.parse(fs.readFileSync(file, 'utf8')).log;
  return log.entries.map((e, i) => ({ e, i, t: Date.parse(e.startedDateTime) }))
    .sort((a, b) => a.t - b.t || a.i - b.i).map((x) => x.e);
}

const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding',
                     'content-length', 'content-encoding', 'upgrade', 'te', 'trailer']);

// An origin answering each request with the recorded response to the same method and URL, in
// the order recorded (bodies were not recorded: they are empty).
function startReplayOrigin(entries) {
  const queues = new Map();
  for (const e of entries) {
    const key = `${e.request.method} ${e.request.url}`;
    if (!queues.has(key)) queues.set(key, []);
    queues.get(key).push(e.response);
  }
  const server = http.createServer((req, res) => {
    const key = `${req.method} http://${req.headers.host}${req.url}`;
    const q = queues.get(key) || [];
    const rec = q.length > 1 ? q.shift() : q[0];
    req.resume();
    if (!rec) {
      res.writeHead(404);
      res.end();
      return;
    }
    const headers = [];
    for (const { name, value } of rec.headers)
      if (!HOP.has(name.toLowerCase())) headers.push(name, value);
    res.writeHead(rec.status, headers);
    res.end();
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: server.address().port,
    close() { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  })));
}

// One recorded request through brock on port, with its recorded headers (without fetch
// metadata when bare); resolves with the status.
function send(port, agent, e, bare) {
  const headers = {};
  for (const { name, value } of e.request.headers) {
    const n = name.toLowerCase();
    if (HOP.has(n) || (bare && n.startsWith('sec-fetch-'))) continue;
    headers[name] = value;
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, agent, method: e.request.method,
                               path: e.request.url, headers, timeout: 10000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('timeout', () => req.destroy(new Error(`${e.request.url}: timed out`)));
    req.on('error', reject);
    req.end();
  });
}

// What a state learned: tracker base -> { action, sites (in the order seen) }.
async function learned(state) {
  const r = await h.brock(state, ['--no-seed', 'list', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const out = {};
  for (const row of JSON.parse(r.stdout)) {
    if (row.domain !== row.base) continue;
    out[row.domain] = { action: row.action, sites: row.sites };
  }
  return out;
}

function blocked(map) {
  return Object.keys(map).filter((d) => /block/.test(map[d].action)).sort();
}

// brock run on a new state, every recorded request of har replayed through it in order.
async function replay(har, name, bare) {
  const { entries, origin } = har;
  const state = path.join(tmp, name);
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--resolve', `*.test=127.0.0.1:${origin.port}`,
  ] });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses = [];
  try {
    for (const e of entries) statuses.push(await send(b.port, agent, e, bare));
  } finally {
    agent.destroy();
    const r = await b.stop();
    assert.deepEqual(r, { code: 0, signal: null }, b.log().slice(-2000));
  }
  return { map: await learned(state), statuses };
}

// A HAR's entries, the origin replaying them, and what brock learn learns from it.
async function loadHar(name) {
  const file = path.join(HARS, name);
  const entries = readHar(file);
  const state = path.join(tmp, `learn-${name}`);
  const r = await h.brock(state, ['--no-seed', 'learn', file]);
  assert.equal(r.code, 0, r.stderr);
  return { entries, origin: await startReplayOrigin(entries), learned: await learned(state) };
}

// The evidence of run that learn does not have, as "tracker on site".
function extra(run, learn) {
  const out = [];
  for (const [d, r] of Object.entries(run)) {
    for (const s of r.sites)
      if (!(learn[d] && learn[d].sites.includes(s))) out.push(`${d} on ${s}`);
  }
  return out;
}

let browsing, onePage, pixelShare, byLearn;

before(flat(async () => {
  browsing = await loadHar('browsing.har');
  onePage = await loadHar('playwright-one-page.har');
  pixelShare = await loadHar('pixel-cookie-share.har');
  byLearn = browsing.learned;
}));

after(async () => {
  for (const har of [browsing, onePage, pixelShare])
    if (har) await har.origin.close();
});

check('brock learn counts pixels in ad frames on the page showing the frame', async () => {
  assert.deepEqual(blocked(byLearn), ['adx.test', 'pixel.test', 'sync.test']);
  assert.deepEqual(byLearn['sync.test'].sites, ['news.test', 'shop.test', 'blog.test']);
  assert.deepEqual(byLearn['social.test'], { action: 'allow',
                                             sites: ['news.test', 'video.test'] });
  for (const d of Object.keys(byLearn)) {
    for (const s of byLearn[d].sites)
      assert.ok(!['adx.test', 'sync.test', 'pixel.test'].includes(s), `${d} on ${s}`);
  }
});

check('brock run with fetch metadata learns what brock learn learns, site for site',
      async (t) => {
  const run = await replay(browsing, 'run-fetch-metadata', false);
  t.diagnostic(`learn blocks ${blocked(byLearn).join(' ')}; run blocks ` +
               `${blocked(run.map).join(' ')}`);
  assert.deepEqual(blocked(run.map), blocked(byLearn));
  assert.deepEqual(Object.keys(run.map).sort(), Object.keys(byLearn).sort());
  for (const [d, l] of Object.entries(byLearn)) {
    // Once blocked, a tracker's requests never leave brock: the sites after are not seen.
    const want = /block/.test(l.action) ? l.sites.slice(0, THRESHOLD) : l.sites;
    assert.deepEqual(run.map[d].sites, want, d);
    assert.equal(run.map[d].action, l.action, d);
  }
  // The blocked trackers' later requests were answered by brock.
  assert.ok(run.statuses.includes(204), 'a blocked image was answered 204');
});

check('brock run without fetch metadata learns nothing it cannot vouch for', async (t) => {
  const run = await replay(browsing, 'run-bare', true);
  t.diagnostic(`run blocks ${blocked(run.map).join(' ') || 'nothing'}; ` +
               `evidence: ${JSON.stringify(run.map)}`);
  assert.deepEqual(extra(run.map, byLearn), [], 'evidence brock learn does not have');
  for (const d of blocked(run.map)) assert.ok(blocked(byLearn).includes(d), d);
  // Every request was still decided and answered.
  assert.ok(run.statuses.every((s) => s === 200 || s === 302), run.statuses.join(' '));
});

check('playwright-one-page.har as recorded: the frame\'s site is never counted', async (t) => {
  const run = await replay(onePage, 'run-one-page', false);
  t.diagnostic(`learn: ${JSON.stringify(onePage.learned)}; run: ${JSON.stringify(run.map)}`);
  assert.deepEqual(onePage.learned['tracker.test'].sites,
                   ['site-one.test', 'site-two.test', 'site-three.test']);
  assert.deepEqual(extra(run.map, onePage.learned), [], 'evidence brock learn does not have');
  for (const d of blocked(run.map)) assert.ok(blocked(onePage.learned).includes(d), d);
});

check('pixel cookie sharing: brock run learns from a HAR what brock learn learns', async (t) => {
  const run = await replay(pixelShare, 'run-pixel-share', false);
  t.diagnostic(`learn: ${JSON.stringify(pixelShare.learned)}; run: ${JSON.stringify(run.map)}`);
  assert.deepEqual(pixelShare.learned, {
    'pixel-share.test': { action: 'block', sites: ['site-a.test', 'site-b.test', 'site-c.test'] },
  });
  assert.deepEqual(run.map, pixelShare.learned);
  // The image on the fourth site never left brock.
  assert.equal(run.statuses[run.statuses.length - 1], 204);
});
