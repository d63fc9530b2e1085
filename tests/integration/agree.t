#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// `brock run` and `brock learn` are one set of rules. Each recording under tests/data/har/ is
// learned by `brock learn` in a new state, and replayed through `brock run --intercept` in
// another: entry by entry in the order they started, each with its own headers (Referer,
// Cookie, User-Agent, Accept...) and the fetch metadata (Sec-Fetch-*) a current browser sends
// for that kind of entry where the recording has none (plain http), over plain HTTP or inside
// intercepted HTTPS as its URL says, against a local origin that answers with the entry's
// recorded status and headers, Set-Cookie included. The two states must then hold the same
// trackers, with the same actions, sites and evidence (when it was seen aside), the same
// tracking map and the same learned actions, name for name.
'use strict';

const { before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const net = require('node:net');
const path = require('node:path');
const tls = require('node:tls');
const h = require('./harness.js');
const { flat } = h;

const HARS = path.join(process.env.BROCK_TESTDATA || path.join(__dirname, '..', 'data'), 'har');
const tmp = h.tmpdir('agree-t');

function check(name, fn) {
  h.check(name, fn, 60000);
}

// ---- reading a recording as a browser made it ----

function header(e, name) {
  const p = e.request.headers.find((x) => x.name.toLowerCase() === name);
  return p ? p.value : undefined;
}

function isDocumentAnswer(e) {
  const mime = (e.response.content && e.response.content.mimeType) || '';
  const accept = header(e, 'accept');
  const redirect = e.response.status >= 300 && e.response.status < 400 && e.response.status !== 304;
  return (/^text\/html\s*(;|$)/i.test(mime) || redirect) &&
    (accept === undefined || /^\s*(text\/html|application\/xhtml\+xml)/i.test(accept));
}

// What an entry fetches, in Sec-Fetch-Dest's words: what the browser sent, else Chromium's
// _resourceType, else what its request asked for and its answer was.
function destOf(e) {
  const sent = header(e, 'sec-fetch-dest');
  if (sent) return sent.toLowerCase();
  const types = {
    document: 'document', stylesheet: 'style', script: 'script', image: 'image', font: 'font',
    media: 'video', fetch: 'empty', xhr: 'empty', ping: 'empty', beacon: 'empty',
    websocket: 'websocket',
  };
  const rt = (e._resourceType || '').toLowerCase();
  if (types[rt]) return types[rt];
  if (isDocumentAnswer(e)) return 'document';
  const accept = header(e, 'accept') || '';
  const mime = (e.response.content && e.response.content.mimeType) || '';
  if (/^\s*image\//i.test(accept) || /^image\//i.test(mime)) return 'image';
  if (/^\s*text\/css/i.test(accept)) return 'style';
  return 'empty';
}

// The entries of a HAR in the order they started, each with the fetch metadata a browser
// sends for it: a document in its page's first document's frame (Playwright's _frameref), or
// without frames one that names no Referer, is a top-level navigation; any other is a frame's.
function readHar(file) {
  const log = JSON.parse(fs.readFileSync(file, 'utf8')).log;
  const entries = log.entries.map((e, i) => ({ e, i, t: Date.parse(e.startedDateTime) }))
    .sort((a, b) => a.t - b.t || a.i - b.i).map((x) => x.e);
  const mainFrame = new Map();
  for (const e of entries) {
    if (destOf(e) === 'document' && e.pageref && !mainFrame.has(e.pageref))
      mainFrame.set(e.pageref, e._frameref);
  }
  return entries.map((e) => ({ e, meta: fetchMeta(e, mainFrame.get(e.pageref)) }));
}

// Whether two hosts share a site, as far as the names these recordings use go: the last two
// labels.
function siteOf(host) {
  return host.split('.').slice(-2).join('.');
}

function fetchSite(e) {
  const ref = header(e, 'referer');
  if (!ref) return 'none';
  const a = new URL(ref), b = new URL(e.request.url);
  if (a.origin === b.origin) return 'same-origin';
  return a.protocol === b.protocol && siteOf(a.hostname) === siteOf(b.hostname)
    ? 'same-site' : 'cross-site';
}

// A body of this type goes without a CORS preflight (Fetch's CORS-safelisted Content-Type).
const SAFELISTED = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data'];
function corsSafelisted(type) {
  return !type || SAFELISTED.includes(type.split(';')[0].trim().toLowerCase());
}

function fetchMeta(e, mainFrame) {
  if (e.request.headers.some((x) => /^sec-fetch-/i.test(x.name))) return {};
  let dest = destOf(e);
  const modes = { document: 'navigate', iframe: 'navigate', empty: 'cors', font: 'cors',
                  websocket: 'websocket' };
  if (dest === 'document') {
    const top = e._frameref && mainFrame ? e._frameref === mainFrame : !header(e, 'referer');
    if (!top) dest = 'iframe';
  }
  const meta = { 'Sec-Fetch-Site': fetchSite(e), 'Sec-Fetch-Mode': modes[dest] || 'no-cors',
                 'Sec-Fetch-Dest': dest };
  // A ping (sendBeacon(), <a ping>) goes without CORS unless its body's type needs it.
  if (/^(ping|beacon)$/i.test(e._resourceType || '') &&
      (corsSafelisted(header(e, 'content-type')) || /^text\/ping/i.test(header(e, 'content-type'))))
    meta['Sec-Fetch-Mode'] = 'no-cors';
  return meta;
}

// ---- the origin: each request answered as recorded ----

const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding',
                     'content-length', 'content-encoding', 'upgrade', 'te', 'trailer']);

// Answers each request with the recorded response to the same method and URL, in the order
// recorded (bodies were not recorded: they are empty), over http and https alike.
async function startReplayOrigin(entries, certs) {
  const queues = new Map();
  for (const { e } of entries) {
    const key = `${e.request.method} ${e.request.url}`;
    if (!queues.has(key)) queues.set(key, []);
    queues.get(key).push(e.response);
  }
  const answer = (scheme) => (req, res) => {
    const key = `${req.method} ${scheme}://${req.headers.host}${req.url}`;
    const q = queues.get(key) || [];
    const rec = q.length > 1 ? q.shift() : q[0];
    req.resume();
    if (!rec) {
      res.writeHead(404);
      res.end();
      return;
    }
    // A request the browser saw fail got no answer: none is given.
    if (!(rec.status > 0)) {
      res.destroy();
      return;
    }
    res.writeHead(rec.status, responseHeaders(rec));
    res.end();
  };
  const servers = [http.createServer(answer('http')),
                   https.createServer({ key: certs.key, cert: certs.cert }, answer('https'))];
  servers[1].on('tlsClientError', () => {});
  const ports = await Promise.all(servers.map((s) => new Promise((resolve) => {
    s.listen(0, '127.0.0.1', () => resolve(s.address().port));
  })));
  return {
    http: ports[0], https: ports[1],
    async close() {
      for (const s of servers) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

// The recorded answer's headers, but those of the hop; a recording that left its Set-Cookie
// headers out still lists the cookies, which were set all the same.
function responseHeaders(rec) {
  const headers = [];
  for (const { name, value } of rec.headers)
    if (!HOP.has(name.toLowerCase())) headers.push(name, value);
  if (!rec.headers.some((x) => /^set-cookie$/i.test(x.name))) {
    for (const c of rec.cookies || []) {
      let v = `${c.name}=${c.value}`;
      if (c.httpOnly) v += '; HttpOnly';
      headers.push('Set-Cookie', v);
    }
  }
  return headers;
}

// ---- sending each entry through brock ----

// The headers an entry's request is sent with: its own, but those of the hop, and its fetch
// metadata; a recording that left its Cookie header out still lists the cookies sent.
function requestHeaders({ e, meta }) {
  const headers = {};
  for (const { name, value } of e.request.headers) {
    const n = name.toLowerCase();
    if (HOP.has(n) || n.startsWith(':')) continue;
    headers[name] = value;
  }
  if (!Object.keys(headers).some((n) => /^cookie$/i.test(n)) && (e.request.cookies || []).length)
    headers.Cookie = e.request.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
  headers.Host = new URL(e.request.url).host;
  return { ...headers, ...meta };
}

// A CONNECT to host:443 through brock on port, then TLS inside it trusting brock's CA.
function tunnel(port, host, ca) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => { s.destroy(); reject(new Error(`${host}: no tunnel`)); },
                             10000);
    let got = '';
    const onData = (d) => {
      got += d.toString('latin1');
      if (!got.includes('\r\n\r\n')) return;
      s.removeListener('data', onData);
      if (!/^HTTP\/1\.1 200 /.test(got)) {
        clearTimeout(timer);
        s.destroy();
        reject(new Error(`${host}: CONNECT answered ${got.split('\r\n')[0]}`));
        return;
      }
      const t = tls.connect({ socket: s, servername: host, ca: [ca] }, () => {
        clearTimeout(timer);
        resolve(t);
      });
      t.on('error', (err) => { clearTimeout(timer); reject(err); });
    };
    s.on('data', onData);
    s.on('error', (err) => { clearTimeout(timer); reject(err); });
    s.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`);
  });
}

// One entry through brock on port (an https URL inside a tunnel of its own); resolves with
// the status brock answered.
async function send(port, agent, ca, entry) {
  const u = new URL(entry.e.request.url);
  const opts = { method: entry.e.request.method, headers: requestHeaders(entry),
                 timeout: 10000 };
  let t = null;
  if (u.protocol === 'https:') {
    t = await tunnel(port, u.hostname, ca);
    Object.assign(opts, { path: u.pathname + u.search, createConnection: () => t });
  } else {
    Object.assign(opts, { host: '127.0.0.1', port, agent, path: u.href });
  }
  return new Promise((resolve, reject) => {
    const req = http.request(opts, (res) => {
      res.resume();
      res.on('end', () => {
        if (t) t.destroy();
        resolve(res.statusCode);
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${u.href}: timed out`)));
    req.on('error', (err) => {
      if (t) t.destroy();
      reject(err);
    });
    req.end(entry.e.request.postData ? entry.e.request.postData.text : undefined);
  });
}

// ---- what a state learned ----

// Everything learning writes, in a form two states can be compared in: per name its action,
// sites and evidence (when aside) from `brock list --json`; the export's learned actions,
// tracking map and fingerprinting scripts.
async function learned(state) {
  const list = await h.brock(state, ['--no-seed', 'list', '--json', '--all']);
  assert.equal(list.code, 0, list.stderr);
  const out = {};
  for (const row of JSON.parse(list.stdout)) {
    out[row.domain] = {
      action: row.action, base: row.base, sites: row.sites,
      evidence: (row.evidence || []).map(({ time_ms: _, ...rest }) => rest),
    };
  }
  const exp = await h.brock(state, ['--no-seed', 'export']);
  assert.equal(exp.code, 0, exp.stderr);
  const pb = JSON.parse(exp.stdout);
  const actions = {};
  for (const [d, a] of Object.entries(pb.action_map))
    actions[d] = { heuristicAction: a.heuristicAction, userAction: a.userAction };
  return { list: out, actions, snitch_map: pb.snitch_map, tracking_map: pb.tracking_map,
           fp_scripts: pb.fp_scripts };
}

// The names whose learning differs between a and b, each with both sides, as text.
function differences(a, b) {
  const out = [];
  for (const part of Object.keys(a)) {
    const names = new Set([...Object.keys(a[part]), ...Object.keys(b[part])]);
    for (const n of [...names].sort()) {
      const x = JSON.stringify(a[part][n]), y = JSON.stringify(b[part][n]);
      if (x !== y) out.push(`${part} ${n}: learn ${x} | run ${y}`);
    }
  }
  return out;
}

// ---- the two ways ----

let certs;

// The same choices and settings in a new state, before anything is learned: each a command.
async function prepare(state, commands) {
  for (const args of commands) {
    const r = await h.brock(state, ['--no-seed', ...args]);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
}

async function learnHar(name, tag, commands) {
  const state = path.join(tmp, `learn-${tag}`);
  await prepare(state, commands);
  const r = await h.brock(state, ['--no-seed', 'learn', path.join(HARS, name)]);
  assert.equal(r.code, 0, r.stderr);
  return learned(state);
}

async function replayHar(tag, entries, commands) {
  const state = path.join(tmp, `run-${tag}`);
  const init = await h.brock(state, ['ca', 'init']);
  assert.equal(init.code, 0, init.stderr);
  await prepare(state, commands);
  const ca = fs.readFileSync(init.stdout.trim());
  const origin = await startReplayOrigin(entries, certs);
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--intercept', '--upstream-ca', certs.ca,
    '--resolve', `*:443=127.0.0.1:${origin.https}`, '--resolve', `*=127.0.0.1:${origin.http}`,
  ] });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const statuses = [];
  try {
    for (const entry of entries) statuses.push(await send(b.port, agent, ca, entry));
  } finally {
    agent.destroy();
    const r = await b.stop();
    await origin.close();
    assert.deepEqual(r, { code: 0, signal: null }, b.log().slice(-2000));
  }
  return { map: await learned(state), statuses };
}

// The entries as their browser sent them over HTTPS: every http:// address (the URL, the
// Referer, Origin and Location, the redirect) becomes https://. browsing.har was recorded
// with every origin treated as secure, so its requests carry what they would over HTTPS.
function overHttps(entries) {
  const secure = (v) => v.replace(/^http:\/\//, 'https://');
  return entries.map(({ e, meta }) => {
    const c = JSON.parse(JSON.stringify(e));
    c.request.url = secure(c.request.url);
    for (const x of [...c.request.headers, ...c.response.headers])
      if (/^(referer|origin|location)$/i.test(x.name)) x.value = secure(x.value);
    if (c.response.redirectURL) c.response.redirectURL = secure(c.response.redirectURL);
    return { e: c, meta };
  });
}

const recordings = fs.readdirSync(HARS).filter((f) => f.endsWith('.har')).sort();

// Every recording, each in a new state; browsing.har also inside intercepted HTTPS, and
// plain-browsing.har with brock disabled on a site (where Privacy Badger still learns) and a
// choice for one site only (whose denied requests never leave).
const CASES = [
  ...recordings.map((har) => ({ har, tag: har, commands: [] })),
  { har: 'browsing.har', tag: 'browsing-https', what: 'inside intercepted HTTPS', https: true,
    commands: [] },
  { har: 'plain-browsing.har', tag: 'plain-browsing-choices',
    what: 'with garden.test disabled and stats.test blocked on travel.test',
    commands: [['disable', 'garden.test'],
               ['set', 'stats.test', 'block', '--site', 'travel.test']] },
];

before(flat(async () => {
  const hosts = new Set();
  for (const f of recordings) {
    for (const { e } of readHar(path.join(HARS, f))) hosts.add(new URL(e.request.url).hostname);
  }
  certs = h.originCerts(h.tmpdir('agree-certs'), [...hosts], 'brock agree');
}));

for (const { har, tag, what, https: secure, commands } of CASES) {
  check(`${har}${what ? ` ${what}` : ''}: brock run learns what brock learn learns, ` +
        'name for name', async (t) => {
    assert.ok(certs, 'the origin has its certificate');
    const recorded = readHar(path.join(HARS, har));
    const entries = secure ? overHttps(recorded) : recorded;
    const byLearn = await learnHar(har, tag, commands);
    const run = await replayHar(tag, entries, commands);
    const diff = differences(byLearn, run.map);
    t.diagnostic(`${Object.keys(byLearn.list).length} names learned; ` +
                 `statuses ${run.statuses.join(' ')}`);
    assert.deepEqual(diff, [], diff.join('\n'));
    assert.ok(Object.keys(byLearn.list).length > 0, 'something was learned');
  });
}
