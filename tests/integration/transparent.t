#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock run --transparent PORT, with the rules `brock transparent rules --apply` puts into a
// network namespace of the test's own: programs there that know nothing of proxies (curl
// --noproxy '*') reach sites on the host's side of a veth pair, and brock serves them on the
// way. Plain HTTP gets DNT and Sec-GPC and is decided by its Host header (a tracker learned on
// three sites is blocked on the fourth, its own site still loads); HTTPS is intercepted by its
// server name, or passed unseen for a pass-through host (refused when that host is blocked);
// a connection that names no host (TLS without a server name, another protocol, a client
// waiting for its server to speak) goes where it was going untouched; one made straight to
// the transparent port is refused; IPv6 is redirected too. Needs root (CI is).
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const http = require('node:http');
const net = require('node:net');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { startOrigin, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { flat, check } = h;

const tmp = h.tmpdir('transparent-t');
const state = path.join(tmp, 'state');
const PORT = 8120; // inside the namespace: nothing else listens there
let ns, origin, tlsOrigin, origin6, echo, banner, brock, caPath, certs;

// A command run inside the namespace.
const inNs = (args, opts) => h.run(ns.exec[0], [...ns.exec.slice(1), ...args], opts);

// curl inside the namespace, with no proxy whatever the environment says, each name of
// names sent to the host's side of the pair: { code, status, body }.
async function curl(args, names = []) {
  const resolve = names.flatMap((n) => ['--resolve', n.includes('[') ? n : `${n}:${ns.host}`]);
  const r = await inNs(['curl', '-s', '-g', '--noproxy', '*', '--max-time', '10',
                        '-w', '\n%{http_code}', ...resolve, ...args],
                       { env: { http_proxy: '', https_proxy: '', all_proxy: '' } });
  const cut = r.stdout.lastIndexOf('\n');
  return { code: r.code, status: Number(r.stdout.slice(cut + 1)), body: r.stdout.slice(0, cut),
           stderr: r.stderr };
}

// Raw bytes from inside the namespace to host:port; what came back within ms, until the
// server closed, or until it held a line.
async function rawInNs(host, port, data, ms) {
  const script = `const s = require('net').connect(${port}, ${JSON.stringify(host)});
    let got = '';
    const end = () => { process.stdout.write(got); process.exit(0); };
    s.on('data', (d) => { got += d.toString('latin1'); if (got.includes('\\n')) end(); });
    s.on('connect', () => { if (${JSON.stringify(data)}) s.write(${JSON.stringify(data)}); });
    s.on('close', end); s.on('error', end); setTimeout(end, ${ms});`;
  const r = await inNs([process.execPath, '-e', script]);
  return r.stdout;
}

const header = (rec, name) => rec.headers.filter(([n]) => n === name).map(([, v]) => v);

before(flat(async () => {
  // Interface names hold 15 bytes: the pid keeps two runs from taking each other's.
  ns = h.netns(`tp${process.pid % 100000}`, '10.79.0.1/24', '10.79.0.2/24');
  execFileSync('ip', ['-6', 'addr', 'add', 'fd79::1/64', 'dev', `${ns.name}-h`, 'nodad']);
  execFileSync(ns.exec[0], [...ns.exec.slice(1), 'ip', '-6', 'addr', 'add', 'fd79::2/64', 'dev',
                            `${ns.name}-n`, 'nodad']);
  certs = h.originCerts(tmp, ['secure.test', 'unseen.test', 'passed.test'],
                        'brock transparent test');
  origin = await startOrigin({ at: [80, ns.host] });
  origin6 = await startOrigin({ at: [80, 'fd79::1'] });
  tlsOrigin = await startOrigin({ tls: { key: certs.key, cert: certs.cert }, at: [443, ns.host] });
  // Another protocol, where the client speaks first: each line comes back upper-cased.
  echo = net.createServer((s) => s.on('data', (d) => s.write(d.toString().toUpperCase())));
  await new Promise((r) => echo.listen(7, ns.host, r));
  // And one where the server speaks first, as SMTP's does.
  banner = net.createServer((s) => s.write('220 banner.test ready\r\n'));
  await new Promise((r) => banner.listen(25, ns.host, r));
  let r = await h.brock(state, ['ca', 'init']);
  assert.equal(r.code, 0, r.stderr);
  r = await h.brock(state, ['set', 'unseen.test', 'block']);
  assert.equal(r.code, 0, r.stderr);
  caPath = path.join(state, 'ca', 'ca.pem');
  brock = await h.startBrock({ state, wrap: ns.exec, listen: `${ns.address}:0`, args: [
    '-v', '--no-update', '--intercept', '--upstream-ca', certs.ca, '--allow', '10.79.0.0/24',
    '--allow', 'fd79::/64', '--local', '10.79.0.0/24', '--dns', '127.0.0.1:9',
    '--no-intercept', 'unseen.test', '--no-intercept', 'passed.test',
    '--transparent', String(PORT)] });
  r = await inNs([h.BROCK, 'transparent', 'rules', '--local', '--port', String(PORT),
                  '--ports', '80,443,7,25', '--apply']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /redirected to brock's port 8120/);
}));

after(async () => {
  if (brock) await brock.stop();
  for (const s of [origin, origin6, tlsOrigin]) if (s) await s.close();
  for (const s of [echo, banner]) if (s) s.close();
});

check('plain HTTP redirected to brock gets DNT and Sec-GPC, and goes where it was going',
      async () => {
  const r = await curl(['-H', 'DNT: 0', 'http://site-a.test/echo?n=redirected'], ['site-a.test:80']);
  assert.equal(r.status, 200, r.stderr);
  const rec = origin.to('site-a.test').find((x) => x.path === '/echo?n=redirected');
  assert.deepEqual(header(rec, 'dnt'), ['1']);
  assert.deepEqual(header(rec, 'sec-gpc'), ['1']);
  assert.match(brock.log(), /GET site-a\.test 200 pass \(transparent\)/);
});

check('a tracker learned on three sites is blocked on the fourth, its own site still loads',
      async () => {
  const names = ['site-a.test', 'site-b.test', 'site-c.test', 'site-d.test', 'tracker9.test']
    .map((n) => `${n}:80`);
  for (const site of ['site-a.test', 'site-b.test', 'site-c.test']) {
    const nav = await curl([...h.NAVIGATE_ARGS, `http://${site}/`], names);
    assert.equal(nav.status, 200);
    const r = await curl(['-e', `http://${site}/`, '-b', `uid=${sha256(site).slice(0, 24)}`,
                          'http://tracker9.test/pixel.gif'], names);
    assert.equal(r.status, 200, `passes on ${site} while learning`);
  }
  const r = await curl(['-e', 'http://site-d.test/', 'http://tracker9.test/pixel.gif'], names);
  assert.equal(r.status, 403);
  assert.equal(origin.to('tracker9.test').length, 3, 'the blocked request never left brock');
  const own = await curl([...h.NAVIGATE_ARGS, 'http://tracker9.test/home'], names);
  assert.equal(own.status, 200);
});

check('HTTPS is seen inside by its server name, with brock\'s CA', async () => {
  const r = await curl(['--cacert', caPath, 'https://secure.test/in'], ['secure.test:443']);
  assert.equal(r.status, 200, r.stderr);
  const rec = tlsOrigin.to('secure.test').find((x) => x.path === '/in');
  assert.deepEqual(header(rec, 'dnt'), ['1']);
  assert.match(brock.log(), /GET secure\.test 200 pass \(transparent\)/);
});

check('a pass-through host is passed unseen; a blocked one is closed', async () => {
  let r = await curl(['--cacert', certs.ca, 'https://passed.test/unseen'], ['passed.test:443']);
  assert.equal(r.status, 200, r.stderr);
  const rec = tlsOrigin.to('passed.test').find((x) => x.path === '/unseen');
  assert.deepEqual(header(rec, 'dnt'), [], 'brock did not see inside');
  r = await curl(['--cacert', certs.ca, 'https://unseen.test/'], ['unseen.test:443']);
  assert.notEqual(r.code, 0, 'the connection was closed');
  assert.equal(tlsOrigin.to('unseen.test').length, 0);
  assert.match(brock.log(), /CONNECT unseen\.test 403 block|block unseen\.test/);
});

check('a connection that names no host goes where it was going, untouched, and is counted',
      async () => {
  // TLS without a server name: curl sends none for an address.
  const r = await curl(['-k', `https://${ns.host}/nameless`]);
  assert.equal(r.status, 200, r.stderr);
  const rec = tlsOrigin.requests.find((x) => x.path === '/nameless');
  assert.deepEqual(header(rec, 'dnt'), [], 'passed unseen');
  // Another protocol, on a port brock knows nothing of.
  assert.match(await rawInNs(ns.host, 7, 'hello brock\n', 5000), /HELLO BROCK/);
  // A client that waits for its server: passed on after brock's 2 s of silence.
  const t0 = Date.now();
  assert.match(await rawInNs(ns.host, 25, '', 8000), /220 banner\.test ready/);
  assert.ok(Date.now() - t0 >= 1900, 'after the wait for the client\'s first bytes');
  const m = await get('/metrics');
  assert.match(m, /brock_transparent_unnamed_total 3\b/);
});

check('a connection made to the transparent port itself is refused, never looped', async () => {
  const got = await rawInNs(ns.address, PORT, 'GET / HTTP/1.1\r\nHost: x.test\r\n\r\n', 5000);
  assert.equal(got, '');
  assert.match(brock.log(), /is to brock itself, not redirected by a rule/);
  assert.match(await get('/metrics'), /brock_transparent_refused_self_total 1\b/);
});

check('a CONNECT inside a redirected connection is refused: it goes where it was going',
      async () => {
  const r = await curl(['-X', 'CONNECT', '--request-target', 'elsewhere.test:443',
                        'http://site-a.test/'], ['site-a.test:80']);
  assert.equal(r.status, 405, r.stderr);
  assert.equal(origin.requests.filter((x) => x.method === 'CONNECT').length, 0);
  assert.match(brock.log(), /brock opens no tunnel inside a connection it was given/);
});

check('IPv6 is redirected too', async () => {
  const r = await curl(['http://v6.test/echo?n=v6'], ['v6.test:80:[fd79::1]']);
  assert.equal(r.status, 200, r.stderr);
  const rec = origin6.to('v6.test').find((x) => x.path === '/echo?n=v6');
  assert.deepEqual(header(rec, 'dnt'), ['1']);
});

// GET path of brock's pages, from the host's side: the body.
function get(p) {
  return new Promise((resolve, reject) => {
    http.get({ host: ns.address, port: brock.port, path: p, agent: false }, (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

check('/api/status and the live log say which way requests came in', async () => {
  const st = JSON.parse(await get('/api/status'));
  assert.ok(st.since_start.by_way.transparent >= 10, JSON.stringify(st.since_start));
  assert.equal(st.since_start.by_way.socks, 0);
  const events = await new Promise((resolve, reject) => {
    const req = http.get({ host: ns.address, port: brock.port, path: '/api/log', agent: false },
                         (res) => {
      let text = '';
      res.on('data', (d) => {
        text += d;
        if (/"way":"transparent"/.test(text)) { req.destroy(); resolve(text); }
      });
    });
    req.on('error', reject);
    req.setTimeout(10000, () => req.destroy(new Error('no transparent event in /api/log')));
  });
  assert.match(events, /"way":"transparent"/);
});

check('the rules: printed for either set-up, bad options refused, removed whole', async () => {
  let r = await h.brock(state, ['transparent', 'rules', '--user', 'nobody', '--port', '3129']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /type nat hook output priority -100/);
  assert.match(r.stdout, /meta skuid 65534 return/);
  assert.match(r.stdout, /tcp dport \{ 80, 443 \} redirect to :3129/);
  r = await h.brock(state, ['transparent', 'rules', '--gateway', 'lan0']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /iifname "lan0" tcp dport \{ 80, 443 \} redirect to :8120/);
  assert.doesNotMatch(r.stdout, /skuid/);
  // The port of the configuration file's `transparent`, unless --port says another.
  const conf = path.join(tmp, 'brock.conf');
  require('node:fs').writeFileSync(conf, 'transparent = [::]:3130\n');
  r = await h.brock(state, ['--config', conf, 'transparent', 'rules']);
  assert.match(r.stdout, /redirect to :3130\n/, r.stderr);
  r = await h.brock(state, ['--config', conf, 'transparent', 'rules', '--port', '3131']);
  assert.match(r.stdout, /redirect to :3131\n/, r.stderr);
  for (const bad of [['--gateway', 'a"b'], ['--ports', '80,0'], ['--ports', '80,80'],
                     ['--port', '70000'], ['--apply', '--remove'], ['--local', '--gateway', 'x'],
                     ['--user', 'no-such-user-here']]) {
    r = await h.brock(state, ['transparent', 'rules', ...bad]);
    assert.equal(r.code, 2, bad.join(' '));
    assert.match(r.stderr, /brock transparent: /, bad.join(' '));
  }
  r = await inNs(['nft', 'list', 'table', 'inet', 'brock']);
  assert.equal(r.code, 0, 'the table is in');
  r = await inNs([h.BROCK, 'transparent', 'rules', '--remove']);
  assert.equal(r.code, 0, r.stderr);
  r = await inNs(['nft', 'list', 'tables']);
  assert.doesNotMatch(r.stdout, /brock/);
  r = await inNs([h.BROCK, 'transparent', 'rules', '--remove']);
  assert.equal(r.code, 0, 'nothing to remove is no error');
  // Without the rules, the programs reach the site straight, unseen.
  r = await curl(['http://site-a.test/echo?n=straight'], ['site-a.test:80']);
  assert.equal(r.status, 200);
  const rec = origin.to('site-a.test').find((x) => x.path === '/echo?n=straight');
  assert.deepEqual(header(rec, 'dnt'), []);
});

check('a router: its LAN redirected by --gateway IFACE, served with --allow, by two workers',
      async () => {
  // A router in a namespace of its own, linked to this one (the sites' side) and to a LAN
  // namespace whose default route goes through it.
  const tag = `g${process.pid % 100000}`;
  const router = h.netns(`${tag}r`, '10.83.0.1/24', '10.83.0.2/24');
  const lan = h.netns(`${tag}l`, '10.84.0.1/24', '10.84.0.2/24');
  const ip = (...args) => execFileSync('ip', args);
  ip('link', 'add', `${tag}x`, 'type', 'veth', 'peer', 'name', `${tag}y`);
  ip('link', 'set', `${tag}x`, 'netns', router.name);
  ip('link', 'set', `${tag}y`, 'netns', lan.name);
  ip('-n', router.name, 'addr', 'add', '192.168.77.1/24', 'dev', `${tag}x`);
  ip('-n', router.name, 'link', 'set', `${tag}x`, 'up');
  ip('-n', lan.name, 'addr', 'add', '192.168.77.2/24', 'dev', `${tag}y`);
  ip('-n', lan.name, 'link', 'set', `${tag}y`, 'up');
  ip('-n', lan.name, 'route', 'add', 'default', 'via', '192.168.77.1');
  const site = await startOrigin({ at: [80, router.host] });
  // Two workers, each with its share of the transparent port.
  const gw = await h.startBrock({ state: path.join(tmp, 'router-state'), wrap: router.exec,
                                  listen: `${router.address}:0`, args: [
    '-v', '--no-update', '--allow', '192.168.77.0/24', '--allow', '10.83.0.0/24',
    '--dns', '127.0.0.1:9', '--transparent', String(PORT), '--workers', '2'] });
  try {
    let r = await h.run(router.exec[0], [...router.exec.slice(1), h.BROCK, 'transparent',
                                         'rules', '--gateway', `${tag}x`, '--port', String(PORT),
                                         '--apply']);
    assert.equal(r.code, 0, r.stderr);
    const fromLan = (n) => h.run(lan.exec[0], [...lan.exec.slice(1), 'curl', '-s', '--noproxy',
      '*', '--max-time', '10', '--resolve', `site-g.test:80:${router.host}`, '-o', '/dev/null',
      '-w', '%{http_code}', `http://site-g.test/echo?n=${n}`]);
    r = await fromLan('lan');
    assert.equal(r.stdout, '200', r.stderr);
    let rec = site.to('site-g.test').find((x) => x.path === '/echo?n=lan');
    assert.deepEqual(header(rec, 'dnt'), ['1']);
    assert.match(gw.log(), /192\.168\.77\.2 GET site-g\.test 200 pass \(transparent\)/);
    // TPROXY instead of REDIRECT: the destination left as it was, the connection delivered to
    // brock's socket (IP_TRANSPARENT) by a mark and a local route.
    r = await h.run(router.exec[0], [...router.exec.slice(1), h.BROCK, 'transparent', 'rules',
                                     '--remove']);
    assert.equal(r.code, 0, r.stderr);
    const nft = `table inet by_tproxy {\n chain prerouting {\n` +
      '  type filter hook prerouting priority mangle; policy accept;\n' +
      `  iifname "${tag}x" meta l4proto tcp tcp dport 80 tproxy to :${PORT} meta mark set 1` +
      ' accept\n }\n}\n';
    r = await h.run(router.exec[0], [...router.exec.slice(1), 'sh', '-c',
      `printf '%s' '${nft}' | nft -f - && ip rule add fwmark 1 lookup 100 && ` +
      'ip route add local 0.0.0.0/0 dev lo table 100']);
    assert.equal(r.code, 0, r.stderr);
    r = await fromLan('tproxy');
    assert.equal(r.stdout, '200', r.stderr);
    rec = site.to('site-g.test').find((x) => x.path === '/echo?n=tproxy');
    assert.deepEqual(header(rec, 'dnt'), ['1']);
    assert.equal(gw.log().match(/192\.168\.77\.2 GET site-g\.test 200 pass/g).length, 2);
  } finally {
    await gw.stop();
    await site.close();
  }
});

check('a bad --transparent is refused at start', async () => {
  for (const args of [['--transparent', 'nowhere'], ['--transparent', '70000'],
                      ['--transparent', '127.0.0.1:99999']]) {
    const r = await h.brock(path.join(tmp, 'bad'), ['run', '--no-update', ...args]);
    assert.notEqual(r.code, 0, args.join(' '));
    assert.match(r.stderr, /--transparent/, args.join(' '));
  }
});
