#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Social widget placeholders, brock's side, driven by curl through `brock run --intercept`:
// with rumble.com blocked (Privacy Badger's seed blocks it), a page asks (with its token, on
// the path beside the reports') which widgets to replace and is told Rumble's player, with its
// selectors; the widget's frame is blocked. "Allow once" lets the frame load on that page of
// this client, and the page is told nothing more to replace; another site is untouched.
// "Always allow on this site" is kept in the settings, the dashboard shows it and removes it,
// and it outlasts a restart while "Allow once" does not. A frame of the page's own site allows
// the page's widgets; another site's frame (an ad's) is told them but allows nothing, whatever
// its body says of its page. An allowance over the user's own block (`brock set facebook.com
// block`) is refused, from the page itself too, and Facebook's pixel stays blocked. Bad
// tokens, bad JSON, unknown widgets, oversized bodies, GETs and plain HTTP are refused (403,
// 400, 413) and change nothing; with --no-inject the paths go to the origin.
'use strict';

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const path = require('node:path');
const h = require('./harness.js');
const { startOrigin } = require('./origin.js');

const { check, flat } = h;

const RUMBLE = 'Rumble Video Player';
const HOSTS = ['site.test', 'other.test', 'page3.test', 'frames.test', 'lone.test', 'news.test',
               'ads.test', 'rumble.com', 'www.facebook.com'];

let origin, httpOrigin, origins, brock, plain;
const tmp = h.tmpdir('widgets-t');
const STATE = path.join(tmp, 'state');

async function start(state, args = []) {
  const b = await h.startBrock({ state, args: [
    '-v', '--no-update', '--intercept', '--upstream-ca', origins.ca,
    '--resolve', `*.test:443=127.0.0.1:${origin.port}`,
    '--resolve', `*.test:80=127.0.0.1:${httpOrigin.port}`,
    '--resolve', `rumble.com=127.0.0.1:${origin.port}`,
    '--resolve', `www.facebook.com=127.0.0.1:${origin.port}`, ...args] });
  b.ca = path.join(state, 'ca', 'ca.pem');
  return b;
}

function curl(args, b = brock) {
  return h.curl(b.port, ['--cacert', b.ca, ...args]);
}

const NAV = ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: document',
             '-H', 'Sec-Fetch-Site: none'];
const frameOf = (site) => ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: iframe',
                           '-H', `Referer: https://${site}/html`];
const CONF = /<script data-brock="([0-9a-f]+|-) (\/\.well-known\/brock-[0-9a-f]{16}\/|-)(?:report)? ([a-z]*)">/;

// What brock's script in the document at url is told: its token, the channel's folder, its
// jobs.
async function conf(url, args = NAV, b = brock) {
  const r = await curl([...args, url], b);
  const m = CONF.exec(r.body.toString());
  assert.ok(m, `${url} got brock's script with its data`);
  return { token: m[1], dir: m[2], jobs: m[3] };
}

const page = (host, b = brock) => conf(`https://${host}/html`, NAV, b);

function post(host, p, body, b = brock) {
  return curl(['-X', 'POST', '-H', 'Content-Type: text/plain;charset=UTF-8',
               '--data-binary', typeof body === 'string' ? body : JSON.stringify(body),
               `https://${host}${p}`], b);
}

// The widgets a page of host is told to replace.
async function widgets(host) {
  const c = await page(host);
  const r = await post(host, c.dir + 'widgets', { token: c.token });
  assert.equal(r.status, 200);
  assert.match(r.headers, /^content-type: application\/json\r$/mi);
  return JSON.parse(r.body.toString());
}

// Whether a page of host is told to replace Rumble's player.
async function rumble(host) {
  return (await widgets(host)).some((w) => w.name === RUMBLE);
}

// The Rumble frame as a page of site opens it: its status.
async function frame(site) {
  const r = await curl([...frameOf(site), `https://rumble.com/embed/abc?on=${site}`]);
  return r.status;
}

async function settings() {
  const r = await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/api/settings`]);
  return JSON.parse(r.stdout);
}

async function dash(method, p, body) {
  const pg = await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/`]);
  const token = /<meta name="brock-token" content="([0-9a-f]{64})">/.exec(pg.stdout)[1];
  const r = await h.run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-X', method,
                                 '-H', `X-Brock-Token: ${token}`,
                                 '-H', 'Content-Type: application/json',
                                 '--data-binary', JSON.stringify(body),
                                 `http://127.0.0.1:${brock.port}${p}`]);
  return Number(r.stdout);
}

const reached = () => [...origin.requests, ...httpOrigin.requests]
  .filter((r) => r.path.startsWith('/.well-known/brock-'));
const embeds = (site) => origin.requests.filter((r) => r.path === `/embed/abc?on=${site}`);

before(flat('start the origins and brock, facebook.com blocked by the user', async () => {
  origins = h.originCerts(tmp, HOSTS, 'brock widgets test');
  origin = await startOrigin({ tls: origins });
  httpOrigin = await startOrigin();
  for (const s of [STATE, path.join(tmp, 'plain')]) {
    for (const cmd of [['ca', 'init'], ['set', 'facebook.com', 'block']]) {
      const r = await h.brock(s, cmd);
      assert.equal(r.code, 0, r.stderr);
    }
  }
  brock = await start(STATE);
  plain = await start(path.join(tmp, 'plain'), ['--no-inject']);
}));

after(async () => {
  if (brock) await brock.stop('SIGKILL');
  if (plain) await plain.stop('SIGKILL');
  for (const o of [origin, httpOrigin]) if (o) await o.close();
});

check('a top-level page is told to replace Rumble\'s player, with its selectors; its frame is ' +
      'blocked', async () => {
  const c = await page('site.test');
  assert.equal(c.jobs, 'srwa');
  const list = (await widgets('site.test')).filter((w) => w.name === RUMBLE);
  assert.equal(list.length, 1);
  assert.deepEqual(list[0].selectors, ['iframe[src^=\'https://rumble.com/embed/\']']);
  assert.equal(list[0].chosen, undefined, 'blocked as learned, not by the user\'s choice');
  assert.equal(await frame('site.test'), 403);
  assert.equal(embeds('site.test').length, 0);
  assert.deepEqual(reached(), [], 'the question never reached the origin');
});

check('bad widget requests are refused and change nothing', async () => {
  const site = await page('site.test');
  const other = await page('other.test');
  const allow = site.dir + 'allow';
  const good = { token: site.token, widget: RUMBLE, always: true };
  const cases = [
    [{ ...good, token: other.token }, 403, 'another host\'s token'],
    [{ ...good, token: '0'.repeat(32) }, 403, 'a wrong token'],
    ['{"token": ', 400, 'not JSON'],
    ['[]', 400, 'not an object'],
    [{ widget: RUMBLE, always: false }, 400, 'no token'],
    [{ ...good, widget: 'No Such Widget' }, 400, 'an unknown widget'],
    [{ ...good, widget: 'LinkedIn' }, 400, 'a widget that allows nothing'],
    [{ ...good, widget: 'x'.repeat(129) }, 400, 'a name too long'],
    [{ ...good, always: 'yes' }, 400, 'always not a boolean'],
    [{ token: site.token, widget: RUMBLE }, 400, 'always missing'],
    [JSON.stringify(good).replace('}', ',"token":"x"}'), 400, 'a duplicate key'],
    [{ ...good, pad: 'x'.repeat(17 * 1024) }, 413, 'past 16 KiB'],
  ];
  for (const [body, status, what] of cases) {
    const r = await post('site.test', allow, body);
    assert.equal(r.status, status, what);
  }
  let r = await post('site.test', site.dir + 'widgets', { token: other.token });
  assert.equal(r.status, 403, 'the list for another host\'s token');
  r = await curl([`https://site.test${allow}`]);
  assert.equal(r.status, 400, 'a GET');
  // Over plain HTTP, with a good token: nothing.
  r = await h.curl(brock.port, ['-X', 'POST', '--data-binary', JSON.stringify(good),
                                `http://site.test${allow}`]);
  assert.equal(r.status, 403, 'plain HTTP');
  assert.ok(await rumble('site.test'));
  assert.deepEqual((await settings()).widget_allowlist, []);
  assert.equal(await frame('site.test'), 403);
  assert.deepEqual(reached(), []);
  assert.match(brock.log(), /refused \d+ reports? of brock's page script/);
});

check('"Allow once" lets the frame load on that page only, for this client', async () => {
  const c = await page('site.test');
  const r = await post('site.test', c.dir + 'allow', { token: c.token, widget: RUMBLE,
                                                       always: false });
  assert.equal(r.status, 204);
  assert.equal(await frame('site.test'), 200);
  assert.equal(embeds('site.test').length, 1, 'the frame reached the origin');
  assert.ok(!await rumble('site.test'), 'no longer replaced there');
  assert.equal(await frame('other.test'), 403, 'another site still blocks it');
  assert.ok(await rumble('other.test'));
  assert.deepEqual((await settings()).widget_allowlist, [], 'nothing kept');
  assert.match(brock.log(), /widget Rumble Video Player allowed on site\.test for now/);
});

check('"Always allow on this site" is kept, shown and removed by the dashboard, and ' +
      'outlasts a restart; "Allow once" does not', async () => {
  const c = await page('other.test');
  const r = await post('other.test', c.dir + 'allow', { token: c.token, widget: RUMBLE,
                                                        always: true });
  assert.equal(r.status, 204);
  assert.equal(await frame('other.test'), 200);
  assert.deepEqual((await settings()).widget_allowlist, [{ site: 'other.test', widget: RUMBLE }]);
  await brock.stop();
  brock = await start(STATE);
  assert.equal(await frame('other.test'), 200, 'still allowed on other.test');
  assert.ok(!await rumble('other.test'));
  assert.equal(await frame('site.test'), 403, 'the allowance of once ended with the start');
  assert.ok(await rumble('site.test'));
  // The dashboard: an unknown pair is 404, a bad site 400; removing it blocks the frame again.
  assert.equal(await dash('DELETE', '/api/widgets/site.test', { widget: RUMBLE }), 404);
  assert.equal(await dash('DELETE', '/api/widgets/not%20a%20site', { widget: RUMBLE }), 400);
  assert.equal(await dash('DELETE', '/api/widgets/other.test', {}), 400);
  assert.equal(await dash('DELETE', '/api/widgets/other.test', { widget: RUMBLE }), 200);
  assert.deepEqual((await settings()).widget_allowlist, []);
  assert.equal(await frame('other.test'), 403);
  assert.equal(await dash('PUT', '/api/widgets/other.test', { widget: 'Nope' }), 404);
  assert.equal(await dash('PUT', '/api/widgets/other.test', { widget: 'Vimeo' }), 200);
  assert.deepEqual((await settings()).widget_allowlist, [{ site: 'other.test', widget: 'Vimeo' }]);
});

check('a frame of the page\'s own site allows the page\'s widgets there; another site\'s frame ' +
      'is told them but allows nothing, whatever it says of its page', async () => {
  await page('page3.test');
  const ofPage = async () => (await settings()).widget_allowlist.filter((w) => w.site !== 'other.test');
  // Another site's frame, as the page opens it: the page's widgets, no buttons.
  const ad = await conf('https://frames.test/html', frameOf('page3.test'));
  assert.equal(ad.jobs, 'srw');
  const list = async (c, host) => {
    const res = await post(host, c.dir + 'widgets', { token: c.token });
    assert.equal(res.status, 200);
    return JSON.parse(res.body.toString()).map((w) => w.name);
  };
  assert.ok((await list(ad, 'frames.test')).includes(RUMBLE), 'the page\'s widgets');
  for (const always of [true, false]) {
    const res = await post('frames.test', ad.dir + 'allow', {
      token: ad.token, top: true, ancestors: [], widget: RUMBLE, always });
    assert.equal(res.status, 403, `always ${always}`);
    assert.match(res.body.toString(), /never from another site's frame/);
  }
  assert.deepEqual(await ofPage(), []);
  assert.equal(await frame('page3.test'), 403, 'still blocked on the page');
  // A frame brock never saw a page open: no token at all.
  const lone = await conf('https://lone.test/html', ['-H', 'Sec-Fetch-Mode: navigate',
                                                     '-H', 'Sec-Fetch-Dest: iframe']);
  assert.deepEqual(lone, { token: '-', dir: '-', jobs: 's' });
  // The page's own site's frame: its buttons allow, on the page.
  const own = await conf('https://page3.test/html?frame', frameOf('page3.test'));
  assert.equal(own.jobs, 'swa');
  assert.ok((await list(own, 'page3.test')).includes(RUMBLE));
  let res = await post('page3.test', own.dir + 'allow', { token: own.token, widget: RUMBLE,
                                                          always: false });
  assert.equal(res.status, 204);
  assert.equal(await frame('page3.test'), 200);
  assert.ok(!await rumble('page3.test'), 'the page\'s own list too');
  assert.match(brock.log(), /widget Rumble Video Player allowed on page3\.test for now/);
  res = await post('page3.test', own.dir + 'allow', { token: own.token, widget: 'Vimeo',
                                                      always: true });
  assert.equal(res.status, 204);
  assert.deepEqual(await ofPage(), [{ site: 'page3.test', widget: 'Vimeo' }]);
});

check('a clickless "Always allow" from another site\'s frame, and an allowance over the user\'s ' +
      'own block from the page itself, are refused; Facebook\'s pixel stays blocked',
      async () => {
  await page('news.test');
  const ad = await conf('https://ads.test/html', frameOf('news.test'));
  let res = await post('ads.test', ad.dir + 'allow', {
    token: ad.token, top: false, ancestors: ['https://news.test'], widget: 'Facebook Like',
    always: true });
  assert.equal(res.status, 403);
  const top = await page('news.test');
  res = await post('news.test', top.dir + 'allow', { token: top.token, widget: 'Facebook Like',
                                                     always: true });
  assert.equal(res.status, 403);
  assert.match(res.body.toString(), /you chose to block facebook\.com/);
  res = await post('news.test', top.dir + 'allow', { token: top.token, widget: 'Facebook Like',
                                                     always: false });
  assert.equal(res.status, 403, 'not even once');
  assert.deepEqual((await settings()).widget_allowlist.filter((w) => w.site === 'news.test'), []);
  // The placeholder is told why it has no buttons.
  const fb = (await widgets('news.test')).find((w) => w.name === 'Facebook Like');
  assert.equal(fb.chosen, 'facebook.com');
  const before = origin.requests.filter((r) => r.host === 'www.facebook.com').length;
  const pixel = await curl(['-H', 'Referer: https://news.test/html', '-H', 'Sec-Fetch-Dest: image',
                            '-H', 'Sec-Fetch-Mode: no-cors', '-H', 'Sec-Fetch-Site: cross-site',
                            'https://www.facebook.com/tr?id=1&ev=PageView']);
  assert.equal(pixel.status, 204, 'the pixel is answered by brock');
  assert.equal(origin.requests.filter((r) => r.host === 'www.facebook.com').length, before,
               'and never reached Facebook');
});

check('--no-inject: no channel, the widget paths go to the origin', async () => {
  const r = await curl([...NAV, 'https://site.test/html'], plain);
  assert.doesNotMatch(r.body.toString(), /data-brock/);
  const before = origin.requests.length;
  const p = await post('site.test', '/.well-known/brock-0123456789abcdef/widgets', {}, plain);
  assert.equal(p.status, 200);
  assert.equal(origin.requests.length, before + 1);
});
