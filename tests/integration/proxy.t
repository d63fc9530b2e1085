#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// `brock run` driven by real curl against a local origin with several virtual hosts,
// reached through --resolve: Privacy Badger's request handling, learning live, tunnels,
// keep-alive, streamed bodies, bad input, `brock set` while running, restarts and signals.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { startOrigin, startRawOrigin, bytes, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { flat, check, run } = h;

let origin, rawOrigin, downPort, brock, stateDir, yellow, slowClient;
const tmp = h.tmpdir('proxy-t');

// brock with every test host resolved to the origins; never fetching EFF's list.
function startBrock(state, verbosity = ['-v'], listen = '127.0.0.1:0') {
  return h.startBrock({ state, listen, args: [
    ...verbosity, '--no-update',
    ...h.resolveTo(rawOrigin.port, 'eof.test', 'flaky.test', 'garbage.test', 'cut.test'),
    ...h.resolveTo(downPort, 'down.test'),
    ...h.resolveTo(origin.port, '*.test', yellow),
  ] });
}

// curl through brock; returns the status, response headers, body (Buffer) and exit code.
function curl(args, b = brock) {
  return h.curl(b.port, args);
}

function header(rec, name) {
  return rec.headers.filter(([n]) => n === name).map(([, v]) => v);
}

// Raw bytes to brock; resolves with what came back once brock closes or `until` matches.
async function raw(data, until, b = brock, wait = 10000) {
  return (await h.raw(b.port, data, { until, wait })).text;
}

// Three sites' worth of identifying cookies: the tracker is then blocked.
async function learnTracker(tracker, sites) {
  for (const site of sites) {
    await h.navigate(brock.port, `http://${site}/`);
    const uid = sha256(site + tracker).slice(0, 24);
    const r = await curl(['-e', `http://${site}/`, '-b', `uid=${uid}`,
                          `http://${tracker}/pixel.gif`]);
    assert.equal(r.status, 200, `${tracker} on ${site} passes while learning`);
  }
}

before(flat(async () => {
  yellow = h.pickYellow();
  origin = await startOrigin({ cookieHost: yellow });
  rawOrigin = await startRawOrigin();
  downPort = await h.freePort();
  stateDir = path.join(tmp, 'state');
  brock = await startBrock(stateDir);
  // A client that never finishes its head; the answer is checked near the end, so that the
  // header timeout runs while the other tests do.
  slowClient = { started: Date.now() };
  slowClient.answer = raw('GET http://site-a.test/slow HTTP/1.1\r\nHost: site-a.test\r\n', null,
                          brock, 30000)
    .then((got) => ({ got, ms: Date.now() - slowClient.started }));
}));

after(async () => {
  if (brock) await brock.stop('SIGKILL');
  if (origin) await origin.close();
  if (rawOrigin) await rawOrigin.close();
});

check('DNT and Sec-GPC arrive on every request, replacing what the client sent', async () => {
  const r = await curl(['-H', 'DNT: 0', '-H', 'Sec-GPC: 0', 'http://site-a.test/echo?n=dnt']);
  assert.equal(r.status, 200);
  const rec = origin.to('site-a.test').find((x) => x.path === '/echo?n=dnt');
  assert.deepEqual(header(rec, 'dnt'), ['1']);
  assert.deepEqual(header(rec, 'sec-gpc'), ['1']);
  assert.match(header(rec, 'via').join(','), /1\.1 brock/);
  assert.match(r.headers, /^Via: .*brock/mi);
});

check('first-party requests pass untouched but for DNT, GPC and hop-by-hop headers', async () => {
  const r = await curl(['-e', 'http://site-a.test/page?x=1', '-b', 'sess=0123456789abcdef0123',
                        '-H', 'X-Custom: kept', '-H', 'Proxy-Authorization: Basic Zm9vOmJhcg==',
                        '-H', 'Connection: X-Hop', '-H', 'X-Hop: dropped',
                        'http://www.site-a.test/echo?n=first']);
  assert.equal(r.status, 200);
  const rec = origin.to('www.site-a.test').find((x) => x.path === '/echo?n=first');
  assert.deepEqual(header(rec, 'cookie'), ['sess=0123456789abcdef0123']);
  assert.deepEqual(header(rec, 'referer'), ['http://site-a.test/page?x=1']);
  assert.deepEqual(header(rec, 'x-custom'), ['kept']);
  assert.deepEqual(header(rec, 'proxy-authorization'), []);
  assert.deepEqual(header(rec, 'x-hop'), []);
  assert.deepEqual(header(rec, 'proxy-connection'), []);
});

check('a tracker passes on three sites and is blocked on the fourth', async () => {
  await learnTracker('tracker1.test', ['site-a.test', 'site-b.test', 'site-c.test']);
  assert.equal(origin.to('tracker1.test').length, 3);
  const r = await curl(['-e', 'http://site-d.test/', 'http://tracker1.test/pixel.gif']);
  assert.equal(r.status, 403);
  assert.match(r.body.toString(), /tracker1\.test/, 'the block page names the host');
  assert.equal(origin.to('tracker1.test').length, 3, 'the blocked request never left brock');
  assert.match(brock.log(), /block tracker1\.test on site-d\.test/);
  // The tracker's own site still reaches it: a first party always passes. Over plain HTTP
  // a browser's navigation is told by its Accept and Upgrade-Insecure-Requests.
  const own = await curl(['-H', 'Accept: text/html,application/xhtml+xml,*/*;q=0.8',
                          '-H', 'Upgrade-Insecure-Requests: 1', 'http://tracker1.test/home']);
  assert.equal(own.status, 200);
  // A request that names no page at all (an image of a page that sends no referrer, a
  // program) is not the tracker's own site: it is blocked (an image gets an empty 204).
  const pixel = await curl(['-H', 'Accept: image/avif,image/webp,*/*',
                            'http://tracker1.test/pixel.gif?no-referrer']);
  assert.equal(pixel.status, 204);
  assert.equal(origin.to('tracker1.test').length, 4, 'only the navigation reached it');
});

check('blocked requests never reach the origin, whatever their method', async () => {
  await learnTracker('tracker2.test', ['site-a.test', 'site-b.test', 'site-c.test']);
  const before = origin.to('tracker2.test').length;
  const get = await curl(['-e', 'http://site-e.test/', 'http://tracker2.test/a']);
  const post = await curl(['-e', 'http://site-e.test/', '--data-binary', 'x=1',
                           'http://tracker2.test/b']);
  const head = await curl(['-e', 'http://site-e.test/', '-I', 'http://tracker2.test/c']);
  assert.deepEqual([get.status, post.status, head.status], [403, 403, 403]);
  assert.equal(origin.to('tracker2.test').length, before);
});

// Whether text holds a whole answer: its head, then its Content-Length's bytes, or a last
// chunk; one without either (a 204) ends at its head.
function answerComplete(text) {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const head = text.slice(0, end);
  const len = /^content-length:\s*(\d+)/mi.exec(head);
  if (len) return text.length >= end + 4 + Number(len[1]);
  if (/^transfer-encoding:\s*chunked/mi.test(head)) return text.endsWith('0\r\n\r\n');
  return true;
}

// Requests written on one connection to brock, each once the answer to the one before is
// whole; resolves with the answers and whether brock closed the connection.
function oneConnection(reqs, wait = 15000) {
  return new Promise((resolve, reject) => {
    const s = net.connect(brock.port, '127.0.0.1');
    const answers = [];
    let got = '';
    let settled = false;
    const finish = (closed, err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.destroy();
      if (err) reject(err);
      else resolve({ answers, closed });
    };
    const timer = setTimeout(() => finish(false, new Error(
      `no whole answer to request ${answers.length + 1} in time: ${got.slice(0, 300)}`)), wait);
    s.on('data', (d) => {
      got += d.toString('latin1');
      if (!answerComplete(got)) return;
      answers.push(got);
      got = '';
      if (answers.length === reqs.length) finish(false);
      else s.write(reqs[answers.length]);
    });
    s.on('end', () => {
      if (got) answers.push(got);
      finish(true);
    });
    s.on('error', () => finish(true));
    s.write(reqs[0]);
  });
}

check('a blocked request with a body keeps its connection; one too large closes it',
      async () => {
  await learnTracker('tracker5.test', ['site-a.test', 'site-b.test', 'site-c.test']);
  const before = origin.to('tracker5.test').length;
  const to = (method, more) => `${method} http://tracker5.test/collect HTTP/1.1\r\n` +
    'Host: tracker5.test\r\nReferer: http://site-e.test/\r\n' + more;
  const beacon = 'v=1&t=event&cid=12345';
  const r = await oneConnection([
    // A beacon (its Content-Type says so): 204.
    to('POST', `Content-Type: text/ping\r\nContent-Length: ${beacon.length}\r\n\r\n${beacon}`),
    // A form's POST, chunked: the 403 page.
    to('POST', 'Content-Type: application/x-www-form-urlencoded\r\n' +
       'Transfer-Encoding: chunked\r\n\r\n5\r\na=1&b\r\n3\r\n=22\r\n0\r\n\r\n'),
    'GET http://site-a.test/echo?n=after-blocked-bodies HTTP/1.1\r\nHost: site-a.test\r\n\r\n',
  ]);
  assert.equal(r.closed, false, 'the connection stayed open');
  assert.match(r.answers[0], /^HTTP\/1\.1 204 /);
  assert.match(r.answers[1], /^HTTP\/1\.1 403 /);
  for (const a of r.answers.slice(0, 2)) assert.doesNotMatch(a, /^connection: close/mi);
  assert.match(r.answers[2], /^HTTP\/1\.1 200 /);
  assert.match(r.answers[2], /"n":"after-blocked-bodies"/);
  assert.equal(origin.to('tracker5.test').length, before, 'nothing blocked left brock');

  // Past 64 KiB, declared or chunked, the answer says the connection closes, and it does.
  const big = 'x'.repeat(70 * 1024);
  const chunks = `${(40 * 1024).toString(16)}\r\n${big.slice(0, 40 * 1024)}\r\n`.repeat(2);
  for (const req of [to('POST', `Content-Length: ${big.length}\r\n\r\n${big}`),
                     to('POST', `Transfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`)]) {
    const o = await oneConnection([req, 'GET http://site-a.test/echo HTTP/1.1\r\n' +
                                         'Host: site-a.test\r\n\r\n']);
    assert.equal(o.closed, true, 'closed after an oversized body');
    assert.equal(o.answers.length, 1, o.answers.join('\n----\n'));
    assert.match(o.answers[0], /^HTTP\/1\.1 403 /);
    assert.match(o.answers[0], /^connection: close/mi);
  }
  assert.equal(origin.to('tracker5.test').length, before);
});

check('a host that sets only low-entropy cookies is never blocked', async () => {
  for (const site of ['site-a.test', 'site-b.test', 'site-c.test', 'site-d.test', 'site-e.test']) {
    const r = await curl(['-e', `http://${site}/`, '-b', 'lang=en', 'http://lang.test/strings.js']);
    assert.equal(r.status, 200, `lang.test on ${site}`);
    assert.match(r.headers, /^Set-Cookie: lang=en/mi);
  }
  assert.equal(origin.to('lang.test').length, 5);
});

check('the yellowlisted host gets no Cookie and returns no Set-Cookie', async () => {
  const get = await curl(['-e', 'http://site-a.test/some/page?q=1',
                          '-b', 'yid=8c1f0e9a7b6d5c4e3f21',
                          `http://${yellow}/echo?n=yellow-get`]);
  assert.equal(get.status, 200);
  assert.doesNotMatch(get.headers, /^Set-Cookie:/mi);
  const rec = origin.to(yellow).find((x) => x.path === '/echo?n=yellow-get');
  assert.ok(rec, 'the request went out');
  assert.deepEqual(header(rec, 'cookie'), []);
  assert.deepEqual(header(rec, 'referer'), ['http://site-a.test/']);
  assert.deepEqual(header(rec, 'dnt'), ['1']);
  const post = await curl(['-e', 'http://site-a.test/some/page', '-b', 'yid=8c1f0e9a7b6d5c4e3f21',
                           '--data-binary', 'a=b', `http://${yellow}/echo?n=yellow-post`]);
  assert.equal(post.status, 200);
  assert.doesNotMatch(post.headers, /^Set-Cookie:/mi);
  const prec = origin.to(yellow).find((x) => x.path === '/echo?n=yellow-post');
  assert.deepEqual(header(prec, 'cookie'), []);
  assert.deepEqual(header(prec, 'referer'), []);
  const quoted = yellow.replace(/\./g, '\\.');
  assert.match(brock.log(), new RegExp(`cookieblock ${quoted} on site-a\\.test`));
});

check('the yellowlisted host gets no Cookie2 and returns no Set-Cookie2 either', async () => {
  // RFC 2965's headers carry cookies as well as Cookie and Set-Cookie do: a cookieblocked
  // host gets neither kind, and a host that passes keeps both.
  const set2 = encodeURIComponent('yid2=5e0c2f9d8a7b6c4d3e21; Version=1');
  const args = (n) => ['-e', 'http://site-a.test/some/page', '-H', 'Cookie2: $Version="1"',
                       '-b', 'yid=8c1f0e9a7b6d5c4e3f21', `http://${n}/echo?n=c2&setcookie2=${set2}`];
  const get = await curl(args(yellow));
  assert.equal(get.status, 200);
  assert.doesNotMatch(get.headers, /^Set-Cookie2?:/mi);
  const rec = origin.to(yellow).find((x) => x.path.startsWith('/echo?n=c2'));
  assert.ok(rec, 'the request went out');
  assert.deepEqual(header(rec, 'cookie'), []);
  assert.deepEqual(header(rec, 'cookie2'), []);
  const pass = await curl(args('site-c.test'));
  assert.equal(pass.status, 200);
  assert.match(pass.headers, /^Set-Cookie2: yid2=5e0c2f9d8a7b6c4d3e21; Version=1/mi);
  const prec = origin.to('site-c.test').find((x) => x.path.startsWith('/echo?n=c2'));
  assert.deepEqual(header(prec, 'cookie2'), ['$Version="1"']);
});

check('CONNECT tunnels work, and are refused for blocked hosts', async () => {
  const r = await curl(['-p', 'http://site-b.test/echo?n=tunnel']);
  assert.equal(r.connect, 200);
  assert.equal(r.status, 200);
  const rec = origin.to('site-b.test').find((x) => x.path === '/echo?n=tunnel');
  assert.ok(rec, 'the request went through the tunnel');
  assert.deepEqual(header(rec, 'via'), [], 'brock did not touch the tunnelled bytes');
  await learnTracker('tracker3.test', ['site-a.test', 'site-b.test', 'site-c.test']);
  const n = origin.to('tracker3.test').length;
  const refused = await curl(['-p', 'http://tracker3.test/echo?n=tunnel']);
  assert.equal(refused.connect, 403);
  assert.notEqual(refused.code, 0);
  assert.equal(origin.to('tracker3.test').length, n);
});

check('keep-alive reuses the client and the upstream connections', async () => {
  const urls = [1, 2, 3].map((i) => `http://site-c.test/echo?n=ka${i}`);
  const r = await run('curl', ['-s', '-x', `http://127.0.0.1:${brock.port}`, '-o', '/dev/null',
                               '-o', '/dev/null', '-o', '/dev/null', '-w', '%{num_connects} ',
                               ...urls]);
  assert.equal(r.code, 0);
  assert.deepEqual(r.stdout.trim().split(' ').map(Number), [1, 0, 0]);
  const ports = urls.map((u) => origin.to('site-c.test')
    .find((x) => x.path === u.slice('http://site-c.test'.length)).remotePort);
  assert.equal(new Set(ports).size, 1, `one upstream connection: ${ports}`);
});

// An idle keep-alive connection gives back what its last exchange grew after a second or two
// (conn_sweep_idle); its next request, with more headers than the first, is whole.
check('a keep-alive connection idle for seconds serves its next request whole', async () => {
  const s = net.connect(brock.port, '127.0.0.1');
  s.setTimeout(10000, () => s.destroy(new Error('timed out')));
  let got = Buffer.alloc(0);
  s.on('data', (d) => { got = Buffer.concat([got, d]); });
  const response = async () => {
    for (;;) {
      const end = got.indexOf('\r\n\r\n');
      const m = /content-length: *(\d+)/i.exec(got.toString('latin1', 0, end < 0 ? 0 : end));
      if (end >= 0 && m && got.length >= end + 4 + Number(m[1])) {
        const text = got.toString('latin1', 0, end);
        got = got.subarray(end + 4 + Number(m[1]));
        return text;
      }
      if (s.destroyed) throw new Error('closed before a whole response');
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  await new Promise((r, j) => { s.once('connect', r); s.once('error', j); });
  s.write('GET http://site-c.test/echo?n=idle1 HTTP/1.1\r\nHost: site-c.test\r\n\r\n');
  assert.match(await response(), /^HTTP\/1\.1 200 /);
  await new Promise((r) => setTimeout(r, 2600));
  const extra = Array.from({ length: 40 }, (_, i) => `X-Idle-${i}: value-${i}\r\n`).join('');
  s.write(`GET http://site-c.test/echo?n=idle2 HTTP/1.1\r\nHost: site-c.test\r\n${extra}\r\n`);
  const head = await response();
  s.destroy();
  assert.match(head, /^HTTP\/1\.1 200 /);
  assert.match(head, /\r\nvia: 1\.1 brock/i);
  const rec = origin.to('site-c.test').find((x) => x.path === '/echo?n=idle2');
  assert.ok(rec, 'the second request reached the origin');
  for (let i = 0; i < 40; i++)
    assert.deepEqual(rec.headers.find(([n]) => n === `x-idle-${i}`), [`x-idle-${i}`, `value-${i}`]);
});

check('large bodies arrive byte-exact both ways, however they are framed', async () => {
  const n = 5 * 1024 * 1024 + 17;
  const want = sha256(bytes(n));
  for (const mode of ['cl', 'chunked']) {
    const r = await curl([`http://site-d.test/bytes?n=${n}&mode=${mode}`]);
    assert.equal(r.status, 200);
    assert.equal(r.body.length, n, mode);
    assert.equal(sha256(r.body), want, mode);
  }
  const eof = await curl([`http://eof.test/bytes?n=${n}`]);
  assert.equal(eof.body.length, n, 'read until close');
  assert.equal(sha256(eof.body), sha256(bytes(n, 'eof')));
  const file = path.join(tmp, 'upload');
  fs.writeFileSync(file, bytes(n, 'up'));
  for (const extra of [[], ['-H', 'Transfer-Encoding: chunked'], ['-H', 'Expect: 100-continue']]) {
    const r = await curl(['--data-binary', `@${file}`, ...extra, 'http://site-d.test/upload']);
    assert.equal(r.status, 200, extra.join(' '));
    const got = JSON.parse(r.body.toString());
    assert.equal(got.bodyLength, n, extra.join(' '));
    assert.equal(got.bodySha, sha256(bytes(n, 'up')), extra.join(' '));
  }
});

check('HEAD, 204 and 304 carry no body and keep the connection usable', async () => {
  const n = 100000;
  const proxy = ['-x', `http://127.0.0.1:${brock.port}`];
  const w = ['-w', '[%{http_code}:%{num_connects}:%{size_download}]'];
  const r = await run('curl', ['-s', ...proxy, ...w,
                               '-I', `http://site-b.test/bytes?n=${n}&mode=cl`,
                               '--next', '-s', ...proxy, ...w, '-o', '/dev/null', '-o', '/dev/null',
                               '-o', '/dev/null', 'http://site-b.test/status?code=204',
                               'http://site-b.test/status?code=304',
                               `http://site-b.test/bytes?n=${n}&mode=chunked`]);
  assert.equal(r.code, 0);
  assert.deepEqual(r.stdout.match(/\[[\d:]+\]/g),
                   ['[200:1:0]', '[204:0:0]', '[304:0:0]', `[200:0:${n}]`]);
  assert.match(r.stdout, new RegExp(`^Content-Length: ${n}`, 'mi'));
});

check('an HTTP/1.0 client gets chunked bodies unchunked, then the connection closes', async () => {
  const n = 300001;
  const r = await curl(['-0', `http://site-c.test/bytes?n=${n}&mode=chunked`]);
  assert.equal(r.status, 200);
  assert.equal(r.body.length, n);
  assert.equal(sha256(r.body), sha256(bytes(n)));
  assert.doesNotMatch(r.headers, /Transfer-Encoding/i);
});

check('pipelined requests are answered in order', async () => {
  const req = (i) => `GET http://site-e.test/echo?n=p${i} HTTP/1.1\r\nHost: site-e.test\r\n\r\n`;
  const answers = (s) => s.match(/"n":"p\d"/g) || [];
  const got = await raw(req(1) + req(2) + req(3), (s) => answers(s).length === 3);
  assert.deepEqual(got.match(/"n":"p\d"/g), ['"n":"p1"', '"n":"p2"', '"n":"p3"']);
});

check('a request dribbled one byte at a time is served', async () => {
  const req = 'GET http://site-b.test/echo?n=dribble HTTP/1.1\r\nHost: site-b.test\r\n' +
              'Cookie: a=1\r\nX-Long-Header-Name: some value\r\n\r\n';
  const got = await new Promise((resolve, reject) => {
    const s = net.connect(brock.port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no answer: ' + out)); }, 10000);
    s.on('data', (d) => {
      out += d;
      if (out.includes('"n":"dribble"')) { clearTimeout(timer); s.destroy(); resolve(out); }
    });
    s.on('error', reject);
    s.setNoDelay(true);
    let i = 0;
    const next = () => { if (i < req.length) { s.write(req[i++]); setTimeout(next, 1); } };
    s.on('connect', next);
  });
  assert.match(got, /^HTTP\/1\.1 200 /);
  const rec = origin.to('site-b.test').find((x) => x.path === '/echo?n=dribble');
  assert.deepEqual(header(rec, 'x-long-header-name'), ['some value']);
});

check('many clients at once all get their own answers', async () => {
  const http = require('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 40 });
  const one = (i) => new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: brock.port, agent,
                               path: `http://site-c.test/echo?n=many${i}`,
                               headers: { Host: 'site-c.test' } }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve([res.statusCode, JSON.parse(body).n]));
    });
    req.on('error', reject);
    req.end();
  });
  const results = await Promise.all(Array.from({ length: 400 }, (_, i) => one(i)));
  agent.destroy();
  results.forEach(([status, n], i) => {
    assert.equal(status, 200);
    assert.equal(n, `many${i}`);
  });
});

check('WebSocket upgrades pass through', async () => {
  const got = await raw('GET http://site-a.test/ws HTTP/1.1\r\nHost: site-a.test\r\n' +
                        'Upgrade: websocket\r\nConnection: Upgrade\r\n' +
                        'Sec-WebSocket-Version: 13\r\n' +
                        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n' +
                        'ping-through-the-tunnel', (s) => s.includes('ping-through-the-tunnel'));
  assert.match(got, /^HTTP\/1\.1 101 /);
  assert.match(got, /ping-through-the-tunnel/);
  const rec = origin.to('site-a.test').find((x) => x.upgrade);
  assert.deepEqual(header(rec, 'upgrade'), ['websocket']);
});

check('bad requests get 400 or 431, and brock keeps serving', async () => {
  const garbage = await raw('THIS IS NOT HTTP\r\n\r\n');
  assert.match(garbage, /^HTTP\/1\.1 400 /);
  const huge = await raw('GET http://site-a.test/ HTTP/1.1\r\nHost: site-a.test\r\n' +
                         `X-Big: ${'a'.repeat(70000)}\r\n\r\n`);
  assert.match(huge, /^HTTP\/1\.1 431 /);
  const noscheme = await raw('GET ftp://site-a.test/ HTTP/1.1\r\nHost: site-a.test\r\n\r\n');
  assert.match(noscheme, /^HTTP\/1\.1 400 /);
  const r = await curl(['http://site-a.test/echo?n=after-garbage']);
  assert.equal(r.status, 200);
  assert.match(brock.log(), /400/);
});

check('a pooled connection the origin dropped is retried on a fresh one', async () => {
  const r = await run('curl', ['-s', '-x', `http://127.0.0.1:${brock.port}`,
                               '-w', '[%{http_code}]', 'http://flaky.test/1',
                               'http://flaky.test/2', 'http://flaky.test/3']);
  assert.equal(r.stdout, 'flaky[200]flaky[200]flaky[200]');
  const conns = new Set(rawOrigin.seen.filter((x) => x.host === 'flaky.test')
    .map((x) => x.connection));
  assert.ok(conns.size >= 2, 'the dropped connection was replaced');
});

check('broken upstream responses get 502 or a cut connection; brock keeps serving', async () => {
  const garbage = await curl(['http://garbage.test/']);
  assert.equal(garbage.status, 502);
  const cut = await curl(['http://cut.test/']);
  assert.notEqual(cut.code, 0, 'curl sees the response cut short');
  assert.equal(cut.body.length, 10);
  assert.equal((await curl(['http://site-a.test/echo?n=after-broken'])).status, 200);
});

check('an unreachable upstream gets a 502 page naming the host', async () => {
  const r = await curl(['http://down.test/']);
  assert.equal(r.status, 502);
  assert.match(r.body.toString(), /down\.test/);
  const unknown = await curl(['http://no-such-host.invalid/']);
  assert.equal(unknown.status, 502);
  assert.match(unknown.body.toString(), /no-such-host\.invalid/);
  // In the C library's words, as other programs on Linux say them, whatever answered (or
  // failed to answer) the query: never the BSD wording libevent has of its own.
  const glibc = ['Name or service not known', 'Temporary failure in name resolution',
                 'No address associated with hostname',
                 'Non-recoverable failure in name resolution'];
  assert.match(unknown.body.toString(),
               new RegExp(`could not resolve no-such-host\\.invalid: (${glibc.join('|')})\n$`));
});

check('brock serves its own dashboard and status', async () => {
  const r = await run('curl', ['-s', `http://127.0.0.1:${brock.port}/`]);
  assert.match(r.stdout, /<meta name="brock-token" content="[0-9a-f]{64}">/);
  const s = await run('curl', ['-s', `http://127.0.0.1:${brock.port}/api/status`]);
  assert.ok(JSON.parse(s.stdout).since_start.blocked > 0, s.stdout);
});

check('`brock set` reaches a running brock within two seconds', async () => {
  const url = 'http://widget.test/w.js';
  assert.equal((await curl(['-e', 'http://site-a.test/', url])).status, 200);
  const set = await h.brock(stateDir, ['set', 'widget.test', 'block']);
  assert.equal(set.code, 0, set.stderr);
  const start = Date.now();
  let status = 200;
  while (Date.now() - start < 4000) {
    status = (await curl(['-e', 'http://site-a.test/', url])).status;
    if (status === 403) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(status, 403);
  assert.ok(Date.now() - start < 2600, `took ${Date.now() - start} ms`);
});

check('brock listens on IPv6 too, and reaches IPv6 origins', async (t) => {
  const probe = net.createServer();
  const v6 = await new Promise((resolve) => {
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => resolve(true));
  });
  if (!v6) {
    t.skip('no IPv6 loopback on this machine');
    return;
  }
  const v6port = probe.address().port;
  probe.on('connection', (sock) => {
    sock.once('data', () => sock.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nv6'));
  });
  const b = await startBrock(path.join(tmp, 'state-v6'), [], '[::1]:0');
  try {
    assert.match(b.log(), / brock: listening on \[::1\]:\d+$/m);
    const r = await run('curl', ['-s', '-g', '-x', `http://[::1]:${b.port}`,
                                 `http://[::1]:${v6port}/`]);
    assert.equal(r.stdout, 'v6');
  } finally {
    await b.stop('SIGTERM');
    await new Promise((r) => probe.close(r));
  }
});

check('the default log has one line per blocked request; -q only errors', async () => {
  for (const [flags, quiet] of [[[], false], [['-q'], true]]) {
    const b = await startBrock(path.join(tmp, `state-log-${quiet}`), flags);
    try {
      for (const site of ['site-a.test', 'site-b.test', 'site-c.test']) {
        await h.navigate(b.port, `http://${site}/`);
        await curl(['-e', `http://${site}/`, '-b', 'uid=5f2c9a1e7d3b4c6a8e0f',
                    'http://tracker9.test/p'], b);
      }
      await curl(['http://site-a.test/echo?n=plain'], b);
      const blocked = await curl(['-e', 'http://site-d.test/', 'http://tracker9.test/p'], b);
      assert.equal(blocked.status, 403);
      const r = await b.stop('SIGTERM');
      assert.equal(r.code, 0);
      const lines = b.log().trim().split('\n');
      assert.match(lines[0], h.STAMP);
      assert.equal(lines[0].replace(h.STAMP, ''), `listening on 127.0.0.1:${b.port}`);
      const blockLines = lines
        .filter((l) => / brock: block tracker9\.test on site-d\.test: /.test(l));
      assert.equal(blockLines.length, quiet ? 0 : 1, b.log());
      assert.equal(lines.filter((l) => /site-a\.test\/echo|GET site-a\.test/.test(l)).length, 0,
                   'a passed request is not logged by default');
      if (quiet) assert.equal(lines.length, 1, b.log());
    } finally {
      if (b.proc.exitCode === null) await b.stop('SIGKILL');
    }
  }
});

check('a client too slow with its head gets 408 and is closed', async () => {
  const { got, ms } = await slowClient.answer;
  assert.match(got, /^HTTP\/1\.1 408 /);
  assert.ok(ms >= 14000 && ms < 25000, `after ${ms} ms`);
  assert.match(brock.log(), /408 the request head did not arrive in time/);
});

check('SIGTERM exits cleanly, and learning survives a restart', async () => {
  await learnTracker('tracker4.test', ['site-a.test', 'site-b.test', 'site-c.test']);
  const r = await brock.stop('SIGTERM');
  assert.deepEqual(r, { code: 0, signal: null });
  assert.doesNotMatch(brock.log(), /AddressSanitizer|LeakSanitizer|runtime error/);
  assert.match(brock.log(), /GET site-a\.test 200 pass/, '-v logs every request');
  brock = await startBrock(stateDir);
  const again = await curl(['-e', 'http://site-f.test/', 'http://tracker4.test/pixel.gif']);
  assert.equal(again.status, 403);
  const earlier = await curl(['-e', 'http://site-f.test/', 'http://tracker1.test/pixel.gif']);
  assert.equal(earlier.status, 403);
});
