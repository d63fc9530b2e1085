#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Link unwrapping on Google's and Facebook's pages (Privacy Badger's first-party protections)
// in a real browser: Chromium through `brock run --intercept` opens a Google results page
// (www.google.de) and a Facebook page (www.facebook.com), both served by a local origin.
// Their redirector links lead where they say once the page has loaded, a link added by a
// script later too; javascript: links and addresses that are not web ones stay as they are.
// The same page on another site is left alone, and so it is on a disabled site.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy } = require('./brock.js');
const { flat, check } = h;

const GOOGLE = 'www.google.de';
const FACEBOOK = 'www.facebook.com';
const OTHER = 'site1.test';
const tmp = h.tmpdir('links-browser-t');

// Google's wrapped links: through www.google.com's redirector and through the page's own.
const GOOGLE_PAGE = `<!doctype html><html><head><title>results</title></head><body>
<a id="g-com" ping="/gen_204" href="https://www.google.com/url?q=https://example.org/a&amp;sa=U">a</a>
<a id="g-own" href="/url?url=https://example.org/b&amp;q=https://example.org/not-this">b</a>
<a id="g-twice" href="/url?q=https://www.google.com/url%3Fq%3Dhttps://example.org/c%26sa%3DD">c</a>
<a id="g-js" href="/url?q=javascript:alert(1)">js</a>
<a id="g-ftp" href="/url?q=ftp://example.org/f">ftp</a>
<a id="g-plain" href="https://example.org/plain">plain</a>
<a id="g-script" href="javascript:void(0)">script</a>
<script>setTimeout(function () {
  var a = document.createElement('a');
  a.id = 'g-later'; a.href = '/url?q=https://example.org/later'; a.textContent = 'later';
  document.body.appendChild(a);
}, 300);</script>
</body></html>`;

const FB_WRAP = 'https://l.facebook.com/l.php?u=' +
  encodeURIComponent('https://example.org/d?fbclid=IwAR0x&k=1') + '&amp;h=AT0';
const FACEBOOK_PAGE = `<!doctype html><html><head><title>feed</title></head><body>
<a id="f-wrap" class="c" aria-label="out" data-x="1" target="_self" rel="nofollow" onclick="return false"
   href="${FB_WRAP}">d</a>
<a id="f-bare" data-x="2" href="https://example.org/e?fbclid=abc&amp;z=2">e</a>
<a id="f-js" href="https://l.facebook.com/l.php?u=javascript%3Aalert(1)">js</a>
<a id="f-script" href="javascript:alert(2)">script</a>
<a id="f-plain" data-x="3" href="https://example.org/plain">plain</a>
<script>
window.heard = [];
document.addEventListener('mouseover', function (e) { window.heard.push(e.target.id); });
setTimeout(function () {
  var a = document.createElement('a');
  a.id = 'f-later'; a.setAttribute('data-x', '4');
  a.href = 'https://lm.facebook.com/l.php?u=' + encodeURIComponent('https://example.org/later');
  a.textContent = 'later';
  document.body.appendChild(a);
}, 300);</script>
</body></html>`;

function startOrigin(certs) {
  return startSite((req, res, host) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(host === FACEBOOK || host === `fb.${OTHER}` ? FACEBOOK_PAGE : GOOGLE_PAGE);
  }, { tls: { key: certs.key, cert: certs.cert } });
}

let origin;
let brock;
let browser;
const state = path.join(tmp, 'state');

before(flat('setting up', async () => {
  origin = await startOrigin(h.originCerts(tmp, [GOOGLE, FACEBOOK, OTHER, `fb.${OTHER}`],
                                           'brock links test'));
  brock = await startProxy(state, { port: origin.port, hosts: [GOOGLE, FACEBOOK],
                                    intercept: true, upstreamCa: path.join(tmp, 'ca.pem'),
                                    browser: {} });
  browser = brock.browser;
}));

after(async () => {
  if (browser) await browser.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

// Opens url in a new tab, waits for the link a script adds, and gives fn the page.
async function visit(url, fn) {
  const page = await browser.context.newPage();
  try {
    await page.goto(url, { waitUntil: 'load', timeout: 20000 });
    await page.waitForFunction(() => [...document.links].some((a) => a.textContent === 'later'),
                               null, { timeout: 10000 });
    // The observer's turn after the script's.
    await new Promise((r) => setTimeout(r, 200));
    return await fn(page);
  } finally {
    await page.close();
  }
}

// Each link's attributes but its id, by its id (by its text once it has none: Facebook's
// unwrapped links keep only their href, class and aria-* attributes).
function links(page) {
  return page.evaluate(() => {
    const out = {};
    for (const a of document.querySelectorAll('a')) {
      const attrs = {};
      for (const at of a.attributes) if (at.name !== 'id') attrs[at.name] = at.value;
      out[a.id || `text:${a.textContent}`] = attrs;
    }
    return out;
  });
}

const NOREF = 'noreferrer noopener';

check('a Google results page: redirector links lead where they say', async () => {
  await visit(`https://${GOOGLE}/search?q=x`, async (page) => {
    const l = await links(page);
    assert.deepEqual(l['g-com'], { ping: '/gen_204', href: 'https://example.org/a', rel: NOREF });
    assert.deepEqual(l['g-own'], { href: 'https://example.org/b', rel: NOREF });
    assert.deepEqual(l['g-twice'], { href: 'https://example.org/c', rel: NOREF });
    assert.deepEqual(l['g-later'], { href: 'https://example.org/later', rel: NOREF });
    assert.deepEqual(l['g-js'], { href: '/url?q=javascript:alert(1)' });
    assert.deepEqual(l['g-ftp'], { href: '/url?q=ftp://example.org/f' });
    assert.deepEqual(l['g-plain'], { href: 'https://example.org/plain' });
    assert.deepEqual(l['g-script'], { href: 'javascript:void(0)' });
  });
}, 60000);

check('a Facebook page: l.php links unwrapped and cleaned, fbclid gone', async () => {
  await visit(`https://${FACEBOOK}/`, async (page) => {
    const l = await links(page);
    assert.deepEqual(l['text:d'], { class: 'c', 'aria-label': 'out', href: 'https://example.org/d?k=1',
                                    rel: NOREF, target: '_blank' });
    assert.deepEqual(l['text:later'], { href: 'https://example.org/later', rel: NOREF,
                                     target: '_blank' });
    assert.deepEqual(l['f-bare'], { 'data-x': '2', href: 'https://example.org/e?z=2' });
    assert.deepEqual(l['f-js'], { href: 'https://l.facebook.com/l.php?u=javascript%3Aalert(1)' });
    assert.deepEqual(l['f-script'], { href: 'javascript:alert(2)' });
    assert.deepEqual(l['f-plain'], { 'data-x': '3', href: 'https://example.org/plain' });
    // The page's own handlers hear nothing of an unwrapped link's mouse events.
    const heard = await page.evaluate(() => {
      for (const a of document.links) {
        if (['d', 'later', 'plain'].includes(a.textContent)) {
          a.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
        }
      }
      return window.heard;
    });
    assert.deepEqual(heard, ['f-plain']);
  });
}, 60000);

check('the same pages elsewhere, or on a disabled site, keep their links', async () => {
  for (const url of [`https://${OTHER}/`, `https://fb.${OTHER}/`]) {
    await visit(url, async (page) => {
      const l = await links(page);
      const first = l['g-com'] || l['f-wrap'];
      assert.ok(first, url);
      assert.ok(first.href.includes('/url?') || first.href.includes('/l.php?'), url);
      assert.equal(first.rel === NOREF, false, url);
    });
  }
  const r = await h.brock(state, ['disable', 'google.de']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('brock to see the site disabled', async () => {
    const page = await h.curl(brock.port, ['--cacert', path.join(state, 'ca', 'ca.pem'),
                                           ...h.NAVIGATE_ARGS, `https://${GOOGLE}/`]);
    return !page.body.toString().includes('data-brock');
  }, 10000);
  await visit(`https://${GOOGLE}/`, async (page) => {
    const l = await links(page);
    assert.equal(l['g-com'].href, 'https://www.google.com/url?q=https://example.org/a&sa=U');
    assert.equal(l['g-later'].href, '/url?q=https://example.org/later');
  });
}, 60000);
