#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock under a service manager: with NOTIFY_SOCKET it tells the socket READY=1 once it
// listens, RELOADING=1 then READY=1 around a SIGHUP, STOPPING=1 on SIGTERM, each with a
// STATUS= line; with workers, the parent alone, for all of them. Socket activation: started
// by systemd-socket-activate (LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES, the socket as
// descriptor 3), brock serves on that socket, the connection that started it first, and binds
// none of its own, with one process or with workers; what is not one listening TCP socket is
// refused. debian/brock.service and brock.socket pass `systemd-analyze verify`.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { startOrigin } = require('./origin.js');
const h = require('./harness.js');
const { check, run, tmpdir, waitFor, freePort } = h;

let listener, origin;

// The notification socket's listener, built here (notify_listen.c).
before(async () => {
  const dir = tmpdir('notify-bin');
  listener = path.join(dir, 'notify_listen');
  const cc = await run(process.env.CC || 'cc', ['-O1', '-o', listener,
                                                path.join(__dirname, 'notify_listen.c')],
                       { timeout: 60000 });
  assert.equal(cc.code, 0, cc.stderr);
  origin = await startOrigin();
});
after(async () => {
  if (origin) await origin.close();
});

// Starts the listener on a fresh socket; resolves with its path and what it received so far.
async function notifySocket() {
  const sock = path.join(tmpdir('notify'), 'notify.sock');
  const proc = h.track(spawn(listener, [sock], { stdio: ['ignore', 'pipe', 'pipe'] }));
  let out = '', err = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { err += d; });
  await waitFor('the notification socket', () => {
    if (proc.exitCode !== null) throw new Error('notify_listen: ' + err);
    return out.startsWith('bound\n');
  }, 10000);
  return { sock, proc, messages: () => out.split('\n').slice(1, -1) };
}

// Whether something accepts connections on port now.
function accepts(port) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host: '127.0.0.1' }, () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
}

check('READY=1 once listening, RELOADING=1 and READY=1 around SIGHUP, STOPPING=1 on SIGTERM',
      async () => {
  const n = await notifySocket();
  const b = await h.startBrock({ state: path.join(tmpdir('notify-state'), 'state'),
                                 args: ['--no-update'], env: { NOTIFY_SOCKET: n.sock } });
  try {
    const ready = await waitFor('READY=1', () => n.messages().find((m) => /READY=1/.test(m)));
    assert.ok(await accepts(b.port), 'READY=1 came before brock accepted connections');
    assert.match(ready, new RegExp(`^READY=1\\|STATUS=serving on 127\\.0\\.0\\.1:${b.port}`));
    assert.ok(!n.messages().some((m) => /STOPPING|RELOADING/.test(m)), n.messages().join('\n'));

    b.proc.kill('SIGHUP');
    await waitFor('the reload', () => n.messages().length >= 3);
    const [reloading, again] = n.messages().slice(1, 3);
    assert.match(reloading, /^RELOADING=1\|STATUS=.*\|MONOTONIC_USEC=\d+$/);
    assert.match(again, /^READY=1\|STATUS=serving on /);

    const r = await b.stop('SIGTERM');
    assert.equal(r.code, 0);
    await waitFor('STOPPING=1', () => n.messages().length >= 4, 5000);
    assert.match(n.messages()[3], /^STOPPING=1\|STATUS=stopping/);
  } finally {
    await b.stop();
    n.proc.kill('SIGKILL');
  }
});

check('with --workers 2 the parent alone speaks: READY=1 once both listen', async () => {
  const n = await notifySocket();
  const b = await h.startBrock({ state: path.join(tmpdir('notify-state'), 'state'),
                                 args: ['--no-update', '--workers', '2'],
                                 env: { NOTIFY_SOCKET: n.sock } });
  try {
    const ready = await waitFor('READY=1', () => n.messages().find((m) => /READY=1/.test(m)));
    assert.match(ready,
                 new RegExp(`^READY=1\\|STATUS=2 workers serving on 127\\.0\\.0\\.1:${b.port}`));
    assert.match(b.log(), /worker 2 of 2 serving/, 'READY=1 came once both were');
    b.proc.kill('SIGHUP');
    await waitFor('the reload', () => n.messages().length >= 3);
    const [reloading, again] = n.messages().slice(1, 3);
    assert.match(reloading, /^RELOADING=1\|STATUS=.*\|MONOTONIC_USEC=\d+$/);
    assert.match(again, /^READY=1\|STATUS=2 workers serving on /);
    assert.equal(b.log().split('\n').filter((l) => /SIGHUP: read Privacy Badger/.test(l)).length,
                 2, 'both read it again before READY=1');
    const r = await b.stop('SIGTERM');
    assert.equal(r.code, 0);
    await waitFor('STOPPING=1', () => n.messages().length >= 4, 5000);
    assert.match(n.messages()[3], /^STOPPING=1\|STATUS=stopping/);
    assert.equal(n.messages().length, 4, n.messages().join('\n'));
  } finally {
    await b.stop();
    n.proc.kill('SIGKILL');
  }
});

// A request sent through the proxy on port as soon as something accepts there (it waits in
// the socket's queue while brock starts); resolves with the whole answer (latin1).
async function proxiedOnce(port, host, ms = 20000) {
  const until = Date.now() + ms;
  for (;;) {
    const got = await new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      let text = '';
      s.setTimeout(Math.max(until - Date.now(), 1), () => s.destroy());
      s.on('connect', () => s.write(`GET http://${host}/activated HTTP/1.1\r\nHost: ${host}\r\n` +
                                    'Connection: close\r\n\r\n'));
      s.on('data', (d) => { text += d.toString('latin1'); });
      s.on('error', (e) => resolve(e.code === 'ECONNREFUSED' ? null : text));
      s.on('close', () => resolve(text));
    });
    if (got !== null) return got;
    if (Date.now() > until) throw new Error(`nothing listened on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The listening TCP sockets (inode -> port) of the network namespace.
function listeningSockets() {
  const out = new Map();
  for (const f of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(f)) continue;
    for (const line of fs.readFileSync(f, 'utf8').split('\n').slice(1)) {
      const c = line.trim().split(/\s+/);
      if (c.length > 9 && c[3] === '0A') out.set(c[9], parseInt(c[1].split(':').pop(), 16));
    }
  }
  return out;
}

// The ports of the listening sockets that process pid and its children hold.
function portsHeld(pid) {
  const listening = listeningSockets(), ports = new Set();
  const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  for (const p of [pid, ...children.split(/\s+/).filter(Boolean).map(Number)]) {
    for (const fd of fs.readdirSync(`/proc/${p}/fd`)) {
      let target;
      try { target = fs.readlinkSync(`/proc/${p}/fd/${fd}`); } catch { continue; }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && listening.has(m[1])) ports.add(listening.get(m[1]));
    }
  }
  return [...ports];
}

async function activated(t, workers) {
  if ((await run('systemd-socket-activate', ['--version'])).code !== 0) {
    t.skip('systemd-socket-activate is missing (scripts/deps test installs systemd)');
    return;
  }
  const port = await freePort(), unused = await freePort();
  const start = h.startBrock({
    state: path.join(tmpdir('activate-state'), 'state'), listen: `127.0.0.1:${unused}`,
    args: ['--no-update', '--resolve', `*.test=127.0.0.1:${origin.port}`, ...workers],
    wrap: ['systemd-socket-activate', '-l', `127.0.0.1:${port}`, '--fdname=proxy', '--'],
  });
  start.catch(() => {});
  // systemd-socket-activate starts brock at the first connection, which brock then serves.
  const before = origin.to('first.test').length;
  const first = await proxiedOnce(port, 'first.test');
  const b = await start;
  try {
    assert.match(first, /^HTTP\/1\.1 200 /, first);
    assert.equal(origin.to('first.test').length, before + 1);
    assert.equal(b.port, port, b.log());
    assert.match(b.log(), new RegExp(`listening on 127\\.0\\.0\\.1:${port} \\(the socket ` +
                                     'systemd passed\\)'));
    assert.match(b.log(), new RegExp(`--listen 127\\.0\\.0\\.1:${unused} is not used: brock ` +
                                     'serves on the socket systemd passed ' +
                                     `\\(127\\.0\\.0\\.1:${port}\\)`));
    for (let i = 0; i < 6; i++) {
      const r = await h.curl(port, [`http://again${i}.test/`]);
      assert.equal(r.status, 200, r.stderr);
    }
    const pac = await h.curl(port, ['--noproxy', '*', `http://127.0.0.1:${port}/proxy.pac`]);
    assert.equal(pac.status, 200);
    assert.match(pac.body.toString(), new RegExp(`PROXY 127\\.0\\.0\\.1:${port}`));
    assert.ok(!(await accepts(unused)), `brock listens on --listen's port ${unused} too`);
    assert.deepEqual(portsHeld(b.proc.pid), [port], 'brock bound a socket of its own');
    assert.deepEqual(await b.stop('SIGTERM'), { code: 0, signal: null }, b.log());
  } finally {
    await b.stop();
  }
}

check('socket activation: brock serves on the socket systemd passed and binds none',
      async (t) => activated(t, []));

check('socket activation with --workers 2: the workers share the socket systemd passed',
      async (t) => activated(t, ['--workers', '2']));

check('a passed descriptor that is not one listening TCP socket is refused, naming it',
      async () => {
  const state = path.join(tmpdir('activate-bad'), 'state');
  const as = (env, redirect) => run('sh', ['-c', `${env} LISTEN_PID=$$ exec "$0" "$@" ${redirect}`,
                                           h.BROCK, '--state', state, '--data', h.DATA, 'run',
                                           '--no-update', '--listen', '127.0.0.1:0']);
  let r = await as('LISTEN_FDS=1', '3</dev/null');
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /the socket systemd passed \(descriptor 3\) is not a listening TCP socket; brock\.socket needs ListenStream=ADDR:PORT/);
  assert.doesNotMatch(r.stderr, /listening on/);
  r = await as('LISTEN_FDS=2', '3</dev/null 4</dev/null');
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /systemd passed 2 sockets; brock serves the proxy and its dashboard on one/);
  assert.ok(!fs.existsSync(state), 'a refused start created the state');
});

check('debian/brock.service and brock.socket pass systemd-analyze verify', async (t) => {
  const probe = await run('systemd-analyze', ['--version']);
  if (probe.code !== 0) {
    t.skip('systemd-analyze is missing (scripts/deps test installs systemd)');
    return;
  }
  const unit = fs.readFileSync(path.join(__dirname, '..', '..', 'debian', 'brock.service'),
                               'utf8');
  for (const want of ['Type=notify', 'ExecReload=/bin/kill -HUP $MAINPID', 'User=brock',
                      'StateDirectory=brock', 'StateDirectoryMode=0700',
                      'ProtectSystem=strict', 'ProtectHome=yes', 'PrivateTmp=yes',
                      'NoNewPrivileges=yes', 'SystemCallFilter=@system-service']) {
    assert.ok(unit.split('\n').includes(want), `the unit lacks ${want}`);
  }
  assert.match(unit, /^CapabilityBoundingSet=$/m);
  // The binary is not installed here: the unit is verified with the one under test.
  const dir = tmpdir('unit');
  const copy = path.join(dir, 'brock.service');
  fs.writeFileSync(copy, unit.replace(/\/usr\/bin\/brock/g, h.BROCK));
  const r = await run('systemd-analyze', ['verify', '--man=no', copy], { timeout: 30000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.trim(), '', 'systemd-analyze found something to say');

  // The socket, beside the service it starts: one stream on loopback, named for brock.
  const socket = fs.readFileSync(path.join(__dirname, '..', '..', 'debian', 'brock.socket'),
                                 'utf8');
  const streams = socket.split('\n').filter((l) => /^ListenStream=/.test(l));
  assert.deepEqual(streams, ['ListenStream=127.0.0.1:8119'], 'brock serves on one socket');
  assert.ok(socket.split('\n').includes('FileDescriptorName=proxy'));
  assert.match(socket, /^WantedBy=sockets\.target$/m);
  fs.writeFileSync(path.join(dir, 'brock.socket'), socket);
  const s = await run('systemd-analyze', ['verify', '--man=no', path.join(dir, 'brock.socket')],
                      { timeout: 30000 });
  assert.equal(s.code, 0, s.stderr);
  assert.equal(s.stderr.trim(), '', 'systemd-analyze found something to say of the socket');
});
