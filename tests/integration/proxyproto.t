#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// --proxy-protocol-from: connections from a balancer's address begin with a PROXY protocol
// header (version 1 or 2), and the client it names is the one brock serves: --allow is
// checked against it, --max-client-connections counts it, the log names it, and the pages it
// opened are its own (a tracker is learned from only on the pages its own client navigated
// to). A connection from that address without a header, with a broken one, or with one that
// never ends, is closed with a log line and nothing forwarded; a header cut into pieces is
// waited for. Connections from other addresses never have a header read. curl's
// --haproxy-protocol is a real client. A bad range is a usage error naming the option.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const net = require('node:net');
const { check, tmpdir, startBrock, brock, curl, rawFrom, waitFor } = require('./harness.js');
const { startOrigin } = require('./origin.js');

let origin, b;

before(async () => {
  origin = await startOrigin();
  // The balancer is 127.0.0.1; the clients it names must be in 127.0.0.0/24.
  b = await startBrock({ state: tmpdir('pp'), global: ['--no-seed'],
                         args: ['--no-update', '--resolve', `*.test=127.0.0.1:${origin.port}`,
                                '--proxy-protocol-from', '127.0.0.1', '--allow', '127.0.0.0/24',
                                '-v'] });
});

after(async () => {
  if (b) await b.stop();
  if (origin) await origin.close();
});

const SIG = Buffer.from('0d0a0d0a000d0a515549540a', 'hex');

// A version 2 header: PROXY over TCP/IPv4 from src:sport, or LOCAL when src is null.
function v2(src, sport = 40000) {
  if (!src) return Buffer.concat([SIG, Buffer.from([0x20, 0x00, 0x00, 0x00])]);
  const a = Buffer.alloc(12);
  src.split('.').forEach((x, i) => { a[i] = Number(x); });
  a.set([127, 0, 0, 1], 4);
  a.writeUInt16BE(sport, 8);
  a.writeUInt16BE(8119, 10);
  return Buffer.concat([SIG, Buffer.from([0x21, 0x11, 0x00, 0x0c]), a]);
}

const v1 = (src, sport = 40000) => `PROXY TCP4 ${src} 127.0.0.1 ${sport} 8119\r\n`;

// A request for url, as a client sends it to a proxy, the connection closed after it.
function get(url, headers = {}) {
  const u = new URL(url);
  const h = Object.entries({ Host: u.host, ...headers, Connection: 'close' })
    .map(([k, v]) => `${k}: ${v}\r\n`).join('');
  return `GET ${url} HTTP/1.1\r\n${h}\r\n`;
}

// header and then request in one write from local (default 127.0.0.1, the balancer);
// resolves with the status brock answered (0: closed without an answer) and what came back.
async function send(header, request, local) {
  const data = Buffer.concat([Buffer.from(header), Buffer.from(request, 'latin1')]);
  const r = await rawFrom(local, b.port, data);
  const m = /^HTTP\/1\.1 (\d{3})/.exec(r.text);
  return { status: m ? Number(m[1]) : 0, text: r.text };
}

const NAV = { 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document',
              'Sec-Fetch-Site': 'none' };

// client (through the balancer) opens site, then (when tracker is given) loads tracker's pixel
// from it; resolves with the pixel's status.
async function browse(client, site, tracker) {
  assert.equal((await send(v2(client), get(`http://${site}/`, NAV))).status, 200);
  if (!tracker) return 0;
  return (await send(v2(client), get(`http://${tracker}/pixel.gif`,
                                     { Referer: `http://${site}/`, Cookie: 'uid=a81c9e3f5d7b' })))
    .status;
}

check('a version 1 header: the client it names is served, and logged by its address',
      async () => {
  const r = await send(v1('127.0.0.5'), get('http://one.test/'));
  assert.equal(r.status, 200, r.text);
  await waitFor('the request logged with the client the header named',
                () => /brock: 127\.0\.0\.5 GET one\.test 200/.test(b.log()), 5000);
  assert.doesNotMatch(b.log(), /brock: 127\.0\.0\.1 GET one\.test/);
  assert.equal(origin.to('one.test').length, 1);
});

check('curl --haproxy-protocol is served', async () => {
  const r = await curl(b.port, ['--haproxy-protocol', 'http://two.test/']);
  assert.equal(r.status, 200, r.stderr);
  assert.equal(origin.to('two.test').length, 1);
});

check('a version 2 header: --allow is checked against the client it names', async () => {
  const r = await send(v2('192.0.2.7', 41000), get('http://three.test/'));
  assert.equal(r.status, 403, r.text);
  await waitFor('the refusal logged with the client the header named',
                () => /refused 192\.0\.2\.7:41000 with 403: not in --allow/.test(b.log()), 5000);
  assert.equal(origin.to('three.test').length, 0);
  assert.equal((await send(v2('127.0.0.6'), get('http://three.test/'))).status, 200);
  // LOCAL (a balancer's health check): the connection's own address stands.
  assert.equal((await send(v2(null), get('http://three.test/'))).status, 200);
  assert.equal(origin.to('three.test').length, 2);
});

check('without a header, or with a broken one, the connection is closed unanswered',
      async () => {
  const cases = [
    ['', 'no PROXY protocol header'],
    [v1('127.0.0.5', 70000), 'a port that is not a number from 0 to 65535'],
    ['PROXY TCP6 127.0.0.5 127.0.0.1 1 2\r\n', 'an address not of its protocol'],
    [Buffer.concat([SIG, Buffer.from([0x21, 0x11, 0x00, 0x04, 1, 2, 3, 4])]),
     'too short for its addresses'],
  ];
  for (const [header, why] of cases) {
    const r = await send(header, get('http://four.test/'));
    assert.equal(r.status, 0, r.text);
    assert.equal(r.text, '');
    await waitFor(`the refusal (${why}) logged`, () => b.log().split('\n').some((l) =>
      /refused 127\.0\.0\.1:\d+ \(--proxy-protocol-from\): /.test(l) && l.includes(why)), 5000);
  }
  assert.equal(origin.to('four.test').length, 0);
});

check('a header in pieces is waited for; one that never ends is closed within 5 s',
      async () => {
  const whole = Buffer.concat([v2('127.0.0.7'), Buffer.from(get('http://five.test/'))]);
  const text = await new Promise((resolve, reject) => {
    const s = net.connect({ port: b.port, host: '127.0.0.1' });
    let got = '';
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no answer: ' + got)); },
                             10000);
    s.on('data', (d) => { got += d.toString('latin1'); });
    s.on('close', () => { clearTimeout(timer); resolve(got); });
    s.on('error', () => {});
    s.write(whole.subarray(0, 5));
    setTimeout(() => s.write(whole.subarray(5, 14)), 150);
    setTimeout(() => s.write(whole.subarray(14)), 300);
  });
  assert.match(text, /^HTTP\/1\.1 200/);
  const t0 = Date.now();
  const r = await rawFrom(undefined, b.port, 'PROXY TCP4 127.0.0.8', { wait: 9000 });
  assert.ok(r.closed && r.text === '', r.text);
  assert.ok(Date.now() - t0 >= 4000, `closed after ${Date.now() - t0} ms`);
  assert.match(b.log(), /\(--proxy-protocol-from\): no whole PROXY protocol header in time/);
}, 20000);

check('from another address no header is read', async () => {
  const r = await send(v1('127.0.0.9'), get('http://six.test/'), '127.0.0.2');
  assert.equal(r.status, 400, r.text);
  assert.equal(origin.to('six.test').length, 0);
  assert.equal((await send('', get('http://six.test/'), '127.0.0.2')).status, 200);
});

check('the pages a client opened are its own, not the balancer\'s', async () => {
  // Client .10 opens three sites; client .11 loads a tracker from each without having opened
  // them: not learned from. Had brock taken every connection for the balancer's, the
  // tracker would be blocked now.
  for (const s of ['p1.test', 'p2.test', 'p3.test']) await browse('127.0.0.10', s);
  for (const s of ['p1.test', 'p2.test', 'p3.test'])
    assert.equal((await send(v2('127.0.0.11'), get('http://tracker9.test/pixel.gif',
                                                   { Referer: `http://${s}/`,
                                                     Cookie: 'uid=a81c9e3f5d7b' }))).status, 200);
  assert.equal(await browse('127.0.0.11', 'p4.test', 'tracker9.test'), 200);
  // Client .10 loads it from its own pages: the third site blocks it.
  for (const s of ['p1.test', 'p2.test', 'p3.test']) await browse('127.0.0.10', s, 'tracker9.test');
  assert.notEqual(await browse('127.0.0.10', 'p5.test', 'tracker9.test'), 200);
});

check('a bad range is a usage error naming the option, and nothing starts', async () => {
  for (const [spec, why] of [['10.0.0.1/8', /bits set past the \/8 prefix/],
                             ['balancer.example', /is not an IPv4 or IPv6 address/],
                             ['10.0.0.0/33', /prefix length must be 0 to 32/]]) {
    const r = await brock(tmpdir('pp-bad'), ['run', '--listen', '127.0.0.1:0',
                                             '--proxy-protocol-from', spec]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--proxy-protocol-from '${spec.replace(/\./g, '\\.')}': `));
    assert.match(r.stderr, why);
    assert.doesNotMatch(r.stderr, /listening on/);
  }
});

check('--max-client-connections counts the client the header names', async () => {
  const c = await startBrock({ state: tmpdir('pp-cap'), global: ['--no-seed'],
                               args: ['--no-update', '--proxy-protocol-from', '127.0.0.1',
                                      '--max-client-connections', '2'] });
  const socks = [];
  try {
    // Opens a connection from the balancer carrying client, sending nothing after the header.
    const open = async (client) => {
      const s = net.connect({ port: c.port, host: '127.0.0.1' });
      const x = { s, closed: false };
      s.on('close', () => { x.closed = true; });
      s.on('error', () => {});
      s.write(v2(client));
      socks.push(x);
      await new Promise((r) => setTimeout(r, 150));
      return x;
    };
    // Three clients, one connection each: all stay, though all come from one balancer.
    const others = [];
    for (const client of ['127.0.0.21', '127.0.0.22', '127.0.0.23']) others.push(await open(client));
    // One client, three connections: its oldest makes room for its third.
    const first = await open('127.0.0.20');
    await open('127.0.0.20');
    await open('127.0.0.20');
    await waitFor('the oldest of 127.0.0.20 closed', () => first.closed, 5000);
    assert.ok(others.every((x) => !x.closed), 'another client\'s connection was closed');
    assert.equal(socks.filter((x) => x.closed).length, 1);
    await waitFor('the summary naming the client', () => /closed 1 idle connection.* of clients at their share of 2 \(--max-client-connections; the last: 127\.0\.0\.20\)/.test(c.log()), 5000);
  } finally {
    for (const x of socks) x.s.destroy();
    await c.stop();
  }
}, 20000);
