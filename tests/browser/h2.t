#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Browsers choose HTTP/2 with brock inside intercepted HTTPS: Debian's Chromium and Firefox
// ESR, through `brock run --intercept`, load a page that pulls sixty images from a second
// host and a script from a third; the page and every resource came over h2 (what each browser
// says it negotiated, the Resource Timing API's nextHopProtocol), every image loaded, every
// request reached the origin once, with DNT and GPC; with --no-http2 the same browser speaks
// HTTP/1.1. What brock does to each request (learning, blocking, cookies, its script) is
// checked on HTTP/2 streams by https.t, inject.t, inpage.t and widgets.t, whose pages Chromium
// fetches over h2 too and which say so.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { GIF } = require('./chromium.js');
const firefox = require('./firefox.js');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy, protocols } = require('./brock.js');
const { flat, check } = h;

const SITE = 'site.test', IMAGES = 'img.test', SCRIPTS = 'js.test';
const N = 60;
const tmp = h.tmpdir('h2-browser-t');

function startOrigin(certs) {
  return startSite((req, res, host) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Timing-Allow-Origin', '*');
    if (host === IMAGES) {
      res.setHeader('Content-Type', 'image/gif');
      res.end(GIF);
      return;
    }
    if (host === SCRIPTS) {
      res.setHeader('Content-Type', 'application/javascript');
      res.end('window.scriptRan = true;\n');
      return;
    }
    const run = new URL(req.url, 'https://x').searchParams.get('run');
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><title>${SITE}</title><script src="https://${SCRIPTS}/s.js?run=${
      run}"></script>${Array.from({ length: N }, (_, i) =>
      `<img src="https://${IMAGES}/i/${i}.gif?run=${run}" width=1 height=1>`).join('')}`);
  }, { tls: { key: certs.key, cert: certs.cert } });
}

let origin, certs, brock, plain;

before(flat(async () => {
  certs = h.originCerts(tmp, [SITE, IMAGES, SCRIPTS], 'brock h2 browser test');
  origin = await startOrigin(certs);
  brock = await startProxy(path.join(tmp, 'state'), { port: origin.port, intercept: true,
                                                      upstreamCa: certs.ca });
  plain = await startProxy(path.join(tmp, 'plain'), { port: origin.port, intercept: true,
                                                      upstreamCa: certs.ca,
                                                      args: ['--no-http2'] });
}));

after(async () => {
  for (const b of [brock, plain]) if (b) await b.stop();
  if (origin) await origin.close();
});

// Loads the page (run: a name for this load) in browser's new page and says what came how.
async function load(newPage, run) {
  const page = await newPage();
  try {
    await page.goto(`https://${SITE}/?run=${run}`, { waitUntil: 'load', timeout: 30000 });
    const images = await page.evaluate(() => [...document.images]
      .filter((i) => i.complete && i.naturalWidth > 0).length);
    const scriptRan = await page.evaluate(() => window.scriptRan === true);
    return { images, scriptRan, proto: await protocols(page) };
  } finally {
    await page.close();
  }
}

function checkLoad(got, run, proto) {
  assert.equal(got.proto.page, proto, `the page came over ${proto}`);
  assert.equal(got.images, N, 'every image loaded');
  assert.equal(got.scriptRan, true, 'the script ran');
  const res = Object.entries(got.proto.resources).filter(([u]) => u.includes(`run=${run}`));
  assert.equal(res.length, N + 1);
  for (const [u, p] of res) assert.equal(p, proto, u);
  const seen = origin.requests.filter((r) => r.path.endsWith(`run=${run}`));
  assert.equal(seen.length, N + 2, 'each request reached the origin once');
  for (const r of seen) {
    assert.equal(r.headers.dnt, '1');
    assert.equal(r.headers['sec-gpc'], '1');
  }
}

check('Chromium speaks HTTP/2 with brock inside interception', async () => {
  const { launch } = require('./chromium.js');
  const b = await launch(brock.listen, { ca: brock.ca });
  try {
    checkLoad(await load(() => b.context.newPage(), 'chromium'), 'chromium', 'h2');
  } finally {
    await b.close();
  }
  const m = (await h.curl(brock.port, [`http://127.0.0.1:${brock.port}/metrics`])).body.toString();
  assert.ok(Number(/^brock_http2_streams_total (\d+)/m.exec(m)[1]) >= N + 2);
}, 90000);

check('and HTTP/1.1 with --no-http2', async () => {
  const { launch } = require('./chromium.js');
  const b = await launch(plain.listen, { ca: plain.ca });
  try {
    checkLoad(await load(() => b.context.newPage(), 'plain'), 'plain', 'http/1.1');
  } finally {
    await b.close();
  }
}, 90000);

check('Firefox ESR speaks HTTP/2 with brock inside interception', async (t) => {
  if (!fs.existsSync(firefox.EXECUTABLE)) {
    t.skip(`no ${firefox.EXECUTABLE}`);
    return;
  }
  // A profile whose certificate database trusts brock's CA (made here with certutil; the
  // machine's own stores are not touched).
  const profile = path.join(tmp, 'firefox');
  fs.mkdirSync(profile, { recursive: true });
  execFileSync('certutil', ['-N', '-d', `sql:${profile}`, '--empty-password']);
  execFileSync('certutil', ['-A', '-d', `sql:${profile}`, '-n', 'brock test CA', '-t', 'C,,',
                            '-i', brock.ca]);
  const ff = await firefox.launch(brock.listen, profile, h.tmpdir('h2-firefox-home'));
  try {
    checkLoad(await load(() => ff.browser.newPage(), 'firefox'), 'firefox', 'h2');
  } finally {
    await ff.close();
  }
}, 120000);
