#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's Log page: headless Chromium opens it from the nav while requests go
// through brock; a blocked request shows in red, one whose cookies are blocked in yellow;
// Pause holds new rows back until Resume; the filter and Clear act on the list. A row's
// words say what decided it (a learned tracker by its count of sites), whose status it
// shows (brock's in a blocked request's place, or the server's) and when no page made the
// request; its host opens the tracker's page; a third party's row blocks or allows the host
// everywhere, or turns brock off on the site, from the keyboard too, and the next request
// is decided so; axe-core finds no violation on the page.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { launch } = require('./chromium.js');
const h = require('../integration/harness.js');
const { startOrigin } = require('../integration/origin.js');
const { startProxy } = require('./brock.js');

function check(name, fn) {
  h.check(name, fn, 60000);
}

const dir = h.tmpdir('livelog-browser');
const state = path.join(dir, 'state');
const PAGE = ['-H', 'Referer: http://news.test/'];
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
// Trackers brock learned: one seen on three sites (blocked), one on a single site (allowed).
const LEARNED = path.join(dir, 'learned.json');
fs.writeFileSync(LEARNED, JSON.stringify({ action_map: {}, snitch_map: {
  'three.test': ['a.test', 'b.test', 'c.test'], 'one.test': ['a.test'] } }));
let origin, brock, viewing;

before(async () => {
  origin = await startOrigin();
  brock = await startProxy(state, {
    port: origin.port, global: ['--no-seed'], args: ['--workers', '1'],
    setup: [...[['block.test', 'block'], ['strip.test', 'cookieblock']]
      .map(([domain, action]) => ['--no-seed', 'set', domain, action]),
            ['--no-seed', 'import', LEARNED]] });
  viewing = await launch(null);
});

after(async () => {
  if (viewing) await viewing.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

async function through(url, status, headers = PAGE) {
  const r = await h.curl(brock.port, [url, ...headers]);
  assert.equal(r.status, status, `${url}: ${r.stderr}`);
}

// brock's API as JSON (a GET needs no token).
function apiGet(what) {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: brock.port, path: what, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve(JSON.parse(text)));
    }).on('error', reject);
  });
}

// The Log page in a new tab, its stream live.
async function logPage() {
  const dash = await viewing.context.newPage();
  await dash.goto(`http://127.0.0.1:${brock.port}/#/log`);
  await dash.locator('#log-live', { hasText: 'Live.' }).waitFor();
  return dash;
}

// The newest row of host.
const newest = (dash, host) => dash.locator(`#log-rows > li.logrow[data-host="${host}"]`).first();

check('the Log page shows requests live, coloured, and pauses', async () => {
  const dash = await viewing.context.newPage();
  await dash.goto(`http://127.0.0.1:${brock.port}/`);
  await dash.getByRole('link', { name: 'Log', exact: true }).click();
  await dash.locator('h1', { hasText: 'Live log' }).waitFor();
  await dash.locator('#log-live', { hasText: 'Live.' }).waitFor();
  const rows = dash.locator('#log-rows > li.logrow');

  // The page, seen opening: its requests are of a page brock knows.
  await through('http://news.test/', 200, h.NAVIGATE_ARGS);
  await through('http://ads.block.test/p.gif', 403);
  const blocked = rows.filter({ hasText: 'ads.block.test' });
  await blocked.waitFor();
  assert.equal(await blocked.getAttribute('data-decision'), 'block');
  assert.match(await blocked.textContent(), /Blocked.*GET.*ads\.block\.test.*on.*news\.test/);
  assert.match(await blocked.textContent(), /your choice · brock answered 403 in its place/);
  // Red: the colour the dashboard gives blocked trackers everywhere.
  const colours = await dash.evaluate(() => {
    const row = document.querySelector('#log-rows > li[data-decision="block"]');
    const probe = document.createElement('span');
    probe.style.color = 'var(--block)';
    document.body.append(probe);
    const red = getComputedStyle(probe).color;
    probe.remove();
    return { row: getComputedStyle(row).borderLeftColor, red };
  });
  assert.equal(colours.row, colours.red);
  assert.match(colours.red, /^rgb\((19[0-9]|2[0-9][0-9]), \d\d?, \d\d?\)$/, 'a red');

  await through('http://cdn.strip.test/a.js', 200);
  const stripped = rows.filter({ hasText: 'cdn.strip.test' });
  await stripped.waitFor();
  assert.match(await stripped.getAttribute('class'), /state-cookieblock/);
  // Newest first.
  assert.equal(await rows.first().getAttribute('data-host'), 'cdn.strip.test');

  // Paused, a new request adds no row; resumed, it comes.
  await dash.locator('#log-pause').click();
  assert.equal(await dash.locator('#log-pause').getAttribute('aria-pressed'), 'true');
  const before = await rows.count();
  await through('http://ads.block.test/later.gif', 403);
  await dash.locator('#log-held', { hasText: '1 request held back' }).waitFor();
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await rows.count(), before, 'no new row while paused');
  await dash.locator('#log-pause', { hasText: 'Resume' }).click();
  await h.waitFor('the held row', async () => (await rows.count()) === before + 1, 5000);
  assert.equal(await rows.first().getAttribute('data-host'), 'ads.block.test');

  // The filter shows the rows that match; Clear empties the list.
  await dash.locator('#log-filter').fill('strip');
  await h.waitFor('the filter', async () =>
    (await dash.locator('#log-rows > li.logrow:visible').count()) === 1, 5000);
  await dash.locator('#log-filter').fill('');
  await dash.locator('#log-clear').click();
  assert.equal(await rows.count(), 0);
  await through('http://widgets.other.test/w.js', 200);
  await rows.filter({ hasText: 'widgets.other.test' }).waitFor();
  assert.match(await rows.first().getAttribute('class'), /state-allow/);
});

check('a row says truly what decided it, whose status it shows, and when no page made it',
      async () => {
  const dash = await logPage();
  await through('http://news.test/', 200, h.NAVIGATE_ARGS);
  await through('http://px.one.test/p.gif', 200);
  await through('http://px.three.test/p.gif', 403);
  // A browser's request of its own (fetch metadata, no page named), and one naming nothing.
  await through('http://update.test/check', 200, ['-H', 'Sec-Fetch-Site: none', '-H',
                                                  'Sec-Fetch-Mode: no-cors', '-H',
                                                  'Sec-Fetch-Dest: empty']);
  await through('http://px.three.test/bare.gif', 403, []);
  const text = async (host) => {
    await newest(dash, host).waitFor();
    return newest(dash, host).textContent();
  };
  assert.match(await text('px.one.test'),
               /Allowed.*seen tracking on fewer than three sites · the server answered 200/);
  assert.match(await text('px.three.test'), /\(no page\).*judged as any page's third party/);
  // A local address is never acted on: no third party's words, no buttons.
  await through('http://127.0.0.1:1/', 502, []);
  const local = await text('127.0.0.1');
  assert.match(local, /Left alone.*never acted on · brock answered 502 itself/);
  assert.doesNotMatch(local, /third party/);
  assert.equal(await newest(dash, '127.0.0.1').locator('button').count(), 0);
  const three = dash.locator('#log-rows > li[data-host="px.three.test"]').last();
  assert.match(await three.textContent(),
               /Blocked.*on news\.test.*seen tracking on three or more sites.*brock answered 403/);
  assert.match(await three.textContent(), /brock answered 403 in its place/);
  assert.doesNotMatch(await three.textContent(), /Allowed|fewer than three/);
  const own = await text('update.test');
  assert.doesNotMatch(own, /the page's own site|First party/);
  assert.match(own, /No page.*the browser's own request/);
  // The filter reads the new words too.
  await dash.locator('#log-filter').fill('three or more');
  await h.waitFor('the filter on words', async () =>
    (await dash.locator('#log-rows > li.logrow:visible').count()) === 2, 5000);
  assert.equal(await dash.locator('#log-rows > li.logrow:visible').first()
    .getAttribute('data-host'), 'px.three.test');
  await dash.locator('#log-filter').fill('');
  await dash.close();
});

check('a row opens its tracker, and blocks, allows or turns brock off from the keyboard',
      async () => {
  const dash = await logPage();
  await through('http://news.test/', 200, h.NAVIGATE_ARGS);
  await through('http://pixel.allowed.test/a.gif', 200);
  await through('http://ads.block.test/again.gif', 403);

  // The host is a link to the tracker's page.
  const allowed = newest(dash, 'pixel.allowed.test');
  await allowed.waitFor();
  await allowed.getByRole('link', { name: 'pixel.allowed.test' }).click();
  await dash.waitForURL(/#\/tracker\/pixel\.allowed\.test$/);
  await dash.locator('h1', { hasText: 'pixel.allowed.test' }).waitFor();
  await dash.goBack();
  await dash.locator('#log-live', { hasText: 'Live.' }).waitFor();

  // No violation with rows of every kind and their buttons on the page.
  await newest(dash, 'pixel.allowed.test').waitFor();
  await dash.evaluate(AXE);
  for (const [colorScheme, width] of [['light', 1100], ['dark', 380]]) {
    await dash.emulateMedia({ colorScheme });
    await dash.setViewportSize({ width, height: 800 });
    const found = await dash.evaluate(async () =>
      (await window.axe.run(document, { resultTypes: ['violations'],
                                        rules: { 'target-size': { enabled: true } } }))
        .violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`));
    assert.deepEqual(found, [], `${colorScheme}, ${width} px wide`);
  }
  await dash.emulateMedia({ colorScheme: 'light' });

  // Block, by keyboard alone: from the host's link, Tab reaches the row's buttons.
  const row = newest(dash, 'pixel.allowed.test');
  await row.getByRole('link', { name: 'pixel.allowed.test' }).focus();
  const block = row.getByRole('button', { name: 'Block pixel.allowed.test' });
  for (let i = 0; i < 4 && !(await block.evaluate((b) => b === document.activeElement)); i++)
    await dash.keyboard.press('Tab');
  assert.ok(await block.evaluate((b) => b === document.activeElement), 'Tab reaches Block');
  await dash.keyboard.press('Enter');
  await row.locator('.now', { hasText: 'now blocked by you' }).waitFor();
  await dash.locator('#status', { hasText: 'pixel.allowed.test' }).waitFor();
  await h.waitFor('user_block', async () =>
    (await apiGet('/api/trackers/pixel.allowed.test')).action === 'user_block', 5000);
  // The row stays as it was decided; the next request is blocked, a new red row.
  assert.equal(await row.getAttribute('data-decision'), 'allow');
  await through('http://pixel.allowed.test/b.gif', 403);
  await h.waitFor('the blocked row', async () =>
    (await newest(dash, 'pixel.allowed.test').getAttribute('data-decision')) === 'block', 5000);

  // Allow a blocked one.
  const red = dash.locator('#log-rows > li.logrow[data-host="ads.block.test"]').first();
  await red.getByRole('button', { name: 'Allow ads.block.test' }).click();
  await red.locator('.now', { hasText: 'now allowed by you' }).waitFor();
  await h.waitFor('user_allow', async () =>
    (await apiGet('/api/trackers/ads.block.test')).action === 'user_allow', 5000);
  await through('http://ads.block.test/now.gif', 200);
  await h.waitFor('the allowed row', async () =>
    (await newest(dash, 'ads.block.test').getAttribute('data-decision')) === 'allow', 5000);

  // Turn brock off on the row's site.
  await newest(dash, 'ads.block.test')
    .getByRole('button', { name: 'Disable on this site (news.test)' }).click();
  await h.waitFor('news.test disabled', async () =>
    (await apiGet('/api/settings')).disabled_sites.includes('news.test'), 5000);
  await dash.locator('#status', { hasText: 'brock is off on news.test' }).waitFor();
  await dash.close();
});
