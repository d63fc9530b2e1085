#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// HTTP/2 toward the client inside `brock run --intercept`: a client that offers h2 by ALPN gets
// it (and HTTP/1.1 with --no-http2, or when it offers only that); each stream is one request
// that brock handles as it handles any inside a tunnel: DNT and GPC, cookie fields joined,
// bodies with and without Content-Length, HEAD, 204 and 304 without a body, a big response
// under flow control, a hundred streams at once on one connection, blocking and learning.
// The hardening cases (tests/integration/h2limits.t) and the conformance table
// (tests/integration/h2spec.t) have files of their own.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http2 = require('node:http2');
const path = require('node:path');
const { startSite } = require('./origin.js');
const h = require('./harness.js');
const c2 = require('./h2client.js');
const { flat } = h;

function check(name, fn) {
  h.check(name, fn, 60000);
}

const tmp = h.tmpdir('h2-t');
const state = path.join(tmp, 'state');
const SITES = ['site1.test', 'site2.test', 'site3.test', 'site4.test'];
const TRACKER = 'tracker.test';
const BIG = crypto.randomBytes(3 * 1024 * 1024);

let origin, brock, plain, ca;
const YELLOW = h.pickYellow();

function serve(req, res, host) {
  // Takes the head and never reads the body: an upload that stalls at the origin.
  if (req.url.startsWith('/sink')) {
    req.pause();
    return;
  }
  let n = 0;
  const hash = crypto.createHash('sha256');
  req.on('data', (d) => { n += d.length; hash.update(d); });
  req.on('end', () => {
    if (req.url === '/big') {
      res.setHeader('Content-Type', 'application/octet-stream');
      res.setHeader('Content-Length', String(BIG.length));
      res.end(req.method === 'HEAD' ? undefined : BIG);
      return;
    }
    if (req.url === '/nocontent') { res.statusCode = 204; res.end(); return; }
    if (req.url === '/slow') { setTimeout(() => res.end('slow but whole\n'), 800); return; }
    if (req.url === '/notmodified') { res.statusCode = 304; res.end(); return; }
    if (host === TRACKER || host === YELLOW) {
      res.setHeader('Set-Cookie', `uid=${crypto.randomBytes(16).toString('hex')}; Path=/`);
      res.setHeader('Content-Type', 'image/gif');
      res.end('GIF89a');
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Connection', 'keep-alive, X-Hop');
    res.setHeader('X-Hop', 'hop-by-hop: never forwarded');
    res.setHeader('X-Kept', 'kept');
    res.end(JSON.stringify({ path: req.url, method: req.method, got: n,
                             sha: hash.digest('hex'), headers: req.headers }));
  });
}

before(flat(async () => {
  const certs = h.originCerts(tmp, [...SITES, TRACKER, YELLOW, 'adnet.test'], 'brock h2 test');
  origin = await startSite(serve, { tls: { key: certs.key, cert: certs.cert } });
  let r = await h.brock(state, ['ca', 'init']);
  assert.equal(r.code, 0, r.stderr);
  r = await h.brock(state, ['set', 'adnet.test', 'block']);
  assert.equal(r.code, 0, r.stderr);
  ca = fs.readFileSync(path.join(state, 'ca', 'ca.pem'));
  const args = ['-v', '--no-update', '--intercept', '--upstream-ca', certs.ca,
                ...h.resolveTo(origin.port, '*.test', YELLOW)];
  brock = await h.startBrock({ state, args });
  const state2 = path.join(tmp, 'state2');
  r = await h.brock(state2, ['ca', 'init']);
  assert.equal(r.code, 0, r.stderr);
  plain = await h.startBrock({ state: state2, args: [...args, '--no-http2'] });
  plain.ca = fs.readFileSync(path.join(state2, 'ca', 'ca.pem'));
}));

after(async () => {
  if (brock) await brock.stop();
  if (plain) await plain.stop();
  if (origin) await origin.close();
});

const json = (r) => JSON.parse(r.body.toString());

check('a client offering h2 gets it; with --no-http2, or offering only http/1.1, HTTP/1.1',
      async () => {
  const s = await c2.session(brock.port, SITES[0], ca);
  assert.equal(s.alpn, 'h2');
  const r = await c2.request(s, { ':path': '/hello?x=1' });
  assert.equal(r.status, 200);
  assert.equal(json(r).path, '/hello?x=1');
  s.close();
  const t = await c2.tlsTo(brock.port, SITES[0], ca, ['http/1.1']);
  assert.equal(t.alpnProtocol, 'http/1.1');
  t.destroy();
  const t2 = await c2.tlsTo(plain.port, SITES[0], plain.ca, ['h2', 'http/1.1']);
  assert.equal(t2.alpnProtocol, 'http/1.1', '--no-http2 chooses HTTP/1.1');
  t2.destroy();
});

check('each stream leaves with DNT and GPC, its cookie fields in one, hop-by-hop fields dropped',
      async () => {
  const s = await c2.session(brock.port, SITES[0], ca);
  const r = await c2.request(s, { ':path': '/q', cookie: ['a=1', 'b=2', 'c=3'], 'x-mine': 'yes',
                                  'user-agent': 'h2 test' });
  const got = json(r);
  assert.equal(got.headers.dnt, '1');
  assert.equal(got.headers['sec-gpc'], '1');
  assert.equal(got.headers.cookie, 'a=1; b=2; c=3', 'one Cookie field, as HTTP/1.1 has it');
  assert.equal(got.headers['x-mine'], 'yes');
  assert.equal(got.headers.host, SITES[0]);
  assert.equal(r.headers['x-kept'], 'kept');
  assert.equal(r.headers['x-hop'], undefined, 'a field the Connection field named is dropped');
  assert.equal(r.headers.connection, undefined);
  s.close();
});

check('request bodies: with Content-Length, without one (chunked upstream), empty', async () => {
  const s = await c2.session(brock.port, SITES[1], ca);
  const body = crypto.randomBytes(700 * 1024);
  const sha = crypto.createHash('sha256').update(body).digest('hex');
  let r = await c2.request(s, { ':method': 'POST', ':path': '/cl',
                                'content-length': String(body.length) }, body);
  assert.equal(json(r).got, body.length);
  assert.equal(json(r).sha, sha);
  assert.equal(json(r).headers['content-length'], String(body.length));
  r = await c2.request(s, { ':method': 'PUT', ':path': '/nolength' }, body);
  assert.equal(json(r).got, body.length, 'a body of unknown length arrives whole');
  assert.equal(json(r).sha, sha);
  assert.equal(json(r).headers['transfer-encoding'], 'chunked');
  r = await c2.request(s, { ':method': 'POST', ':path': '/empty' }, '');
  assert.equal(json(r).got, 0);
  assert.equal(json(r).headers['transfer-encoding'], undefined,
               'a request that ended with an empty DATA frame goes without a body');
  s.close();
});

check('HEAD, 204 and 304 end with their HEADERS; a 3 MiB response arrives whole', async () => {
  const s = await c2.session(brock.port, SITES[1], ca);
  let r = await c2.request(s, { ':method': 'HEAD', ':path': '/big' });
  assert.equal(r.status, 200);
  assert.equal(r.headers['content-length'], String(BIG.length));
  assert.equal(r.body.length, 0);
  r = await c2.request(s, { ':path': '/nocontent' });
  assert.equal(r.status, 204);
  r = await c2.request(s, { ':path': '/notmodified' });
  assert.equal(r.status, 304);
  r = await c2.request(s, { ':path': '/big' });
  assert.equal(r.status, 200);
  assert.ok(r.body.equals(BIG), `the body arrived whole (${r.body.length} bytes)`);
  s.close();
});

check('a hundred streams at once on one connection, each answered', async () => {
  const s = await c2.session(brock.port, SITES[2], ca);
  const before = origin.to(SITES[2]).length;
  const rs = await Promise.all(Array.from({ length: 100 }, (_, i) =>
    c2.request(s, { ':path': `/many/${i}` })));
  for (const [i, r] of rs.entries()) {
    assert.equal(r.status, 200, `stream ${i}`);
    assert.equal(json(r).path, `/many/${i}`);
  }
  assert.equal(origin.to(SITES[2]).length - before, 100);
  s.close();
  const m = (await h.curl(brock.port, [`http://127.0.0.1:${brock.port}/metrics`])).body
    .toString();
  assert.match(m, /^brock_http2_connections_total [1-9]/m);
  const streams = Number(/^brock_http2_streams_total (\d+)/m.exec(m)[1]);
  assert.ok(streams >= 100, `metrics count the streams (${streams})`);
});

check('a tracker is learned from streams and blocked on the fourth site', async () => {
  for (const site of SITES.slice(0, 4)) {
    // The page, opened as a browser opens it, then its image from the tracker.
    const p = await c2.session(brock.port, site, ca);
    const page = await c2.request(p, { ':path': '/', 'sec-fetch-site': 'none',
                                       'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' });
    assert.equal(page.status, 200);
    p.close();
    const s = await c2.session(brock.port, TRACKER, ca);
    const r = await c2.request(s, { ':path': `/pixel.gif?on=${site}`,
                                    referer: `https://${site}/`, 'sec-fetch-site': 'cross-site',
                                    'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image',
                                    cookie: `uid=${crypto.createHash('sha256').update(site)
                                      .digest('hex').slice(0, 24)}` });
    s.close();
    const reached = origin.to(TRACKER).some((q) => q.path === `/pixel.gif?on=${site}`);
    if (site !== SITES[3]) {
      assert.equal(r.status, 200, `${site}: allowed while brock learns`);
      assert.ok(reached);
    } else {
      assert.equal(r.status, 204, 'blocked: an image is answered 204 by brock');
      assert.equal(r.headers['set-cookie'], undefined);
      assert.ok(!reached, 'and never reached the origin');
    }
  }
  assert.match(brock.log(), /learned: tracker\.test tracks across/);
});

check('a :authority other than the tunnel\'s host is answered 421', async () => {
  const s = await c2.session(brock.port, SITES[3], ca);
  const r = await c2.request(s, { ':path': '/misdirected', ':authority': SITES[2] });
  assert.equal(r.status, 421);
  assert.match(r.body.toString(), /host its tunnel was opened to/);
  // (brock's own DNT policy checks of what it learned may reach the origin meanwhile.)
  assert.equal(origin.requests.filter((q) => q.path === '/misdirected').length, 0,
               'nothing went to the origin');
  s.close();
});

check('stopping, brock finishes a stream in flight, says GOAWAY, and exits', async () => {
  const st = path.join(tmp, 'state3');
  const r = await h.brock(st, ['ca', 'init']);
  assert.equal(r.code, 0, r.stderr);
  const b = await h.startBrock({ state: st, args: ['--no-update', '--intercept', '--grace', '10',
                                                   '--upstream-ca', path.join(tmp, 'ca.pem'),
                                                   ...h.resolveTo(origin.port, '*.test')] });
  const s = await c2.session(b.port, SITES[0], fs.readFileSync(path.join(st, 'ca', 'ca.pem')));
  let goaway = false;
  s.on('goaway', () => { goaway = true; });
  const pending = c2.request(s, { ':path': '/slow' });
  await new Promise((res) => setTimeout(res, 300));
  b.proc.kill('SIGTERM');
  const got = await pending;
  assert.equal(got.status, 200);
  assert.equal(got.body.toString(), 'slow but whole\n');
  const end = await b.exited;
  assert.equal(end.code, 0, b.log());
  assert.ok(goaway, 'the client was told no new stream would be taken');
  s.destroy();
});

check('a cookieblocked domain over HTTP/2: no cookie either way, the Referer cut to its origin',
      async () => {
  const p = await c2.session(brock.port, SITES[1], ca);
  await c2.request(p, { ':path': '/page', 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate',
                        'sec-fetch-dest': 'document' });
  p.close();
  const s = await c2.session(brock.port, YELLOW, ca);
  const r = await c2.request(s, { ':path': '/y.gif?x=1', cookie: ['yid=8c1f0e9a7b6d5c4e3f21a0b9'],
                                  referer: `https://${SITES[1]}/page?secret=1`,
                                  'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors',
                                  'sec-fetch-dest': 'image' });
  s.close();
  assert.equal(r.status, 200);
  assert.equal(r.headers['set-cookie'], undefined, 'no Set-Cookie reached the client');
  const [seen] = origin.to(YELLOW, '/y.gif?x=1');
  assert.ok(seen, 'the request reached the origin');
  assert.equal(seen.headers.cookie, undefined, 'no Cookie reached the origin');
  assert.equal(seen.headers.referer, `https://${SITES[1]}/`, 'the Referer was cut to its origin');
  assert.equal(seen.headers.dnt, '1');
});

check('an upload brock answers before it ends: the answer arrives whole (curl over HTTP/2)',
      async () => {
  // A blocked host's POST: brock reads up to 64 KiB of it, answers, and drops the rest.
  const file = path.join(tmp, 'upload.bin');
  fs.writeFileSync(file, crypto.randomBytes(600 * 1024));
  const r = await h.curl(brock.port, ['--http2', '--cacert', path.join(state, 'ca', 'ca.pem'),
                                      '--data-binary', `@${file}`, 'https://adnet.test/collect']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.status, 403);
  assert.match(r.headers, /^HTTP\/2 403/m);
  assert.equal(origin.to('adnet.test').length, 0);
});

check('a stream given up with its body still in brock gives its window back', async () => {
  // An upload the origin never reads fills what brock holds for it, then the client gives up.
  // Done six times on one connection, the bytes brock took into the windows and never passed
  // on pass its 1 MiB window unless they are given back; the next upload would then stall.
  const s = await c2.session(brock.port, SITES[0], ca);
  const big = crypto.randomBytes(6 * 1024 * 1024);
  for (let i = 0; i < 6; i++) {
    const req = s.request({ ':method': 'POST', ':path': `/sink/${i}` });
    req.on('error', () => {});
    req.write(big);
    await new Promise((r) => setTimeout(r, 1000));
    req.close(http2.constants.NGHTTP2_CANCEL);
  }
  const body = crypto.randomBytes(300 * 1024);
  const r = await Promise.race([
    c2.request(s, { ':method': 'POST', ':path': '/after-sinks' }, body),
    new Promise((_, no) => setTimeout(() => no(new Error('the upload stalled: the ' +
                                                         'connection\'s window is gone')), 10000)),
  ]);
  assert.equal(r.status, 200, `status ${r.status}, reset ${r.rst}: ${r.body}`);
  assert.equal(JSON.parse(r.body.toString()).got, body.length);
  s.close();
});
