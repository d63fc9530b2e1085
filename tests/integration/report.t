#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The channel of brock's page script, driven by curl: a page's element carries the token of
// its host and the random path of the start; a report with a good token is answered 204 by
// brock and never reaches the origin, and brock learns from it (a canvas report only for a
// script the client was seen loading on the page, a frame's supercookie on the page that
// loaded the frame, known through the frame's own word when the client sends no fetch
// metadata). A wrong token, another host's token, a malformed, oversized or unknown report, a
// GET, are refused (403, 400, 413) with nothing learned and one log line at most. With
// --no-inject there is no channel: the path goes to the origin like any other.
'use strict';

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const path = require('node:path');
const h = require('./harness.js');
const { startOrigin } = require('./origin.js');

const { check, flat, NAVIGATE_ARGS } = h;

let origin, brock, plain;
const tmp = h.tmpdir('report-t');

function start(state, args = []) {
  return h.startBrock({ state, args: ['-v', '--no-update',
                                      '--resolve', `*.test=127.0.0.1:${origin.port}`, ...args] });
}

// What brock's script in a document of url is told: its token, the report path, its jobs.
async function scriptConf(url, args = NAVIGATE_ARGS) {
  const r = await h.curl(brock.port, [...args, url]);
  const m = /<script data-brock="([0-9a-f]{32}) (\/\.well-known\/brock-[0-9a-f]{16}\/report) ([a-z]*)">/
    .exec(r.body.toString());
  assert.ok(m, `${url} got brock's script with its data`);
  return { token: m[1], path: m[2], jobs: m[3] };
}

// Posts a report (an object, or a string as it is) to host's report path through b.
function post(host, p, body, args = [], b = brock) {
  return h.curl(b.port, ['-X', 'POST', '-H', 'Content-Type: text/plain;charset=UTF-8',
                         '--data-binary', typeof body === 'string' ? body : JSON.stringify(body),
                         ...args, `http://${host}${p}`]);
}

async function tracker(domain) {
  const r = await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/api/trackers/${domain}`]);
  return JSON.parse(r.stdout);
}

function evidence(t, kind) {
  return (t.evidence || []).filter((e) => e.kind === kind).map((e) => e.site).sort();
}

const reached = () => origin.requests.filter((r) => r.path.startsWith('/.well-known/brock-'));

before(flat('start the origin and brock', async () => {
  origin = await startOrigin();
  brock = await start(path.join(tmp, 'state'));
  plain = await start(path.join(tmp, 'plain'), ['--no-inject']);
}));

after(async () => {
  if (brock) await brock.stop('SIGKILL');
  if (plain) await plain.stop('SIGKILL');
  if (origin) await origin.close();
});

check('the script is told its host\'s token, one path per start, and its jobs', async () => {
  const a = await scriptConf('http://site.test/html');
  const b = await scriptConf('http://site.test/html');
  const c = await scriptConf('http://other.test/html');
  assert.equal(a.token, b.token);
  assert.notEqual(a.token, c.token, 'each host has its own token');
  assert.equal(a.path, c.path);
  assert.equal(a.jobs, 'srw');
});

check('a canvas report with a good token is taken, never forwarded, and learned from ' +
      'only for a script seen on the page', async () => {
  const conf = await scriptConf('http://site.test/html');
  // The page loads the fingerprinter: a third party seen on site.test by this client.
  await h.curl(brock.port, ['-H', 'Referer: http://site.test/html', '-H', 'Sec-Fetch-Dest: script',
                            'http://fp.test/fp.js']);
  const canvas = (script) => ({ token: conf.token, kind: 'canvas', top: true, ancestors: [],
                                script, writers: [script] });
  let r = await post('site.test', conf.path, canvas('http://fp.test/fp.js?v=2'));
  assert.equal(r.status, 204);
  assert.deepEqual(evidence(await tracker('fp.test'), 'canvas'), ['site.test']);
  // A script the page never loaded: taken, nothing learned.
  r = await post('site.test', conf.path, canvas('http://unseen.test/fp.js'));
  assert.equal(r.status, 204);
  assert.deepEqual((await tracker('unseen.test')).evidence || [], []);
  // A reader that wrote nothing of its base first: nothing learned either.
  await h.curl(brock.port, ['-H', 'Referer: http://site.test/html', 'http://reader.test/r.js']);
  r = await post('site.test', conf.path, { ...canvas('http://reader.test/r.js'),
                                           writers: ['http://other.test/w.js'] });
  assert.equal(r.status, 204);
  assert.deepEqual((await tracker('reader.test')).evidence || [], []);
  assert.deepEqual(reached(), [], 'no report reached the origin');
});

check('a frame\'s supercookie is learned on the page that loaded it, even without fetch ' +
      'metadata; a frame naming a page that never loaded it teaches nothing', async () => {
  // The page and its frame as a browser without fetch metadata asks for them: the frame's
  // page is only a guess from its Referer.
  await h.curl(brock.port, ['-H', 'Accept: text/html', 'http://page.test/html']);
  const conf = await scriptConf('http://frame.test/html', ['-H', 'Accept: text/html',
                                                          '-H', 'Referer: http://page.test/html']);
  const items = { frameId: 'ABCDEF0123456789' };
  const report = (anc) => ({ token: conf.token, kind: 'supercookie', top: false, ancestors: anc,
                             items });
  let r = await post('frame.test', conf.path, report(['http://victim.test']));
  assert.equal(r.status, 204);
  assert.deepEqual((await tracker('frame.test')).evidence || [], [], 'not on victim.test');
  // Low entropy: nothing.
  r = await post('frame.test', conf.path, { ...report(['http://page.test']), items: { ab: 'ab' } });
  assert.equal(r.status, 204);
  assert.deepEqual((await tracker('frame.test')).evidence || [], []);
  r = await post('frame.test', conf.path, report(['http://page.test']));
  assert.equal(r.status, 204);
  assert.deepEqual(evidence(await tracker('frame.test'), 'supercookie'), ['page.test']);
  // The frame is now known as page.test's: what it loads is learned there.
  r = await h.curl(brock.port, ['-H', 'Referer: http://frame.test/html',
                                'http://tracker-in-frame.test/px.gif']);
  assert.equal(r.status, 200);
  await h.waitFor('the tracker in the frame seen on page.test', async () =>
    evidence(await tracker('tracker-in-frame.test'), 'set-cookie').join() === 'page.test', 10000);
  assert.deepEqual(reached(), []);
});

check('bad reports are refused, change nothing, and are said once', async () => {
  const conf = await scriptConf('http://site.test/html');
  const other = await scriptConf('http://other.test/html');
  await h.curl(brock.port, ['-H', 'Referer: http://site.test/html', 'http://bad-fp.test/fp.js']);
  const good = { token: conf.token, kind: 'canvas', top: true, ancestors: [],
                 script: 'http://bad-fp.test/fp.js', writers: ['http://bad-fp.test/fp.js'] };
  const linesBefore = (brock.log().match(/report.* of brock's page script/g) || []).length;
  const cases = [
    ['a wrong token', { ...good, token: '0'.repeat(32) }, 403],
    ['another host\'s token', { ...good, token: other.token }, 403],
    ['no token', { ...good, token: undefined }, 400],
    ['an unknown kind', { ...good, kind: 'cookie' }, 400],
    ['a malformed body', '{"token":', 400],
    ['an oversized body', { ...good, pad: 'x'.repeat(17 * 1024) }, 413],
  ];
  for (const [what, body, status] of cases) {
    const r = await post('site.test', conf.path, body);
    assert.equal(r.status, status, what);
  }
  // Chunked past the limit, and a GET.
  let r = await post('site.test', conf.path, { ...good, pad: 'x'.repeat(20 * 1024) },
                     ['-H', 'Transfer-Encoding: chunked']);
  assert.equal(r.status, 413);
  r = await h.curl(brock.port, [`http://site.test${conf.path}`]);
  assert.equal(r.status, 400);
  // The other host's page sends its report to site.test's path with its own token: refused.
  r = await post('site.test', other.path, { ...good, token: other.token });
  assert.equal(r.status, 403);
  assert.deepEqual((await tracker('bad-fp.test')).evidence || [], [], 'nothing learned');
  assert.deepEqual(reached(), [], 'no report reached the origin');
  const lines = (brock.log().match(/report.* of brock's page script/g) || []).length;
  assert.ok(lines - linesBefore <= 1, `refusals said once (${lines - linesBefore} lines)`);
  // Still there: the same report with its token is taken.
  r = await post('site.test', conf.path, good);
  assert.equal(r.status, 204);
  assert.deepEqual(evidence(await tracker('bad-fp.test'), 'canvas'), ['site.test']);
});

check('--no-inject: no channel; the path goes to the origin like any other', async () => {
  const p = '/.well-known/brock-0123456789abcdef/report';
  const r = await post('site.test', p, '{}', [], plain);
  assert.equal(r.status, 200, 'the origin\'s answer');
  await h.waitFor('the origin saw it', () => reached().some((q) => q.path === p), 5000);
});
