#!/usr/bin/env -S node --test --test-reporter=tap
// `brock run --workers 2`: two processes on one port, one state. Both serve; what one learns
// or is told the other applies within two seconds; the dashboard's token holds on both; a
// SIGHUP reaches both; a worker killed is started again; SIGTERM ends them all.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const crypto = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const { spawn } = require('node:child_process');
const { BROCK, DATA, check, tmpdir, track, startBrock, brock, waitFor, navigate } =
  require('./harness.js');
const { startOrigin } = require('./origin.js');

let origin, b, state;

before(async () => {
  origin = await startOrigin();
  state = tmpdir('workers');
  b = await startBrock({ state, args: ['--workers', '2', '--no-update', '--resolve',
                                       `*.test=127.0.0.1:${origin.port}`] });
});

after(async () => {
  if (b) await b.stop();
  if (origin) await origin.close();
});

const uidOf = (pid) => Number(/^Uid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`,
                                                                    'utf8'))[1]);
const alive = (pid) => fs.existsSync(`/proc/${pid}`);
const parentOf = (pid) => Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
  .replace(/^.*\) /, '').split(' ')[1]);

// One request on agent (a fresh connection when agent is false); resolves with the status,
// headers and body.
function request(agent, opts) {
  return new Promise((done, fail) => {
    const req = http.request({ host: '127.0.0.1', port: b.port, agent, timeout: 10000,
                               ...opts }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { body += d; });
      res.on('end', () => done({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', fail);
    req.end(opts.body);
  });
}

const dashHost = () => `127.0.0.1:${b.port}`;
const status = async (agent = false) =>
  JSON.parse((await request(agent, { path: '/api/status', headers: { Host: dashHost() } })).body);

// A connection held open to one worker: which, and an agent that sends on it alone.
async function pinned(pid) {
  for (let i = 0; i < 200; i++) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    if ((await status(agent)).pid === pid) return agent;
    agent.destroy();
  }
  throw new Error(`no connection reached worker ${pid}`);
}

// The workers' pids, as /api/status answers on fresh connections.
async function workerPids(want = 2) {
  const pids = new Set();
  for (let i = 0; i < 200 && pids.size < want; i++) pids.add((await status()).pid);
  return [...pids].sort();
}

// A page of site opened on agent's connection, then a pixel of tracker it loads with an
// identifying cookie; resolves with the pixel's status.
async function hit(agent, tracker, site) {
  await navigate(b.port, `http://${site}/`, agent);
  const uid = crypto.createHash('sha256').update(tracker + site).digest('hex').slice(0, 24);
  return (await request(agent, { path: `http://${tracker}/pixel.gif`,
                                 headers: { Host: tracker, Referer: `http://${site}/`,
                                            Cookie: `uid=${uid}` } })).status;
}

// A request for tracker on a page agent's worker never saw opened: decided as that page,
// never learned from, so that asking changes nothing.
async function probe(agent, tracker, site) {
  return (await request(agent, { path: `http://${tracker}/pixel.gif`,
                                 headers: { Host: tracker, Referer: `http://${site}/` } })).status;
}

let pids;

check('both workers serve, each a child of the brock started', async () => {
  pids = await workerPids();
  assert.equal(pids.length, 2, `pids seen: ${pids}`);
  for (const pid of pids) assert.equal(parentOf(pid), b.proc.pid);
  // Started as root, each worker serves as an unprivileged user, as a single process does.
  if (process.getuid() === 0)
    for (const pid of pids) assert.notEqual(uidOf(pid), 0, `worker ${pid} runs as root`);
  const s = await status();
  assert.equal(s.workers, 2);
  assert.match(b.log(), /2 workers serve 127\.0\.0\.1:\d+/);
});

check('the page\'s token holds on every worker, and /api/status sums their counts',
      async () => {
  const page = await request(false, { path: '/', headers: { Host: dashHost() } });
  const token = /<meta name="brock-token" content="([0-9a-f]{64})">/.exec(page.body)[1];
  const seen = new Set();
  for (let i = 0; i < 60 && seen.size < 2; i++) {
    const r = await request(false, {
      method: 'PUT', path: '/api/trackers/guarded.test', body: '{"action":"block"}',
      headers: { Host: dashHost(), 'X-Brock-Token': token, 'Content-Type': 'application/json' },
    });
    assert.equal(r.status, 200, r.body);
    seen.add((await status()).pid);
  }
  const a = await pinned(pids[0]), c = await pinned(pids[1]);
  // Each worker publishes its counts once a second; the one asked adds its own at once.
  const before = (await status(a)).since_start.requests;
  for (let i = 0; i < 5; i++) await status(c);
  await waitFor('worker B\'s requests in worker A\'s total', async () =>
    (await status(a)).since_start.requests >= before + 6, 3000);
  a.destroy();
  c.destroy();
});

check('a change made on one worker\'s dashboard reads back at once on the other', async () => {
  const page = await request(false, { path: '/', headers: { Host: dashHost() } });
  const token = /<meta name="brock-token" content="([0-9a-f]{64})">/.exec(page.body)[1];
  const a = await pinned(pids[0]), c = await pinned(pids[1]);
  for (const action of ['allow', 'block', 'cookieblock']) {
    const put = await request(a, {
      method: 'PUT', path: '/api/trackers/readback.test', body: JSON.stringify({ action }),
      headers: { Host: dashHost(), 'X-Brock-Token': token, 'Content-Type': 'application/json' },
    });
    assert.equal(put.status, 200, put.body);
    const got = await request(c, { path: '/api/trackers/readback.test',
                                   headers: { Host: dashHost() } });
    assert.equal(JSON.parse(got.body).action, `user_${action}`, got.body);
  }
  a.destroy();
  c.destroy();
});

check('a tracker learned through one worker is blocked through the other within 2 s',
      async (t) => {
  const a = await pinned(pids[0]), c = await pinned(pids[1]);
  for (const site of ['site1.test', 'site2.test', 'site3.test'])
    assert.equal(await hit(a, 'tracker1.test', site), 200);
  const t0 = Date.now();
  assert.notEqual(await probe(a, 'tracker1.test', 'site4.test'), 200);
  await waitFor('tracker1.test blocked through the other worker', async () =>
    await probe(c, 'tracker1.test', 'site4.test') !== 200, 2500);
  t.diagnostic(`blocked on the other worker after ${Date.now() - t0} ms`);
  a.destroy();
  c.destroy();
});

check('a page opened through one worker is known to the other, which learns from it',
      async () => {
  const a = await pinned(pids[0]), c = await pinned(pids[1]);
  for (const site of ['site11.test', 'site12.test', 'site13.test']) {
    assert.equal(await navigate(b.port, `http://${site}/`, a), 200);
    const uid = crypto.createHash('sha256').update(site).digest('hex').slice(0, 24);
    const r = await request(c, { path: 'http://tracker4.test/pixel.gif',
                                 headers: { Host: 'tracker4.test', Referer: `http://${site}/`,
                                            Cookie: `uid=${uid}` } });
    assert.equal(r.status, 200);
  }
  // Learned where the pixels went: blocked there at once.
  assert.notEqual(await probe(c, 'tracker4.test', 'site14.test'), 200);
  a.destroy();
  c.destroy();
});

check('the daily counters and page views counted on one worker show on the other',
      async (t) => {
  const a = await pinned(pids[0]), c = await pinned(pids[1]);
  const get = async (agent, p) =>
    (await request(agent, { path: p, headers: { Host: dashHost() } })).body;
  const view = async (agent) => [await get(agent, '/api/stats?days=1'),
                                 await get(agent, '/api/sites')];
  assert.equal(await hit(c, 'tracker3.test', 'site7.test'), 200);
  const t0 = Date.now();
  const [stats, sites] = await waitFor('one view on both workers', async () => {
    const va = await view(a), vc = await view(c);
    return va[0] === vc[0] && va[1] === vc[1] && /site7\.test/.test(va[1]) && va;
  }, 3000);
  t.diagnostic(`the same on both after ${Date.now() - t0} ms`);
  // Pages opened through either worker: site1-3 through the first, site7 through the other.
  for (const site of ['site1.test', 'site2.test', 'site3.test', 'site7.test'])
    assert.match(sites, new RegExp(site.replace('.', '\\.')));
  const today = JSON.parse(stats).at(-1);
  assert.ok(today.sites >= 4, JSON.stringify(today));
  a.destroy();
  c.destroy();
});

check('a brock set reaches both workers within 2 s', async (t) => {
  const a = await pinned(pids[0]), c = await pinned(pids[1]);
  assert.equal(await hit(a, 'tracker2.test', 'site1.test'), 200);
  assert.equal(await hit(c, 'tracker2.test', 'site1.test'), 200);
  const r = await brock(state, ['set', 'tracker2.test', 'block']);
  assert.equal(r.code, 0, r.stderr);
  const t0 = Date.now();
  await waitFor('the choice in force on both', async () =>
    await hit(a, 'tracker2.test', 'site2.test') !== 200 &&
    await hit(c, 'tracker2.test', 'site2.test') !== 200, 2500);
  t.diagnostic(`user_block in force on both after ${Date.now() - t0} ms`);
  a.destroy();
  c.destroy();
});

check('SIGHUP reaches every worker', async () => {
  const lines = () => b.log().split('\n').filter((l) => /SIGHUP: read Privacy Badger/.test(l));
  const n = lines().length;
  b.proc.kill('SIGHUP');
  await waitFor('both workers read the data again', () => lines().length >= n + 2, 10000);
});

check('a worker killed is started again, and brock serves on', async () => {
  process.kill(pids[1], 'SIGKILL');
  await waitFor('the restart said', () =>
    /worker \d \(pid \d+\) killed by signal 9.*; starting it again/.test(b.log()), 5000);
  const now = await waitFor('two workers again', async () => {
    const p = await workerPids();
    return p.length === 2 && !p.includes(pids[1]) && p;
  }, 5000);
  assert.ok(now.includes(pids[0]), 'the other worker went on');
  assert.notEqual(await hit(false, 'tracker1.test', 'site5.test'), 200, 'still blocked');
  assert.equal(await navigate(b.port, 'http://site6.test/'), 200);
  pids = now;
});

check('SIGTERM stops every worker, and then brock', async () => {
  const r = await b.stop();
  assert.deepEqual(r, { code: 0, signal: null }, b.log());
  for (const pid of pids) assert.ok(!alive(pid), `worker ${pid} is gone`);
  assert.match(b.log(), /every worker has stopped/);
  b = null;
});

check('--workers auto starts one worker per core; without --workers, one process', async () => {
  const want = Math.min(require('node:os').availableParallelism(), 256);
  b = await startBrock({ state: tmpdir('workers-auto'), args: ['--workers', 'auto', '--no-update'] });
  assert.equal((await status()).workers, want);
  assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
  b = null;
  if (process.env.BROCK_TEST_WORKERS) return;
  b = await startBrock({ state: tmpdir('workers-default'), args: ['--no-update'] });
  const s = await status();
  assert.equal(s.workers, 1);
  assert.equal(s.pid, b.proc.pid, 'the process started serves itself');
  assert.deepEqual(await b.stop(), { code: 0, signal: null }, b.log());
  b = null;
});

// A stop that the parent reads together with the first worker's word that it serves: the
// parent is held still (SIGSTOP) once it started the first worker, until that worker serves
// and SIGTERM is waiting too. The other workers, whose sockets the stop closed, never start,
// and brock ends as told.
check('a stop that comes as the first worker gets ready starts no other worker', async () => {
  const proc = track(spawn(BROCK, ['--state', tmpdir('workers-early-stop'), '--data', DATA,
                                   'run', '--listen', '127.0.0.1:0', '--workers', '2',
                                   '--no-update'], { stdio: ['ignore', 'ignore', 'pipe'] }));
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  let log = '';
  proc.stderr.on('data', (d) => { log += d; });
  const children = () => {
    try { return fs.readFileSync(`/proc/${proc.pid}/task/${proc.pid}/children`, 'utf8').trim(); }
    catch { return ''; }
  };
  try {
    await waitFor('the first worker started', () => children() !== '' || proc.exitCode !== null);
    process.kill(proc.pid, 'SIGSTOP');
    await waitFor('the first worker serving', () => /worker 1 of 2 serving/.test(log) ||
                                                    proc.exitCode !== null);
    process.kill(proc.pid, 'SIGTERM');
  } finally {
    if (proc.exitCode === null) process.kill(proc.pid, 'SIGCONT');
  }
  const timer = setTimeout(() => proc.kill('SIGKILL'), 20000);
  const r = await exited;
  clearTimeout(timer);
  assert.deepEqual(r, { code: 0, signal: null }, log);
  assert.doesNotMatch(log, /worker 2|Bad file descriptor/, log);
});

check('--workers must be auto or a number from 1 to 256; one process unless asked', async () => {
  for (const v of ['0', '257', 'two']) {
    const r = await brock(tmpdir('workers-bad'), ['run', '--workers', v]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, new RegExp(`--workers '${v}': expected 'auto' or a whole number from 1 to 256`));
  }
  const dir = tmpdir('workers-conf'), conf = `${dir}/brock.conf`;
  fs.writeFileSync(conf, '# two are plenty\nworkers = 300\n');
  const r = await brock(tmpdir('workers-bad'), ['--config', conf, 'run']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /brock\.conf:2: .*--workers '300': expected 'auto' or a whole number/);
});
