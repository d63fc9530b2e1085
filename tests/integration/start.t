#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Starting brock: its first lines say where the dashboard is and how to use the proxy; a
// start that fails (a port in use, a bad option, broken data, a state its user cannot reach)
// creates and seeds nothing and leaves an existing state exactly as it was, owner and mode
// included. Started as root, brock reads Privacy Badger's data even from a folder closed to
// the user it becomes.
'use strict';

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { DATA, check, tmpdir, startBrock, run, brock, raw, waitFor } = require('./harness.js');

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

// Every file under dir with its owner, mode and contents' hash: what must not change.
function snapshot(dir) {
  const out = {};
  const walk = (d) => {
    const st = fs.statSync(d);
    out[d] = `${st.uid}:${st.gid}:${(st.mode & 0o7777).toString(8)}`;
    if (!st.isDirectory()) {
      out[d] += ':' + crypto.createHash('sha256').update(fs.readFileSync(d)).digest('hex');
      return;
    }
    for (const f of fs.readdirSync(d).sort()) walk(path.join(d, f));
  };
  walk(dir);
  return out;
}

// A port held by another listener for as long as fn runs.
async function withBusyPort(fn) {
  const s = net.createServer();
  await new Promise((r) => s.listen(0, '127.0.0.1', r));
  try {
    return await fn(s.address().port);
  } finally {
    await new Promise((r) => s.close(r));
  }
}

// A state that exists, seeded and closed cleanly.
async function madeState(name) {
  const state = path.join(tmpdir(name), 'state');
  const r = await brock(state, ['set', 'kept.example', 'block']);
  assert.equal(r.code, 0, r.stderr);
  return state;
}

check('the first lines say where the dashboard is and how to point a browser at brock',
      async () => {
  const state = tmpdir('start-where');
  const b = await startBrock({ state, args: ['--no-update'] });
  try {
    const want = `127.0.0.1:${b.port}`;
    await waitFor('the first lines', () => /http_proxy=/.test(b.log()), 5000);
    const lines = b.log().split('\n').filter(Boolean);
    const first = lines.slice(0, 4).join('\n');
    assert.match(first, new RegExp(`dashboard: http://${want}/`), first);
    assert.match(first, new RegExp(`--proxy-server=${want}`), first);
    assert.match(first, new RegExp(`http_proxy=http://${want}`), first);
    const d = await raw(b.port, `GET / HTTP/1.1\r\nHost: ${want}\r\nConnection: close\r\n\r\n`);
    assert.match(d.text, /^HTTP\/1\.1 200/);
  } finally {
    await b.stop();
  }
});

check('a port in use: brock says so and creates no state', async () => {
  const parent = tmpdir('start-busy');
  const state = path.join(parent, 'state');
  await withBusyPort(async (port) => {
    const r = await brock(state, ['run', '--no-update', '--listen', `127.0.0.1:${port}`]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`--listen 127\\.0\\.0\\.1:${port}: Address already in use`));
  });
  assert.deepEqual(fs.readdirSync(parent), []);
});

check('a port in use on an existing state leaves it exactly as it was', async () => {
  const state = await madeState('start-busy-kept');
  const before = snapshot(state);
  await withBusyPort(async (port) => {
    const r = await brock(state, ['run', '--no-update', '--listen', `127.0.0.1:${port}`]);
    assert.equal(r.code, 1, r.stderr);
  });
  assert.deepEqual(snapshot(state), before);
});

check('a bad option creates no state', async () => {
  const parent = tmpdir('start-badopt');
  const state = path.join(parent, 'state');
  const r = await brock(state, ['run', '--header-timeout', 'soon']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--header-timeout 'soon'/);
  assert.deepEqual(fs.readdirSync(parent), []);
});

check('a broken seed in the data folder: nothing is created, nothing half-written', async () => {
  const parent = tmpdir('start-badseed');
  const data = path.join(parent, 'data');
  fs.cpSync(DATA, data, { recursive: true });
  fs.writeFileSync(path.join(data, 'seed.json'), '{"action_map": {');
  const state = path.join(parent, 'state');
  const r = await run(process.env.BROCK, ['--state', state, '--data', data, 'run',
                                          '--no-update', '--listen', '127.0.0.1:0']);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /seed\.json: not valid JSON/);
  assert.deepEqual(fs.readdirSync(parent), ['data']);
});

if (isRoot) {
  check('as root: a state the user cannot reach is refused before anything changes',
        async () => {
    const closed = tmpdir('start-closed');
    fs.chmodSync(closed, 0o700);
    const state = path.join(closed, 'state');
    const r0 = await brock(state, ['set', 'kept.example', 'block']);
    assert.equal(r0.code, 0, r0.stderr);
    const before = snapshot(state);
    const r = await brock(state, ['run', '--no-update', '--listen', '127.0.0.1:0']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`${closed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ` +
                                      `\\(mode 0700\\) is closed to that user`));
    assert.match(r.stderr, /give --state a folder it can reach/);
    assert.deepEqual(snapshot(state), before, 'the state was handed over or changed');
  });

  check('as root: --user root is refused, saying what to do instead', async () => {
    const parent = tmpdir('start-root');
    const r = await brock(path.join(parent, 'state'), ['run', '--user', 'root']);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /brock never serves as root; leave --user out/);
    assert.deepEqual(fs.readdirSync(parent), []);
  });

  check('as root: data in a folder closed to the user still serves a reset to the seed',
        async () => {
    const parent = tmpdir('start-data');
    const closed = path.join(parent, 'closed');
    fs.mkdirSync(closed, { mode: 0o700 });
    const data = path.join(closed, 'privacybadger');
    fs.cpSync(DATA, data, { recursive: true });
    fs.chmodSync(closed, 0o700);
    const state = path.join(parent, 'state');
    const b = await startBrock({ state, args: ['--no-update'], global: ['--data', data] });
    try {
      await waitFor('the drop', () => /running as the user/.test(b.log()), 5000);
      const host = `127.0.0.1:${b.port}`;
      const page = await raw(b.port, `GET / HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      const token = /name="brock-token" content="([0-9a-f]+)"/.exec(page.text)[1];
      const reset = await raw(b.port, `POST /api/reset HTTP/1.1\r\nHost: ${host}\r\n` +
                                      `Origin: http://${host}\r\nX-Brock-Token: ${token}\r\n` +
                                      'Content-Length: 0\r\nConnection: close\r\n\r\n');
      assert.match(reset.text, /^HTTP\/1\.1 200/, reset.text);
      assert.match(reset.text, /"domains":\s*[1-9]\d{3,}/, reset.text);
    } finally {
      await b.stop();
    }
  });
}
