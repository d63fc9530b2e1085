#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Social widget placeholders, brock's side, driven by curl: with youtube.com blocked, a page
// asks (with its token, on the path beside the reports') which widgets to replace and is
// told YouTube, with its selectors; the widget's frame is blocked. "Allow once" lets the
// frame load on that page of this client, and the page is told nothing more to replace;
// another site is untouched. "Always allow on this site" is kept in the settings, the
// dashboard shows it and removes it, and it outlasts a restart while "Allow once" does not.
// Bad tokens, bad JSON, unknown widgets, oversized bodies and GETs are refused
// (403, 400, 413) and change nothing; with --no-inject the paths go to the origin. A frame is
// told the widgets of the page brock saw open it, and allows them on that page.
'use strict';

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const path = require('node:path');
const h = require('./harness.js');
const { startOrigin } = require('./origin.js');

const { check, flat, NAVIGATE_ARGS } = h;

let origin, brock, plain;
const tmp = h.tmpdir('widgets-t');
const STATE = path.join(tmp, 'state');

function start(state, args = []) {
  return h.startBrock({ state, args: ['-v', '--no-update',
                                      '--resolve', `*.test=127.0.0.1:${origin.port}`,
                                      '--resolve', `www.youtube.com=127.0.0.1:${origin.port}`,
                                      ...args] });
}

// The token brock's script in a top-level page of host is told, and the channel's folder.
async function conf(host, b = brock) {
  const r = await h.curl(b.port, [...NAVIGATE_ARGS, `http://${host}/html`]);
  const m = /<script data-brock="([0-9a-f]{32}) (\/\.well-known\/brock-[0-9a-f]{16}\/)report ([a-z]*)">/
    .exec(r.body.toString());
  assert.ok(m, `${host} got brock's script with its data`);
  return { token: m[1], dir: m[2], jobs: m[3] };
}

function post(host, p, body, b = brock) {
  return h.curl(b.port, ['-X', 'POST', '-H', 'Content-Type: text/plain;charset=UTF-8',
                         '--data-binary', typeof body === 'string' ? body : JSON.stringify(body),
                         `http://${host}${p}`]);
}

// Whether a page of host is told to replace YouTube (the seed blocks every widget's domains
// that are not on the cookieblock list, so the others are replaced too).
async function youtube(host) {
  return (await widgets(host)).some((w) => w.name === 'YouTube');
}

// The widgets a page of host is told to replace.
async function widgets(host) {
  const c = await conf(host);
  const r = await post(host, c.dir + 'widgets', { token: c.token });
  assert.equal(r.status, 200);
  assert.match(r.headers, /^content-type: application\/json\r$/mi);
  return JSON.parse(r.body.toString());
}

// The YouTube frame as a page of site opens it: its status.
async function frame(site) {
  const r = await h.curl(brock.port, ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: iframe',
                                      '-H', `Referer: http://${site}/html`,
                                      `http://www.youtube.com/embed/abc?on=${site}`]);
  return r.status;
}

async function settings() {
  const r = await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/api/settings`]);
  return JSON.parse(r.stdout);
}

async function dash(method, p, body) {
  const page = await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/`]);
  const token = /<meta name="brock-token" content="([0-9a-f]{64})">/.exec(page.stdout)[1];
  const r = await h.run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', method,
                                 '-H', `X-Brock-Token: ${token}`,
                                 '-H', 'Content-Type: application/json',
                                 '--data-binary', JSON.stringify(body),
                                 `http://127.0.0.1:${brock.port}${p}`]);
  return Number(r.stdout);
}

const reached = () => origin.requests.filter((r) => r.path.startsWith('/.well-known/brock-'));
const embeds = (site) => origin.requests.filter((r) => r.path === `/embed/abc?on=${site}`);

before(flat('start the origin and brock, youtube.com blocked', async () => {
  origin = await startOrigin();
  for (const s of [STATE, path.join(tmp, 'plain')]) {
    const r = await h.brock(s, ['set', 'youtube.com', 'block']);
    assert.equal(r.code, 0, r.stderr);
  }
  brock = await start(STATE);
  plain = await start(path.join(tmp, 'plain'), ['--no-inject']);
}));

after(async () => {
  if (brock) await brock.stop('SIGKILL');
  if (plain) await plain.stop('SIGKILL');
  if (origin) await origin.close();
});

check('a top-level page is told to replace YouTube, with its selectors; its frame is blocked',
      async () => {
  const c = await conf('site.test');
  assert.equal(c.jobs, 'srw');
  const yt = (await widgets('site.test')).filter((w) => w.name === 'YouTube');
  assert.equal(yt.length, 1);
  assert.equal(yt[0].elements[0].elm, 'iframe');
  assert.ok(yt[0].elements[0].urls.includes('https://www.youtube.com/embed'));
  assert.equal(await frame('site.test'), 403);
  assert.equal(embeds('site.test').length, 0);
  assert.deepEqual(reached(), [], 'the question never reached the origin');
});

check('bad widget requests are refused and change nothing', async () => {
  const site = await conf('site.test');
  const other = await conf('other.test');
  const allow = site.dir + 'allow';
  const good = { token: site.token, widget: 'YouTube', always: true };
  const cases = [
    [{ ...good, token: other.token }, 403, 'another host\'s token'],
    [{ ...good, token: '0'.repeat(32) }, 403, 'a wrong token'],
    ['{"token": ', 400, 'not JSON'],
    ['[]', 400, 'not an object'],
    [{ widget: 'YouTube', always: false }, 400, 'no token'],
    [{ ...good, widget: 'No Such Widget' }, 400, 'an unknown widget'],
    [{ ...good, widget: 'LinkedIn' }, 400, 'a widget that allows nothing'],
    [{ ...good, widget: 'x'.repeat(129) }, 400, 'a name too long'],
    [{ ...good, always: 'yes' }, 400, 'always not a boolean'],
    [{ token: site.token, widget: 'YouTube' }, 400, 'always missing'],
    [JSON.stringify(good).replace('}', ',"token":"x"}'), 400, 'a duplicate key'],
    [{ ...good, pad: 'x'.repeat(17 * 1024) }, 413, 'past 16 KiB'],
  ];
  for (const [body, status, what] of cases) {
    const r = await post('site.test', allow, body);
    assert.equal(r.status, status, what);
  }
  let r = await post('site.test', site.dir + 'widgets', { token: other.token });
  assert.equal(r.status, 403, 'the list for another host\'s token');
  r = await h.curl(brock.port, [`http://site.test${allow}`]);
  assert.equal(r.status, 400, 'a GET');
  assert.ok(await youtube('site.test'));
  assert.deepEqual((await settings()).widget_allowlist, []);
  assert.equal(await frame('site.test'), 403);
  assert.deepEqual(reached(), []);
  assert.match(brock.log(), /refused \d+ reports? of brock's page script/);
});

check('"Allow once" lets the frame load on that page only, for this client', async () => {
  const c = await conf('site.test');
  const r = await post('site.test', c.dir + 'allow', { token: c.token, widget: 'YouTube',
                                                       always: false });
  assert.equal(r.status, 204);
  assert.equal(await frame('site.test'), 200);
  assert.equal(embeds('site.test').length, 1, 'the frame reached the origin');
  assert.ok(!await youtube('site.test'), 'YouTube no longer replaced there');
  assert.equal(await frame('other.test'), 403, 'another site still blocks it');
  assert.ok(await youtube('other.test'));
  assert.deepEqual((await settings()).widget_allowlist, [], 'nothing kept');
  assert.match(brock.log(), /widget YouTube allowed on site\.test for now/);
});

check('"Always allow on this site" is kept, shown and removed by the dashboard, and ' +
      'outlasts a restart; "Allow once" does not', async () => {
  const c = await conf('other.test');
  const r = await post('other.test', c.dir + 'allow', { token: c.token, widget: 'YouTube',
                                                        always: true });
  assert.equal(r.status, 204);
  assert.equal(await frame('other.test'), 200);
  assert.deepEqual((await settings()).widget_allowlist, [{ site: 'other.test', widget: 'YouTube' }]);
  await brock.stop();
  brock = await start(STATE);
  assert.equal(await frame('other.test'), 200, 'still allowed on other.test');
  assert.ok(!await youtube('other.test'));
  assert.equal(await frame('site.test'), 403, 'the allowance of once ended with the start');
  assert.ok(await youtube('site.test'));
  // The dashboard: an unknown pair is 404, a bad site 400; removing it blocks the frame again.
  assert.equal(await dash('DELETE', '/api/widgets/site.test', { widget: 'YouTube' }), 404);
  assert.equal(await dash('DELETE', '/api/widgets/not%20a%20site', { widget: 'YouTube' }), 400);
  assert.equal(await dash('DELETE', '/api/widgets/other.test', {}), 400);
  assert.equal(await dash('DELETE', '/api/widgets/other.test', { widget: 'YouTube' }), 200);
  assert.deepEqual((await settings()).widget_allowlist, []);
  assert.equal(await frame('other.test'), 403);
  assert.equal(await dash('PUT', '/api/widgets/other.test', { widget: 'Nope' }), 404);
  assert.equal(await dash('PUT', '/api/widgets/other.test', { widget: 'Vimeo' }), 200);
  assert.deepEqual((await settings()).widget_allowlist, [{ site: 'other.test', widget: 'Vimeo' }]);
});

check('a frame is told the widgets of the page it is in, and allows them there', async () => {
  // The page, then the frame as that page opens it: brock knows the frame is the page's.
  await conf('page3.test');
  const r = await h.curl(brock.port, ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: iframe',
                                      '-H', 'Referer: http://page3.test/html',
                                      'http://frames.test/html']);
  const m = /<script data-brock="([0-9a-f]{32}) (\/\.well-known\/brock-[0-9a-f]{16}\/)report ([a-z]*)">/
    .exec(r.body.toString());
  assert.ok(m, 'the frame got brock\'s script');
  assert.equal(m[3], 'srw', 'frames replace widgets too');
  const [token, dir] = [m[1], m[2]];
  const where = { top: false, ancestors: ['http://page3.test'] };
  const list = async (body) => {
    const res = await post('frames.test', dir + 'widgets', { token, ...body });
    assert.equal(res.status, 200);
    return JSON.parse(res.body.toString()).map((w) => w.name);
  };
  assert.ok((await list(where)).includes('YouTube'), 'the page\'s widgets');
  assert.equal((await post('frames.test', dir + 'widgets', { token, top: 'no' })).status, 400);
  // A frame brock never saw a page open names no page it believes: nothing to replace or
  // allow.
  const alone = await h.curl(brock.port, ['-H', 'Sec-Fetch-Dest: iframe', 'http://lone.test/html']);
  const lone = { token: /data-brock="([0-9a-f]{32}) /.exec(alone.body.toString())[1], dir };
  const lonely = { token: lone.token, top: false, ancestors: ['http://page3.test'] };
  let res = await post('lone.test', lone.dir + 'widgets', lonely);
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.body.toString()), []);
  res = await post('lone.test', lone.dir + 'allow', { ...lonely, widget: 'YouTube', always: true });
  assert.equal(res.status, 403);
  // "Allow once" in the frame: the widget loads in the frame, on that page.
  res = await post('frames.test', dir + 'allow', { token, ...where, widget: 'YouTube',
                                                   always: false });
  assert.equal(res.status, 204);
  const embed = await h.curl(brock.port, ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: iframe',
                                          '-H', 'Referer: http://frames.test/html',
                                          'http://www.youtube.com/embed/abc?on=frames']);
  assert.equal(embed.status, 200);
  assert.ok(!(await list(where)).includes('YouTube'));
  assert.ok(!await youtube('page3.test'), 'the page\'s own list too');
  assert.ok(await youtube('frames.test'), 'frames.test as a page of its own is another page');
  assert.match(brock.log(), /widget YouTube allowed on page3\.test for now/);
  const ofPage = async () => (await settings()).widget_allowlist.filter((w) => w.site !== 'other.test');
  assert.deepEqual(await ofPage(), [], 'nothing kept');
  // "Always allow on this site" in the frame: kept for the page's site.
  res = await post('frames.test', dir + 'allow', { token, ...where, widget: 'Vimeo', always: true });
  assert.equal(res.status, 204);
  assert.deepEqual(await ofPage(), [{ site: 'page3.test', widget: 'Vimeo' }]);
});

check('--no-inject: no channel, the widget paths go to the origin', async () => {
  const r = await h.curl(plain.port, [...NAVIGATE_ARGS, 'http://site.test/html']);
  assert.doesNotMatch(r.body.toString(), /data-brock/);
  const before = origin.requests.length;
  const p = await post('site.test', '/.well-known/brock-0123456789abcdef/widgets', {}, plain);
  assert.equal(p.status, 200);
  assert.equal(origin.requests.length, before + 1);
});
