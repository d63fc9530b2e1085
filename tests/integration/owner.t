#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock's owner: a client that is not this machine (here 127.0.0.2 and up, with --local
// 127.0.0.1) sees only the sign-in page, the proxy auto-config file, the CA and the metrics
// until it signs in with the password `brock passwd` set; then it manages brock as this
// machine does, for that address alone. Wrong passwords make their address wait longer each
// time and are logged; a session ends with its lifetime, a new password, or --sign-out-all.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const https = require('node:https');
const tls = require('node:tls');
const path = require('node:path');
const h = require('./harness.js');
const { startSite } = require('./origin.js');
const { flat } = h;

const tmp = h.tmpdir('owner-t');
const state = path.join(tmp, 'state');
const PASSWORD = 'correct horse battery staple';
let b, origin;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// A request straight to brock (b, or port) from a chosen loopback address, over HTTPS when
// ca (the CA to trust) is given; resolves with { status, headers, body }.
function ask(target, { from = '127.0.0.2', method = 'GET', cookie, body, headers = {}, port, ca }
  = {}) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? null : Buffer.from(body);
    const req = (ca ? https : http).request({
      host: '127.0.0.1', port: port || b.port, path: target, method, localAddress: from,
      agent: false, timeout: 15000, ...(ca ? { ca } : {}),
      headers: { ...(cookie ? { Cookie: cookie } : {}),
                 ...(data ? { 'Content-Type': 'application/json',
                              'Content-Length': data.length } : {}),
                 ...headers },
    }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers,
                                    body: Buffer.concat(parts).toString() }));
    });
    req.on('timeout', () => req.destroy(new Error(`${target} timed out`)));
    req.on('error', reject);
    req.end(data);
  });
}

const signin = (password, from) =>
  ask('/api/signin', { from, method: 'POST', body: JSON.stringify({ password }) });

// The session cookie an answer set, as a Cookie header gives it back.
function cookieOf(r) {
  const set = (r.headers['set-cookie'] || []).find((c) => c.startsWith('brock_owner='));
  assert.ok(set, `a session cookie: ${JSON.stringify(r.headers)}`);
  return set.split(';')[0];
}

// `brock passwd ARGS` with input on its standard input (not a terminal).
async function passwd(args, input, where = state) {
  const file = path.join(tmp, 'input');
  fs.writeFileSync(file, input);
  return h.run('sh', ['-c', `"$BROCK" --state "$STATE" passwd ${args} < "$IN"`],
               { env: { IN: file, BROCK: h.BROCK, STATE: where } });
}

before(flat(async () => {
  origin = await startSite((req, res) => res.end('hello\n'));
  b = await h.startBrock({ state, global: ['--no-seed'],
                           args: ['--no-update', '--local', '127.0.0.1',
                                  ...h.resolveTo(origin.port, 'two.test', 'three.test')] });
}));

after(async () => {
  if (b) await b.stop();
  if (origin) await origin.close();
});

// The live log's backlog as one client reads it: until want(text) holds, or 5 s.
function logOf(from, want) {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = http.get({ host: '127.0.0.1', port: b.port, path: '/api/log', localAddress: from,
                           agent: false }, (res) => {
      res.on('data', (d) => {
        text += d;
        if (want(text)) req.destroy();
      });
      res.on('close', () => resolve(text));
    });
    req.on('error', (e) => (req.destroyed ? resolve(text) : reject(e)));
    setTimeout(() => req.destroy(), 5000);
  });
}

h.check('before any password, a client of the network sees nothing of the browsing', async () => {
  // This machine browses; its visits are what another client must not read.
  let r = await ask('/api/sites', { from: '127.0.0.1' });
  assert.equal(r.status, 200, r.body);
  // The front page is the client's own; the dashboard's pages send it to the sign-in page.
  r = await ask('/', {});
  assert.equal(r.status, 200);
  assert.match(r.body, /brock on this network/);
  assert.doesNotMatch(r.body, /brock-token/);
  for (const target of ['/index.html', '/app.js', '/map.js']) {
    r = await ask(target);
    assert.equal(r.status, 303, target);
    assert.equal(r.headers.location, '/signin.html');
    assert.doesNotMatch(r.body, /brock-token/);
  }
  for (const target of ['/api/settings', '/api/export', '/api/status', '/api/trackers',
                        '/api/trackers/two.test', '/api/clients']) {
    r = await ask(target);
    assert.equal(r.status, 401, target);
    assert.deepEqual(Object.keys(JSON.parse(r.body)), ['error'], target);
  }
  // Its own sites, map and figures: none yet, whatever this machine browsed.
  r = await ask('/api/sites');
  assert.equal(r.status, 200, r.body);
  assert.deepEqual(JSON.parse(r.body), []);
  r = await ask('/api/map');
  assert.deepEqual(JSON.parse(r.body).sites, []);
  r = await ask('/api/stats?days=1');
  assert.equal(JSON.parse(r.body)[0].allowed, 0);
  // An owner's change: forbidden, whatever a client sends with it; nothing changed.
  for (const [target, method, body] of [['/api/pause', 'PUT', '{"until_resume": true}'],
                                        ['/api/disabled/two.test', 'PUT', undefined],
                                        ['/api/reset', 'POST', undefined],
                                        ['/api/trackers/two.test', 'PUT', '{"action":"block"}']]) {
    r = await ask(target, { method, body, headers: { 'X-Brock-Token': '0'.repeat(64) } });
    assert.equal(r.status, 403, target);
    assert.match(JSON.parse(r.body).error, /only brock's owner/, target);
  }
  r = await ask('/api/settings', { from: '127.0.0.1' });
  assert.equal(JSON.parse(r.body).paused, false);
  assert.deepEqual(JSON.parse(r.body).disabled_sites, []);
  // Nor another client's log.
  r = await ask('/api/log?client=127.0.0.3');
  assert.equal(r.status, 403);
  assert.deepEqual(Object.keys(JSON.parse(r.body)), ['error']);
  for (const target of ['/signin.html', '/signin.js', '/app.css', '/proxy.pac', '/wpad.dat',
                        '/metrics', '/ca']) {
    r = await ask(target);
    assert.equal(r.status, 200, `${target}: ${r.body}`);
  }
  r = await ask('/api/session');
  assert.deepEqual(JSON.parse(r.body), { owner: false, local: false, password: false,
                                         address: '127.0.0.2', name: '', tls: false,
                                         https: '' });
  r = await signin('anything');
  assert.equal(r.status, 409);
  assert.match(r.body, /brock passwd/);
});

h.check('each client reads its own requests in the live log; the owner reads them all',
        async () => {
  let r = await h.curl(b.port, ['--interface', '127.0.0.3', 'http://three.test/of-three']);
  assert.equal(r.status, 200, r.stderr);
  r = await h.curl(b.port, ['--interface', '127.0.0.2', 'http://two.test/of-two']);
  assert.equal(r.status, 200, r.stderr);
  const two = await logOf('127.0.0.2', (t) => t.includes('"two.test"'));
  assert.match(two, /"host":"two\.test"/);
  assert.match(two, /"client":"127\.0\.0\.2"/);
  assert.doesNotMatch(two, /three\.test|127\.0\.0\.3|skipped/);
  const three = await logOf('127.0.0.3', (t) => t.includes('"three.test"'));
  assert.doesNotMatch(three, /two\.test|127\.0\.0\.2/);
  const all = await logOf('127.0.0.1', (t) => t.includes('"two.test"'));
  assert.match(all, /"client":"127\.0\.0\.3"/);
  assert.match(all, /"client":"127\.0\.0\.2"/);
  // Nobody else's sites through the other routes either.
  r = await ask('/api/sites', { from: '127.0.0.3' });
  assert.equal(r.status, 200);
  assert.doesNotMatch(r.body, /two\.test/);
});

// client opens site as a page, which then loads a pixel of tracker.
async function visit(from, site, tracker) {
  let r = await h.curl(b.port, ['--interface', from, ...h.NAVIGATE_ARGS, `http://${site}/`]);
  assert.equal(r.status, 200, r.stderr);
  r = await h.curl(b.port, ['--interface', from, '-e', `http://${site}/`,
                            `http://${tracker}/px.gif`]);
  assert.equal(r.status, 200, r.stderr);
}

const json = async (target, opts) => {
  const r = await ask(target, opts);
  assert.equal(r.status, 200, `${target}: ${r.body}`);
  return JSON.parse(r.body);
};
const sitesOf = async (from, query = '') =>
  (await json(`/api/sites${query}`, { from })).map((s) => s.site).sort();

h.check('each client sees its own sites, map and figures; the owner sees each and all',
        async () => {
  await visit('127.0.0.2', 'two.test', 'three.test');
  await visit('127.0.0.3', 'three.test', 'two.test');
  await h.waitFor('both clients\' sites', async () =>
    (await sitesOf('127.0.0.2')).length === 1 && (await sitesOf('127.0.0.3')).length === 1);
  assert.deepEqual(await sitesOf('127.0.0.2'), ['two.test']);
  assert.deepEqual(await sitesOf('127.0.0.3'), ['three.test']);
  let site = await json('/api/sites/two.test', { from: '127.0.0.2' });
  assert.deepEqual(site.trackers.map((t) => t.domain), ['three.test']);
  // Another client's site is not there for it, nor its map, nor its figures.
  let r = await ask('/api/sites/three.test');
  assert.equal(r.status, 404);
  assert.deepEqual(Object.keys(JSON.parse(r.body)), ['error']);
  const map = await json('/api/map', { from: '127.0.0.2' });
  assert.deepEqual(map.sites.map((s) => s.site), ['two.test']);
  assert.deepEqual(map.trackers.map((t) => t.host || t.domain || t.id).filter(Boolean).length, 1);
  const [today] = await json('/api/stats?days=1', { from: '127.0.0.2' });
  assert.equal(today.sites, 1);
  // Asking for another client's: refused, with nothing of it in the answer.
  for (const target of ['/api/sites?client=127.0.0.3', '/api/sites/three.test?client=127.0.0.3',
                        '/api/map?client=127.0.0.3', '/api/stats?client=127.0.0.3']) {
    r = await ask(target, { from: '127.0.0.2' });
    assert.equal(r.status, 403, target);
    assert.deepEqual(Object.keys(JSON.parse(r.body)), ['error'], target);
  }
  // The owner: everyone's, or one client's.
  const all = await sitesOf('127.0.0.1');
  assert.ok(all.includes('two.test') && all.includes('three.test'), all.join());
  assert.deepEqual(await sitesOf('127.0.0.1', '?client=127.0.0.3'), ['three.test']);
  site = await json('/api/sites/three.test?client=127.0.0.3', { from: '127.0.0.1' });
  assert.deepEqual(site.trackers.map((t) => t.domain), ['two.test']);
  const clients = await json('/api/clients', { from: '127.0.0.1' });
  const by = Object.fromEntries(clients.map((c) => [c.client, c]));
  assert.equal(by['127.0.0.2'].sites, 1, JSON.stringify(clients));
  assert.equal(by['127.0.0.3'].sites, 1);
  r = await ask('/api/sites?client=two%20words', { from: '127.0.0.1' });
  assert.equal(r.status, 400);
  // brock forget --client: that client's own go, everyone's and the others' stay. The
  // running brock writes its views to the state each second: until then there is nothing.
  await h.waitFor('the client\'s views forgotten from the state', async () => {
    const f = await h.brock(state, ['forget', '--client', '127.0.0.2']);
    assert.equal(f.code, 0, f.stderr);
    return /forgot the page views and daily counts of client 127\.0\.0\.2/.test(f.stdout);
  });
  await h.waitFor('the running brock to forget it', async () =>
    (await sitesOf('127.0.0.2')).length === 0);
  const [after] = await json('/api/stats?days=1', { from: '127.0.0.2' });
  assert.equal(after.allowed, 0);
  assert.deepEqual(await sitesOf('127.0.0.3'), ['three.test']);
  assert.ok((await sitesOf('127.0.0.1')).includes('two.test'));
  const bad = await h.brock(state, ['forget', '--client', 'two words']);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /not a client/);
});

h.check('a client turns brock off for itself alone; the owner does it for one client',
        async () => {
  const page = await ask('/', { from: '127.0.0.1' });
  const token = /name="brock-token" content="([0-9a-f]+)"/.exec(page.body)[1];
  const owner = (target, method, body) => ask(target, {
    from: '127.0.0.1', method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { 'X-Brock-Token': token } });
  const mine = (from, target, method, body, headers = {}) => ask(target, {
    from, method, body: body === undefined ? undefined : JSON.stringify(body), headers });
  // The pixel of three.test on a page of two.test, from a client: its status, and whether
  // it went with DNT.
  const pixel = async (from) => {
    await h.curl(b.port, ['--interface', from, ...h.NAVIGATE_ARGS, 'http://two.test/']);
    const path = `/px-${crypto.randomBytes(4).toString('hex')}.gif`;
    const r = await h.curl(b.port, ['--interface', from, '-e', 'http://two.test/',
                                    `http://three.test${path}`]);
    const sent = origin.to('three.test', path)[0];
    return [r.status, sent ? sent.headers.dnt === '1' : null];
  };
  let r = await owner('/api/trackers/three.test', 'PUT', { action: 'block' });
  assert.equal(r.status, 200, r.body);
  try {
    assert.deepEqual(await pixel('127.0.0.2'), [403, null]);
    // Off on two.test for 127.0.0.2 alone.
    r = await mine('127.0.0.2', '/api/me/disabled/two.test', 'PUT');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(JSON.parse(r.body).disabled_sites, [{ site: 'two.test', until_ms: null }]);
    assert.deepEqual(await pixel('127.0.0.2'), [200, false]);
    assert.deepEqual(await pixel('127.0.0.3'), [403, null]);
    r = await mine('127.0.0.2', '/api/me/disabled/two.test', 'DELETE');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(await pixel('127.0.0.2'), [403, null]);
    // Paused for itself: everywhere, for an hour.
    r = await mine('127.0.0.2', '/api/me/pause', 'PUT', { for: '1h' });
    assert.equal(JSON.parse(r.body).paused, true, r.body);
    assert.deepEqual(await pixel('127.0.0.2'), [200, false]);
    assert.deepEqual(await pixel('127.0.0.3'), [403, null]);
    r = await mine('127.0.0.2', '/api/me/pause', 'DELETE');
    assert.equal(JSON.parse(r.body).paused, false, r.body);
    assert.deepEqual(await pixel('127.0.0.2'), [403, null]);
    // A page of another origin cannot, nor a client for another, nor without a body's end.
    r = await mine('127.0.0.2', '/api/me/pause', 'PUT', { for: '1h' },
                   { Origin: 'http://evil.example' });
    assert.equal(r.status, 403);
    r = await mine('127.0.0.2', '/api/me/disabled/two.test?client=127.0.0.3', 'PUT');
    assert.equal(r.status, 403);
    r = await mine('127.0.0.2', '/api/me/pause', 'PUT', {});
    assert.equal(r.status, 400);
    r = await mine('127.0.0.2', '/api/me/disabled/com', 'PUT');
    assert.equal(r.status, 400);
    assert.equal(JSON.parse((await mine('127.0.0.2', '/api/me')).body).paused, false);
    // The owner's choice for one client, which needs the owner's token.
    r = await ask('/api/me/disabled/two.test?client=127.0.0.3', { from: '127.0.0.1',
                                                                  method: 'PUT' });
    assert.equal(r.status, 403);
    r = await owner('/api/me/disabled/two.test?client=127.0.0.3', 'PUT');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(await pixel('127.0.0.3'), [200, false]);
    assert.deepEqual(await pixel('127.0.0.2'), [403, null]);
    r = await mine('127.0.0.3', '/api/me');
    assert.deepEqual(JSON.parse(r.body).disabled_sites, [{ site: 'two.test', until_ms: null }]);
    r = await owner('/api/me/disabled/two.test?client=127.0.0.3', 'DELETE');
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(await pixel('127.0.0.3'), [403, null]);
    // A widget the client always lets load on a site: its own list alone.
    r = await mine('127.0.0.2', '/api/me/widgets/two.test', 'PUT', { widget: 'YouTube' });
    assert.equal(r.status, 200, r.body);
    assert.deepEqual(JSON.parse(r.body).widget_allowlist, [{ site: 'two.test', widget: 'YouTube' }]);
    r = await mine('127.0.0.2', '/api/me/widgets/two.test', 'PUT', { widget: 'Nope' });
    assert.equal(r.status, 404);
    r = await owner('/api/settings', 'GET');
    assert.deepEqual(JSON.parse(r.body).widget_allowlist, [], 'everyone\'s list is as it was');
    r = await mine('127.0.0.3', '/api/me');
    assert.deepEqual(JSON.parse(r.body).widget_allowlist, []);
    r = await mine('127.0.0.2', '/api/me/widgets/two.test', 'DELETE', { widget: 'YouTube' });
    assert.deepEqual(JSON.parse(r.body).widget_allowlist, []);
  } finally {
    await owner('/api/trackers/three.test', 'PUT', { action: 'reset' });
  }
});

h.check('brock passwd refuses an empty password, a long one, and two that differ', async () => {
  for (const [input, why] of [['\n\n', /empty/], [`${'x'.repeat(100000)}\n${'x'.repeat(100000)}\n`,
                                                     /100000 bytes long/],
                              ['one\ntwo\n', /differ/], ['once\n', /twice/]]) {
    const r = await passwd('', input);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, why);
    assert.ok(!fs.existsSync(path.join(state, 'owner')), 'nothing written');
  }
});

let session;

h.check('the owner signs in; wrong passwords wait longer each time, and are logged', async () => {
  let r = await passwd('', `${PASSWORD}\n${PASSWORD}\n`);
  assert.equal(r.code, 0, r.stderr);
  const kept = fs.readFileSync(path.join(state, 'owner'), 'utf8');
  assert.ok(!kept.includes(PASSWORD), 'the password is not kept');
  assert.equal(fs.statSync(path.join(state, 'owner')).mode & 0o777, 0o600);
  // Three free tries, 250 ms apart (the gap between any two checks).
  for (let i = 0; i < 3; i++) {
    if (i) await sleep(300);
    r = await signin(`${PASSWORD}!`);
    assert.equal(r.status, 401, r.body);
    assert.deepEqual(JSON.parse(r.body), { error: 'wrong password' });
  }
  r = await signin(PASSWORD);
  assert.equal(r.status, 429, 'the right password waits its turn too');
  assert.equal(r.headers['retry-after'], '1');
  await sleep(1100);
  r = await signin('');
  assert.equal(r.status, 401);
  r = await signin(`${PASSWORD}!`);
  assert.equal(r.status, 429);
  assert.equal(r.headers['retry-after'], '2', 'the wait doubled');
  await h.waitFor('the log to name the address', () =>
    (b.log().match(/127\.0\.0\.2: a wrong password for the dashboard/g) || []).length === 4);
  // Another address is not held by those tries.
  await sleep(300);
  r = await signin(PASSWORD, '127.0.0.3');
  assert.equal(r.status, 200, r.body);
  const set = r.headers['set-cookie'].join('\n');
  assert.match(set, /HttpOnly/);
  assert.match(set, /SameSite=Strict/);
  assert.match(set, /Max-Age=604800/);
  assert.match(set, /Path=\//);
  session = cookieOf(r);
  await h.waitFor('the sign-in in the log', () =>
    /127\.0\.0\.3: brock's owner signed in/.test(b.log()));
});

h.check('signed in, the owner manages brock from that address alone', async () => {
  let r = await ask('/api/settings', { from: '127.0.0.3', cookie: session });
  assert.equal(r.status, 200, r.body);
  r = await ask('/', { from: '127.0.0.3', cookie: session });
  assert.equal(r.status, 200);
  const token = /name="brock-token" content="([0-9a-f]+)"/.exec(r.body)[1];
  r = await ask('/api/pause', { from: '127.0.0.3', cookie: session, method: 'PUT',
                                body: '{"for": "10m"}', headers: { 'X-Brock-Token': token } });
  assert.equal(r.status, 200, r.body);
  r = await ask('/api/pause', { from: '127.0.0.3', cookie: session, method: 'DELETE',
                                headers: { 'X-Brock-Token': token } });
  assert.equal(r.status, 200, r.body);
  // The same cookie from another address: a stolen one.
  for (const from of ['127.0.0.2', '127.0.0.4']) {
    r = await ask('/api/settings', { from, cookie: session });
    assert.equal(r.status, 401, from);
  }
  r = await ask('/api/session', { from: '127.0.0.3', cookie: session });
  assert.equal(JSON.parse(r.body).owner, true);
});

h.check('a session past its lifetime, or forged, is refused', async () => {
  const key = /^key ([0-9a-f]{64})$/m.exec(fs.readFileSync(path.join(state, 'owner'), 'utf8'))[1];
  const now = Math.floor(Date.now() / 1000);
  const make = (end, from) => `brock_owner=${end}.` + crypto.createHmac('sha256',
    Buffer.from(key, 'hex')).update(`${end} ${from}`).digest('hex');
  // Made as brock makes them: one that has not ended passes, so the others fail for their end.
  let r = await ask('/api/settings', { from: '127.0.0.5', cookie: make(now + 600, '127.0.0.5') });
  assert.equal(r.status, 200);
  for (const end of [now - 1, now + 8 * 86400]) {
    r = await ask('/api/settings', { from: '127.0.0.5', cookie: make(end, '127.0.0.5') });
    assert.equal(r.status, 401, String(end - now));
  }
  r = await ask('/api/settings', { from: '127.0.0.5',
                                cookie: `brock_owner=${now + 600}.${'0'.repeat(64)}` });
  assert.equal(r.status, 401);
});

h.check('a password past what a sign-in takes is refused unread', async () => {
  await sleep(300);
  const r = await ask('/api/signin', { from: '127.0.0.6', method: 'POST',
                                       body: JSON.stringify({ password: 'x'.repeat(100000) }) });
  assert.equal(r.status, 413);
});

h.check('10,000 tries from one address are held back; the owner signs in elsewhere', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 32, localAddress: '127.0.0.7' });
  const statuses = {};
  const one = () => new Promise((resolve, reject) => {
    const data = '{"password":"guess"}';
    const req = http.request({ host: '127.0.0.1', port: b.port, path: '/api/signin',
                               method: 'POST', agent,
                               headers: { 'Content-Type': 'application/json',
                                          'Content-Length': data.length } }, (res) => {
      res.resume();
      res.on('end', () => { statuses[res.statusCode] = (statuses[res.statusCode] || 0) + 1;
                            resolve(); });
    });
    req.on('error', reject);
    req.end(data);
  });
  const started = Date.now();
  for (let i = 0; i < 10000; i += 100) {
    await Promise.all(Array.from({ length: 100 }, one));
  }
  agent.destroy();
  assert.equal((statuses[401] || 0) + (statuses[429] || 0), 10000, JSON.stringify(statuses));
  // Three free, then one after 1 s, 2 s, 4 s, ...: however long the tries took.
  const most = 3 + Math.ceil(Math.log2((Date.now() - started) / 1000 + 1)) + 1;
  assert.ok((statuses[401] || 0) <= most, `few were checked: ${JSON.stringify(statuses)}`);
  await sleep(300);
  const r = await signin(PASSWORD, '127.0.0.8');
  assert.equal(r.status, 200, r.body);
});

h.check('--sign-out-all and a new password end every session', async () => {
  let r = await passwd('--sign-out-all', '');
  assert.equal(r.code, 0, r.stderr);
  r = await ask('/api/settings', { from: '127.0.0.3', cookie: session });
  assert.equal(r.status, 401);
  await sleep(300);
  r = await signin(PASSWORD, '127.0.0.3');
  assert.equal(r.status, 200, r.body);
  session = cookieOf(r);
  r = await passwd('', 'another one\nanother one\n');
  assert.equal(r.code, 0, r.stderr);
  r = await ask('/api/settings', { from: '127.0.0.3', cookie: session });
  assert.equal(r.status, 401);
  await sleep(300);
  assert.equal((await signin(PASSWORD, '127.0.0.3')).status, 401);
  await sleep(300);
  assert.equal((await signin('another one', '127.0.0.3')).status, 200);
  r = await passwd('--remove', '');
  assert.equal(r.code, 0, r.stderr);
  assert.equal((await signin('another one', '127.0.0.9')).status, 409);
});

h.check('a page of another origin cannot sign in', async () => {
  const r = await ask('/api/signin', { from: '127.0.0.1', method: 'POST',
                                       body: '{"password":"x"}',
                                       headers: { Origin: 'http://evil.example' } });
  assert.equal(r.status, 403);
});

h.check('with its CA, brock serves its pages over HTTPS, and a password crosses the network only so',
        async () => {
  const where = path.join(tmp, 'state-tls');
  let r = await h.brock(where, ['ca', 'init']);
  assert.equal(r.code, 0, r.stderr);
  const ca = fs.readFileSync(path.join(where, 'ca', 'ca.pem'));
  r = await passwd('', `${PASSWORD}\n${PASSWORD}\n`, where);
  assert.equal(r.code, 0, r.stderr);
  const t = await h.startBrock({ state: where, global: ['--no-seed'],
                                 args: ['--no-update', '--intercept', '--local', '127.0.0.1'] });
  try {
    const port = t.port;
    const body = JSON.stringify({ password: PASSWORD });
    // In the clear from the network: refused, pointing at the same page over HTTPS.
    r = await ask('/api/signin', { port, method: 'POST', body });
    assert.equal(r.status, 403);
    assert.match(r.body, new RegExp(`https://127\\.0\\.0\\.1:${port}/signin\\.html`));
    r = await ask('/api/session', { port });
    assert.equal(JSON.parse(r.body).https, `https://127.0.0.1:${port}/signin.html`);
    // Over HTTPS, with a certificate of brock's CA for the address: a Secure session.
    r = await ask('/api/signin', { port, method: 'POST', body, ca });
    assert.equal(r.status, 200, r.body);
    assert.match(r.headers['set-cookie'].join(), /; Secure/);
    const cookie = cookieOf(r);
    r = await ask('/api/settings', { port, cookie, ca });
    assert.equal(r.status, 200, r.body);
    r = await ask('/api/settings', { port, ca });
    assert.equal(r.status, 401);
    r = await ask('/api/settings', { port, ca, from: '127.0.0.1' });
    assert.equal(r.status, 200, 'this machine, over HTTPS too');
    // A browser offering HTTP/2 gets HTTP/1.1 for brock's pages; the leaf names the address.
    const got = await new Promise((resolve, reject) => {
      const sock = tls.connect({ host: '127.0.0.1', port, ca, ALPNProtocols: ['h2', 'http/1.1'],
                                 localAddress: '127.0.0.2' }, () => {
        const v = { alpn: sock.alpnProtocol, san: sock.getPeerCertificate().subjectaltname };
        sock.end();
        resolve(v);
      });
      sock.on('error', reject);
    });
    assert.equal(got.alpn, 'http/1.1');
    assert.match(got.san, /IP Address:127\.0\.0\.1/);
    // Proxying is as before on the same port; no tunnel opens inside TLS to brock.
    r = await h.curl(port, [`http://127.0.0.1:${port}/metrics`]);
    assert.equal(r.status, 200);
    const caFile = path.join(where, 'ca', 'ca.pem');
    r = await h.run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_connect}', '--max-time', '10',
                             '--proxy', `https://127.0.0.1:${port}`, '--proxy-cacert', caFile,
                             'https://tunnel.test/']);
    assert.equal(r.stdout, '403');
  } finally {
    await t.stop();
  }
});

h.check('without a CA, TLS on the proxy port is closed with a log line', async () => {
  await new Promise((resolve) => {
    const sock = tls.connect({ host: '127.0.0.1', port: b.port, rejectUnauthorized: false });
    sock.on('error', () => resolve());
    sock.on('close', () => resolve());
  });
  await h.waitFor('the log line', () => /spoke TLS to brock's port/.test(b.log()));
});

h.check('the owner names clients in the file; the narrowest range wins, and the start says so',
        async () => {
  const conf = path.join(tmp, 'names.conf');
  fs.writeFileSync(conf, ['client house = 127.0.0.0/24', 'client kids = 127.0.0.2/32',
                          'client = laptop=127.0.0.3', ''].join('\n'));
  const where = path.join(tmp, 'state-names');
  const n = await h.startBrock({ state: where, global: ['--no-seed', '--config', conf],
                                 args: ['--no-update', '--local', '127.0.0.1',
                                        ...h.resolveTo(origin.port, 'two.test')] });
  try {
    // Said just after "listening on", which the start waits for.
    await h.waitFor('the overlaps in the log', () =>
      /client laptop \(127\.0\.0\.3\) lies inside client house/.test(n.log()));
    assert.match(n.log(), /client kids \(127\.0\.0\.2\/32\) lies inside client house \(127\.0\.0\.0\/24\): the narrower range wins/);
    for (const [from, name] of [['127.0.0.2', 'kids'], ['127.0.0.3', 'laptop'],
                                ['127.0.0.4', 'house']]) {
      const r = await ask('/api/session', { port: n.port, from });
      assert.equal(JSON.parse(r.body).name, name, from);
      await h.curl(n.port, ['--interface', from, 'http://two.test/named']);
    }
    // The owner sees them all, named; a client may not.
    let r = await ask('/api/clients', { port: n.port, from: '127.0.0.1' });
    assert.equal(r.status, 200, r.body);
    const seen = Object.fromEntries(JSON.parse(r.body).map((c) => [c.address, c]));
    assert.equal(seen['127.0.0.2'].name, 'kids');
    assert.equal(seen['127.0.0.4'].name, 'house');
    assert.equal(seen['127.0.0.3'].requests, 1);
    r = await ask('/api/clients', { port: n.port, from: '127.0.0.2' });
    assert.equal(r.status, 401);
  } finally {
    await n.stop();
  }
  // A name that is not one, and a range named twice: refused at start, naming them.
  for (const [line, why] of [['client bad name = 127.0.0.9', /a name holds letters/],
                             ['client twice = 127.0.0.2/32', /named already/],
                             ['client nothing = 300.0.0.1', /--client/]]) {
    fs.writeFileSync(conf, `client kids = 127.0.0.2/32\n${line}\n`);
    const r = await h.brock(where, ['--config', conf, 'run', '--no-update']);
    assert.notEqual(r.code, 0, line);
    assert.match(r.stderr, why, line);
  }
});

h.check('this machine sets the password from its dashboard; a session from the network cannot',
        async () => {
  const where = path.join(tmp, 'state-page');
  const p = await h.startBrock({ state: where, global: ['--no-seed'],
                                 args: ['--no-update', '--local', '127.0.0.1'] });
  try {
    const port = p.port;
    let r = await ask('/', { port, from: '127.0.0.1' });
    const token = /name="brock-token" content="([0-9a-f]+)"/.exec(r.body)[1];
    const put = (password, from = '127.0.0.1', cookie) => ask('/api/owner/password', {
      port, from, cookie, method: 'PUT', body: JSON.stringify({ password }),
      headers: { 'X-Brock-Token': token } });
    r = await put('');
    assert.equal(r.status, 400);
    assert.match(r.body, /empty/);
    r = await put('x'.repeat(1025));
    assert.equal(r.status, 400);
    assert.ok(!fs.existsSync(path.join(where, 'owner')), 'nothing written');
    r = await put('set on the page');
    assert.equal(r.status, 200, r.body);
    r = await ask('/api/signin', { port, method: 'POST',
                                   body: JSON.stringify({ password: 'set on the page' }) });
    assert.equal(r.status, 200, r.body);
    r = await put('taken over', '127.0.0.2', cookieOf(r));
    assert.equal(r.status, 403);
    assert.match(r.body, /machine brock runs on/);
  } finally {
    await p.stop();
  }
});
