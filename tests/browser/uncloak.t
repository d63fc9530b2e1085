#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// CNAME uncloaking in a real browser: Chromium through `brock run --dns` (a dnsmasq the test
// starts) opens a shop whose page loads an image from its own metrics.shop.test, which DNS
// answers as an alias of a blocked tracker's name, two hops deep. The image never reaches its
// server; the dashboard's live log says "via CNAME" and its switch turns uncloaking off (the
// image loads) and on again.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy } = require('./brock.js');
const { launch, imagePage } = require('./chromium.js');
const { flat } = h;

const tmp = h.tmpdir('uncloak-browser-t');
let dns, site, brock, browser, dash;

function check(name, fn) {
  h.check(name, fn, 60000);
}

const serve = imagePage(() => ({
  pix: '/pixel.gif?on=page', metrics: `http://metrics.shop.test:${site.port}/pixel.gif?v=1` }));

before(flat(async () => {
  site = await startSite(serve);
  dns = await h.startDnsmasq(await h.freePort(), [
    '--local-ttl=300', '--host-record=www.shop.test,127.0.0.1',
    '--host-record=edge.trk.test,127.0.0.1', '--cname=metrics.shop.test,mid.trk.test',
    '--cname=mid.trk.test,edge.trk.test']);
  // No --resolve: every name goes to the test's DNS.
  brock = await startProxy(path.join(tmp, 'state'), {
    setup: [['--no-seed', 'set', 'trk.test', 'block']],
    args: ['--dns', `127.0.0.1:${dns.port}`] });
  browser = await launch(brock.listen);
  dash = await launch(null);
}));

after(async () => {
  for (const b of [browser, dash]) if (b) await b.close();
  if (brock) await brock.stop();
  if (site) await site.close();
  if (dns) dns.stop();
});

// The shop's page opened; whether its metrics image loaded.
async function metricsLoaded() {
  const page = await browser.context.newPage();
  await page.goto(`http://www.shop.test:${site.port}/`);
  await page.waitForFunction(() => ['pix', 'metrics'].every((id) =>
    document.getElementById(id).complete));
  const loaded = await page.evaluate(() => document.getElementById('metrics').naturalWidth > 0);
  assert.equal(await page.evaluate(() => document.getElementById('pix').naturalWidth), 1);
  await page.close();
  return loaded;
}

check('a first-party host that is a tracker\'s alias in DNS is blocked', async () => {
  assert.equal(await metricsLoaded(), false);
  assert.equal(site.to('metrics.shop.test').length, 0, 'the image never left brock');
  assert.ok(site.to('www.shop.test').length >= 2, 'the page and its own image loaded');
});

check('the live log says via CNAME; the switch turns uncloaking off and on', async () => {
  const page = await dash.context.newPage();
  await page.goto(`http://${brock.listen}/#/log`);
  await page.locator('.logrow[data-host="metrics.shop.test"]',
                     { hasText: 'via CNAME edge.trk.test' }).first().waitFor();

  await page.goto(`http://${brock.listen}/#/settings`);
  const box = page.getByLabel(/See through CNAME cloaking/);
  assert.equal(await box.isChecked(), true);
  await box.uncheck();
  await page.locator('#status', { hasText: 'See through CNAME cloaking: off' }).waitFor();
  assert.equal(await metricsLoaded(), true);
  assert.equal(site.to('metrics.shop.test').length, 1);
  await page.getByLabel(/See through CNAME cloaking/).check();
  await page.locator('#status', { hasText: 'See through CNAME cloaking: on' }).waitFor();
  assert.equal(await metricsLoaded(), false);
  assert.equal(site.to('metrics.shop.test').length, 1);
  await page.close();
});
