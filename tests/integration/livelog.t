#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's live request log (GET /api/log, Server-Sent Events): the requests made
// through brock arrive in order with their decisions, reasons and statuses; a client that
// reconnects with Last-Event-ID gets what it missed; a client outside --allow is refused.
'use strict';

const assert = require('node:assert/strict');
const http = require('node:http');
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
  for (const [domain, action] of [['block.test', 'block'], ['strip.test', 'cookieblock']]) {
    const r = await h.brock(state, ['--no-seed', 'set', domain, action]);
    assert.equal(r.code, 0, r.stderr);
  }
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--allow', '127.0.0.1/32', '--resolve', `*.test=127.0.0.1:${origin.port}`] });
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
    await live.until('the four events', (e) => e.length >= 4);
    const got = live.events.map((e) => e.data);
    assert.deepEqual(got.map((e) => [e.method, e.host, e.site, e.decision, e.action, e.reason,
                                      e.status]), [
      ['GET', 'news.test', 'news.test', 'first_party', 'noaction', 'first_party', 200],
      ['GET', 'ads.block.test', 'news.test', 'block', 'user_block', 'user', 403],
      ['GET', 'cdn.strip.test', 'news.test', 'cookieblock', 'user_cookieblock', 'user', 200],
      ['GET', 'widgets.other.test', 'news.test', 'allow', 'noaction', 'not_tracking', 200],
    ]);
    // Ids count up with the events, which carry them in their data too.
    live.events.forEach((e, i) => {
      assert.equal(Number(e.id), e.data.id);
      assert.ok(i === 0 || e.data.id === live.events[i - 1].data.id + 1);
      assert.ok(Math.abs(e.data.time - Date.now()) < 60000, String(e.data.time));
    });
    // The dashboard's own requests (this stream) are not in it.
    assert.ok(!got.some((e) => e.host === '127.0.0.1'));

    // A client that comes back after the second event gets the third and fourth, then new
    // ones as they come.
    again = await stream(b.port, { 'Last-Event-ID': live.events[1].id });
    await again.until('what it missed', (e) => e.length >= 2);
    assert.deepEqual(again.events.map((e) => e.data.host), ['cdn.strip.test',
                                                            'widgets.other.test']);
    assert.equal((await h.curl(b.port, ['http://ads.block.test/q.gif', ...page])).status, 403);
    await again.until('the new one', (e) => e.length >= 3);
    await live.until('the new one', (e) => e.length >= 5);
    assert.equal(again.events[2].data.host, 'ads.block.test');
    assert.equal(again.events[2].id, live.events[4].id);

    // An id that is no number is refused, and holds nothing open.
    const bad = await stream(b.port, { 'Last-Event-ID': 'yesterday' });
    assert.equal(bad.status, 400);
    bad.close();

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
  }
});
