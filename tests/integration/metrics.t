#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// /metrics, read by a Prometheus text-format parser after known requests through brock:
// requests by decision, blocked per tracker, connections, an upstream that refuses, the
// evidence learned, the store's sync times and the state's domains count what was done;
// every family is named brock_* with its help and type.
'use strict';

const assert = require('node:assert/strict');
const http = require('node:http');
const path = require('node:path');
const h = require('./harness.js');
const parse = require('../browser/node_modules/parse-prometheus-text-format');
const { startOrigin } = require('./origin.js');

function get(port, target) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: target, agent: false,
                               timeout: 10000 }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers,
                                    body: Buffer.concat(parts).toString('utf8') }));
    });
    req.on('timeout', () => req.destroy(new Error(`${target} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

// The value of family name's sample whose labels include labels (a number), or undefined.
function sample(families, name, labels = {}) {
  const f = families.find((x) => x.name === name);
  if (!f) return undefined;
  const m = f.metrics.find((x) => Object.entries(labels)
    .every(([k, v]) => (x.labels || {})[k] === v));
  return m && m.value !== undefined ? Number(m.value) : undefined;
}

h.check('/metrics counts what was done, in a format Prometheus parses', async () => {
  const state = path.join(h.tmpdir('metrics'), 'state');
  const origin = await startOrigin();
  const down = await h.freePort();
  for (const [domain, action] of [['block.test', 'block'], ['strip.test', 'cookieblock']]) {
    const r = await h.brock(state, ['--no-seed', 'set', domain, action]);
    assert.equal(r.code, 0, r.stderr);
  }
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--resolve', `down.test=127.0.0.1:${down}`,
    '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  try {
    const page = ['-H', 'Referer: http://news.test/'];
    const done = [
      // Two top-level pages, and one whose server refuses: first party.
      [['http://news.test/', ...h.NAVIGATE_ARGS], 200],
      [['http://news.test/', ...h.NAVIGATE_ARGS], 200],
      [['http://down.test/', ...h.NAVIGATE_ARGS], 502],
      // Blocked on the page: four requests to two names of one tracker.
      [['http://ads.block.test/p.gif', ...page], 403],
      [['http://ads.block.test/q.gif', ...page], 403],
      [['http://ads.block.test/r.gif', ...page], 403],
      [['http://px.block.test/s.gif', ...page], 403],
      // Cookies blocked, twice; allowed, twice (one of which sets an identifying cookie:
      // evidence of tracking on news.test).
      [['http://cdn.strip.test/a.js', ...page], 200],
      [['http://cdn.strip.test/b.js', ...page], 200],
      [['http://widgets.other.test/w.js', ...page], 200],
      [['http://tracker1.test/t.js', ...page], 200],
    ];
    for (const [args, status] of done) {
      const r = await h.curl(b.port, args);
      assert.equal(r.status, status, `${args[0]}: ${r.stderr}`);
    }
    const r = await get(b.port, '/metrics');
    assert.equal(r.status, 200, r.body);
    assert.equal(r.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
    const families = parse(r.body);
    assert.ok(families.length >= 10, r.body);
    for (const f of families) {
      assert.match(f.name, /^brock_[a-z][a-z0-9_]*$/);
      assert.ok(f.help, `${f.name} has no help`);
      assert.ok(['COUNTER', 'GAUGE', 'HISTOGRAM'].includes(f.type), `${f.name}: ${f.type}`);
      if (f.type === 'COUNTER') assert.match(f.name, /_total$/);
    }
    const req = (decision) => sample(families, 'brock_requests_total', { decision });
    assert.equal(req('first_party'), 3);
    assert.equal(req('block'), 4);
    assert.equal(req('cookieblock'), 2);
    assert.equal(req('allow'), 2);
    assert.equal(req('disabled'), 0);
    assert.equal(sample(families, 'brock_blocked_by_tracker_total', { tracker: 'block.test' }),
                 4);
    assert.equal(sample(families, 'brock_blocked_trackers'), 1);
    assert.equal(sample(families, 'brock_blocked_other_total'), 0);
    assert.equal(sample(families, 'brock_upstream_errors_total', { kind: 'connect' }), 1);
    for (const kind of ['connect_timeout', 'response_timeout', 'no_response', 'cut',
                        'malformed', 'stalled', 'tls'])
      assert.equal(sample(families, 'brock_upstream_errors_total', { kind }), 0, kind);
    // Each curl a connection of its own, and this GET.
    assert.equal(sample(families, 'brock_connections_total'), done.length + 1);
    assert.ok(sample(families, 'brock_connections') >= 1);
    assert.equal(sample(families, 'brock_connections_refused_total', { reason: 'busy' }), 0);
    assert.equal(sample(families, 'brock_learning_events_total', { event: 'evidence' }), 1);
    assert.equal(sample(families, 'brock_learning_events_total', { event: 'blocked' }), 0);
    assert.equal(sample(families, 'brock_domains', { action: 'user_block' }), 1);
    assert.equal(sample(families, 'brock_domains', { action: 'user_cookieblock' }), 1);
    assert.equal(sample(families, 'brock_tls_handshakes_total',
                        { side: 'upstream', result: 'ok' }), 0);
    for (const result of ['compliant', 'not_compliant', 'failed'])
      assert.equal(sample(families, 'brock_dnt_checks_total', { result }), 0);
    // The store syncs at start and once a second: a histogram whose buckets only grow.
    const sync = families.find((f) => f.name === 'brock_store_sync_seconds');
    assert.equal(sync.type, 'HISTOGRAM');
    const { buckets, count, sum } = sync.metrics[0];
    assert.ok(Number(count) >= 1, count);
    assert.ok(Number(sum) >= 0 && Number(sum) < Number(count) * 5, sum);
    assert.equal(buckets['+Inf'], count);
    // In the order of their bounds: an object lists integer-like keys ("1", "5") first.
    const bound = (le) => (le === '+Inf' ? Infinity : Number(le));
    const values = Object.entries(buckets).sort(([a], [b]) => bound(a) - bound(b))
      .map(([, v]) => Number(v));
    values.forEach((v, i) => assert.ok(i === 0 || v >= values[i - 1],
                                       `buckets shrink: ${JSON.stringify(buckets)}`));
    // The origin saw the passed requests only: the blocked ones never left.
    assert.equal(origin.requests.filter((q) => q.host.endsWith('block.test')).length, 0);
  } finally {
    await b.stop();
    await origin.close();
  }
});

h.check('TLS handshakes are counted on both sides of an intercepted request', async () => {
  const dir = h.tmpdir('metrics-tls');
  const state = path.join(dir, 'state');
  const certs = h.originCerts(dir, ['secure.test']);
  const origin = await startOrigin({ tls: { key: certs.key, cert: certs.cert } });
  const init = await h.brock(state, ['--no-seed', 'ca', 'init']);
  assert.equal(init.code, 0, init.stderr);
  const brockCa = (await h.brock(state, ['ca', 'path'])).stdout.trim();
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--intercept', '--upstream-ca', certs.ca,
    '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  try {
    for (let i = 0; i < 2; i++) {
      // A page the browser navigates to: its own first party.
      const ok = await h.curl(b.port, ['--cacert', brockCa, ...h.NAVIGATE_ARGS,
                                       'https://secure.test/']);
      assert.equal(ok.status, 200, ok.stderr);
    }
    // A client that does not trust brock's CA ends its handshake.
    const refused = await h.curl(b.port, ['https://secure.test/']);
    assert.notEqual(refused.code, 0);
    const families = parse((await get(b.port, '/metrics')).body);
    const tls = (side, result) => sample(families, 'brock_tls_handshakes_total',
                                         { side, result });
    assert.equal(tls('client', 'ok'), 2);
    assert.equal(tls('client', 'failed'), 1);
    // Each request a new upstream connection (curl's closed, so brock's pool may hold one).
    const up = tls('upstream', 'ok');
    assert.ok(up >= 1 && up <= 2, String(up));
    assert.equal(sample(families, 'brock_tunnels_total'), 3);
    // The two requests inside TLS, decided there (a CONNECT that is intercepted is not).
    assert.equal(sample(families, 'brock_requests_total', { decision: 'first_party' }), 2);
  } finally {
    await b.stop();
    await origin.close();
  }
});

h.check('an upstream TLS handshake that fails is counted as an upstream error of kind tls',
        async () => {
  const dir = h.tmpdir('metrics-tls-fail');
  const state = path.join(dir, 'state');
  // The origin's certificate is signed by a CA brock was not told to trust.
  const certs = h.originCerts(dir, ['rogue.test'], 'untrusted');
  const origin = await startOrigin({ tls: { key: certs.key, cert: certs.cert } });
  const init = await h.brock(state, ['--no-seed', 'ca', 'init']);
  assert.equal(init.code, 0, init.stderr);
  const brockCa = (await h.brock(state, ['ca', 'path'])).stdout.trim();
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--intercept', '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  try {
    const r = await h.curl(b.port, ['--cacert', brockCa, 'https://rogue.test/']);
    assert.equal(r.status, 502, r.stderr);
    const families = parse((await get(b.port, '/metrics')).body);
    const errors = (kind) => sample(families, 'brock_upstream_errors_total', { kind });
    assert.equal(errors('tls'), 1);
    assert.equal(errors('connect'), 0);
    assert.equal(sample(families, 'brock_tls_handshakes_total',
                        { side: 'upstream', result: 'ok' }), 0);
    assert.equal(origin.requests.length, 0);
  } finally {
    await b.stop();
    await origin.close();
  }
});
