#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// HTTPS passed through unseen while brock sees inside the rest: a client that pins the
// origin's key (curl --pinnedpubkey) refuses brock's certificate, twice, and from then on
// reaches the origin through a tunnel; the host is listed (brock passthrough, the API) with
// when and why, said once in the log, undone, and seen inside again. The same for a client
// that does not trust brock's CA (its TLS alert), for the hosts brock ships (a bank) and for
// the user's own entries; a blocked host passed through is still refused. A client that
// quits, closing its unused connections with the ones it spoke on (a browser), refused nothing.
'use strict';

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { Duplex } = require('node:stream');
const tls = require('node:tls');
const h = require('./harness.js');
const { startOrigin } = require('./origin.js');

const { flat, check, waitFor } = h;

const HOSTS = ['pinned.test', 'alert.test', 'mine.test', 'www.paypal.com', 'blocked.test',
               'quits.test', 'lone.test', 'racing.test', 'halfway.test'];
const tmp = h.tmpdir('passthrough-t');
const state = path.join(tmp, 'state');
let origin, certs, brock, brockCa, both, pin;

// The SHA-256 pin of the origin's own key, as curl's --pinnedpubkey takes it.
function pinOf(certPem) {
  const f = path.join(tmp, 'origin-leaf.pem');
  fs.writeFileSync(f, certPem);
  const spki = execFileSync('sh', ['-c', `openssl x509 -in '${f}' -pubkey -noout | ` +
                                         'openssl pkey -pubin -outform der | ' +
                                         'openssl dgst -sha256 -binary | base64']);
  return `sha256//${spki.toString().trim()}`;
}

// Who issued the certificate a client saw for host through brock: "brock" or the origin's.
async function issuer(host, extra = []) {
  const r = await h.curl(brock.port, ['--cacert', both, '-v', ...extra, `https://${host}/`]);
  return { ...r, brock: /issuer: O=brock/.test(r.stderr) };
}

async function api(method, p) {
  const body = method === 'PUT' ? ['-H', 'Content-Type: application/json', '--data-binary', '{}']
    : [];
  const r = await h.run('curl', ['-s', '-X', method, '-H', 'X-Brock-Token: ' + token(), ...body,
                                 `http://127.0.0.1:${brock.port}${p}`]);
  return JSON.parse(r.stdout);
}

// The requests the origin got for host, and one's header.
const header = (q, name) => (q.headers.find(([k]) => k.toLowerCase() === name) || [])[1];
const requestsFor = (host) => origin.requests.filter((q) => header(q, 'host') === host);

let page = '';
function token() {
  return /name="brock-token" content="([0-9a-f]+)"/.exec(page)[1];
}

before(flat('start an HTTPS origin and brock seeing inside', async () => {
  certs = h.originCerts(tmp, HOSTS, 'passthrough');
  origin = await startOrigin({ tls: { key: certs.key, cert: certs.cert } });
  pin = pinOf(certs.cert);
  assert.equal((await h.brock(state, ['--no-seed', 'ca', 'init'])).code, 0);
  brockCa = (await h.brock(state, ['ca', 'path'])).stdout.trim();
  // The client trusts both brock's CA and the origin's: what a pin refuses is the key.
  both = path.join(tmp, 'both.pem');
  fs.writeFileSync(both, fs.readFileSync(brockCa, 'utf8') + fs.readFileSync(certs.ca, 'utf8'));
  assert.equal((await h.brock(state, ['--no-seed', 'set', 'blocked.test', 'block'])).code, 0);
  brock = await h.startBrock({ state, global: ['--no-seed'], args: [
    '-v', '--no-update', '--intercept', '--upstream-ca', certs.ca,
    '--resolve', `*.test=127.0.0.1:${origin.port}`,
    '--resolve', `*.paypal.com=127.0.0.1:${origin.port}`] });
  page = (await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/`])).stdout;
}));

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

check('a client pinning the origin\'s key fails twice, then reaches it unseen', async () => {
  const reached = () => requestsFor('pinned.test').length;
  for (let i = 0; i < 2; i++) {
    const r = await h.curl(brock.port, ['--cacert', both, '--pinnedpubkey', pin,
                                        'https://pinned.test/']);
    assert.notEqual(r.code, 0, 'brock\'s certificate does not match the pin');
  }
  assert.equal(reached(), 0);
  await waitFor('the log line', () => /pinned\.test is passed through unseen from now on/
    .test(brock.log()));
  const r = await h.curl(brock.port, ['--cacert', both, '--pinnedpubkey', pin,
                                      'https://pinned.test/']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.status, 200);
  assert.equal(reached(), 1);
  // Tunnelled unseen: the origin got the client's own request, without brock's signals.
  assert.equal(header(requestsFor('pinned.test')[0], 'dnt'), undefined);
  assert.equal((brock.log().match(/pinned\.test is passed through unseen from now on/g) ||
                []).length, 1, 'said once');
});

check('the host is listed with when and why, and undone it is seen inside again', async () => {
  // In the state once the running brock has written it (once a second).
  let list;
  await waitFor('the state', async () => /pinned/.test((list = await h.brock(state,
                                                                            ['passthrough'])).stdout));
  assert.equal(list.code, 0, list.stderr);
  assert.match(list.stdout, /^pinned\.test +since \d{4}-\d\d-\d\d \d\d:\d\d UTC +learned: the client closed the connection before its first request$/m);
  const j = await api('GET', '/api/passthrough');
  const e = j.entries.find((x) => x.host === 'pinned.test');
  assert.ok(e && e.learned && e.time_ms > 0 && e.why, JSON.stringify(j));
  assert.ok(j.shipped > 3000);
  const undo = await h.brock(state, ['passthrough', 'remove', 'pinned.test']);
  assert.equal(undo.code, 0, undo.stderr);
  // A running brock picks the change up at its next sync.
  await waitFor('seen inside again', async () => (await issuer('pinned.test')).brock, 10000);
});

// A CONNECT to host through brock from the loopback address from; then(s) once brock
// answered 200, else reject.
function connectThen(host, from, reject, then) {
  const s = net.connect({ port: brock.port, host: '127.0.0.1', localAddress: from });
  let got = '';
  const onData = (d) => {
    got += d.toString('latin1');
    if (!got.includes('\r\n\r\n')) return;
    s.removeListener('data', onData);
    if (!/^HTTP\/1\.1 200 /.test(got)) return reject(new Error(`CONNECT: ${got}`));
    then(s);
  };
  s.on('data', onData);
  s.on('error', reject);
  s.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`);
  return s;
}

// A TLS connection to host inside a CONNECT tunnel through brock, trusting both CAs, from
// the loopback address from: resolves with the TLS socket once the handshake is done.
function tunnel(host, from = '127.0.0.1') {
  return new Promise((resolve, reject) => connectThen(host, from, reject, (s) => {
    const t = tls.connect({ socket: s, servername: host, ca: [fs.readFileSync(both)] },
                          () => resolve(t));
    t.on('error', reject);
  }));
}

// One GET on t, resolved once the whole response is in (the connection then idle).
function get(t, host) {
  return new Promise((resolve, reject) => {
    let text = '';
    t.on('data', (d) => {
      text += d.toString('latin1');
      const m = /\r\ncontent-length: *(\d+)\r\n[^]*?\r\n\r\n/i.exec(text);
      if (m && text.length >= m.index + m[0].length + Number(m[1])) resolve(text);
    });
    t.on('error', reject);
    t.write(`GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  });
}

check('a client that quits, closing an unused connection with the one it used, refused nothing',
      async () => {
  // Twice, as a browser that quits right after loading a page: its spare connection, done
  // with the handshake and unused, goes with the one it loaded the page on.
  for (let i = 0; i < 2; i++) {
    const used = await tunnel('quits.test');
    const spare = await tunnel('quits.test');
    assert.match(await get(used, 'quits.test'), /^HTTP\/1\.1 200 /);
    used.destroy();
    spare.destroy();
  }
  // Then a program of another client, alone, closing at once, twice: held as long, and
  // counted. Once its host is passed through, the closes before it have been weighed too.
  for (let i = 0; i < 2; i++) (await tunnel('lone.test', '127.0.0.2')).destroy();
  await waitFor('the lone program\'s host passed through',
                () => /lone\.test is passed through unseen from now on/.test(brock.log()));
  assert.doesNotMatch(brock.log(), /quits\.test is passed through/);
  assert.equal((await issuer('quits.test')).brock, true, 'quits.test is still seen inside');
});

// A client's connection to host that it gives up in the middle of the TLS handshake, once
// brock's first flight arrived (as a browser drops its other connections to a host once one
// carries HTTP/2): resolves once it closed.
function halfway(host, from = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    connectThen(host, from, reject, (s) => {
      const d = new Duplex({ read() {}, write(chunk, enc, cb) { s.write(chunk, cb); } });
      s.once('data', () => s.destroy());
      tls.connect({ socket: d, servername: host }).on('error', () => {});
    }).on('close', resolve);
  });
}

check('a client that gives up spare connections mid-handshake to a host it uses refused nothing',
      async () => {
  for (let i = 0; i < 2; i++) {
    const used = await tunnel('racing.test');
    assert.match(await get(used, 'racing.test'), /^HTTP\/1\.1 200 /);
    await halfway('racing.test');
    await halfway('racing.test');
    used.destroy();
  }
  // Another client that never got through to its host, giving up twice, refused it.
  await halfway('halfway.test', '127.0.0.3');
  await halfway('halfway.test', '127.0.0.3');
  await waitFor('the other client\'s host passed through',
                () => /halfway\.test is passed through unseen from now on/.test(brock.log()));
  assert.doesNotMatch(brock.log(), /racing\.test is passed through/);
  assert.doesNotMatch(brock.log(), /racing\.test: the client closed the connection during/,
                      'and nothing was said of the spare connections');
  assert.equal((await issuer('racing.test')).brock, true, 'racing.test is still seen inside');
});

check('a client that does not trust brock\'s CA (its alert) gets its host passed through', async () => {
  for (let i = 0; i < 2; i++) {
    const r = await h.curl(brock.port, ['--cacert', certs.ca, 'https://alert.test/']);
    assert.notEqual(r.code, 0);
  }
  await waitFor('the log line', () => /alert\.test is passed through unseen from now on.*TLS alert/
    .test(brock.log()));
  const r = await h.curl(brock.port, ['--cacert', certs.ca, 'https://alert.test/']);
  assert.equal(r.status, 200, r.stderr);
  // One refusal of another host is not enough.
  const other = await h.curl(brock.port, ['--cacert', certs.ca, 'https://mine.test/']);
  assert.notEqual(other.code, 0);
  assert.ok((await issuer('mine.test')).brock);
});

check('the hosts brock ships are passed through, and can be taken off', async () => {
  let r = await issuer('www.paypal.com');
  assert.equal(r.status, 200, r.stderr);
  assert.equal(r.brock, false, 'a bank is never seen inside');
  const off = await api('DELETE', '/api/passthrough/paypal.com');
  assert.ok(off.entries.some((x) => x.host === 'paypal.com' && x.taken_off_shipped));
  r = await issuer('www.paypal.com');
  assert.equal(r.brock, true, 'taken off the shipped list, it is seen inside');
  const back = await api('DELETE', '/api/passthrough/!paypal.com');
  assert.ok(!back.entries.some((x) => x.host === 'paypal.com'));
  assert.equal((await issuer('www.paypal.com')).brock, false);
});

check('the user\'s own entries pass hosts through; a blocked host is still refused', async () => {
  // The settings are written whole, once a second: the dashboard's last change is let reach
  // the state before another process changes them.
  await waitFor('the state', async () => !/paypal/.test((await h.brock(state,
    ['passthrough', '--json'])).stdout));
  await new Promise((r) => setTimeout(r, 1200));
  const add = await h.brock(state, ['passthrough', 'add', '*.test', '--why', 'all of them']);
  assert.equal(add.code, 0, add.stderr);
  await waitFor('passed through', async () => !(await issuer('mine.test')).brock, 10000);
  const blocked = await h.curl(brock.port, ['--cacert', both, 'https://blocked.test/']);
  assert.equal(blocked.connect, 403, 'a CONNECT to a blocked host is refused');
  assert.equal(requestsFor('blocked.test').length, 0);
  const bad = await h.brock(state, ['passthrough', 'add', 'not a host']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /not a host name/);
  assert.equal((await h.brock(state, ['passthrough', 'remove', '*.test'])).code, 0);
});
