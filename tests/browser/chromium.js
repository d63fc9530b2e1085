// SPDX-License-Identifier: GPL-3.0-or-later
// Debian's Chromium, headless, driven by playwright-core: the flags keep it from reaching
// for the network on its own, and each launch gets a fresh profile and HOME (where an NSS
// database can hold a CA to trust). Everything it creates is removed by close().
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { chromium } = require('playwright-core');

const EXECUTABLE = process.env.BROCK_CHROMIUM || '/usr/bin/chromium';
// A 1x1 transparent GIF, for test pages' images.
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

// Trusts the PEM certificate at caFile for TLS in the NSS database under home.
function trustCa(home, caFile) {
  const db = path.join(home, '.pki', 'nssdb');
  fs.mkdirSync(db, { recursive: true });
  execFileSync('certutil', ['-d', `sql:${db}`, '-N', '--empty-password']);
  execFileSync('certutil', ['-d', `sql:${db}`, '-A', '-t', 'C,,', '-n', 'brock test CA', '-i', caFile]);
}

// Lets the profile under dir keep and send third-party cookies, which Chromium now blocks
// by default: a test of cookie stripping needs a browser that would send them.
function allowThirdPartyCookies(dir) {
  fs.mkdirSync(path.join(dir, 'Default'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'Default', 'Preferences'), JSON.stringify({
    profile: { cookie_controls_mode: 0, block_third_party_cookies: false },
  }));
}

// Starts Chromium with its traffic going through the proxy at proxy ("127.0.0.1:PORT").
// options.ca: a CA certificate (PEM file) to trust; options.thirdPartyCookies: let
// third-party cookies be kept and sent; options.secureOrigins: http origins ("http://site.test")
// the browser treats as secure, so that it sends them fetch metadata (Sec-Fetch-*) as it
// does over HTTPS, which brock needs to tell the pages it learns on; options.args: more
// command-line flags (--proxy-pac-url=URL with no proxy, say); options.socks: a SOCKS5
// proxy ("127.0.0.1:PORT") in proxy's place; options.home: a HOME of the
// caller's, whose NSS database (~/.pki/nssdb) Chromium reads, left in place by close();
// options.netns: a namespace of harness.js's netns() to run it in, as a device of its own.
// Returns { context, close }: a browser context (context.newPage() opens a tab).
async function launch(proxy, options = {}) {
  const own = fs.mkdtempSync(path.join(os.tmpdir(), 'brock-chromium-'));
  const home = options.home || own;
  if (options.ca) trustCa(home, options.ca);
  if (options.thirdPartyCookies) allowThirdPartyCookies(path.join(own, 'profile'));
  const args = [
    '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
  ];
  if (options.secureOrigins) {
    args.push(`--unsafely-treat-insecure-origin-as-secure=${options.secureOrigins.join(',')}`);
  }
  if (options.args) args.push(...options.args);
  if (proxy || options.socks) {
    // Loopback is sent to the proxy too, so that local test sites go through it.
    args.push(options.socks ? `--proxy-server=socks5://${options.socks}`
      : `--proxy-server=http://${proxy}`, '--proxy-bypass-list=<-loopback>');
  }
  let executable = EXECUTABLE;
  if (options.netns) {
    // Started as Chromium would be, inside the namespace: its pipes to playwright pass
    // through the exec.
    executable = path.join(own, 'chromium-in-netns');
    fs.writeFileSync(executable, `#!/bin/sh\nexec ${options.netns.exec.join(' ')} ` +
                                 `${EXECUTABLE} "$@"\n`, { mode: 0o755 });
  }
  const context = await chromium.launchPersistentContext(path.join(own, 'profile'), {
    executablePath: executable,
    args,
    env: { ...process.env, HOME: home },
    timeout: 30000,
  });
  return {
    context,
    async close() {
      await context.close().catch(() => {});
      fs.rmSync(own, { recursive: true, force: true });
    },
  };
}

// A test site's handler (origin.js's startSite()): /pixel.gif... answers GIF, any other path a
// page of host whose images are images(host), { id: src }.
function imagePage(images) {
  return (req, res, host) => {
    if (req.url.startsWith('/pixel.gif')) {
      res.writeHead(200, { 'Content-Type': 'image/gif' });
      res.end(GIF);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>${host}</title></head><body>\n` +
            Object.entries(images(host)).map(([id, src]) => `<img id="${id}" src="${src}">`)
              .join('\n') + '\n</body></html>');
  };
}

// The page at url opened in a new tab of context, then closed: whether each of its images
// loaded, { id: true or false }.
async function imagesLoaded(context, url) {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForFunction(() => [...document.images].every((i) => i.complete));
  const got = await page.evaluate(() => Object.fromEntries([...document.images]
    .map((i) => [i.id, i.naturalWidth > 0])));
  await page.close();
  return got;
}

// A page of imagePage()'s at url, opened in context, whose image "own" is the site's own
// /pixel.gif?own and "tracker" a blocked tracker's on tracker.test: the own image loads, and
// reached the site (site: origin.js's startSite()) with DNT and Sec-GPC; the tracker's does
// not, and the site never heard of it.
async function ownLoadsTrackerBlocked(context, site, url) {
  assert.deepEqual(await imagesLoaded(context, url), { own: true, tracker: false });
  assert.equal(site.to('tracker.test').length, 0, 'the tracker never heard of it');
  const own = site.requests.find((r) => r.path === '/pixel.gif?own');
  assert.equal(own.headers.dnt, '1');
  assert.equal(own.headers['sec-gpc'], '1');
}

module.exports = { launch, trustCa, imagePage, imagesLoaded, ownLoadsTrackerBlocked, EXECUTABLE,
                   GIF };
