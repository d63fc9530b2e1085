#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Trust in one command, with real browsers: from a state with no CA, `brock ca install` alone
// has Debian's Chromium and Firefox ESR trust brock. Each browser is started with nothing but
// the proxy setting and a HOME where the install ran (Firefox on a profile that existed before
// it), browses four local HTTPS sites through `brock run`, which sees inside HTTPS by default
// since its CA is in the system store, and the tracker the four sites embed is blocked on the
// fourth: its request never reaches the origin. A Firefox profile made after the install
// trusts brock through the enterprise policy, which Firefox reads, in a private mount
// namespace, at the path brock writes by default. After `brock ca uninstall` every browser
// refuses brock's certificate again. The system store and the policy file are moved into this
// test's folder (BROCK_TRUST_*), HOME is the test's own: the machine's trust is never
// touched, and the test runs certutil only to make the first profile's empty database before
// the install. Skipped, saying why, only where Chromium or Firefox ESR is not installed.
'use strict';

const { test, before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const chromium = require('./chromium.js');
const firefox = require('./firefox.js');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy } = require('./brock.js');
const { flat, check } = h;

const SITES = ['site1.test', 'site2.test', 'site3.test', 'site4.test'];
// One tracker for each browser, so that what one browser taught brock does not block the
// other's before its fourth site.
const TRACKER = { chromium: 'chromium-tracker.test', firefox: 'firefox-tracker.test' };

function executable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const missing = [[chromium.EXECUTABLE, 'chromium'], [firefox.EXECUTABLE, 'firefox-esr']]
  .filter(([file]) => !executable(file)).map(([, name]) => `${name} is not installed`);
if (missing.length) {
  test('browsers that trust brock after brock ca install', { skip: missing.join('; ') }, () => {});
  return;
}

const tmp = h.tmpdir('trust');
const home = path.join(tmp, 'home');
const state = path.join(tmp, 'state');
const systemDir = path.join(tmp, 'system');
const policy = path.join(tmp, 'etc', 'firefox', 'policies', 'policies.json');
// A profile of the user's from before the install, and one Firefox makes after it.
const profiles = path.join(home, '.mozilla', 'firefox');
const oldProfile = path.join(profiles, 'before.default-esr');
const newProfile = path.join(profiles, 'after.default-esr');
// Every brock command and brock run see these places, never the machine's.
const env = { HOME: home, BROCK_TRUST_SYSTEM_DIR: systemDir, BROCK_TRUST_UPDATE: '',
              BROCK_TRUST_FIREFOX_POLICIES: policy, SUDO_USER: '' };

// The sites: a page at /chromium or /firefox embeds that browser's tracker image (a fresh
// URL each time, never cached), which sets an identifying cookie; any other page is plain.
function startOrigin(certs) {
  return startSite((req, res, host) => {
    res.setHeader('Cache-Control', 'no-store');
    if (Object.values(TRACKER).includes(host)) {
      res.setHeader('Set-Cookie',
                    `uid=${crypto.randomBytes(16).toString('hex')}; Path=/; SameSite=None; Secure`);
      res.setHeader('Content-Type', 'image/gif');
      res.end(chromium.GIF);
      return;
    }
    const tracker = TRACKER[req.url.slice(1)];
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><title>${host}</title><h1>${host}</h1>` +
            (tracker ? `<img id="t" src="https://${tracker}/pixel.gif?on=${host}">` : ''));
  }, { tls: { key: certs.key, cert: certs.cert } });
}

let origin, brock, certs, fp;
const open = new Set();

before(flat(async () => {
  fs.mkdirSync(oldProfile, { recursive: true });
  execFileSync('certutil', ['-N', '-d', `sql:${oldProfile}`, '--empty-password']);
  certs = h.originCerts(tmp, [...SITES, ...Object.values(TRACKER)], 'brock trust test');
  origin = await startOrigin(certs);
}));

after(async () => {
  for (const b of open) await b.close();
  if (brock) await brock.stop();
  if (origin) await origin.close();
});

// Starts a browser and keeps it to be closed whatever happens.
async function started(b) {
  const browser = await b;
  open.add(browser);
  return { ...browser, async close() { open.delete(browser); await browser.close(); } };
}

const lines = (text, re) => text.split('\n').filter((l) => re.test(l));

check('brock ca install, with no CA yet, creates it and puts it in every place', async () => {
  const r = await h.brock(state, ['ca', 'install'], { env });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^created the CA: /m);
  const ca = fs.readFileSync(path.join(state, 'ca', 'ca.pem'));
  fp = crypto.createHash('sha256').update(new crypto.X509Certificate(ca).raw).digest('hex')
    .slice(0, 16);
  assert.deepEqual(lines(r.stdout, /: added \(/).map((l) => l.replace(/: added.*/, '')),
                   ['system store', 'Chromium (NSS)', 'Firefox profile',
                    'Firefox policy (new profiles)'], r.stdout);
  const copy = path.join(systemDir, `brock-${fp}.crt`);
  assert.deepEqual(fs.readFileSync(copy), ca, 'the system store holds the CA');
  const pol = JSON.parse(fs.readFileSync(policy, 'utf8'));
  assert.deepEqual(pol.policies.Certificates.Install, [copy],
                   'the policy for later profiles names the system store\'s copy');
  const s = await h.brock(state, ['ca', 'status'], { env });
  assert.equal(lines(s.stdout, /: trusted \(/).length, 4, s.stdout);
});

check('brock run sees inside HTTPS by default once its CA is in the system store', async () => {
  brock = await startProxy(state, { port: origin.port, upstreamCa: certs.ca, verbose: true, env });
  await h.waitFor('the line about HTTPS', () => /HTTPS is/.test(brock.log()), 5000);
  assert.match(brock.log(), /HTTPS is seen inside: this machine trusts brock's CA/);
});

// Browses the four sites with visit(url), which gives { title, tracker } (whether the
// tracker's image loaded), and checks that the tracker loads while brock learns and is
// blocked on the fourth site, its request never reaching the origin.
async function browseFour(name, visit) {
  const tracker = TRACKER[name];
  for (const [i, site] of SITES.entries()) {
    const v = await visit(`https://${site}/${name}`);
    assert.equal(v.title, site, `${site} loads through brock in ${name}, its certificate trusted`);
    const reached = origin.to(tracker, `/pixel.gif?on=${site}`).length;
    if (i < 3) {
      assert.equal(v.tracker, true, `the tracker's image loads on ${site} while brock learns`);
      assert.equal(reached, 1, `the tracker's request from ${site} reached the origin`);
    } else {
      assert.match(brock.log(), new RegExp(`learned: ${tracker.replace(/\./g, '\\.')} tracks`));
      assert.equal(v.tracker, false, 'the tracker\'s image is blocked on the fourth site');
      assert.equal(reached, 0, 'its request never reached the origin');
    }
  }
}

const imageLoaded = () => {
  const img = document.getElementById('t');
  return Boolean(img && img.complete && img.naturalWidth > 0);
};

check('Chromium, given only the proxy and that HOME, trusts brock: the tracker is blocked on ' +
      'the fourth site', async () => {
  const b = await started(chromium.launch(`127.0.0.1:${brock.port}`, { home }));
  try {
    await browseFour('chromium', async (url) => {
      const page = await b.context.newPage();
      try {
        await page.goto(url, { waitUntil: 'load', timeout: 15000 });
        return { title: await page.title(), tracker: await page.evaluate(imageLoaded) };
      } finally {
        await page.close();
      }
    });
  } finally {
    await b.close();
  }
}, 60000);

// The hosts of the requests brock logged in text (its log from some point on).
const asked = (text) => [...text.matchAll(/ 127\.0\.0\.1 [A-Z]+ ([^\s:]+)/g)].map((m) => m[1]);

// Firefox on profile, through brock; fn(visit) runs with visit(url) as browseFour takes it.
// Firefox must have asked brock for the test's sites alone, nothing of its own.
async function withFirefox(profile, fn, options = {}) {
  const from = brock.log().length;
  const b = await started(firefox.launch(`127.0.0.1:${brock.port}`, profile, home, options));
  let result;
  try {
    result = await fn(async (url) => {
      const page = await b.browser.newPage();
      try {
        await page.goto(url, { waitUntil: 'load', timeout: 15000 });
        return { title: await page.title(), tracker: await page.evaluate(imageLoaded) };
      } finally {
        await page.close();
      }
    });
  } finally {
    await b.close();
  }
  const others = asked(brock.log().slice(from)).filter((host) => !host.endsWith('.test'));
  assert.deepEqual(others, [], 'Firefox asked for nothing but the test\'s sites');
  return result;
}

// Nothing yet refused brock's certificate: a browser closing its unused connections as it
// quits is no refusal, so none of the sites is passed through unseen (its origin's own
// certificate, from a CA no browser trusts, would then reach the browser).
const nonePassed = () => assert.doesNotMatch(brock.log(), /passed through unseen from now on/,
                                             'brock passed none of the sites through');

check('Firefox ESR, on a profile that existed before the install, trusts brock: the tracker ' +
      'is blocked on the fourth site', async () => {
  nonePassed();
  await withFirefox(oldProfile, (visit) => browseFour('firefox', visit));
}, 60000);

// Firefox run in a mount namespace of its own where /etc shows the test's policy file at
// policyPath, brock's default, the machine's /etc left as it is: an overlay whose upper
// layer is in the test's folder. Root makes the namespace itself; another user maps itself
// to root in a user namespace first.
function firefoxSeeingPolicy(policyPath) {
  assert.match(policyPath, /^\/etc\//, 'the policy is a file under /etc');
  const upper = path.join(tmp, 'etc-upper');
  const work = path.join(tmp, 'etc-work');
  const inUpper = path.join(upper, path.relative('/etc', policyPath));
  fs.mkdirSync(path.dirname(inUpper), { recursive: true });
  fs.mkdirSync(work, { recursive: true });
  fs.copyFileSync(policy, inUpper);
  const wrapper = path.join(tmp, 'firefox-with-policy');
  const user = process.getuid() === 0 ? '' : '--user --map-root-user ';
  fs.writeFileSync(wrapper, '#!/bin/sh\n' +
    `exec unshare ${user}--mount sh -c 'mount -t overlay overlay ` +
    '-o "lowerdir=/etc,upperdir=$1,workdir=$2" /etc || exit 1; shift 2; exec "$@"\' ' +
    `sh '${upper}' '${work}' '${firefox.EXECUTABLE}' "$@"\n`, { mode: 0o755 });
  return wrapper;
}

check('a Firefox profile made after the install trusts brock through the policy, read where ' +
      'brock writes it by default', async () => {
  // brock's own default path, which only this test's copy of the policy stands at.
  const s = await h.brock(state, ['ca', 'status'],
                          { env: { ...env, BROCK_TRUST_FIREFOX_POLICIES: undefined } });
  const m = /^Firefox policy \(new profiles\): [^(]*\((\/[^)]+)\)/m.exec(s.stdout);
  assert.ok(m, s.stdout);
  const executable = firefoxSeeingPolicy(m[1]);
  assert.equal(fs.existsSync(newProfile), false);
  nonePassed();
  const v = await withFirefox(newProfile, (visit) => visit(`https://${SITES[2]}/later`),
                              { executable });
  assert.equal(v.title, SITES[2], 'the page loads through brock, its certificate trusted');
  assert.equal(origin.to(SITES[2], '/later').length, 1);
}, 60000);

check('brock ca uninstall takes the CA out of every place', async () => {
  const r = await h.brock(state, ['ca', 'uninstall'], { env });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(lines(r.stdout, /: removed \(/).length, 5, r.stdout);
  assert.ok(r.stdout.includes(`Firefox profile: removed (${newProfile})`),
            'the copy the policy put in the later profile, under Firefox\'s name, goes too');
  assert.equal(fs.existsSync(path.join(systemDir, `brock-${fp}.crt`)), false);
  assert.equal(fs.existsSync(policy), false, 'the policy file, brock\'s alone, is gone');
});

// The line brock logs when the client's TLS alert refuses its certificate for host.
const refusal = (host) => new RegExp(`TLS with ${host.replace(/\./g, '\\.')} failed: .*` +
                                     'alert (unknown ca|certificate unknown|bad certificate)');

// What a browser makes of url now: the error of its navigation ('' when the page loaded).
async function refused(visit, url) {
  try {
    await visit(url);
    return '';
  } catch (e) {
    return String(e.message);
  }
}

check('after the uninstall, Chromium refuses brock\'s certificate again', async () => {
  const b = await started(chromium.launch(`127.0.0.1:${brock.port}`, { home }));
  try {
    const page = await b.context.newPage();
    const err = await refused((u) => page.goto(u, { waitUntil: 'load', timeout: 15000 }),
                              `https://${SITES[0]}/refused`);
    assert.match(err, /ERR_CERT_AUTHORITY_INVALID/);
  } finally {
    await b.close();
  }
  assert.equal(origin.to(SITES[0], '/refused').length, 0, 'nothing reached the origin');
  assert.match(brock.log(), refusal(SITES[0]), 'brock saw Chromium refuse its certificate');
}, 60000);

for (const [i, [which, profile]] of [['that existed before the install', oldProfile],
                                     ['made after it', newProfile]].entries()) {
  check(`after the uninstall, Firefox refuses brock's certificate again on the profile ${which}`,
        async () => {
    const site = SITES[1 + i];
    const err = await withFirefox(profile, (visit) => refused(visit, `https://${site}/refused`));
    assert.match(err, /SEC_ERROR_UNKNOWN_ISSUER/, 'the page did not load');
    assert.equal(origin.to(site, '/refused').length, 0, 'nothing reached the origin');
    assert.match(brock.log(), refusal(site), 'brock saw Firefox refuse its certificate');
  }, 60000);
}
