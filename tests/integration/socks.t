#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock run --socks ADDR:PORT: programs that take a SOCKS5 proxy (curl --socks5-hostname here)
// are served as the HTTP proxy serves its clients. Plain HTTP inside gets DNT and Sec-GPC and
// is decided request by request (a tracker learned on three sites is blocked on the fourth,
// its own site still loads); HTTPS is intercepted with brock's CA; a host brock passes unseen
// is decided as a tunnel (blocked: SOCKS reply 2); anything else is passed through as it
// came. Bad input gets the reply RFC 1928 names, or the connection closed: 255 methods, none
// brock takes, a truncated request, a domain of length 0 and 255, BIND, UDP ASSOCIATE.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const path = require('node:path');
const { startOrigin, startSite, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { flat, check } = h;

const tmp = h.tmpdir('socks-t');
const state = path.join(tmp, 'state');
let origin, tlsSite, echo, brock, socksPort, caPath;

before(flat(async () => {
  origin = await startOrigin();
  const certs = h.originCerts(tmp, ['secure.test', 'unseen.test'], 'brock socks test');
  tlsSite = await startSite((req, res) => res.end('secure'),
                            { tls: { key: certs.key, cert: certs.cert } });
  // A protocol of its own: the server echoes each line, upper-cased.
  echo = net.createServer((s) => s.on('data', (d) => s.write(d.toString().toUpperCase())));
  await new Promise((r) => echo.listen(0, '127.0.0.1', r));
  let r = await h.brock(state, ['ca', 'init']);
  assert.equal(r.code, 0, r.stderr);
  r = await h.brock(state, ['set', 'unseen.test', 'block']);
  assert.equal(r.code, 0, r.stderr);
  caPath = path.join(state, 'ca', 'ca.pem');
  socksPort = await h.freePort();
  brock = await h.startBrock({ state, args: [
    '-v', '--no-update', '--workers', '1', '--intercept', '--upstream-ca', certs.ca,
    '--no-intercept', 'unseen.test', '--socks', `127.0.0.1:${socksPort}`,
    ...h.resolveTo(tlsSite.port, 'secure.test:443', 'unseen.test:443'),
    ...h.resolveTo(echo.address().port, 'echo.test:7'),
    ...h.resolveTo(origin.port, '*.test')] });
}));

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
  if (tlsSite) await tlsSite.close();
  if (echo) echo.close();
});

const socks = (args) => h.curl(0, args, { socks: socksPort });
const header = (rec, name) => rec.headers.filter(([n]) => n === name).map(([, v]) => v);

check('plain HTTP through SOCKS gets DNT and Sec-GPC, as through the proxy', async () => {
  const r = await socks(['-H', 'DNT: 0', 'http://site-a.test/echo?n=socks']);
  assert.equal(r.status, 200, r.stderr);
  const rec = origin.to('site-a.test').find((x) => x.path === '/echo?n=socks');
  assert.deepEqual(header(rec, 'dnt'), ['1']);
  assert.deepEqual(header(rec, 'sec-gpc'), ['1']);
});

check('a tracker learned on three sites through SOCKS is blocked on the fourth', async () => {
  for (const site of ['site-a.test', 'site-b.test', 'site-c.test']) {
    const nav = await socks([...h.NAVIGATE_ARGS, `http://${site}/`]);
    assert.equal(nav.status, 200);
    const r = await socks(['-e', `http://${site}/`, '-b', `uid=${sha256(site).slice(0, 24)}`,
                           'http://tracker9.test/pixel.gif']);
    assert.equal(r.status, 200, `passes on ${site} while learning`);
  }
  const r = await socks(['-e', 'http://site-d.test/', 'http://tracker9.test/pixel.gif']);
  assert.equal(r.status, 403);
  assert.equal(origin.to('tracker9.test').length, 3, 'the blocked request never left brock');
  // Its own site loads: plain HTTP is decided request by request.
  const own = await socks([...h.NAVIGATE_ARGS, 'http://tracker9.test/home']);
  assert.equal(own.status, 200);
});

check('HTTPS through SOCKS is seen inside with brock\'s CA', async () => {
  const r = await socks(['--cacert', caPath, 'https://secure.test/in']);
  assert.equal(r.status, 200, r.stderr);
  assert.equal(r.body.toString(), 'secure');
  const rec = tlsSite.requests.find((x) => x.path === '/in');
  assert.equal(rec.headers.dnt, '1');
  assert.match(brock.log(), /GET secure\.test 200/);
});

check('a blocked host brock passes unseen gets SOCKS reply 2', async () => {
  const r = await socks(['--cacert', caPath, 'https://unseen.test/']);
  assert.equal(r.code, 97, 'curl: the proxy refused the connection');
  assert.match(brock.log(), /block unseen\.test/);
});

// A SOCKS5 conversation: the bytes sent, and what came back until brock closed (or until()
// held of it).
async function converse(data, until) {
  return h.raw(socksPort, Buffer.from(data), { until, wait: 5000 });
}

check('another protocol is passed through as it came', async () => {
  const port = Buffer.from([0, 7]);
  const hello = [5, 1, 0];
  const req = [5, 1, 0, 3, 9, ...Buffer.from('echo.test'), ...port];
  const got = await converse([...hello, ...req, ...Buffer.from('hello brock\n')],
                             (t) => /HELLO BROCK/.test(t));
  assert.equal(got.text.slice(0, 12), '\x05\x00\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00');
  assert.match(got.text, /HELLO BROCK/);
});

check('bad input gets the reply SOCKS5 names, or the connection closed', async () => {
  const methods = Array.from({ length: 255 }, (_, i) => 255 - i);
  let got = await converse([5, 255, ...methods]);
  assert.equal(got.text, '\x05\xff', 'no method brock takes among 255');
  methods[254] = 0;
  got = await converse([5, 255, ...methods, 5, 2, 0, 3, 6, ...Buffer.from('x.test'), 0, 80]);
  assert.equal(got.text.slice(0, 4), '\x05\x00\x05\x07', 'BIND: command not supported');
  got = await converse([5, 1, 0, 5, 3, 0, 1, 127, 0, 0, 1, 0, 80]);
  assert.equal(got.text.slice(0, 4), '\x05\x00\x05\x07', 'UDP ASSOCIATE: not supported');
  got = await converse([5, 1, 0, 5, 1, 0, 3, 0, 0, 80]);
  assert.equal(got.text.slice(0, 4), '\x05\x00\x05\x01', 'a domain of length 0');
  got = await converse([5, 1, 0, 5, 1, 0, 9, 1, 2, 3, 4, 0, 80]);
  assert.equal(got.text.slice(0, 4), '\x05\x00\x05\x08', 'an address type SOCKS5 lacks');
  got = await converse([4, 1, 0, 80, 127, 0, 0, 1, 0]);
  assert.equal(got.text, '');
  assert.equal(got.closed, true, 'SOCKS4: closed');
  // A domain of 255 bytes is read whole, and is longer than a host name may be (253).
  const longest = Buffer.from(Array(4).fill('a'.repeat(63)).join('.'));
  assert.equal(longest.length, 255);
  got = await converse([5, 1, 0, 5, 1, 0, 3, 255, ...longest, 0, 80]);
  assert.equal(got.text.slice(0, 4), '\x05\x00\x05\x01', 'a domain of 255 bytes: no host name');
  assert.match(brock.log(), /the SOCKS request names no host/);
  // A request cut short, then the client gone: brock is still there.
  got = await converse([5, 1, 0, 5, 1, 0, 3, 10, 97], (t) => t.length >= 2);
  assert.equal(got.text, '\x05\x00');
  const r = await socks(['http://site-a.test/echo?n=after']);
  assert.equal(r.status, 200);
});

check('a --socks that is not ADDR:PORT, or beyond loopback without --allow, is refused at start',
      async () => {
  for (const args of [['--socks', 'nowhere'], ['--socks', '0.0.0.0:1080']]) {
    const r = await h.brock(path.join(tmp, 'bad'), ['run', '--no-update', ...args]);
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.stderr, /--socks|SOCKS/, args.join(' '));
  }
});

// brock's /api/status at port.
function status(port) {
  return new Promise((resolve, reject) => {
    require('node:http').get({ host: '127.0.0.1', port, path: '/api/status', agent: false },
                             (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve(JSON.parse(text)));
    }).on('error', reject);
  });
}

check('with workers, each takes its share of the SOCKS port', async () => {
  const port = await h.freePort();
  const b = await h.startBrock({ state: path.join(tmp, 'workers'), args: [
    '--no-update', '--workers', '2', '--socks', `127.0.0.1:${port}`,
    ...h.resolveTo(origin.port, '*.test')] });
  try {
    for (let i = 0; i < 6; i++) {
      const r = await h.curl(0, [`http://site-w.test/echo?n=w${i}`], { socks: port });
      assert.equal(r.status, 200, r.stderr);
    }
    assert.equal(origin.to('site-w.test').length, 6);
    // Summed over both workers, each as of its last second.
    await h.waitFor('both workers\' requests in /api/status',
                    async () => (await status(b.port)).since_start.by_way.socks === 6, 10000);
    assert.equal((await status(b.port)).workers, 2);
  } finally {
    await b.stop();
  }
});

check('the live log and the log say a request came through SOCKS', async () => {
  const r = await socks(['http://site-a.test/echo?n=way']);
  assert.equal(r.status, 200);
  assert.match(brock.log(), /GET site-a\.test 200 pass \(SOCKS\)/);
  const events = await new Promise((resolve, reject) => {
    const req = require('node:http').get({ host: '127.0.0.1', port: brock.port,
                                           path: '/api/log', agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
        if (/"way":"socks"/.test(text)) {
          req.destroy();
          resolve(text);
        }
      });
    });
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error('no SOCKS event in /api/log')));
  });
  const line = events.split('\n').find((l) => l.includes('"way":"socks"'));
  assert.match(line, /"host":"site-a\.test"/);
});
