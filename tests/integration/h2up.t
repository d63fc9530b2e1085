#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// HTTP/2 toward origins (`brock run --intercept`): requests to an origin that chooses h2 share
// one connection to it, whatever the browser speaks to brock; each still leaves with DNT and
// GPC; responses come back to HTTP/1.1 clients framed by their Content-Length, or chunked;
// request bodies arrive whole; a response its client does not read holds only its own stream;
// an origin's GOAWAY and stream resets end what they end and nothing else; an origin that
// speaks HTTP/1.1 is served as before, and --no-http2 keeps every origin on HTTP/1.1. A name at
// the address of an open connection whose certificate covers it too goes on that connection
// (coalescing), unless the origin answers 421 there.
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

const tmp = h.tmpdir('h2up-t');
const state = path.join(tmp, 'state');
const SITE = 'site1.test';
const OLD = 'old.test';
const DOWN = 'down.test';
// At the h2 origin's address: in its certificate, and not.
const ALIAS = 'alias.test';
const STRANGER = 'stranger.test';
const BIG = crypto.randomBytes(3 * 1024 * 1024);
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');

let origin, old, brock, plain, ca, caPath;
const reset = [];

function serve(req, res) {
  // Takes the head and never reads the body: an upload that stalls at the origin.
  if (req.url === '/sink') {
    req.pause();
    return;
  }
  const chunks = [];
  req.on('data', (d) => chunks.push(d));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    // Only for the name the connection was opened for (SNI), as origins that refuse
    // coalesced requests answer.
    if (req.url === '/strict' && (req.stream ? req.stream.session.socket : req.socket)
      .servername !== req.headers[':authority']) {
      res.statusCode = 421;
      res.end('misdirected\n');
      return;
    }
    switch (req.url) {
    case '/big': res.end(BIG); return;
    case '/length':
      res.setHeader('Content-Length', '6');
      res.end('whole\n');
      return;
    case '/nocontent': res.statusCode = 204; res.end(); return;
    case '/notmodified': res.statusCode = 304; res.end(); return;
    case '/cookies':
      res.setHeader('Set-Cookie', ['one=1; Path=/', 'two=2; Path=/']);
      res.end('two cookies\n');
      return;
    case '/goaway':
      res.end('bye\n');
      if (req.stream) req.stream.session.goaway();
      return;
    case '/endless': {
      // As much as the client will take, until its stream closes.
      const chunk = Buffer.alloc(64 * 1024, 121);
      const more = () => {
        while (!res.destroyed && !res.writableEnded && res.write(chunk));
      };
      res.on('drain', more);
      more();
      return;
    }
    case '/reset':
      // Part of a body, then the stream reset: never a whole response.
      res.write(Buffer.alloc(64 * 1024, 120));
      setTimeout(() => req.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR), 200);
      return;
    default:
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ path: req.url, method: req.method, version: req.httpVersion,
                               got: body.length, sha: sha(body), headers: req.headers }));
    }
  });
  if (req.stream) req.stream.on('close', () => reset.push({ path: req.url, code: req.stream.rstCode }));
}

before(flat(async () => {
  const certs = h.originCerts(tmp, [SITE, OLD, ALIAS], 'brock h2up test');
  const nobody = await h.freePort();
  origin = await startSite(serve, { tls: { key: certs.key, cert: certs.cert }, h2: true });
  old = await startSite(serve, { tls: { key: certs.key, cert: certs.cert } });
  let r = await h.brock(state, ['ca', 'init']);
  assert.equal(r.code, 0, r.stderr);
  caPath = path.join(state, 'ca', 'ca.pem');
  ca = fs.readFileSync(caPath);
  const args = ['-v', '--no-update', '--intercept', '--upstream-ca', certs.ca,
                ...h.resolveTo(origin.port, SITE, ALIAS, STRANGER), ...h.resolveTo(old.port, OLD),
                ...h.resolveTo(nobody, DOWN)];
  brock = await h.startBrock({ state, args });
  plain = await h.startBrock({ state, args: [...args, '--no-http2'] });
}));

after(async () => {
  if (brock) await brock.stop();
  if (plain) await plain.stop();
  if (origin) await origin.close();
  if (old) await old.close();
});

const json = (r) => JSON.parse(r.body.toString());
// curl as an HTTP/1.1 client of brock (it would choose h2 inside the tunnel).
const get = (port, url, args = []) => h.curl(port, ['--http1.1', '--cacert', caPath, ...args,
                                                    url]);

check('requests to an origin that chose h2 share one connection, each with DNT and GPC',
      async () => {
  const before = origin.connections();
  const n = origin.requests.length;
  // Four HTTP/2 clients of brock with ten streams each, and eight HTTP/1.1 clients.
  const sessions = await Promise.all([0, 1, 2, 3].map(() => c2.session(brock.port, SITE, ca)));
  const rs = await Promise.all([
    ...sessions.flatMap((s, i) => Array.from({ length: 10 }, (_, k) =>
      c2.request(s, { ':path': `/s${i}/${k}` }))),
    ...Array.from({ length: 8 }, (_, k) => get(brock.port, `https://${SITE}/h1/${k}`)),
  ]);
  for (const s of sessions) s.close();
  for (const r of rs) {
    assert.equal(r.status, 200);
    const got = json(r);
    assert.equal(got.version, '2.0', `${got.path} went over HTTP/2`);
    assert.equal(got.headers.dnt, '1');
    assert.equal(got.headers['sec-gpc'], '1');
    assert.equal(got.headers[':authority'], SITE);
  }
  assert.equal(origin.requests.length - n, 48);
  assert.ok(origin.connections() - before <= 1,
            `one connection carried them (${origin.connections() - before} opened)`);
});

check('responses reach HTTP/1.1 clients framed: chunked, by Content-Length, or bodiless',
      async () => {
  let r = await get(brock.port, `https://${SITE}/big`);
  assert.equal(r.status, 200);
  assert.equal(sha(r.body), sha(BIG), `3 MiB arrived whole (${r.body.length} bytes)`);
  assert.match(r.headers, /^transfer-encoding: chunked\r$/mi, 'no length: chunked');
  r = await get(brock.port, `https://${SITE}/length`);
  assert.equal(r.body.toString(), 'whole\n');
  assert.match(r.headers, /^content-length: 6\r$/mi);
  assert.doesNotMatch(r.headers, /transfer-encoding/i);
  // HEAD: curl ends at the head, as it must (a body would be read as the next response).
  r = await get(brock.port, `https://${SITE}/length`, ['-I']);
  assert.equal(r.status, 200);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.headers, /^content-length: 6\r$/mi, 'HEAD keeps the length a GET would get');
  r = await get(brock.port, `https://${SITE}/nocontent`);
  assert.equal(r.status, 204);
  assert.equal(r.code, 0, r.stderr);
  r = await get(brock.port, `https://${SITE}/notmodified`);
  assert.equal(r.status, 304);
  assert.equal(r.code, 0, r.stderr);
  r = await get(brock.port, `https://${SITE}/cookies`);
  assert.match(r.headers, /^set-cookie: one=1; Path=\/\r$/mi);
  assert.match(r.headers, /^set-cookie: two=2; Path=\/\r$/mi);
});

check('request bodies reach the origin whole, with a length or chunked', async () => {
  const body = crypto.randomBytes(900 * 1024);
  const file = path.join(tmp, 'upload');
  fs.writeFileSync(file, body);
  let r = await get(brock.port, `https://${SITE}/upload`, ['--data-binary', `@${file}`]);
  assert.equal(json(r).got, body.length);
  assert.equal(json(r).sha, sha(body));
  assert.equal(json(r).version, '2.0');
  r = await get(brock.port, `https://${SITE}/chunked`, ['--data-binary', `@${file}`,
                                                        '-H', 'Transfer-Encoding: chunked']);
  assert.equal(json(r).got, body.length);
  assert.equal(json(r).sha, sha(body));
  const s = await c2.session(brock.port, SITE, ca);
  r = await c2.request(s, { ':method': 'PUT', ':path': '/h2put' }, body);
  s.close();
  assert.equal(json(r).got, body.length);
  assert.equal(json(r).sha, sha(body));
});

check('a response its client does not read holds back its own stream alone', async () => {
  const t = await c2.tlsTo(brock.port, SITE, ca, ['http/1.1']);
  t.pause();
  t.write(`GET /endless HTTP/1.1\r\nHost: ${SITE}\r\n\r\n`);
  await h.waitFor('the origin to take /endless', () => origin.to(SITE, '/endless').length > 0);
  const started = Date.now();
  const rs = await Promise.all(Array.from({ length: 10 }, (_, k) =>
    get(brock.port, `https://${SITE}/beside/${k}`)));
  for (const r of rs) assert.equal(json(r).version, '2.0');
  assert.ok(Date.now() - started < 10000, 'the other streams were not held');
  // The client leaves: its stream is reset (CANCEL), not read to its end.
  t.destroy();
  const rst = await h.waitFor('the stream to be reset', () =>
    reset.find((x) => x.path === '/endless'));
  assert.equal(rst.code, http2.constants.NGHTTP2_CANCEL);
});

check('an upload the origin does not read is held back, not gathered in brock', async () => {
  const file = path.join(tmp, 'huge');
  fs.writeFileSync(file, Buffer.alloc(48 * 1024 * 1024, 122));
  const before = h.rssKiB(brock.proc.pid);
  const r = await get(brock.port, `https://${SITE}/sink`, ['--data-binary', `@${file}`],
                      { maxTime: 4 });
  assert.notEqual(r.code, 0, 'the upload stalled');
  const grew = h.rssKiB(brock.proc.pid) - before;
  assert.ok(grew < 16 * 1024, `brock held ${grew} KiB more, not the 48 MiB upload`);
  fs.rmSync(file);
});

check('a stream the origin resets is cut short for its client alone', async () => {
  const [cut, whole] = await Promise.all([
    get(brock.port, `https://${SITE}/reset`),
    get(brock.port, `https://${SITE}/length`),
  ]);
  assert.notEqual(cut.code, 0, 'curl saw the response cut short');
  assert.ok(cut.body.length < 64 * 1024 + 1);
  assert.equal(whole.body.toString(), 'whole\n');
  const r = await get(brock.port, `https://${SITE}/after-reset`);
  assert.equal(json(r).version, '2.0');
});

check('after a GOAWAY, the next requests go on a new connection', async () => {
  let r = await get(brock.port, `https://${SITE}/warm`);
  assert.equal(r.status, 200);
  const before = origin.connections();
  r = await get(brock.port, `https://${SITE}/goaway`);
  assert.equal(r.body.toString(), 'bye\n');
  const rs = await Promise.all(Array.from({ length: 5 }, (_, k) =>
    get(brock.port, `https://${SITE}/later/${k}`)));
  for (const x of rs) assert.equal(json(x).version, '2.0');
  assert.equal(origin.connections() - before, 1, 'one new connection');
});

check('an origin that speaks HTTP/1.1 is served as before; --no-http2 keeps HTTP/1.1',
      async () => {
  const rs = await Promise.all(Array.from({ length: 6 }, (_, k) =>
    get(brock.port, `https://${OLD}/old/${k}`)));
  for (const r of rs) {
    assert.equal(r.status, 200);
    assert.equal(json(r).version, '1.1');
  }
  const r = await get(plain.port, `https://${SITE}/plain`);
  assert.equal(json(r).version, '1.1', 'with --no-http2, the h2 origin is spoken to in HTTP/1.1');
  const m = (await h.curl(brock.port, [`http://127.0.0.1:${brock.port}/metrics`])).body
    .toString();
  assert.ok(Number(/^brock_http2_upstream_connections_total (\d+)/m.exec(m)[1]) >= 2);
  assert.ok(Number(/^brock_http2_upstream_streams_total (\d+)/m.exec(m)[1]) >= 60);
  const p = (await h.curl(plain.port, [`http://127.0.0.1:${plain.port}/metrics`])).body
    .toString();
  assert.match(p, /^brock_http2_upstream_connections_total 0$/m);
});

check('requests that waited for a dial that failed fail with its reason', async () => {
  const rs = await Promise.all(Array.from({ length: 5 }, (_, k) =>
    get(brock.port, `https://${DOWN}/d/${k}`)));
  for (const r of rs) {
    assert.equal(r.status, 502);
    assert.match(r.body.toString(), /connect/i);
  }
});

const coalesced = async () => {
  const m = (await h.curl(brock.port, [`http://127.0.0.1:${brock.port}/metrics`])).body
    .toString();
  return Number(/^brock_http2_upstream_coalesced_total (\d+)/m.exec(m)[1]);
};

check('a name at the same address whose certificate the connection showed shares it',
      async () => {
  let r = await get(brock.port, `https://${SITE}/first`);
  assert.equal(json(r).version, '2.0');
  const before = origin.connections();
  const was = await coalesced();
  const rs = await Promise.all(Array.from({ length: 4 }, (_, k) =>
    get(brock.port, `https://${ALIAS}/alias/${k}`)));
  for (const x of rs) {
    assert.equal(x.status, 200);
    assert.equal(json(x).version, '2.0');
    assert.equal(json(x).headers[':authority'], ALIAS);
    assert.equal(json(x).headers.dnt, '1');
  }
  assert.equal(origin.connections(), before, `no new connection (${origin.connections() - before})`);
  assert.equal(await coalesced(), was + 1, 'one dial ended at the open connection');
  // Not covered by the certificate: never sent on that connection, and its own dial fails
  // the certificate check.
  r = await get(brock.port, `https://${STRANGER}/no`);
  assert.equal(r.status, 502);
  assert.match(r.body.toString(), /certificate/i);
  assert.equal(origin.to(STRANGER, '/no').length, 0);
});

check('an origin that answers 421 on a shared connection gets the request on its own',
      async () => {
  // The shared connection may have closed meanwhile: one request opens it again.
  await get(brock.port, `https://${SITE}/again`);
  await get(brock.port, `https://${ALIAS}/shared`);
  const before = origin.connections();
  let r = await get(brock.port, `https://${ALIAS}/strict`);
  assert.equal(r.status, 200, r.body.toString());
  assert.equal(json(r).version, '2.0');
  assert.equal(origin.connections() - before, 1, 'sent again on a connection of its own');
  // Which now carries the name's requests.
  r = await get(brock.port, `https://${ALIAS}/strict`);
  assert.equal(r.status, 200);
  assert.equal(origin.connections() - before, 1);
});
