#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// EFF Do Not Track policies and Privacy Badger's configuration, end to end: a local HTTPS
// origin (certificates made here with the openssl CLI, trusted through --upstream-ca)
// serves the policy, its accepted variants, a changed text, a redirect and an endless slow
// body; trackers learned through `brock run` are checked once blocked, and the compliant
// ones pass again with their cookies. `brock dnt` says why, and `brock update` applies a
// local copy of pbconfig.json reached through --resolve www.eff.org:443=..., and ClearURLs'
// rules through rules2.clearurls.xyz, each whole or not at all.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startOrigin, startSite, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { DATA, flat, waitFor } = h;
const POLICY = fs.readFileSync(path.join(DATA, 'dnt-policy.txt'), 'utf8');

// The policy as each compliant host posts it: the text, and Privacy Badger's three variants.
const VARIANTS = {
  'tracker-ok.test': POLICY,
  'tracker-crlf.test': POLICY.replace(/\n/g, '\r\n'),
  'tracker-noeol.test': POLICY.replace(/\n$/, ''),
  'tracker-trim.test': POLICY.split('\n').map((l) => l.replace(/ +$/, '')).join('\n'),
};
const CHANGED = 'tracker-changed.test';
const REDIRECT = 'tracker-redirect.test';
const SLOW = 'tracker-slow.test';
const ALL = [...Object.keys(VARIANTS), CHANGED, REDIRECT, SLOW];

function check(name, fn, timeout = 40000) {
  h.check(name, fn, timeout);
}

const tmp = h.tmpdir('dnt-t');
// The test data itself (h.DATA may be a copy of its privacybadger/ alone, for nobody).
const TESTDATA = process.env.BROCK_TESTDATA || path.join(__dirname, '..', 'data');

// The HTTPS origin: policies by Host, the configuration for www.eff.org, every request kept.
async function startTlsOrigin(certs) {
  const state = { pbconfig: null, pbStatus: 200,
                  clearurls: fs.readFileSync(path.join(TESTDATA, 'clearurls',
                                                       'data.min.json')) };
  const site = await startSite((req, res, host) => {
    if (host === 'www.eff.org' && req.url === '/files/pbconfig.json') {
      res.writeHead(state.pbStatus, { 'Content-Type': 'application/json' });
      res.end(state.pbconfig);
      return;
    }
    if (host === 'rules2.clearurls.xyz' && req.url === '/data.minify.json') {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(state.clearurls);
      return;
    }
    if (req.url !== '/.well-known/dnt-policy.txt') {
      res.writeHead(404);
      res.end();
      return;
    }
    // A cookie with every policy: brock must never send it back.
    const cookie = { 'Set-Cookie': `policy=${sha256(host).slice(0, 20)}; Path=/` };
    if (VARIANTS[host] !== undefined) {
      res.writeHead(200, { 'Content-Type': 'text/plain', ...cookie });
      res.end(VARIANTS[host]);
    } else if (host === CHANGED) {
      res.writeHead(200, { 'Content-Type': 'text/plain', ...cookie });
      res.end(POLICY.replace('Do Not Track', 'Do Track'));
    } else if (host === REDIRECT) {
      res.writeHead(301, { Location: 'https://tracker-ok.test/.well-known/dnt-policy.txt',
                           ...cookie });
      res.end();
    } else if (host === 'tracker-heads.test') {
      // More headers than a head may hold.
      const many = {};
      for (let i = 0; i < 200; i++) many[`x-filler-${i}`] = 'y';
      res.writeHead(200, { 'Content-Type': 'text/plain', ...many });
      res.end(POLICY);
    } else if (host === SLOW) {
      // A byte every half second, without end (close() cuts it).
      res.writeHead(200, { 'Content-Type': 'text/plain', ...cookie });
      const timer = setInterval(() => res.write('.'), 500);
      res.on('close', () => clearInterval(timer));
    } else {
      res.writeHead(404);
      res.end();
    }
  }, { tls: { key: certs.key, cert: certs.cert } });
  return {
    ...site, state,
    policyFetches: (host) => site.to(host, '/.well-known/dnt-policy.txt'),
  };
}

let certs, origin, tlsOrigin, brock;

function resolveArgs() {
  return [...h.resolveTo(tlsOrigin.port, '*.test:443', 'www.eff.org:443',
                        'rules2.clearurls.xyz:443'),
          ...h.resolveTo(origin.port, '*.test', '*.costco.com')];
}

function startBrock(state) {
  return h.startBrock({ state, args: ['-v', '--no-update', '--upstream-ca', certs.ca,
                                      ...resolveArgs()] });
}

// A command run to its end (30 s at most), with the time it took.
async function run(cmd, args, timeout = 30000) {
  const t0 = Date.now();
  const r = await h.run(cmd, args, { timeout });
  return { ...r, ms: Date.now() - t0 };
}

// `brock --state STATE --data DATA ARGS...`, timed as run() is.
function brockCmd(state, args) {
  return run(h.BROCK, ['--state', state, '--data', DATA, ...args]);
}

async function curl(args) {
  const t0 = Date.now();
  const r = await h.curl(brock.port, args);
  return { status: r.status, ms: Date.now() - t0 };
}

const sent = (host, cookie) => origin.to(host).filter((r) =>
  r.headers.some(([n, v]) => n === 'cookie' && v === cookie));

before(flat(async () => {
  // A test CA and one leaf for every name the HTTPS origin answers for.
  certs = h.originCerts(tmp, [...ALL, 'tracker-none.test', 'tracker-heads.test', 'www.eff.org',
                              'rules2.clearurls.xyz']);
  origin = await startOrigin();
  tlsOrigin = await startTlsOrigin(certs);
  brock = await startBrock(path.join(tmp, 'state'));
}));

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
  if (tlsOrigin) await tlsOrigin.close();
});

check('trackers blocked after three sites have their DNT policy checked', async () => {
  for (const t of ALL) {
    for (const site of ['site-a.test', 'site-b.test', 'site-c.test']) {
      await h.navigate(brock.port, `http://${site}/`);
      const r = await curl(['-e', `http://${site}/`, '-b', `uid=${sha256(site + t).slice(0, 24)}`,
                            `http://${t}/pixel.gif`]);
      assert.equal(r.status, 200, `${t} on ${site} passes while learning`);
    }
    const r = await curl(['-e', 'http://site-d.test/', `http://${t}/pixel.gif`]);
    assert.equal(r.status, 403, `${t} is blocked on the fourth site`);
  }
  // At most one check a second: the seven start over six seconds or more.
  await waitFor('every check to start', () => ALL.every((t) => tlsOrigin.policyFetches(t).length));
  const starts = ALL.map((t) => tlsOrigin.policyFetches(t)[0].time).sort((a, b) => a - b);
  assert.ok(starts[starts.length - 1] - starts[0] >= 5500,
            `checks spread over ${starts[starts.length - 1] - starts[0]} ms`);
});

check('a compliant host resolves to dnt and passes with its cookies', async () => {
  for (const t of Object.keys(VARIANTS)) {
    await waitFor(`${t} to pass`, async () =>
      (await curl(['-e', 'http://site-e.test/', '-b', 'uid=0123456789abcdef0123', `http://${t}/x`]))
        .status === 200);
    assert.ok(sent(t, 'uid=0123456789abcdef0123').length, `${t} got its cookie`);
    const quoted = t.replace(/\./g, '\\.');
    assert.match(brock.log(), new RegExp(`dnt: ${quoted} posts the EFF DNT policy`));
  }
});

check('a slow endless policy times out without stalling other traffic', async () => {
  assert.equal(tlsOrigin.policyFetches(SLOW).length, 1);
  // While the slow body dribbles, requests through brock are answered at once.
  for (let i = 0; i < 5; i++) {
    const r = await curl([`http://site-a.test/echo?n=during-slow-${i}`]);
    assert.equal(r.status, 200);
    assert.ok(r.ms < 2000, `answered in ${r.ms} ms`);
  }
  await waitFor('the slow check to give up',
                () => /dnt: tracker-slow\.test does not comply: .*within 10 s/.test(brock.log()),
                20000);
});

check('changed, redirected and slow policies stay blocked', async () => {
  await waitFor('all outcomes', () => [CHANGED, REDIRECT].every((t) =>
    new RegExp(`dnt: ${t.replace(/\./g, '\\.')} does not comply`).test(brock.log())));
  assert.match(brock.log(),
               /tracker-changed\.test does not comply: its policy text is not an accepted/);
  assert.match(brock.log(), /tracker-redirect\.test does not comply: .*301, a redirect/);
  for (const t of [CHANGED, REDIRECT, SLOW]) {
    const r = await curl(['-e', 'http://site-e.test/', `http://${t}/x`]);
    assert.equal(r.status, 403, t);
  }
  // The redirect was not followed: the compliant host was fetched once, by its own check.
  assert.equal(tlsOrigin.policyFetches('tracker-ok.test').length, 1);
});

check('policy checks carry no cookie, referrer or client header, and store none', async () => {
  const fetches = tlsOrigin.requests.filter((r) => r.path === '/.well-known/dnt-policy.txt');
  assert.ok(fetches.length >= ALL.length);
  for (const f of fetches) {
    assert.equal(f.headers.cookie, undefined, `${f.host} got a cookie`);
    assert.equal(f.headers.referer, undefined);
    assert.equal(f.headers.dnt, undefined);
    assert.match(f.headers['user-agent'], /^brock\//);
  }
  // Checked again by hand: the policy's Set-Cookie did not come back.
  const state = path.join(tmp, 'state');
  const r = await brockCmd(state, ['dnt', '--upstream-ca', certs.ca, ...resolveArgs(),
                                   'tracker-ok.test']);
  assert.equal(r.code, 0, r.stderr);
  const again = tlsOrigin.policyFetches('tracker-ok.test');
  assert.equal(again.length, 2);
  assert.equal(again[1].headers.cookie, undefined);
});

check('no DNT or GPC from a site Privacy Badger\'s site fixes name (sitefixes.gpc)', async () => {
  const hdr = (rec, n) => rec.headers.filter(([k]) => k === n).map(([, v]) => v);
  // The site's own page, as a browser navigates to it over plain HTTP.
  let r = await curl(['-H', 'DNT: 0', '-H', 'Accept: text/html,*/*;q=0.8',
                      '-H', 'Upgrade-Insecure-Requests: 1', 'http://www.costco.com/echo?n=gpc-page']);
  assert.equal(r.status, 200);
  let rec = origin.to('www.costco.com').find((x) => x.path === '/echo?n=gpc-page');
  assert.deepEqual(hdr(rec, 'dnt'), ['0'], 'the client\'s own header is left as it was');
  assert.deepEqual(hdr(rec, 'sec-gpc'), []);
  r = await curl(['-e', 'https://www.costco.com/cart', 'http://site-b.test/echo?n=gpc-third']);
  rec = origin.to('site-b.test').find((x) => x.path === '/echo?n=gpc-third');
  assert.deepEqual(hdr(rec, 'dnt'), []);
  r = await curl(['-e', 'https://costco.com/', 'http://site-b.test/echo?n=gpc-other']);
  rec = origin.to('site-b.test').find((x) => x.path === '/echo?n=gpc-other');
  assert.deepEqual(hdr(rec, 'dnt'), ['1'], 'another host of the same site still gets them');
  assert.deepEqual(hdr(rec, 'sec-gpc'), ['1']);
});

check('brock list shows the compliant hosts as dnt', async () => {
  const state = path.join(tmp, 'state');
  // The running proxy writes within a second.
  await new Promise((r) => setTimeout(r, 1500));
  const r = await brockCmd(state, ['list', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const rows = JSON.parse(r.stdout);
  for (const t of Object.keys(VARIANTS)) {
    const row = rows.find((x) => x.domain === t);
    assert.ok(row, `${t} listed`);
    assert.equal(row.action, 'dnt');
    assert.equal(row.dnt, true);
  }
  const changed = rows.find((x) => x.domain === CHANGED);
  assert.ok(!changed || changed.action !== 'dnt');
});

check('brock dnt says compliant or why not, and exits 0 only when compliant', async () => {
  const state = path.join(tmp, 'dnt-cli');
  const dnt = (host, extra = ['--upstream-ca', certs.ca]) =>
    brockCmd(state, ['--no-seed', 'dnt', ...extra, ...resolveArgs(), host]);
  let r = await dnt('tracker-crlf.test');
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^tracker-crlf\.test: compliant/);
  r = await dnt(CHANGED);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /not compliant: .*hash not accepted/);
  r = await dnt(REDIRECT);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /not compliant: .*301, a redirect to tracker-ok\.test/);
  r = await dnt('tracker-none.test');
  assert.equal(r.code, 1);
  assert.match(r.stdout, /not compliant: .*answered 404/);
  r = await dnt('tracker-heads.test');
  assert.equal(r.code, 1);
  assert.match(r.stdout, /not compliant: .*sent a head of over 65536 bytes or 128 headers/);
  r = await dnt(SLOW);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /not compliant: .*did not answer in full within 10 s/);
  assert.ok(r.ms < 15000, `gave up after ${r.ms} ms`);
  r = await dnt('tracker-ok.test', []);
  assert.equal(r.code, 1, 'an untrusted certificate is a failure');
  assert.match(r.stdout, /not compliant: .*certificate/);
  r = await dnt('not a host');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /not a domain name/);
  // What was checked is recorded.
  r = await brockCmd(state, ['list', '--json', '--all']);
  const row = JSON.parse(r.stdout).find((x) => x.domain === 'tracker-crlf.test');
  assert.ok(row && row.dnt, 'the compliant host is recorded');
}, 60000);

check('brock update applies added and removed cookieblock domains; a bad list changes nothing',
  async () => {
    const state = path.join(tmp, 'update');
    const base = JSON.parse(fs.readFileSync(path.join(DATA, 'pbconfig.json'), 'utf8'));
    const brockIn = (args) => brockCmd(state, ['--no-seed', ...args]);
    const update = () => brockIn(['update', '--upstream-ca', certs.ca, ...resolveArgs()]);
    const effect = async (host) => {
      const r = await brockIn(['check', '--site', 'http://site.example/', `http://${host}/`]);
      assert.equal(r.code, 0, r.stderr);
      return JSON.parse(r.stdout).effect;
    };
    // A tracker blocked on three sites, its CDN subdomain blocked with it.
    const imp = path.join(tmp, 'tracker.json');
    fs.writeFileSync(imp, JSON.stringify({
      action_map: {
        'trk-up.example': { userAction: '', dnt: false, heuristicAction: 'block',
                            nextUpdateTime: 0 },
        'cdn.trk-up.example': { userAction: '', dnt: false, heuristicAction: 'block',
                                nextUpdateTime: 0 },
      },
      snitch_map: { 'trk-up.example': ['a.example', 'b.example', 'c.example'] },
    }));
    let r = await brockIn(['import', imp]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await effect('cdn.trk-up.example'), 'block');

    tlsOrigin.state.pbconfig = JSON.stringify({ ...base,
      yellowlist: [...base.yellowlist, 'cdn.trk-up.example'] });
    r = await update();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /1 added, 0 removed/);
    assert.match(r.stdout, /^Applied https:\/\/rules2\.clearurls\.xyz\/data\.minify\.json: 205 providers\.$/m);
    assert.equal(await effect('cdn.trk-up.example'), 'cookieblock');
    assert.equal(await effect('img.cdn.trk-up.example'), 'cookieblock');
    assert.equal(await effect('www.trk-up.example'), 'block');

    for (const [bad, status, why] of [
      [JSON.stringify({ ...base, yellowlist: [...base.yellowlist.slice(1), 'Not_A_Domain'] }), 200,
       /yellowlist entry .*Not_A_Domain.* is not a valid domain/],
      [JSON.stringify({ ...base, yellowlist: [] }), 200, /non-empty array/],
      ['{"yellowlist": ', 200, /not valid JSON/],
      [JSON.stringify(base), 404, /answered 404/],
    ]) {
      tlsOrigin.state.pbconfig = bad;
      tlsOrigin.state.pbStatus = status;
      r = await update();
      assert.equal(r.code, 1, `refused: ${bad.slice(0, 40)}`);
      assert.match(r.stderr, why);
      assert.match(r.stderr, /The lists stay as they were|the lists stay as they were/);
      assert.equal(await effect('cdn.trk-up.example'), 'cookieblock');
    }
    tlsOrigin.state.pbStatus = 200;

    // Without the test CA the server is not trusted, and nothing changes either.
    tlsOrigin.state.pbconfig = JSON.stringify(base);
    r = await brockIn(['update', ...resolveArgs()]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /certificate/);
    assert.equal(await effect('cdn.trk-up.example'), 'cookieblock');

    r = await update();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /0 added, 1 removed/);
    assert.equal(await effect('cdn.trk-up.example'), 'block');

    // ClearURLs' rules: kept in the state, and `brock clean` cleans by them; a file that is
    // not one changes nothing of the rules (the lists are applied all the same).
    const clean = async () => (await brockIn(['clean', 'https://own.example/?ownid=1&utm_source=2']))
      .stdout.trim();
    assert.equal(await clean(), 'https://own.example/?ownid=1');
    tlsOrigin.state.clearurls = JSON.stringify({ providers: { own: {
      urlPattern: '^https?://own\\.example', rules: ['ownid'] } } });
    r = await update();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /data\.minify\.json: 1 providers\./);
    assert.equal(await clean(), 'https://own.example/?utm_source=2');
    for (const bad of ['{"providers": ', '{"providers": {"x": {"urlPattern": "("}}}']) {
      tlsOrigin.state.clearurls = bad;
      r = await update();
      assert.equal(r.code, 1, bad);
      assert.match(r.stderr, /clearurls.*The rules stay as they were/s);
      assert.match(r.stdout, /0 added, 0 removed/);
      assert.equal(await clean(), 'https://own.example/?utm_source=2');
    }
  }, 60000);
