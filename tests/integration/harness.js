// SPDX-License-Identifier: GPL-3.0-or-later
// What every integration test needs: brock started on a free loopback port with a state of
// its own and stopped by pid whatever happens, commands and curl run with a time bound, raw
// bytes written to a port, and failures reported on one line so that prove shows them.
'use strict';

const { test, after } = require('node:test');
const { spawn, execFile, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

// Tests started as root run brock as the user nobody (brock drops to it, or a test runs it
// so with setpriv), who must be able to reach the binary and the data. From a clone in a
// closed home folder (/root is 0700) it cannot: the file then uses copies of both in a folder
// of its own, open to others, made once and removed at exit.
const NOBODY = 65534;
function reachable(binary, data) {
  if (!process.getuid || process.getuid() !== 0 || !binary) return [binary, data];
  try {
    execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups',
                             'test', '-x', binary, '-a', '-r', path.join(data, 'seed.json')],
                 { stdio: 'ignore' });
    return [binary, data];
  } catch {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'brock-reach-'));
    folders.push(d);
    fs.chmodSync(d, 0o755);
    fs.copyFileSync(binary, path.join(d, 'brock'));
    fs.chmodSync(path.join(d, 'brock'), 0o755);
    fs.cpSync(data, path.join(d, 'privacybadger'), { recursive: true });
    return [path.join(d, 'brock'), path.join(d, 'privacybadger')];
  }
}

// prove's TAP parser reads only one-line YAML: a failure is reported as one line, so that it
// shows as a failed test rather than as a parse error that hides the rest. prove shows only
// "not ok" of it, so the reason is also written where make check prints it.
// flat(fn) or flat(name, fn): the name says which step failed.
function flat(a, b) {
  const [name, fn] = typeof a === 'string' ? [a, b] : ['setting up', a];
  return async (...args) => {
    try {
      await fn(...args);
    } catch (e) {
      const text = String(e && e.message);
      const why = `# failed: ${path.basename(process.argv[1] || '?')}: ${name}\n` +
                  `${text.replace(/^/gm, '#   ')}\n`;
      process.stderr.write(why);
      // prove shows a node test file's standard error only as hidden comments: make check
      // prints this file after prove's summary when something failed.
      if (process.env.BROCK_TEST_FAILURES) {
        try {
          fs.appendFileSync(process.env.BROCK_TEST_FAILURES, why.slice(0, 4000));
        } catch { /* the reason is on standard error too */ }
      }
      // Cut long, so that the reporter's quoting of it stays whole.
      const one = new Error(text.replace(/\s*\n\s*/g, ' | ').slice(0, 2000));
      one.stack = '';
      throw one;
    }
  };
}

function check(name, fn, timeout = 30000) {
  test(name, { timeout }, flat(name, fn));
}

// Whatever happens to this process, nothing it started outlives it, and its folders go.
const running = new Set();
const folders = [];
function stopAll() {
  for (const p of running) {
    try { process.kill(p.pid, 'SIGKILL'); } catch { /* already gone */ }
  }
  running.clear();
}
process.on('exit', () => {
  stopAll();
  for (const d of folders) fs.rmSync(d, { recursive: true, force: true });
});

const [BROCK, DATA] = reachable(
  process.env.BROCK,
  path.join(process.env.BROCK_TESTDATA || path.join(__dirname, '..', 'data'), 'privacybadger'));
// A signal (the harness's deadline, ^C) ends the file at once, children first.
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) {
  process.on(sig, () => {
    process.stderr.write(`# ${sig}: stopping everything this test started\n`);
    stopAll();
    process.exit(1);
  });
}

// No file can hang. Past its deadline (BROCK_TEST_DEADLINE seconds, default 600) a file
// stops what it started and fails. Once its last test has ended, what is still open (an
// origin server a failed `before` never handed to `after`) cannot keep it running: the file
// ends a few seconds later. Both timers are unref'd: they never keep the file alive alone.
const DEADLINE_S = Number(process.env.BROCK_TEST_DEADLINE) || 600;
setTimeout(() => {
  process.stderr.write(`# deadline: still running after ${DEADLINE_S} s; stopping\n`);
  stopAll();
  process.exit(1);
}, DEADLINE_S * 1000).unref();
after(() => {
  setTimeout(() => { stopAll(); process.exit(); }, 3000).unref();
});

// A fresh folder under the system's temporary folder, removed at exit. Started as root,
// brock hands its state to an unprivileged user, who must be able to reach it: the folder is
// then open to others for traversal and reading (the state inside is brock's own, 0700).
function tmpdir(name) {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `brock-${name}-`));
  if (process.getuid && process.getuid() === 0) fs.chmodSync(d, 0o755);
  folders.push(d);
  return d;
}

// The tests' own PostgreSQL server (tests/pg-server): pg(ARGS...) runs it with a time bound.
const PG_SERVER = path.join(__dirname, '..', 'pg-server');
const pg = (...args) => execFileSync(PG_SERVER, args, { encoding: 'utf8', timeout: 30000,
                                                        stdio: ['ignore', 'pipe', 'pipe'] });

// Starts one in a folder of its own, stopped when this test process is gone whatever happens:
// { dir, conninfo }, or { dir, skip } saying why when PostgreSQL's binaries are missing. Stop
// it with pg('stop', dir).
function startPg(name) {
  const dir = path.join(tmpdir(name), 'pg');
  try {
    return { dir, conninfo: pg('start', dir, String(process.pid)).trim() };
  } catch (e) {
    if (e.status !== 77) throw new Error(`tests/pg-server: ${e.stderr || e.message}`);
    return { dir, skip: String(e.stderr).trim() };
  }
}

// Starts a child whose pid is killed at exit.
function track(proc) {
  running.add(proc);
  proc.on('exit', () => running.delete(proc));
  return proc;
}

// Starts `brock --state STATE --data DATA [global...] run --listen 127.0.0.1:0 [--workers N]
// [args...]` and resolves once it says where it listens. opts: state (required), args (after `run`),
// global (before `run`), env, listen, spawn (extra spawn options), wrap ([cmd, ...args]
// to run brock under, valgrind for one), startMs.
async function startBrock(opts) {
  const listen = opts.listen || '127.0.0.1:0';
  // brock's default, one process, unless a test asks for workers (the suites count one
  // process's lines), or BROCK_TEST_WORKERS says how many for all.
  const args = opts.args || [];
  const workers = args.some((a) => /^--workers/.test(a)) || !process.env.BROCK_TEST_WORKERS ? []
    : ['--workers', process.env.BROCK_TEST_WORKERS];
  const brockArgs = ['--state', opts.state, '--data', DATA, ...(opts.global || []),
                     'run', '--listen', listen, ...workers, ...args];
  const [cmd, ...pre] = opts.wrap ? [...opts.wrap, BROCK] : [BROCK];
  const proc = track(spawn(cmd, [...pre, ...brockArgs], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, ...(opts.env || {}) },
    ...(opts.spawn || {}),
  }));
  let log = '';
  const exited = new Promise((resolve) => {
    proc.on('exit', (code, signal) => resolve({ code, signal }));
  });
  proc.stderr.on('data', (d) => { log += d; });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('brock did not start: ' + log)),
                             opts.startMs || 15000);
    const look = () => {
      const m = /brock: listening on (?:[0-9.]+|\[[0-9a-f:]+\]):(\d+)/.exec(log);
      if (m) { clearTimeout(timer); resolve(Number(m[1])); }
    };
    proc.stderr.on('data', look);
    exited.then(() => { clearTimeout(timer); reject(new Error('brock exited: ' + log)); });
  });
  return {
    proc, port, exited,
    log: () => log,
    // SIGTERM lets exchanges in flight finish for brock's grace period (10 s): the kill
    // comes later than that.
    async stop(sig = 'SIGTERM', ms = 20000) {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
      const timer = setTimeout(() => proc.kill('SIGKILL'), ms);
      const r = await exited;
      clearTimeout(timer);
      return r;
    },
  };
}

// brock's options that send every host of hosts (names, "*.test", "name:443") to port on
// loopback: ['--resolve', 'HOST=127.0.0.1:PORT', ...].
function resolveTo(port, ...hosts) {
  return hosts.flatMap((host) => ['--resolve', `${host}=127.0.0.1:${port}`]);
}

// A loopback port nothing listens on now (one just listened on and closed): for an origin
// that is down, or a port to name before what will listen there starts.
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// Runs a command to its end (bounded); resolves with its exit code, stdout and stderr.
function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = execFile(cmd, args, {
      encoding: opts.encoding || 'utf8', maxBuffer: 64 << 20, timeout: opts.timeout || 20000,
      env: { ...process.env, ...(opts.env || {}) },
    }, (err, stdout, stderr) => resolve({ code: err ? (err.code ?? 1) : 0, stdout, stderr }));
    track(child);
  });
}

// `brock --state STATE --data DATA ARGS...`, run to its end.
function brock(state, args, opts = {}) {
  return run(BROCK, ['--state', state, '--data', DATA, ...args], opts);
}

// curl through the proxy on port (through SOCKS5 at opts.socks instead, when given); resolves
// with the status, the CONNECT answer's status (0 when none), response headers, body (Buffer)
// and curl's exit code.
async function curl(port, args, opts = {}) {
  const dir = tmpdir('curl');
  const hdr = path.join(dir, 'headers'), body = path.join(dir, 'body');
  const r = await run('curl', ['-s', '--max-time', String(opts.maxTime || 15),
                               ...(opts.socks ? ['--socks5-hostname', `127.0.0.1:${opts.socks}`]
                                 : ['-x', `http://127.0.0.1:${port}`]),
                               '-D', hdr, '-o', body, '-w', '%{http_code} %{http_connect}',
                               ...args], opts);
  const [status, connect] = r.stdout.split(' ').map(Number);
  const out = {
    code: r.code, status, connect, stderr: r.stderr,
    headers: fs.existsSync(hdr) ? fs.readFileSync(hdr, 'latin1') : '',
    body: fs.existsSync(body) ? fs.readFileSync(body) : Buffer.alloc(0),
  };
  fs.rmSync(dir, { recursive: true, force: true });
  return out;
}

// Raw bytes to port; resolves with what came back (latin1) once the peer closes or `until`
// matches it, and whether the peer closed.
function raw(port, data, opts = {}) {
  return rawFrom(undefined, port, data, opts);
}

// Polls fn until it returns something truthy (bounded).
async function waitFor(what, fn, ms = 20000) {
  const until = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// A process's resident memory in KiB, from /proc.
function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : 0;
}

// The fetch metadata a browser sends on a top-level navigation. brock learns only from the
// requests of pages it saw the client navigate to (src/proxy/firstparty.c): a test that
// browses with a Referer opens the page with these first, as a browser would.
const NAVIGATE = { 'Sec-Fetch-Mode': 'navigate', 'Sec-Fetch-Dest': 'document',
                   'Sec-Fetch-Site': 'none' };
const NAVIGATE_ARGS = Object.entries(NAVIGATE).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);

// Opens url as a top-level page through brock on port; resolves with the status (0 when the
// request failed). agent: node's http agent (default: a connection of its own).
function navigate(port, url, agent = false) {
  return new Promise((resolve) => {
    const u = new URL(url);
    const req = http.request({ host: '127.0.0.1', port, path: url, agent, timeout: 10000,
                               headers: { Host: u.host, ...NAVIGATE } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', () => resolve(0));
    req.end();
  });
}

// One request through brock on port as tracker embedded on site (opened first as a top-level
// page), with an identifying cookie (the same for the same pair); resolves with { status, ms }
// once the whole answer has arrived (ms: the tracker's request alone). agent: as navigate().
async function trackerHit(port, tracker, site, agent = false) {
  await navigate(port, `http://${site}/`, agent);
  const t0 = process.hrtime.bigint();
  return new Promise((done, fail) => {
    const uid = require('node:crypto').createHash('sha256').update(tracker + site)
      .digest('hex').slice(0, 24);
    const req = http.request({
      host: '127.0.0.1', port, agent, path: `http://${tracker}/pixel.gif`,
      headers: { Host: tracker, Referer: `http://${site}/`, Cookie: `uid=${uid}` },
      timeout: 10000,
    }, (res) => {
      res.resume();
      res.on('end', () => done({ status: res.statusCode,
                                 ms: Number(process.hrtime.bigint() - t0) / 1e6 }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', fail);
    req.end();
  });
}

module.exports = {
  BROCK, DATA, flat, check, tmpdir, track, startBrock, resolveTo, freePort, run, brock, curl,
  raw, waitFor, rssKiB,
  NAVIGATE, NAVIGATE_ARGS, navigate, trackerHit, pg, startPg,
};

// Like raw(), from a chosen local address (net.connect's localAddress: '127.0.0.2' is a
// different loopback client) to 127.0.0.1:port; resolves with { text, closed }.
function rawFrom(localAddress, port, data, { until, wait = 10000, host = '127.0.0.1' } = {}) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ port, host, localAddress });
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => { s.destroy(); reject(new Error('no answer: ' + got)); }, wait);
    let settled = false;
    const done = (closed) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.destroy();
      resolve({ text: got.toString('latin1'), closed });
    };
    s.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (until && until(got.toString('latin1'))) done(false);
    });
    s.on('end', () => done(true));
    s.on('error', () => done(true));
    s.write(data);
  });
}
module.exports.rawFrom = rawFrom;

// A yellowlisted domain of two labels that Privacy Badger's seed already cookieblocks: the
// first in the yellowlist's order.
function pickYellow() {
  const seed = JSON.parse(fs.readFileSync(path.join(DATA, 'seed.json'), 'utf8'));
  const list = fs.readFileSync(path.join(DATA, 'yellowlist.txt'), 'utf8').split('\n');
  for (const d of list.map((l) => l.trim()).filter(Boolean)) {
    const a = seed.action_map[d];
    if (a && a.heuristicAction === 'cookieblock' && d.split('.').length === 2) return d;
  }
  throw new Error('no cookieblocked yellowlisted domain in the seed');
}
module.exports.pickYellow = pickYellow;

// The time stamp that starts each line brock logs: local time with milliseconds and the UTC
// offset. stampTime() reads one back as a Date (null when text does not start with one).
const STAMP = /^(\d{4})-(\d\d)-(\d\d) (\d\d):(\d\d):(\d\d)\.(\d{3}) ([+-])(\d\d)(\d\d) brock: /;
function stampTime(text) {
  const m = STAMP.exec(text);
  if (!m) return null;
  const [, y, mo, d, hh, mm, ss, ms, sign, oh, om] = m;
  const offset = (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  return new Date(Date.UTC(+y, +mo - 1, +d, +hh, +mm, +ss, +ms) - offset * 60000);
}
module.exports.STAMP = STAMP;
module.exports.stampTime = stampTime;

// The lines b (started with --allow leaving 127.0.0.2 out) logs because of what action does.
// A client at 127.0.0.2 is refused after it, with a line of its own: brock writes its lines in
// order, so what comes before that one is complete. settleMs lets what action started end.
async function linesFrom(b, action, settleMs = 200) {
  const complete = () => b.log().split('\n').slice(0, -1);
  const isMarker = (l) => /refused 127\.0\.0\.2:\d+ with 403/.test(l);
  const start = complete().length;
  await action();
  await new Promise((r) => setTimeout(r, settleMs));
  const markers = complete().filter(isMarker).length;
  await rawFrom('127.0.0.2', b.port, 'GET / HTTP/1.1\r\n\r\n');
  await waitFor('the marker line', () => complete().filter(isMarker).length > markers, 5000);
  const lines = complete();
  let end = lines.length - 1;
  while (!isMarker(lines[end])) end--;
  return lines.slice(start, end);
}
module.exports.linesFrom = linesFrom;

// Test certificates, made with the openssl CLI in dir. testCa(dir, name, cn): a throw-away
// CA, dir/NAME.pem and dir/NAME.key, its subject CN=cn.
function openssl(args) {
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
}
function testCa(dir, name, cn) {
  const f = (n) => path.join(dir, n);
  openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
           '-days', '2', '-subj', `/CN=${cn}`, '-keyout', f(`${name}.key`),
           '-out', f(`${name}.pem`), '-addext', 'basicConstraints=critical,CA:TRUE',
           '-addext', 'keyUsage=critical,keyCertSign']);
  return f(`${name}.pem`);
}

// A leaf (a server's certificate) in dir/NAME.*, for sans (subjectAltName entries: "DNS:x",
// "IP:x"; a bare name is a DNS one), signed by the CA dir/CA.pem made by testCa, valid for
// days from now (negative: expired): { key, cert } (PEM bytes).
function testLeaf(dir, name, { sans, cn = name, ca = 'ca', days = 2 }) {
  const f = (n) => path.join(dir, n);
  openssl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
           '-subj', `/CN=${cn}`, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`)]);
  const alt = sans.map((n) => (/^[A-Z]+:/.test(n) ? n : `DNS:${n}`)).join(',');
  fs.writeFileSync(f(`${name}.ext`), `subjectAltName=${alt}\nextendedKeyUsage=serverAuth\n`);
  openssl(['x509', '-req', '-in', f(`${name}.csr`), '-CA', f(`${ca}.pem`), '-CAkey', f(`${ca}.key`),
           '-set_serial', '0x' + require('node:crypto').randomBytes(8).toString('hex'),
           '-days', String(days), '-extfile', f(`${name}.ext`), '-out', f(`${name}.pem`)]);
  return { key: fs.readFileSync(f(`${name}.key`)), cert: fs.readFileSync(f(`${name}.pem`)) };
}

// A throw-away CA in dir and one leaf it signed for names (an origin's TLS certificate):
// { ca: the CA's PEM file, key, cert: the leaf's PEM bytes }.
function originCerts(dir, names, label = 'brock test') {
  const ca = testCa(dir, 'ca', `${label} CA`);
  return { ca, ...testLeaf(dir, 'leaf', { sans: names, cn: `${label} origin` }) };
}
module.exports.testCa = testCa;
module.exports.testLeaf = testLeaf;
module.exports.originCerts = originCerts;

// A host of the test's own: a network namespace joined to this one by a veth pair, the
// namespace's end at nsAddr and this one's at hostAddr (each "ADDR/PREFIX"), with its own
// loopback up. It is removed at exit whatever happens (its end of the pair with it), and one
// of the same name left by a killed run is removed first. Needs root, as CI is. Returns
// { name, address (nsAddr's address), host (hostAddr's), exec: the argument list that runs a
// command inside it }.
const namespaces = [];
function netns(name, hostAddr, nsAddr) {
  const ip = (...args) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const gone = () => {
    try { ip('netns', 'del', name); } catch { /* not there */ }
  };
  gone();
  namespaces.push(gone);
  if (namespaces.length === 1) process.on('exit', () => namespaces.forEach((f) => f()));
  const outer = `${name}-h`, inner = `${name}-n`;
  ip('netns', 'add', name);
  ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
  ip('link', 'set', inner, 'netns', name);
  ip('addr', 'add', hostAddr, 'dev', outer);
  ip('link', 'set', outer, 'up');
  ip('netns', 'exec', name, 'ip', 'addr', 'add', nsAddr, 'dev', inner);
  ip('netns', 'exec', name, 'ip', 'link', 'set', inner, 'up');
  ip('netns', 'exec', name, 'ip', 'link', 'set', 'lo', 'up');
  return { name, address: nsAddr.split('/')[0], host: hostAddr.split('/')[0],
           exec: ['ip', 'netns', 'exec', name] };
}
module.exports.netns = netns;

// dnsmasq from Debian on 127.0.0.1:port, answering only from its own records (args: --address,
// --host-record, --cname...), logging each query it is asked. Stopped by pid at exit with the
// rest of what the test started. Resolves with { log(): its log so far, queries(type, name):
// how many queries of type ("A", "AAAA") for name it was asked, port, stop() }.
async function startDnsmasq(port, args) {
  const bin = ['/usr/sbin/dnsmasq', '/usr/bin/dnsmasq'].find((p) => fs.existsSync(p));
  if (!bin) throw new Error('dnsmasq (dnsmasq-base) is not installed');
  const proc = track(spawn(bin, [
    '--keep-in-foreground', '--no-resolv', '--no-hosts', '--listen-address=127.0.0.1',
    '--bind-interfaces', `--port=${port}`, '--pid-file', '--log-facility=-', '--log-queries',
    ...args], { stdio: ['ignore', 'ignore', 'pipe'] }));
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  await waitFor('dnsmasq to start', () => {
    if (proc.exitCode !== null) throw new Error(`dnsmasq exited: ${log}`);
    return /started/.test(log);
  });
  const queries = (type, name) => (log.match(new RegExp(
    `query\\[${type}\\] ${name.replace(/\./g, '\\.')} from`, 'gi')) || []).length;
  return { port, log: () => log, queries, stop: () => proc.kill('SIGKILL') };
}
module.exports.startDnsmasq = startDnsmasq;
