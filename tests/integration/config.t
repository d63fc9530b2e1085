#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The configuration file (--config FILE): its values take effect, the command line's win
// (a repeated option's items replace the file's), a bad line stops brock before anything is
// made, naming the file and line; SIGHUP reads it again without dropping a connection,
// applies what can change at once, says what takes a restart, and keeps everything when the
// file has become bad. --log-file sends the log to a file.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { startOrigin } = require('./origin.js');
const h = require('./harness.js');
const { check, tmpdir, waitFor } = h;

let origin;

before(async () => {
  origin = await startOrigin();
});
after(async () => {
  if (origin) await origin.close();
});

const lines = (b, re) => b.log().split('\n').filter((l) => re.test(l));

// A configuration file of text in a folder of its own, readable by the user brock serves as.
function confFile(name, text) {
  const f = path.join(tmpdir(name), 'brock.conf');
  fs.writeFileSync(f, text, { mode: 0o644 });
  return f;
}

// A request for http://a.test/ from the loopback address from; resolves with the status line.
async function statusFrom(from, port) {
  const r = await h.rawFrom(from, port, 'GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\n' +
                                        'Connection: close\r\n\r\n');
  return r.text.split('\r\n')[0];
}

function start(conf, args = []) {
  return h.startBrock({ state: path.join(tmpdir('conf-state'), 'state'),
                        global: ['--config', conf], args });
}

check('the values of the file take effect', async () => {
  const conf = confFile('conf-values', '# brock\n\n  no-update = yes\n' +
                        `resolve = *.test=127.0.0.1:${origin.port}\n` +
                        'allow=127.0.0.1/32\n   quiet = no  \n');
  const b = await start(conf);
  try {
    assert.match(await statusFrom('127.0.0.1', b.port), / 200 /, b.log());
    assert.match(await statusFrom('127.0.0.2', b.port), / 403 /, 'allow from the file');
    assert.ok(lines(b, /refused 127\.0\.0\.2:\d+ with 403: not in --allow/).length, b.log());
  } finally {
    await b.stop();
  }
});

check('the command line wins, a repeated option replacing the file\'s items', async () => {
  const conf = confFile('conf-win', 'listen = 192.0.2.1:8119\nallow = 127.0.0.1/32\n' +
                        'no-update = yes\n' +
                        `resolve = *.test=127.0.0.1:${origin.port}\n`);
  // --listen 127.0.0.1:0 (the harness's) over the file's address, which brock cannot bind.
  const b = await start(conf, ['--allow', '127.0.0.2/32']);
  try {
    assert.match(await statusFrom('127.0.0.2', b.port), / 200 /, b.log());
    assert.match(await statusFrom('127.0.0.1', b.port), / 403 /,
                 'the file\'s --allow is replaced, not added to');
  } finally {
    await b.stop();
  }
});

check('a bad line stops brock, naming the file and line; no state is made', async () => {
  const cases = [
    ['no-update = yes\n\nbogus = 1\n', /:3: unknown key 'bogus'/],
    ['# fine\nno-update\n', /:2: expected 'key = value'/],
    ['grace = soon\n', /:1: --grace 'soon': expected whole seconds/],
    ['intercept = maybe\n', /:1: 'intercept' is a flag: its value is yes or no, not 'maybe'/],
    ['listen =\n', /:1: 'listen' needs a value/],
  ];
  for (const [text, want] of cases) {
    const conf = confFile('conf-bad', text);
    const state = path.join(tmpdir('conf-bad-state'), 'state');
    const r = await h.brock(state, ['--config', conf, 'run', '--listen', '127.0.0.1:0']);
    assert.notEqual(r.code, 0, `brock started with ${JSON.stringify(text)}`);
    assert.ok(r.stderr.includes(conf + ':'), r.stderr);
    assert.match(r.stderr, want);
    assert.ok(!fs.existsSync(state), 'a state was made');
  }
  const r = await h.brock(path.join(tmpdir('conf-none'), 'state'),
                          ['--config', '/nonexistent/brock.conf', 'list']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /\/nonexistent\/brock\.conf: No such file or directory/);
});

// A GET through brock on agent's one connection; resolves with the status and local port.
function viaAgent(agent, port) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: 'http://a.test/', agent,
                               headers: { Host: 'a.test' }, timeout: 10000 }, (res) => {
      const local = res.socket.localPort;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, local }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

check('SIGHUP applies the changed file, keeps connections, and a bad file changes nothing',
      async () => {
  const base = `no-update = yes\nresolve = *.test=127.0.0.1:${origin.port}\n`;
  const conf = confFile('conf-hup', base + 'allow = 127.0.0.1/32\n');
  const b = await start(conf);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await viaAgent(agent, b.port);
    assert.equal(first.status, 200);
    assert.match(await statusFrom('127.0.0.2', b.port), / 403 /);

    fs.writeFileSync(conf, base + 'allow = 127.0.0.0/8\nintercept = yes\n' +
                     'proxy-protocol-from = 127.0.0.3\n');
    b.proc.kill('SIGHUP');
    await waitFor('the options read again', () => lines(b, /SIGHUP: options:/).length, 10000);
    assert.match(lines(b, /SIGHUP: options:/)[0], /applied at once: allow$/);
    assert.match(b.log(), /SIGHUP: 'intercept' changed; it takes a restart, so the value in force stays \(off\)/);
    assert.match(b.log(), /SIGHUP: 'proxy-protocol-from' changed; it takes a restart/);
    assert.match(await statusFrom('127.0.0.2', b.port), / 200 /, b.log());
    // Still none: 127.0.0.3 is served without a PROXY header.
    assert.match(await statusFrom('127.0.0.3', b.port), / 200 /, b.log());
    const second = await viaAgent(agent, b.port);
    assert.equal(second.status, 200);
    assert.equal(second.local, first.local, 'the keep-alive connection was dropped');

    fs.writeFileSync(conf, base + 'allow = 127.0.0.1/32\ngrace = never\n');
    b.proc.kill('SIGHUP');
    await waitFor('the refusal', () => lines(b, /SIGHUP: the options were not read/).length,
                  10000);
    assert.match(lines(b, /SIGHUP: the options were not read/)[0],
                 new RegExp(`those in force stay: ${conf}:4: --grace 'never'`));
    assert.match(await statusFrom('127.0.0.2', b.port), / 200 /, 'a bad file changed --allow');
    assert.equal(b.proc.exitCode, null, 'brock exited');
  } finally {
    agent.destroy();
    await b.stop();
  }
});

check('log-file in the file sends the log there', async () => {
  const dir = tmpdir('conf-log');
  const log = path.join(dir, 'brock.log');
  const conf = confFile('conf-log', `log-file = ${log}\nno-update = yes\n`);
  const proc = h.track(spawn(h.BROCK, ['--state', path.join(dir, 'state'), '--data', h.DATA,
                                       '--config', conf, 'run', '--listen', '127.0.0.1:0'],
                             { stdio: ['ignore', 'ignore', 'pipe'] }));
  let stderr = '';
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((r) => proc.on('exit', r));
  try {
    await waitFor('the log file', () => {
      if (proc.exitCode !== null) throw new Error('brock exited: ' + stderr);
      return fs.existsSync(log) && /brock: listening on 127\.0\.0\.1:\d+/.test(
        fs.readFileSync(log, 'utf8'));
    }, 15000);
    assert.equal(stderr, '', 'lines went to stderr too');
  } finally {
    proc.kill('SIGTERM');
    await exited;
  }
});
