#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The chart of what brock did each day, on the dashboard's sites page: one headless Chromium
// browses local sites through brock (a tracker learned on three of them and blocked on the
// fourth, a domain whose cookies the user blocks), another opens the dashboard. Each day of
// the chart carries the numbers GET /api/stats gives, as text a screen reader reads and in
// its bars' sizes, and the legend sums them.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const path = require('node:path');
const { launch, GIF } = require('./chromium.js');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy } = require('./brock.js');

const SITES = ['one-a.test', 'two-b.test', 'three-c.test', 'four-d.test'];
const TRACKER = 'px.tracker.test';
const STRIPPED = 'cdn.strip.test';

function check(name, fn) {
  h.check(name, fn, 60000);
}

const tmp = h.tmpdir('stats-browser');
const state = path.join(tmp, 'state');

// Each site's page loads the tracker's pixel (which sets an identifying cookie) and an image
// from the domain whose cookies are blocked.
function startOrigin() {
  return startSite((req, res, host) => {
    res.setHeader('Cache-Control', 'no-store');
    if (host === TRACKER || host === STRIPPED) {
      if (host === TRACKER)
        res.setHeader('Set-Cookie', `uid=${crypto.randomBytes(16).toString('hex')}; Path=/`);
      res.setHeader('Content-Type', 'image/gif');
      res.end(GIF);
      return;
    }
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><title>${host}</title><h1>${host}</h1>` +
            `<img src="http://${TRACKER}/p.gif?on=${host}" alt="">` +
            `<img src="http://${STRIPPED}/s.gif" alt="">`);
  });
}

let origin, brock, browsing, viewing;

before(async () => {
  origin = await startOrigin();
  brock = await startProxy(state, {
    port: origin.port, global: ['--no-seed'],
    setup: [['--no-seed', 'set', STRIPPED, 'cookieblock']],
    browser: { secureOrigins: SITES.map((s) => `http://${s}`), thirdPartyCookies: true } });
  browsing = brock.browser;
  viewing = await launch(null);
});

after(async () => {
  if (browsing) await browsing.close();
  if (viewing) await viewing.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

const stats = async (page, days) => page.evaluate(async (n) => {
  const r = await fetch(`/api/stats?days=${n}`, { cache: 'no-store' });
  return r.json();
}, days);

check('the chart says what GET /api/stats says, after browsing', async () => {
  const tab = await browsing.context.newPage();
  for (const site of SITES)
    await tab.goto(`http://${site}/`, { waitUntil: 'load', timeout: 20000 });
  const dash = await viewing.context.newPage();
  await dash.setViewportSize({ width: 800, height: 900 });
  await dash.goto(`http://127.0.0.1:${brock.port}/#/sites`);
  // Learned on the third site, blocked on the fourth.
  await h.waitFor('the tracker learned and blocked', async () => {
    const last = (await stats(dash, 1))[0];
    return last.learned === 1 && last.blocked >= 1;
  });
  // The chart is compared with counts that stood still while it was drawn: a request of the
  // pages still in flight (a late image) counts between the two otherwise.
  const days = dash.locator('figure.chart g.day');
  let api;
  await h.waitFor('the chart drawn from counts that stand still', async () => {
    const before = JSON.stringify(await stats(dash, 7));
    await dash.reload();
    await days.first().waitFor();
    api = await stats(dash, 7);
    return JSON.stringify(api) === before;
  });
  assert.equal(await days.count(), 7, 'one day for each of the 7 kept');
  const today = api[6];
  assert.equal(today.sites, 4, 'four sites visited');
  assert.equal(today.learned, 1);
  assert.ok(today.blocked >= 1 && today.cookieblocked >= 4 && today.allowed >= 7,
            JSON.stringify(today));

  const drawn = await days.evaluateAll((gs) => gs.map((g) => ({
    day: g.dataset.day,
    blocked: Number(g.dataset.blocked),
    cookieblocked: Number(g.dataset.cookieblocked),
    allowed: Number(g.dataset.allowed),
    learned: Number(g.dataset.learned),
    sites: Number(g.dataset.sites),
    label: g.getAttribute('aria-label'),
    role: g.getAttribute('role'),
    title: g.querySelector('title').textContent,
    bars: [...g.querySelectorAll('rect.bar')].map((r) => ({
      cls: r.getAttribute('class'), n: Number(r.dataset.n), h: Number(r.getAttribute('height')),
    })),
    mark: g.querySelector('text.learned')?.textContent || '',
  })));
  const most = Math.max(...api.map((d) => d.blocked + d.cookieblocked + d.allowed));
  const unit = drawn[6].bars.reduce((s, b) => s + b.h, 0) /
               (today.blocked + today.cookieblocked + today.allowed);
  for (let i = 0; i < 7; i++) {
    const d = api[i], g = drawn[i];
    const plural = (n, one) => `${n} ${n === 1 ? one : `${one}s`}`;
    const words = `${d.day}: ${plural(d.blocked, 'request')} blocked, ` +
      `${plural(d.cookieblocked, 'request')} with cookies blocked, ` +
      `${plural(d.allowed, 'request')} allowed, ${plural(d.learned, 'tracker')} learned, ` +
      `${plural(d.sites, 'site')} visited, ${plural(d.cleaned, 'link')} cleaned`;
    assert.deepEqual([g.day, g.blocked, g.cookieblocked, g.allowed, g.learned, g.sites],
                     [d.day, d.blocked, d.cookieblocked, d.allowed, d.learned, d.sites], d.day);
    assert.equal(g.role, 'img');
    assert.equal(g.label, words, 'read by a screen reader');
    assert.equal(g.title, words, 'shown on hover');
    assert.deepEqual(g.bars.map((b) => [b.cls, b.n]),
                     [['bar bar-block', d.blocked], ['bar bar-cookieblock', d.cookieblocked],
                      ['bar bar-allow', d.allowed]]);
    for (const b of g.bars) assert.ok(Math.abs(b.h - b.n * unit) < 0.01, `${d.day} ${b.cls}`);
    assert.equal(g.mark, d.learned ? `+${d.learned}` : '');
  }
  // The tallest day fills the bars' room.
  assert.ok(Math.abs(most * unit - 112) < 0.01);
  const legend = await dash.locator('figure.chart .legend li').allTextContents();
  const sum = (k) => api.reduce((n, d) => n + d[k], 0);
  assert.deepEqual(legend, [`Blocked: ${sum('blocked')}`, `Cookies blocked: ${sum('cookieblocked')}`,
                            `Allowed: ${sum('allowed')}`, `+Trackers learned: ${sum('learned')}`,
                            `Links cleaned: ${sum('cleaned')}`]);
  await tab.close();
  await dash.close();
});
