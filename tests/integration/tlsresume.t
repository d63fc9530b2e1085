#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Upstream TLS sessions resumed through `brock run --intercept`: the origin (a Node HTTPS
// server, which issues session tickets) sees brock's second connection to a name resume the
// first one's session, under TLS 1.3 and TLS 1.2; another name on the same address never
// gets that session; a ticket the origin no longer takes costs one full handshake, after
// which the new session resumes; /metrics counts the resumed handshakes.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const http = require('node:http');
const https = require('node:https');
const path = require('node:path');
const h = require('./harness.js');
const { flat } = h;

function check(name, fn) {
  h.check(name, fn, 40000);
}

const tmp = h.tmpdir('tlsresume-t');
const NAMES = ['one.test', 'two.test', 'three.test', 'old.test'];

// An HTTPS origin that ends each connection after its response (so that brock keeps none
// for the next request) and notes, per connection, the name asked for (SNI), whether the
// handshake resumed a session, and the paths requested on it.
function startResumeOrigin(tls) {
  const conns = [];
  const server = https.createServer(tls, (req, res) => {
    const c = conns.find((x) => x.socket === req.socket);
    if (c) c.paths.push(req.url);
    res.writeHead(200, { 'Content-Type': 'text/plain', Connection: 'close' });
    res.end('ok\n');
  });
  server.on('secureConnection', (socket) => {
    conns.push({ socket, name: socket.servername, reused: socket.isSessionReused(), paths: [] });
  });
  server.on('tlsClientError', () => {});
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({
      port: server.address().port,
      server,
      // The connection that carried path: { name, reused }.
      carried(p) {
        const c = conns.find((x) => x.paths.includes(p));
        return c && { name: c.name, reused: c.reused };
      },
      close() { server.closeAllConnections(); return new Promise((r) => server.close(r)); },
    }));
  });
}

let brock, tls13, tls12, brockCa;

before(flat(async () => {
  h.testCa(tmp, 'ca', 'brock test resume CA');
  const leaf = h.testLeaf(tmp, 'leaf', { sans: NAMES });
  tls13 = await startResumeOrigin({ ...leaf, minVersion: 'TLSv1.3' });
  tls12 = await startResumeOrigin({ ...leaf, maxVersion: 'TLSv1.2' });
  const state = path.join(tmp, 'state');
  const init = await h.brock(state, ['ca', 'init']);
  assert.equal(init.code, 0, init.stderr);
  brockCa = init.stdout.trim();
  brock = await h.startBrock({ state, args: [
    '-v', '--no-update', '--intercept', '--upstream-ca', path.join(tmp, 'ca.pem'),
    ...h.resolveTo(tls13.port, 'one.test', 'two.test', 'old.test'),
    ...h.resolveTo(tls12.port, 'three.test'),
  ] });
}));

after(async () => {
  if (brock) await brock.stop();
  if (tls13) await tls13.close();
  if (tls12) await tls12.close();
});

// One curl run (its own client connection, so brock's own upstream connection too) for url;
// resolves with the origin's record of the connection that carried it.
async function fetchVia(origin, url) {
  const r = await h.curl(brock.port, ['--cacert', brockCa, url]);
  assert.equal(r.status, 200, `${url}: ${r.code} ${r.stderr} ${brock.log()}`);
  const p = new URL(url).pathname;
  return h.waitFor(`${url} at the origin`, () => origin.carried(p), 5000);
}

check('the second connection to a name resumes the first one\'s session (TLS 1.3)',
      async () => {
  const first = await fetchVia(tls13, 'https://one.test/a1');
  assert.deepEqual(first, { name: 'one.test', reused: false });
  const second = await fetchVia(tls13, 'https://one.test/a2');
  assert.deepEqual(second, { name: 'one.test', reused: true });
  const third = await fetchVia(tls13, 'https://one.test/a3');
  assert.deepEqual(third, { name: 'one.test', reused: true });
});

check('another name on the same address does not get the first name\'s session', async () => {
  await fetchVia(tls13, 'https://one.test/b0');
  const other = await fetchVia(tls13, 'https://two.test/b1');
  assert.deepEqual(other, { name: 'two.test', reused: false });
  // Its own session is kept for it.
  assert.deepEqual(await fetchVia(tls13, 'https://two.test/b2'), { name: 'two.test', reused: true });
});

check('TLS 1.2 sessions resume as well', async () => {
  assert.deepEqual(await fetchVia(tls12, 'https://three.test/c1'),
                   { name: 'three.test', reused: false });
  // A TLS 1.2 server is not told the name again on resumption: only whether it resumed.
  assert.equal((await fetchVia(tls12, 'https://three.test/c2')).reused, true);
});

check('a session the origin no longer takes: one full handshake, then the new one resumes',
      async () => {
  assert.deepEqual(await fetchVia(tls13, 'https://old.test/d1'), { name: 'old.test', reused: false });
  // New ticket keys: the tickets issued so far no longer decrypt.
  tls13.server.setTicketKeys(crypto.randomBytes(48));
  assert.deepEqual(await fetchVia(tls13, 'https://old.test/d2'), { name: 'old.test', reused: false });
  assert.deepEqual(await fetchVia(tls13, 'https://old.test/d3'), { name: 'old.test', reused: true });
});

check('/metrics counts the upstream handshakes that resumed', async () => {
  const body = await new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: brock.port, path: '/metrics', agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
  const m = /^brock_upstream_tls_resumed_total (\d+)$/m.exec(body);
  assert.ok(m, body);
  // At least the resumptions the checks above saw (brock's own fetches may add theirs).
  assert.ok(Number(m[1]) >= 5, m[0]);
});
