#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// A real browser through `brock run --intercept`: Debian's Chromium, headless, trusting
// brock's CA through an NSS database in a temporary HOME, browses four local HTTPS sites
// that embed the same tracker image and a yellowlisted one. The tracker arrives with a
// Referer and DNT/GPC while brock learns, is blocked after the third site, and the fourth
// site's request for it never reaches the origin; the yellowlisted image loads without
// cookies either way. Then the tracker's own site, typed in the address bar, loads as a first
// party inside the intercepted tunnel, while the fourth site's requests for its script and
// stylesheet are answered empty inside TLS and the page goes on; a blocked analytics.js is
// answered with its surrogate, so that the page's ga() calls work. The origin's certificates
// are made here with the openssl CLI.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { GIF } = require('./chromium.js');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy, protocols } = require('./brock.js');
const { flat, check } = h;

const SITES = ['site1.test', 'site2.test', 'site3.test', 'site4.test'];
const TRACKER = 'pixel-tracker.test';
// Blocked by the seed, with a surrogate for its analytics.js (the test data's
// surrogate-rules.json and web_accessible_resources/google_analytics.js).
const ANALYTICS = 'www.google-analytics.com';

const tmp = h.tmpdir('https-t');

// The sites: each page embeds the tracker's image (a fresh URL per page, never cached)
// and the yellowlisted one; both images set an identifying cookie.
function startOrigin(certs, yellow) {
  return startSite((req, res, host) => {
    res.setHeader('Cache-Control', 'no-store');
    if ((host === TRACKER && req.url.startsWith('/pixel.gif')) || host === yellow) {
      res.setHeader('Set-Cookie',
                    `uid=${crypto.randomBytes(16).toString('hex')}; Path=/; SameSite=None; Secure`);
      res.setHeader('Content-Type', 'image/gif');
      // Lets the page read the image's timing: which protocol it came over.
      res.setHeader('Timing-Allow-Origin', '*');
      res.end(GIF);
      return;
    }
    if (host === TRACKER && req.url === '/') {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><title>${TRACKER}</title><h1>the tracker's own page</h1>`);
      return;
    }
    if (host === TRACKER) {
      const js = req.url.startsWith('/t.js');
      res.setHeader('Content-Type', js ? 'application/javascript' : 'text/css');
      res.end(js ? 'window.tracked = true;\n' : 'h1 { color: red; }\n');
      return;
    }
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    if (host === ANALYTICS) {
      res.setHeader('Content-Type', 'application/javascript');
      res.end('window.realAnalytics = true;\n');
      return;
    }
    if (req.url === '/with-analytics') {
      // A page that calls ga() as sites do, with a callback it waits for.
      res.end(`<!doctype html><title>with analytics</title>
        <script src="https://${ANALYTICS}/analytics.js"></script>
        <script>
          window.result = { error: null, called: false };
          try {
            ga('create', 'UA-00000-1', 'auto');
            ga('send', 'pageview', { hitCallback: () => { window.result.called = true; } });
          } catch (e) {
            window.result.error = String(e);
          }
        </script>
        <h1>${host}</h1>`);
      return;
    }
    if (req.url === '/with-script') {
      // A page that loads the tracker's script and stylesheet, and says what happened.
      res.end(`<!doctype html><title>with script</title>
        <link rel="stylesheet" href="https://${TRACKER}/t.css">
        <script>window.loaded = [];</script>
        <script src="https://${TRACKER}/t.js" onload="loaded.push('js')"
                onerror="loaded.push('js error')"></script>
        <h1>${host}</h1>`);
      return;
    }
    res.end(`<!doctype html><title>${host}</title><h1>${host}</h1>` +
            `<img id="t" src="https://${TRACKER}/pixel.gif?on=${host}">` +
            `<img id="y" src="https://${yellow}/pixel.gif?on=${host}">`);
  }, { tls: { key: certs.key, cert: certs.cert } });
}

let origin, brock, browser, yellow;
const state = path.join(tmp, 'state');

before(flat(async () => {
  yellow = h.pickYellow();
  const certs = h.originCerts(tmp, [...SITES, TRACKER, yellow, ANALYTICS],
                              'brock browser test');
  origin = await startOrigin(certs, yellow);
  brock = await startProxy(state, { port: origin.port, hosts: [yellow, ANALYTICS],
                                    intercept: true, upstreamCa: certs.ca, verbose: true,
                                    browser: { thirdPartyCookies: true } });
  browser = brock.browser;
  // A cookie the browser already holds for the yellowlisted domain: brock must keep it home.
  await browser.context.addCookies([{ name: 'yid', value: '8c1f0e9a7b6d5c4e3f21a0b9',
                                      domain: yellow, path: '/', secure: true,
                                      sameSite: 'None' }]);
}));

after(async () => {
  if (browser) await browser.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

// Opens site's page and reports which of its images loaded, and the Cookie headers the
// browser itself sent to the yellowlisted host (before brock).
async function visit(site) {
  const page = await browser.context.newPage();
  const sentCookies = [];
  page.on('requestfinished', (req) => {
    if (new URL(req.url()).hostname === yellow)
      sentCookies.push(req.allHeaders().then((h) => h.cookie || ''));
  });
  try {
    await page.goto(`https://${site}/`, { waitUntil: 'load', timeout: 20000 });
    const title = await page.title();
    const loaded = await page.evaluate(() => Object.fromEntries(
      [...document.images].map((i) => [i.id, i.complete && i.naturalWidth > 0])));
    return { title, loaded, sentCookies: await Promise.all(sentCookies),
             proto: await protocols(page) };
  } finally {
    await page.close();
  }
}

function trackerFrom(site) {
  return origin.to(TRACKER).filter((r) => r.path === `/pixel.gif?on=${site}`);
}

check('Chromium learns a tracker over HTTPS through brock, then blocks it', async () => {
  for (const site of SITES.slice(0, 3)) {
    const v = await visit(site);
    assert.equal(v.title, site, `${site} loads through brock, its certificate trusted`);
    assert.equal(v.loaded.t, true, `the tracker's image loads on ${site} while brock learns`);
    // Every rule of this file is met on HTTP/2 streams: the browser chose it with brock.
    assert.equal(v.proto.page, 'h2', `${site} came over HTTP/2`);
    assert.equal(v.proto.resources[`https://${TRACKER}/pixel.gif?on=${site}`], 'h2',
                 'and the tracker\'s image too');
    const [rec] = trackerFrom(site);
    assert.ok(rec, `the tracker's request from ${site} reached the origin`);
    assert.equal(rec.headers.referer, `https://${site}/`);
    assert.equal(rec.headers.dnt, '1');
    assert.equal(rec.headers['sec-gpc'], '1');
    const [page] = origin.to(site);
    assert.equal(page.headers['sec-fetch-mode'], 'navigate', 'the page itself went through');
  }
  assert.match(brock.log(), new RegExp(`learned: ${TRACKER.replace(/\./g, '\\.')} tracks across`));
  const v = await visit(SITES[3]);
  assert.equal(v.title, SITES[3]);
  assert.equal(v.loaded.t, false, 'the tracker\'s image is blocked on the fourth site');
  assert.equal(trackerFrom(SITES[3]).length, 0, 'and its request never reached the origin');
  assert.match(brock.log(), new RegExp(`block ${TRACKER.replace(/\./g, '\\.')}`),
               'brock saw the request and blocked it');
}, 120000);

check('the yellowlisted tracker loads without cookies', async () => {
  const seen = origin.to(yellow);
  assert.ok(seen.length >= SITES.length, `loaded on every site (${seen.length})`);
  for (const r of seen) {
    assert.equal(r.headers.cookie, undefined, `no Cookie on ${r.path}`);
    assert.equal(r.headers.dnt, '1');
  }
  const v = await visit(SITES[0]);
  assert.equal(v.loaded.y, true, 'the image still loads');
  assert.ok(v.sentCookies.length > 0 && v.sentCookies.every((c) => /yid=/.test(c)),
            `the browser did send its cookie: ${JSON.stringify(v.sentCookies)}`);
  const last = origin.to(yellow).at(-1);
  assert.equal(last.path, `/pixel.gif?on=${SITES[0]}`);
  assert.equal(last.headers.cookie, undefined, 'and brock kept it home');
  const cookies = await browser.context.cookies(`https://${yellow}/`);
  assert.deepEqual(cookies.map((c) => c.name), ['yid'], 'no Set-Cookie reached the browser');
}, 60000);

check('the blocked tracker\'s own site loads as a first party; its scripts elsewhere are emptied',
      async () => {
  const page = await browser.context.newPage();
  try {
    await page.goto(`https://${TRACKER}/`, { waitUntil: 'load', timeout: 20000 });
    assert.equal(await page.title(), TRACKER, 'the blocked tracker\'s own page loaded');
    const own = origin.to(TRACKER).filter((r) => r.path === '/');
    assert.equal(own.length, 1, 'and came from its origin');
    assert.equal(own[0].headers['sec-fetch-dest'], 'document');
    // The fourth site's page loads the tracker's script and stylesheet: both answered by
    // brock, empty and of their type, so the page runs on and says so.
    await page.goto(`https://${SITES[3]}/with-script`, { waitUntil: 'load', timeout: 20000 });
    const got = await page.evaluate(() => ({
      loaded: window.loaded, tracked: window.tracked === true,
      sheets: [...document.styleSheets].length,
      colour: getComputedStyle(document.querySelector('h1')).color,
    }));
    assert.deepEqual(got.loaded, ['js'], 'the script element loaded, without error');
    assert.equal(got.tracked, false, 'and ran nothing of the tracker\'s');
    assert.equal(got.colour, 'rgb(0, 0, 0)', 'the tracker\'s stylesheet did not apply');
    assert.equal(origin.to(TRACKER).filter((r) => /^\/t\.(js|css)/.test(r.path)).length, 0,
                 'neither reached the tracker');
  } finally {
    await page.close();
  }
}, 60000);

check('a blocked analytics.js is answered with its surrogate, and the page\'s ga() works',
      async () => {
  const page = await browser.context.newPage();
  try {
    await page.goto(`https://${SITES[0]}/with-analytics`, { waitUntil: 'load', timeout: 20000 });
    const got = await page.evaluate(() => ({ ...window.result, real: window.realAnalytics }));
    assert.equal(got.error, null, 'ga() did not throw');
    assert.equal(got.called, true, 'the surrogate called the page back');
    assert.equal(got.real, undefined, 'the real script never ran');
    // Only brock's own check of the host's DNT policy may reach it (a learned block).
    assert.deepEqual(origin.to(ANALYTICS).map((r) => r.path)
                       .filter((p) => p !== '/.well-known/dnt-policy.txt'), [],
                     'the script was never fetched');
    assert.match(brock.log(), /www\.google-analytics\.com/);
  } finally {
    await page.close();
  }
}, 60000);
