#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The owner signs in through the page, in Debian's Chromium: brock run --intercept --local
// none asks even this machine for the password. Before, the browser is a client like any
// other, whose front page is its own. Over plain HTTP the sign-in page sends the browser to
// the same page over HTTPS, where brock answers with a certificate of its own CA; there the
// password opens the dashboard, with a session cookie no script can read.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { launch } = require('./chromium.js');
const { startProxy } = require('./brock.js');
const h = require('../integration/harness.js');
const { flat, check } = h;

const tmp = h.tmpdir('signin-t');
const state = path.join(tmp, 'state');
const PASSWORD = 'tr0ub4dor & 3';
let brock, browser;

before(flat(async () => {
  brock = await startProxy(state, { port: await h.freePort(), intercept: true,
                                    args: ['--local', 'none'] });
  const input = path.join(tmp, 'input');
  fs.writeFileSync(input, `${PASSWORD}\n${PASSWORD}\n`);
  const r = await h.run('sh', ['-c', '"$BROCK" --state "$STATE" passwd < "$IN"'],
                        { env: { BROCK: h.BROCK, STATE: state, IN: input } });
  assert.equal(r.code, 0, r.stderr);
  // Straight to brock, not through it: the dashboard is brock's own site.
  browser = await launch(null, { ca: brock.ca });
}));

after(async () => {
  if (browser) await browser.close();
  if (brock) await brock.stop();
});

check('a client gets its own page; over plain HTTP, signing in points at HTTPS', async () => {
  const page = await browser.context.newPage();
  try {
    await page.goto(`http://127.0.0.1:${brock.port}/`, { waitUntil: 'load' });
    assert.equal(await page.title(), 'brock on this network');
    await page.locator('#me', { hasText: '127.0.0.1' }).waitFor();
    await page.click('a[href="/signin.html"]');
    await page.waitForURL(`http://127.0.0.1:${brock.port}/signin.html`);
    const link = page.locator('#said a');
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), `https://127.0.0.1:${brock.port}/signin.html`);
    assert.equal(await page.locator('#signin').isVisible(), false);
  } finally {
    await page.close();
  }
});

check('over HTTPS, a wrong password says so and the right one opens the dashboard', async () => {
  const page = await browser.context.newPage();
  try {
    await page.goto(`https://127.0.0.1:${brock.port}/index.html`, { waitUntil: 'load' });
    assert.equal(page.url(), `https://127.0.0.1:${brock.port}/signin.html`);
    await page.fill('#password', 'not it');
    await page.click('button[type=submit]');
    await page.locator('#said', { hasText: 'wrong password' }).waitFor();
    // The wait between two checks of a password.
    await new Promise((resolve) => setTimeout(resolve, 400));
    await page.fill('#password', PASSWORD);
    await page.click('button[type=submit]');
    await page.waitForURL(`https://127.0.0.1:${brock.port}/`);
    await page.locator('nav a[href="#/sites"]').waitFor();
    const seen = await page.evaluate(async () => ({
      sites: (await fetch('/api/sites')).status,
      cookie: document.cookie,
    }));
    assert.equal(seen.sites, 200);
    assert.equal(seen.cookie, '', 'the session cookie is HttpOnly');
    const [cookie] = (await browser.context.cookies()).filter((c) => c.name === 'brock_owner');
    assert.ok(cookie.secure && cookie.httpOnly && cookie.sameSite === 'Strict',
              JSON.stringify(cookie));
  } finally {
    await page.close();
  }
});
