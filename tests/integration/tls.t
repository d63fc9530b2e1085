#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// HTTPS through `brock run --intercept`: the local CA `brock ca init` makes, the leaves it
// issues, Privacy Badger's handling inside TLS exactly as for plain HTTP, and upstream TLS
// verified against a test CA (made here with the openssl CLI) given by --upstream-ca, with
// self-signed, expired and misnamed origins refused; --no-intercept tunnels unseen.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { Duplex } = require('node:stream');
const tls = require('node:tls');
const { startOrigin, startSite, startOneShotOrigin, bytes, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { flat, run, waitFor } = h;

function check(name, fn) {
  h.check(name, fn, 40000);
}

const tmp = h.tmpdir('tls-t');

const SITES = ['site1.test', 'site2.test', 'site3.test', 'site4.test'];
const TRACKERS = ['tracker1.test', 'tracker2.test'];
// Blocked by the user from the start: an ad network with a site of its own, and one that is
// never intercepted.
const ADNET = 'adnet.test';
const PINNED_ADS = 'pinned-ads.test';
// Hosts of the origin that ends its responses in its own ways (startEndings).
const ENDINGS = ['cut.test', 'cut-notify.test', 'whole.test', 'until-close.test'];

// ---- certificates for the origins, made now ----

const f = (n) => path.join(tmp, n);

// The leaf of the origin that ends connections its own ways (made by makeCerts).
function makeEndingsCert() {
  return { key: fs.readFileSync(f('good.key')), cert: fs.readFileSync(f('good.pem')) };
}

function makeCerts(yellow) {
  // The CA brock is told to trust, and one it is not.
  for (const ca of ['tca', 'other-ca']) h.testCa(tmp, ca, `brock test ${ca}`);
  const names = [...SITES, ...TRACKERS, ADNET, PINNED_ADS, 'lang.test', 'pinned.test', yellow,
                 ...ENDINGS];
  const leaf = (name, sans, opts = {}) => h.testLeaf(tmp, name, { sans, ca: 'tca', ...opts });
  return {
    good: leaf('good', [...names.map((n) => `DNS:${n}`), 'IP:127.0.0.1']),
    selfsigned: (() => {
      execFileSync('openssl', [
        'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
        '-days', '2', '-subj', '/CN=selfsigned.test', '-keyout', f('self.key'),
        '-out', f('self.pem'), '-addext', 'subjectAltName=DNS:selfsigned.test',
      ], { stdio: ['ignore', 'ignore', 'pipe'] });
      return { key: fs.readFileSync(f('self.key')), cert: fs.readFileSync(f('self.pem')) };
    })(),
    untrusted: leaf('untrusted', ['DNS:untrusted.test'], { ca: 'other-ca' }),
    expired: leaf('expired', ['DNS:expired.test'], { days: -1 }),
    misnamed: leaf('misnamed', ['DNS:somebody-else.test']),
  };
}

// An HTTPS server that counts connections and requests: a refused upstream sees the first
// and never the second.
function startCounting(cert) {
  return startSite((req, res) => { res.end('should not be reached\n'); }, { tls: cert });
}

// A TLS origin that ends each connection after one response, by Host: cut.test announces
// 1000 bytes, sends 10 and drops the connection without close_notify (cut-notify.test: with
// it); whole.test sends all it announced, until-close.test a body that runs until the close,
// then both drop the connection without close_notify, as many servers do.
function startEndings(cert) {
  return startOneShotOrigin(({ host }, socket) => {
    const replies = {
      'cut.test': ['HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789', 'drop'],
      'cut-notify.test': ['HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789', 'end'],
      'whole.test': ['HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\n' +
                     '0123456789', 'drop'],
      'until-close.test': ['HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n0123456789', 'drop'],
    };
    const [text, how] = replies[host] || ['HTTP/1.1 404 Not Found\r\n\r\n', 'end'];
    if (how === 'end') {
      socket.end(text);
      return;
    }
    socket.write(text, () => setTimeout(() => socket.destroy(), 100));
  }, { tls: cert });
}

// ---- brock ----

function startBrock(state, extra = []) {
  return h.startBrock({ state, args: ['-v', '--no-update', '--upstream-ca', f('tca.pem'),
                                      ...extra] });
}

let brock, origin, bad = {}, state, brockCa, yellow;

// curl through brock, trusting brock's CA unless told otherwise.
function curl(args, { ca } = {}) {
  return h.curl(brock.port, ['--cacert', ca || brockCa, ...args]);
}

// What clients sent to host through brock; brock's own DNT policy checks left out.
function sent(host) {
  return origin.to(host).filter((x) => x.path !== '/.well-known/dnt-policy.txt');
}

function header(rec, name) {
  return rec.headers.filter(([n]) => n === name).map(([, v]) => v);
}

// CONNECT to target through brock, then TLS inside with the given SNI ('' for none) and
// ALPN offer; resolves with the certificate brock presented and what was negotiated.
function handshake(target, servername, alpn = ['http/1.1']) {
  return new Promise((resolve, reject) => {
    const s = net.connect(brock.port, '127.0.0.1');
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no handshake')); }, 10000);
    let got = '';
    const onData = (d) => {
      got += d.toString('latin1');
      if (!got.includes('\r\n\r\n')) return;
      s.removeListener('data', onData);
      if (!/^HTTP\/1\.1 200 /.test(got)) {
        clearTimeout(timer);
        s.destroy();
        reject(new Error('CONNECT refused: ' + got));
        return;
      }
      const t = tls.connect({ socket: s, servername, ca: [fs.readFileSync(brockCa)],
                              ALPNProtocols: alpn, checkServerIdentity: () => undefined }, () => {
        clearTimeout(timer);
        resolve({ cert: t.getPeerCertificate(), authorized: t.authorized,
                  authError: t.authorizationError, alpn: t.alpnProtocol });
        // A client that closes right after the handshake with nothing sent is one that
        // refused brock's certificate (a pinned key), which twice passes the host through:
        // this one says a word first.
        t.end('\r\n');
      });
      t.on('error', (e) => { clearTimeout(timer); reject(e); });
    };
    s.on('data', onData);
    s.on('error', (e) => { clearTimeout(timer); reject(e); });
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
  });
}

// Opens each site's page as a browser navigates to it: its requests are then evidence.
async function openPages(sites) {
  for (const site of sites)
    assert.equal((await curl([...h.NAVIGATE_ARGS, `https://${site}/page`])).status, 200, site);
}

// Raw bytes to brock; resolves with all that came back once brock closes.
async function raw(data) {
  return (await h.raw(brock.port, data, { wait: 15000 })).text;
}

before(flat(async () => {
  yellow = h.pickYellow();
  const certs = makeCerts(yellow);
  origin = await startOrigin({ cookieHost: yellow, tls: certs.good });
  for (const name of ['selfsigned', 'untrusted', 'expired', 'misnamed'])
    bad[name] = await startCounting(certs[name]);
  state = f('state');
  const init = await h.brock(state, ['ca', 'init']);
  assert.equal(init.code, 0, init.stderr);
  brockCa = init.stdout.trim();
  for (const host of [ADNET, PINNED_ADS]) {
    const set = await h.brock(state, ['set', host, 'block']);
    assert.equal(set.code, 0, set.stderr);
  }
  brock = await startBrock(state, [
    '--intercept', '--no-intercept', 'pinned*.test',
    ...Object.entries(bad).flatMap(([name, b]) => h.resolveTo(b.port, `${name}.test`)),
    ...h.resolveTo(origin.port, '*.test', yellow),
  ]);
}));

after(async () => {
  if (brock) await brock.stop();
  if (origin) await origin.close();
  for (const b of Object.values(bad)) await b.close();
});

// ---- the CA ----

check('`brock ca init` makes an EC P-256 CA with a private key; `ca path` finds it', async () => {
  assert.equal(brockCa, fs.realpathSync(path.join(state, 'ca', 'ca.pem')));
  const key = path.join(state, 'ca', 'ca-key.pem');
  assert.equal(fs.statSync(key).mode & 0o777, 0o600, 'the key is its owner\'s alone');
  const x = new crypto.X509Certificate(fs.readFileSync(brockCa));
  assert.ok(x.ca, 'CA:TRUE');
  assert.ok(x.checkIssued(x), 'self-signed');
  assert.match(x.subject, /brock/);
  assert.match(x.subject, new RegExp(os.hostname().slice(0, 20).replace(/\./g, '\\.')));
  assert.equal(x.publicKey.asymmetricKeyDetails.namedCurve, 'prime256v1');
  const years = (Date.parse(x.validTo) - Date.now()) / (365 * 86400e3);
  assert.ok(years > 2 && years < 11, `valid for a few years: ${x.validTo}`);
  const text = execFileSync('openssl', ['x509', '-in', brockCa, '-noout', '-ext', 'keyUsage'],
                            { encoding: 'utf8' });
  assert.match(text, /Certificate Sign/);
  const pk = crypto.createPrivateKey(fs.readFileSync(key));
  assert.ok(x.checkPrivateKey(pk), 'the key belongs to the certificate');
  const p = await h.brock(state, ['ca', 'path']);
  assert.equal(p.code, 0);
  assert.equal(p.stdout.trim(), brockCa, 'the same absolute path');
});

check('`brock ca init` keeps an existing CA unless --force', async () => {
  const s = f('state-force');
  assert.equal((await h.brock(s, ['ca', 'init'])).code, 0);
  const cert = path.join(s, 'ca', 'ca.pem');
  const first = fs.readFileSync(cert, 'utf8');
  const again = await h.brock(s, ['ca', 'init']);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, /exists.*--force/);
  assert.equal(fs.readFileSync(cert, 'utf8'), first, 'unchanged');
  const forced = await h.brock(s, ['ca', 'init', '--force']);
  assert.equal(forced.code, 0, forced.stderr);
  assert.notEqual(fs.readFileSync(cert, 'utf8'), first, 'replaced');
  assert.equal(fs.statSync(path.join(s, 'ca', 'ca-key.pem')).mode & 0o777, 0o600);
  assert.deepEqual(fs.readdirSync(path.join(s, 'ca')).sort(), ['ca-key.pem', 'ca.pem'],
                   'no temporary files left behind');
  const none = await h.brock(f('state-none'), ['ca', 'path']);
  assert.notEqual(none.code, 0);
  assert.ok(none.stderr.includes(`run \`brock --state ${f('state-none')} ca init\``), none.stderr);
  const usage = await h.brock(s, ['ca', 'make']);
  assert.equal(usage.code, 2);
});

check('--intercept without a CA, or with a key others can read, refuses to start', async () => {
  const s = f('state-noca');
  const r = await h.brock(s, ['run', '--intercept', '--no-update', '--listen', '127.0.0.1:0'],
                         { timeout: 10000 });
  assert.equal(r.code, 1);
  assert.ok(r.stderr.includes(`run \`brock --state ${s} ca init\` first`), r.stderr);
  assert.deepEqual(fs.readdirSync(path.dirname(s)).filter((x) => x === 'state-noca'), [],
                   'a start that failed made a state');
  assert.equal((await h.brock(s, ['ca', 'init'])).code, 0);
  fs.chmodSync(path.join(s, 'ca', 'ca-key.pem'), 0o644);
  const open = await h.brock(s, ['run', '--intercept', '--no-update', '--listen', '127.0.0.1:0'],
                            { timeout: 10000 });
  assert.equal(open.code, 1);
  assert.match(open.stderr, /readable by others/);
});

// ---- leaves ----

check('the leaf is issued by brock\'s CA for the name asked, briefly, with a random serial',
      async () => {
  const a = await handshake('site1.test:443', 'site1.test', ['h2', 'http/1.1']);
  assert.ok(a.authorized, `chains to brock's CA: ${a.authError}`);
  assert.equal(a.cert.subjectaltname, 'DNS:site1.test');
  assert.match(a.cert.issuer.CN, /^brock local CA on /);
  assert.equal(a.alpn, 'h2', 'ALPN chooses h2 when the client offers it');
  const one = await handshake('site1.test:443', 'site1.test', ['http/1.1']);
  assert.equal(one.alpn, 'http/1.1', 'and http/1.1 for a client that offers only that');
  const days = (Date.parse(a.cert.valid_to) - Date.now()) / 86400e3;
  assert.ok(days > 1 && days <= 8, `short validity: ${a.cert.valid_to}`);
  // SNI wins over the CONNECT host; an address literal without SNI gets an IP name.
  const b = await handshake('site1.test:443', 'site2.test');
  assert.equal(b.cert.subjectaltname, 'DNS:site2.test');
  assert.notEqual(b.cert.serialNumber, a.cert.serialNumber);
  const ip = await handshake(`127.0.0.1:${origin.port}`, '');
  assert.ok(ip.authorized, ip.authError);
  assert.equal(ip.cert.subjectaltname, 'IP Address:127.0.0.1');
  // Leaves are cached: the same name gets the same certificate.
  const again = await handshake('site1.test:443', 'site1.test');
  assert.equal(again.cert.fingerprint256, a.cert.fingerprint256);
  assert.equal(again.cert.pubkey.toString('hex'), b.cert.pubkey.toString('hex'),
               'one key for every leaf');
});

// openssl s_client through brock's CONNECT with the SNI given: resolves with the leaf
// brock presented as PEM ('' when the handshake failed) and s_client's output.
async function sClient(servername) {
  // A request line sent: a client that closes with nothing sent after the handshake counts
  // as refusing brock's certificate.
  const r = await run('sh', ['-c', 'printf "\\r\\n" | exec openssl "$@"', 'sh', 's_client',
                             '-proxy', `127.0.0.1:${brock.port}`, '-connect', 'site1.test:443',
                             '-servername', servername, '-CAfile', brockCa],
                      { timeout: 15000 });
  const pem = /-----BEGIN CERTIFICATE-----[^]*?-----END CERTIFICATE-----\n/.exec(r.stdout);
  return { pem: pem ? pem[0] : '', out: r.stdout + r.stderr };
}

check('a server name that is not a host name gets no leaf, and the log says why', async () => {
  // The names a client sends once went into the leaf through a configuration string: a
  // comma, a colon or a space there made brock's CA sign names of the client's choosing.
  const good = await sClient('good-name.test');
  assert.ok(good.pem, good.out);
  const x = new crypto.X509Certificate(good.pem);
  assert.equal(x.subjectAltName, 'DNS:good-name.test');
  for (const name of ['x.example,email:a@b', 'weird name with spaces',
                      'x.example,IP:10.0.0.1', 'x.example,DNS:bank.example', '*.example']) {
    const r = await sClient(name);
    if (r.pem) {
      const leaf = new crypto.X509Certificate(r.pem);
      assert.fail(`a leaf for ${JSON.stringify(name)}: ${leaf.subjectAltName}`);
    }
    const shown = name.replace(/[.*]/g, '\\$&');
    await waitFor(`the line for ${name}`, () => new RegExp(
      `site1\\.test: TLS refused: the server name the client sent \\(SNI "${shown}"\\) ` +
      'is not a host name or an address, and brock makes no certificate for it')
      .test(brock.log()), 10000);
  }
  // A control character is shown escaped: a line stays one line.
  const nl = await sClient('a\tb');
  assert.equal(nl.pem, '');
  await waitFor('the escaped line', () => /\(SNI "a\\x09b"\)/.test(brock.log()), 10000);
  assert.ok((await sClient('site2.test')).pem, 'brock goes on issuing leaves');
});

check('a client that does not trust brock\'s CA gets no request through', async () => {
  const n = origin.to('site1.test').length;
  const r = await curl(['https://site1.test/echo?n=untrusting'], { ca: f('tca.pem') });
  assert.equal(r.code, 60, 'curl: the peer certificate cannot be verified');
  assert.equal(origin.to('site1.test').length, n);
  // curl may exit before brock has read its alert and logged it.
  await waitFor('the refused handshake to be logged',
                () => /TLS with site1\.test failed: .*unknown ca/.test(brock.log()), 10000);
});

// ---- Privacy Badger inside TLS ----

check('DNT and Sec-GPC arrive inside intercepted TLS', async () => {
  const r = await curl(['-H', 'DNT: 0', 'https://site1.test/echo?n=dnt']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.connect, 200);
  assert.equal(r.status, 200);
  const rec = origin.to('site1.test').find((x) => x.path === '/echo?n=dnt');
  assert.ok(rec, 'the request went out');
  assert.deepEqual(header(rec, 'dnt'), ['1']);
  assert.deepEqual(header(rec, 'sec-gpc'), ['1']);
  assert.deepEqual(header(rec, 'host'), ['site1.test']);
  assert.match(header(rec, 'via').join(','), /brock/);
  assert.match(r.headers, /^Via: .*brock/mi);
});

check('a tracker learned inside TLS is blocked there', async () => {
  const t = 'tracker1.test';
  await openPages(SITES);
  // One curl, one tunnel: three sites' pages embed it, then a fourth.
  const args = [];
  SITES.forEach((site, i) => {
    if (i) args.push('--next');
    args.push('-s', '-x', `http://127.0.0.1:${brock.port}`, '--cacert', brockCa,
              '-e', `https://${site}/page`, '-b', `uid=${sha256(site + t).slice(0, 24)}`,
              '-o', '/dev/null', '-w', '%{http_code} ', `https://${t}/pixel.gif?${i}`);
  });
  const r = await run('curl', args);
  assert.equal(r.code, 0);
  assert.deepEqual(r.stdout.trim().split(' ').map(Number), [200, 200, 200, 403]);
  const seen = sent(t);
  assert.equal(seen.length, 3, 'the fourth request never reached the origin');
  assert.deepEqual(seen.map((x) => header(x, 'referer')[0]),
                   SITES.slice(0, 3).map((s) => `https://${s}/page`));
  assert.match(brock.log(), /learned: tracker1\.test tracks across sites/);
  assert.match(brock.log(), /block tracker1\.test on site4\.test/);
  // Another page's request for it is answered inside the tunnel; nothing reaches it.
  const again = await curl(['-e', 'https://site4.test/page', `https://${t}/pixel.gif?again`]);
  assert.equal(again.connect, 200, 'the tunnel is intercepted, not refused');
  assert.equal(again.status, 403);
  assert.equal(sent(t).length, 3);
});

check('the first party inside TLS comes from Origin too', async () => {
  const t = 'tracker2.test';
  await openPages(SITES);
  for (const site of SITES.slice(0, 3)) {
    const r = await curl(['-H', `Origin: https://${site}`, '-b', `uid=${sha256(site).slice(0, 24)}`,
                          `https://${t}/api`]);
    assert.equal(r.status, 200);
  }
  const r = await curl(['-H', 'Origin: https://site4.test', `https://${t}/api`]);
  assert.equal(r.connect, 200);
  assert.equal(r.status, 403, 'blocked once three sites saw it');
  assert.equal(sent(t).length, 3);
});

check('the yellowlisted host inside TLS gets no Cookie and returns no Set-Cookie', async () => {
  const r = await curl(['-e', 'https://site2.test/page', '-b', 'yid=8c1f0e9a7b6d5c4e3f21',
                        `https://${yellow}/echo?n=yellow`]);
  assert.equal(r.status, 200);
  assert.doesNotMatch(r.headers, /^Set-Cookie:/mi);
  const rec = origin.to(yellow).find((x) => x.path === '/echo?n=yellow');
  assert.ok(rec);
  assert.deepEqual(header(rec, 'cookie'), []);
  assert.deepEqual(header(rec, 'dnt'), ['1']);
});

check('keep-alive inside a tunnel reuses the upstream TLS connection', async () => {
  const urls = [1, 2, 3].map((i) => `https://site3.test/echo?n=ka${i}`);
  const r = await run('curl', ['-s', '-x', `http://127.0.0.1:${brock.port}`, '--cacert', brockCa,
                               '-o', '/dev/null', '-o', '/dev/null', '-o', '/dev/null',
                               '-w', '%{num_connects} ', ...urls]);
  assert.equal(r.code, 0);
  assert.deepEqual(r.stdout.trim().split(' ').map(Number), [1, 0, 0]);
  const ports = urls.map((u) => origin.to('site3.test')
    .find((x) => x.path === u.slice('https://site3.test'.length)).remotePort);
  assert.equal(new Set(ports).size, 1, `one upstream connection: ${ports}`);
});

// Keep-alive GETs of path inside an intercepted tunnel to host; resolves with the TLS records
// of application data brock sent for each answer after the first (the first shares its
// records with the handshake's session tickets).
function recordsPerAnswer(host, path, answers) {
  return new Promise((resolve, reject) => {
    const s = net.connect(brock.port, '127.0.0.1');
    let wire = Buffer.alloc(0), records = 0, answer = null, got = Buffer.alloc(0);
    const counts = [];
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no answers')); }, 10000);
    const d = new Duplex({
      read() {},
      write(chunk, enc, cb) { s.write(chunk, cb); },
      final(cb) { s.end(); cb(); },
    });
    s.on('data', (b) => {
      if (answer === null) {
        const at = b.indexOf('\r\n\r\n');
        answer = b.subarray(0, at).toString('latin1');
        b = b.subarray(at + 4);
      }
      // Whole records: a 5-byte header (type, version, length), then the record.
      wire = Buffer.concat([wire, b]);
      while (wire.length >= 5 && wire.length >= 5 + wire.readUInt16BE(3)) {
        if (wire[0] === 23) records++;
        wire = wire.subarray(5 + wire.readUInt16BE(3));
      }
      d.push(b);
    });
    s.on('error', (e) => { clearTimeout(timer); reject(e); });
    s.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`);
    const t = tls.connect({ socket: d, servername: host, ca: [fs.readFileSync(brockCa)] });
    const ask = () => t.write(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    t.on('secureConnect', ask);
    let before = 0;
    t.on('data', (c) => {
      got = Buffer.concat([got, c]);
      const at = got.indexOf('\r\n\r\n');
      const len = /\r\ncontent-length: *(\d+)/i.exec(got.subarray(0, at).toString('latin1'));
      if (at < 0 || !len || got.length < at + 4 + Number(len[1])) return;
      got = Buffer.alloc(0);
      // The records still on their way are counted before the next question.
      setTimeout(() => {
        if (counts.length || before) counts.push(records - before);
        before = records;
        if (counts.length < answers) { ask(); return; }
        clearTimeout(timer);
        t.destroy();
        s.destroy();
        resolve(counts);
      }, 100);
    });
    t.on('error', (e) => { clearTimeout(timer); s.destroy(); reject(e); });
  });
}

check('a small answer\'s head and body leave brock as one TLS record', async () => {
  assert.deepEqual(await recordsPerAnswer('site1.test', '/bytes?n=1000', 3), [1, 1, 1]);
});

// n GETs inside an intercepted tunnel to host, each its own TLS record, all reaching brock in
// one write; resolves with the statuses of the answers, once all n came.
function recordsInOneWrite(host, n) {
  return new Promise((resolve, reject) => {
    const s = net.connect(brock.port, '127.0.0.1');
    let answer = null, got = '', held = null;
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`${got.split('HTTP/1.1 ').length - 1} answers of ${n}`));
    }, 10000);
    const d = new Duplex({
      read() {},
      write(chunk, enc, cb) {
        if (held) held.push(chunk); else s.write(chunk);
        cb();
      },
      final(cb) { s.end(); cb(); },
    });
    s.on('data', (b) => {
      if (answer === null) {
        const at = b.indexOf('\r\n\r\n');
        answer = b.subarray(0, at).toString('latin1');
        b = b.subarray(at + 4);
      }
      d.push(b);
    });
    s.on('error', (e) => { clearTimeout(timer); reject(e); });
    s.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`);
    const t = tls.connect({ socket: d, servername: host, ca: [fs.readFileSync(brockCa)] });
    t.on('secureConnect', () => {
      held = [];
      for (let i = 0; i < n; i++)
        t.write(`GET /bytes?n=${100 + i} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      // Node encrypts each write on a later tick: then all the records leave together.
      setTimeout(() => { s.write(Buffer.concat(held)); held = null; }, 50);
    });
    t.on('data', (c) => {
      got += c.toString('latin1');
      const statuses = [...got.matchAll(/HTTP\/1\.1 (\d+) /g)].map((m) => Number(m[1]));
      if (statuses.length < n || !got.endsWith(bytes(100 + n - 1).toString('latin1'))) return;
      clearTimeout(timer);
      t.destroy();
      s.destroy();
      resolve(statuses);
    });
    t.on('error', (e) => { clearTimeout(timer); s.destroy(); reject(e); });
  });
}

check('TLS records that arrive together are all read and answered', async () => {
  assert.deepEqual(await recordsInOneWrite('site1.test', 5), [200, 200, 200, 200, 200]);
});

check('large bodies cross both TLS legs byte-exact', async () => {
  const n = 3 * 1024 * 1024 + 5;
  for (const mode of ['cl', 'chunked']) {
    const r = await curl([`https://site2.test/bytes?n=${n}&mode=${mode}`]);
    assert.equal(r.status, 200);
    assert.equal(r.body.length, n, mode);
    assert.equal(sha256(r.body), sha256(bytes(n)), mode);
  }
  const file = f('upload');
  fs.writeFileSync(file, bytes(n, 'up'));
  const up = await curl(['--data-binary', `@${file}`, 'https://site2.test/upload']);
  assert.equal(up.status, 200);
  assert.equal(JSON.parse(up.body.toString()).bodySha, sha256(bytes(n, 'up')));
});

check('an absolute-form https:// request goes out over verified TLS', async () => {
  const got = await raw('GET https://site1.test/echo?n=absolute HTTP/1.1\r\nHost: site1.test\r\n' +
                        'Connection: close\r\n\r\n');
  assert.match(got, /^HTTP\/1\.1 200 /);
  const rec = origin.to('site1.test').find((x) => x.path === '/echo?n=absolute');
  assert.ok(rec);
  assert.deepEqual(header(rec, 'dnt'), ['1']);
  const refused = await raw('GET https://selfsigned.test/x HTTP/1.1\r\nHost: selfsigned.test\r\n' +
                            'Connection: close\r\n\r\n');
  assert.match(refused, /^HTTP\/1\.1 502 /);
  assert.match(refused, /selfsigned\.test.*self.signed/);
});

check('a WebSocket upgrade inside intercepted TLS becomes a tunnel both ways', async () => {
  const got = await new Promise((resolve, reject) => {
    const s = net.connect(brock.port, '127.0.0.1');
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no echo')); }, 10000);
    s.once('data', (d) => {
      if (!/^HTTP\/1\.1 200 /.test(d.toString('latin1'))) {
        reject(new Error('CONNECT: ' + d));
        return;
      }
      const t = tls.connect({ socket: s, servername: 'site1.test',
                              ca: [fs.readFileSync(brockCa)] }, () => {
        t.write('GET /ws HTTP/1.1\r\nHost: site1.test\r\nUpgrade: websocket\r\n' +
                'Connection: Upgrade\r\n\r\n');
      });
      let text = '';
      t.on('data', (c) => {
        const before = text;
        text += c.toString('latin1');
        if (!before.includes('\r\n\r\n') && text.includes('\r\n\r\n')) t.write('ping-in-tls');
        if (text.endsWith('ping-in-tls')) { clearTimeout(timer); t.destroy(); resolve(text); }
      });
      t.on('error', (e) => { clearTimeout(timer); reject(e); });
    });
    s.write('CONNECT site1.test:443 HTTP/1.1\r\nHost: site1.test:443\r\n\r\n');
  });
  assert.match(got, /^HTTP\/1\.1 101 /);
  const rec = origin.requests.find((x) => x.upgrade && x.path === '/ws');
  assert.ok(rec, 'the upgrade reached the origin over TLS');
  assert.deepEqual(header(rec, 'dnt'), ['1']);
});

// ---- blocked hosts inside TLS: decided per request ----

check('a blocked host\'s own site loads as a first party through an intercepted CONNECT',
      async () => {
  const navigate = ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: document',
                    '-H', 'Sec-Fetch-Site: none'];
  for (const [n, args] of [['navigation', navigate],
                           ['own-script', ['-e', `https://${ADNET}/`, '-H',
                                           'Sec-Fetch-Dest: script']]]) {
    const r = await curl([...args, `https://${ADNET}/echo?n=${n}`]);
    assert.equal(r.connect, 200, `${n}: the CONNECT is intercepted, not refused`);
    assert.equal(r.status, 200, `${n}: ${r.body}`);
    assert.ok(sent(ADNET).find((x) => x.path === `/echo?n=${n}`), `${n} reached the origin`);
  }
  // A request that names no page at all (no Referer, Origin or fetch metadata: a program, an
  // image whose page hides its address) is no page of the host's own: it stays blocked.
  const bare = await curl([`https://${ADNET}/echo?n=bare`]);
  assert.equal(bare.connect, 200);
  assert.equal(bare.status, 403);
  assert.ok(!sent(ADNET).find((x) => x.path === '/echo?n=bare'), 'it never reached the origin');
});

// What a page's request to a blocked third party gets, by what it fetches: [Sec-Fetch-Dest,
// status, Content-Type]. Documents get brock's page; the rest, what a page takes best.
const TYPED = [
  ['script', 200, 'application/javascript'],
  ['style', 200, 'text/css'],
  ['image', 204, null],
  ['font', 204, null],
  ['video', 204, null],
  ['empty', 204, null],
  ['iframe', 403, 'text/plain; charset=utf-8'],
  [null, 403, 'text/plain; charset=utf-8'],
];

function headerOf(r, name) {
  const m = new RegExp(`^${name}: *(.*?)\r?$`, 'mi').exec(r.headers);
  return m ? m[1] : null;
}

for (const scheme of ['https', 'http']) {
  check(`blocked third-party requests over ${scheme} get typed answers, one line each`,
        async () => {
    const site = `${scheme}://site4.test/page`;
    const lines = () => (brock.log().match(/block adnet\.test on site4\.test: /g) || []).length;
    for (const [dest, status, type] of TYPED) {
      const n = `${scheme}-${dest}`;
      const before = lines();
      const r = await curl(['-e', site, ...(dest ? ['-H', `Sec-Fetch-Dest: ${dest}`,
                                                    '-H', 'Sec-Fetch-Site: cross-site'] : []),
                            `${scheme}://${ADNET}/thing?n=${n}`]);
      assert.equal(r.code, 0, `${n}: ${r.stderr}`);
      if (scheme === 'https') assert.equal(r.connect, 200, n);
      assert.equal(r.status, status, n);
      assert.equal(headerOf(r, 'content-type'), type, n);
      assert.equal(headerOf(r, 'cache-control'), 'no-store', n);
      if (status === 204) assert.equal(headerOf(r, 'content-length'), null, n);
      if (status === 200) assert.equal(headerOf(r, 'content-length'), '0', n);
      if (status === 403)
        assert.match(r.body.toString(), /brock blocked this request to adnet\.test/);
      else assert.equal(r.body.length, 0, n);
      assert.equal(lines(), before + 1, `${n}: one line`);
    }
    // A ping (a POST of text/ping) and a beacon are told delivered.
    const ping = await curl(['-e', site, '-H', 'Content-Type: text/ping', '--data-binary', 'PING',
                             `${scheme}://${ADNET}/ping?n=${scheme}`]);
    assert.equal(ping.status, 204);
    assert.deepEqual(sent(ADNET).filter((x) => /^\/(thing|ping)\?/.test(x.path)), [],
                     'nothing reached the blocked host');
  });
}

check('typed answers keep the connection (and the tunnel) open', async () => {
  const r = await run('curl', ['-s', '-x', `http://127.0.0.1:${brock.port}`, '--cacert', brockCa,
                               '-e', 'https://site4.test/', '-H', 'Sec-Fetch-Dest: script',
                               '-o', '/dev/null', '-o', '/dev/null', '-o', '/dev/null',
                               '-w', '%{http_code}:%{num_connects} ',
                               `https://${ADNET}/a.js`, `https://${ADNET}/b.js`,
                               `https://${ADNET}/c.js`]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split(' '), ['200:1', '200:0', '200:0']);
});

check('without interception, a CONNECT to a blocked host is refused as before', async () => {
  const plain = f('state-plain');
  assert.equal((await h.brock(plain, ['set', ADNET, 'block'])).code, 0);
  const b = await h.startBrock({ state: plain, args: [
    '--no-update', '--upstream-ca', f('tca.pem'), ...h.resolveTo(origin.port, '*.test'),
  ] });
  try {
    const r = await h.curl(b.port, ['--cacert', f('tca.pem'), `https://${ADNET}/echo?n=plain`]);
    assert.equal(r.connect, 403);
    const site = await h.curl(b.port, ['--cacert', f('tca.pem'),
                                       'https://site1.test/echo?n=plain']);
    assert.equal(site.status, 200, 'other hosts tunnel');
  } finally {
    const r = await b.stop();
    assert.deepEqual(r, { code: 0, signal: null }, b.log().slice(-2000));
    assert.doesNotMatch(b.log(), /Sanitizer|runtime error/);
  }
  assert.equal(sent(ADNET).filter((x) => x.path === '/echo?n=plain').length, 0);
});

// CONNECT and the TLS ClientHello in one write, before any answer (some clients do so), then
// a GET inside; resolves with the CONNECT answer's head and what came back inside TLS.
function pipelined(port, target, servername, ca) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    let head = Buffer.alloc(0), answer = null, got = '';
    const timer = setTimeout(() => { s.destroy(); reject(new Error(`no answer: ${answer}`)); },
                             10000);
    const d = new Duplex({
      read() {},
      write(chunk, enc, cb) { s.write(chunk, cb); },
      final(cb) { s.end(); cb(); },
    });
    s.on('data', (b) => {
      if (answer !== null) { d.push(b); return; }
      head = Buffer.concat([head, b]);
      const at = head.indexOf('\r\n\r\n');
      if (at < 0) return;
      answer = head.subarray(0, at).toString('latin1');
      if (head.length > at + 4) d.push(head.subarray(at + 4));
    });
    s.on('end', () => d.push(null));
    s.on('error', () => {});
    s.cork();
    s.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
    const t = tls.connect({ socket: d, servername, ca: [fs.readFileSync(ca)] }, () => {
      t.write(`GET /echo?n=pipelined HTTP/1.1\r\nHost: ${servername}\r\n` +
              'Connection: close\r\n\r\n');
    });
    // The ClientHello is written on a later tick: both leave together.
    setTimeout(() => s.uncork(), 100);
    t.on('data', (c) => { got += c.toString('latin1'); });
    t.on('end', () => { clearTimeout(timer); s.destroy(); resolve({ answer, got }); });
    t.on('error', (e) => {
      clearTimeout(timer);
      s.destroy();
      reject(new Error(`${e.message}; the CONNECT's answer: ${answer}`));
    });
  });
}

check('a ClientHello sent before the CONNECT is answered is served, intercepted or not',
      async () => {
  const tunnel = await pipelined(brock.port, 'pinned.test:443', 'pinned.test', f('tca.pem'));
  assert.match(tunnel.answer, /^HTTP\/1\.1 200 /);
  assert.match(tunnel.got, /^HTTP\/1\.1 200 /);
  const rec = sent('pinned.test').find((x) => x.path === '/echo?n=pipelined');
  assert.ok(rec, 'the tunnelled request reached the origin');
  assert.deepEqual(header(rec, 'via'), [], 'unseen by brock');
  const mitm = await pipelined(brock.port, 'site1.test:443', 'site1.test', brockCa);
  assert.match(mitm.answer, /^HTTP\/1\.1 200 /);
  assert.match(mitm.got, /^HTTP\/1\.1 200 /);
  assert.ok(sent('site1.test').find((x) => x.path === '/echo?n=pipelined'));
});

// ---- upstream verification ----

for (const [name, reason] of [['selfsigned', /self.signed certificate/],
                              ['untrusted', /unable to get local issuer certificate/],
                              ['expired', /certificate has expired/],
                              ['misnamed', /hostname mismatch/]]) {
  check(`an upstream whose certificate is ${name} gets 502 and nothing`, async () => {
    const host = `${name}.test`;
    const before = bad[name].connections();
    const r = await curl([`https://${host}/secret?n=1`]);
    assert.equal(r.connect, 200, 'the tunnel to the client is fine');
    assert.equal(r.status, 502);
    const text = r.body.toString();
    assert.match(text, new RegExp(host.replace(/\./g, '\\.')), 'the page names the host');
    assert.match(text, reason, 'and the reason');
    assert.ok(bad[name].connections() > before, 'brock did try the origin');
    assert.equal(bad[name].requests.length, 0, 'nothing was sent to it');
  });
}

// ---- not intercepted ----

check('--no-intercept hosts are tunnelled unseen; blocked hosts are still refused', async () => {
  const r = await curl(['https://pinned.test/echo?n=pinned'], { ca: f('tca.pem') });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.status, 200);
  const rec = origin.to('pinned.test').find((x) => x.path === '/echo?n=pinned');
  assert.ok(rec);
  assert.deepEqual(header(rec, 'via'), [], 'brock did not see inside');
  assert.deepEqual(header(rec, 'dnt'), []);
  const withBrockCa = await curl(['https://pinned.test/echo?n=pinned2']);
  assert.equal(withBrockCa.code, 60, 'the certificate is the origin\'s, not brock\'s');
  const refused = await curl([`https://${PINNED_ADS}/x`], { ca: f('tca.pem') });
  assert.equal(refused.connect, 403);
  assert.equal(sent(PINNED_ADS).length, 0);
});

// ---- how connections end, in the default log ----

// CONNECT to host through port, then TLS inside; write(t) sends what the client sends, and
// resolves once it is done; then the client ends as `end` says: 'notify' (close_notify, then
// the socket closes), 'drop' (the socket closes without close_notify) or 'reset'. Resolves with
// what came back.
function tlsClient(port, host, write, end) {
  return new Promise((resolve, reject) => {
    const s = net.connect(port, '127.0.0.1');
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no answer')); }, 10000);
    let got = '';
    const finish = () => {
      clearTimeout(timer);
      if (end === 'notify') t.end();
      else if (end === 'reset') s.resetAndDestroy();
      else s.destroy();
      setTimeout(() => resolve(got), 100);
    };
    let t = null;
    s.once('data', (d) => {
      if (!/^HTTP\/1\.1 200 /.test(d.toString('latin1'))) {
        reject(new Error('CONNECT: ' + d));
        return;
      }
      if (!write) {
        finish();
        return;
      }
      t = tls.connect({ socket: s, servername: host, ca: [fs.readFileSync(brockCa)] },
                      () => write(t).then(finish, reject));
      t.on('data', (c) => { got += c.toString('latin1'); });
      t.on('error', () => {});
    });
    s.on('error', () => {});
    s.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`);
  });
}

// Sends a GET and waits for its whole answer.
function exchange(host) {
  return (t) => new Promise((resolve) => {
    let got = '';
    t.on('data', (c) => {
      got += c.toString('latin1');
      const m = /content-length: (\d+)/i.exec(got);
      const at = got.indexOf('\r\n\r\n');
      if (m && at >= 0 && got.length - at - 4 >= Number(m[1])) resolve();
    });
    t.write(`GET /echo?n=end HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  });
}

// Sends a POST's head and 10 bytes of the 100 it announced.
function halfBody(host) {
  return (t) => new Promise((resolve) => {
    t.write(`POST /upload HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 100\r\n\r\n` +
            '0123456789', () => setTimeout(resolve, 300));
  });
}

check('ends of intercepted connections: normal closes are silent, cut ones one line each',
      async () => {
  const endings = await startEndings(makeEndingsCert());
  // At the default level, serving 127.0.0.1 only (linesFrom's marker is a refused 127.0.0.2).
  const b = await h.startBrock({ state, args: [
    '--no-update', '--intercept', '--upstream-ca', f('tca.pem'), '--allow', '127.0.0.1/32',
    ...h.resolveTo(endings.port, ...ENDINGS), ...h.resolveTo(origin.port, '*.test'),
  ] });
  const lines = (action) => h.linesFrom(b, action, 300);
  const ca = ['--cacert', brockCa];
  try {
    await lines(async () => {});
    // Browsers and curl close between requests, with close_notify or without.
    assert.deepEqual(await lines(async () => {
      const r = await run('curl', ['-s', '-x', `http://127.0.0.1:${b.port}`, ...ca,
                                   '-o', '/dev/null', '-o', '/dev/null',
                                   'https://site1.test/echo?n=1', 'https://site1.test/echo?n=2']);
      assert.equal(r.code, 0, r.stderr);
    }), [], 'curl');
    for (const end of ['notify', 'drop', 'reset']) {
      assert.deepEqual(await lines(async () => {
        const got = await tlsClient(b.port, 'site2.test', exchange('site2.test'), end);
        assert.match(got, /^HTTP\/1\.1 200 /);
      }), [], `a client that ends with ${end} after a whole exchange`);
    }
    // Ends in the middle of something are worth one line.
    for (const end of ['drop', 'notify']) {
      const got = await lines(() => tlsClient(b.port, 'site2.test', halfBody('site2.test'), end));
      assert.equal(got.length, 1, got.join(' | '));
      assert.match(got[0], /brock: 127\.0\.0\.1 POST site2\.test: the client closed the connection mid-request$/);
    }
    // A close during the handshake is one line, for a host the client does not use; for one
    // it just spoke to (a browser giving up its spare connections), none.
    const early = await lines(() => tlsClient(b.port, 'site3.test', null, 'drop'));
    assert.equal(early.length, 1, early.join(' | '));
    assert.match(early[0], /brock: 127\.0\.0\.1 CONNECT site3\.test: the client closed the connection during the TLS handshake$/);
    assert.deepEqual(await lines(() => tlsClient(b.port, 'site2.test', null, 'drop')), [],
                     'a spare connection to a host in use');
    // Upstream: a response cut short is detected, with or without close_notify, and reaches the
    // client cut short; whole ones are complete, however the connection ends.
    for (const host of ['cut.test', 'cut-notify.test']) {
      let r;
      const got = await lines(async () => { r = await h.curl(b.port, [...ca, `https://${host}/`]); });
      assert.notEqual(r.code, 0, 'curl sees the body cut short');
      assert.equal(r.body.toString(), '0123456789');
      assert.equal(got.length, 1, got.join(' | '));
      assert.match(got[0], new RegExp(`brock: 127\\.0\\.0\\.1 GET ${host.replace(/\./g, '\\.')}: ` +
                                      'the upstream closed the connection mid-response$'));
    }
    for (const host of ['whole.test', 'until-close.test']) {
      let r;
      assert.deepEqual(await lines(async () => {
        r = await h.curl(b.port, [...ca, `https://${host}/`]);
      }), [], host);
      assert.equal(r.code, 0, `${host}: ${r.stderr}`);
      assert.equal(r.body.toString(), '0123456789', host);
    }
    assert.doesNotMatch(b.log(), /unexpected eof/);
  } finally {
    await b.stop();
    await endings.close();
  }
});

check('brock stops cleanly after all of it, with nothing left behind', async () => {
  const r = await brock.stop();
  assert.deepEqual(r, { code: 0, signal: null }, brock.log().slice(-2000));
  assert.doesNotMatch(brock.log(), /Sanitizer|runtime error/);
  brock = null;
});
