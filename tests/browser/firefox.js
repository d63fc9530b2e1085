// SPDX-License-Identifier: GPL-3.0-or-later
// Debian's Firefox ESR, headless, driven by puppeteer-core over WebDriver BiDi: playwright-core
// drives only a Firefox build of its own, which Debian does not ship. The preferences keep it
// from reaching for the network on its own; none of them says which certificates it trusts,
// and certificate errors are not accepted. Whatever happens, the browser is killed by its pid
// (its process group: Firefox starts content processes) when close() runs or the test ends.
'use strict';

const puppeteer = require('puppeteer-core');
const h = require('../integration/harness.js');

const EXECUTABLE = process.env.BROCK_FIREFOX || '/usr/bin/firefox-esr';

// What Firefox would fetch by itself, turned off: updates, telemetry and health reports, the
// captive portal and connectivity checks, push, remote settings (its server a data: URL, so
// none), safe browsing's lists, studies, region and add-on look-ups, DNS over HTTPS and
// speculative connections. puppeteer-core writes these into the profile's user.js with
// preferences of its own of the same kind (first-run pages, more of the same reporting).
const QUIET = {
  'app.update.auto': false,
  'app.update.enabled': false,
  'app.normandy.enabled': false,
  'app.shield.optoutstudies.enabled': false,
  'browser.discovery.enabled': false,
  'browser.newtabpage.activity-stream.feeds.snippets': false,
  'browser.newtabpage.activity-stream.feeds.telemetry': false,
  'browser.newtabpage.activity-stream.telemetry': false,
  'browser.ping-centre.telemetry': false,
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'browser.safebrowsing.provider.google.updateURL': '',
  'browser.safebrowsing.provider.google4.updateURL': '',
  'browser.safebrowsing.provider.mozilla.updateURL': '',
  'browser.topsites.contile.enabled': false,
  'datareporting.usage.uploadEnabled': false,
  'dom.push.connection.enabled': false,
  'dom.push.serverURL': '',
  'extensions.blocklist.enabled': false,
  'extensions.getAddons.showPane': false,
  'extensions.systemAddon.update.enabled': false,
  'media.gmp-gmpopenh264.enabled': false,
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'network.dns.disablePrefetch': true,
  'network.predictor.enabled': false,
  'network.prefetch-next': false,
  'network.trr.mode': 5,
  'services.settings.server': 'data:,#remote-settings-dummy/v1',
  'toolkit.telemetry.enabled': false,
  'toolkit.telemetry.server': '',
  'toolkit.telemetry.unified': false,
};

// HTTP and HTTPS through the proxy at proxy ("127.0.0.1:PORT"), no host excepted.
function proxyPrefs(proxy) {
  const [host, port] = proxy.split(':');
  return {
    'network.proxy.type': 1,
    'network.proxy.http': host,
    'network.proxy.http_port': Number(port),
    'network.proxy.ssl': host,
    'network.proxy.ssl_port': Number(port),
    'network.proxy.no_proxies_on': '',
  };
}

// Starts Firefox on the profile folder profile (made by Firefox when it does not exist yet),
// with HOME home and its traffic going through the proxy at proxy. options.executable: what
// to run instead of firefox-esr (a wrapper that ends by running it with the same
// arguments). Returns { browser, close }.
async function launch(proxy, profile, home, options = {}) {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: options.executable || EXECUTABLE,
    headless: true,
    userDataDir: profile,
    extraPrefsFirefox: { ...QUIET, ...proxyPrefs(proxy) },
    acceptInsecureCerts: false,
    // Firefox itself refuses to connect anywhere but to loopback (the proxy), and with that
    // it lets remote settings be pointed at nothing (services.settings.server above).
    env: { ...process.env, HOME: home, MOZ_CRASHREPORTER_DISABLE: '1',
           MOZ_DISABLE_NONLOCAL_CONNECTIONS: '1' },
    timeout: 30000,
    protocolTimeout: 30000,
    waitForInitialPage: false,
  });
  const proc = browser.process();
  h.track(proc);
  return {
    browser,
    async close() {
      // A browser that does not end by itself within ten seconds is killed.
      await Promise.race([browser.close().catch(() => {}),
                          new Promise((r) => setTimeout(r, 10000).unref())]);
      if (proc.exitCode === null && proc.signalCode === null) {
        try { process.kill(-proc.pid, 'SIGKILL'); } catch { proc.kill('SIGKILL'); }
      }
    },
  };
}

module.exports = { launch, EXECUTABLE };
