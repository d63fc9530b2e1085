#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// CNAME uncloaking from brock's own DNS answers. A dnsmasq the test starts on a loopback port
// (brock run --dns) answers a site's first-party host metrics.shop.test with a chain two hops
// deep to a tracker's name (metrics.shop.test -> mid.trk.test -> edge.trk.test). With trk.test
// blocked, brock blocks the alias, says "via CNAME" in its log, and asks DNS nothing more than
// the dial needs (dnsmasq's own query log). A name turned off for uncloaking, or the switch
// turned off, lets the alias through. Cookies sent to aliases are no evidence against their
// target (a site's DNS could name any); a target the user blocks blocks its aliases.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startOrigin, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { flat } = h;

const tmp = h.tmpdir('uncloak-t');
const state = path.join(tmp, 'state');
let dns, origin, brock, dnsPort;

function check(name, fn) {
  h.check(name, fn, 60000);
}

// Every name answers 127.0.0.1 (where the origin is); the aliases through their chains.
const HOSTS = ['www.shop.test', 'edge.trk.test', 'www.a.test', 'www.b.test', 'www.c.test',
               'www.d.test', 'collect.cloak.test', 'plain.shop.test'];
const CNAMES = [['metrics.shop.test', 'mid.trk.test'], ['mid.trk.test', 'edge.trk.test'],
                ['static.shop.test', 'shop.cdn.test'], ['shop.cdn.test', 'edge.trk.test'],
                ...['a', 'b', 'c', 'd'].map((s) => [`metrics.${s}.test`, 'collect.cloak.test'])];

before(flat(async () => {
  dnsPort = await h.freePort();
  dns = await h.startDnsmasq(dnsPort, [
    '--local-ttl=300', ...HOSTS.map((n) => `--host-record=${n},127.0.0.1`),
    ...CNAMES.map(([alias, target]) => `--cname=${alias},${target}`)]);
  origin = await startOrigin();
  let r = await h.brock(state, ['--no-seed', 'set', 'trk.test', 'block']);
  assert.equal(r.code, 0, r.stderr);
  brock = await h.startBrock({ state, args: ['-v', '--no-update', '--dns',
                                             `127.0.0.1:${dnsPort}`] });
}));

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
  if (dns) dns.stop();
});

// dnsmasq's log comes through a pipe: once seen() holds, a query more would be in it after a
// moment.
async function settled(seen) {
  await h.waitFor('the query in dnsmasq\'s log', seen);
  await new Promise((resolve) => setTimeout(resolve, 300));
}

const site = (name) => `http://${name}:${origin.port}/`;

// A request for url made by a page of page (opened first), with cookie when given.
async function fromPage(page, url, cookie) {
  assert.equal(await h.navigate(brock.port, site(page)), 200);
  return h.curl(brock.port, ['-e', site(page), ...(cookie ? ['-b', cookie] : []), url]);
}

check('a first-party alias of a blocked tracker is blocked, via CNAME', async () => {
  const r = await fromPage('www.shop.test', `${site('metrics.shop.test')}pixel.gif`);
  assert.equal(r.status, 403, r.body.toString());
  assert.equal(origin.to('metrics.shop.test').length, 0, 'the request never left brock');
  assert.match(brock.log(),
               /block metrics\.shop\.test on www\.shop\.test: .*via CNAME edge\.trk\.test/);
  // The same answer from the cache, and the page's own host passes.
  assert.equal((await fromPage('www.shop.test', `${site('metrics.shop.test')}again`)).status, 403);
  assert.equal((await fromPage('www.shop.test', `${site('plain.shop.test')}x`)).status, 200);
  const m = (await h.curl(brock.port, [`http://127.0.0.1:${brock.port}/metrics`])).body.toString();
  assert.equal(Number(/^brock_uncloaked_total (\d+)/m.exec(m)[1]), 2);
  await settled(() => dns.queries('A', 'metrics.shop.test') >= 1);
  assert.equal(dns.queries('A', 'metrics.shop.test'), 1, dns.log());
});

check('uncloaking asks DNS nothing the dial would not', async () => {
  for (let i = 0; i < 3; i++) {
    const r = await h.curl(brock.port, ['-H', 'Connection: close', `${site('www.a.test')}n${i}`]);
    assert.equal(r.status, 200);
  }
  await settled(() => dns.queries('A', 'www.a.test') >= 1);
  assert.equal(dns.queries('A', 'www.a.test'), 1, dns.log());
});

check('turned off for a name, or everywhere, the alias passes', async () => {
  const hit = async () => (await fromPage('www.shop.test',
                                          `${site('metrics.shop.test')}p.gif`)).status;
  let r = await h.brock(state, ['uncloak', '--off', 'trk.test']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('the running brock to take it', async () => await hit() === 200);
  r = await h.brock(state, ['uncloak', '--on', 'trk.test']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('the running brock to take it back', async () => await hit() === 403);
  r = await h.brock(state, ['settings', 'uncloak', 'off']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('uncloaking off', async () => await hit() === 200);
  r = await h.brock(state, ['settings', 'uncloak', 'on']);
  assert.equal(r.code, 0, r.stderr);
  await h.waitFor('uncloaking on', async () => await hit() === 403);
});

check('a CDN turned off for uncloaking ends the chain there', async () => {
  // static.shop.test -> shop.cdn.test -> edge.trk.test: the tracker behind the CDN is judged.
  const hit = async () => (await fromPage('www.shop.test', `${site('static.shop.test')}s.js`))
    .status;
  assert.equal(await hit(), 403);
  const r = await h.brock(state, ['uncloak', '--off', 'cdn.test']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /judged no further at cdn\.test/);
  await h.waitFor('the chain to end at the CDN', async () => await hit() === 200);
  const s = await h.brock(state, ['settings', 'uncloak_off']);
  assert.match(s.stdout, /^uncloak_off\s+cdn\.test$/m);
  const bad = await h.brock(state, ['uncloak', '--off', 'test']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /public suffix/);
});

check('cookies sent to aliases teach nothing against their target; a known one blocks them',
  async () => {
    for (const s of ['a', 'b', 'c']) {
      const uid = sha256(`uid-${s}`).slice(0, 24);
      const r = await fromPage(`www.${s}.test`, `${site(`metrics.${s}.test`)}pixel.gif`,
                               `uid=${uid}`);
      assert.equal(r.status, 200, `metrics.${s}.test passes`);
    }
    // Learning is written within a second: nothing of cloak.test is.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    let r = await h.brock(state, ['list', '--json']);
    assert.equal(JSON.parse(r.stdout).find((x) => x.domain === 'cloak.test'), undefined);
    r = await h.brock(state, ['set', 'cloak.test', 'block']);
    assert.equal(r.code, 0, r.stderr);
    await h.waitFor('the choice to reach brock', async () =>
      (await fromPage('www.d.test', `${site('metrics.d.test')}pixel.gif`)).status === 403);
    assert.match(brock.log(),
                 /block metrics\.d\.test on www\.d\.test: .*via CNAME collect\.cloak\.test/);
  });

check('brock check says what a chain decides', async () => {
  const r = await h.brock(state, ['check', '--site', 'https://www.shop.test/', '--cname',
                                  'mid.trk.test', '--cname', 'edge.trk.test',
                                  'https://metrics.shop.test/p.gif']);
  assert.equal(r.code, 0, r.stderr);
  const o = JSON.parse(r.stdout);
  assert.equal(o.effect, 'block');
  assert.equal(o.via_cname, 'edge.trk.test');
  assert.match(o.why, /via CNAME edge\.trk\.test/);
  const plain = JSON.parse((await h.brock(state, ['check', '--site', 'https://www.shop.test/',
                                                  'https://metrics.shop.test/p.gif'])).stdout);
  assert.equal(plain.effect, 'pass');
  assert.equal(plain.via_cname, undefined);
  const bad = await h.brock(state, ['check', '--cname', 'not a name', 'https://x.test/']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /--cname: 'not a name'/);
});
