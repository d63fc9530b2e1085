#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Chromium through brock's SOCKS5 port (--proxy-server=socks5://), with no HTTP proxy at all:
// a plain-HTTP page's own image loads with DNT, a blocked tracker's image does not, and an
// HTTPS page is seen inside with brock's CA, as through the HTTP proxy.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy } = require('./brock.js');
const { launch, imagePage, ownLoadsTrackerBlocked } = require('./chromium.js');
const { flat } = h;

const tmp = h.tmpdir('socks-browser-t');
let site, tlsSite, brock, browser, socksPort;

function check(name, fn) {
  h.check(name, fn, 60000);
}

const serve = imagePage(() => ({ own: '/pixel.gif?own',
                                  tracker: 'http://tracker.test/pixel.gif?t' }));

before(flat(async () => {
  const certs = h.originCerts(tmp, ['shop.test'], 'brock socks browser test');
  site = await startSite(serve);
  tlsSite = await startSite(serve, { tls: { key: certs.key, cert: certs.cert } });
  socksPort = await h.freePort();
  brock = await startProxy(path.join(tmp, 'state'), {
    port: site.port, intercept: true, upstreamCa: certs.ca, verbose: true,
    setup: [['--no-seed', 'set', 'tracker.test', 'block']],
    resolveFirst: [`shop.test:443=127.0.0.1:${tlsSite.port}`],
    args: ['--workers', '1', '--socks', `127.0.0.1:${socksPort}`] });
  browser = await launch(null, { ca: brock.ca, socks: `127.0.0.1:${socksPort}` });
}));

after(async () => {
  if (browser) await browser.close();
  if (brock) await brock.stop();
  for (const s of [site, tlsSite]) if (s) await s.close();
});

check('a plain-HTTP page through SOCKS: its own image loads, a blocked tracker does not',
  async () => {
    await ownLoadsTrackerBlocked(browser.context, site, 'http://shop.test/');
  });

check('an HTTPS page through SOCKS is seen inside', async () => {
  await ownLoadsTrackerBlocked(browser.context, tlsSite, 'https://shop.test/');
  const page = tlsSite.requests.find((r) => r.path === '/');
  assert.equal(page.headers.dnt, '1');
  assert.match(brock.log(), /GET shop\.test 200/);
});
