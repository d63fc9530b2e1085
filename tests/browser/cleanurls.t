#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Tracking parameters taken out of links in a real browser: Chromium through `brock run
// --intercept` opens a page whose address carries utm_* parameters, over plain HTTP and
// inside HTTPS. The address bar and the history hold the clean address, the page's image
// reaches its server without its gclid, and a link with fbclid leads to the clean page. The
// dashboard's switch turns it off and on again, and a site added to "Links left as they
// are" keeps its parameters; each request says what was taken out in the live log. Links
// from three sites that hand a fourth their cookie value, clicked, teach brock that parameter:
// the fourth site's link leads to the clean address, and the dashboard lists it.
'use strict';

const { before, after } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { startSite } = require('../integration/origin.js');
const h = require('../integration/harness.js');
const { startProxy } = require('./brock.js');
const { launch, GIF } = require('./chromium.js');
const { flat } = h;

const SHOP = 'shop.test';
const NEWS = 'news.test';
const DEST = 'dest.test';
const LINKING = ['l1.test', 'l2.test', 'l3.test', 'l4.test'];
const UID = (site) => `${site.slice(1, 2)}e81c4f0a97d2b36${site.slice(1, 2)}5aa0c7e19f`;

// A page of a linking site: it sets its visitor an identifier, and links to DEST with it.
function linkingPage(host, res) {
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8',
                       'Set-Cookie': `sid=${UID(host)}; Path=/; Secure` });
  res.end(`<!doctype html><html><head><title>${host}</title></head><body>
<a id="go" href="https://${DEST}/land?xid=${UID(host)}&amp;k=1">go</a></body></html>`);
}
const tmp = h.tmpdir('cleanurls-browser-t');

function check(name, fn) {
  h.check(name, fn, 60000);
}

const PAGE = `<!doctype html><html><head><title>shop</title></head><body>
<img id="pic" src="/pic.gif?v=3&amp;gclid=Cj0KCQ">
<a id="story" href="http://${NEWS}/story?fbclid=IwAR0x&amp;id=7">story</a>
</body></html>`;

let site, tlsSite, certs, brock, browser, dash;

// What s received for host, the browser's own favicon requests aside.
function paths(s, host) {
  return s.to(host).map((r) => r.path).filter((p) => p !== '/favicon.ico');
}

function serve(req, res, host) {
  if (LINKING.includes(host)) {
    linkingPage(host, res);
    return;
  }
  if (req.url.startsWith('/pic.gif')) {
    res.writeHead(200, { 'Content-Type': 'image/gif' });
    res.end(GIF);
    return;
  }
  res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
  res.end(PAGE);
}

before(flat(async () => {
  certs = h.originCerts(tmp, [SHOP, DEST, ...LINKING], 'brock clean urls test');
  site = await startSite(serve);
  tlsSite = await startSite(serve, { tls: { key: certs.key, cert: certs.cert } });
  // HTTPS to the TLS site, the rest to the plain one (the first --resolve that matches wins).
  brock = await startProxy(path.join(tmp, 'state'), {
    port: site.port, intercept: true, upstreamCa: certs.ca,
    resolveFirst: [`*.test:443=127.0.0.1:${tlsSite.port}`] });
  browser = await launch(brock.listen, { ca: brock.ca });
  dash = await launch(null);
}));

after(async () => {
  for (const b of [browser, dash]) if (b) await b.close();
  if (brock) await brock.stop();
  for (const s of [site, tlsSite]) if (s) await s.close();
});

check('the address bar and history hold the clean address; the page\'s image goes clean',
  async () => {
    const page = await browser.context.newPage();
    await page.goto(`http://${SHOP}/sale?utm_source=mail&utm_medium=email&ref_id=5`);
    assert.equal(page.url(), `http://${SHOP}/sale?ref_id=5`);
    await page.waitForFunction(() => document.getElementById('pic').complete);
    assert.deepEqual(paths(site, SHOP), ['/sale?ref_id=5', '/pic.gif?v=3']);
    // The link's target is cleaned on the way: the page that opens is the clean one.
    await Promise.all([page.waitForURL(`http://${NEWS}/story?id=7`), page.click('#story')]);
    assert.equal(paths(site, NEWS)[0], '/story?id=7');
    await page.goBack();
    assert.equal(page.url(), `http://${SHOP}/sale?ref_id=5`, 'the history is clean too');
    await page.close();
  });

check('inside HTTPS, the same', async () => {
  const page = await browser.context.newPage();
  await page.goto(`https://${SHOP}/cart?mc_eid=abc123&n=2`);
  assert.equal(page.url(), `https://${SHOP}/cart?n=2`);
  await page.waitForFunction(() => document.getElementById('pic').complete);
  assert.deepEqual(paths(tlsSite, SHOP), ['/cart?n=2', '/pic.gif?v=3']);
  await page.close();
});

check('the dashboard turns it off and on, and leaves a site alone', async () => {
  const settings = await dash.context.newPage();
  await settings.goto(`http://${brock.listen}/#/settings`);
  const box = settings.getByLabel(/Take tracking parameters out of links/);
  assert.equal(await box.isChecked(), true);
  await box.uncheck();
  await settings.locator('#status', { hasText: 'Take tracking parameters out of links: off' })
    .waitFor();
  const page = await browser.context.newPage();
  const url = `http://${SHOP}/off?utm_source=x&k=1`;
  await page.goto(url);
  assert.equal(page.url(), url, 'off: the address stays as it was');

  await settings.getByLabel(/Take tracking parameters out of links/).check();
  await settings.locator('#status', { hasText: 'Take tracking parameters out of links: on' })
    .waitFor();
  await settings.getByLabel('Site to leave links alone on').fill(SHOP);
  await settings.getByRole('button', { name: 'Leave links alone there' }).click();
  await settings.locator('#clean-off li', { hasText: SHOP }).waitFor();
  await page.goto(`http://${SHOP}/alone?utm_source=y`);
  assert.equal(page.url(), `http://${SHOP}/alone?utm_source=y`);
  await page.goto(`http://${NEWS}/n?utm_source=z&a=1`);
  assert.equal(page.url(), `http://${NEWS}/n?a=1`, 'another site is cleaned still');

  await settings.getByRole('button', { name: `Clean links on ${SHOP} again` }).click();
  await settings.locator('#clean-off li').waitFor({ state: 'detached' });
  await page.goto(`http://${SHOP}/again?utm_source=w&b=2`);
  assert.equal(page.url(), `http://${SHOP}/again?b=2`);
  await page.close();

  // The live log says what was taken out.
  await settings.goto(`http://${brock.listen}/#/log`);
  const row = settings.locator('.logrow[data-cleaned="stripped"]', { hasText: 'utm_source' });
  await row.first().waitFor();
  await settings.close();
});

check('links that hand another site a cookie teach brock their parameter', async () => {
  const page = await browser.context.newPage();
  for (const site of LINKING.slice(0, 3)) {
    await page.goto(`https://${site}/`);
    await Promise.all([page.waitForURL(new RegExp(`^https://${DEST}/land`)), page.click('#go')]);
  }
  // The third link taught it, and lost it at once.
  assert.equal(page.url(), `https://${DEST}/land?k=1`);
  await page.goto(`https://${LINKING[3]}/`);
  await Promise.all([page.waitForURL(new RegExp(`^https://${DEST}/land`)), page.click('#go')]);
  assert.equal(page.url(), `https://${DEST}/land?k=1`);
  const got = paths(tlsSite, DEST).filter((p) => p.startsWith('/land'));
  assert.deepEqual(got.slice(0, 2).map((p) => p.replace(/xid=\w+/, 'xid=ID')),
                   ['/land?xid=ID&k=1', '/land?xid=ID&k=1']);
  assert.ok(got.slice(2).every((p) => p === '/land?k=1'), JSON.stringify(got));
  await page.close();

  // The dashboard lists it; "keep" lets links keep it.
  const settings = await dash.context.newPage();
  await settings.goto(`http://${brock.listen}/#/settings`);
  const row = settings.locator('#link-params li[data-param="xid"]');
  await row.waitFor();
  assert.match(await row.innerText(), /taken out of links: from l1\.test, l2\.test, l3\.test/);
  await settings.getByRole('button', { name: 'Keep xid in links' }).click();
  await settings.locator('#link-params li[data-param="xid"]', { hasText: 'kept in links' })
    .waitFor();
  await settings.close();
});
