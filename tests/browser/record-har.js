// SPDX-License-Identifier: GPL-3.0-or-later
// Records tests/data/har/playwright-one-page.har: one tab of Debian's Chromium, driven by
// playwright-core with recordHar, browses three sites that each load an image from
// tracker.test, which sets an identifying cookie on the first and gets it back on the others.
// site-two.test also embeds a frame from site-four.test that loads the same image. All
// names resolve to a local server. Playwright keeps the tab's navigations under one page.
// Usage: node tests/browser/record-har.js OUT.har
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { chromium } = require('playwright-core');
const { EXECUTABLE, GIF } = require('./chromium.js');

const TRACKER_ID = 'tid=6c1f0e9a3b7d4c52';

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

async function record(out) {
  const server = http.createServer(serve);
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
    '--unsafely-treat-insecure-origin-as-secure=http://tracker.test',
  ];
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
    await tab.goto('http://site-one.test/', { waitUntil: 'load' });
    await Promise.all([tab.waitForURL('http://site-two.test/'), tab.click('#next')]);
    await tab.waitForLoadState('load');
    await tab.goto('http://site-three.test/start', { waitUntil: 'load' });
  } finally {
    if (context) await context.close();
    server.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

if (process.argv.length !== 3) {
  console.error('usage: node tests/browser/record-har.js OUT.har');
  process.exit(2);
}
record(process.argv[2]).catch((err) => {
  console.error(err);
  process.exit(1);
});
