#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Chromium with no proxy setting at all, in a network namespace of the test's own whose
// outgoing 80 and 443 `brock transparent rules --apply` redirects to brock: a plain-HTTP page's
// own image loads with DNT and Sec-GPC, a blocked tracker's image does not, and an HTTPS page
// is seen inside with brock's CA, its tracker's image blocked there too, decided on the page.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy } = require('./brock.js');
const { launch, imagePage, ownLoadsTrackerBlocked } = require('./chromium.js');
const { flat } = h;

const tmp = h.tmpdir('transparent-browser-t');
const PORT = 8120; // inside the namespace: nothing else listens there
let ns, site, tlsSite, brock, browser;

function check(name, fn) {
  h.check(name, fn, 60000);
}

// The tracker's image by the page's own scheme: over HTTPS it is intercepted too.
const serve = imagePage(() => ({ own: '/pixel.gif?own', tracker: '//tracker.test/pixel.gif?t' }));

before(flat(async () => {
  // Interface names hold 15 bytes: the pid keeps two runs from taking each other's.
  ns = h.netns(`tb${process.pid % 100000}`, '10.81.0.1/24', '10.81.0.2/24');
  // IPv4 alone: the link-local address IPv6 would add a moment later is a network change to
  // Chromium, which fails what it has in flight then (ERR_NETWORK_CHANGED).
  const conf = '/proc/sys/net/ipv6/conf';
  const r0 = await h.run(ns.exec[0], [...ns.exec.slice(1), 'sh', '-c',
    `echo 1 > ${conf}/all/disable_ipv6 && echo 1 > ${conf}/${ns.name}-n/disable_ipv6`]);
  assert.equal(r0.code, 0, r0.stderr);
  const certs = h.originCerts(tmp, ['shop.test', 'tracker.test'], 'brock transparent browser');
  site = await startSite(serve, { at: [80, ns.host] });
  tlsSite = await startSite(serve, { tls: { key: certs.key, cert: certs.cert },
                                     at: [443, ns.host] });
  brock = await startProxy(path.join(tmp, 'state'), {
    intercept: true, upstreamCa: certs.ca, verbose: true, wrap: ns.exec,
    listen: `${ns.address}:0`, setup: [['--no-seed', 'set', 'tracker.test', 'block']],
    args: ['--allow', '10.81.0.0/24', '--dns', '127.0.0.1:9', '--transparent', String(PORT)] });
  const r = await h.run(ns.exec[0], [...ns.exec.slice(1), h.BROCK, 'transparent', 'rules',
                                     '--port', String(PORT), '--apply']);
  assert.equal(r.code, 0, r.stderr);
  // No proxy: the names go to the sites' side of the pair, as the network's DNS would say.
  browser = await launch(null, { ca: brock.ca, netns: ns,
                                 args: ['--no-proxy-server',
                                        `--host-resolver-rules=MAP *.test ${ns.host}`] });
}));

after(async () => {
  if (browser) await browser.close();
  if (brock) await brock.stop();
  for (const s of [site, tlsSite]) if (s) await s.close();
});

check('a plain-HTTP page, redirected: its own image loads with DNT, a blocked tracker does not',
  async () => {
    await ownLoadsTrackerBlocked(browser.context, site, 'http://shop.test/');
    assert.match(brock.log(), /GET shop\.test 200 pass on shop\.test \(transparent\)/);
  });

check('an HTTPS page, redirected, is seen inside: its tracker blocked there too', async () => {
  await ownLoadsTrackerBlocked(browser.context, tlsSite, 'https://shop.test/');
  const page = tlsSite.requests.find((r) => r.path === '/');
  assert.equal(page.headers.dnt, '1');
  assert.equal(tlsSite.to('tracker.test').length, 0);
  assert.match(brock.log(), /GET tracker\.test \d+ block on shop\.test \(transparent\)/);
});
