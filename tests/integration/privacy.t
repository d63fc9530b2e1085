#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// What brock keeps is a browsing history: the state folder is its user's alone (0700, files
// 0600), a folder others can read is warned about, recent page views are kept a bounded time
// and forgotten on demand (command and dashboard, reaching a running proxy), and the default
// log names domains, never paths, query strings or cookie values.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { startOrigin, sha256 } = require('./origin.js');
const h = require('./harness.js');
const { check, run, brock, tmpdir, waitFor } = h;

let origin;

before(async () => { origin = await startOrigin(); });
after(async () => { if (origin) await origin.close(); });

function start(state, opts = {}) {
  return h.startBrock({ state, global: opts.global,
                        args: ['--no-update', '--resolve', `*.test=127.0.0.1:${origin.port}`,
                               ...(opts.args || [])] });
}

// A page of site requests url through b, with a cookie.
// The page is opened first, as a browser would: a Referer alone is not evidence of the page a
// request was made for (src/proxy/firstparty.c).
async function browse(b, site, url, cookie) {
  await h.navigate(b.port, `http://${site}/`);
  const args = ['-H', `Referer: http://${site}/`];
  if (cookie) args.push('-b', cookie);
  return h.curl(b.port, [...args, url]);
}

async function learn(b, tracker, sites) {
  for (const site of sites) {
    const r = await browse(b, site, `http://${tracker}/pixel.gif`,
                           `uid=${sha256(site + tracker).slice(0, 24)}`);
    assert.equal(r.status, 200, `${tracker} on ${site}: ${r.stderr}`);
  }
}

async function sites(b) {
  const r = await run('curl', ['-s', '--max-time', '10', `http://127.0.0.1:${b.port}/api/sites`]);
  return JSON.parse(r.stdout).map((s) => s.site);
}

async function token(b) {
  const r = await run('curl', ['-s', '--max-time', '10', `http://127.0.0.1:${b.port}/`]);
  const m = /<meta name="brock-token" content="([0-9a-f]{64})">/.exec(r.stdout);
  assert.ok(m, 'the page holds the token');
  return m[1];
}

// Every folder and file under dir, with its mode.
function walk(dir, out = []) {
  for (const name of fs.readdirSync(dir)) {
    const p = path.join(dir, name), st = fs.lstatSync(p);
    out.push({ p, dir: st.isDirectory(), mode: st.mode & 0o777 });
    if (st.isDirectory()) walk(p, out);
  }
  return out;
}

check('the state folder is 0700 and every file in it 0600', async () => {
  const state = path.join(tmpdir('priv-mode'), 'state');
  const ca = await brock(state, ['ca', 'init']);
  assert.equal(ca.code, 0, ca.stderr);
  assert.doesNotMatch(ca.stderr, /readable by other users/, 'a folder brock made is no warning');
  const b = await start(state);
  try {
    await learn(b, 'tracker-mode.test', ['site-a.test', 'site-b.test']);
    await waitFor('the views in the state', async () => (await sites(b)).length === 2);
    await new Promise((r) => setTimeout(r, 1500)); /* a sync tick writes them */
  } finally {
    await b.stop();
  }
  const forget = await brock(state, ['forget']);
  assert.equal(forget.code, 0, forget.stderr);
  assert.equal(fs.statSync(state).mode & 0o777, 0o700);
  const all = walk(state);
  assert.ok(all.some((f) => f.p.endsWith('brock.db')), 'the database is there');
  assert.ok(all.some((f) => f.p.endsWith('ca-key.pem')), 'the CA is there');
  for (const f of all)
    assert.equal(f.mode, f.dir ? 0o700 : 0o600, `${path.relative(state, f.p)} is ` +
                                                  f.mode.toString(8));
});

check('a state folder others can read is warned about, and left as it is', async () => {
  const state = path.join(tmpdir('priv-wide'), 'state');
  fs.mkdirSync(state, { mode: 0o755 });
  fs.chmodSync(state, 0o755);
  const r = await brock(state, ['forget']);
  assert.equal(r.code, 0, r.stderr);
  const warnings = r.stderr.split('\n').filter((l) => /readable by other users/.test(l));
  assert.equal(warnings.length, 1, r.stderr);
  assert.ok(warnings[0].includes(`${state} is readable by other users; brock keeps a browsing ` +
                                 `history there: chmod 700 ${state}`), warnings[0]);
  assert.equal(fs.statSync(state).mode & 0o777, 0o755);
  fs.chmodSync(state, 0o700);
  assert.doesNotMatch((await brock(state, ['forget'])).stderr, /readable by other users/);
});

check('page views older than page-view-days are dropped when brock opens', async () => {
  const state = path.join(tmpdir('priv-old'), 'state');
  let b = await start(state);
  try {
    await learn(b, 'tracker-old.test', ['old-a.test', 'new-b.test']);
    await waitFor('two sites', async () => (await sites(b)).length === 2);
    await new Promise((r) => setTimeout(r, 1500));
  } finally {
    await b.stop();
  }
  // old-a.test was last seen 8 days ago: past the default 7 days.
  const old = Date.now() - 8 * 86400000;
  const sql = await run('sqlite3', [path.join(state, 'brock.db'), 'UPDATE page_view SET ' +
                                    `time_ms = ${old} WHERE site = 'old-a.test'`]);
  assert.equal(sql.code, 0, sql.stderr);
  b = await start(state);
  try {
    assert.deepEqual(await sites(b), ['new-b.test']);
  } finally {
    await b.stop();
  }
  const rows = await run('sqlite3', [path.join(state, 'brock.db'),
                                     'SELECT DISTINCT site FROM page_view']);
  assert.equal(rows.stdout.trim(), 'new-b.test');
  // What learning needs stays: the tracker is still on both sites in the snitch map.
  const sn = await run('sqlite3', [path.join(state, 'brock.db'), 'SELECT count(*) FROM snitch ' +
                                   "WHERE tracker = 'tracker-old.test'"]);
  assert.equal(sn.stdout.trim(), '2');
});

check('brock forget: counts, options, and a running proxy empties within 2 s', async () => {
  const state = path.join(tmpdir('priv-forget'), 'state');
  for (const bad of [['--older-than', 'x'], ['--older-than', '-1'], ['--page-view-days', '9999'],
                     ['extra']]) {
    const r = await brock(state, ['forget', ...bad]);
    assert.equal(r.code, 2, `forget ${bad.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /brock forget: /);
  }
  const b = await start(state);
  try {
    await learn(b, 'tracker-fg.test', ['fg-a.test', 'fg-b.test', 'fg-c.test']);
    await waitFor('three sites', async () => (await sites(b)).length === 3);
    await new Promise((r) => setTimeout(r, 1500));
    const none = await brock(state, ['forget', '--older-than', '1']);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, 'forgot the recent page views of 0 sites\n');
    const r = await brock(state, ['forget']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, 'forgot the recent page views of 3 sites\n');
    const t0 = Date.now();
    await waitFor('the proxy to forget', async () => (await sites(b)).length === 0, 2500);
    assert.ok(Date.now() - t0 <= 2500);
    // page-view-days 0 keeps none: new views are not recorded.
    const z = await brock(state, ['forget', '--page-view-days', '0']);
    assert.equal(z.code, 0, z.stderr);
    assert.match(z.stdout, /page views are now kept 0 days/);
    await new Promise((r2) => setTimeout(r2, 2000));
    await browse(b, 'fg-d.test', 'http://tracker-fg.test/pixel.gif'); /* blocked by now */
    await new Promise((r2) => setTimeout(r2, 1200));
    assert.deepEqual(await sites(b), []);
    const back = await brock(state, ['forget', '--page-view-days', '7']);
    assert.equal(back.code, 0, back.stderr);
    await new Promise((r2) => setTimeout(r2, 2000));
    await browse(b, 'fg-e.test', 'http://tracker-fg.test/pixel.gif');
    assert.deepEqual(await sites(b), ['fg-e.test']);
  } finally {
    await b.stop();
  }
});

check('the dashboard forgets the recent sites: POST /api/forget needs the token', async () => {
  const state = path.join(tmpdir('priv-dash'), 'state');
  const b = await start(state);
  try {
    await learn(b, 'tracker-dash.test', ['d-a.test', 'd-b.test']);
    await waitFor('two sites', async () => (await sites(b)).length === 2);
    const url = `http://127.0.0.1:${b.port}/api/forget`;
    const no = await run('curl', ['-s', '--max-time', '10', '-o', '/dev/null', '-w', '%{http_code}',
                                  '-X', 'POST', url]);
    assert.equal(no.stdout, '403');
    assert.equal((await sites(b)).length, 2, 'nothing changed without the token');
    const yes = await run('curl', ['-s', '--max-time', '10', '-X', 'POST',
                                   '-H', `X-Brock-Token: ${await token(b)}`, url]);
    assert.deepEqual(JSON.parse(yes.stdout), { forgotten: 2 });
    assert.deepEqual(await sites(b), []);
    await new Promise((r) => setTimeout(r, 1500));
  } finally {
    await b.stop();
  }
  const rows = await run('sqlite3', [path.join(state, 'brock.db'),
                                     'SELECT count(*) FROM page_view']);
  assert.equal(rows.stdout.trim(), '0', 'the state forgot them too');
});

check('learning keeps at most max-learned-trackers trackers, says so once, and counts them',
      async () => {
  // One page naming many third parties with identifying cookies: only the cap's worth stay
  // in memory and in the state. The cap comes from the configuration file here.
  const dir = tmpdir('priv-cap');
  const state = path.join(dir, 'state');
  const conf = path.join(dir, 'brock.conf');
  fs.writeFileSync(conf, 'max-learned-trackers = 3\n');
  const b = await start(state, { global: ['--config', conf] });
  let st;
  try {
    await h.navigate(b.port, 'http://cap-site.test/');
    for (let i = 0; i < 8; i++) {
      const r = await h.curl(b.port, ['-H', 'Referer: http://cap-site.test/', '-b',
                                      `uid=${sha256('cap' + i).slice(0, 24)}`,
                                      `http://px.tracker-cap${i}.test/pixel.gif`]);
      assert.equal(r.status, 200, r.stderr);
    }
    await waitFor('the line', () => /learning reached its cap of 3 trackers/.test(b.log()),
                  5000);
    const r = await run('curl', ['-s', '--max-time', '10',
                                 `http://127.0.0.1:${b.port}/api/status`]);
    st = JSON.parse(r.stdout).learned;
    // The file read again (SIGHUP): a lower cap applies at once.
    fs.writeFileSync(conf, 'max-learned-trackers = 2\n');
    b.proc.kill('SIGHUP');
    await waitFor('the options read again', () => /SIGHUP: options:/.test(b.log()), 10000);
    assert.match(b.log(), /SIGHUP: options: applied at once: max-learned-trackers/);
    const again = await run('curl', ['-s', '--max-time', '10',
                                     `http://127.0.0.1:${b.port}/api/status`]);
    assert.deepEqual(JSON.parse(again.stdout).learned,
                     { trackers: 2, max: 2, forgotten: 6, full: true });
    await new Promise((r2) => setTimeout(r2, 1500)); /* a sync writes the state */
  } finally {
    await b.stop();
  }
  assert.deepEqual(st, { trackers: 3, max: 3, forgotten: 5, full: true });
  assert.equal(b.log().split('\n').filter((l) => /reached its cap/.test(l)).length, 1,
               b.log());
  const rows = await run('sqlite3', [path.join(state, 'brock.db'), 'SELECT DISTINCT tracker ' +
                                     "FROM snitch WHERE tracker LIKE 'tracker-cap%' ORDER BY 1"]);
  assert.equal(rows.stdout.trim(), 'tracker-cap6.test\ntracker-cap7.test');
  const bad = await brock(state, ['run', '--max-learned-trackers', '0']);
  assert.equal(bad.code, 2, bad.stderr);
  assert.match(bad.stderr, /--max-learned-trackers '0': expected a whole number from 1/);
});

check('the default log names domains, never paths, query strings or cookies', async () => {
  const state = path.join(tmpdir('priv-log'), 'state');
  const b = await start(state);
  let log;
  try {
    await learn(b, 'tracker-log.test', ['l-a.test', 'l-b.test', 'l-c.test']);
    for (const url of ['http://tracker-log.test/private/path?secret=QQQ',
                       'http://l-a.test/private/path?secret=QQQ',
                       'http://127.0.0.1:1/private/path?secret=QQQ']) {
      await browse(b, 'l-d.test', url, 'uid=ZZZ');
      // A target brock cannot proxy: refused, and the refusal is logged.
      const r = await h.raw(b.port, 'GET ftp://l-a.test/private/path?secret=QQQ HTTP/1.1\r\n' +
                                    'Host: l-a.test\r\nCookie: uid=ZZZ\r\n\r\n',
                            { wait: 5000, until: (t) => t.includes('\r\n\r\n') });
      assert.match(r.text, /^HTTP\/1\.1 4\d\d/);
    }
  } finally {
    const end = await b.stop();
    log = b.log();
    assert.equal(end.code, 0, log);
  }
  assert.match(log, /tracker-log\.test/, 'the log names the tracker');
  assert.match(log, /l-d\.test/, 'and the site');
  for (const secret of ['QQQ', 'ZZZ', '/private/path'])
    assert.ok(!log.includes(secret), `the default log holds ${secret}: ${log}`);
});
