#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// The channel of brock's page script, driven by curl through `brock run --intercept`. brock
// gives a token only to a navigation inside HTTPS it intercepts (a top-level page, or a frame
// of a page it saw load it); a fetch() of a page, a frame it cannot place and anything over
// plain HTTP get the script without one, and the channel's paths over plain HTTP answer 403,
// so that GET-the-script-and-POST-a-report teaches nothing there. A report with a good token
// is answered 204 by brock, never reaches the origin, and teaches what the token allows: a
// canvas report from a top-level page or another site's frame, for a script the client loaded
// on the page since the token was given; a frame's supercookie on the page the token names,
// whatever the body says. Forged tokens (a bad MAC, another host's, another page's site
// swapped in), a canvas report from a frame of the page's own site, malformed or oversized
// bodies and GETs are refused (403, 400, 413) with nothing learned and one log line at most.
// 10,000 reports from one page are cut at 32 (429) and teach once; a client's pages, at 120 a
// minute. With --no-inject there is no channel: the path goes to the origin like any other.
'use strict';

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const tls = require('node:tls');
const h = require('./harness.js');
const { startOrigin } = require('./origin.js');

const { check, flat } = h;

const HOSTS = ['site.test', 'other.test', 'page.test', 'frame.test', 'fp.test', 'early.test',
               'reader.test', 'unseen.test', 'bad-fp.test', 'w1.test', 'w2.test', 'w3.test',
               'victim.test', 'flood.test', 'flood-fp.test'];

let origin, httpOrigin, brock, plain, flood, origins;
const tmp = h.tmpdir('report-t');

async function start(name, args = []) {
  const state = path.join(tmp, name);
  const init = await h.brock(state, ['ca', 'init']);
  assert.equal(init.code, 0, init.stderr);
  const b = await h.startBrock({ state, args: ['-v', '--no-update', '--intercept',
                                               '--upstream-ca', origins.ca,
                                               '--resolve', `*.test:443=127.0.0.1:${origin.port}`,
                                               '--resolve',
                                               `*.test:80=127.0.0.1:${httpOrigin.port}`,
                                               ...args] });
  b.ca = path.join(state, 'ca', 'ca.pem');
  return b;
}

// curl through b, trusting b's CA.
function curl(args, b = brock) {
  return h.curl(b.port, ['--cacert', b.ca, ...args]);
}

const NAV = ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: document',
             '-H', 'Sec-Fetch-Site: none'];
// A frame as a page of site opens it.
const frameOf = (site) => ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: iframe',
                           '-H', 'Sec-Fetch-Site: cross-site', '-H', `Referer: https://${site}/html`];

// What brock's script in the document at url is told: its token, the report path, its jobs.
async function scriptConf(url, args = NAV, b = brock) {
  const r = await (url.startsWith('https:') ? curl([...args, url], b) : h.curl(b.port, [...args, url]));
  const m = /<script data-brock="([0-9a-f]+|-) (\/\.well-known\/brock-[0-9a-f]{16}\/report|-) ([a-z]*)">/
    .exec(r.body.toString());
  assert.ok(m, `${url} got brock's script with its data`);
  return { token: m[1], path: m[2], jobs: m[3] };
}

// Posts a report (an object, or a string as it is) to host's report path through b.
function post(host, p, body, args = [], b = brock, scheme = 'https') {
  const a = ['-X', 'POST', '-H', 'Content-Type: text/plain;charset=UTF-8',
             '--data-binary', typeof body === 'string' ? body : JSON.stringify(body),
             ...args, `${scheme}://${host}${p}`];
  return scheme === 'https' ? curl(a, b) : h.curl(b.port, a);
}

// Posts bodies to host's path p one after the other on one connection through b (one worker
// of several sees them all); resolves with the statuses.
async function postSeq(host, p, bodies, b = brock) {
  const args = [];
  for (const body of bodies) {
    if (args.length) args.push('--next');
    args.push('-s', '-x', `http://127.0.0.1:${b.port}`, '--cacert', b.ca, '-o', '/dev/null',
              '-w', '%{http_code}\n', '-X', 'POST', '--data-binary', JSON.stringify(body),
              `https://${host}${p}`);
  }
  const r = await h.run('curl', args);
  return r.stdout.trim().split('\n').map(Number);
}

// The page at site loads url as a third party (a script, an image).
function load(site, url, b = brock) {
  return curl(['-H', `Referer: https://${site}/html`, '-H', 'Sec-Fetch-Dest: script',
               '-H', 'Sec-Fetch-Mode: no-cors', '-H', 'Sec-Fetch-Site: cross-site', url], b);
}

async function tracker(domain, b = brock) {
  const r = await h.run('curl', ['-s', `http://127.0.0.1:${b.port}/api/trackers/${domain}`]);
  return JSON.parse(r.stdout);
}

function evidence(t, kind) {
  return (t.evidence || []).filter((e) => e.kind === kind).map((e) => e.site).sort();
}

// Waits until domain's evidence of kind is sites: with --workers, the worker that learned it
// writes it at its next sync, and the one that answers reads it then.
async function learned(domain, kind, sites, b = brock) {
  await h.waitFor(`${domain}'s ${kind} evidence on ${sites}`, async () =>
    JSON.stringify(evidence(await tracker(domain, b), kind)) === JSON.stringify(sites), 5000);
}

// A canvas report of script, as the script in a page sends it.
const canvas = (token, script) => ({ token, kind: 'canvas', script, writers: [script] });

// The token with another page's site put in place of its own (report.h's layout: the site's
// length at byte 18, the site from byte 19, the MAC after it).
function swapSite(token, site) {
  const b = Buffer.from(token, 'hex');
  const len = b[18];
  const out = Buffer.concat([b.subarray(0, 19), Buffer.from(site), b.subarray(19 + len)]);
  out[18] = site.length;
  return out.toString('hex');
}

const reached = () => [...origin.requests, ...(httpOrigin ? httpOrigin.requests : [])]
  .filter((r) => r.path.startsWith('/.well-known/brock-'));

before(flat('start the origin and brock', async () => {
  origins = h.originCerts(tmp, HOSTS, 'brock report test');
  origin = await startOrigin({ tls: origins });
  httpOrigin = await startOrigin();
  brock = await start('state');
  plain = await start('plain', ['--no-inject']);
}));

after(async () => {
  for (const b of [brock, plain, flood]) if (b) await b.stop('SIGKILL');
  for (const o of [origin, httpOrigin]) if (o) await o.close();
});

check('a token is given only to navigations inside intercepted HTTPS: one of its own to each ' +
      'document, none to a fetch() of a page, to plain HTTP or to a frame brock cannot place',
      async () => {
  const a = await scriptConf('https://site.test/html');
  const b = await scriptConf('https://site.test/html');
  assert.match(a.token, /^[0-9a-f]{80,}$/);
  assert.notEqual(a.token, b.token, 'each document has its own');
  assert.equal(a.path, b.path);
  assert.equal(a.jobs, 'srwa');
  // A page's script fetching the page: fetch metadata it cannot set says so.
  const fetched = await curl(['-H', 'Sec-Fetch-Mode: cors', '-H', 'Sec-Fetch-Dest: empty',
                              '-H', 'Sec-Fetch-Site: same-origin', '-H', 'Accept: text/html',
                              '-H', 'Referer: https://site.test/html', 'https://site.test/html']);
  assert.equal(fetched.status, 200);
  assert.doesNotMatch(fetched.body.toString(), /data-brock="[0-9a-f]/);
  // Plain HTTP: no token, whatever the headers say.
  assert.deepEqual(await scriptConf('http://site.test/html'), { token: '-', path: '-', jobs: 's' });
  assert.deepEqual(await scriptConf('http://site.test/html', ['-H', 'Accept: text/html']),
                   { token: '-', path: '-', jobs: 's' });
  // Frames of a page brock saw: another site's reports and shows placeholders without
  // buttons; the page's own site's has buttons and does not report.
  await scriptConf('https://page.test/html');
  const cross = await scriptConf('https://frame.test/html', frameOf('page.test'));
  assert.match(cross.token, /^[0-9a-f]+$/);
  assert.equal(cross.jobs, 'srw');
  const same = await scriptConf('https://page.test/html?inner', frameOf('page.test'));
  assert.match(same.token, /^[0-9a-f]+$/);
  assert.equal(same.jobs, 'swa');
  // A frame whose page brock never saw: no token.
  const lone = await scriptConf('https://frame.test/html',
                                ['-H', 'Sec-Fetch-Mode: navigate', '-H', 'Sec-Fetch-Dest: iframe',
                                 '-H', 'Referer: https://nowhere.test/']);
  assert.deepEqual(lone, { token: '-', path: '-', jobs: 's' });
});

check('plain HTTP teaches nothing: no token in pages, the channel answers 403, three rounds of ' +
      'a forged report leave the victim unlearned', async () => {
  const path0 = (await scriptConf('https://site.test/html')).path;
  for (const site of ['w1.test', 'w2.test', 'w3.test']) {
    const page = await h.curl(brock.port, ['-H', 'Accept: text/html', `http://${site}/html`]);
    assert.doesNotMatch(page.body.toString(), /data-brock="[0-9a-f]/, `no token on ${site}`);
    // Whatever token the page might have had: the one brock gives an HTTPS page of site.
    const token = (await scriptConf(`https://${site}/html`)).token;
    const script = await h.curl(brock.port, ['-H', `Referer: http://${site}/html`,
                                             'http://victim.test/lib.js']);
    assert.equal(script.status, 200);
    const r = await post(site, path0, { ...canvas(token, 'http://victim.test/lib.js'),
                                        top: true }, [], brock, 'http');
    assert.equal(r.status, 403, `the report on ${site} is refused`);
    assert.match(r.body.toString(), /only inside HTTPS/);
  }
  const t = await tracker('victim.test');
  assert.deepEqual(t.evidence || [], [], 'nothing learned');
  assert.notEqual(t.action, 'block');
  assert.deepEqual(reached(), [], 'no report reached the origin');
});

check('a canvas report is learned only for a script the client loaded on the page since the ' +
      'page was given its token', async () => {
  const conf = await scriptConf('https://site.test/html');
  await load('site.test', 'https://fp.test/fp.js');
  let r = await post('site.test', conf.path, canvas(conf.token, 'https://fp.test/fp.js?v=2'));
  assert.equal(r.status, 204);
  await learned('fp.test', 'canvas', ['site.test']);
  // A script the page never loaded: taken, nothing learned.
  r = await post('site.test', conf.path, canvas(conf.token, 'https://unseen.test/fp.js'));
  assert.equal(r.status, 204);
  assert.deepEqual((await tracker('unseen.test')).evidence || [], []);
  // A reader that wrote nothing of its base first: nothing learned either.
  await load('site.test', 'https://reader.test/r.js');
  r = await post('site.test', conf.path, { ...canvas(conf.token, 'https://reader.test/r.js'),
                                           writers: ['https://other.test/w.js'] });
  assert.equal(r.status, 204);
  assert.deepEqual((await tracker('reader.test')).evidence || [], []);
  // Loaded on the site, but before this page was given its token (a second earlier): not
  // this page's script. Loaded again by the page: it is.
  await load('site.test', 'https://early.test/e.js');
  await new Promise((res) => setTimeout(res, 1100));
  const later = await scriptConf('https://site.test/html');
  r = await post('site.test', later.path, canvas(later.token, 'https://early.test/e.js'));
  assert.equal(r.status, 204);
  assert.deepEqual((await tracker('early.test')).evidence || [], []);
  await load('site.test', 'https://early.test/e.js');
  r = await post('site.test', later.path, canvas(later.token, 'https://early.test/e.js'));
  assert.equal(r.status, 204);
  await learned('early.test', 'canvas', ['site.test']);
  assert.deepEqual(reached(), [], 'no report reached the origin');
});

check('a frame\'s supercookie is learned on the page its token names; what the body says of ' +
      'its page is not believed', async () => {
  await scriptConf('https://page.test/html');
  const items = { frameId: 'ABCDEF0123456789' };
  // Low entropy: nothing (and a frame says what it holds once: its report is the one).
  const quiet = await scriptConf('https://frame.test/html', frameOf('page.test'));
  assert.deepEqual(await postSeq('frame.test', quiet.path, [
    { token: quiet.token, kind: 'supercookie', items: { ab: 'ab' } },
    { token: quiet.token, kind: 'supercookie', items }]), [204, 204]);
  assert.deepEqual((await tracker('frame.test')).evidence || [], []);
  const conf = await scriptConf('https://frame.test/html', frameOf('page.test'));
  const report = { token: conf.token, kind: 'supercookie', top: true,
                   ancestors: ['https://victim.test'], items };
  let r = await post('frame.test', conf.path, report);
  assert.equal(r.status, 204);
  await learned('frame.test', 'supercookie', ['page.test']);
  // A top-level page has no supercookie to report.
  const top = await scriptConf('https://frame.test/html');
  r = await post('frame.test', top.path, { ...report, token: top.token });
  assert.equal(r.status, 403);
  assert.deepEqual(reached(), []);
});

check('forged tokens and bad reports are refused, change nothing, and are said once',
      async () => {
  const conf = await scriptConf('https://site.test/html');
  const other = await scriptConf('https://other.test/html');
  // A frame of the page's own site (one the page could have sandboxed and read).
  const inner = await scriptConf('https://site.test/html?inner', frameOf('site.test'));
  await load('site.test', 'https://bad-fp.test/fp.js');
  const good = canvas(conf.token, 'https://bad-fp.test/fp.js');
  const linesBefore = (brock.log().match(/report.* of brock's page script/g) || []).length;
  const flip = (t, i) => t.slice(0, i) + (t[i] === '0' ? '1' : '0') + t.slice(i + 1);
  const cases = [
    ['a bad MAC', { ...good, token: flip(conf.token, conf.token.length - 1) }, 403],
    ['a changed time', { ...good, token: flip(conf.token, 20) }, 403],
    ['a token of another host', { ...good, token: other.token }, 403],
    ['another site swapped into its own', { ...good, token: swapSite(conf.token, 'evil.test') },
     403],
    ['a token cut short', { ...good, token: conf.token.slice(0, 64) }, 403],
    ['a token of the page\'s own frame, saying top', { ...good, token: inner.token, top: true },
     403],
    ['no token', { ...good, token: undefined }, 400],
    ['an unknown kind', { ...good, kind: 'cookie' }, 400],
    ['the old frame kind', { ...good, kind: 'frame' }, 400],
    ['a malformed body', '{"token":', 400],
    ['an oversized body', { ...good, pad: 'x'.repeat(17 * 1024) }, 413],
  ];
  for (const [what, body, status] of cases) {
    const r = await post('site.test', conf.path, body);
    assert.equal(r.status, status, what);
  }
  // Chunked past the limit, and a GET.
  let r = await post('site.test', conf.path, { ...good, pad: 'x'.repeat(20 * 1024) },
                     ['-H', 'Transfer-Encoding: chunked']);
  assert.equal(r.status, 413);
  r = await curl([`https://site.test${conf.path}`]);
  assert.equal(r.status, 400);
  // The other host's page sends its report to site.test's path with its own token: refused.
  r = await post('site.test', other.path, { ...good, token: other.token });
  assert.equal(r.status, 403);
  assert.deepEqual((await tracker('bad-fp.test')).evidence || [], [], 'nothing learned');
  assert.deepEqual(reached(), [], 'no report reached the origin');
  const lines = (brock.log().match(/report.* of brock's page script/g) || []).length;
  assert.ok(lines - linesBefore <= 1, `refusals said once (${lines - linesBefore} lines)`);
  // Still there: the same report with its token is taken.
  r = await post('site.test', conf.path, good);
  assert.equal(r.status, 204);
  await learned('bad-fp.test', 'canvas', ['site.test']);
});

// n reports of the page whose script was told conf, sent through b pipelined on one
// intercepted connection (one round trip, not n: the test's time is brock's); resolves with
// the statuses, in order.
function burst(b, host, conf, script, n) {
  const body = JSON.stringify(canvas(conf.token, script));
  const one = `POST ${conf.path} HTTP/1.1\r\nHost: ${host}\r\n` +
    `Content-Type: text/plain;charset=UTF-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `\r\n${body}`;
  return new Promise((resolve, reject) => {
    const raw = net.connect(b.port, '127.0.0.1');
    const timer = setTimeout(() => { raw.destroy(); reject(new Error('the burst timed out')); },
                             240000);
    let head = '';
    const fail = (e) => { clearTimeout(timer); raw.destroy(); reject(e); };
    raw.on('error', fail);
    raw.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`);
    const onConnect = (d) => {
      head += d.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      raw.removeListener('data', onConnect);
      if (!/^HTTP\/1\.1 200/.test(head)) return fail(new Error(`CONNECT: ${head}`));
      const t = tls.connect({ socket: raw, servername: host, ca: fs.readFileSync(b.ca) });
      const codes = [];
      let got = '';
      t.on('error', fail);
      t.on('secureConnect', () => t.write(one.repeat(n)));
      t.on('data', (d) => {
        got += d.toString('latin1');
        // Only whole status lines, each answer's first: bodies hold no "HTTP/1.1 ".
        const re = /HTTP\/1\.1 (\d{3}) /g;
        let m, last = 0;
        while ((m = re.exec(got)) !== null) {
          codes.push(m[1]);
          last = re.lastIndex;
        }
        got = got.slice(last);
        if (codes.length >= n) {
          clearTimeout(timer);
          t.destroy();
          resolve(codes);
        }
      });
    };
    raw.on('data', onConnect);
  });
}

check('10,000 reports from one page: 32 taken, the rest 429, learned once; a client\'s pages ' +
      'say 120 a minute', async () => {
  flood = await start('flood');
  const conf = await scriptConf('https://flood.test/html', NAV, flood);
  await load('flood.test', 'https://flood-fp.test/fp.js', flood);
  const codes = await burst(flood, 'flood.test', conf, 'https://flood-fp.test/fp.js', 10000);
  assert.equal(codes.length, 10000);
  assert.deepEqual([...new Set(codes.slice(0, 32))], ['204']);
  assert.deepEqual([...new Set(codes.slice(32))], ['429']);
  await learned('flood-fp.test', 'canvas', ['flood.test'], flood);
  assert.equal((flood.log().match(/learned: flood-fp\.test tracks on flood\.test/g) || []).length,
               1, 'learned once');
  assert.ok((flood.log().match(/report.* of brock's page script/g) || []).length <= 2,
            'the refusals said at most once a minute');
  // Other pages of the same client: 120 reports a minute in all, the first page's 32 among
  // them.
  let taken = 32, refused = 0;
  for (let page = 0; page < 5; page++) {
    const c = await scriptConf('https://flood.test/html', NAV, flood);
    for (const code of await burst(flood, 'flood.test', c, 'https://flood-fp.test/fp.js', 32)) {
      if (code === '204') taken++;
      else if (code === '429') refused++;
    }
  }
  // Each worker counts what it was told itself: with --workers, a client may say that much to
  // each.
  if (!(Number(process.env.BROCK_TEST_WORKERS) > 1)) {
    assert.equal(taken, 120, 'a client\'s 120 reports a minute');
    assert.equal(refused, 5 * 32 - (120 - 32));
  }
  assert.match(flood.log(), /\(429: a page's script may send brock 32 requests/);
}, 300000);

check('--no-inject: no channel; the path goes to the origin like any other', async () => {
  const p = '/.well-known/brock-0123456789abcdef/report';
  const r = await post('site.test', p, '{}', [], plain);
  assert.equal(r.status, 200, 'the origin\'s answer');
  await h.waitFor('the origin saw it', () => reached().some((q) => q.path === p), 5000);
});
