#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// What a client fetches from brock to set itself up. The proxy auto-config file at
// /proxy.pac and /wpad.dat names brock at the address the client reached (on a wildcard
// listen too), sends loopback and --no-proxy hosts DIRECT, and is answered whatever name
// WPAD fetched it by; its functions are run here as a browser runs them. /ca.pem is the
// local CA's certificate, byte for byte, never its key, and 404 before there is one; /ca
// says how to trust it on each system. A bad --no-proxy is refused, naming it.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const vm = require('node:vm');
const h = require('./harness.js');

// A GET straight to brock (not through it), from a chosen local address, with the Host
// header given; resolves with { status, headers, body }.
function get(port, target, { host, from = '127.0.0.1', to = '127.0.0.1' } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: to, port, path: target, localAddress: from, agent: false,
                               timeout: 10000,
                               headers: { Host: host || `${to}:${port}` } }, (res) => {
      const parts = [];
      res.on('data', (d) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers,
                                    body: Buffer.concat(parts).toString('latin1') }));
    });
    req.on('timeout', () => req.destroy(new Error(`${target} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

// Runs a PAC file's FindProxyForURL for url, with shExpMatch as browsers define it (a shell
// glob: * any run, ? one character) and nothing else of the PAC environment, which the file
// must not need.
function findProxy(pac, url) {
  const shExpMatch = (s, glob) => new RegExp('^' + glob.replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*').replace(/\?/g, '.') + '$').test(s);
  const ctx = vm.createContext({ shExpMatch });
  vm.runInContext(pac, ctx, { timeout: 1000 });
  return ctx.FindProxyForURL(url, new URL(url).hostname.replace(/^\[|\]$/g, ''));
}

h.check('/proxy.pac and /wpad.dat name brock, with loopback and --no-proxy DIRECT', async () => {
  const state = path.join(h.tmpdir('clients-pac'), 'state');
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--no-proxy', '*.corp.example', '--no-proxy', 'intranet'] });
  try {
    for (const target of ['/proxy.pac', '/wpad.dat']) {
      const r = await get(b.port, target);
      assert.equal(r.status, 200, r.body);
      assert.equal(r.headers['content-type'], 'application/x-ns-proxy-autoconfig');
      const own = `PROXY 127.0.0.1:${b.port}`;
      assert.equal(findProxy(r.body, 'http://example.com/'), own);
      assert.equal(findProxy(r.body, 'https://www.Example.ORG/a?b'), own);
      assert.equal(findProxy(r.body, 'http://wiki.corp.example/'), 'DIRECT');
      assert.equal(findProxy(r.body, 'http://intranet/'), 'DIRECT');
      assert.equal(findProxy(r.body, 'http://intranet.example/'), own);
      for (const u of ['http://localhost:3000/', 'http://127.0.0.1/', 'http://127.3.4.5:81/',
                       'http://[::1]:8080/', 'http://app.localhost/',
                       `http://127.0.0.1:${b.port}/`])
        assert.equal(findProxy(r.body, u), 'DIRECT', u);
    }
    // WPAD by DNS fetches http://wpad.DOMAIN/wpad.dat: answered under that name too, while
    // the rest of the dashboard is not.
    const wpad = await get(b.port, '/wpad.dat', { host: 'wpad.lan' });
    assert.equal(wpad.status, 200, wpad.body);
    assert.equal(findProxy(wpad.body, 'http://example.com/'), `PROXY 127.0.0.1:${b.port}`);
    assert.equal((await get(b.port, '/api/status', { host: 'wpad.lan' })).status, 403);
    assert.equal((await get(b.port, '/metrics', { host: 'wpad.lan' })).status, 403);
    // A Host that would write code into the file is not copied into it.
    const evil = await get(b.port, '/proxy.pac', { host: `a";x=1;"b:${b.port}` });
    assert.equal(evil.status, 200);
    assert.ok(!evil.body.includes('x=1'), evil.body);
    assert.equal(findProxy(evil.body, 'http://example.com/'), `PROXY 127.0.0.1:${b.port}`);
  } finally {
    await b.stop();
  }
});

h.check('under a name not brock\'s own the file leaves the --no-proxy hosts out', async () => {
  // A page whose name its DNS points at brock (rebinding) reads what brock answers under
  // that name: the network's hosts that --no-proxy names are not for it. WPAD's names are
  // anyone's (wpad.attacker.example), so they get the same file, which still sends
  // everything through brock.
  const state = path.join(h.tmpdir('clients-foreign'), 'state');
  const b = await h.startBrock({ state, global: ['--no-seed'], args: [
    '--no-update', '--no-proxy', '*.corp.example', '--no-proxy', 'intranet'] });
  try {
    const own = `PROXY 127.0.0.1:${b.port}`;
    for (const host of [`127.0.0.1:${b.port}`, `localhost:${b.port}`]) {
      const r = await get(b.port, '/proxy.pac', { host });
      assert.equal(r.status, 200, r.body);
      assert.equal(findProxy(r.body, 'http://wiki.corp.example/'), 'DIRECT', host);
      assert.equal(findProxy(r.body, 'http://intranet/'), 'DIRECT', host);
    }
    for (const [target, host, proxy] of [
      ['/proxy.pac', `rebound.example:${b.port}`, `PROXY rebound.example:${b.port}`],
      ['/wpad.dat', `rebound.example:${b.port}`, `PROXY rebound.example:${b.port}`],
      ['/wpad.dat', 'wpad.lan', own], ['/proxy.pac', 'wpad', own],
      ['/wpad.dat', `wpad.attacker.example:${b.port}`, `PROXY wpad.attacker.example:${b.port}`],
      ['/proxy.pac', `127.0.0.1:${b.port + 1}`, own]]) {
      const r = await get(b.port, target, { host });
      assert.equal(r.status, 200, `${target} under ${host}: ${r.body}`);
      assert.equal(r.headers['content-type'], 'application/x-ns-proxy-autoconfig');
      assert.ok(!/corp\.example|intranet/.test(r.body), `${host}: ${r.body}`);
      assert.equal(findProxy(r.body, 'http://wiki.corp.example/'), proxy, host);
      assert.equal(findProxy(r.body, 'http://intranet/'), proxy, host);
      assert.equal(findProxy(r.body, 'http://example.com/'), proxy, host);
      assert.equal(findProxy(r.body, 'http://localhost:3000/'), 'DIRECT', host);
    }
  } finally {
    await b.stop();
  }
});

h.check('on a wildcard listen, the file names the address each client reached', async () => {
  const state = path.join(h.tmpdir('clients-any'), 'state');
  const b = await h.startBrock({ state, listen: '0.0.0.0:0', global: ['--no-seed'],
                                 args: ['--no-update', '--allow', '127.0.0.0/8'] });
  try {
    // By address: the connection's own address.
    const two = await get(b.port, '/proxy.pac', { from: '127.0.0.2', to: '127.0.0.2' });
    assert.equal(two.status, 200, two.body);
    assert.equal(findProxy(two.body, 'http://example.com/'), `PROXY 127.0.0.2:${b.port}`);
    // WPAD's name without brock's port: still the address the connection reached.
    const wpad = await get(b.port, '/wpad.dat', { to: '127.0.0.3', host: 'wpad' });
    assert.equal(findProxy(wpad.body, 'http://example.com/'), `PROXY 127.0.0.3:${b.port}`);
    // A name with brock's port is how the client reached it (through a NAT, say): kept.
    const named = await get(b.port, '/proxy.pac', { host: `brock.home.arpa:${b.port}` });
    assert.equal(findProxy(named.body, 'http://example.com/'),
                 `PROXY brock.home.arpa:${b.port}`);
  } finally {
    await b.stop();
  }
});

h.check('only --allowed clients read the file and the metrics', async () => {
  const state = path.join(h.tmpdir('clients-allow'), 'state');
  const b = await h.startBrock({ state, listen: '0.0.0.0:0', global: ['--no-seed'],
                                 args: ['--no-update', '--allow', '127.0.0.2/32'] });
  try {
    assert.equal((await get(b.port, '/proxy.pac', { from: '127.0.0.2' })).status, 200);
    assert.equal((await get(b.port, '/metrics', { from: '127.0.0.2' })).status, 200);
    for (const target of ['/proxy.pac', '/metrics', '/ca.pem']) {
      const r = await get(b.port, target, { from: '127.0.0.3' });
      assert.equal(r.status, 403, target);
      assert.match(r.body, /--allow/);
    }
  } finally {
    await b.stop();
  }
});

h.check('a bad --no-proxy is refused, on the command line and in the file', async () => {
  const dir = h.tmpdir('clients-bad');
  const state = path.join(dir, 'state');
  const r = await h.brock(state, ['--no-seed', 'run', '--listen', '127.0.0.1:0',
                                  '--no-proxy', 'a"b']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /--no-proxy 'a"b': expected a host name/);
  assert.ok(!fs.existsSync(state), 'a refused start made a state');
  const conf = path.join(dir, 'brock.conf');
  fs.writeFileSync(conf, 'no-proxy = *.ok.example\nno-proxy = bad name\n');
  const f = await h.brock(state, ['--config', conf, '--no-seed', 'run', '--listen',
                                  '127.0.0.1:0']);
  assert.notEqual(f.code, 0);
  assert.match(f.stderr, /brock\.conf:2: .*--no-proxy 'bad name'/);
  assert.ok(!fs.existsSync(state), 'a refused start made a state');
});

h.check('/ca.pem is the CA\'s certificate alone, 404 before there is one; /ca says how', async () => {
  const state = path.join(h.tmpdir('clients-ca'), 'state');
  let b = await h.startBrock({ state, global: ['--no-seed'], args: ['--no-update'] });
  try {
    const none = await get(b.port, '/ca.pem');
    assert.equal(none.status, 404);
    assert.match(none.body, /brock ca init/);
  } finally {
    await b.stop();
  }
  const init = await h.brock(state, ['--no-seed', 'ca', 'init']);
  assert.equal(init.code, 0, init.stderr);
  const certFile = (await h.brock(state, ['ca', 'path'])).stdout.trim();
  const keyFile = path.join(path.dirname(certFile), 'ca-key.pem');
  b = await h.startBrock({ state, global: ['--no-seed'], args: ['--no-update'] });
  try {
    const r = await get(b.port, '/ca.pem');
    assert.equal(r.status, 200, r.body);
    assert.equal(r.headers['content-type'], 'application/x-x509-ca-cert');
    assert.equal(r.body, fs.readFileSync(certFile, 'latin1'));
    assert.match(r.body, /^-----BEGIN CERTIFICATE-----\n[^]*-----END CERTIFICATE-----\n$/);
    assert.doesNotMatch(r.body, /PRIVATE KEY/);
    const key = fs.readFileSync(keyFile, 'latin1');
    const keyBody = key.split('\n').filter((l) => l && !l.startsWith('-----')).join('');
    assert.ok(!r.body.replace(/\n/g, '').includes(keyBody.slice(0, 40)), 'the key was served');
    // Even a key put in the certificate's file is not served.
    fs.appendFileSync(certFile, key);
    const again = await get(b.port, '/ca.pem');
    assert.equal(again.status, 200);
    assert.doesNotMatch(again.body, /PRIVATE KEY/);
    assert.equal(again.body, r.body);
    const page = await get(b.port, '/ca');
    assert.equal(page.status, 200);
    assert.match(page.headers['content-type'], /^text\/html/);
    for (const system of ['Debian', 'Firefox', 'Chromium', 'macOS', 'Windows', 'Android',
                          'iOS'])
      assert.ok(page.body.includes(system), `the page says nothing of ${system}`);
    assert.match(page.body, /href="\/ca\.pem"/);
  } finally {
    await b.stop();
  }
});

h.check('SIGHUP applies a changed --no-proxy list to the file at once', async () => {
  const dir = h.tmpdir('clients-hup');
  const state = path.join(dir, 'state');
  const conf = path.join(dir, 'brock.conf');
  fs.writeFileSync(conf, 'no-update = yes\nno-proxy = old.example\n');
  const b = await h.startBrock({ state, global: ['--config', conf, '--no-seed'] });
  try {
    const own = `PROXY 127.0.0.1:${b.port}`;
    let pac = (await get(b.port, '/proxy.pac')).body;
    assert.equal(findProxy(pac, 'http://old.example/'), 'DIRECT');
    assert.equal(findProxy(pac, 'http://new.example/'), own);
    fs.writeFileSync(conf, 'no-update = yes\nno-proxy = *.new.example\nno-proxy = new.example\n');
    b.proc.kill('SIGHUP');
    await h.waitFor('the options read again', () => /SIGHUP: options:/.test(b.log()), 10000);
    assert.match(b.log(), /SIGHUP: options: applied at once: no-proxy/);
    pac = (await get(b.port, '/proxy.pac')).body;
    assert.equal(findProxy(pac, 'http://old.example/'), own);
    assert.equal(findProxy(pac, 'http://new.example/'), 'DIRECT');
    assert.equal(findProxy(pac, 'http://a.new.example/'), 'DIRECT');
  } finally {
    await b.stop();
  }
});
