#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock's script in pages, in a real browser: Chromium through `brock run --intercept` opens
// local HTTPS pages and reads navigator.globalPrivacyControl and navigator.doNotTrack as
// brock's script set them. A page whose Content-Security-Policy says script-src 'self' still
// runs its own external script and still has its own inline script refused (brock added its
// script's hash, not 'unsafe-inline'); a <meta> policy that refuses every script comes after
// brock's script, which runs; a gzip page gets it too; with --no-inject nothing changes.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const zlib = require('node:zlib');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy, protocols } = require('./brock.js');
const { flat, check } = h;

const tmp = h.tmpdir('inject-browser-t');

// What each page says about itself once loaded.
const REPORT = '<script src="/report.js"></script>';

// The pages: /csp (a policy of script-src 'self', an external script and an inline one of
// its own), /meta (a <meta> policy refusing every script), /gzip (a plain page, gzip).
function startOrigin(certs) {
  return startSite((req, res) => {
    res.setHeader('Cache-Control', 'no-store');
    if (req.url === '/own.js' || req.url === '/report.js') {
      res.setHeader('Content-Type', 'text/javascript');
      res.end(req.url === '/own.js' ? 'window.ownRan = true;'
        : 'document.title = JSON.stringify({ gpc: navigator.globalPrivacyControl, ' +
          'dnt: navigator.doNotTrack, own: window.ownRan === true, ' +
          'inline: window.inlineRan === true });');
      return;
    }
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    if (req.url === '/csp') {
      res.setHeader('Content-Security-Policy', "script-src 'self'");
      res.end('<!DOCTYPE html><html><head><title>x</title>' +
              '<script src="/own.js"></script><script>window.inlineRan = true;</script>' +
              `</head><body>${REPORT}</body></html>`);
      return;
    }
    if (req.url === '/meta') {
      // Nothing of the page's may run: its title says what brock's script set, read back by
      // the test.
      res.end('<!DOCTYPE html><html><head>' +
              '<meta http-equiv="Content-Security-Policy" content="script-src \'none\'">' +
              '<title>meta</title></head><body></body></html>');
      return;
    }
    res.setHeader('Content-Encoding', 'gzip');
    res.end(zlib.gzipSync('<!DOCTYPE html><html><head><title>x</title></head>' +
                          `<body>${REPORT}</body></html>`));
  }, { tls: { key: certs.key, cert: certs.cert } });
}

let origin, brock, plain, browser, plainBrowser;

// brock seeing inside HTTPS, and a Chromium through it.
async function startBrock(name, args) {
  const b = await startProxy(path.join(tmp, name), {
    port: origin.port, intercept: true, upstreamCa: path.join(tmp, 'ca.pem'), verbose: true,
    args, browser: {} });
  return [b, b.browser];
}

before(flat('setting up', async () => {
  origin = await startOrigin(h.originCerts(tmp, ['site.test'], 'brock inject test'));
  [brock, browser] = await startBrock('state', []);
  [plain, plainBrowser] = await startBrock('plain', ['--no-inject']);
}));

after(async () => {
  for (const b of [browser, plainBrowser]) if (b) await b.close();
  for (const b of [brock, plain]) if (b) await b.stop();
  if (origin) await origin.close();
});

// Opens url and returns what the page's report (its title) says.
async function report(b, url) {
  const page = await b.context.newPage();
  try {
    await page.goto(url, { waitUntil: 'load', timeout: 20000 });
    await h.waitFor('the report', async () => (await page.title()).startsWith('{'), 10000);
    // The script and its CSP hash go into pages the browser fetched over HTTP/2.
    assert.equal((await protocols(page)).page, 'h2');
    return JSON.parse(await page.title());
  } finally {
    await page.close();
  }
}

check('under script-src \'self\', brock\'s script runs, the page\'s own external one too, ' +
      'its inline one is still refused', async () => {
  const r = await report(browser, 'https://site.test/csp');
  assert.deepEqual(r, { gpc: true, dnt: '1', own: true, inline: false });
}, 60000);

check('a gzip page gets the script', async () => {
  const r = await report(browser, 'https://site.test/gzip');
  assert.equal(r.gpc, true);
  assert.equal(r.dnt, '1');
}, 60000);

check('a <meta> policy comes after brock\'s script, which runs', async () => {
  const page = await browser.context.newPage();
  try {
    await page.goto('https://site.test/meta', { waitUntil: 'load', timeout: 20000 });
    // The test's own evaluation is not the page's script: CSP does not refuse it.
    const gpc = await page.evaluate(() => navigator.globalPrivacyControl);
    assert.equal(gpc, true);
  } finally {
    await page.close();
  }
}, 60000);

check('--no-inject: the page reads what Chromium says itself', async () => {
  const r = await report(plainBrowser, 'https://site.test/csp');
  assert.equal(r.own, true);
  assert.equal(r.inline, false);
  assert.notEqual(r.gpc, true);
}, 60000);
