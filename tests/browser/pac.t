#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Proxy auto-config in a real PAC engine: Chromium, given only brock's /proxy.pac
// (--proxy-pac-url), loads a page of a test site through brock, which the origin knows by
// brock's DNT and GPC headers; a --no-proxy host goes DIRECT, around brock (Chromium
// itself goes DIRECT to loopback whatever a PAC file says).
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { launch } = require('./chromium.js');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy } = require('./brock.js');

function check(name, fn) {
  h.check(name, fn, 60000);
}

// A site that records the headers of each request it is sent.
function startOrigin() {
  return startSite((req, res) => {
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end('<!doctype html><title>A site</title><h1>Hello</h1>');
  });
}

const state = path.join(h.tmpdir('pac-browser'), 'state');
let origin, brock, browser;

before(async () => {
  origin = await startOrigin();
  brock = await startProxy(state, { port: origin.port, global: ['--no-seed'],
                                    args: ['--no-proxy', 'direct.test'] });
  // Chromium's own resolver finds direct.test only when it connects without a proxy.
  browser = await launch(null, {
    args: [`--proxy-pac-url=http://127.0.0.1:${brock.port}/proxy.pac`,
           '--host-resolver-rules=MAP direct.test 127.0.0.1'] });
});

after(async () => {
  if (browser) await browser.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

check('Chromium sends a page through brock as its PAC file says', async () => {
  const tab = await browser.context.newPage();
  const r = await tab.goto('http://pages.site.test/hello', { timeout: 20000 });
  assert.equal(r.status(), 200);
  assert.equal(await tab.textContent('h1'), 'Hello');
  const got = origin.requests.filter((s) => s.path === '/hello');
  assert.equal(got.length, 1, JSON.stringify(origin.requests));
  assert.equal(got[0].headers.host, 'pages.site.test');
  // brock's headers: the request went through it.
  assert.equal(got[0].headers.dnt, '1');
  assert.equal(got[0].headers['sec-gpc'], '1');
  await tab.close();
});

check('a --no-proxy host goes DIRECT, around brock', async () => {
  const tab = await browser.context.newPage();
  const r = await tab.goto(`http://direct.test:${origin.port}/direct`, { timeout: 20000 });
  assert.equal(r.status(), 200);
  const got = origin.requests.filter((s) => s.path === '/direct');
  assert.equal(got.length, 1, JSON.stringify(origin.requests));
  assert.equal(got[0].headers.dnt, undefined, 'the request went through brock');
  await tab.close();
});
