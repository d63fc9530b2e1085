#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Pixel cookie sharing (PRIVACY-BADGER.md 3.7) through `brock run`: a site's own cookie value
// copied into a third-party image's URL is tracking, with no third-party cookie at all. The
// site's cookies come from what its pages set (Set-Cookie) and send (Cookie); an HttpOnly
// cookie, which the page's scripts cannot read, and a low-entropy value are no evidence.
// `brock learn` finds the same in a recorded browsing (tests/data/har/pixel-cookie-share.har;
// tests/integration/firstparty.t replays it through `brock run` too).
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startOrigin, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { check, brock, tmpdir } = h;

let origin;

before(async () => { origin = await startOrigin(); });
after(async () => { if (origin) await origin.close(); });

function start(state) {
  return h.startBrock({ state, args: ['--no-update', '--resolve',
                                      `*.test=127.0.0.1:${origin.port}`] });
}

// A top-level page of site, setting the cookies given (Set-Cookie values) and sending the
// one given (a Cookie header value).
async function page(b, site, { set = [], send } = {}) {
  const q = set.map((c) => 'setcookie=' + encodeURIComponent(c)).join('&');
  const args = ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: document'];
  if (send) args.push('-H', `Cookie: ${send}`);
  const r = await h.curl(b.port, [...args, `http://${site}/index.html${q ? '?' + q : ''}`]);
  assert.equal(r.status, 200, `${site}: ${r.stderr}`);
}

// An image on a page of site, with no cookie of its own.
function image(b, site, url) {
  return h.curl(b.port, ['-H', `Referer: http://${site}/index.html`,
                         '-H', 'Sec-Fetch-Dest: image', '-H', 'Sec-Fetch-Mode: no-cors',
                         '-H', 'Sec-Fetch-Site: cross-site', url]);
}

// An identifier as a site would make one: 24 hex digits.
function ident(seed) {
  return sha256(seed).slice(0, 24);
}

async function evidence(state, domain) {
  const r = await brock(state, ['list', '--json', '--all']);
  assert.equal(r.code, 0, r.stderr);
  const t = JSON.parse(r.stdout).find((x) => x.domain === domain);
  return t ? t.evidence : [];
}

check('a first-party cookie copied into an image URL on three sites blocks the image host',
      async () => {
  const state = path.join(tmpdir('pixel-learn'), 'state');
  const b = await start(state);
  try {
    // Three ways a site's cookie is known: set by its page, sent by the browser, both.
    const sites = ['site-a.test', 'site-b.test', 'site-c.test'];
    await page(b, sites[0], { set: [`uid=${ident(sites[0])}; Path=/`] });
    await page(b, sites[1], { send: `lang=en; visitor=${ident(sites[1])}` });
    await page(b, sites[2], { set: [`_id=GA1.2.${ident(sites[2])}; Path=/; Max-Age=600`] });
    for (const site of sites) {
      const r = await image(b, site, `http://pixel.test/p.gif?u=${ident(site)}&x=1`);
      assert.equal(r.status, 200, `pixel.test on ${site}: ${r.stderr}`);
    }
    assert.equal(origin.to('pixel.test').length, 3);
    const r = await image(b, 'site-d.test', 'http://pixel.test/p.gif?x=1');
    // A blocked image is answered 204, nothing upstream (src/proxy/blocked.c).
    assert.equal(r.status, 204, 'blocked on a fourth site');
    assert.equal(origin.to('pixel.test').length, 3, 'the blocked request never left brock');
    // The dashboard's tracker page names the cookie and the parameter.
    const d = await h.run('curl', ['-s', '--max-time', '10',
                                   `http://127.0.0.1:${b.port}/api/trackers/pixel.test`]);
    assert.deepEqual(JSON.parse(d.stdout).evidence.map((e) => [e.kind, e.detail, e.param]),
                     [['pixelcookieshare', 'uid', 'u'], ['pixelcookieshare', 'visitor', 'u'],
                      ['pixelcookieshare', '_id', 'u']]);
    await new Promise((res) => setTimeout(res, 1500)); /* a sync tick writes the state */
  } finally {
    await b.stop();
  }
  const ev = await evidence(state, 'pixel.test');
  assert.deepEqual(ev.map((e) => [e.site, e.kind, e.detail, e.param]),
                   [['site-a.test', 'pixelcookieshare', 'uid', 'u'],
                    ['site-b.test', 'pixelcookieshare', 'visitor', 'u'],
                    ['site-c.test', 'pixelcookieshare', '_id', 'u']]);
  const exp = await brock(state, ['export']);
  assert.equal(exp.code, 0, exp.stderr);
  assert.deepEqual(JSON.parse(exp.stdout).tracking_map['pixel.test'],
                   { 'site-a.test': ['pixelcookieshare'], 'site-b.test': ['pixelcookieshare'],
                     'site-c.test': ['pixelcookieshare'] });
});

check('low-entropy values and HttpOnly cookies are no evidence', async () => {
  const state = path.join(tmpdir('pixel-none'), 'state');
  const b = await start(state);
  try {
    for (const site of ['site-e.test', 'site-f.test', 'site-g.test']) {
      // Eight digits are 26.6 bits, not an identifier; "en-US" is too short to compare.
      await page(b, site, { set: ['n=12345678; Path=/', 'loc=en-US; Path=/'] });
      assert.equal((await image(b, site, 'http://lowpix.test/p.gif?n=12345678&l=en-US'))
                     .status, 200);
      // An identifier, but HttpOnly: the page's scripts cannot have copied it; sent back by
      // the browser it stays HttpOnly.
      await page(b, site, { set: [`sid=${ident(site + 'http')}; Path=/; HttpOnly`] });
      await page(b, site, { send: `sid=${ident(site + 'http')}` });
      assert.equal((await image(b, site, `http://hopix.test/p.gif?s=${ident(site + 'http')}`))
                     .status, 200);
    }
    for (const host of ['lowpix.test', 'hopix.test'])
      assert.equal((await image(b, 'site-h.test', `http://${host}/p.gif?x=1`)).status, 200,
                   `${host} is not blocked`);
    await new Promise((res) => setTimeout(res, 1500));
  } finally {
    await b.stop();
  }
  assert.deepEqual(await evidence(state, 'lowpix.test'), []);
  assert.deepEqual(await evidence(state, 'hopix.test'), []);
});

check('brock learn finds a site\'s cookie copied into an image URL in a HAR', async () => {
  const har = path.join(process.env.BROCK_TESTDATA || path.join(__dirname, '..', 'data'),
                        'har', 'pixel-cookie-share.har');
  const state = path.join(tmpdir('pixel-har'), 'state');
  const r = await brock(state, ['learn', har]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /1 trackers newly blocked/);
  const l = await brock(state, ['list', '--json', '--all']);
  assert.equal(l.code, 0, l.stderr);
  const t = JSON.parse(l.stdout).find((x) => x.domain === 'pixel-share.test');
  assert.equal(t && t.action, 'block', l.stdout);
  // Set by the page, sent by the browser, set by the page's own fetch().
  assert.deepEqual(t.evidence.map((e) => [e.site, e.kind, e.detail, e.param]),
                   [['site-a.test', 'pixelcookieshare', 'uid', 'u'],
                    ['site-b.test', 'pixelcookieshare', 'visitor', 'u'],
                    ['site-c.test', 'pixelcookieshare', '_id', 'u']]);
  // "en", "true", eight digits; and an identifier only an HttpOnly cookie holds.
  assert.deepEqual(await evidence(state, 'lowpix.test'), []);
  assert.deepEqual(await evidence(state, 'hopix.test'), []);
  const c = await brock(state, ['check', '--site', 'site-d.test', 'pixel-share.test']);
  assert.equal(c.code, 0, c.stderr);
  assert.equal(JSON.parse(c.stdout).effect, 'block', c.stdout);
});
