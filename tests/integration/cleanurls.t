#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Tracking parameters taken out of the URLs `brock run` forwards, by ClearURLs' rules, driven
// by curl over plain HTTP and inside intercepted HTTPS: a page's address is answered with a
// redirect to its clean form (the address bar and history stay clean), a wrapper around
// another address is opened, and any other request goes upstream cleaned, the rest of its
// URL byte for byte. A site that sends the client back to the address with its parameters
// does not make a loop of it. Nothing changes where the user turned cleaning off (the
// setting, one site) or brock is off (a disabled site), a blocked request stays blocked, and
// a wrapper whose address would break a header is left alone. What was done is in the live
// log, /api/status, /metrics and the daily counts (`brock stats`).
'use strict';

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const path = require('node:path');
const http = require('node:http');
const h = require('./harness.js');
const { startOrigin, startSite } = require('./origin.js');

const { check } = h;
const tmp = h.tmpdir('cleanurls-t');
const PAGE = ['-H', 'Accept: text/html,application/xhtml+xml'];
const IMAGE = ['-H', 'Accept: image/avif,image/webp,*/*'];

let origin, tlsOrigin, loop, origins, brock, state;

// The sites whose links hand dest.test their visitor's identifier.
const SITES = ['a1.test', 'a2.test', 'a3.test', 'a4.test', 'a5.test'];

// A site that sends /p back to /p?utm_source=loop, and serves that (as some do).
function loopSite(req, res) {
  if (req.url === '/p') {
    res.writeHead(302, { Location: 'http://loop.test/p?utm_source=loop' });
    res.end();
    return;
  }
  res.end('page');
}

before(async () => {
  origins = h.originCerts(tmp, ['shop.test', 'dest.test', ...SITES]);
  origin = await startOrigin();
  loop = await startSite(loopSite);
  tlsOrigin = await startOrigin({ tls: { key: origins.key, cert: origins.cert } });
  state = path.join(tmp, 'state');
  const init = await h.brock(state, ['ca', 'init']);
  assert.equal(init.code, 0, init.stderr);
  brock = await h.startBrock({ state, args: [
    '-v', '--no-update', '--intercept', '--upstream-ca', origins.ca,
    '--resolve', `loop.test=127.0.0.1:${loop.port}`,
    '--resolve', `*.test:443=127.0.0.1:${tlsOrigin.port}`,
    '--resolve', `*.test=127.0.0.1:${origin.port}`] });
  brock.ca = path.join(state, 'ca', 'ca.pem');
});

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
  if (loop) await loop.close();
  if (tlsOrigin) await tlsOrigin.close();
});

// The paths origin o received for host.
function paths(o, host) {
  return o.to(host).map((r) => r.path);
}

function header(r, name) {
  const m = new RegExp(`^${name}: (.*)\\r$`, 'im').exec(r.headers);
  return m ? m[1] : null;
}

check('a page with tracking parameters is sent to its clean address', async () => {
  const url = 'http://shop.test/item?utm_source=news&id=42&fbclid=IwAR0';
  let r = await h.curl(brock.port, [...PAGE, url]);
  assert.equal(r.status, 302, r.headers);
  assert.equal(header(r, 'Location'), 'http://shop.test/item?id=42');
  assert.match(r.headers, /^Cache-Control: no-store\r$/m);
  assert.deepEqual(paths(origin, 'shop.test'), [], 'nothing went upstream');
  r = await h.curl(brock.port, [...PAGE, '-L', url]);
  assert.equal(r.status, 200);
  assert.deepEqual(paths(origin, 'shop.test'), ['/item?id=42']);
  // A page without any goes as it came.
  r = await h.curl(brock.port, [...PAGE, 'http://shop.test/plain?id=1&q=a%20b+c']);
  assert.equal(r.status, 200);
  assert.equal(paths(origin, 'shop.test').at(-1), '/plain?id=1&q=a%20b+c');
});

check('any other request goes upstream cleaned, the rest byte for byte', async () => {
  let r = await h.curl(brock.port, [...IMAGE, 'http://cdn.test/a.png?v=2&gclid=x1&Q=a%2Cb']);
  assert.equal(r.status, 200);
  assert.deepEqual(paths(origin, 'cdn.test'), ['/a.png?v=2&Q=a%2Cb']);
  r = await h.curl(brock.port, ['-X', 'POST', '-d', 'a=1', 'http://cdn.test/api?utm_medium=x']);
  assert.equal(r.status, 200);
  assert.equal(paths(origin, 'cdn.test').at(-1), '/api');
  assert.equal(origin.to('cdn.test').at(-1).bodyLength, 3);
});

// facebook.com is blocked (the seed): its wrapper is opened all the same, and never reached.
check('a wrapper is opened: the navigation goes straight to the address inside', async () => {
  const r = await h.curl(brock.port, [
    ...PAGE, 'http://l.facebook.com/l.php?u=http%3A%2F%2Fnews.test%2Fstory%3Fid%3D7&h=AT0']);
  assert.equal(r.status, 302);
  assert.equal(header(r, 'Location'), 'http://news.test/story?id=7');
  assert.deepEqual(paths(origin, 'l.facebook.com'), []);
  // One whose address would put a line break in the header is left as it came.
  const bad = await h.curl(brock.port, [
    ...PAGE, 'http://l.facebook.com/l.php?u=http%3A%2F%2Fa.test%2F%0D%0ASet-Cookie%3A%20x%3D1']);
  assert.notEqual(bad.status, 302);
  assert.doesNotMatch(bad.headers, /^Set-Cookie: x=1/im);
});

check('inside intercepted HTTPS, the same', async () => {
  const args = ['--cacert', brock.ca, '-H', 'Sec-Fetch-Mode: navigate',
                '-H', 'Sec-Fetch-Dest: document', '-H', 'Sec-Fetch-Site: none'];
  let r = await h.curl(brock.port, [...args, 'https://shop.test/cart?mc_eid=abc&n=1']);
  assert.equal(r.connect, 200);
  assert.equal(r.status, 302, r.headers);
  assert.equal(header(r, 'Location'), 'https://shop.test/cart?n=1');
  r = await h.curl(brock.port, ['--cacert', brock.ca, '-H', 'Sec-Fetch-Mode: no-cors',
                                '-H', 'Sec-Fetch-Dest: image', '-H', 'Referer: https://shop.test/',
                                'https://shop.test/i.gif?msclkid=9&w=10']);
  assert.equal(r.status, 200);
  assert.equal(paths(tlsOrigin, 'shop.test').at(-1), '/i.gif?w=10');
});

check('a site that sends the client back with its parameters does not loop', async () => {
  const r = await h.curl(brock.port, [...PAGE, '-L', '--max-redirs', '6',
                                      'http://loop.test/p?utm_source=first']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.status, 200);
  assert.equal(r.body.toString(), 'page');
  // Sent to /p; the site sent it back with other parameters, sent to /p again; back with the
  // same ones, the URL went on cleaned; back once more, it went as it came.
  assert.deepEqual(loop.to('loop.test').map((x) => x.path),
                   ['/p', '/p', '/p', '/p?utm_source=loop']);
});

check('turned off: for one site, entirely, and where brock is off', async () => {
  // Each time another URL: the same one sent to its clean form twice would go on cleaned.
  let n = 0;
  const cleaned = async () => (await h.curl(brock.port, [
    ...PAGE, `http://off.test/a?utm_campaign=x&k=${++n}`])).status === 302;
  assert.ok(await cleaned());
  let r = await h.brock(state, ['clean', '--off', 'off.test']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('cleaning off on off.test', async () => !(await cleaned()), 5000);
  assert.equal(paths(origin, 'off.test').at(-1), `/a?utm_campaign=x&k=${n}`);
  r = await h.brock(state, ['settings', 'clean_urls_off']);
  assert.match(r.stdout, /^clean_urls_off\s+off\.test$/m);
  r = await h.brock(state, ['clean', '--on', 'off.test']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('cleaning on again', cleaned, 5000);

  r = await h.brock(state, ['settings', 'clean_urls', 'off']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('cleaning off', async () => !(await cleaned()), 5000);
  r = await h.brock(state, ['settings', 'clean_urls', 'on']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('cleaning on', cleaned, 5000);

  r = await h.brock(state, ['disable', 'off.test']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('brock off on off.test', async () => !(await cleaned()), 5000);
  r = await h.brock(state, ['enable', 'off.test']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('brock on again', cleaned, 5000);

  // Bad input changes nothing.
  r = await h.brock(state, ['clean', '--off', 'com']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /'com' is a public suffix/);
  r = await h.brock(state, ['clean', '--off', 'a.test', 'http://x.test/']);
  assert.equal(r.code, 2);
  r = await h.brock(state, ['settings', 'clean_urls_off', 'x']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /brock clean --off SITE/);
});

check('a blocked request stays blocked', async () => {
  const r0 = await h.brock(state, ['set', 'blocked.test', 'block']);
  assert.equal(r0.code, 0, r0.stderr);
  await h.waitFor('blocked.test blocked', async () => (await h.curl(brock.port, [
    '-H', 'Referer: http://shop.test/', 'http://blocked.test/x.js?utm_source=x'])).status === 403,
  5000);
});

// The live log's events, read from /api/log for a moment.
function logEvents(port) {
  return new Promise((resolve, reject) => {
    const events = [];
    const req = http.get({ host: '127.0.0.1', port, path: '/api/log' }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d) => {
        for (const m of d.matchAll(/^data: (.*)$/mg)) events.push(JSON.parse(m[1]));
      });
    });
    req.on('error', reject);
    setTimeout(() => { req.destroy(); resolve(events); }, 700);
  });
}

check('what was done: the live log, /api/status, /metrics, brock stats', async () => {
  const events = await logEvents(brock.port);
  const stripped = events.find((e) => e.host === 'cdn.test' && e.cleaned === 'stripped');
  assert.ok(stripped, JSON.stringify(events.slice(-5)));
  assert.equal(stripped.removed, 'gclid');
  const redirected = events.find((e) => e.host === 'l.facebook.com' && e.cleaned === 'redirect');
  assert.ok(redirected);
  assert.equal(redirected.status, 302);
  assert.equal(redirected.answered_by, 'brock');
  assert.ok(events.some((e) => e.host === 'shop.test' && e.status === 200 && !('cleaned' in e)));

  const st = JSON.parse((await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/api/status`]))
    .stdout);
  assert.ok(st.since_start.cleaned >= 8, JSON.stringify(st.since_start));
  const metrics = (await h.run('curl', ['-s', `http://127.0.0.1:${brock.port}/metrics`])).stdout;
  assert.match(metrics, new RegExp(`^brock_urls_cleaned_total ${st.since_start.cleaned}$`, 'm'));
  const today = await h.waitFor('the counts in the state', async () => {
    const r = await h.brock(state, ['stats', '--json', '--days', '1']);
    const day = JSON.parse(r.stdout)[0];
    return day.cleaned >= 8 ? day : null;
  }, 10000);
  assert.ok(today.cleaned <= st.since_start.cleaned);
  const text = await h.brock(state, ['stats', '--days', '1']);
  assert.match(text.stdout, /cleaned/);
  const status = await h.brock(state, ['status', '--listen', `127.0.0.1:${brock.port}`]);
  assert.match(status.stdout, /^since then: .* (\d+) links cleaned;/m);
  assert.ok(Number(/(\d+) links cleaned/.exec(status.stdout)[1]) >= 8, status.stdout);
});

// Link decoration: each site sets its visitor an identifier (sid), and a link from it to
// dest.test carries the same value (xid), clicked (fetch metadata says a user's navigation).
const UIDS = Object.fromEntries(SITES.map((s, i) => [s, `${i}c9a3f28e6b1d47a05e${i}${i}7f4c2`]));

async function visit(site) {
  const set = encodeURIComponent(`sid=${UIDS[site]}; Path=/`);
  const r = await h.curl(brock.port, ['--cacert', brock.ca, '-H', 'Sec-Fetch-Mode: navigate',
                                      '-H', 'Sec-Fetch-Dest: document', '-H', 'Sec-Fetch-Site: none',
                                      '-H', 'Sec-Fetch-User: ?1',
                                      `https://${site}/?setcookie=${set}`]);
  assert.equal(r.status, 200, r.headers);
}

// Each link another (its n), as a person's links are: the same URL sent to its clean form
// twice within 10 s goes on cleaned instead (a site sending the client back).
let linkSeq = 0;
function follow(site, { param = 'xid', user = true } = {}) {
  const n = ++linkSeq;
  return h.curl(brock.port, ['--cacert', brock.ca, '-H', 'Sec-Fetch-Mode: navigate',
                             '-H', 'Sec-Fetch-Dest: document', '-H', 'Sec-Fetch-Site: cross-site',
                             ...(user ? ['-H', 'Sec-Fetch-User: ?1'] : []),
                             '-H', `Referer: https://${site}/article`,
                             `https://dest.test/land?${param}=${UIDS[site]}&k=${n}`]);
}

async function params() {
  const r = await h.brock(state, ['list', '--params', '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

check('a link carrying a site\'s identifier is learned from, and its parameter taken out',
  async () => {
    for (const site of SITES) await visit(site);
    // Not clicked: a page's script could have sent it; nothing is learned.
    let r = await follow('a5.test', { param: 'yid', user: false });
    assert.equal(r.status, 200, r.headers);
    for (const site of ['a1.test', 'a2.test']) {
      r = await follow(site);
      assert.equal(r.status, 200, 'not yet learned: the link goes as it is');
    }
    assert.deepEqual(tlsOrigin.to('dest.test').map((x) => x.path.replace(/&k=\d+$/, '')).slice(-2),
                     [`/land?xid=${UIDS['a1.test']}`, `/land?xid=${UIDS['a2.test']}`]);
    // The third site's link teaches it, and loses it at once.
    r = await follow('a3.test');
    assert.equal(r.status, 302, r.headers);
    assert.match(header(r, 'Location'), /^https:\/\/dest\.test\/land\?k=\d+$/);
    const learned = await h.waitFor('xid learned in the state', async () => {
      const p = (await params()).find((x) => x.name === 'xid');
      return p && p.learned ? p : null;
    }, 10000);
    assert.deepEqual(learned.sites, ['a1.test', 'a2.test', 'a3.test']);
    assert.equal(learned.kept, false);
    assert.ok(!(await params()).some((x) => x.name === 'yid'), 'an unclicked link teaches nothing');
    // The evidence against the receiver, with its parameter.
    const list = JSON.parse((await h.brock(state, ['list', '--json', '--all'])).stdout);
    const dest = list.find((x) => x.domain === 'dest.test');
    assert.ok(dest, JSON.stringify(list.slice(0, 3)));
    assert.deepEqual(dest.evidence.map((e) => [e.site, e.kind, e.param]),
                     [['a1.test', 'linkdecoration', 'xid'], ['a2.test', 'linkdecoration', 'xid'],
                      ['a3.test', 'linkdecoration', 'xid']]);
    const text = await h.brock(state, ['list', '--params']);
    assert.match(text.stdout, /^xid\s+learned\s+a1\.test, a2\.test, a3\.test$/m);

    // From now on a link with it is sent to its clean address.
    r = await follow('a4.test');
    assert.equal(r.status, 302);
    assert.equal(header(r, 'Location'), `https://dest.test/land?k=${linkSeq}`);
    // Only links from another site lose it: an address typed, or dest.test's own link, keeps
    // it, so that pages cannot have brock strip a name a site's own forms need.
    for (const extra of [['-H', 'Sec-Fetch-Site: none'],
                         ['-H', 'Sec-Fetch-Site: same-origin', '-H', 'Referer: https://dest.test/']]) {
      r = await h.curl(brock.port, ['--cacert', brock.ca, '-H', 'Sec-Fetch-Mode: navigate',
                                    '-H', 'Sec-Fetch-Dest: document', ...extra,
                                    `https://dest.test/own?xid=1&k=${++linkSeq}`]);
      assert.equal(r.status, 200, r.headers);
      assert.equal(tlsOrigin.to('dest.test').at(-1).path, `/own?xid=1&k=${linkSeq}`);
    }

    // Kept by the user: links keep it; forgotten: the same, until learned anew.
    r = await h.brock(state, ['clean', '--keep-param', 'xid']);
    assert.equal(r.code, 0, r.stderr);
    await h.waitFor('xid kept', async () => (await follow('a4.test')).status === 200, 5000);
    r = await h.brock(state, ['clean', '--unkeep-param', 'xid']);
    assert.equal(r.code, 0, r.stderr);
    await h.waitFor('xid taken out again', async () => (await follow('a4.test')).status === 302,
                    5000);
    r = await h.brock(state, ['forget', '--param', 'xid']);
    assert.equal(r.code, 0, r.stderr);
    await h.waitFor('xid forgotten', async () => (await follow('a4.test')).status === 200, 5000);
    r = await h.brock(state, ['forget', '--param', 'xid']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no parameter 'xid' was noted/);
    r = await h.brock(state, ['clean', '--keep-param', 'a=b']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /'a=b' is not a parameter name/);
    r = await h.brock(state, ['list', '--params', '--count']);
    assert.equal(r.code, 2);
  });
