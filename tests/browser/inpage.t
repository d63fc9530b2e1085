#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// What brock's script sees in pages, in a real browser: Chromium through `brock run
// --intercept` opens four local HTTPS sites. Each page loads a third-party script that writes
// text to a canvas and reads it back (canvas fingerprinting), one that only reads a small
// canvas, and two third-party frames: one keeps a high-entropy value in its localStorage (a
// supercookie), the other a low-entropy one. The fingerprinter and the supercookie frame are
// learned on three sites, with their evidence, and blocked on the fourth, never reaching the
// origin there; the others are not learned. The page's own canvas gives the same data as
// without brock, and the wrapped functions look like the browser's own. Three sites of one
// owner that load a victim's script and read the token of a frame of their own, sandboxed so
// that brock's script never runs there to take it out, and report the victim's script as a
// canvas fingerprinter with it, are refused: the victim is not learned.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy, protocols } = require('./brock.js');
const { flat, check } = h;

const SITES = ['site1.test', 'site2.test', 'site3.test', 'site4.test'];
const FP = 'fp-tracker.test';        // draws text and reads the canvas back
const SMALL = 'small-canvas.test';   // draws text, reads back 10x10 pixels only
const SC = 'frame-tracker.test';     // a frame with a high-entropy localStorage value
const LO = 'quiet-frame.test';       // a frame with a low-entropy one
const OWNER = ['w1.test', 'w2.test', 'w3.test']; // one owner's sites, forging reports
const VICTIM = 'victim.test';        // whose script they load

const tmp = h.tmpdir('inpage-browser-t');

const FP_JS = `(function () {
  const c = document.createElement('canvas');
  c.width = 220; c.height = 30;
  const x = c.getContext('2d');
  x.textBaseline = 'top'; x.font = '14px Arial';
  x.fillText('Cwm fjordbank glyphs vext quiz', 2, 2);
  window.fp = c.toDataURL().length;
}());`;
const SMALL_JS = `(function () {
  const c = document.createElement('canvas');
  c.width = 10; c.height = 10;
  const x = c.getContext('2d');
  x.fillText('hello world', 0, 0);
  window.small = x.getImageData(0, 0, 10, 10).data.length;
}());`;
// The page's own drawing: its data, and how the functions brock wraps look.
const OWN_JS = `(function () {
  const c = document.createElement('canvas');
  c.width = 64; c.height = 32;
  const x = c.getContext('2d');
  x.fillStyle = '#c33'; x.fillRect(0, 0, 64, 32);
  x.fillStyle = '#fff'; x.font = '12px monospace'; x.fillText('own text', 2, 12);
  x.strokeText('more text', 2, 28);
  let threw = '';
  try { x.getImageData(0, 0, 0, 1); } catch (e) { threw = e.name; }
  const P = CanvasRenderingContext2D.prototype;
  window.own = {
    url: c.toDataURL(),
    sum: Array.from(x.getImageData(0, 0, 64, 32).data).reduce((a, b) => (a * 31 + b) % 1000003, 0),
    threw,
    strings: [P.fillText, P.strokeText, P.getImageData, HTMLCanvasElement.prototype.toDataURL,
              Function.prototype.toString].map((f) => f.toString() + '/' + f.name + '/' + f.length),
  };
}());`;

// A page of one of OWNER's sites: the victim's script, and a frame of its own sandboxed without
// scripts, whose token it reads and reports the victim's script with, as fingerprinting it saw
// in a top-level page. window.forged is brock's answer (or why nothing was sent).
const FORGED_PAGE = `<!doctype html><html><head><title>owner</title></head><body>
  <script src="https://${VICTIM}/lib.js"></script>
  <iframe id="f" sandbox="allow-same-origin" src="/inner"></iframe>
  <script>
  document.getElementById('f').addEventListener('load', function () {
    var el = this.contentDocument.querySelector('script[data-brock]');
    var conf = el ? el.getAttribute('data-brock').split(' ') : [];
    if (conf.length !== 3 || conf[0] === '-') { window.forged = 'no token'; return; }
    var url = 'https://${VICTIM}/lib.js';
    fetch(location.origin + conf[1], { method: 'POST', body: JSON.stringify({
      token: conf[0], kind: 'canvas', top: true, ancestors: [], script: url, writers: [url] }) })
      .then(function (r) { window.forged = r.status; }, function () { window.forged = 'failed'; });
  });
  </script></body></html>`;
const FORGED_INNER = '<!doctype html><html><head><title>inner</title></head><body>inner</body></html>';

function startOrigin(certs) {
  return startSite((req, res, host) => {
    res.setHeader('Cache-Control', 'no-store');
    const js = (body) => { res.setHeader('Content-Type', 'text/javascript'); res.end(body); };
    const html = (body) => {
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(body);
    };
    if (host === FP) return js(FP_JS);
    if (host === SMALL) return js(SMALL_JS);
    if (host === SC || host === LO) {
      const value = host === SC ? 'ABCDEF0123456789' : 'ab';
      return html(`<!doctype html><html><head><title>frame</title></head><body>
        <script>localStorage.setItem(${JSON.stringify(host === SC ? 'frameId' : 'ab')},
                                     ${JSON.stringify(value)});</script></body></html>`);
    }
    if (host === VICTIM) return js('window.lib = 1;');
    if (OWNER.includes(host)) return html(req.url === '/inner' ? FORGED_INNER : FORGED_PAGE);
    if (req.url === '/own.js') return js(OWN_JS);
    if (req.url === '/own') {
      return html('<!doctype html><html><head><title>own</title></head><body>' +
                  '<script src="/own.js"></script></body></html>');
    }
    return html(`<!doctype html><html><head><title>${host}</title></head><body>
      <script src="https://${FP}/fp.js?on=${host}"></script>
      <script src="https://${SMALL}/small.js?on=${host}"></script>
      <iframe src="https://${SC}/frame?on=${host}"></iframe>
      <iframe src="https://${LO}/frame?on=${host}"></iframe>
      </body></html>`);
  }, { tls: { key: certs.key, cert: certs.cert } });
}

let origin, brock, plain, browser, plainBrowser;

// brock seeing inside HTTPS, and a Chromium through it.
async function startBrock(name, certs, args) {
  const b = await startProxy(path.join(tmp, name), {
    port: origin.port, intercept: true, upstreamCa: certs.ca, verbose: true, args,
    // Third-party frames get storage only where third-party cookies are allowed.
    browser: { thirdPartyCookies: true } });
  return [b, b.browser];
}

before(flat('setting up', async () => {
  const certs = h.originCerts(tmp, [...SITES, FP, SMALL, SC, LO, ...OWNER, VICTIM],
                              'brock inpage test');
  origin = await startOrigin(certs);
  [brock, browser] = await startBrock('state', certs, []);
  [plain, plainBrowser] = await startBrock('plain', certs, ['--no-inject']);
}));

after(async () => {
  for (const b of [browser, plainBrowser]) if (b) await b.close();
  for (const b of [brock, plain]) if (b) await b.stop();
  if (origin) await origin.close();
});

// The dashboard's view of a tracker: its action and evidence.
async function tracker(domain) {
  const r = await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/api/trackers/${domain}`]);
  return JSON.parse(r.stdout);
}

function kinds(t, kind) {
  return [...new Set((t.evidence || []).filter((e) => e.kind === kind).map((e) => e.site))].sort();
}

check('a canvas fingerprinter and a supercookie frame are learned on three sites and blocked ' +
      'on the fourth; a small canvas read and a low-entropy frame are not', async () => {
  for (const [i, site] of SITES.slice(0, 3).entries()) {
    const page = await browser.context.newPage();
    try {
      await page.goto(`https://${site}/`, { waitUntil: 'load', timeout: 20000 });
      // The reports below come from pages and scripts fetched over HTTP/2.
      assert.equal((await protocols(page)).page, 'h2');
      assert.ok(await page.evaluate(() => window.fp > 100), `the fingerprinter ran on ${site}`);
      assert.equal(await page.evaluate(() => window.small), 400);
      await h.waitFor(`canvas and supercookie evidence on ${site}`, async () =>
        kinds(await tracker(FP), 'canvas').length === i + 1 &&
        kinds(await tracker(SC), 'supercookie').length === i + 1, 20000);
      assert.deepEqual(kinds(await tracker(FP), 'canvas'), SITES.slice(0, i + 1));
    } finally {
      await page.close();
    }
  }
  assert.equal((await tracker(FP)).action, 'block');
  assert.equal((await tracker(SC)).action, 'block');
  assert.match(brock.log(), /learned: fp-tracker\.test tracks across sites \(canvas seen on/);
  assert.match(brock.log(), /learned: frame-tracker\.test tracks across sites \(supercookie/);
  // brock's own check of a newly blocked host's DNT policy may reach it; nothing else may.
  const fetched = (d) => origin.to(d).filter((r) => r.path !== '/.well-known/dnt-policy.txt');
  const fpBefore = fetched(FP).length;
  const scBefore = fetched(SC).length;
  const page = await browser.context.newPage();
  try {
    await page.goto(`https://${SITES[3]}/`, { waitUntil: 'load', timeout: 20000 });
    assert.equal(await page.evaluate(() => window.fp), undefined, 'the fingerprinter is blocked');
  } finally {
    await page.close();
  }
  assert.equal(fetched(FP).length, fpBefore, 'its request never reached the origin');
  assert.equal(fetched(SC).length, scBefore, 'nor the supercookie frame\'s');
  // Neither the reader of a small canvas nor the quiet frame was learned.
  for (const d of [SMALL, LO]) {
    const t = await tracker(d);
    assert.deepEqual(t.evidence || [], [], `${d} has no evidence`);
    assert.notEqual(t.action, 'block', `${d} is not blocked`);
  }
  // The reports went to brock alone.
  assert.equal(origin.requests.filter((r) => r.path.startsWith('/.well-known/brock-')).length,
               0, 'no report reached an origin');
}, 180000);

check('the page\'s own canvas gives what it gives without brock; the wrappers look native',
      async () => {
  const read = async (b) => {
    const page = await b.context.newPage();
    try {
      await page.goto(`https://${SITES[0]}/own`, { waitUntil: 'load', timeout: 20000 });
      await h.waitFor('the page\'s drawing', () => page.evaluate(() => !!window.own), 10000);
      return await page.evaluate(() => window.own);
    } finally {
      await page.close();
    }
  };
  const [withBrock, without] = [await read(browser), await read(plainBrowser)];
  assert.equal(withBrock.url, without.url);
  assert.equal(withBrock.sum, without.sum);
  assert.equal(withBrock.threw, 'IndexSizeError');
  assert.deepEqual(withBrock.strings, without.strings);
  // Its canvas writes were the site's own: nothing learned about the site.
  assert.deepEqual((await tracker(SITES[0])).evidence || [], []);
}, 60000);

check('three sites of one owner reporting a victim\'s script with the token of a sandboxed frame ' +
      'of their own: refused, and the victim is not learned', async () => {
  for (const site of OWNER) {
    const page = await browser.context.newPage();
    try {
      await page.goto(`https://${site}/`, { waitUntil: 'load', timeout: 20000 });
      assert.equal(await page.evaluate(() => window.lib), 1, `the victim's script ran on ${site}`);
      const answer = await h.waitFor(`the forged report on ${site}`,
                                     () => page.evaluate(() => window.forged), 10000);
      assert.equal(answer, 403, `brock refused the report on ${site}`);
    } finally {
      await page.close();
    }
  }
  const t = await tracker(VICTIM);
  assert.deepEqual(t.evidence || [], [], 'no evidence against the victim');
  assert.notEqual(t.action, 'block');
  assert.match(brock.log(), /canvas fingerprinting is taken from a top-level page or another site/);
}, 90000);
