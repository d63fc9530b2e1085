#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock's script in the HTML documents it passes: once, right after <head>, in plain, gzip,
// deflate (wrapped and raw) and br bodies (decoded and passed on plain), chunked or not, to
// HTTP/1.1 clients (chunked, keep-alive going on) and HTTP/1.0 ones (until close); large pages
// stream within bounded memory; Content-Security-Policy amended to let it run; a corrupt body
// cut; a strong ETag made weak and digests dropped, conditional requests still answered by
// the origin; and none of it for what is not a document in HTML, for HEAD, 206 and 304, or
// with --no-inject, where pages pass byte for byte.
'use strict';

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const h = require('./harness.js');
const { startOrigin, htmlText, ENCODERS } = require('./origin.js');

const { check, flat, NAVIGATE_ARGS } = h;
const JS = fs.readFileSync(path.join(__dirname, '../../web/inject.js'));
const HASH = `'sha256-${crypto.createHash('sha256').update(JS).digest('base64')}'`;
const PAGE = htmlText(0).toString();
// The script's element carries its document's token, the path of brock's reports and the
// script's jobs. Over plain HTTP, as here, brock gives no token and no path ("-"), and the
// jobs are only those that need no word with brock: every page gets the same element, read
// from a first page. (tests/integration/report.t has the tokens, inside HTTPS.)
const ATTR = /^<script data-brock="(- - s)">/;
let TAG, WITH;

let origin, brock, plain;
const tmp = h.tmpdir('inject-t');

function start(state, args = []) {
  return h.startBrock({ state, args: ['-v', '--no-update',
                                      '--resolve', `*.test=127.0.0.1:${origin.port}`, ...args] });
}

// A page opened as a browser opens one (a document), through b.
function open(url, args = [], b = brock) {
  return h.curl(b.port, [...NAVIGATE_ARGS, ...args, url]);
}

function header(r, name) {
  const m = new RegExp(`^${name}: (.*)\r$`, 'gmi');
  return [...r.headers.matchAll(m)].map((x) => x[1]);
}

before(flat('start the origin and brock', async () => {
  origin = await startOrigin();
  brock = await start(path.join(tmp, 'state'));
  plain = await start(path.join(tmp, 'plain'), ['--no-inject']);
  const first = (await open('http://site.test/html')).body.toString();
  const m = ATTR.exec(first.slice(first.indexOf('<head>') + 6));
  assert.ok(m, 'the script element says its token, path and jobs');
  TAG = `<script data-brock="${m[1]}">${JS}</script>`;
  WITH = PAGE.replace('<head>', '<head>' + TAG);
}));

after(async () => {
  if (brock) await brock.stop('SIGKILL');
  if (plain) await plain.stop('SIGKILL');
  if (origin) await origin.close();
});

check('a page gets the script once, right after <head>, chunked', async () => {
  const r = await open('http://site.test/html');
  assert.equal(r.status, 200);
  assert.equal(r.body.toString(), WITH);
  assert.deepEqual(header(r, 'transfer-encoding'), ['chunked']);
  assert.deepEqual(header(r, 'content-length'), []);
  assert.deepEqual(header(r, 'content-md5'), [], 'the digest of the origin\'s bytes is gone');
});

check('gzip, deflate (wrapped and raw) and br pages are decoded, injected, sent plain',
      async () => {
  for (const enc of Object.keys(ENCODERS)) {
    for (const mode of ['', '&mode=chunked']) {
      const r = await open(`http://site.test/html?n=300000&enc=${enc}${mode}`);
      const want = htmlText(300000).toString().replace('<head>', '<head>' + TAG);
      assert.equal(r.status, 200, enc);
      assert.deepEqual(header(r, 'content-encoding'), [], enc);
      assert.equal(r.body.length, want.length, `${enc}${mode}`);
      assert.ok(r.body.toString() === want, `${enc}${mode}: the body differs`);
    }
  }
});

check('a chunked page from the origin is injected', async () => {
  const r = await open('http://site.test/html?n=100000&mode=chunked');
  assert.equal(r.body.toString(), htmlText(100000).toString().replace('<head>', '<head>' + TAG));
});

check('an HTTP/1.0 client gets the page until close', async () => {
  const { text, closed } = await h.raw(brock.port,
    'GET http://site.test/html HTTP/1.0\r\nHost: site.test\r\nSec-Fetch-Dest: document\r\n\r\n');
  const [head, body] = [text.slice(0, text.indexOf('\r\n\r\n')),
                        text.slice(text.indexOf('\r\n\r\n') + 4)];
  assert.ok(closed);
  assert.doesNotMatch(head, /content-length|transfer-encoding/i);
  assert.equal(body, WITH);
});

check('keep-alive goes on after an injected page', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (p) => new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: brock.port, path: `http://site.test${p}`,
                           agent, timeout: 10000,
                           headers: { Host: 'site.test', ...h.NAVIGATE } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ body: Buffer.concat(chunks).toString(),
                                    reused: req.reusedSocket }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
  try {
    const a = await get('/html?enc=gzip');
    const b = await get('/html');
    const c = await get('/bytes?n=10');
    assert.equal(a.body, WITH);
    assert.equal(b.body, WITH);
    assert.equal(c.body.length, 10);
    assert.ok(b.reused && c.reused, 'the same connection served all three');
  } finally {
    agent.destroy();
  }
});

check('a large page streams with bounded memory while the client waits', async () => {
  // 32 MiB of page in 32 KiB of gzip: brock decodes only as the client reads.
  const n = 32 << 20;
  const before = h.rssKiB(brock.proc.pid);
  let peak = 0, got = 0;
  const hash = crypto.createHash('sha256');
  await new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port: brock.port,
                           path: `http://site.test/html?spaces=${n}&enc=gzip`, timeout: 60000,
                           headers: { Host: 'site.test', ...h.NAVIGATE } }, (res) => {
      res.pause();
      setTimeout(() => {
        peak = h.rssKiB(brock.proc.pid);
        res.on('data', (c) => { got += c.length; hash.update(c); });
        res.on('end', resolve);
        res.resume();
      }, 3000);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
  const want = crypto.createHash('sha256')
    .update(htmlText(0, n).toString().replace('<head>', '<head>' + TAG)).digest('hex');
  assert.equal(got, htmlText(0, n).length + TAG.length);
  assert.equal(hash.digest('hex'), want);
  assert.ok(peak - before < 16 * 1024, `brock grew by ${peak - before} KiB while the client waited`);
}, 120000);

check('Content-Security-Policy is amended to let the script run, and no more', async () => {
  const q = (csp) => 'csp=' + encodeURIComponent(csp);
  let r = await open(`http://site.test/html?${q("script-src 'self'; img-src *")}` +
                     `&cspro=${encodeURIComponent("script-src 'none'")}`);
  assert.deepEqual(header(r, 'content-security-policy'), [`script-src 'self' ${HASH}; img-src *`]);
  assert.deepEqual(header(r, 'content-security-policy-report-only'), ["script-src 'none'"]);
  r = await open(`http://site.test/html?${q("default-src 'none'")}&${q("script-src 'unsafe-inline'")}` +
                 `&${q('frame-ancestors *')}`);
  assert.deepEqual(header(r, 'content-security-policy'),
                   [`default-src ${HASH}`, "script-src 'unsafe-inline'", 'frame-ancestors *']);
  assert.equal(r.body.toString(), WITH);
});

check('--no-inject: pages pass byte for byte, headers included', async () => {
  for (const qs of ['', '?enc=gzip', '?enc=br&mode=chunked',
                    `?csp=${encodeURIComponent("script-src 'self'")}`]) {
    const r = await open(`http://site.test/html${qs}`, [], plain);
    const direct = await h.run('curl', ['-s', '-D', '-', '-o', '/dev/null',
                                        `http://127.0.0.1:${origin.port}/html${qs}`]);
    const origHeaders = direct.stdout.split('\r\n').filter((l) => /^content-/i.test(l)).sort();
    const gotHeaders = r.headers.split('\r\n').filter((l) => /^content-/i.test(l)).sort();
    assert.deepEqual(gotHeaders, origHeaders, qs);
    const body = (await h.run('curl', ['-s', `http://127.0.0.1:${origin.port}/html${qs}`],
                              { encoding: 'buffer' })).stdout;
    assert.ok(r.body.equals(body), `${qs}: the body changed`);
  }
  const s = await h.run('curl', ['-s', `http://127.0.0.1:${plain.port}/api/status`]);
  assert.equal(JSON.parse(s.stdout).inject, false);
  const t = await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/api/status`]);
  assert.equal(JSON.parse(t.stdout).inject, true);
});

check('what is not an HTML document passes untouched', async () => {
  for (const type of ['application/json', 'image/png', 'text/plain']) {
    const r = await open(`http://site.test/html?type=${encodeURIComponent(type)}`);
    assert.equal(r.body.toString(), PAGE, type);
    assert.deepEqual(header(r, 'content-length'), [String(PAGE.length)], type);
  }
  // Not a document: fetch() of a page, an image, a request that says nothing.
  let r = await h.curl(brock.port, ['http://site.test/html']);
  assert.equal(r.body.toString(), PAGE);
  r = await h.curl(brock.port, ['-H', 'Sec-Fetch-Dest: empty', 'http://site.test/html']);
  assert.equal(r.body.toString(), PAGE);
  // A coding brock does not undo, or a list of several, passes as it is.
  for (const ce of ['compress', 'gzip, br']) {
    r = await open(`http://site.test/html?ce=${encodeURIComponent(ce)}`);
    assert.equal(r.body.toString(), PAGE, ce);
    assert.deepEqual(header(r, 'content-encoding'), [ce]);
  }
});

check('frames get the script too, with the same jobs', async () => {
  const r = await h.curl(brock.port, ['-H', 'Sec-Fetch-Dest: iframe', 'http://site.test/html']);
  assert.equal(r.body.toString(), WITH);
});

check('HEAD, 206 and 304 pass untouched', async () => {
  let r = await open('http://site.test/html', ['-I']);
  assert.equal(r.status, 200);
  assert.deepEqual(header(r, 'content-length'), [String(PAGE.length)]);
  r = await open('http://site.test/html?status=206');
  assert.equal(r.status, 206);
  assert.equal(r.body.toString(), PAGE);
  r = await open('http://site.test/status?code=304');
  assert.equal(r.status, 304);
  assert.equal(r.body.length, 0);
  assert.deepEqual(header(r, 'transfer-encoding'), []);
});

check('a page brock changed has a weak ETag and no digests; conditional requests reach the ' +
      'origin, whose 304 passes', async () => {
  const digests = ['content-md5', 'digest', 'content-digest', 'repr-digest'];
  for (const enc of ['', '&enc=gzip', '&enc=br']) {
    const r = await open(`http://site.test/html?etag="v1"&digests=1${enc}`);
    assert.equal(r.status, 200, enc);
    assert.equal(r.body.toString(), WITH, enc);
    assert.deepEqual(header(r, 'etag'), ['W/"v1"'], enc);
    for (const name of digests) assert.deepEqual(header(r, name), [], `${name}${enc}`);
  }
  // Weak already: as it was. Not an entity tag: gone, as brock cannot weaken it.
  let r = await open('http://site.test/html?etag=W/"v2"');
  assert.deepEqual(header(r, 'etag'), ['W/"v2"']);
  r = await open('http://site.test/html?etag=v3');
  assert.deepEqual(header(r, 'etag'), []);
  assert.equal(r.body.toString(), WITH);
  // The client asks again with the validator it got; the origin, comparing weakly, says 304,
  // and the copy the client keeps stays weak.
  const before = origin.requests.length;
  r = await open('http://site.test/html?etag="v1"', ['-H', 'If-None-Match: W/"v1"']);
  assert.equal(r.status, 304);
  assert.equal(r.body.length, 0);
  assert.deepEqual(header(r, 'etag'), ['W/"v1"']);
  const sent = origin.requests.slice(before).filter((q) => q.path.startsWith('/html'));
  assert.equal(sent.length, 1);
  assert.deepEqual(sent[0].headers.filter(([k]) => k.toLowerCase() === 'if-none-match')
                     .map(([, v]) => v), ['W/"v1"']);
  // What brock does not change keeps its strong ETag: with --no-inject, and what is no page.
  r = await open('http://site.test/html?etag="v1"&digests=1', [], plain);
  assert.deepEqual(header(r, 'etag'), ['"v1"']);
  assert.equal(header(r, 'digest').length, 1);
  r = await open('http://site.test/html?etag="v1"&type=text/plain');
  assert.deepEqual(header(r, 'etag'), ['"v1"']);
  r = await open('http://site.test/html?etag="v1"', ['-H', 'If-None-Match: "v1"'], plain);
  assert.equal(r.status, 304);
  assert.deepEqual(header(r, 'etag'), ['"v1"']);
});

check('a corrupt gzip page cuts the client\'s connection, with a line in the log', async () => {
  const r = await open('http://site.test/html?n=100000&enc=gzip&corrupt=1');
  assert.notEqual(r.code, 0, 'curl saw the body cut short');
  assert.ok(!r.body.toString().includes('</html>'));
  await h.waitFor('the log line', () => /response body is malformed \(the body is not in its/
    .test(brock.log()));
});
