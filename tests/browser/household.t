#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// A household on one brock, in Debian's Chromium: two devices, each in a network namespace of
// its own (a veth pair, 198.18.1.2 and 198.18.2.2; the first named "laptop" by the owner),
// browse through brock at their end of the pair. Each opens brock's address and sees its own
// page: its name, its sites and their third parties, its requests; never the other's. The
// owner, on this machine, sees everyone's sites and each device's on its own.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { launch, GIF } = require('./chromium.js');
const { startProxy } = require('./brock.js');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { flat, check } = h;

const tmp = h.tmpdir('household-t');
// Interface names hold 15 bytes: the pid keeps two runs from taking each other's.
const tag = `bk${process.pid % 100000}`;
let origin, brock, owner;
const devices = {};

// Each device's home page loads a pixel of its own third party.
const HOMES = { laptop: ['home-a.test', 'px.tracker-a.test'],
                other: ['home-b.test', 'px.tracker-b.test'] };

before(flat(async () => {
  origin = await startSite((req, res, host) => {
    if (req.url.endsWith('.gif')) {
      res.writeHead(200, { 'Content-Type': 'image/gif' });
      res.end(GIF);
      return;
    }
    const [, pixel] = Object.values(HOMES).find(([home]) => home === host) || [];
    res.writeHead(200, { 'Content-Type': 'text/html' });
    res.end(`<!doctype html><title>${host}</title>` +
            (pixel ? `<img src="http://${pixel}/px.gif" alt="">` : ''));
  });
  const laptop = h.netns(`${tag}a`, '198.18.1.1/30', '198.18.1.2/30');
  const other = h.netns(`${tag}b`, '198.18.2.1/30', '198.18.2.2/30');
  brock = await startProxy(path.join(tmp, 'state'), {
    port: origin.port, global: ['--no-seed'], listen: '0.0.0.0:0',
    // Both third parties blocked for everyone from the start.
    setup: Object.values(HOMES).map(([, pixel]) => ['--no-seed', 'set', pixel, 'block']),
    args: ['--allow', '127.0.0.0/8', '--allow', '198.18.0.0/15', '--local', '127.0.0.1',
           '--client', `laptop=${laptop.address}`] });
  for (const [name, ns] of [['laptop', laptop], ['other', other]]) {
    const proxy = `${ns.host}:${brock.port}`;
    devices[name] = { ns, base: `http://${proxy}`,
                      browser: await launch(proxy, { netns: ns,
                                                     secureOrigins: [`http://${HOMES[name][0]}`] }) };
  }
  owner = await launch(null);
}));

after(async () => {
  for (const d of Object.values(devices)) await d.browser.close();
  if (owner) await owner.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

check('each device sees its own page: its name, its sites, its requests; never the other\'s',
      async () => {
  for (const [name, [home, pixel]] of Object.entries(HOMES)) {
    const d = devices[name];
    const page = await d.browser.context.newPage();
    await page.goto(`http://${home}/`, { waitUntil: 'load' });
    await page.goto(`${d.base}/`, { waitUntil: 'load' });
    assert.equal(await page.title(), 'brock on this network');
    // Written by the worker that proxied the visit, read by the one that answers: waited for.
    await h.waitFor(`${name}'s site`, () => page.evaluate(async (site) =>
      (await (await fetch('/api/sites')).json()).some((s) => s.site === site), home), 20000);
    await page.reload({ waitUntil: 'load' });
    d.page = page;
    await page.locator('#me', { hasText: name === 'laptop' ? 'laptop (198.18.1.2)'
                                                           : '198.18.2.2' }).waitFor();
    const item = page.locator(`#sites li[data-site="${home}"]`);
    await item.waitFor();
    assert.deepEqual(await page.locator('#sites li').evaluateAll(
      (els) => els.map((e) => e.dataset.site)), [home]);
    await item.locator('summary').click();
    await item.locator('li', { hasText: pixel }).waitFor();
    // Its own requests in the live log.
    await page.locator('#rows tr', { hasText: pixel }).first().waitFor();
    const text = await page.locator('main').innerText();
    const others = Object.values(HOMES).flat().filter((n) => !HOMES[name].includes(n));
    for (const n of others) assert.ok(!text.includes(n), `${name} sees nothing of ${n}`);
    // The owner's pages send it to the sign-in.
    const r = await page.evaluate(async () => (await fetch('/api/settings')).status);
    assert.equal(r, 401);
  }
});

check('the owner sees everyone\'s sites, and each device\'s on its own', async () => {
  const page = await owner.context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${brock.port}/#/sites`, { waitUntil: 'load' });
    const rows = () => page.locator('#site-rows li').evaluateAll(
      (els) => els.map((e) => e.dataset.site).sort());
    await page.locator('#site-rows li[data-site="home-b.test"]').waitFor();
    assert.deepEqual(await rows(), ['home-a.test', 'home-b.test']);
    const pick = page.locator('#sites-client');
    await pick.waitFor();
    const options = await pick.locator('option').allInnerTexts();
    assert.ok(options.some((o) => o.startsWith('laptop (198.18.1.2)')), options.join());
    assert.ok(options.some((o) => o.startsWith('198.18.2.2')), options.join());
    await pick.selectOption('laptop');
    await page.waitForURL(/#\/sites\/laptop$/);
    await page.locator('h1', { hasText: 'Recent sites of laptop' }).waitFor();
    await page.locator('#site-rows li').first().waitFor();
    assert.deepEqual(await rows(), ['home-a.test']);
    await pick.selectOption('198.18.2.2');
    await page.locator('h1', { hasText: 'Recent sites of 198.18.2.2' }).waitFor();
    await page.locator('#site-rows li').first().waitFor();
    assert.deepEqual(await rows(), ['home-b.test']);
  } finally {
    await page.close();
  }
}, 60000);

// Whether the device's home page, opened now, loads its third party's pixel.
async function pixelLoads(name) {
  const [home, pixel] = HOMES[name];
  const before = origin.to(pixel).length;
  const page = await devices[name].browser.context.newPage();
  try {
    await page.goto(`http://${home}/`, { waitUntil: 'load' });
  } finally {
    await page.close();
  }
  return origin.to(pixel).length > before;
}

check('a device turns brock off on its site for itself; the other device keeps brock on',
      async () => {
  assert.equal(await pixelLoads('laptop'), false, 'blocked for everyone');
  const { page } = devices.laptop;
  await page.reload({ waitUntil: 'load' });
  const toggle = page.locator('#sites li[data-site="home-a.test"] button[data-site]');
  await toggle.waitFor();
  await toggle.click();
  await page.locator('#offsites li', { hasText: 'home-a.test' }).waitFor();
  assert.equal(await toggle.innerText(), 'Turn brock on here');
  assert.equal(await pixelLoads('laptop'), true, 'off for the laptop');
  assert.equal(await pixelLoads('other'), false, 'on for the other device');
  // Paused for itself: the other device's site too would load, for it alone.
  await page.locator('#offsites li button').click();
  await page.locator('#offsites li').waitFor({ state: 'detached' });
  assert.equal(await pixelLoads('laptop'), false);
  await page.click('#pause-hour');
  await page.locator('#switch', { hasText: 'paused for this device' }).waitFor();
  assert.equal(await pixelLoads('laptop'), true);
  assert.equal(await pixelLoads('other'), false);
  await page.click('#resume');
  await page.locator('#switch', { hasText: 'brock is on for this device' }).waitFor();
  assert.equal(await pixelLoads('laptop'), false);
}, 60000);

check('the owner turns brock off on a site for one device alone', async () => {
  const page = await owner.context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${brock.port}/#/sites/198.18.2.2`, { waitUntil: 'load' });
    const off = page.locator('#site-rows li[data-site="home-b.test"] button.client-site');
    await off.waitFor();
    assert.equal(await off.innerText(), 'Turn brock off here for 198.18.2.2');
    await off.click();
    await page.locator('#client-off li', { hasText: 'home-b.test' }).waitFor();
    assert.equal(await pixelLoads('other'), true, 'off for that device');
    assert.equal(await pixelLoads('laptop'), false, 'on for the laptop');
    await page.locator('#client-off li button').click();
    await page.locator('#client-off').waitFor({ state: 'detached' });
    assert.equal(await pixelLoads('other'), false, 'on again');
    await page.click('#client-pause');
    await page.locator('#client-resume').waitFor();
    assert.equal(await pixelLoads('other'), true, 'paused for that device');
    await page.click('#client-resume');
    await page.locator('#client-pause').waitFor();
    assert.equal(await pixelLoads('other'), false);
  } finally {
    await page.close();
  }
}, 60000);
