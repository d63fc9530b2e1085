#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// brock under a service manager: with NOTIFY_SOCKET it tells the socket READY=1 once it
// listens, RELOADING=1 then READY=1 around a SIGHUP, STOPPING=1 on SIGTERM, each with a
// STATUS= line; with workers, the parent alone, for all of them. debian/brock.service passes
// `systemd-analyze verify`.
'use strict';

const { before } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const h = require('./harness.js');
const { check, run, tmpdir, waitFor } = h;

let listener;

// The notification socket's listener, built here (notify_listen.c).
before(async () => {
  const dir = tmpdir('notify-bin');
  listener = path.join(dir, 'notify_listen');
  const cc = await run(process.env.CC || 'cc', ['-O1', '-o', listener,
                                                path.join(__dirname, 'notify_listen.c')],
                       { timeout: 60000 });
  assert.equal(cc.code, 0, cc.stderr);
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

check('debian/brock.service passes systemd-analyze verify', async (t) => {
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
  const copy = path.join(tmpdir('unit'), 'brock.service');
  fs.writeFileSync(copy, unit.replace(/\/usr\/bin\/brock/g, h.BROCK));
  const r = await run('systemd-analyze', ['verify', '--man=no', copy], { timeout: 30000 });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.trim(), '', 'systemd-analyze found something to say');
});
