#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock off for a while, on the dashboard in a real browser: on the map, "Pause brock: 10
// minutes" pauses brock (the API says so, a blocked tracker passes), a countdown runs and a
// Resume button ends it; "until I resume" shows no countdown. On a site's page, "Turn off on
// this site: 10 minutes" turns brock off there with its own countdown, and "Turn it back on"
// ends that; a pause shown there counts down too. A pause with seconds left is over on the
// page by itself, without a click.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { launch } = require('./chromium.js');
const h = require('../integration/harness.js');
const { startOrigin } = require('../integration/origin.js');
const { startProxy } = require('./brock.js');

const TRACKER = 'tracker-d.test';
const SITE = 'news-d.test';

function check(name, fn) {
  h.check(name, fn, 60000);
}

let origin, brock, viewing, dash, state;

// /api/status, as the page would read it.
async function status() {
  const r = await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/api/status`]);
  return JSON.parse(r.stdout);
}

// The tracker's pixel on SITE through brock: its status (403 when blocked).
async function pixel() {
  return (await h.trackerHit(brock.port, TRACKER, SITE)).status;
}

before(async () => {
  origin = await startOrigin();
  state = path.join(h.tmpdir('pause-browser'), 'state');
  brock = await startProxy(state, { port: origin.port, setup: [['set', TRACKER, 'block']] });
  viewing = await launch(null);
  dash = await viewing.context.newPage();
});

after(async () => {
  if (viewing) await viewing.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

check('the map: "Pause brock: 10 minutes", a countdown and Resume', async () => {
  assert.equal(await pixel(), 403);
  await dash.goto(`http://127.0.0.1:${brock.port}/`);
  await dash.locator('main h1', { hasText: 'Who follows you' }).waitFor();
  await dash.getByRole('button', { name: 'Pause brock: 10 minutes' }).click();
  const countdown = dash.locator('#pause #countdown');
  await countdown.waitFor();
  assert.match(await countdown.innerText(), /^(10:00|9:[45]\d)$/);
  assert.match(await dash.locator('#pause').innerText(), /brock is paused/);
  const st = await status();
  assert.equal(st.paused, true);
  assert.ok(Math.abs(st.paused_until_ms - Date.now() - 600000) < 10000, JSON.stringify(st));
  assert.equal(await pixel(), 200, 'paused, the blocked tracker passes');
  // It counts down, a second at a time.
  const first = await countdown.innerText();
  await h.waitFor('the countdown to move', async () =>
    (await countdown.innerText()) !== first, 3000);
  assert.equal(await dash.locator('#status').innerText(), 'brock is paused for 10 minutes.');

  await dash.getByRole('button', { name: 'Resume', exact: true }).click();
  await dash.getByRole('button', { name: 'Pause brock: 10 minutes' }).waitFor();
  assert.equal(await dash.locator('#countdown').count(), 0);
  assert.equal((await status()).paused, false);
  assert.equal(await pixel(), 403, 'blocked again');
});

check('the map: "until I resume" has no countdown', async () => {
  await dash.goto(`http://127.0.0.1:${brock.port}/`);
  await dash.getByRole('button', { name: 'Pause brock: until I resume' }).click();
  await dash.getByRole('button', { name: 'Resume', exact: true }).waitFor();
  assert.equal(await dash.locator('#countdown').count(), 0);
  assert.match(await dash.locator('#pause').innerText(), /stays off until you resume it/);
  assert.deepEqual([(await status()).paused, (await status()).paused_until_ms], [true, null]);
  await dash.getByRole('button', { name: 'Resume', exact: true }).click();
  await dash.getByRole('button', { name: 'Pause brock: 1 hour' }).waitFor();
  assert.equal((await status()).paused, false);
});

check('a site\'s page: "Turn off on this site: 10 minutes", and the pause there', async () => {
  assert.equal(await pixel(), 403);
  await dash.goto(`http://127.0.0.1:${brock.port}/#/site/${SITE}`);
  await dash.locator('main h1', { hasText: SITE }).waitFor();
  await dash.getByRole('button', { name: 'Turn off on this site: 10 minutes' }).click();
  await dash.locator('#site-off #site-countdown').waitFor();
  assert.match(await dash.locator('#site-off').innerText(), /brock is off on this site/);
  assert.equal(await pixel(), 200, 'off on the site');
  // The pause is offered on the site's page too, with a countdown of its own.
  await dash.getByRole('button', { name: 'Pause brock: 1 hour' }).click();
  await dash.locator('#pause #countdown').waitFor();
  assert.match(await dash.locator('#pause #countdown').innerText(), /^(1:00:00|59:[45]\d)$/);
  await dash.getByRole('button', { name: 'Resume', exact: true }).click();
  await dash.getByRole('button', { name: 'Pause brock: 1 hour' }).waitFor();
  await dash.getByRole('button', { name: 'Turn it back on', exact: true }).click();
  await dash.getByRole('button', { name: 'Turn off on this site: until I turn it back on' })
    .waitFor();
  assert.equal(await pixel(), 403, 'on again there');
});

check('a pause that ends shows as over on the page by itself', async () => {
  const r = await h.brock(state, ['pause', '6s']);
  assert.equal(r.code, 0, r.stderr);
  // A running brock reads another process's change at its next sync, once a second.
  await h.waitFor('the running brock to read it', async () => (await status()).paused, 8000);
  await dash.goto(`http://127.0.0.1:${brock.port}/`);
  await dash.locator('#pause #countdown').waitFor();
  await dash.getByRole('button', { name: 'Pause brock: 10 minutes' }).waitFor({ timeout: 12000 });
  assert.equal(await dash.locator('#countdown').count(), 0);
});
