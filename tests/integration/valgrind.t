#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// `brock run` under valgrind for a few hundred requests of every kind (plain and keep-alive,
// learning, blocked, cookieblocked, a CONNECT tunnel, the dashboard's API), stopped with
// SIGTERM: it must exit 0 with no memory error and no leak. Needs the ordinary build, as
// valgrind cannot run one built with AddressSanitizer.
'use strict';

const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { BROCK, DATA, check, tmpdir, startBrock, run, curl, pickYellow,
        navigate } = require('./harness.js');
const { startOrigin } = require('./origin.js');

// A request to host, made by a page of site (opened first) when site is given.
async function get(agent, port, host, site, cookie) {
  if (site) await navigate(port, `http://${site}/`, agent);
  return new Promise((done, fail) => {
    const headers = { Host: host };
    if (site) headers.Referer = `http://${site}/`;
    if (cookie) headers.Cookie = cookie;
    const req = http.request({ host: '127.0.0.1', port, agent, path: `http://${host}/x`,
                               headers, timeout: 20000 }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode));
    });
    req.on('timeout', () => req.destroy(new Error(`${host}: timed out`)));
    req.on('error', fail);
    req.end();
  });
}

async function whyNot() {
  if (!BROCK) return 'BROCK is not set';
  const v = await run('valgrind', ['--version']);
  if (v.code !== 0) return 'valgrind is not installed (scripts/deps test installs it)';
  if (fs.readFileSync(BROCK).includes('__asan_init'))
    return 'BROCK is built with AddressSanitizer, which valgrind cannot run';
  return null;
}

check('valgrind: a few hundred requests, no memory error, no leak', async (t) => {
  const reason = await whyNot();
  if (reason) { t.skip(reason); return; }
  const yellow = pickYellow();
  const origin = await startOrigin({ cookieHost: yellow });
  const parent = tmpdir('valgrind');
  fs.chmodSync(parent, 0o755); // started as root, brock hands its state to another user
  const state = path.join(parent, 'state');
  let b;
  try {
    b = await startBrock({
      state, startMs: 120000,
      args: ['-q', '--no-update', '--resolve', `*.test=127.0.0.1:${origin.port}`,
             '--resolve', `${yellow}=127.0.0.1:${origin.port}`],
      // PCRE2's JIT writes code valgrind cannot follow: the interpreter runs the same rules.
      env: { BROCK_PCRE2_JIT: '0' },
      wrap: ['valgrind', '--leak-check=full', '--show-leak-kinds=definite,indirect',
             '--errors-for-leak-kinds=definite,indirect', '--error-exitcode=99'],
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const plain = agent; // keep-alive: many requests on few connections
    const statuses = [];
    for (let i = 0; i < 150; i++) statuses.push(get(plain, b.port, `site${i % 10}.test`));
    assert.deepEqual([...new Set(await Promise.all(statuses))], [200]);
    // Learning: trackers on two sites each, then one on three sites and blocked on a fourth.
    for (let i = 0; i < 60; i++) {
      const uid = crypto.createHash('sha256').update(String(i)).digest('hex').slice(0, 24);
      assert.equal(await get(agent, b.port, `tracker${i}.test`, `site${i % 2}.test`,
                             `uid=${uid}`), 200);
      assert.equal(await get(agent, b.port, `tracker${i}.test`, `site${2 + (i % 3)}.test`,
                             `uid=${uid}`), 200);
    }
    for (const site of ['site-a.test', 'site-b.test', 'site-c.test'])
      assert.equal(await get(agent, b.port, 'trackerz.test', site, 'uid=0123456789abcdef0123'),
                   200);
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(await get(agent, b.port, 'trackerz.test', 'site-d.test'), 403);
    // Cookieblocked: passes without its cookies.
    assert.equal(await get(agent, b.port, yellow, 'site-a.test', 'uid=0123456789abcdef0123'),
                 200);
    const seen = origin.to(yellow).pop();
    assert.ok(seen && !seen.headers.some(([k]) => k === 'cookie'), 'cookies were sent');
    agent.destroy();
    // Fresh connections too, and a CONNECT tunnel.
    for (let i = 0; i < 20; i++)
      assert.equal((await curl(b.port, [`http://site${i}.test/c`])).status, 200);
    const tunnel = await curl(b.port, ['-p', 'http://site-t.test/tunnel']);
    assert.equal(tunnel.connect, 200);
    assert.equal(tunnel.status, 200);
    // The dashboard's API, straight to brock.
    const dash = await run('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}',
                                    '--max-time', '20', `http://127.0.0.1:${b.port}/api/sites`]);
    assert.equal(dash.stdout, '200');
    const r = await b.stop('SIGTERM', 60000);
    const log = b.log();
    assert.deepEqual(r, { code: 0, signal: null }, log);
    assert.match(log, /ERROR SUMMARY: 0 errors/, log);
    assert.doesNotMatch(log, /Invalid (read|write|free)|uninitialised|definitely lost: [1-9]|indirectly lost: [1-9]/, log);
  } finally {
    if (b) await b.stop('SIGKILL');
    await origin.close();
  }
}, 240000);
