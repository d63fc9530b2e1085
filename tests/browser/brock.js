// SPDX-License-Identifier: GPL-3.0-or-later
// brock as the browser tests start it: on a state of its own, never fetching EFF's list, every
// test host resolved to the test's origin, and with it, when asked, a headless Chromium
// browsing through it. Both are stopped by the harness's rules (brock by its pid whatever
// happens); the file closes the browser and stops brock in its `after`.
'use strict';

const assert = require('node:assert/strict');
const path = require('node:path');
const { launch } = require('./chromium.js');
const h = require('../integration/harness.js');

// Starts `brock run` on state. opts:
//   port: the origin's port, which *.test and every name of hosts resolve to (none: DNS);
//   hosts: names beyond *.test the origin answers for;
//   resolveFirst: --resolve specs (HOST[:PORT]=ADDR:PORT) that come before those, and so win;
//   intercept: see inside HTTPS with a CA of the state's own (`brock ca init` first);
//   upstreamCa: the CA (a PEM file) that signed the origin's certificates, for brock to trust;
//   verbose: log every request (-v);
//   setup: brock commands run on state first (each an argument list), each to succeed;
//   global: options before `run`; args: more options of `run`; env, listen, wrap (a command
//     brock runs under, `ip netns exec NAME`): as h.startBrock takes them;
//   browser: launch a Chromium through brock with these options of chromium.js's launch
//     (trusting brock's CA when intercepting).
// Resolves with h.startBrock's brock, and state, listen ("127.0.0.1:PORT"), ca (the path of
// brock's CA when intercepting) and browser (when launched).
async function startProxy(state, opts = {}) {
  const setup = [...(opts.intercept ? [['ca', 'init']] : []), ...(opts.setup || [])];
  for (const cmd of setup) {
    const r = await h.brock(state, cmd, { env: opts.env });
    assert.equal(r.code, 0, r.stderr);
  }
  const args = [
    ...(opts.verbose ? ['-v'] : []), '--no-update',
    ...(opts.intercept ? ['--intercept'] : []),
    ...(opts.upstreamCa ? ['--upstream-ca', opts.upstreamCa] : []),
    ...(opts.resolveFirst || []).flatMap((spec) => ['--resolve', spec]),
    ...(opts.port ? h.resolveTo(opts.port, '*.test', ...(opts.hosts || [])) : []),
    ...(opts.args || []),
  ];
  const b = await h.startBrock({ state, args, global: opts.global, env: opts.env,
                                listen: opts.listen, wrap: opts.wrap });
  b.state = state;
  b.listen = `127.0.0.1:${b.port}`;
  if (opts.intercept) b.ca = path.join(state, 'ca', 'ca.pem');
  if (opts.browser) {
    b.browser = await launch(b.listen, { ...(b.ca ? { ca: b.ca } : {}), ...opts.browser });
  }
  return b;
}

// What the browser spoke with brock for page's document and for each resource it loaded
// (the Resource Timing API's nextHopProtocol: "h2", "http/1.1"): { page, resources: { url:
// protocol } }.
function protocols(page) {
  return page.evaluate(() => ({
    page: performance.getEntriesByType('navigation')[0].nextHopProtocol,
    resources: Object.fromEntries(performance.getEntriesByType('resource')
      .map((r) => [r.name, r.nextHopProtocol])),
  }));
}

module.exports = { startProxy, protocols };
