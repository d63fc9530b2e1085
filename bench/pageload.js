// SPDX-License-Identifier: GPL-3.0-or-later
// The browser half of bench/pageload, for one round trip: loads https://site.test/ in headless
// Chromium LOADS times each way, the ways interleaved (direct, brock, mitmproxy, direct, ...),
// after one load each way that is not counted (the proxies make their leaf certificates then).
// Each load is cold: a fresh Chromium process with a fresh profile, so no connection, TLS
// session or cache is left from the one before. Per load: the time from navigation start to
// the load event (Navigation Timing), the TCP connections the relay accepted meanwhile (those
// to the origin) and how many of them nginx answered requests on, the protocol nginx logged
// for the page's requests and the one the browser used with the proxy or the origin
// (nextHopProtocol). Prints a line a load on stderr and a table on stdout.
// Usage: node pageload.js RTT_MS LOADS RELAY_PORT COUNT_FILE ACCESS_LOG WAY...
// where WAY is NAME=PROXY_PORT:CA_FILE, PROXY_PORT "-" for none (Chromium then reaches the
// relay itself, the test names mapped to it).
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { launch, trustCa } = require('../tests/browser/chromium.js');

const [rtt, loads, relayPort] = process.argv.slice(2, 5).map(Number);
const [countFile, accessLog] = process.argv.slice(5, 7);
const NAMES = ['site.test', 'img.test', 'cdn.test'];
const PAGE = 'https://site.test/';
const RESOURCES = 100;
const TIMEOUT_MS = 60000;

const homes = [];
const ways = process.argv.slice(7).map((arg) => {
  const [, name, port, ca] = /^([^=]+)=([^:]+):(.*)$/.exec(arg);
  // A HOME a way, whose NSS database trusts the CA of what the browser talks TLS with.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'brock-pageload-home-'));
  homes.push(home);
  trustCa(home, ca);
  const args = port === '-'
    ? [`--host-resolver-rules=${NAMES.map((n) => `MAP ${n} 127.0.0.1:${relayPort}`).join(',')}`]
    : [];
  return { name, proxy: port === '-' ? null : `127.0.0.1:${port}`, home, args, runs: [] };
});
// brock passes a host through unseen once its clients closed two TLS handshakes with it in ten
// minutes; Chromium does that on a page such as this one (it opens several connections to a
// host and drops those still in their handshake once one speaks HTTP/2), and the browser,
// which trusts only brock's CA, then refuses the origin's certificate. So that each load
// through brock is seen inside as the first was, the hosts it learned are taken off its list
// after each load and said in the load's line; a running brock picks that up within two
// seconds. BENCH_BROCK_STATE: brock's state folder; BENCH_BROCK_DATA: its --data, if any.
const brockCli = (args) => execFileSync(process.env.BROCK, [
  '--state', process.env.BENCH_BROCK_STATE,
  ...(process.env.BENCH_BROCK_DATA ? ['--data', process.env.BENCH_BROCK_DATA] : []), ...args,
], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
const PICKUP_MS = 2500;
let unlearnedAt = 0;
function unlearn() {
  const learned = JSON.parse(brockCli(['passthrough', 'list', '--json']))
    .filter((e) => e.learned).map((e) => e.host);
  for (const host of learned) brockCli(['passthrough', 'remove', host]);
  if (learned.length) unlearnedAt = Date.now();
  return learned;
}

const removeHomes = () => {
  for (const h of homes) fs.rmSync(h, { recursive: true, force: true });
};
process.on('exit', removeHomes);
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => process.exit(1));

const lines = (f) => {
  try { return fs.readFileSync(f, 'utf8').split('\n').filter(Boolean); } catch { return []; }
};
const tally = (list) => {
  const t = {};
  for (const x of list) t[x] = (t[x] || 0) + 1;
  return Object.entries(t).sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k || '?'}x${n}`).join(' ');
};

// Each load starts with no connection to the origin open: the relay (BENCH_RELAY_PID) cuts
// those a proxy kept from the load before, unless BENCH_WARM=1.
const WARM = process.env.BENCH_WARM === '1';
async function cutKept() {
  if (WARM) return;
  process.kill(Number(process.env.BENCH_RELAY_PID), 'SIGUSR1');
  await new Promise((r) => setTimeout(r, 300));
}

async function loadOnce(way) {
  await cutKept();
  if (way.name === 'brock') {
    const wait = unlearnedAt + PICKUP_MS - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  const browser = await launch(way.proxy, { home: way.home, args: way.args });
  try {
    const page = await browser.context.newPage();
    let failed = 0;
    let why = '';
    page.on('requestfailed', (q) => { failed++; why ||= `${q.url()}: ${q.failure()?.errorText}`; });
    page.on('response', (r) => {
      if (r.status() >= 400) { failed++; why ||= `${r.url()}: ${r.status()}`; }
    });
    const conns0 = lines(countFile).length;
    const log0 = lines(accessLog).length;
    await page.goto(PAGE, { waitUntil: 'load', timeout: TIMEOUT_MS });
    const t = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0];
      const res = performance.getEntriesByType('resource');
      return { ms: nav.loadEventStart - nav.startTime, hop: nav.nextHopProtocol,
               resHops: res.map((r) => r.nextHopProtocol), resources: res.length };
    });
    const logged = lines(accessLog).slice(log0).map((l) => l.split(' '));
    return {
      ms: t.ms,
      conns: lines(countFile).length - conns0,
      nginxConns: new Set(logged.map((f) => f[1])).size,
      hop: t.hop,
      resHop: tally(t.resHops),
      origin: tally(logged.map((f) => f[0])),
      requests: logged.length,
      failed: failed + Math.max(0, RESOURCES - t.resources),
      why,
    };
  } catch (e) {
    return { error: String(e.message || e).split('\n')[0] };
  } finally {
    await browser.close();
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

(async () => {
  for (let i = -1; i < loads; i++) {
    for (const way of ways) {
      const r = await loadOnce(way);
      if (way.name === 'brock') r.learned = unlearn();
      const what = i < 0 ? 'warm-up' : `load ${i + 1}/${loads}`;
      process.stderr.write(r.error
        ? `# ${rtt} ms ${way.name} ${what}: failed: ${r.error}\n`
        : `# ${rtt} ms ${way.name} ${what}: ${r.ms.toFixed(0)} ms, ${r.conns} connections to ` +
          `the origin, origin ${r.origin}, browser ${r.hop} (resources ${r.resHop}), ` +
          `${r.requests} requests logged on ${r.nginxConns} of nginx's connections, ` +
          `${r.failed} failed${r.why ? ` (${r.why})` : ''}` +
          `${r.learned?.length ? `; brock learned to pass ${r.learned.join(', ')} through ` +
            'unseen (taken off its list)' : ''}\n`);
      if (i >= 0) way.runs.push(r);
    }
  }
  console.log(`\nhttps://site.test/ (1 page, ${RESOURCES - 20} + 10 images, 10 scripts, on ` +
              `three names) with a ${rtt} ms round trip; ${loads} cold loads each, interleaved` +
              (WARM ? ', the proxies\' connections to the origin kept from load to load'
                : ', each with no connection to the origin open'));
  console.log('conns/load: TCP connections to the origin a load (the relay\'s count); used: ' +
              'those nginx answered requests on (medians)');
  console.log(`${'way'.padEnd(10)} ${'median ms'.padStart(9)} ${'vs direct'.padStart(9)} ` +
              `${'conns/load'.padStart(10)} ${'used'.padStart(5)} ${'failed'.padStart(6)}  ` +
              'origin protocol, browser protocol (page)');
  let direct = NaN;
  for (const way of ways) {
    const ok = way.runs.filter((r) => !r.error && r.failed === 0);
    const ms = median(ok.map((r) => r.ms));
    if (way.name === 'direct') direct = ms;
    const ratio = direct > 0 && ms > 0 ? (ms / direct).toFixed(2) : '-';
    const conns = median(ok.map((r) => r.conns));
    const used = median(ok.map((r) => r.nginxConns));
    const origin = [...new Set(ok.map((r) => r.origin.replace(/x\d+/g, '')))].join(' / ');
    const hop = [...new Set(ok.map((r) => r.hop))].join(' / ');
    console.log(`${way.name.padEnd(10)} ${(ok.length ? ms.toFixed(0) : '-').padStart(9)} ` +
                `${ratio.padStart(9)} ${(ok.length ? String(conns) : '-').padStart(10)} ` +
                `${(ok.length ? String(used) : '-').padStart(5)} ` +
                `${String(way.runs.length - ok.length).padStart(6)}  ${origin || '-'}, ` +
                `${hop || '-'}`);
  }
  const brock = ways.find((w) => w.name === 'brock');
  const learning = brock ? brock.runs.filter((r) => r.learned?.length) : [];
  if (learning.length) {
    const hosts = [...new Set(learning.flatMap((r) => r.learned))].join(', ');
    console.log(`brock learned to pass ${hosts} through unseen (Chromium closed TLS handshakes ` +
                `with it) in ${learning.length} of ${brock.runs.length} loads; taken off its ` +
                'list after each load, so that each began seen inside');
  }
})().catch((e) => { console.error(e); process.exit(1); });
