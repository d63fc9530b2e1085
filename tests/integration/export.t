#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// `brock export` as block lists, each read by the real program that uses it: dnsmasq and
// Unbound answering on loopback ports in front of a small DNS server of the test's own, the
// response policy zone checked by BIND's named-checkzone, Privoxy proxying to a local origin;
// Chromium's declarativeNetRequest and WebKit's content blocker lists checked against their
// documented shapes. The state holds a blocked base with a cookieblocked name below it (which
// must still load) and another blocked base with a name the user allowed; and two choices for
// one name alone: a name posting the DNT policy below the first base (the names below it stay
// blocked), and the user's block of a public suffix (the sites below it stay untouched). Bad
// requests write nothing. A validator that is missing fails its test: scripts/deps installs them all.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const dgram = require('node:dgram');
const dns = require('node:dns');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const h = require('./harness.js');
const { check, brock, tmpdir, run, track } = h;

const dir = tmpdir('export');
const S = path.join(dir, 'state');
const ANSWER = '192.0.2.1';

// What the state holds: blocked bases, and what must load below them.
const BLOCKED = ['tracker.test', 'ads.tracker.test', 'other.test', 'deep.other.test'];
const LOADS = ['cdn.tracker.test', 'img.cdn.tracker.test', 'login.other.test', 'plain.test'];
// The choices for one name alone, for the formats that can name one name without those below.
const EXACT = { blocked: ['blogspot.com', 'x.dnt.tracker.test'],
                loads: ['dnt.tracker.test', 'me.blogspot.com'] };
const SEED = {
  action_map: { 'cdn.tracker.test': { heuristicAction: 'cookieblock' },
                'dnt.tracker.test': { heuristicAction: '', dnt: true },
                'static.yellow.test': { heuristicAction: 'cookieblock' } },
  snitch_map: { 'tracker.test': ['a.test', 'b.test', 'c.test'],
                'other.test': ['a.test', 'b.test', 'c.test'],
                'yellow.test': ['a.test'] },
};

// The program name, found on the PATH or in the system folders, else a failure that says
// how to get it.
function need(name, pkg) {
  const dirs = [...(process.env.PATH || '').split(':'), '/usr/sbin', '/sbin', '/usr/bin'];
  for (const d of dirs) {
    const p = path.join(d, name);
    try { fs.accessSync(p, fs.constants.X_OK); return p; } catch { /* next */ }
  }
  throw new Error(`${name} is not installed: \`scripts/deps test\` installs it (Debian ` +
                  `package ${pkg})`);
}

async function exportTo(format, file, extra = []) {
  const r = await brock(S, ['export', '--format', format, '-o', file, ...extra]);
  assert.equal(r.code, 0, `export --format ${format}: ${r.stderr}`);
  return fs.readFileSync(file, 'utf8');
}

// A free loopback port for UDP and TCP, for a program that binds it itself.
async function freePort() {
  const s = dgram.createSocket('udp4');
  await new Promise((resolve) => s.bind(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

// A DNS server that answers every A question with ANSWER, and records the names asked.
function startUpstream() {
  const asked = [];
  const s = dgram.createSocket('udp4');
  s.on('message', (q, from) => {
    let o = 12;
    const labels = [];
    while (o < q.length && q[o] !== 0) {
      labels.push(q.subarray(o + 1, o + 1 + q[o]).toString('latin1'));
      o += q[o] + 1;
    }
    const end = o + 5; // the root label, type and class
    const type = q.readUInt16BE(o + 1);
    asked.push(labels.join('.').toLowerCase());
    const head = Buffer.from(q.subarray(0, end));
    head.writeUInt16BE(0x8180, 2); // a response, recursion available, no error
    head.writeUInt16BE(type === 1 ? 1 : 0, 6);
    head.writeUInt32BE(0, 8);
    const parts = [head];
    if (type === 1) {
      parts.push(Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4,
                              ...ANSWER.split('.').map(Number)]));
    }
    s.send(Buffer.concat(parts), from.port, from.address);
  });
  return new Promise((resolve) => s.bind(0, '127.0.0.1', () => resolve({
    port: s.address().port, asked, close: () => new Promise((r) => s.close(r)),
  })));
}

// Starts a daemon whose pid the harness kills at exit; resolves once port answers DNS.
async function startDns(cmd, args, port) {
  const proc = track(require('node:child_process').spawn(cmd, args, {
    stdio: ['ignore', 'ignore', 'pipe'] }));
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  await h.waitFor(`${path.basename(cmd)} on port ${port}`, async () => {
    if (proc.exitCode !== null) throw new Error(`${cmd} exited: ${log}`);
    return (await lookup(port, 'probe.plain.test')).ok;
  }, 15000);
  return { proc, log: () => log, stop: () => { proc.kill('SIGKILL'); } };
}

// An A lookup of name at 127.0.0.1:port: { ok, addresses, code }.
async function lookup(port, name) {
  const r = new dns.promises.Resolver({ timeout: 1500, tries: 1 });
  r.setServers([`127.0.0.1:${port}`]);
  try {
    return { ok: true, addresses: await r.resolve4(name) };
  } catch (e) {
    return { ok: false, code: e.code };
  }
}

// What a resolver must say: the blocked names do not exist, the others are answered.
async function resolvesAsPlanned(port, blocked = [...BLOCKED, ...EXACT.blocked],
                                 loads = [...LOADS, ...EXACT.loads]) {
  upstream.asked.length = 0;
  for (const n of blocked) {
    const r = await lookup(port, n);
    assert.equal(r.code, 'ENOTFOUND', `${n} must not resolve: ${JSON.stringify(r)}`);
  }
  for (const n of loads) {
    const r = await lookup(port, n);
    assert.deepEqual(r.addresses, [ANSWER], `${n} must resolve: ${JSON.stringify(r)}`);
  }
  // A blocked name never leaves the resolver.
  for (const n of blocked) assert.ok(!upstream.asked.includes(n), `${n} was sent upstream`);
}

let upstream;

before(async () => {
  const seed = path.join(dir, 'seed.json');
  fs.writeFileSync(seed, JSON.stringify(SEED));
  let r = await brock(S, ['--no-seed', 'import', seed]);
  assert.equal(r.code, 0, r.stderr);
  r = await brock(S, ['set', 'login.other.test', 'allow']);
  assert.equal(r.code, 0, r.stderr);
  r = await brock(S, ['set', 'blogspot.com', 'block']);
  assert.equal(r.code, 0, r.stderr);
  upstream = await startUpstream();
});
after(async () => { if (upstream) await upstream.close(); });

check('dnsmasq reads the export and answers NXDOMAIN for blocked names only', async () => {
  const bin = need('dnsmasq', 'dnsmasq-base');
  const file = path.join(dir, 'brock.dnsmasq');
  const text = await exportTo('dnsmasq', file);
  assert.match(text, /^address=\/tracker\.test\/$/m);
  assert.match(text, /^server=\/cdn\.tracker\.test\/#$/m);
  // One name alone: its rule, and one for the names below it alone ("*.", dnsmasq 2.86).
  assert.match(text, /^address=\/blogspot\.com\/\nserver=\/\*\.blogspot\.com\/#$/m);
  assert.match(text, /^server=\/dnt\.tracker\.test\/#\naddress=\/\*\.dnt\.tracker\.test\/$/m);
  const t = await run(bin, ['--test', `--conf-file=${file}`]);
  assert.equal(t.code, 0, `dnsmasq --test: ${t.stderr}`);
  assert.match(t.stderr, /syntax check OK/);
  const port = await freePort();
  const d = await startDns(bin, ['--keep-in-foreground', '--no-resolv', '--no-hosts',
                                 `--conf-file=${file}`, `--server=127.0.0.1#${upstream.port}`,
                                 '--listen-address=127.0.0.1', '--bind-interfaces',
                                 `--port=${port}`, '--pid-file', '--cache-size=0',
                                 '--log-facility=-'], port);
  try {
    await resolvesAsPlanned(port);
  } finally {
    d.stop();
  }
});

check('Unbound accepts the export and answers as planned', async () => {
  const checkconf = need('unbound-checkconf', 'unbound');
  const bin = need('unbound', 'unbound');
  const file = path.join(dir, 'brock.unbound');
  const text = await exportTo('unbound', file);
  assert.match(text, /^local-zone: "tracker\.test\." always_nxdomain$/m);
  assert.match(text, /^local-zone: "login\.other\.test\." transparent$/m);
  // A local zone reaches every name below it: a choice for one name alone is left out.
  assert.match(text, /^# left out: block blogspot\.com \(.*name alone/m);
  assert.match(text, /^# left out: exception dnt\.tracker\.test \(/m);
  assert.doesNotMatch(text, /^local-zone: "(blogspot\.com|dnt\.tracker\.test)\./m);
  const port = await freePort();
  const conf = path.join(dir, 'unbound.conf');
  fs.writeFileSync(conf, [
    'server:', `  interface: 127.0.0.1@${port}`, `  port: ${port}`, '  do-ip6: no',
    '  chroot: ""', '  username: ""', `  directory: "${dir}"`, '  pidfile: ""',
    '  use-syslog: no', '  logfile: ""', '  module-config: "iterator"',
    '  do-not-query-localhost: no', '  access-control: 127.0.0.0/8 allow',
    '  local-zone: "test." nodefault', '  msg-cache-size: 1m', '  rrset-cache-size: 1m',
    '  num-threads: 1', '  outgoing-range: 32', '  so-reuseport: no',
    `include: "${file}"`,
    'forward-zone:', '  name: "."', `  forward-addr: 127.0.0.1@${upstream.port}`, '',
  ].join('\n'));
  const t = await run(checkconf, [conf]);
  assert.equal(t.code, 0, `unbound-checkconf: ${t.stdout}${t.stderr}`);
  assert.match(t.stdout, /no errors/);
  const d = await startDns(bin, ['-d', '-c', conf], port);
  try {
    await resolvesAsPlanned(port, [...BLOCKED, 'x.dnt.tracker.test', 'dnt.tracker.test'],
                            [...LOADS, 'blogspot.com', 'me.blogspot.com']);
  } finally {
    d.stop();
  }
});

check('named-checkzone loads the response policy zone', async () => {
  const bin = need('named-checkzone', 'bind9-utils');
  const file = path.join(dir, 'brock.rpz');
  const text = await exportTo('rpz', file);
  for (const n of ['tracker.test', '*.tracker.test'])
    assert.match(text, new RegExp(`^${n.replace(/[.*]/g, '\\$&')} CNAME \\.$`, 'm'));
  for (const n of ['cdn.tracker.test', '*.cdn.tracker.test', 'login.other.test'])
    assert.match(text, new RegExp(`^${n.replace(/[.*]/g, '\\$&')} CNAME rpz-passthru\\.$`, 'm'));
  // One name alone: no wildcard below it, where the rules above (or none) still hold.
  assert.match(text, /^blogspot\.com CNAME \.$/m);
  assert.match(text, /^dnt\.tracker\.test CNAME rpz-passthru\.$/m);
  assert.doesNotMatch(text, /^\*\.(blogspot\.com|dnt\.tracker\.test) /m);
  const t = await run(bin, ['-k', 'fail', 'rpz.brock', file]);
  assert.equal(t.code, 0, `named-checkzone: ${t.stdout}${t.stderr}`);
  assert.match(t.stdout, /loaded serial 1/);
  assert.match(t.stdout, /^OK$/m);
});

check('Privoxy blocks, strips cookies and lets the exceptions through', async () => {
  const bin = need('privoxy', 'privoxy');
  const file = path.join(dir, 'brock.action');
  await exportTo('privoxy', file);
  // The origin stands as Privoxy's parent proxy, so that no name needs to resolve.
  const seen = [];
  const origin = http.createServer((req, res) => {
    seen.push({ url: req.url, cookie: req.headers.cookie });
    res.setHeader('Set-Cookie', 'sid=4f9c2a7e81d3');
    res.end('origin\n');
  });
  await new Promise((resolve) => origin.listen(0, '127.0.0.1', resolve));
  // A TCP port (a UDP one free may be taken for TCP, by a connection of another test).
  const port = await h.freePort();
  const conf = path.join(dir, 'privoxy.conf');
  const lines = [`confdir ${dir}`, `logdir ${dir}`, `actionsfile ${file}`,
                 `listen-address 127.0.0.1:${port}`, `forward / 127.0.0.1:${origin.address().port}`];
  if (fs.existsSync('/etc/privoxy/templates')) lines.push('templdir /etc/privoxy/templates');
  fs.writeFileSync(conf, lines.join('\n') + '\n');
  const proc = track(require('node:child_process').spawn(bin, ['--no-daemon', conf], {
    stdio: ['ignore', 'ignore', 'pipe'] }));
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  try {
    const get = (url) => h.curl(port, ['-H', 'Cookie: uid=8f3a9b2c1d7e', url]);
    await h.waitFor('privoxy', async () => {
      if (proc.exitCode !== null) throw new Error(`privoxy exited: ${log}`);
      return (await get('http://plain.test/')).status === 200;
    }, 15000);
    for (const n of [...BLOCKED, ...EXACT.blocked]) {
      const r = await get(`http://${n}/pixel`);
      assert.equal(r.status, 403, `${n}: ${r.headers}`);
      assert.ok(!seen.some((x) => x.url === `http://${n}/pixel`), `${n} reached the origin`);
    }
    // Cookieblocked: loads, without its cookies either way.
    for (const n of ['cdn.tracker.test', 'img.cdn.tracker.test', 'static.yellow.test']) {
      const r = await get(`http://${n}/lib.js`);
      assert.equal(r.status, 200, n);
      assert.equal(seen.at(-1).url, `http://${n}/lib.js`);
      assert.equal(seen.at(-1).cookie, undefined, `${n} got the cookie`);
      assert.doesNotMatch(r.headers, /set-cookie/i, `${n} set a cookie`);
    }
    // Allowed by the user below a blocked base, a name brock knows nothing of, the DNT
    // policy's name and a site below the blocked public suffix.
    for (const n of ['login.other.test', 'plain.test', ...EXACT.loads]) {
      const r = await get(`http://${n}/`);
      assert.equal(r.status, 200, n);
      assert.equal(seen.at(-1).cookie, 'uid=8f3a9b2c1d7e', n);
      assert.match(r.headers, /^set-cookie: sid=/im, n);
    }
  } finally {
    proc.kill('SIGKILL');
    origin.close();
  }
});

// ---- the browsers' own lists: their documented shapes ----

// Chromium's declarativeNetRequest rules (chrome.declarativeNetRequest: Rule, RuleAction,
// RuleCondition): positive unique ids, priorities, the action types and header operations it
// knows, requestDomains as lower-case ASCII names.
const DNR_ACTIONS = ['block', 'redirect', 'allow', 'upgradeScheme', 'modifyHeaders',
                     'allowAllRequests'];
function checkDnr(rules) {
  assert.ok(Array.isArray(rules), 'a ruleset is an array');
  const ids = new Set();
  for (const r of rules) {
    const what = JSON.stringify(r);
    assert.deepEqual(Object.keys(r).sort(), ['action', 'condition', 'id', 'priority'], what);
    assert.ok(Number.isInteger(r.id) && r.id >= 1 && !ids.has(r.id), `id: ${what}`);
    ids.add(r.id);
    assert.ok(Number.isInteger(r.priority) && r.priority >= 1, `priority: ${what}`);
    assert.ok(DNR_ACTIONS.includes(r.action.type), `action: ${what}`);
    if (r.action.type === 'modifyHeaders') {
      const hs = [...(r.action.requestHeaders || []), ...(r.action.responseHeaders || [])];
      assert.ok(hs.length > 0, what);
      for (const x of hs) assert.ok(['remove', 'set', 'append'].includes(x.operation), what);
    } else {
      assert.deepEqual(Object.keys(r.action), ['type'], what);
    }
    assert.ok(['firstParty', 'thirdParty'].includes(r.condition.domainType), what);
    if (r.condition.regexFilter) { // one name alone
      assert.equal(r.condition.requestDomains, undefined, what);
      new RegExp(r.condition.regexFilter); // eslint-disable-line no-new
      continue;
    }
    assert.ok(r.condition.requestDomains.length > 0, what);
    for (const d of r.condition.requestDomains) assert.match(d, /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/);
  }
  return rules;
}

// The rules Chromium applies to a third-party request to host: the highest priority block
// or allow decides; header rules apply above the allow's priority (and none when blocked).
function dnrOutcome(rules, host) {
  const match = rules.filter((r) => (r.condition.regexFilter
    ? new RegExp(r.condition.regexFilter).test(`https://${host}/x.js`)
    : r.condition.requestDomains.some((d) => host === d || host.endsWith('.' + d))));
  const top = match.filter((r) => r.action.type !== 'modifyHeaders')
    .sort((a, b) => b.priority - a.priority)[0];
  if (top && top.action.type === 'block') return 'block';
  const floor = top ? top.priority : 0;
  return match.some((r) => r.action.type === 'modifyHeaders' && r.priority > floor)
    ? 'cookieblock' : 'pass';
}

check('the declarativeNetRequest ruleset has Chromium\'s shape and outcomes', async () => {
  const rules = checkDnr(JSON.parse(await exportTo('dnr', path.join(dir, 'dnr.json'))));
  const want = {
    'tracker.test': 'block', 'ads.tracker.test': 'block', 'other.test': 'block',
    'cdn.tracker.test': 'cookieblock', 'img.cdn.tracker.test': 'cookieblock',
    'static.yellow.test': 'cookieblock', 'yellow.test': 'pass', 'login.other.test': 'pass',
    'plain.test': 'pass', 'blogspot.com': 'block', 'me.blogspot.com': 'pass',
    'dnt.tracker.test': 'pass', 'x.dnt.tracker.test': 'block',
  };
  for (const [host, outcome] of Object.entries(want))
    assert.equal(dnrOutcome(rules, host), outcome, host);
  const strip = rules.find((r) => r.action.type === 'modifyHeaders');
  assert.deepEqual(strip.action.requestHeaders, [{ header: 'cookie', operation: 'remove' }]);
  assert.deepEqual(strip.action.responseHeaders, [{ header: 'set-cookie', operation: 'remove' }]);
});

// WebKit's content blockers: each rule a trigger (url-filter, a regular expression without
// "|" or "{}"; load-type first- or third-party) and an action of a known type, applied in
// order, "ignore-previous-rules" undoing the matches before it.
const SAFARI_ACTIONS = ['block', 'block-cookies', 'css-display-none', 'ignore-previous-rules',
                        'make-https'];
function safariOutcome(rules, host) {
  let blocked = false, cookies = false;
  for (const r of rules) {
    if (!new RegExp(r.trigger['url-filter']).test(`https://${host}/x.js`)) continue;
    if (r.action.type === 'ignore-previous-rules') blocked = cookies = false;
    if (r.action.type === 'block') blocked = true;
    if (r.action.type === 'block-cookies') cookies = true;
  }
  return blocked ? 'block' : cookies ? 'cookieblock' : 'pass';
}

check('the WebKit content blocker has Safari\'s shape and outcomes', async () => {
  const rules = JSON.parse(await exportTo('safari', path.join(dir, 'safari.json')));
  assert.ok(Array.isArray(rules) && rules.length > 0);
  for (const r of rules) {
    const what = JSON.stringify(r);
    assert.deepEqual(Object.keys(r).sort(), ['action', 'trigger'], what);
    assert.ok(SAFARI_ACTIONS.includes(r.action.type), what);
    assert.deepEqual(r.trigger['load-type'], ['third-party'], what);
    assert.doesNotMatch(r.trigger['url-filter'], /[|{}]/, what);
    assert.match(r.trigger['url-filter'], /^\^/, what);
  }
  const want = {
    'tracker.test': 'block', 'ads.tracker.test': 'block', 'other.test': 'block',
    'cdn.tracker.test': 'cookieblock', 'img.cdn.tracker.test': 'cookieblock',
    'static.yellow.test': 'cookieblock', 'login.other.test': 'pass', 'plain.test': 'pass',
    'nottracker.test': 'pass', 'tracker.test.evil': 'pass', 'blogspot.com': 'block',
    'me.blogspot.com': 'pass', 'dnt.tracker.test': 'pass', 'x.dnt.tracker.test': 'block',
  };
  for (const [host, outcome] of Object.entries(want))
    assert.equal(safariOutcome(rules, host), outcome, host);
});

check('uBlock Origin and AdGuard rules: blocks at the base, exceptions below', async () => {
  const ubo = await exportTo('ubo', path.join(dir, 'ubo.txt'));
  assert.equal(ubo, '* other.test * block\n* tracker.test * block\n' +
                    '* cdn.tracker.test * noop\n* login.other.test * noop\n');
  const ag = await exportTo('adguard', path.join(dir, 'adguard.txt'));
  assert.match(ag, /^\|\|tracker\.test\^\n/m);
  assert.match(ag, /^@@\|\|cdn\.tracker\.test\^$/m);
  assert.doesNotMatch(ag, /yellow/);
  // One name alone: "|" starts the host name in AdGuard's DNS rules.
  assert.match(ag, /^\|blogspot\.com\^$/m);
  assert.match(ag, /^@@\|dnt\.tracker\.test\^$/m);
  assert.doesNotMatch(ag, /\|\|(blogspot\.com|dnt\.tracker\.test)\^/);
});

check('filters: --action and --learned-only', async () => {
  const only = await exportTo('dnsmasq', path.join(dir, 'cb.conf'), ['--action', 'cookieblock']);
  assert.doesNotMatch(only, /^address=/m);
  const priv = await exportTo('privoxy', path.join(dir, 'cb.action'),
                              ['--action', 'cookieblock']);
  assert.match(priv, /^\.cdn\.tracker\.test$/m);
  assert.doesNotMatch(priv, /\+block/);
  // Everything here came from an import: only the user's choices are left, of which one
  // blocks (a public suffix, which a hosts line names alone).
  const learned = await exportTo('hosts', path.join(dir, 'learned.hosts'), ['--learned-only']);
  assert.deepEqual(learned.match(/^0\.0\.0\.0 .*$/gm), ['0.0.0.0 blogspot.com']);
});

check('bad requests fail, naming the problem, and write nothing', async () => {
  const out = path.join(dir, 'kept.txt');
  fs.writeFileSync(out, 'before\n');
  const cases = [
    [['--format', 'bind9'], /--format 'bind9' is not a format; the formats are pb, hosts, abp/],
    [['--format', 'dnsmasq', '--action', 'allow'],
     /--action: 'allow' is not an action to export \(block, cookieblock\)/],
    [['--format', 'dnsmasq', '--action', 'block,'], /--action: '' is not an action/],
    [['--format', 'pb', '--learned-only'], /--action and --learned-only are for block lists/],
  ];
  for (const [args, msg] of cases) {
    for (const target of [out, path.join(dir, 'never.txt')]) {
      const r = await brock(S, ['export', ...args, '-o', target]);
      assert.equal(r.code, 2, `${args}: exit ${r.code}`);
      assert.match(r.stderr, msg);
    }
    assert.equal(fs.readFileSync(out, 'utf8'), 'before\n');
    assert.ok(!fs.existsSync(path.join(dir, 'never.txt')));
  }
});

// ---- choices for one site only ----

// The rules Chromium applies to a request to host made by a page of site: those whose
// initiatorDomains, if any, name the site or a name above it.
function dnrOutcomeOn(rules, host, site) {
  const on = (d) => site === d || site.endsWith('.' + d);
  return dnrOutcome(rules.filter((r) => !r.condition.initiatorDomains ||
                                        r.condition.initiatorDomains.some(on)), host);
}

// WebKit's: those whose if-domain, if any, names the site ("*" for its subdomains too).
function safariOutcomeOn(rules, host, site) {
  const on = (d) => (d.startsWith('*') ? site === d.slice(1) || site.endsWith('.' + d.slice(1))
                                       : site === d);
  return safariOutcome(rules.filter((r) => !r.trigger['if-domain'] ||
                                           r.trigger['if-domain'].some(on)), host);
}

check('choices for one site only: what each page gets in the browsers\' lists', async () => {
  const S2 = path.join(dir, 'state-site');
  const seed = path.join(dir, 'seed.json');
  let r = await brock(S2, ['--no-seed', 'import', seed]);
  assert.equal(r.code, 0, r.stderr);
  for (const args of [['login.other.test', 'allow'],
                      ['tracker.test', 'allow', '--site', 'news.test'],
                      ['login.other.test', 'block', '--site', 'shop.test'],
                      ['tracker.test', 'cookieblock', '--site', 'blog.test']]) {
    r = await brock(S2, ['set', ...args]);
    assert.equal(r.code, 0, r.stderr);
  }
  const save = async (format) => {
    const file = path.join(dir, `site.${format}`);
    const e = await brock(S2, ['export', '--format', format, '-o', file]);
    assert.equal(e.code, 0, e.stderr);
    return fs.readFileSync(file, 'utf8');
  };
  const dnr = checkDnr(JSON.parse(await save('dnr')));
  const safari = JSON.parse(await save('safari'));
  const want = [
    ['ads.tracker.test', 'www.news.test', 'pass'],
    ['ads.tracker.test', 'other-site.test', 'block'],
    ['ads.tracker.test', 'blog.test', 'cookieblock'],
    ['login.other.test', 'shop.test', 'block'], ['login.other.test', 'news.test', 'pass'],
    ['other.test', 'news.test', 'block'],
  ];
  for (const [host, site, outcome] of want) {
    assert.equal(dnrOutcomeOn(dnr, host, site), outcome, `dnr: ${host} on ${site}`);
    assert.equal(safariOutcomeOn(safari, host, site), outcome, `safari: ${host} on ${site}`);
  }
  assert.match(await save('ubo'), /^news\.test tracker\.test \* noop$/m);
  assert.match(await save('adguard'), /^\|\|login\.other\.test\^\$domain=shop\.test,important$/m);
  assert.match(await save('dnsmasq'),
               /^# left out: allow tracker\.test on news\.test only \(the format cannot tell/m);
});

// ---- who may read an export ----

check('an export naming the sites visited is written 0600, a block list without them 0644',
      async () => {
  const bad = await brock(S, ['export', '--format', 'none']);
  const formats = /the formats are (.*)$/m.exec(bad.stderr)[1].split(', ');
  assert.ok(formats.length > 10 && formats[0] === 'pb', bad.stderr);
  const mode = (file) => (fs.statSync(file).mode & 0o777).toString(8);
  // Each written over a file that others could read, which the export replaces.
  const save = async (state, format, extra = []) => {
    const file = path.join(dir, `mode.${format}`);
    fs.writeFileSync(file, 'before\n', { mode: 0o644 });
    fs.chmodSync(file, 0o644);
    const r = await brock(state, ['export', '--format', format, ...extra, '-o', file]);
    assert.equal(r.code, 0, `${format}: ${r.stderr}`);
    return { text: fs.readFileSync(file, 'utf8'), mode: mode(file) };
  };
  // Privacy Badger's format lists the sites each tracker was seen on: always 0600. The block
  // lists of a state without a choice for one site name trackers only.
  for (const format of formats) {
    const { text, mode: m } = await save(S, format);
    assert.match(text, format === 'pb' ? /"a\.test"/ : /tracker/, format);
    assert.equal(m, format === 'pb' ? '600' : '644', `${format}: mode ${m}`);
  }
  // A choice for one site names that site in every format (as a rule, or as a comment saying
  // the format cannot hold it).
  const S3 = path.join(dir, 'state-mode');
  let r = await brock(S3, ['--no-seed', 'import', path.join(dir, 'seed.json')]);
  assert.equal(r.code, 0, r.stderr);
  r = await brock(S3, ['set', 'plain.test', 'block', '--site', 'visited-site.test']);
  assert.equal(r.code, 0, r.stderr);
  for (const format of formats) {
    const { text, mode: m } = await save(S3, format);
    assert.match(text, /visited-site\.test/, format);
    assert.equal(m, '600', `${format} with a choice for one site: mode ${m}`);
  }
  // Leaving blocks out leaves that choice out too, and with it the site.
  const { text, mode: m } = await save(S3, 'hosts', ['--action', 'cookieblock']);
  assert.doesNotMatch(text, /visited-site\.test/);
  assert.equal(m, '644');
});
