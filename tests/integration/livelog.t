#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's live request log (GET /api/log, Server-Sent Events): the requests made
// through brock arrive in order with their decisions, reasons and statuses, and say who gave
// the status (the server, or brock in the request's place) and how the page was come by; a
// client that reconnects with Last-Event-ID gets what it missed; a client outside --allow is
// refused.
'use strict';

const assert = require('node:assert/strict');
const http = require('node:http');
const { spawn } = require('node:child_process');
const net = require('node:net');
const path = require('node:path');
const h = require('./harness.js');
const { startOrigin } = require('./origin.js');

// A stream of /api/log from brock on port: { events: [{ id, event, data }], status,
// headers, close(), until(what, fn) }. headers: sent with the request.
function stream(port, headers = {}, from = undefined) {
  return new Promise((resolve, reject) => {
    const s = { events: [], text: '' };
    const req = http.request({ host: '127.0.0.1', port, path: '/api/log', agent: false,
                               localAddress: from, headers }, (res) => {
      s.status = res.statusCode;
      s.headers = res.headers;
      res.setEncoding('utf8');
      res.on('data', (d) => {
        s.text += d;
        let end;
        while ((end = s.text.indexOf('\n\n')) >= 0) {
          const block = s.text.slice(0, end);
          s.text = s.text.slice(end + 2);
          const ev = { event: 'message' };
          for (const line of block.split('\n')) {
            const m = /^(id|event|data): (.*)$/.exec(line);
            if (m) ev[m[1]] = m[2];
          }
          if (ev.data) s.events.push({ ...ev, data: JSON.parse(ev.data) });
        }
      });
      res.on('error', () => {});
      resolve(s);
    });
    s.close = () => req.destroy();
    s.until = (what, fn) => h.waitFor(what, () => fn(s.events), 10000);
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error('no answer from /api/log')));
    req.end();
  });
}

h.check('the live log streams the requests made through brock, in order', async () => {
  const state = path.join(h.tmpdir('livelog'), 'state');
  const origin = await startOrigin();
  // An origin that takes connections and never answers.
  const held = [];
  const silent = net.createServer((s) => held.push(s));
  await new Promise((r) => silent.listen(0, '127.0.0.1', r));
  const gone = await h.freePort();
  for (const [domain, action] of [['block.test', 'block'], ['strip.test', 'cookieblock']]) {
    const r = await h.brock(state, ['--no-seed', 'set', domain, action]);
    assert.equal(r.code, 0, r.stderr);
  }
  // One process: each worker keeps its own log.
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--workers', '1', '--allow', '127.0.0.1/32',
    '--resolve', `silent.test=127.0.0.1:${silent.address().port}`,
    '--resolve', `gone.test=127.0.0.1:${gone}`,
    '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  let live, again;
  try {
    live = await stream(b.port);
    assert.equal(live.status, 200);
    assert.match(live.headers['content-type'], /^text\/event-stream/);
    assert.equal(live.headers['cache-control'], 'no-store');
    const page = ['-H', 'Referer: http://news.test/'];
    const done = [
      [['http://news.test/', ...h.NAVIGATE_ARGS], 200],
      [['http://ads.block.test/p.gif', ...page], 403],
      [['http://cdn.strip.test/a.js', ...page], 200],
      [['http://widgets.other.test/w.js', ...page], 200],
    ];
    for (const [args, status] of done) {
      const r = await h.curl(b.port, args);
      assert.equal(r.status, status, `${args[0]}: ${r.stderr}`);
    }
    // A client that gives up before any answer (a reset): its request is in the log, with
    // status 0.
    const gaveUp = net.connect({ host: '127.0.0.1', port: b.port });
    await new Promise((r) => gaveUp.once('connect', r));
    gaveUp.write('GET http://silent.test/ HTTP/1.1\r\nHost: silent.test\r\n' +
                 'Referer: http://news.test/\r\n\r\n');
    await h.waitFor('the silent origin asked', () => held.length === 1, 5000);
    gaveUp.resetAndDestroy();
    await live.until('the five events', (e) => e.length >= 5);
    const got = live.events.map((e) => e.data);
    assert.deepEqual(got.map((e) => [e.method, e.host, e.site, e.decision, e.action, e.reason,
                                      e.status, e.answered_by]), [
      ['GET', 'news.test', 'news.test', 'first_party', 'noaction', 'first_party', 200, 'server'],
      ['GET', 'ads.block.test', 'news.test', 'block', 'user_block', 'user', 403, 'brock'],
      ['GET', 'cdn.strip.test', 'news.test', 'cookieblock', 'user_cookieblock', 'user', 200,
       'server'],
      ['GET', 'widgets.other.test', 'news.test', 'allow', 'noaction', 'not_tracking', 200,
       'server'],
      ['GET', 'silent.test', 'news.test', 'allow', 'noaction', 'not_tracking', 0, 'none'],
    ]);
    // Ids count up with the events, which carry them in their data too.
    live.events.forEach((e, i) => {
      assert.equal(Number(e.id), e.data.id);
      assert.ok(i === 0 || e.data.id === live.events[i - 1].data.id + 1);
      assert.ok(Math.abs(e.data.time - Date.now()) < 60000, String(e.data.time));
    });
    // The dashboard's own requests (this stream) are not in it.
    assert.ok(!got.some((e) => e.host === '127.0.0.1'));

    // A client that comes back after the second event gets the third to fifth, then new
    // ones as they come.
    again = await stream(b.port, { 'Last-Event-ID': live.events[1].id });
    await again.until('what it missed', (e) => e.length >= 3);
    assert.deepEqual(again.events.map((e) => e.data.host), ['cdn.strip.test',
                                                            'widgets.other.test', 'silent.test']);
    assert.equal((await h.curl(b.port, ['http://ads.block.test/q.gif', ...page])).status, 403);
    await again.until('the new one', (e) => e.length >= 4);
    await live.until('the new one', (e) => e.length >= 6);
    assert.equal(again.events[3].data.host, 'ads.block.test');
    assert.equal(again.events[3].id, live.events[5].id);

    // An allowed request whose server cannot be reached: the status is brock's.
    assert.equal((await h.curl(b.port, ['http://gone.test/', ...page])).status, 502);
    await live.until('the unreachable one', (e) => e.length >= 7);
    assert.deepEqual([live.events[6].data.host, live.events[6].data.decision,
                      live.events[6].data.status, live.events[6].data.answered_by],
                     ['gone.test', 'allow', 502, 'brock']);

    // How each page was come by: a page seen opening; none named (decided as a third party
    // of any page, never a first party); the request's own host taken as its page, as for a
    // browser's request of its own (Sec-Fetch-Site: none); a Referer brock did not see open,
    // of another host, then of the request's own host (a page named, if one brock did not
    // see open: a guess, not the request taken as its own).
    assert.ok(live.events.slice(0, 6).every((e) => e.data.page === 'known'));
    for (const args of [['http://ads.block.test/none.gif'],
                        ['http://update.test/check', '-H', 'Sec-Fetch-Site: none',
                         '-H', 'Sec-Fetch-Mode: no-cors', '-H', 'Sec-Fetch-Dest: empty'],
                        ['http://widgets.other.test/g.js',
                         '-H', 'Referer: http://elsewhere.test/'],
                        ['http://unseen.test/logo.png', '-H', 'Referer: http://unseen.test/']])
      await h.curl(b.port, args);
    await live.until('the four pages', (e) => e.length >= 11);
    assert.deepEqual(live.events.slice(7).map((e) => [e.data.host, e.data.site, e.data.decision,
                                                      e.data.reason, e.data.page]), [
      ['ads.block.test', '', 'block', 'user', 'none'],
      ['update.test', 'update.test', 'first_party', 'first_party', 'self'],
      ['widgets.other.test', 'elsewhere.test', 'allow', 'not_tracking', 'guess'],
      ['unseen.test', 'unseen.test', 'first_party', 'first_party', 'guess'],
    ]);

    // An id that is no number is refused, and holds nothing open.
    const bad = await stream(b.port, { 'Last-Event-ID': 'yesterday' });
    assert.equal(bad.status, 400);
    bad.close();

    // Sixteen streams at once (these two and fourteen more); one more is refused until one
    // of them ends.
    const more = [];
    for (let i = 0; i < 14; i++) more.push(await stream(b.port));
    assert.ok(more.every((m) => m.status === 200));
    const full = await stream(b.port);
    assert.equal(full.status, 503);
    full.close();
    more.pop().close();
    await h.waitFor('room again', async () => {
      const one = await stream(b.port);
      one.close();
      return one.status === 200;
    }, 5000);
    for (const m of more) m.close();

    // A client outside --allow gets nothing of it: refused as it connects.
    const outside = await stream(b.port, {}, '127.0.0.2');
    outside.close();
    assert.equal(outside.status, 403);
    assert.equal(outside.events.length, 0);
  } finally {
    if (live) live.close();
    if (again) again.close();
    await b.stop();
    await origin.close();
    for (const s of held) s.destroy();
    await new Promise((r) => silent.close(r));
  }
});

// n GETs through brock, eight at a time on kept-alive connections.
async function many(port, originPort, n) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  let next = 0;
  const one = () => new Promise((resolve, reject) => {
    const q = http.request({ host: '127.0.0.1', port, agent, path: `http://many.test:${originPort}/`,
                             headers: { Host: `many.test:${originPort}` }, timeout: 10000 },
                           (r) => { r.resume(); r.on('end', resolve); });
    q.on('timeout', () => q.destroy(new Error('a request through brock timed out')));
    q.on('error', reject);
    q.end();
  });
  await Promise.all([...Array(8)].map(async () => { while (next++ < n) await one(); }));
  agent.destroy();
}

h.check('a client that falls behind is told what it missed, and holds nothing up', async () => {
  const state = path.join(h.tmpdir('livelog-slow'), 'state');
  const origin = await startOrigin();
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--workers', '1', '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  const N = 2000;
  let slow;
  try {
    // A client that reads nothing while all the requests go through, with a receive buffer
    // as small as the kernel allows (else the kernel's buffers alone would hold them all).
    slow = spawn('perl', ['-MSocket', '-e', `
      socket(S, PF_INET, SOCK_STREAM, 0) or die "socket: $!";
      setsockopt(S, SOL_SOCKET, SO_RCVBUF, pack('i', 1024)) or die "setsockopt: $!";
      connect(S, pack_sockaddr_in(${b.port}, inet_aton('127.0.0.1'))) or die "connect: $!";
      syswrite(S, "GET /api/log HTTP/1.1\\r\\nHost: 127.0.0.1:${b.port}\\r\\n\\r\\n");
      syswrite(STDOUT, "asked\\n");
      my $go = <STDIN>;
      while (sysread(S, my $buf, 65536)) { syswrite(STDOUT, $buf) }`],
                 { stdio: ['pipe', 'pipe', 'inherit'] });
    h.track(slow);
    let text = '';
    slow.stdout.on('data', (d) => { text += d.toString('latin1'); });
    await h.waitFor('the slow client asking', () => text.startsWith('asked'), 5000);
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    await many(b.port, origin.port, N);
    assert.ok(Date.now() - t0 < 30000);
    // Then it reads: what it gets and what it is told it missed are all N, in order.
    slow.stdin.write('go\n');
    const tally = () => {
      const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
      const skipped = [...text.matchAll(/^data: \{"skipped":(\d+)\}$/gm)]
        .reduce((n, m) => n + Number(m[1]), 0);
      return { ids, skipped };
    };
    await h.waitFor('the whole stream', () => tally().ids.at(-1) === N, 10000);
    const { ids, skipped } = tally();
    ids.forEach((id, i) => assert.ok(i === 0 || id > ids[i - 1], 'in order'));
    assert.ok(skipped > 0, `the slow client was told it missed some: ${ids.length} events, ${text.length} bytes`);
    assert.equal(ids.length + skipped, N, `${ids.length} events, ${skipped} skipped`);
    assert.match(text, /^event: skipped$/m);

    // One that comes back after event 1 is told the ring no longer has 2 to 476.
    const late = await stream(b.port, { 'Last-Event-ID': '1' });
    await late.until('the ring', (e) => e.length >= 1025);
    assert.deepEqual(late.events[0], { event: 'skipped', data: { skipped: N - 1024 - 1 } });
    assert.equal(late.events[1].data.id, N - 1024 + 1);
    assert.equal(late.events.at(-1).data.id, N);
    late.close();
  } finally {
    if (slow) slow.kill();
    await b.stop();
    await origin.close();
  }
});
