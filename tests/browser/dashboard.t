#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard in a real browser: one headless Chromium browses local HTTP sites through
// brock while another shows brock's dashboard. The tracker the sites share turns red on a
// site's page once brock learns it; its slider, moved to green with the mouse, lets the next
// request reach the origin; undo makes it red again; the tracker's page lists the sites it
// tracked on; a name full of markup shows as text. A screenshot of the site page is saved
// as an artefact (in $BROCK_ARTIFACTS, default a folder under the system's temp folder).
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { launch, GIF } = require('./chromium.js');
const h = require('../integration/harness.js');

const ARTIFACTS = process.env.BROCK_ARTIFACTS || path.join(os.tmpdir(), 'brock-artifacts');
const SITES = ['news-a.test', 'shop-b.test', 'blog-c.test', 'forum-d.test'];
const TRACKER = 'pixel.tracker.test';
// A cookieblock-listed domain the seed cookieblocks: shown yellow.
const YELLOW = h.pickYellow();

function check(name, fn) {
  h.check(name, fn, 60000);
}

const tmp = h.tmpdir('dash-browser');

// Sites are pages that load the shared tracker's pixel, a font host that sets no cookie,
// and (on the fourth) a tracker seen only there and a cookieblocked domain. Trackers set an
// identifying cookie.
function startOrigin() {
  const requests = [];
  const server = http.createServer((req, res) => {
    const host = (req.headers.host || '').replace(/:\d+$/, '');
    requests.push({ host, path: req.url });
    if (host.endsWith('tracker.test')) {
      res.setHeader('Set-Cookie', `uid=${crypto.randomBytes(16).toString('hex')}; Path=/`);
      res.setHeader('Content-Type', 'image/gif');
      res.setHeader('Cache-Control', 'no-store');
      res.end(GIF);
      return;
    }
    if (host === 'fonts.cdn.test' || host === YELLOW) {
      res.setHeader('Content-Type', 'image/gif');
      res.setHeader('Cache-Control', 'no-store');
      res.end(GIF);
      return;
    }
    const extra = host === 'forum-d.test'
      ? `<img src="http://ads.newtracker.test/p.gif" alt="">` +
        `<img src="http://${YELLOW}/y.gif" alt="">`
      : '';
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Cache-Control', 'no-store');
    res.end(`<!doctype html><title>${host}</title><h1>${host}</h1>` +
            `<img src="http://${TRACKER}/p.gif?on=${host}&t=${Date.now()}" alt="">` +
            `<img src="http://fonts.cdn.test/f.gif?t=${Date.now()}" alt="">${extra}`);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: server.address().port,
    to: (host) => requests.filter((r) => r.host === host),
    close: () => { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
  })));
}

// brock with every test host resolved to the origin on port; listen is its "127.0.0.1:PORT".
async function startBrock(port) {
  const b = await h.startBrock({ state: path.join(tmp, 'state'), args: [
    '--no-update', '--resolve', `*.test=127.0.0.1:${port}`,
    '--resolve', `${YELLOW}=127.0.0.1:${port}`] });
  return { ...b, listen: `127.0.0.1:${b.port}` };
}

let origin, brock, browsing, viewing, tab, dash;

async function visit(site) {
  await tab.goto(`http://${site}/`, { waitUntil: 'load', timeout: 20000 });
}

const row = (domain) => dash.locator(`li.tracker[data-domain="${domain}"]`);

async function sitePage(site) {
  await dash.goto(`http://${brock.listen}/#/site/${site}`);
  await dash.locator('main h1', { hasText: site }).waitFor();
}

before(async () => {
  origin = await startOrigin();
  brock = await startBrock(origin.port);
  browsing = await launch(brock.listen);
  viewing = await launch(null);
  tab = await browsing.context.newPage();
  dash = await viewing.context.newPage();
  await dash.setViewportSize({ width: 400, height: 820 });
});

after(async () => {
  if (browsing) await browsing.close();
  if (viewing) await viewing.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

check('the dashboard opens, with its token and nothing browsed yet', async () => {
  await dash.goto(`http://${brock.listen}/`);
  await dash.locator('main h1', { hasText: 'Recent sites' }).waitFor();
  assert.match(await dash.locator('meta[name="brock-token"]').getAttribute('content'),
               /^[0-9a-f]{64}$/);
  assert.match(await dash.locator('main').innerText(), /No site has been visited/);
});

check('three sites teach brock the tracker; the site page shows it red', async () => {
  for (const site of SITES.slice(0, 3)) await visit(site);
  assert.equal(origin.to(TRACKER).length, 3, 'the tracker loaded while brock learned');
  await visit(SITES[3]);
  assert.equal(origin.to(TRACKER).length, 3, 'on the fourth site it never reached the origin');

  await dash.goto(`http://${brock.listen}/#/`);
  const first = dash.locator('li.siterow').first();
  await first.waitFor();
  assert.equal(await first.getAttribute('data-site'), SITES[3], 'newest first');
  assert.match(await first.innerText(), /1 blocked/);

  await dash.locator(`li.siterow a`, { hasText: SITES[3] }).click();
  await dash.locator('main h1', { hasText: SITES[3] }).waitFor();
  assert.match(await row(TRACKER).getAttribute('class'), /state-block/);
  assert.equal(await row(TRACKER).locator('input[value=block]').isChecked(), true);
  assert.equal(await row('ads.newtracker.test').getAttribute('data-action'), 'allow');
  assert.equal(await row('fonts.cdn.test').getAttribute('data-action'), 'noaction');
  assert.match(await row(YELLOW).getAttribute('class'), /state-cookieblock/);
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  await dash.screenshot({ path: path.join(ARTIFACTS, 'dashboard.png'), fullPage: true });
});

check('the slider moved to green lets the next request through; undo blocks it again', async () => {
  await sitePage(SITES[3]);
  await row(TRACKER).locator('label', { hasText: 'Allow' }).click();
  await dash.locator(`li.tracker[data-domain="${TRACKER}"][data-action="user_allow"]`)
    .waitFor();
  assert.match(await row(TRACKER).getAttribute('class'), /state-allow/);
  const before = origin.to(TRACKER).length;
  await visit('extra-e.test');
  assert.equal(origin.to(TRACKER).length, before + 1, 'the allowed tracker reached the origin');

  await sitePage(SITES[3]);
  await row(TRACKER).locator('button.undo').click();
  await dash.locator(`li.tracker[data-domain="${TRACKER}"][data-action="block"]`).waitFor();
  assert.match(await row(TRACKER).getAttribute('class'), /state-block/);
  assert.equal(await row(TRACKER).locator('button.undo').count(), 0);
  await visit('extra-f.test');
  assert.equal(origin.to(TRACKER).length, before + 1, 'blocked again after undo');
});

check('the slider works from the keyboard', async () => {
  await sitePage(SITES[3]);
  await row(TRACKER).locator('input[value=block]').focus();
  await dash.keyboard.press('ArrowRight');
  await dash.locator(`li.tracker[data-domain="${TRACKER}"][data-action="user_cookieblock"]`)
    .waitFor();
  await row(TRACKER).locator('button.undo').focus();
  await dash.keyboard.press('Enter');
  await dash.locator(`li.tracker[data-domain="${TRACKER}"][data-action="block"]`).waitFor();
});

check('the tracker page lists the three sites it tracked on', async () => {
  await sitePage(SITES[3]);
  await row(TRACKER).locator('a.name').click();
  await dash.locator('main h1', { hasText: TRACKER }).waitFor();
  const cells = await dash.locator('#evidence tbody tr td:first-child').allInnerTexts();
  assert.deepEqual(cells, SITES.slice(0, 3));
  assert.match(await dash.locator('#evidence').innerText(), /cookie|set-cookie/);
  assert.match(await dash.locator('#tracker-state').innerText(), /^block/);
});

check('a name made of markup shows as text', async () => {
  const name = '<img src=x onerror="window.pwned=1">.example';
  await dash.goto(`http://${brock.listen}/#/tracker/${encodeURIComponent(name)}`);
  await dash.locator('main h1', { hasText: 'Something went wrong' }).waitFor();
  assert.match(await dash.locator('main').innerText(), /<img src=x onerror=/);
  assert.equal(await dash.locator('main img').count(), 0);
  assert.equal(await dash.evaluate(() => window.pwned), undefined);
});
