#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's Log page: headless Chromium opens it from the nav while requests go
// through brock; a blocked request shows in red, one whose cookies are blocked in yellow;
// Pause holds new rows back until Resume; the filter and Clear act on the list.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { launch } = require('./chromium.js');
const h = require('../integration/harness.js');
const { startOrigin } = require('../integration/origin.js');
const { startProxy } = require('./brock.js');

function check(name, fn) {
  h.check(name, fn, 60000);
}

const state = path.join(h.tmpdir('livelog-browser'), 'state');
const PAGE = ['-H', 'Referer: http://news.test/'];
let origin, brock, viewing;

before(async () => {
  origin = await startOrigin();
  brock = await startProxy(state, {
    port: origin.port, global: ['--no-seed'], args: ['--workers', '1'],
    setup: [['block.test', 'block'], ['strip.test', 'cookieblock']]
      .map(([domain, action]) => ['--no-seed', 'set', domain, action]) });
  viewing = await launch(null);
});

after(async () => {
  if (viewing) await viewing.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

async function through(url, status) {
  const r = await h.curl(brock.port, [url, ...PAGE]);
  assert.equal(r.status, status, `${url}: ${r.stderr}`);
}

check('the Log page shows requests live, coloured, and pauses', async () => {
  const dash = await viewing.context.newPage();
  await dash.goto(`http://127.0.0.1:${brock.port}/`);
  await dash.getByRole('link', { name: 'Log', exact: true }).click();
  await dash.locator('h1', { hasText: 'Live log' }).waitFor();
  await dash.locator('#log-live', { hasText: 'Live.' }).waitFor();
  const rows = dash.locator('#log-rows > li.logrow');

  await through('http://ads.block.test/p.gif', 403);
  const blocked = rows.filter({ hasText: 'ads.block.test' });
  await blocked.waitFor();
  assert.equal(await blocked.getAttribute('data-decision'), 'block');
  assert.match(await blocked.textContent(), /Blocked.*GET.*ads\.block\.test.*on.*news\.test/);
  assert.match(await blocked.textContent(), /your choice · 403/);
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
