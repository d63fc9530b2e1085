#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Proxy auto-config in a real PAC engine: Chromium, given only brock's /proxy.pac
// (--proxy-pac-url), loads a page of a test site through brock, which the origin knows by
// brock's DNT and GPC headers; a --no-proxy host goes DIRECT, around brock (Chromium
// itself goes DIRECT to loopback whatever a PAC file says).
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const { launch } = require('./chromium.js');
const h = require('../integration/harness.js');

function check(name, fn) {
  h.check(name, fn, 60000);
}

// A site that records the headers of each request it is sent.
function startOrigin() {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push({ host: req.headers.host, path: req.url, dnt: req.headers.dnt,
                gpc: req.headers['sec-gpc'] });
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end('<!doctype html><title>A site</title><h1>Hello</h1>');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: server.address().port,
    seen,
    close: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  })));
}

const state = path.join(h.tmpdir('pac-browser'), 'state');
let origin, brock, browser;

before(async () => {
  origin = await startOrigin();
  brock = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--no-proxy', 'direct.test',
    '--resolve', `*.test=127.0.0.1:${origin.port}`] });
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
  const got = origin.seen.filter((s) => s.path === '/hello');
  assert.equal(got.length, 1, JSON.stringify(origin.seen));
  assert.equal(got[0].host, 'pages.site.test');
  // brock's headers: the request went through it.
  assert.equal(got[0].dnt, '1');
  assert.equal(got[0].gpc, '1');
  await tab.close();
});

check('a --no-proxy host goes DIRECT, around brock', async () => {
  const tab = await browser.context.newPage();
  const r = await tab.goto(`http://direct.test:${origin.port}/direct`, { timeout: 20000 });
  assert.equal(r.status(), 200);
  const got = origin.seen.filter((s) => s.path === '/direct');
  assert.equal(got.length, 1, JSON.stringify(origin.seen));
  assert.equal(got[0].dnt, undefined, 'the request went through brock');
  await tab.close();
});
