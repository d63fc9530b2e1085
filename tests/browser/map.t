#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's map and its design, in headless Chromium. curl browses four local sites
// through brock (one visit made three days old in the state), with a third party the user
// blocks, one whose cookies the user blocks and one brock lets through. The map holds one
// square per site and one circle per third party in Privacy Badger's colours, an edge per
// pair, larger circles for more sites, the same picture on every load; every node has a level
// label of at least 11 px on the screen at 1000 and 360 px, and no node with its label meets
// another; the blocked third party is drawn first; the keyboard walks its nodes, Enter or a
// click opens a node's page; the table says what the map says; the time and action filters
// leave out what they should. A state of 2,000 sites written into its page views: the map
// draws the 40 newest and 120 of their third parties, says what it left out, stays under
// 300 ms, and /api/map?sites=N answers the N newest. Firefox ESR draws the labels too. The
// header says what brock did today; the dark theme follows the system; no page scrolls
// sideways at 360 px; the page itself never wears a focus ring. (views.t writes the
// screenshots of every view, this one's included.)
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { launch } = require('./chromium.js');
const { startOrigin } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy } = require('./brock.js');

const RED = 'ads.red.test', YELLOW = 'cdn.yellow.test', GREEN = 'fonts.green.test';
const OLD = 'img.old.test';
// What each site's page loads; d-old.test is visited first, then made three days old.
const PAGES = {
  'd-old.test': [RED, OLD],
  'a-news.test': [RED, YELLOW, GREEN],
  'b-shop.test': [RED, YELLOW],
  'c-blog.test': [RED],
};
const PAIRS = Object.entries(PAGES).flatMap(([s, ts]) => ts.map((t) => `${s} ${t}`)).sort();
const DAY_MS = 24 * 60 * 60 * 1000;

function check(name, fn) {
  h.check(name, fn, 30000);
}

const tmp = h.tmpdir('map-browser');
const state = path.join(tmp, 'state');
let origin, brock, viewing, dash, base;

const start = () => startProxy(state, { port: origin.port, global: ['--no-seed'] });

async function browse(site) {
  const nav = await h.curl(brock.port, [...h.NAVIGATE_ARGS, `http://${site}/`]);
  assert.equal(nav.status, 200, `${site} opens`);
  for (const t of PAGES[site])
    await h.curl(brock.port, ['-e', `http://${site}/`, `http://${t}/x.gif`]);
}

before(async () => {
  origin = await startOrigin();
  for (const [d, a] of [[RED, 'block'], [YELLOW, 'cookieblock']]) {
    const r = await h.brock(state, ['--no-seed', 'set', d, a]);
    assert.equal(r.code, 0, r.stderr);
  }
  brock = await start();
  await browse('d-old.test');
  await brock.stop();
  const aged = await h.run('sqlite3', [path.join(state, 'brock.db'),
    `UPDATE page_view SET time_ms = time_ms - ${3 * DAY_MS} WHERE site = 'd-old.test'`]);
  assert.equal(aged.code, 0, aged.stderr);
  brock = await start();
  for (const site of Object.keys(PAGES).slice(1)) await browse(site);
  base = `http://127.0.0.1:${brock.port}`;
  viewing = await launch(null);
  dash = await viewing.context.newPage();
  await dash.setViewportSize({ width: 1000, height: 900 });
});

after(async () => {
  if (viewing) await viewing.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

async function openMap() {
  await dash.goto(`${base}/#/`);
  await dash.locator('svg.map g.node').first().waitFor();
}

// What the map drew: its nodes with their places, sizes and colours, and its edges.
const drawn = () => dash.evaluate(() => {
  const num = (el, a) => Number(el.getAttribute(a));
  const nodes = [...document.querySelectorAll('svg.map g.node')].map((g) => {
    const shape = g.querySelector('rect, circle');
    const rect = shape.tagName === 'rect';
    return {
      name: g.dataset.name, kind: g.dataset.kind, cls: g.getAttribute('class'),
      x: rect ? num(shape, 'x') + num(shape, 'width') / 2 : num(shape, 'cx'),
      y: rect ? num(shape, 'y') + num(shape, 'height') / 2 : num(shape, 'cy'),
      r: rect ? 0 : num(shape, 'r'), shape: shape.tagName, fill: getComputedStyle(shape).fill,
      tabindex: g.getAttribute('tabindex'), label: g.getAttribute('aria-label'),
    };
  });
  const edges = [...document.querySelectorAll('svg.map line.edge')].map((l) => ({
    pair: `${l.dataset.site} ${l.dataset.tracker}`,
    x1: num(l, 'x1'), y1: num(l, 'y1'), x2: num(l, 'x2'), y2: num(l, 'y2'),
  }));
  return { nodes, edges };
});

const tableRows = () => dash.locator('#map-table tbody tr').evaluateAll((trs) =>
  trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));

// In the page (Chromium's or Firefox's): each node's label, its size on the screen and its
// box there (its square or circle and its label together), and whatever is rotated.
function measure() {
  const map = document.querySelector('svg.map');
  const ctm = map.getScreenCTM();
  const nodes = [...map.querySelectorAll('g.node')].map((g) => {
    const shape = g.querySelector('rect, circle').getBoundingClientRect();
    const text = g.querySelector('text.label');
    const label = text ? text.getBoundingClientRect() : null;
    const css = text ? getComputedStyle(text) : null;
    const box = label ? { x0: Math.min(shape.left, label.left), y0: Math.min(shape.top, label.top),
                          x1: Math.max(shape.right, label.right),
                          y1: Math.max(shape.bottom, label.bottom) } : null;
    return { name: g.dataset.name, kind: g.dataset.kind, text: text ? text.textContent : '',
             px: css ? parseFloat(css.fontSize) * Math.hypot(ctm.a, ctm.b) : 0,
             shown: !!css && css.visibility === 'visible' && css.display !== 'none' &&
                    Number(css.opacity) > 0 && label.width > 0 && label.height > 0,
             box };
  });
  const rotated = [...map.querySelectorAll('[transform]')]
    .filter((el) => /rotate|matrix/.test(el.getAttribute('transform'))).length +
    (Math.abs(ctm.b) > 1e-9 || Math.abs(ctm.c) > 1e-9 ? 1 : 0);
  return { nodes, rotated, order: nodes.filter((n) => n.kind === 'tracker').map((n) => n.name) };
}

// Every node has a level label of its name, at least 11 px on the screen, and no node's box
// meets another's (a pixel of rounding aside). Returns the smallest label size.
function assertReadable(m, where) {
  assert.equal(m.rotated, 0, `${where}: nothing is rotated`);
  for (const n of m.nodes) {
    assert.ok(n.shown, `${where}: ${n.name} has a visible label`);
    const want = n.name.length > 24 ? `${n.name.slice(0, 23)}…` : n.name;
    assert.equal(n.text, want, `${where}: ${n.name}'s label`);
    assert.ok(n.px >= 11, `${where}: ${n.name}'s label is ${n.px} px`);
  }
  for (let i = 0; i < m.nodes.length; i++) {
    for (let j = i + 1; j < m.nodes.length; j++) {
      const a = m.nodes[i].box, b = m.nodes[j].box;
      const meet = a.x0 < b.x1 - 1 && b.x0 < a.x1 - 1 && a.y0 < b.y1 - 1 && b.y0 < a.y1 - 1;
      assert.ok(!meet, `${where}: ${m.nodes[i].name} ${JSON.stringify(a)} is clear of ` +
                       `${m.nodes[j].name} ${JSON.stringify(b)}`);
    }
  }
  return Math.min(...m.nodes.map((n) => n.px));
}

check('the map holds a node per site and third party, in their colours, an edge per pair',
      async () => {
  await openMap();
  const { nodes, edges } = await drawn();
  const sites = nodes.filter((n) => n.kind === 'site');
  const trackers = nodes.filter((n) => n.kind === 'tracker');
  assert.deepEqual(sites.map((n) => n.name).sort(), Object.keys(PAGES).sort());
  assert.ok(sites.every((n) => n.shape === 'rect'), 'sites are squares');
  assert.deepEqual(trackers.map((n) => n.name).sort(), [RED, YELLOW, OLD, GREEN].sort());
  assert.ok(trackers.every((n) => n.shape === 'circle'), 'third parties are circles');
  const t = Object.fromEntries(trackers.map((n) => [n.name, n]));
  assert.equal(t[RED].fill, 'rgb(198, 18, 35)', 'blocked: red');
  assert.equal(t[YELLOW].fill, 'rgb(255, 204, 0)', 'cookies blocked: yellow');
  assert.equal(t[GREEN].fill, 'rgb(51, 153, 0)', 'allowed: green');
  assert.equal(t[OLD].fill, 'rgb(51, 153, 0)');
  assert.match(t[RED].cls, /\buser\b/, 'the user\'s choice is marked');
  assert.doesNotMatch(t[GREEN].cls, /\buser\b/);
  assert.ok(t[RED].r > t[YELLOW].r && t[YELLOW].r > t[GREEN].r, 'larger for more sites');
  assert.equal(t[GREEN].r, t[OLD].r);
  assert.deepEqual(edges.map((e) => e.pair).sort(), PAIRS);
  const at = Object.fromEntries(nodes.map((n) => [n.name, n]));
  for (const e of edges) {
    const [s, tr] = e.pair.split(' ');
    const ends = [e.x1, e.y1, e.x2, e.y2], want = [at[s].x, at[s].y, at[tr].x, at[tr].y];
    assert.ok(ends.every((v, i) => Math.abs(v - want[i]) < 0.01), `${e.pair}: ${ends} ${want}`);
  }
  for (let i = 0; i < trackers.length; i++) {
    for (let j = i + 1; j < trackers.length; j++) {
      const a = trackers[i], b = trackers[j];
      assert.ok(Math.hypot(a.x - b.x, a.y - b.y) >= a.r + b.r, `${a.name} clear of ${b.name}`);
    }
  }
  assert.equal(nodes.filter((n) => n.tabindex === '0').length, 1, 'one node in the tab order');
  assert.ok(nodes.every((n) => n.tabindex === '0' || n.tabindex === '-1'));
  assert.equal(t[RED].label, `${RED}, a third party: Blocked by you, seen on 4 sites`);
  assert.equal(at['a-news.test'].label,
               'a-news.test, a site: 3 third parties, 1 blocked, 1 with cookies blocked');
  // What the API says the map was drawn from.
  const api = await dash.evaluate(async () => (await fetch('/api/map')).json());
  assert.deepEqual(api.trackers.map((x) => [x.domain, x.action, x.user, x.sites]).sort(),
                   [[RED, 'user_block', 'user_block', 4], [YELLOW, 'user_cookieblock',
                     'user_cookieblock', 2], [GREEN, 'noaction', '', 1], [OLD, 'noaction', '', 1]]
                     .sort());
  assert.deepEqual(api.links.map((l) => `${l.site} ${l.tracker}`).sort(), PAIRS);
  const old = api.sites.find((x) => x.site === 'd-old.test');
  assert.ok(Date.now() - old.time_ms > 3 * DAY_MS - 60000, 'the aged visit is three days old');
  assert.deepEqual([old.trackers, old.blocked, old.cookieblocked], [2, 1, 0]);
  // Laid out once, the same way every time.
  await dash.reload();
  await dash.locator('svg.map g.node').first().waitFor();
  assert.deepEqual(await drawn(), { nodes, edges });
});

check('the keyboard walks the nodes; Enter opens the tracker\'s page, with no ring on it',
      async () => {
  await openMap();
  const focused = () => dash.evaluate(() => document.activeElement?.dataset?.name || '');
  for (let i = 0; i < 40 && !(await focused()); i++) await dash.keyboard.press('Tab');
  assert.equal(await focused(), 'a-news.test', 'the first site takes the focus');
  assert.equal(await dash.locator('#map-info').textContent(),
               'a-news.test, a site: 3 third parties, 1 blocked, 1 with cookies blocked');
  const lit = await dash.locator('svg.map line.edge.on').evaluateAll((ls) =>
    ls.map((l) => l.dataset.tracker).sort());
  assert.deepEqual(lit, [GREEN, RED, YELLOW].sort(), 'its edges light up');
  const near = await dash.locator('svg.map g.node.near').evaluateAll((gs) =>
    gs.map((g) => g.dataset.name).sort());
  assert.deepEqual(near, [GREEN, RED, YELLOW].sort(), 'and the third parties it loaded');
  await dash.keyboard.press('ArrowRight');
  assert.equal(await focused(), 'b-shop.test');
  await dash.keyboard.press('ArrowLeft');
  assert.equal(await focused(), 'a-news.test');
  for (let i = 0; i < 10 && (await focused()) !== RED; i++) await dash.keyboard.press('ArrowDown');
  assert.equal(await focused(), RED);
  assert.equal(await dash.locator('svg.map g.node[tabindex="0"]').getAttribute('data-name'), RED);
  assert.equal(await dash.locator('#map-info').textContent(),
               `${RED}, a third party: Blocked by you, seen on 4 sites`);
  await dash.keyboard.press('Enter');
  await dash.locator('main h1', { hasText: RED }).waitFor();
  assert.equal(await dash.evaluate(() => location.hash), `#/tracker/${RED}`);
  // The view took the focus for screen readers; it shows no ring.
  const ring = await dash.evaluate(() => {
    const el = document.activeElement;
    return { id: el.id, outline: getComputedStyle(el).outlineStyle };
  });
  assert.deepEqual(ring, { id: 'main', outline: 'none' });
  // A control does show one.
  await dash.keyboard.press('Tab');
  assert.notEqual(await dash.evaluate(() => getComputedStyle(document.activeElement).outlineStyle),
                  'none');
});

check('every node has a level label of 11 px or more, and nothing overlaps, at 1000 and ' +
      '360 px; the most important third party is drawn first', async () => {
  for (const width of [1000, 360]) {
    await dash.setViewportSize({ width, height: 900 });
    await openMap();
    const m = await dash.evaluate(measure);
    assert.equal(m.nodes.length, 8);
    const px = assertReadable(m, `${width} px`);
    console.log(`# labels at ${width} px: ${px.toFixed(2)} px`);
    // Blocked, then cookies blocked, then allowed; then by sites, then by name.
    assert.deepEqual(m.order, [RED, YELLOW, GREEN, OLD]);
    const [scroll, client] = await dash.evaluate(() =>
      [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scroll <= client, `the page does not scroll sideways at ${width} px`);
  }
  // The third party on every site sits nearer the middle than one on a single site.
  const { nodes } = await drawn();
  const at = Object.fromEntries(nodes.map((n) => [n.name, n]));
  assert.ok(Math.hypot(at[RED].x, at[RED].y) < Math.hypot(at[GREEN].x, at[GREEN].y));
  await dash.setViewportSize({ width: 1000, height: 900 });
});

check('a click on a third party, or on its label, opens its page', async () => {
  await openMap();
  await dash.locator(`svg.map g.node[data-name="${YELLOW}"] circle`).click();
  await dash.locator('main h1', { hasText: YELLOW }).waitFor();
  assert.equal(await dash.evaluate(() => location.hash), `#/tracker/${YELLOW}`);
  await openMap();
  await dash.locator(`svg.map g.node[data-name="${GREEN}"] text`).click();
  await dash.locator('main h1', { hasText: GREEN }).waitFor();
  assert.equal(await dash.evaluate(() => location.hash), `#/tracker/${GREEN}`);
  await openMap();
  await dash.locator('svg.map g.node[data-name="b-shop.test"] text').click();
  await dash.locator('main h1', { hasText: 'b-shop.test' }).waitFor();
  assert.equal(await dash.evaluate(() => location.hash), '#/site/b-shop.test');
  await openMap();
  assert.equal(await dash.locator('#map-more').isHidden(), true, 'nothing is left out');
});

check('the table says what the map says', async () => {
  await openMap();
  const { edges } = await drawn();
  const rows = await tableRows();
  assert.deepEqual(rows.map(([s, t]) => `${s} ${t}`), edges.map((e) => e.pair).sort());
  const now = { [RED]: 'Blocked by you', [YELLOW]: 'Cookies blocked by you',
                [GREEN]: 'Allowed: not seen tracking', [OLD]: 'Allowed: not seen tracking' };
  for (const [, t, words] of rows) assert.equal(words, now[t], t);
});

check('the last day leaves out the older visit; unticking "Blocked" the red one', async () => {
  await openMap();
  await dash.selectOption('#map-days', '1');
  await dash.locator('svg.map g.node').first().waitFor();
  await h.waitFor('the last day', async () => (await drawn()).nodes.length === 6);
  let { nodes, edges } = await drawn();
  assert.deepEqual(nodes.map((n) => n.name).sort(),
                   ['a-news.test', 'b-shop.test', 'c-blog.test', GREEN, RED, YELLOW].sort());
  const recent = PAIRS.filter((p) => !p.startsWith('d-old.test'));
  assert.deepEqual(edges.map((e) => e.pair).sort(), recent);
  assert.equal((await tableRows()).length, recent.length);
  await dash.uncheck('#map-show-block');
  ({ nodes, edges } = await drawn());
  assert.ok(!nodes.some((n) => n.name === RED));
  assert.deepEqual(edges.map((e) => e.pair).sort(), recent.filter((p) => !p.endsWith(RED)));
  assert.deepEqual((await tableRows()).map(([s, t]) => `${s} ${t}`),
                   recent.filter((p) => !p.endsWith(RED)));
  await dash.check('#map-show-block');
  await dash.selectOption('#map-days', '');
  await h.waitFor('everything kept', async () => (await drawn()).nodes.length === 8);
  // The API says the same, and refuses a bad number of days.
  const api = await dash.evaluate(async () => {
    const get = async (q) => {
      const r = await fetch(`/api/map${q}`);
      return [r.status, await r.json()];
    };
    return [await get('?days=1'), await get('?days=0'), await get('?days=x')];
  });
  assert.deepEqual(api[0][1].sites.map((s) => s.site).sort(),
                   ['a-news.test', 'b-shop.test', 'c-blog.test']);
  for (const [status, body] of api.slice(1)) {
    assert.equal(status, 400);
    assert.match(body.error, /days.*1 to 3650/);
  }
});

check('the header says what brock did today', async () => {
  await openMap();
  await dash.locator('#today strong').first().waitFor();
  const [today] = await dash.evaluate(async () => (await fetch('/api/stats?days=1')).json());
  assert.ok(today.blocked >= 3, JSON.stringify(today));
  assert.equal(await dash.locator('#today').textContent(),
               `Today: ${today.blocked} blocked, ${today.cookieblocked} with cookies blocked`);
});

check('the dark theme follows the system', async () => {
  const colours = () => dash.evaluate(() => {
    const s = getComputedStyle(document.documentElement);
    return [s.backgroundColor, s.color];
  });
  await openMap();
  assert.deepEqual(await colours(), ['rgb(251, 251, 252)', 'rgb(29, 29, 31)']);
  await dash.emulateMedia({ colorScheme: 'dark' });
  assert.deepEqual(await colours(), ['rgb(20, 20, 24)', 'rgb(236, 236, 240)']);
  const header = await dash.evaluate(() =>
    getComputedStyle(document.querySelector('header')).backgroundColor);
  assert.equal(header, 'rgb(20, 20, 24)');
  await dash.emulateMedia({ colorScheme: 'light' });
});

check('no page scrolls sideways at 360 px, nor at 1600 px', async () => {
  const views = ['#/', '#/sites', '#/trackers', '#/settings', '#/site/a-news.test',
                 `#/tracker/${RED}`];
  for (const width of [360, 1600]) {
    await dash.setViewportSize({ width, height: 800 });
    for (const v of views) {
      await dash.goto(`${base}/${v}`);
      await dash.locator('main h1').waitFor();
      const [scroll, client] = await dash.evaluate(() =>
        [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
      assert.ok(scroll <= client, `${v} at ${width} px: ${scroll} > ${client}`);
    }
  }
  await dash.setViewportSize({ width: 1000, height: 900 });
});

// A state of 2,000 sites and 10,001 third parties, written straight into its page views (of
// which brock keeps the newest 500) and its action map (every host seen tracking): site N
// (N minutes old) loaded everywhere.track.test and five hosts of its own. The user blocks one
// host of the newest site and one of an old site, and blocks the cookies of one of the second
// newest.
const BIG_SITES = 2000;
const BIG_BLOCKED = 'tr3.track.test', BIG_YELLOW = 'tr9.track.test';
const BIG_OLD = 'tr9000.track.test', EVERYWHERE = 'everywhere.track.test';

async function startBig() {
  const big = path.join(tmp, 'big');
  const setup = [[BIG_BLOCKED, 'block'], [BIG_YELLOW, 'cookieblock'], [BIG_OLD, 'block']]
    .map(([d, a]) => ['set', d, a]);
  for (const cmd of setup) {
    const r = await h.brock(big, ['--no-seed', ...cmd]);
    assert.equal(r.code, 0, r.stderr);
  }
  const rows = 6 * BIG_SITES;
  const r = await h.run('sqlite3', [path.join(big, 'brock.db'),
    `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows - 1}) ` +
    'INSERT INTO page_view (site, host, action, count, time_ms) ' +
    "SELECT 'site' || (i / 6) || '.test', CASE WHEN i % 6 = 0 THEN '" + EVERYWHERE + "' " +
    "ELSE 'tr' || ((i / 6) * 5 + i % 6 - 1) || '.track.test' END, 'noaction', 1, " +
    `${Date.now()} - (i / 6) * 60000 FROM n; ` +
    "INSERT OR IGNORE INTO action (domain, heuristic) SELECT DISTINCT host, 'allow' " +
    'FROM page_view']);
  assert.equal(r.code, 0, r.stderr);
  return startProxy(big, { port: origin.port, global: ['--no-seed'] });
}

h.check('with thousands of sites the map draws the newest and the most important, says what ' +
        'it left out, and stays quick', async () => {
  const big = await startBig();
  const page = await viewing.context.newPage();
  try {
    await page.setViewportSize({ width: 1000, height: 900 });
    await page.goto(`http://127.0.0.1:${big.port}/#/`);
    await page.locator('svg.map g.node').first().waitFor();
    // The API: the N newest sites, and how much it left out; a bad N is refused.
    const api = await page.evaluate(async () => {
      const get = async (q) => {
        const r = await fetch(`/api/map${q}`);
        return [r.status, await r.json()];
      };
      return { all: (await get(''))[1], three: (await get('?sites=3&days=7'))[1],
               bad: [await get('?sites=0'), await get('?sites=x'), await get('?sites=1000001'),
                     await get('?sites=')] };
    });
    const total = api.all.sites.length;
    assert.ok(total >= 500, `the state keeps ${total} sites`);
    assert.deepEqual(api.all.more, { sites: 0, trackers: 0 });
    assert.deepEqual(api.three.sites.map((x) => x.site),
                     ['site0.test', 'site1.test', 'site2.test']);
    assert.equal(api.three.trackers.length, 16);
    assert.equal(api.three.links.length, 18);
    assert.deepEqual(api.three.more, { sites: total - 3, trackers: 5 * (total - 3) });
    for (const [status, body] of api.bad) {
      assert.equal(status, 400);
      assert.match(body.error, /"sites".*1 to 1000000/);
    }
    // The page: the 40 newest sites and 120 of their 201 third parties, the blocked first.
    const m = await page.evaluate(measure);
    const sites = m.nodes.filter((n) => n.kind === 'site').map((n) => n.name);
    assert.equal(sites.length, 40);
    assert.ok(sites.every((x) => Number(/\d+/.exec(x)[0]) < 40), 'the newest sites');
    assert.equal(m.order.length, 120);
    assert.deepEqual(m.order.slice(0, 3), [BIG_BLOCKED, BIG_YELLOW, EVERYWHERE]);
    assert.ok(!m.order.includes(BIG_OLD), 'a host of an older site is not drawn');
    assertReadable(m, 'many at 1000 px');
    const more = await page.locator('#map-more').textContent();
    assert.match(more, new RegExp(`^Left out of the map: ${total - 40} older sites, ` +
                                  `81 third parties of the sites drawn, ${5 * (total - 40)} ` +
                                  'third parties seen only on older sites\\.'));
    assert.match(more, /table below lists every third party of the sites drawn; Sites and All /);
    assert.match(more, /All trackers list everything\.$/);
    assert.deepEqual(await page.locator('#map-more a').evaluateAll((as) =>
      as.map((a) => a.getAttribute('href'))), ['#/sites', '#/trackers']);
    // The table lists every third party of the 40 sites.
    assert.equal(await page.locator('#map-table tbody tr').count(), 40 * 6);
    // Not stuck: the whole view, asked for and drawn again, takes under 3 s (the best of five).
    // Its speed is a figure (the line below: some 100 ms here, 300 under AddressSanitizer
    // beside other tests), not a threshold: a timed threshold fails on a busy machine.
    const times = [];
    for (let i = 0; i < 5; i++) {
      times.push(await page.evaluate(async () => {
        const t0 = performance.now();
        await viewMap();
        return performance.now() - t0;
      }));
    }
    const layout = await page.evaluate(async () => {
      const data = await api('GET', `/api/map?sites=${MAP_SITES}`);
      const t0 = performance.now();
      mapLayout(mapCap(mapFilter(data)));
      return performance.now() - t0;
    });
    console.log(`# the map of many: view ${times.map((t) => t.toFixed(1)).join(', ')} ms, ` +
                `layout ${layout.toFixed(1)} ms`);
    assert.ok(Math.min(...times) < 3000, `the view takes ${times} ms`);
    // At 360 px the labels keep their size; the map's box scrolls instead.
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto(`http://127.0.0.1:${big.port}/#/`);
    await page.locator('svg.map g.node').first().waitFor();
    assertReadable(await page.evaluate(measure), 'many at 360 px');
    const [scroll, client] = await page.evaluate(() =>
      [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    assert.ok(scroll <= client, 'the page does not scroll sideways');
  } finally {
    await page.close();
    await big.stop();
  }
}, 60000);

// Firefox ESR draws the same map: every label there, nothing overlapping.
h.check('Firefox ESR draws the map with its labels, nothing overlapping', async () => {
  const firefox = require('./firefox.js');
  if (!fs.existsSync(firefox.EXECUTABLE)) {
    console.log(`# no ${firefox.EXECUTABLE}: the map is not drawn in Firefox`);
    return;
  }
  const ff = await firefox.launch(`127.0.0.1:${brock.port}`, path.join(tmp, 'firefox'),
                                  h.tmpdir('map-firefox-home'));
  try {
    const page = await ff.browser.newPage();
    await page.setViewport({ width: 1000, height: 900 });
    await page.goto(`${base}/#/`, { waitUntil: 'load', timeout: 15000 });
    await page.waitForSelector('svg.map g.node', { timeout: 15000 });
    const m = await page.evaluate(measure);
    assert.equal(m.nodes.length, 8);
    assertReadable(m, 'Firefox');
    assert.deepEqual(m.order, [RED, YELLOW, GREEN, OLD]);
  } finally {
    await ff.close();
  }
}, 60000);
