#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Exposure: brock listens on loopback unless told otherwise, serves exactly the clients
// --allow names (only loopback without it) and refuses the rest with 403 before reading
// anything; a request for brock's own address through brock is answered by brock, never
// forwarded; started as root it runs as an unprivileged user once bound, with the CA key
// left unreadable to that user.
'use strict';

const assert = require('node:assert/strict');
const dns = require('node:dns').promises;
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const {
  BROCK, DATA, check, tmpdir, track, startBrock, freePort, run, brock, curl, raw, rawFrom, waitFor,
  navigate,
} = require('./harness.js');
const { startOrigin } = require('./origin.js');

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function statusOf(text) {
  const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
  return m ? Number(m[1]) : 0;
}

function get(port, host = `127.0.0.1:${port}`, target = '/api/status') {
  return `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`;
}

function listing(dir) {
  return fs.readdirSync(dir).sort();
}

check('without --listen, brock listens on 127.0.0.1:8119', async () => {
  const state = tmpdir('expo-default');
  const proc = track(spawn(BROCK, ['--state', state, '--data', DATA, 'run', '--no-update'],
                           { stdio: ['ignore', 'ignore', 'pipe'] }));
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  const exited = new Promise((r) => proc.on('exit', r));
  const until = Date.now() + 15000;
  while (!/listening on|8119/.test(log) && proc.exitCode === null && Date.now() < until)
    await new Promise((r) => setTimeout(r, 50));
  if (proc.exitCode === null) proc.kill('SIGTERM');
  await exited;
  // Either it listened there, or the port was taken by another brock: both name the address.
  assert.match(log, /listening on 127\.0\.0\.1:8119\b|--listen 127\.0\.0\.1:8119: /, log);
});

check('a non-loopback --listen without --allow is a usage error that changes nothing', async () => {
  for (const listen of ['0.0.0.0:0', '[::]:0', '192.0.2.1:0']) {
    const state = tmpdir('expo-refuse');
    const before = listing(state);
    const r = await brock(state, ['run', '--listen', listen]);
    assert.equal(r.code, 2, `${listen}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`listening on ${listen.replace(/[[\].]/g, '\\$&')} ` +
                                      'exposes brock to the network; name who may use it ' +
                                      'with --allow CIDR'));
    assert.deepEqual(listing(state), before, 'the state folder was changed');
  }
});

check('a malformed --allow is refused by name, before anything is created', async () => {
  for (const spec of ['10.0.0.0/33', '10.1.2.3/8', 'example.test', '::1/129', '']) {
    const state = tmpdir('expo-badallow');
    const r = await brock(state, ['run', '--listen', '127.0.0.1:0', '--allow', spec]);
    assert.equal(r.code, 2, `${spec}: ${r.stderr}`);
    assert.ok(r.stderr.includes(`--allow '${spec}'`), r.stderr);
    assert.deepEqual(listing(state), []);
  }
});

check('without --allow, every loopback client is served', async () => {
  const b = await startBrock({ state: tmpdir('expo-lo'), args: ['--no-update'] });
  try {
    for (const from of ['127.0.0.1', '127.0.0.2']) {
      const r = await rawFrom(from, b.port, get(b.port));
      assert.equal(statusOf(r.text), 200, `${from}: ${r.text}`);
      assert.match(r.text, /"version"|\{/);
    }
  } finally {
    await b.stop();
  }
});

for (const listen of ['127.0.0.1:0', '0.0.0.0:0']) {
  check(`--listen ${listen} --allow 127.0.0.2/32 serves exactly that range`, async () => {
    const b = await startBrock({ state: tmpdir('expo-allow'), listen,
                                 args: ['--allow', '127.0.0.2/32', '--no-update'] });
    try {
      // Refused before any parsing: even bytes that are not HTTP get the 403.
      for (const data of [get(b.port), 'NOT HTTP AT ALL\r\n\r\n']) {
        const no = await rawFrom('127.0.0.1', b.port, data);
        assert.equal(statusOf(no.text), 403, no.text);
        assert.match(no.text, /\r\nConnection: close\r\n/i);
        assert.match(no.text, /--allow/);
        assert.ok(no.closed, 'the refused connection stayed open');
      }
      const yes = await rawFrom('127.0.0.2', b.port, get(b.port));
      assert.equal(statusOf(yes.text), 200, yes.text);
      // A range is a range: 127.0.0.3 is outside a /32.
      const other = await rawFrom('127.0.0.3', b.port, get(b.port));
      assert.equal(statusOf(other.text), 403, other.text);
      await waitFor('the refusal to be logged',
                    () => /refused 127\.0\.0\.1:\d+ with 403/.test(b.log()), 5000);
      await waitFor('the refusal to be logged',
                    () => /refused 127\.0\.0\.3:\d+ with 403/.test(b.log()), 5000);
    } finally {
      await b.stop();
    }
  });
}

check('on a wildcard listen the dashboard answers to the address it was reached at, not to names',
  async () => {
    const b = await startBrock({ state: tmpdir('expo-dash'), listen: '0.0.0.0:0',
                                 args: ['--allow', '127.0.0.0/8', '--no-update'] });
    try {
      const at = { host: '127.0.0.3' };
      const own = await rawFrom('127.0.0.1', b.port, get(b.port, `127.0.0.3:${b.port}`), at);
      assert.equal(statusOf(own.text), 200, own.text);
      // Another address of the machine than the one this client used is not its own here,
      // and a name pointing at brock is what DNS rebinding looks like.
      for (const host of [`127.0.0.4:${b.port}`, `rebind.example:${b.port}`]) {
        const no = await rawFrom('127.0.0.1', b.port, get(b.port, host), at);
        assert.equal(statusOf(no.text), 403, `${host}: ${no.text}`);
      }
    } finally {
      await b.stop();
    }
  });

check('requests for brock itself through brock are answered by brock, never forwarded',
      async () => {
  const origin = await startOrigin();
  const port = await freePort();
  const b = await startBrock({
    state: tmpdir('expo-self'), listen: `127.0.0.1:${port}`,
    args: ['-v', '--no-update', '--resolve', `self.test=127.0.0.1:${port}`,
           '--resolve', `site.test=127.0.0.1:${origin.port}`],
  });
  try {
    // Absolute form to brock's own address: the dashboard's answer.
    let r = await curl(b.port, [`http://127.0.0.1:${port}/api/status`]);
    assert.equal(r.status, 200, r.stderr + r.body);
    assert.ok(JSON.parse(r.body.toString()), 'not the dashboard JSON');
    r = await curl(b.port, [`http://localhost:${port}/api/status`]);
    assert.equal(r.status, 200, r.body.toString());
    // Through a --resolve name: answered by brock (whose dashboard refuses a foreign Host).
    r = await curl(b.port, [`http://self.test:${port}/`]);
    assert.equal(r.status, 403, r.body.toString());
    assert.match(r.body.toString(), /dashboard answers only to its own address/);
    // A CONNECT to itself is refused with a reason, not tunnelled to itself.
    const t = await raw(b.port, `CONNECT 127.0.0.1:${port} HTTP/1.1\r\nHost: 127.0.0.1:${port}` +
                                '\r\n\r\n');
    assert.equal(statusOf(t.text), 403, t.text);
    assert.match(t.text, /tunnel to itself/);
    // Nothing reached the origin, and brock still serves ordinary requests at once.
    assert.equal(origin.requests.length, 0);
    r = await curl(b.port, ['http://site.test/ok']);
    assert.equal(r.status, 200);
    assert.equal(origin.requests.length, 1);
    // Each request above was one exchange on one accepted connection: had brock forwarded
    // to itself, its log would show the same request again coming from brock's own socket.
    const lines = b.log().split('\n').filter((l) => / GET | CONNECT /.test(l));
    assert.equal(lines.length, 5, lines.join(' | '));
    assert.doesNotMatch(b.log(), /too many connections/);
  } finally {
    await b.stop();
    await origin.close();
  }
});

check('a name DNS resolves to brock on a wildcard listen is not forwarded', async () => {
  const origin = await startOrigin();
  const port = await freePort();
  // Any local address on brock's port is brock when it listens on 0.0.0.0.
  const b = await startBrock({
    state: tmpdir('expo-selfdns'), listen: `0.0.0.0:${port}`,
    args: ['-v', '--no-update', '--allow', '127.0.0.0/8',
           '--resolve', `loop.test=127.0.0.9:${port}`],
  });
  try {
    let r = await curl(b.port, ['http://loop.test/api/status']);
    assert.equal(r.status, 403, r.body.toString());
    r = await curl(b.port, [`http://127.0.0.5:${port}/api/status`]);
    assert.notEqual(r.status, 502, r.body.toString());
    assert.ok(r.status === 200 || r.status === 403, String(r.status));
    // The machine's own name, if the system resolver knows it, is another way back in: after
    // the lookup, brock refuses to connect to itself.
    let addr = null;
    try { addr = (await dns.lookup(os.hostname(), { family: 4 })).address; } catch { /* none */ }
    if (addr) {
      r = await curl(b.port, [`http://${os.hostname()}:${port}/api/status`]);
      assert.equal(r.status, 502, r.body.toString());
      assert.match(r.body.toString(), /is brock itself/);
    }
    assert.doesNotMatch(b.log(), /too many connections/);
    // Forwarded to itself, each would have come back as a plain request for brock's page.
    assert.doesNotMatch(b.log(), /brock's own page/);
    assert.equal(origin.requests.length, 0);
  } finally {
    await b.stop();
    await origin.close();
  }
});

if (!isRoot) {
  check('--user without root is refused (tests not run as root: the drop itself is skipped)',
        async () => {
    const state = tmpdir('expo-user');
    const r = await brock(state, ['run', '--user', 'nobody']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--user needs brock to be started as root/);
  });
} else {
  check('--user without root is refused', async () => {
    const state = tmpdir('expo-user');
    fs.chmodSync(state, 0o777);
    const r = await run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', BROCK,
                                    '--state', state, '--data', DATA, 'run', '--user', 'nobody']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /--user needs brock to be started as root/);
    assert.deepEqual(listing(state), []);
  });

  check('started as root, brock runs as --user once bound, still learning', async () => {
    const state = tmpdir('expo-drop');
    const nobody = (await run('id', ['-u', 'nobody'])).stdout.trim();
    const nogroup = (await run('id', ['-g', 'nobody'])).stdout.trim();
    assert.equal((await brock(state, ['ca', 'init'])).code, 0);
    const key = path.join(state, 'ca', 'ca-key.pem');
    const origin = await startOrigin();
    const b = await startBrock({
      state, args: ['--user', 'nobody', '--intercept', '--no-update',
                    '--resolve', `*.test=127.0.0.1:${origin.port}`],
    });
    try {
      const status = fs.readFileSync(`/proc/${b.proc.pid}/status`, 'utf8');
      assert.match(status, new RegExp(`^Uid:\\s+${nobody}\\s+${nobody}\\s+${nobody}\\s+${nobody}$`,
                                      'm'));
      assert.match(status, new RegExp(`^Gid:\\s+${nogroup}\\s+${nogroup}\\s+${nogroup}\\s+` +
                                      `${nogroup}$`, 'm'));
      assert.match(status, /^NoNewPrivs:\s+1$/m);
      await waitFor('the drop to be logged', () => /running as the user nobody/.test(b.log()), 5000);
      // The CA stays root's: the key is in brock's memory, unreadable to the user it became.
      const ks = fs.statSync(key), cs = fs.statSync(path.join(state, 'ca'));
      assert.equal(ks.uid, 0);
      assert.equal(ks.mode & 0o777, 0o600);
      assert.equal(cs.uid, 0);
      assert.equal(cs.mode & 0o777, 0o700);
      const peek = await run('setpriv', ['--reuid=' + nobody, '--regid=' + nogroup,
                                         '--clear-groups', 'cat', key]);
      assert.notEqual(peek.code, 0, 'the user brock runs as can read the CA key');
      assert.equal(fs.statSync(path.join(state, 'brock.db')).uid, Number(nobody));
      // Learning is still written: a tracker's cookies on three sites turn it to block.
      for (const site of ['site-a.test', 'site-b.test', 'site-c.test']) {
        await navigate(b.port, `http://${site}/`);
        const r = await curl(b.port, ['-H', `Referer: http://${site}/`,
                                      'http://tracker-expo.test/pixel']);
        assert.equal(r.status, 200, r.stderr);
      }
      let listed = null;
      const until = Date.now() + 10000;
      while (Date.now() < until) {
        const l = await brock(state, ['list', '--json']);
        const rows = l.code === 0 ? JSON.parse(l.stdout) : [];
        listed = rows.find((x) => x.domain === 'tracker-expo.test');
        if (listed && listed.sites.length === 3) break;
        await new Promise((res) => setTimeout(res, 200));
      }
      assert.ok(listed && listed.sites.length === 3, JSON.stringify(listed));
      assert.equal(listed.action, 'block');
      // The dashboard works, and interception still issues leaves from the key in memory.
      const d = await raw(b.port, get(b.port));
      assert.equal(statusOf(d.text), 200, d.text);
      // (the origin speaks plain HTTP, so the exchange inside ends in 502 from brock).
      const tls = await curl(b.port, ['--cacert', path.join(state, 'ca', 'ca.pem'),
                                      'https://site-a.test/ok']);
      assert.equal(tls.connect, 200, tls.stderr);
      assert.equal(tls.code, 0, tls.stderr);
    } finally {
      await b.stop();
      await origin.close();
    }
  });
}
