// SPDX-License-Identifier: GPL-3.0-or-later
// Records the HTTP Archives under tests/data/har/ with one tab of Debian's Chromium, driven by
// playwright-core with recordHar. Every name resolves to a local server. Playwright keeps the
// tab's navigations under one page.
//
// playwright-one-page.har (the default): three sites each load an image from tracker.test,
// which sets an identifying cookie on the first and gets it back on the others; site-two.test
// also embeds a frame from site-four.test that loads the same image. Only tracker.test is
// treated as a secure origin, so the documents carry no fetch metadata.
//
// browsing.har (--browsing): five sites, every origin treated as secure, so that every request
// carries Sec-Fetch-* as over HTTPS. Each page loads pixel.test's image; news, shop and blog
// embed an ad frame from adx.test (which sets a cookie itself) whose own requests go to
// sync.test and pixel.test; video and news fetch() from social.test with credentials; blog's
// frame nests a second frame. The tab goes by typed addresses, link clicks and a redirect.
// plain-browsing.har (--plain): four sites over plain http, where Chromium sends no fetch
// metadata at all, written out as DevTools exports a recording (no _frameref: DevTools names
// no frames). The tab goes to morning.test, garden.test and travel.test by typed addresses,
// then to sports.test by a link. Each page loads an image from ads.test (which sets an
// identifying cookie once and gets it back after) and a script from cdn.test, and sends
// stats.test a beacon (navigator.sendBeacon(), a text body, no cookies) once loaded.
// Usage: node tests/browser/record-har.js [--browsing | --plain] OUT.har
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { chromium } = require('playwright-core');
const { EXECUTABLE, GIF } = require('./chromium.js');

const TRACKER_ID = 'tid=6c1f0e9a3b7d4c52';

// ---- playwright-one-page.har ----

function page(host) {
  let body = `<!doctype html><title>${host}</title>` +
    `<img src="http://tracker.test/pixel.gif?on=${host}">`;
  if (host === 'site-one.test') body += '<a id="next" href="http://site-two.test/">next</a>';
  if (host === 'site-two.test') body += '<iframe src="http://site-four.test/frame.html"></iframe>';
  return body;
}

function serve(req, res) {
  const host = (req.headers.host || '').split(':')[0];
  const html = { 'Content-Type': 'text/html', 'Cache-Control': 'no-store' };
  if (host === 'tracker.test' && req.url.startsWith('/pixel.gif')) {
    const h = { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' };
    // Secure, so that SameSite=None is accepted; the browser treats this origin as secure.
    if (!(req.headers.cookie || '').includes(TRACKER_ID))
      h['Set-Cookie'] = `${TRACKER_ID}; Path=/; Max-Age=86400; SameSite=None; Secure`;
    res.writeHead(200, h);
    res.end(GIF);
  } else if (host === 'site-four.test' && req.url === '/frame.html') {
    res.writeHead(200, html);
    res.end('<!doctype html><title>frame</title><img src="http://tracker.test/pixel.gif?in=frame">');
  } else if (host === 'site-three.test' && req.url === '/start') {
    res.writeHead(302, { Location: 'http://site-three.test/', 'Cache-Control': 'no-store' });
    res.end();
  } else if (/^site-(one|two|three)\.test$/.test(host) && req.url === '/') {
    res.writeHead(200, html);
    res.end(page(host));
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found\n');
  }
}

async function onePage(tab) {
  await tab.goto('http://site-one.test/', { waitUntil: 'load' });
  await Promise.all([tab.waitForURL('http://site-two.test/'), tab.click('#next')]);
  await tab.waitForLoadState('load');
  await tab.goto('http://site-three.test/start', { waitUntil: 'load' });
}

// ---- browsing.har ----

const SITES = ['news.test', 'shop.test', 'blog.test', 'video.test', 'mail.test'];
const THIRD = ['pixel.test', 'adx.test', 'sync.test', 'social.test', 'cdn.test'];

// An identifying cookie per third party, set once, sent back after.
function cookieFor(host, req, h) {
  const name = host.split('.')[0];
  const id = `${name}=${Buffer.from(host).toString('hex').padEnd(20, '7')}`;
  if (!(req.headers.cookie || '').includes(`${name}=`))
    h['Set-Cookie'] = `${id}; Path=/; Max-Age=86400; SameSite=None; Secure`;
}

function sitePage(host) {
  const links = { 'news.test': 'shop.test', 'blog.test': 'video.test' };
  let body = `<!doctype html><title>${host}</title><script src="http://cdn.test/lib.js"></script>` +
    `<img src="http://pixel.test/p.gif?on=${host}">`;
  if (['news.test', 'shop.test', 'blog.test'].includes(host))
    body += `<iframe src="http://adx.test/slot.html?on=${host}"></iframe>`;
  if (['news.test', 'video.test'].includes(host)) {
    body += '<script>fetch("http://social.test/count", {credentials: "include"})' +
      '.catch(() => {});</script>';
  }
  if (links[host]) body += `<a id="next" href="http://${links[host]}/">next</a>`;
  return body;
}

function slotPage(url) {
  const on = url.searchParams.get('on');
  let body = '<!doctype html><title>ad</title>' +
    `<img src="http://sync.test/sync.gif?from=adx">` +
    `<img src="http://pixel.test/p.gif?in=adx">`;
  if (on === 'blog.test') body += '<iframe src="http://adx.test/inner.html"></iframe>';
  return body;
}

function serveBrowsing(req, res) {
  const host = (req.headers.host || '').split(':')[0];
  const url = new URL(req.url, `http://${host}`);
  const h = { 'Cache-Control': 'no-store' };
  if (THIRD.includes(host) && host !== 'cdn.test') cookieFor(host, req, h);
  if (host === 'social.test') {
    h['Access-Control-Allow-Origin'] = req.headers.origin || '*';
    h['Access-Control-Allow-Credentials'] = 'true';
    h['Content-Type'] = 'application/json';
    res.writeHead(200, h);
    res.end('{"count":1}');
  } else if (host === 'adx.test' && url.pathname === '/slot.html') {
    res.writeHead(200, { ...h, 'Content-Type': 'text/html' });
    res.end(slotPage(url));
  } else if (host === 'adx.test' && url.pathname === '/inner.html') {
    res.writeHead(200, { ...h, 'Content-Type': 'text/html' });
    res.end('<!doctype html><title>inner</title><img src="http://sync.test/sync.gif?from=inner">');
  } else if (host === 'cdn.test') {
    res.writeHead(200, { ...h, 'Content-Type': 'application/javascript' });
    res.end('window.lib = 1;\n');
  } else if (THIRD.includes(host)) {
    res.writeHead(200, { ...h, 'Content-Type': 'image/gif' });
    res.end(GIF);
  } else if (host === 'mail.test' && url.pathname === '/go') {
    res.writeHead(302, { ...h, Location: 'http://mail.test/' });
    res.end();
  } else if (SITES.includes(host) && url.pathname === '/') {
    res.writeHead(200, { ...h, 'Content-Type': 'text/html' });
    res.end(sitePage(host));
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found\n');
  }
}

async function browsing(tab) {
  // Each page settles (its fetch() answered) before the next navigation.
  const settle = async () => {
    await tab.waitForLoadState('load');
    await tab.waitForTimeout(500);
  };
  await tab.goto('http://news.test/');
  await settle();
  await Promise.all([tab.waitForURL('http://shop.test/'), tab.click('#next')]);
  await settle();
  await tab.goto('http://blog.test/');
  await settle();
  await Promise.all([tab.waitForURL('http://video.test/'), tab.click('#next')]);
  await settle();
  await tab.goto('http://mail.test/go');
  await settle();
}

// ---- plain-browsing.har ----

const PLAIN_SITES = ['morning.test', 'garden.test', 'travel.test', 'sports.test'];

function plainPage(host) {
  let body = `<!doctype html><title>${host}</title><script src="http://cdn.test/lib.js"></script>` +
    `<img src="http://ads.test/ad.gif?on=${host}">` +
    '<script>addEventListener("load", () => navigator.sendBeacon(' +
    `"http://stats.test/collect?on=${host}", "loaded"));</script>`;
  if (host === 'travel.test') body += '<a id="next" href="http://sports.test/">next</a>';
  return body;
}

function servePlain(req, res) {
  const host = (req.headers.host || '').split(':')[0];
  const url = new URL(req.url, `http://${host}`);
  const h = { 'Cache-Control': 'no-store' };
  req.resume();
  if (host === 'ads.test') {
    if (!(req.headers.cookie || '').includes('ad='))
      h['Set-Cookie'] = 'ad=5b0e8c2f9a1d4e7c3b6a0f8e; Path=/; Max-Age=86400';
    res.writeHead(200, { ...h, 'Content-Type': 'image/gif' });
    res.end(GIF);
  } else if (host === 'stats.test') {
    res.writeHead(204, h);
    res.end();
  } else if (host === 'cdn.test') {
    res.writeHead(200, { ...h, 'Content-Type': 'application/javascript' });
    res.end('window.lib = 1;\n');
  } else if (PLAIN_SITES.includes(host) && url.pathname === '/') {
    res.writeHead(200, { ...h, 'Content-Type': 'text/html' });
    res.end(plainPage(host));
  } else {
    res.writeHead(404, { 'Content-Type': 'text/plain' });
    res.end('not found\n');
  }
}

async function plain(tab) {
  // Each page's beacon leaves before the next navigation.
  const settle = async () => {
    await tab.waitForLoadState('load');
    await tab.waitForTimeout(500);
  };
  for (const site of ['morning.test', 'garden.test', 'travel.test']) {
    await tab.goto(`http://${site}/`);
    await settle();
  }
  await Promise.all([tab.waitForURL('http://sports.test/'), tab.click('#next')]);
  await settle();
}

// DevTools' own export names no frames: the recording is written without Playwright's.
function asDevtools(file) {
  const har = JSON.parse(fs.readFileSync(file, 'utf8'));
  for (const e of har.log.entries) delete e._frameref;
  fs.writeFileSync(file, JSON.stringify(har));
}

// ---- recording ----

const SCENARIOS = {
  'one-page': { browse: onePage, serve, secure: ['tracker.test'] },
  browsing: { browse: browsing, serve: serveBrowsing, secure: [...SITES, ...THIRD] },
  plain: { browse: plain, serve: servePlain, secure: [], after: asDevtools },
};

async function record(out, scenario) {
  const { browse, serve: answer, secure, after } = SCENARIOS[scenario];
  const server = http.createServer(answer);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = server.address().port;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'brock-record-'));
  const profile = path.join(home, 'profile');
  // Third-party cookies kept and sent, as a browser without their blocking would.
  fs.mkdirSync(path.join(profile, 'Default'), { recursive: true });
  fs.writeFileSync(path.join(profile, 'Default', 'Preferences'), JSON.stringify({
    profile: { cookie_controls_mode: 0, block_third_party_cookies: false },
  }));
  const args = [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--host-resolver-rules=MAP * 127.0.0.1:${port}`,
  ];
  if (secure.length) {
    args.push('--unsafely-treat-insecure-origin-as-secure=' +
              secure.map((h) => `http://${h}`).join(','));
  }
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: EXECUTABLE,
      args,
      env: { ...process.env, HOME: home },
      timeout: 30000,
      recordHar: { path: out, content: 'omit' },
    });
    const tab = context.pages()[0] || await context.newPage();
    await browse(tab);
  } finally {
    if (context) await context.close();
    server.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
  if (after) after(out);
}

const argv = process.argv.slice(2);
const flags = { '--browsing': 'browsing', '--plain': 'plain' };
const scenario = flags[argv[0]] ? flags[argv.shift()] : 'one-page';
if (argv.length !== 1) {
  console.error('usage: node tests/browser/record-har.js [--browsing | --plain] OUT.har');
  process.exit(2);
}
record(argv[0], scenario).catch((err) => {
  console.error(err);
  process.exit(1);
});
