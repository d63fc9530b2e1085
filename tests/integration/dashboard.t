#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The dashboard's API driven by curl: what browsing through brock lists, user choices that
// take effect on the next proxied request, settings, export, import, reset, and the rules
// that keep other pages out (Host, token, Origin, the security headers).
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startOrigin, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { DATA, check, run } = h;

let origin, brock, token;
const tmp = h.tmpdir('dash-t');
const stateDir = path.join(tmp, 'state');

function startBrock() {
  return h.startBrock({ state: stateDir,
                        args: ['--no-update', ...h.resolveTo(origin.port, '*.test')] });
}

let n = 0;
// curl with args; returns status, headers (lower-cased names → value) and body text.
async function curl(args) {
  const hdr = path.join(tmp, `h${++n}`), body = path.join(tmp, `b${n}`);
  const r = await run('curl', ['-s', '--max-time', '15', '-D', hdr, '-o', body,
                               '-w', '%{http_code}', ...args]);
  const raw = fs.existsSync(hdr) ? fs.readFileSync(hdr, 'latin1') : '';
  const headers = {};
  for (const line of raw.split('\r\n').slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const text = fs.existsSync(body) ? fs.readFileSync(body, 'utf8') : '';
  return { status: Number(r.stdout), headers, text, code: r.code };
}

const base = () => `http://127.0.0.1:${brock.port}`;

// The dashboard's API, with the token unless told otherwise.
async function api(method, p, body, extra = []) {
  const args = ['-X', method, ...extra];
  if (method !== 'GET' && method !== 'HEAD' && !extra.includes('--no-token'))
    args.push('-H', `X-Brock-Token: ${token}`);
  if (body !== undefined) args.push('-H', 'Content-Type: application/json',
                                    '--data-binary', JSON.stringify(body));
  const r = await curl([...args.filter((a) => a !== '--no-token'), base() + p]);
  let json = null;
  try { json = JSON.parse(r.text); } catch { /* not JSON */ }
  return { ...r, json };
}

// A request through the proxy made by a page of site, opened first.
async function browse(site, url, cookie) {
  await curl(['-x', base(), ...h.NAVIGATE_ARGS, `http://${site}/`]);
  const args = ['-x', base(), '-e', `http://${site}/`];
  if (cookie) args.push('-b', cookie);
  return curl([...args, url]);
}

async function learn(tracker, sites) {
  for (const site of sites) {
    const r = await browse(site, `http://${tracker}/pixel.gif`,
                           `uid=${sha256(site + tracker).slice(0, 24)}`);
    assert.equal(r.status, 200, `${tracker} on ${site} passes while learning`);
  }
}

async function pageToken() {
  const r = await curl([base() + '/']);
  const m = /<meta name="brock-token" content="([0-9a-f]{64})">/.exec(r.text);
  assert.ok(m, 'the page holds the token');
  return m[1];
}

before(async () => {
  origin = await startOrigin();
  brock = await startBrock();
  token = await pageToken();
});

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

check('the page, its files and the security headers', async () => {
  const r = await curl([base() + '/']);
  assert.equal(r.status, 200);
  assert.match(r.headers['content-type'], /^text\/html/);
  assert.match(r.headers['content-security-policy'], /default-src 'none'/);
  assert.match(r.headers['content-security-policy'], /script-src 'self'/);
  assert.match(r.headers['content-security-policy'], /frame-ancestors 'none'/);
  assert.equal(r.headers['x-frame-options'], 'DENY');
  assert.equal(r.headers['referrer-policy'], 'no-referrer');
  assert.match(r.text, /<script src="\/app\.js" defer><\/script>/);
  const js = await curl([base() + '/app.js']);
  assert.equal(js.status, 200);
  assert.match(js.headers['content-type'], /^text\/javascript/);
  assert.match(js.text, /X-Brock-Token/);
  const css = await curl([base() + '/app.css']);
  assert.match(css.headers['content-type'], /^text\/css/);
  assert.equal(css.headers['x-frame-options'], 'DENY');
  // The icon the pages name, and the one every browser asks for whatever a page says.
  assert.match(r.text, /<link rel="icon" href="\/favicon\.svg"/);
  for (const path of ['/favicon.svg', '/favicon.ico']) {
    const icon = await curl([base() + path]);
    assert.equal(icon.status, 200, path);
    assert.equal(icon.headers['content-type'], 'image/svg+xml', path);
    assert.match(icon.text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, path);
  }
  const missing = await api('GET', '/nothing-here');
  assert.equal(missing.status, 404);
  assert.equal(missing.headers['x-frame-options'], 'DENY');
  // HEAD: the head alone (curl -I writes it where the body would go).
  const head = await curl(['-I', base() + '/api/sites']);
  assert.equal(head.status, 200);
  assert.match(head.text, /\r\n\r\n$/);
  assert.doesNotMatch(head.text, /\[/);
  assert.equal((await api('DELETE', '/api/sites')).status, 405);
});

// The head of an answer as [status, [lower-cased name, value]...], and what followed it.
function splitAnswer(text) {
  const end = text.indexOf('\r\n\r\n');
  assert.ok(end > 0, `a whole head: ${text.slice(0, 200)}`);
  const [line, ...fields] = text.slice(0, end).split('\r\n');
  const headers = fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(),
                                     f.slice(f.indexOf(':') + 1).trim()]);
  return { status: Number(line.split(' ')[1]), headers, rest: text.slice(end + 4) };
}

check('HEAD answers with the head a GET gets, and nothing after it', async () => {
  const host = `Host: 127.0.0.1:${brock.port}\r\n`;
  for (const [target, status] of [['/', 200], ['/app.css', 200], ['/api/settings', 200],
                                  ['/api/trackers/never-seen.test', 404], ['/nothing', 404],
                                  ['/api/trackers/a%2Fb.test', 400]]) {
    const get = splitAnswer((await h.raw(brock.port, `GET ${target} HTTP/1.1\r\n${host}` +
                                         'Connection: close\r\n\r\n')).text);
    // A HEAD on a kept connection, then a GET: a body after the HEAD's head would be read as
    // the start of the next answer.
    const r = await h.raw(brock.port, `HEAD ${target} HTTP/1.1\r\n${host}\r\n` +
                                      `GET /app.css HTTP/1.1\r\n${host}Connection: close\r\n\r\n`);
    const head = splitAnswer(r.text);
    assert.equal(head.status, status, target);
    assert.equal(get.status, status, target);
    assert.ok(get.rest.length > 0, `GET ${target} has a body`);
    assert.deepEqual(head.headers.find(([k]) => k === 'content-length'),
                     ['content-length', String(Buffer.byteLength(get.rest, 'latin1'))], target);
    assert.deepEqual(head.headers.filter(([k]) => k !== 'connection'),
                     get.headers.filter(([k]) => k !== 'connection'), target);
    assert.equal(head.headers.find(([k]) => k === 'connection'), undefined,
                 'the HEAD kept its connection');
    assert.match(head.rest, /^HTTP\/1\.1 200 OK\r\n/, `HEAD ${target}: nothing after the head`);
  }
});

check('a request with two Host headers, or a list of hosts, is refused', async () => {
  const own = `127.0.0.1:${brock.port}`;
  for (const hosts of [[own, 'evil.test'], ['evil.test', own], [own, own],
                       [`${own}, evil.test`], [`evil.test,${own}`]]) {
    const lines = hosts.map((x) => `Host: ${x}\r\n`).join('');
    const r = await h.raw(brock.port, `GET /api/settings HTTP/1.1\r\n${lines}\r\n`);
    const a = splitAnswer(r.text);
    assert.equal(a.status, 400, hosts.join(' | '));
    assert.match(a.rest, hosts.length > 1 ? /more than one Host header/ : /a list of hosts/);
    assert.ok(r.closed, 'and the connection is closed');
  }
  // Through the proxy alike: nothing reaches the origin.
  const before = origin.to('twohosts.test').length;
  const r = await h.raw(brock.port, 'GET http://twohosts.test/x HTTP/1.1\r\n' +
                                    'Host: twohosts.test\r\nHost: other.test\r\n\r\n');
  assert.equal(splitAnswer(r.text).status, 400);
  assert.equal(origin.to('twohosts.test').length, before);
  // One Host is fine, as before.
  const one = await h.raw(brock.port, `GET /api/settings HTTP/1.1\r\nHost: ${own}\r\n` +
                                      'Connection: close\r\n\r\n');
  assert.equal(splitAnswer(one.text).status, 200);
});

check('only brock\'s own names are answered (DNS rebinding)', async () => {
  for (const host of ['evil.test', `evil.test:${brock.port}`, '127.0.0.1', '127.0.0.1:1',
                      `127.0.0.1.evil.test:${brock.port}`]) {
    const r = await api('GET', '/api/sites', undefined, ['-H', `Host: ${host}`]);
    assert.equal(r.status, 403, `Host: ${host}`);
    assert.match(r.json.error, /own address/);
    assert.equal(r.headers['x-frame-options'], 'DENY');
  }
  for (const host of [`localhost:${brock.port}`, `LOCALHOST:${brock.port}`,
                      `[::1]:${brock.port}`, `127.0.0.1:${brock.port}`]) {
    const r = await api('GET', '/api/sites', undefined, ['-H', `Host: ${host}`]);
    assert.equal(r.status, 200, `Host: ${host}`);
  }
});

check('a change needs the page\'s token and no foreign origin', async () => {
  const put = (extra) => api('PUT', '/api/trackers/guarded.test', { action: 'block' }, extra);
  assert.equal((await put(['--no-token'])).status, 403);
  assert.match((await put(['--no-token'])).json.error, /token/);
  const wrong = await api('PUT', '/api/trackers/guarded.test', { action: 'block' },
                          ['--no-token', '-H', `X-Brock-Token: ${'0'.repeat(64)}`]);
  assert.equal(wrong.status, 403);
  const short = await api('PUT', '/api/trackers/guarded.test', { action: 'block' },
                          ['--no-token', '-H', `X-Brock-Token: ${token.slice(0, 10)}`]);
  assert.equal(short.status, 403);
  assert.equal((await put(['-H', 'Origin: http://evil.test'])).status, 403);
  assert.equal((await put(['-H', `Origin: http://evil.test:${brock.port}`])).status, 403);
  assert.equal((await put(['-H', 'Origin: null'])).status, 403);
  assert.equal((await put(['-H', 'Sec-Fetch-Site: cross-site'])).status, 403);
  // Nothing of the refused changes happened.
  assert.equal((await api('GET', '/api/trackers/guarded.test')).status, 404);
  const ok = await put(['-H', `Origin: http://127.0.0.1:${brock.port}`,
                        '-H', 'Sec-Fetch-Site: same-origin']);
  assert.equal(ok.status, 200);
  assert.equal(ok.json.action, 'user_block');
  assert.equal((await api('PUT', '/api/trackers/guarded.test', { action: 'reset' })).status, 200);
  // A plain GET needs no token, but cannot change anything either.
  assert.equal((await api('GET', '/api/settings')).status, 200);
});

check('browsing through brock fills the sites and the trackers', async () => {
  await learn('tracker1.test', ['site-a.test', 'site-b.test', 'site-c.test']);
  const blocked = await browse('site-d.test', 'http://tracker1.test/pixel.gif');
  assert.equal(blocked.status, 403);
  const sites = (await api('GET', '/api/sites')).json;
  assert.deepEqual(sites.slice(0, 4).map((s) => s.site),
                   ['site-d.test', 'site-c.test', 'site-b.test', 'site-a.test']);
  assert.deepEqual(sites.find((s) => s.site === 'site-d.test'),
                   { ...sites.find((s) => s.site === 'site-d.test'),
                     blocked: 1, cookieblocked: 0, trackers: 1 });
  // The counts are what was done on the visits: on the first three sites the tracker passed.
  assert.equal(sites.find((s) => s.site === 'site-a.test').blocked, 0);
  const a = (await api('GET', '/api/sites/site-a.test')).json;
  assert.deepEqual([a.blocked, a.trackers[0].action, a.trackers[0].seen], [0, 'block', 'noaction']);
  const site = (await api('GET', '/api/sites/site-d.test')).json;
  assert.equal(site.site, 'site-d.test');
  assert.equal(site.trackers.length, 1);
  assert.equal(site.trackers[0].domain, 'tracker1.test');
  assert.equal(site.trackers[0].action, 'block');
  assert.equal(site.trackers[0].seen, 'block');
  // A page's URL or host names its site too.
  assert.equal((await api('GET', '/api/sites/www.site-d.test')).json.site, 'site-d.test');
  assert.equal((await api('GET', '/api/sites/never.test')).status, 404);
  const t = (await api('GET', '/api/trackers/tracker1.test')).json;
  assert.equal(t.action, 'block');
  assert.deepEqual(t.sites, ['site-a.test', 'site-b.test', 'site-c.test']);
  assert.deepEqual(t.evidence.map((e) => e.kind), ['cookie', 'cookie', 'cookie']);
  assert.ok(t.first_seen > 0 && t.last_seen >= t.first_seen);
  assert.deepEqual(t.seen_on.map((s) => s.site).sort(),
                   ['site-a.test', 'site-b.test', 'site-c.test', 'site-d.test']);
  const all = (await api('GET', '/api/trackers')).json;
  assert.ok(all.length > 1000, 'the seed is listed too');
  assert.equal(all.find((x) => x.domain === 'tracker1.test').action, 'block');
});

check('the trackers and the sites a page at a time, sorted and narrowed as asked', async () => {
  const all = (await api('GET', '/api/trackers')).json;
  // Pages of 400 by name put together are the whole list by name.
  let got = [], page;
  for (let offset = 0; ; offset += 400) {
    page = (await api('GET', `/api/trackers?sort=name&offset=${offset}&limit=400`)).json;
    assert.equal(page.total, all.length);
    assert.equal(page.known, all.length);
    assert.equal(page.offset, offset);
    got = got.concat(page.trackers);
    if (page.trackers.length < 400) break;
  }
  assert.deepEqual(got.map((t) => t.domain), all.map((t) => t.domain).sort());
  assert.deepEqual(got.find((t) => t.domain === 'tracker1.test'),
                   all.find((t) => t.domain === 'tracker1.test'));
  // What matters first: what brock learned (blocked first), before the seed's.
  const recent = (await api('GET', '/api/trackers?sort=recent&limit=5')).json.trackers;
  assert.equal(recent[0].domain, 'tracker1.test');
  assert.equal(recent[0].learned, true);
  assert.ok(recent[0].last_seen > 0);
  const learned = (await api('GET', '/api/trackers?show=learned&limit=1000')).json;
  assert.ok(learned.trackers.every((t) => t.learned));
  assert.ok(learned.trackers.some((t) => t.domain === 'tracker1.test'));
  const seed = (await api('GET', '/api/trackers?show=pretrained&limit=10')).json;
  assert.ok(seed.total > 1000 && seed.trackers.every((t) => !t.learned));
  // Nothing matching, in every order: an empty page (nothing to sort is no error).
  for (const sort of ['pb', 'recent', 'name', 'sites']) {
    const none = await api('GET', `/api/trackers?sort=${sort}&q=matches-nothing&limit=10`);
    assert.equal(none.status, 200, sort);
    assert.deepEqual([none.json.total, none.json.trackers], [0, []], sort);
    assert.deepEqual((await api('GET', `/api/trackers?sort=${sort}&q=matches-nothing`)).json, []);
  }
  const q = (await api('GET', '/api/trackers?q=TRACKER1.test&limit=10')).json;
  assert.deepEqual(q.trackers.map((t) => t.domain), ['tracker1.test']);
  const blocked = (await api('GET', '/api/trackers?show=blocked&sort=sites&limit=50')).json;
  assert.ok(blocked.trackers.every((t) => t.action === 'block' || t.action === 'user_block'));
  const sites = blocked.trackers.map((t) => t.sites.length);
  assert.deepEqual(sites, [...sites].sort((a, b) => b - a), 'most sites first');
  // Bad values: refused with a sentence, nothing else answered.
  for (const bad of ['limit=0', 'limit=1001', 'limit=x', 'offset=-1', 'limit=5&offset=1e3',
                     'sort=newest', 'show=mine', 'q=a%20b', 'q=%3Cb%3E',
                     `sort=${'x'.repeat(40)}`, `show=${'x'.repeat(40)}`, `q=${'a'.repeat(300)}`,
                     'sort', 'q']) {
    const r = await api('GET', `/api/trackers?${bad}`);
    assert.equal(r.status, 400, bad);
    assert.match(r.json.error, /must be/, bad);
  }
  const sitesAll = (await api('GET', '/api/sites')).json;
  const first = (await api('GET', '/api/sites?limit=2')).json;
  const rest = (await api('GET', '/api/sites?limit=1000&offset=2')).json;
  assert.equal(first.total, sitesAll.length);
  assert.deepEqual([...first.sites, ...rest.sites], sitesAll);
  for (const bad of ['limit=0', 'limit=5000', 'offset=x'])
    assert.equal((await api('GET', `/api/sites?${bad}`)).status, 400, bad);
});

check('brock list --site lists what the dashboard\'s page of the site lists', async () => {
  // tracker1.test was blocked by the time site-d.test's page requested it: it was never seen
  // tracking there, yet the site's page shows it.
  const page = (await api('GET', '/api/sites/site-d.test')).json;
  const want = page.trackers.map((t) => t.domain);
  assert.deepEqual(want, ['tracker1.test']);
  // The page views reach the state with the proxy's next write, within a second or two.
  const listed = await h.waitFor('site-d.test\'s page views in the state', async () => {
    const r = await h.brock(stateDir, ['list', '--site', 'site-d.test', '--json', '--all']);
    assert.equal(r.code, 0, r.stderr);
    const got = JSON.parse(r.stdout);
    return got.length ? got : null;
  });
  assert.deepEqual(listed.map((t) => t.domain), want);
  assert.equal(listed[0].action, 'block');
  assert.deepEqual(listed[0].sites, ['site-a.test', 'site-b.test', 'site-c.test']);
  const text = await h.brock(stateDir, ['list', '--site', 'www.site-d.test']);
  assert.equal(text.code, 0, text.stderr);
  assert.deepEqual(text.stdout.trim().split('\n').map((l) => l.split(/ +/)),
                   [['DOMAIN', 'ACTION', 'SITES'],
                    ['tracker1.test', 'block', 'site-a.test,site-b.test,site-c.test']]);
  const none = await h.brock(stateDir, ['list', '--site', 'never.test']);
  assert.deepEqual([none.code, none.stdout], [0, 'DOMAIN  ACTION  SITES\n'],
                   'a site never seen: the header alone');
});

check('a choice made in the dashboard applies to the next proxied request', async () => {
  await learn('tracker2.test', ['site-a.test', 'site-b.test', 'site-c.test']);
  const before = origin.to('tracker2.test').length;
  assert.equal((await browse('site-e.test', 'http://tracker2.test/a')).status, 403);
  const allow = await api('PUT', '/api/trackers/tracker2.test', { action: 'allow' });
  assert.equal(allow.status, 200);
  assert.equal(allow.json.action, 'user_allow');
  assert.equal((await browse('site-e.test', 'http://tracker2.test/b')).status, 200);
  assert.equal(origin.to('tracker2.test').length, before + 1, 'it reached the origin');
  const s = (await api('GET', '/api/sites/site-e.test')).json;
  assert.equal(s.trackers[0].user, 'user_allow');
  assert.equal(s.blocked, 0);
  // Undo: back to what was learned.
  const reset = await api('PUT', '/api/trackers/tracker2.test', { action: 'reset' });
  assert.equal(reset.json.action, 'block');
  assert.equal(reset.json.user, '');
  assert.equal((await browse('site-e.test', 'http://tracker2.test/c')).status, 403);
  // Cookieblock strips the cookie; block stops a host never learned.
  await api('PUT', '/api/trackers/tracker2.test', { action: 'cookieblock' });
  const cb = await browse('site-e.test', 'http://tracker2.test/d', 'uid=abcdef0123456789');
  assert.equal(cb.status, 200);
  const last = origin.to('tracker2.test').at(-1);
  assert.equal(last.headers.filter(([k]) => k === 'cookie').length, 0);
  await api('PUT', '/api/trackers/plain.test', { action: 'block' });
  assert.equal((await browse('site-e.test', 'http://plain.test/x')).status, 403);
  await api('PUT', '/api/trackers/plain.test', { action: 'reset' });
  assert.equal((await browse('site-e.test', 'http://plain.test/x')).status, 200);
  // Privacy Badger's names for the choices are taken too: what the API reports can go back.
  const pbName = await api('PUT', '/api/trackers/tracker2.test', { action: 'user_allow' });
  assert.equal(pbName.json.action, 'user_allow');
  await api('PUT', '/api/trackers/tracker2.test', { action: 'user_cookieblock' });
  // Bad input changes nothing.
  const bad = await api('PUT', '/api/trackers/tracker2.test', { action: 'maybe' });
  assert.equal(bad.status, 400);
  assert.equal(bad.json.error,
               '\'maybe\' is not an action: use allow, cookieblock, block or reset');
  for (const body of [{}, { action: 'dnt' }, { action: 3 }, { action: 'user_block ' }])
    assert.equal((await api('PUT', '/api/trackers/tracker2.test', body)).status, 400,
                 JSON.stringify(body));
  assert.equal((await api('PUT', '/api/trackers/tracker2.test', undefined,
                          ['-H', 'Content-Type: application/json', '--data-binary', '[1'])).status,
               400);
  const weird = await api('PUT', `/api/trackers/${encodeURIComponent('<img src=x>.example')}`,
                          { action: 'block' });
  assert.equal(weird.status, 400);
  assert.equal(weird.headers['content-type'], 'application/json; charset=utf-8');
  assert.equal((await api('GET', '/api/trackers/a%2Fb.test')).status, 400);
  assert.equal((await api('GET', '/api/trackers/tracker2.test')).json.action,
               'user_cookieblock');
});

check('a choice on one site only applies there, to the next proxied request', async () => {
  await learn('tracker3.test', ['site-a.test', 'site-b.test', 'site-c.test']);
  assert.equal((await browse('site-h.test', 'http://tracker3.test/a')).status, 403);
  assert.equal((await browse('site-i.test', 'http://tracker3.test/a')).status, 403);
  const only = await api('PUT', '/api/trackers/tracker3.test',
                         { action: 'allow', site: 'www.site-h.test' });
  assert.equal(only.status, 200);
  assert.equal(only.json.action, 'block', 'everywhere else it stays blocked');
  assert.deepEqual(only.json.site_actions, { 'site-h.test': 'user_allow' });
  assert.equal((await browse('site-h.test', 'http://tracker3.test/b')).status, 200);
  assert.equal((await browse('site-i.test', 'http://tracker3.test/b')).status, 403);
  // The site's page shows the action there and that the choice is the site's.
  const h1 = (await api('GET', '/api/sites/site-h.test')).json.trackers
    .find((t) => t.domain === 'tracker3.test');
  assert.deepEqual([h1.action, h1.site_action, h1.site_user, h1.user],
                   ['block', 'user_allow', 'user_allow', '']);
  const i1 = (await api('GET', '/api/sites/site-i.test')).json.trackers
    .find((t) => t.domain === 'tracker3.test');
  assert.deepEqual([i1.site_action, i1.site_user], ['block', '']);
  // Above the choice for every site.
  await api('PUT', '/api/trackers/tracker3.test', { action: 'allow' });
  await api('PUT', '/api/trackers/tracker3.test', { action: 'block', site: 'site-i.test' });
  assert.equal((await browse('site-i.test', 'http://tracker3.test/c')).status, 403);
  assert.equal((await browse('site-j.test', 'http://tracker3.test/c')).status, 200);
  // Bad input changes nothing.
  for (const body of [{ action: 'allow', site: 3 }, { action: 'allow', site: 'com' },
                      { action: 'allow', site: 'x y' }, { action: 'maybe', site: 'site-h.test' },
                      { action: 'block', site: 'tracker3.test' }]) {
    const r = await api('PUT', '/api/trackers/tracker3.test', body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.ok(r.json.error, 'says why');
  }
  assert.deepEqual((await api('GET', '/api/trackers/tracker3.test')).json.site_actions,
                   { 'site-h.test': 'user_allow', 'site-i.test': 'user_block' });
  // Reset on the site: the choice for every site holds there again.
  await api('PUT', '/api/trackers/tracker3.test', { action: 'reset', site: 'site-i.test' });
  assert.equal((await browse('site-i.test', 'http://tracker3.test/d')).status, 200);
  await api('PUT', '/api/trackers/tracker3.test', { action: 'reset', site: 'site-h.test' });
  await api('PUT', '/api/trackers/tracker3.test', { action: 'reset' });
  assert.deepEqual((await api('GET', '/api/trackers/tracker3.test')).json.site_actions, {});
});

check('a site\'s counts stay what was done there when a choice comes later', async () => {
  assert.equal((await browse('site-g.test', 'http://later.test/a')).status, 200);
  assert.equal((await api('PUT', '/api/trackers/later.test', { action: 'block' })).status, 200);
  const counts = async () => {
    const listed = (await api('GET', '/api/sites')).json.find((x) => x.site === 'site-g.test');
    const page = (await api('GET', '/api/sites/site-g.test')).json;
    return [listed.blocked, page.blocked, page.trackers[0].action, page.trackers[0].seen];
  };
  assert.deepEqual(await counts(), [0, 0, 'user_block', 'noaction'], 'it passed on the visit');
  assert.equal((await browse('site-g.test', 'http://later.test/b')).status, 403);
  assert.deepEqual(await counts(), [1, 1, 'user_block', 'user_block'], 'blocked on the next');
  await api('PUT', '/api/trackers/later.test', { action: 'cookieblock' });
  assert.deepEqual(await counts(), [1, 1, 'user_cookieblock', 'user_block']);
  await api('PUT', '/api/trackers/later.test', { action: 'reset' });
});

check('settings and disabled sites', async () => {
  let s = (await api('GET', '/api/settings')).json;
  assert.deepEqual([s.learn, s.send_dnt, s.check_dnt, s.disabled_sites], [true, true, true, []]);
  s = (await api('PUT', '/api/settings', { send_dnt: false })).json;
  assert.equal(s.send_dnt, false);
  await browse('site-a.test', 'http://plain.test/no-dnt');
  assert.equal(origin.to('plain.test').at(-1).headers.filter(([k]) => k === 'dnt').length, 0);
  await api('PUT', '/api/settings', { send_dnt: true });
  await browse('site-a.test', 'http://plain.test/dnt');
  assert.deepEqual(origin.to('plain.test').at(-1).headers.filter(([k]) => k === 'dnt'),
                   [['dnt', '1']]);
  assert.equal((await api('PUT', '/api/settings', { send_dnt: 'yes' })).status, 400);
  assert.equal((await api('PUT', '/api/settings', { colour: true })).status, 400);

  // On a disabled site brock changes nothing: the blocked tracker passes there.
  s = (await api('PUT', '/api/disabled/site-f.test')).json;
  assert.deepEqual(s.disabled_sites, ['site-f.test']);
  assert.equal((await browse('site-f.test', 'http://tracker1.test/p')).status, 200);
  assert.equal((await api('GET', '/api/sites')).json.find((x) => x.site === 'site-f.test'),
               undefined, 'nothing is recorded on a disabled site');
  s = (await api('DELETE', '/api/disabled/site-f.test')).json;
  assert.deepEqual(s.disabled_sites, []);
  assert.equal((await browse('site-f.test', 'http://tracker1.test/p')).status, 403);
  assert.equal((await api('PUT', '/api/disabled/not%20a%20site')).status, 400);
});

check('live lists: /lists/NAME for subscribers, revalidated by ETag and Last-Modified',
      async () => {
  const r = await api('GET', '/lists/hosts');
  assert.equal(r.status, 200);
  assert.match(r.text, /^0\.0\.0\.0 tracker1\.test$/m);
  assert.match(r.headers['content-type'], /^text\/plain/);
  assert.equal(r.headers['cache-control'], 'no-cache', 'stored, but asked again each time');
  assert.equal(r.headers['content-disposition'], undefined);
  const etag = r.headers.etag, since = r.headers['last-modified'];
  assert.match(etag, /^"[0-9a-f]{32}"$/);
  assert.ok(Date.parse(since) <= Date.now() && Date.parse(since) > Date.now() - 3600e3, since);
  assert.equal((await api('GET', '/lists/hosts')).headers.etag, etag, 'the same list, the same tag');
  // A conditional request for what the subscriber holds: 304, no body.
  for (const inm of [etag, `W/${etag}`, `"x", ${etag}`, '*']) {
    const c = await api('GET', '/lists/hosts', undefined, ['-H', `If-None-Match: ${inm}`]);
    assert.equal(c.status, 304, inm);
    assert.equal(c.text, '');
    assert.equal(c.headers.etag, etag);
  }
  assert.equal((await api('GET', '/lists/hosts', undefined,
                          ['-H', 'If-None-Match: "0123"'])).status, 200);
  assert.equal((await api('GET', '/lists/hosts', undefined,
                          ['-H', `If-Modified-Since: ${since}`])).status, 304);
  for (const ims of ['Thu, 01 Jan 1970 00:00:00 GMT', 'yesterday', `${since} x`])
    assert.equal((await api('GET', '/lists/hosts', undefined,
                            ['-H', `If-Modified-Since: ${ims}`])).status, 200, ims);
  // If-None-Match decides alone when both are sent.
  assert.equal((await api('GET', '/lists/hosts', undefined,
                          ['-H', 'If-None-Match: "0123"', '-H',
                           `If-Modified-Since: ${since}`])).status, 200);
  // A change to what brock blocks is a new list, with a new tag.
  assert.equal((await api('PUT', '/api/trackers/listed.test', { action: 'block' })).status, 200);
  const changed = await api('GET', '/lists/hosts', undefined, ['-H', `If-None-Match: ${etag}`]);
  assert.equal(changed.status, 200);
  assert.match(changed.text, /^0\.0\.0\.0 listed\.test$/m);
  assert.notEqual(changed.headers.etag, etag);
  const dnr = await api('GET', '/lists/dnr');
  assert.match(dnr.headers['content-type'], /^application\/json/);
  assert.ok(Array.isArray(JSON.parse(dnr.text)));
  const none = await api('GET', '/lists/nope');
  assert.equal(none.status, 404);
  assert.match(none.json.error, /no list named 'nope'/);
  assert.equal((await api('POST', '/lists/hosts')).status, 405, 'nothing there changes state');
  // Like the rest of the dashboard, only for brock's own address (no DNS rebinding).
  const rebound = await curl(['-H', 'Host: lists.example', base() + '/lists/hosts']);
  assert.equal(rebound.status, 403);
});

check('export, import, and reset to the seed', async () => {
  const hosts = await api('GET', '/api/export?format=hosts');
  assert.equal(hosts.status, 200);
  assert.match(hosts.text, /^0\.0\.0\.0 tracker1\.test$/m);
  assert.match(hosts.headers['content-disposition'], /attachment; filename="brock-hosts\.txt"/);
  const pb = (await api('GET', '/api/export')).json;
  assert.equal(pb.action_map['tracker1.test'].heuristicAction, 'block');
  // The formats the page offers come from the status, each with the name it downloads as.
  const { exports } = (await api('GET', '/api/status')).json;
  assert.deepEqual(exports.slice(0, 3), [{ format: 'pb', file: 'brock-pb.json' },
                                        { format: 'hosts', file: 'brock-hosts.txt' },
                                        { format: 'abp', file: 'brock-abp.txt' }]);
  assert.deepEqual(exports.map((x) => x.file),
                   ['brock-pb.json', 'brock-hosts.txt', 'brock-abp.txt', 'brock-dnsmasq.conf',
                    'brock-unbound.conf', 'brock-rpz.zone', 'brock-privoxy.action',
                    'brock-ubo.txt', 'brock-adguard.txt', 'brock-dnr.json', 'brock-safari.json']);
  const dnr = await api('GET', '/api/export?format=dnr');
  assert.match(dnr.headers['content-type'], /^application\/json/);
  assert.ok(Array.isArray(JSON.parse(dnr.text)), 'a DNR ruleset is a JSON array');
  // A refused format is told the same list.
  const list = exports.map((x) => x.format).join(', ');
  for (const q of ['format=nope', 'format=' + 'x'.repeat(40), 'other=1']) {
    const r = await api('GET', `/api/export?${q}`);
    assert.equal(r.status, 400, q);
    assert.equal(r.json.error, `format must be one of ${list}`);
  }
  for (const x of exports) {
    const r = await api('GET', `/api/export?format=${x.format}`);
    assert.equal(r.status, 200);
    assert.match(r.headers['content-disposition'], new RegExp(`filename="${x.file}"`));
  }

  // The seed, uploaded whole: a large body read across many reads.
  const seed = path.join(DATA, 'seed.json');
  const imp = await curl(['-X', 'POST', '-H', `X-Brock-Token: ${token}`,
                          '--data-binary', `@${seed}`, base() + '/api/import']);
  assert.equal(imp.status, 200, imp.text);
  assert.ok(JSON.parse(imp.text).entries > 1000);
  const broken = await api('POST', '/api/import', undefined,
                           ['--data-binary', '{"action_map": 3}']);
  assert.equal(broken.status, 400);
  assert.match(broken.json.error, /uploaded file/);

  await api('PUT', '/api/trackers/kept.test', { action: 'block' });
  const reset = await api('POST', '/api/reset');
  assert.equal(reset.status, 200);
  assert.equal(reset.json.reset, true);
  const t = (await api('GET', '/api/trackers/tracker1.test')).json;
  assert.equal(t.action, 'noaction');
  assert.deepEqual(t.evidence, []);
  assert.equal((await api('GET', '/api/trackers/kept.test')).json.action, 'user_block');
  assert.equal((await browse('site-d.test', 'http://tracker1.test/again')).status, 200);
  assert.equal((await api('POST', '/api/reset', undefined, ['--no-token'])).status, 403);
});

check('page views and choices survive a restart; the token does not', async () => {
  const { code } = await brock.stop();
  assert.equal(code, 0);
  const oldToken = token;
  brock = await startBrock();
  token = await pageToken();
  assert.notEqual(token, oldToken);
  const refused = await api('PUT', '/api/trackers/kept.test', { action: 'reset' },
                            ['--no-token', '-H', `X-Brock-Token: ${oldToken}`]);
  assert.equal(refused.status, 403);
  const sites = (await api('GET', '/api/sites')).json.map((s) => s.site);
  for (const s of ['site-a.test', 'site-d.test', 'site-e.test']) assert.ok(sites.includes(s), s);
  assert.equal((await api('GET', '/api/trackers/kept.test')).json.action, 'user_block');
  // What the reset deleted stayed deleted: only the site seen since is known.
  assert.deepEqual((await api('GET', '/api/trackers/tracker1.test')).json.sites,
                   ['site-d.test']);
});
