#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock run --dns ADDR:PORT: brock asks that name server (here a dnsmasq the test starts on
// a loopback port) rather than /etc/resolv.conf's. Names it answers are reached through brock;
// names it does not are answered 502, saying so. Two names it gives one address, whose
// certificate covers both, share one HTTP/2 connection (coalescing found from DNS's answer).
// A name that is an alias two CNAMEs deep is reached too, and two requests for it within its
// TTL ask the server once (brock's cache). A --dns that is not ADDR:PORT is refused at start.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startSite } = require('./origin.js');
const h = require('./harness.js');
const { flat } = h;

const tmp = h.tmpdir('resolver-t');
const state = path.join(tmp, 'state');
const NAMES = ['one.test', 'two.test'];
// hop.test -> mid.test -> end.test, at 127.0.0.1, for 60 seconds.
const CHAIN = ['hop.test', 'mid.test', 'end.test'];
let dns, origin, brock, caPath, dnsPort;

function check(name, fn) {
  h.check(name, fn, 60000);
}

before(flat(async () => {
  dnsPort = await h.freePort();
  // Each of NAMES at 127.0.0.1, CHAIN's first name through its CNAMEs, and nothing else.
  dns = await h.startDnsmasq(dnsPort, [
    ...NAMES.map((n) => `--address=/${n}/127.0.0.1`), `--host-record=${CHAIN[2]},127.0.0.1,60`,
    `--cname=${CHAIN[0]},${CHAIN[1]},60`, `--cname=${CHAIN[1]},${CHAIN[2]},60`]);
  const certs = h.originCerts(tmp, [...NAMES, CHAIN[0]], 'brock resolver test');
  origin = await startSite((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ authority: req.headers[':authority'] || req.headers.host,
                             version: req.httpVersion }));
  }, { tls: { key: certs.key, cert: certs.cert }, h2: true });
  const r = await h.brock(state, ['ca', 'init']);
  assert.equal(r.code, 0, r.stderr);
  caPath = path.join(state, 'ca', 'ca.pem');
  brock = await h.startBrock({ state, args: ['--no-update', '--intercept', '--upstream-ca',
                                             certs.ca, '--dns', `127.0.0.1:${dnsPort}`] });
}));

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
  if (dns) dns.stop();
});

const get = (url) => h.curl(brock.port, ['--http1.1', '--cacert', caPath, url]);

check('names the server answers are reached, the others are not, saying why', async () => {
  let r = await get(`https://one.test:${origin.port}/a`);
  assert.equal(r.status, 200, r.body.toString());
  assert.equal(JSON.parse(r.body).authority, `one.test:${origin.port}`);
  // (libevent asks in mixed case, against spoofing.)
  // (libevent asks in mixed case, against spoofing; dnsmasq's log comes through a pipe.)
  await h.waitFor('the query in dnsmasq\'s log', () =>
    /query\[A\] one\.test from 127\.0\.0\.1/i.test(dns.log()));
  r = await get(`https://nowhere.test:${origin.port}/`);
  assert.equal(r.status, 502);
  assert.match(r.body.toString(), /could not resolve nowhere\.test/);
});

check('two names at one address, one certificate: one HTTP/2 connection', async () => {
  let r = await get(`https://one.test:${origin.port}/first`);
  assert.equal(JSON.parse(r.body).version, '2.0');
  const before = origin.connections();
  r = await get(`https://two.test:${origin.port}/second`);
  assert.equal(r.status, 200);
  assert.equal(JSON.parse(r.body).authority, `two.test:${origin.port}`);
  assert.equal(origin.connections(), before, 'no new connection to the origin');
  const m = (await h.curl(brock.port, [`http://127.0.0.1:${brock.port}/metrics`])).body.toString();
  assert.ok(Number(/^brock_http2_upstream_coalesced_total (\d+)/m.exec(m)[1]) >= 1);
});

check('an alias two CNAMEs deep is reached, and asked once for two requests', async () => {
  const asked = () => dns.queries('A', 'hop.test');
  for (const p of ['/first', '/second']) {
    const r = await get(`https://${CHAIN[0]}:${origin.port}${p}`);
    assert.equal(r.status, 200, r.body.toString());
    assert.equal(JSON.parse(r.body).authority, `${CHAIN[0]}:${origin.port}`);
  }
  await h.waitFor('the query in dnsmasq\'s log', () => asked() >= 1);
  // dnsmasq's log comes through a pipe: a second query would be in it by now.
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(asked(), 1, dns.log());
  assert.match(dns.log(), /hop\.test is <CNAME>/);
});

check('a --dns that is not ADDR:PORT is refused at start', async () => {
  for (const bad of ['127.0.0.1', 'dns.example:53', '127.0.0.1:0', '']) {
    const r = await h.brock(path.join(tmp, 'bad'), ['run', '--no-update', '--dns', bad]);
    assert.notEqual(r.code, 0, bad);
    assert.match(r.stderr, /--dns/, bad);
  }
});
