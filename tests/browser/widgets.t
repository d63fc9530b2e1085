#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Social widget placeholders in a real browser: Chromium through `brock run --intercept` opens
// local HTTPS pages that embed Rumble's player (rumble.com served locally, blocked by Privacy
// Badger's seed). The frame gives way to brock's placeholder, which names it and has two
// buttons; "Allow once" (a click of the user's) brings the frame back and it loads, without a
// reload of the page; "Always allow on this site" does too, is kept in the settings, and the
// next visit loads the frame directly; a script's click does nothing. Cookieblocked, or
// excluded from replacement (widgetReplacementExceptions), the player gets no placeholder;
// with --no-inject there is none either. A frame of another site replaces the player it embeds
// as well, with no buttons (another site's frame may not allow widgets on the page), while a
// frame of the page's own site has them, and "Allow once" there loads it. YouTube, which the
// user chose to block (`brock set youtube.com block`), gets a placeholder that says so, with
// no buttons.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy, protocols } = require('./brock.js');
const { flat, check } = h;

const RB = 'rumble.com';
const YT = 'www.youtube.com';
const SITES = ['site1.test', 'site2.test', 'site3.test', 'site4.test', 'site5.test'];
const tmp = h.tmpdir('widgets-browser-t');
const HOLDER = '[data-brock-widget="Rumble Video Player"]';
const YT_HOLDER = '[data-brock-widget="YouTube"]';
// A page with two frames that embed the player: another site's, and one of its own site.
const OUTER = 'outer.test';
const INNER = 'inner.test';
// A page that embeds YouTube, which the user blocks.
const CHOSEN = 'chosen.test';

// The sites, the player and YouTube; embeds(site): the player's requests from site's pages,
// pages(site): the requests for site's own page.
async function startOrigin(certs) {
  const site = await startSite((req, res, host) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    if (host === RB || host === YT) {
      res.end('<!doctype html><html><head><title>video</title></head><body>a video</body></html>');
      return;
    }
    if (host === OUTER && req.url === '/') {
      res.end(`<!doctype html><html><head><title>${host}</title></head><body>
        <iframe id="inner" width="640" height="400" src="https://${INNER}/"></iframe>
        <iframe id="same" width="640" height="400" src="https://${OUTER}/same"></iframe>
        </body></html>`);
      return;
    }
    if (host === CHOSEN) {
      res.end(`<!doctype html><html><head><title>${host}</title></head><body>
        <iframe id="yt" width="560" height="315" src="https://${YT}/embed/abc"></iframe>
        </body></html>`);
      return;
    }
    // Every other page embeds the player; /same names itself in the player's address.
    const on = host === OUTER ? 'same' : host;
    // The page's style sheet hides every button and paragraph it can reach.
    res.end(`<!doctype html><html><head><title>${host}</title>
      <style>button, p { display: none !important; } div { color: transparent; }</style>
      </head><body><h1>${host}</h1>
      <iframe id="rb" width="560" height="315" src="https://${RB}/embed/abc?on=${on}"></iframe>
      </body></html>`);
  }, { tls: { key: certs.key, cert: certs.cert } });
  return {
    ...site,
    embeds: (on) => site.to(RB).filter((r) => r.path.endsWith(`on=${on}`)),
    pages: (host) => site.to(host, '/'),
  };
}

let origin;
const running = [];

// brock with youtube.com blocked by the user, and a browser through it.
async function startBrock(name, args) {
  const b = await startProxy(path.join(tmp, name), {
    port: origin.port, hosts: [YT, RB], intercept: true, upstreamCa: path.join(tmp, 'ca.pem'),
    verbose: true, setup: [['set', 'youtube.com', 'block']], args, browser: {} });
  running.push(b);
  return b;
}

before(flat('setting up', async () => {
  origin = await startOrigin(h.originCerts(tmp, [...SITES, OUTER, INNER, CHOSEN, YT, RB],
                                           'brock widgets test'));
}));

after(async () => {
  for (const b of running) {
    await b.browser.close();
    await b.stop();
  }
  if (origin) await origin.close();
});

// Opens site's page in a new tab of b's browser.
async function open(b, site, waitUntil = 'load') {
  const page = await b.browser.context.newPage();
  await page.goto(`https://${site}/`, { waitUntil, timeout: 20000 });
  if (waitUntil === 'load')
    assert.equal((await protocols(page)).page, 'h2', 'the page came over HTTP/2');
  return page;
}

// What the placeholder shows, read from the page's DOM (its open shadow root).
function placeholder(page, holder = HOLDER) {
  return page.evaluate((sel) => {
    const el = document.querySelector(sel);
    if (!el) return null;
    const root = el.shadowRoot;
    return {
      text: root.querySelector('p').textContent,
      shown: root.querySelector('p').getBoundingClientRect().height > 0,
      buttons: [...root.querySelectorAll('button')].map((x) => x.textContent),
      buttonsShown: [...root.querySelectorAll('button')].every((x) => x.offsetHeight > 0),
      frame: document.getElementById('rb') !== null || document.getElementById('yt') !== null,
    };
  }, holder);
}

// The widgets brock tells a page of site to replace, asked as the page's script asks.
async function widgetNames(b, site) {
  const page = await h.curl(b.port, ['--cacert', b.ca, ...h.NAVIGATE_ARGS, `https://${site}/`]);
  const m = /data-brock="([0-9a-f]+) (\/\.well-known\/brock-[0-9a-f]{16}\/)report/
    .exec(page.body.toString());
  assert.ok(m, 'the page has brock\'s script');
  const r = await h.curl(b.port, ['--cacert', b.ca, '-X', 'POST', '--data-binary',
                                  JSON.stringify({ token: m[1] }),
                                  `https://${site}${m[2]}widgets`]);
  assert.equal(r.status, 200);
  return JSON.parse(r.body.toString()).map((w) => w.name);
}

async function api(b, p) {
  const r = await h.run('curl', ['-s', `http://127.0.0.1:${b.port}${p}`]);
  return JSON.parse(r.stdout);
}

// The text of the frame of page whose address starts with prefix ('' until it has one).
async function frameText(page, prefix) {
  const frame = page.frames().find((f) => f.url().startsWith(prefix));
  return frame ? frame.evaluate(() => (document.body ? document.body.textContent : ''))
    .catch(() => '') : '';
}

const TEXT = 'brock has blocked Rumble Video Player on this page';
const BUTTONS = ['Allow once', 'Always allow on this site'];

let brock;

check('a blocked player gives way to a placeholder; a click on "Allow once" loads it without a ' +
      'reload', async () => {
  brock = await startBrock('state', []);
  const site = SITES[0];
  const page = await open(brock, site);
  try {
    await page.waitForSelector(HOLDER, { state: 'attached', timeout: 10000 });
    const p = await placeholder(page);
    assert.deepEqual(p, { text: TEXT, shown: true, buttons: BUTTONS, buttonsShown: true,
                          frame: false });
    assert.equal(origin.embeds(site).length, 0, 'the frame was blocked');
    await page.evaluate(() => { window.stayed = true; });
    await page.getByRole('button', { name: 'Allow once' }).click();
    await h.waitFor('the frame to reach its origin', async () =>
      origin.embeds(site).length === 1, 10000);
    assert.equal(await page.evaluate(() => window.stayed), true, 'the page was not reloaded');
    assert.equal(origin.pages(site).length, 1);
    assert.equal(await page.evaluate((sel) => document.querySelector(sel), HOLDER), null);
    await h.waitFor('the frame\'s document', async () =>
      await frameText(page, `https://${RB}/`) === 'a video', 10000);
    assert.deepEqual((await api(brock, '/api/settings')).widget_allowlist, []);
  } finally {
    await page.close();
  }
}, 90000);

check('in frames, the player gives way to a placeholder too: without buttons in another ' +
      'site\'s frame, with them in the page\'s own site\'s, where "Allow once" loads it',
      async () => {
  // Not 'load': when the placeholder takes the player's place just as its blocked navigation
  // commits, Chromium at times never fires the outer page's load event, though every request
  // was answered (none is left pending). What is checked here is the frames.
  const page = await open(brock, OUTER, 'domcontentloaded');
  try {
    const inner = await h.waitFor('the other site\'s frame', async () =>
      page.frames().find((f) => f.url().startsWith(`https://${INNER}/`)), 10000);
    const same = await h.waitFor('the page\'s own site\'s frame', async () =>
      page.frames().find((f) => f.url() === `https://${OUTER}/same`), 10000);
    await inner.waitForSelector(HOLDER, { state: 'attached', timeout: 10000 });
    assert.deepEqual(await placeholder(inner), { text: TEXT, shown: true, buttons: [],
                                                 buttonsShown: true, frame: false });
    assert.equal(origin.embeds(INNER).length, 0, 'the frame was blocked');
    await same.waitForSelector(HOLDER, { state: 'attached', timeout: 10000 });
    assert.deepEqual(await placeholder(same), { text: TEXT, shown: true, buttons: BUTTONS,
                                                buttonsShown: true, frame: false });
    await same.getByRole('button', { name: 'Allow once' }).click();
    await h.waitFor('the player to reach its origin', async () =>
      origin.embeds('same').length === 1, 10000);
    assert.equal(await placeholder(same), null);
    assert.match(brock.log(), /widget Rumble Video Player allowed on outer\.test for now/);
    assert.deepEqual((await api(brock, '/api/settings')).widget_allowlist, []);
  } finally {
    await page.close();
  }
}, 60000);

check('a click that is not the user\'s allows nothing', async () => {
  const site = SITES[3];
  const page = await open(brock, site);
  try {
    await page.waitForSelector(HOLDER, { state: 'attached', timeout: 10000 });
    await page.evaluate((sel) => {
      for (const b of document.querySelector(sel).shadowRoot.querySelectorAll('button')) b.click();
    }, HOLDER);
    await new Promise((r) => setTimeout(r, 1000));
    assert.notEqual(await placeholder(page), null);
    assert.equal(origin.embeds(site).length, 0);
    assert.deepEqual((await api(brock, '/api/settings')).widget_allowlist, []);
  } finally {
    await page.close();
  }
}, 60000);

check('"Always allow on this site" is kept; the next visit loads the frame directly',
      async () => {
  const site = SITES[2];
  let page = await open(brock, site);
  try {
    await page.waitForSelector(HOLDER, { state: 'attached', timeout: 10000 });
    await page.getByRole('button', { name: 'Always allow on this site' }).click();
    await h.waitFor('the frame to reach its origin', async () =>
      origin.embeds(site).length === 1, 10000);
  } finally {
    await page.close();
  }
  assert.deepEqual((await api(brock, '/api/settings')).widget_allowlist,
                   [{ site, widget: 'Rumble Video Player' }]);
  page = await open(brock, site);
  try {
    await h.waitFor('the frame to reach its origin again', async () =>
      origin.embeds(site).length === 2, 10000);
    assert.equal(await placeholder(page), null);
  } finally {
    await page.close();
  }
}, 60000);

check('a widget the user chose to block gets a placeholder that says so, with no buttons',
      async () => {
  const page = await open(brock, CHOSEN);
  try {
    await page.waitForSelector(YT_HOLDER, { state: 'attached', timeout: 10000 });
    assert.deepEqual(await placeholder(page, YT_HOLDER), {
      text: 'brock has blocked YouTube on this page, as you chose', shown: true, buttons: [],
      buttonsShown: true, frame: false });
    assert.equal(origin.requests.filter((r) => r.host === YT && r.path === '/embed/abc').length,
                 0);
  } finally {
    await page.close();
  }
}, 60000);

check('cookieblocked, or excluded from replacement, the player gets no placeholder', async () => {
  let r = await h.brock(brock.state, ['set', 'rumble.com', 'cookieblock']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('brock to see the choice', async () =>
    !(await widgetNames(brock, SITES[1])).includes('Rumble Video Player'), 10000);
  let page = await open(brock, SITES[1]);
  try {
    await h.waitFor('the frame to reach its origin', async () =>
      origin.embeds(SITES[1]).length === 1, 10000);
    await new Promise((res) => setTimeout(res, 500));
    assert.equal(await placeholder(page), null);
  } finally {
    await page.close();
  }
  r = await h.brock(brock.state, ['set', 'rumble.com', 'reset']);
  assert.equal(r.code, 0, r.stderr);
  // Seen blocked again first: only then does the player's absence below say the exception is in.
  await h.waitFor('brock to see rumble.com blocked again', async () =>
    (await widgetNames(brock, SITES[4])).includes('Rumble Video Player'), 10000);
  const file = path.join(tmp, 'exceptions.json');
  fs.writeFileSync(file, JSON.stringify({ action_map: {}, snitch_map: {},
                                          settings_map: { widgetReplacementExceptions:
                                                            ['Rumble Video Player'] } }));
  r = await h.brock(brock.state, ['import', file]);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('brock to see the exception', async () => {
    const names = await widgetNames(brock, SITES[4]);
    return !names.includes('Rumble Video Player') && names.includes('X (Twitter)');
  }, 10000);
  page = await open(brock, SITES[4]);
  try {
    await new Promise((res) => setTimeout(res, 1000));
    assert.equal(await placeholder(page), null);
    assert.equal(await page.evaluate(() => document.getElementById('rb') !== null), true);
    assert.equal(origin.embeds(SITES[4]).length, 0, 'the frame itself stays blocked');
  } finally {
    await page.close();
  }
}, 90000);

check('--no-inject: no placeholder', async () => {
  const plain = await startBrock('plain', ['--no-inject']);
  const page = await open(plain, SITES[0]);
  try {
    await new Promise((res) => setTimeout(res, 1000));
    assert.equal(await placeholder(page), null);
    assert.equal(await page.evaluate(() => document.getElementById('rb') !== null), true);
  } finally {
    await page.close();
  }
}, 90000);
