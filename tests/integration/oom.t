#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Out of memory inside libevent, at each allocation of an exchange in turn: a request is sent
// once for every allocation its exchange makes, the Nth failing (libevent_oom.c, loaded into
// brock). Whatever fails, brock must not crash, must close the client's connection, and what
// the client got must be a well-formed beginning of a response: a whole one with the right
// body, brock's own error, or one cut short, never a body framed wrong. Then brock still serves.
'use strict';

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const fs = require('node:fs');
const path = require('node:path');
const { check, startBrock, resolveTo, tmpdir, run, raw } = require('./harness.js');
const { bytes, startOneShotOrigin } = require('./origin.js');

const CHUNKED = bytes(20000, 'chunked');
const EOF = bytes(30000, 'eof');
const UPLOAD = bytes(40000, 'upload');

let origin, proxy, atFile, logFile;

// An origin that answers one request a connection, then closes: /chunked in chunks, /eof
// without a length (read until close), POST /upload with the length of the body it read.
function startOrigin() {
  return startOneShotOrigin(({ target, body }, socket) => {
    if (target === '/chunked') {
      socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n');
      for (let off = 0; off < CHUNKED.length; off += 4096) {
        const piece = CHUNKED.subarray(off, off + 4096);
        socket.write(piece.length.toString(16) + '\r\n');
        socket.write(piece);
        socket.write('\r\n');
      }
      socket.end('0\r\n\r\n');
    } else if (target === '/eof') {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n\r\n');
      socket.end(EOF);
    } else {
      const text = `got ${body.length}`;
      socket.end(`HTTP/1.1 200 OK\r\nContent-Length: ${text.length}\r\n\r\n${text}`);
    }
  });
}

// Reads text (latin1) as the beginning of one HTTP/1.1 response and throws if any of it is
// not well-formed: the head, and a body framed by Content-Length or chunks, or until close.
// Returns { status, body, complete } (status 0: not even a whole head came).
function readResponse(text) {
  const end = text.indexOf('\r\n\r\n');
  const lines = (end < 0 ? text : text.slice(0, end)).split('\r\n');
  const whole = end < 0 ? lines.slice(0, -1) : lines;
  if (whole.length > 0) assert.match(whole[0], /^HTTP\/1\.1 \d{3} [^\r\n]*$/, 'status line');
  else assert.ok('HTTP/1.1 '.startsWith(text.slice(0, 9)), `not a response: ${text}`);
  for (const h of whole.slice(1)) assert.match(h, /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:[^\r\n]*$/);
  if (end < 0) return { status: 0, body: '', complete: false };
  const status = Number(lines[0].split(' ')[1]);
  const header = (name) => {
    const h = lines.slice(1).find((l) => l.toLowerCase().startsWith(name + ':'));
    return h ? h.slice(name.length + 1).trim() : undefined;
  };
  const rest = text.slice(end + 4);
  const cl = header('content-length');
  if (cl !== undefined) {
    assert.ok(rest.length <= Number(cl), `more body than Content-Length ${cl}`);
    return { status, body: rest, complete: rest.length === Number(cl) };
  }
  if ((header('transfer-encoding') || '').toLowerCase() !== 'chunked')
    return { status, body: rest, complete: true };
  let body = '';
  for (let at = 0; ;) {
    const eol = rest.indexOf('\r\n', at);
    if (eol < 0) {
      assert.match(rest.slice(at), /^[0-9a-f]*\r?$/, 'chunk size line');
      return { status, body, complete: false };
    }
    assert.match(rest.slice(at, eol), /^[0-9a-f]+$/, 'chunk size line');
    const size = parseInt(rest.slice(at, eol), 16);
    const data = rest.slice(eol + 2, eol + 2 + size);
    const after = rest.slice(eol + 2 + size, eol + 4 + size);
    body += data;
    assert.ok('\r\n'.startsWith(after), 'a chunk longer than its size');
    if (data.length < size || after.length < 2) return { status, body, complete: false };
    at = eol + 4 + size;
    if (size === 0) {
      assert.equal(rest.length, at, 'bytes after the last chunk');
      return { status, body, complete: true };
    }
  }
}

// What came back through a tunnel: brock's answer to the CONNECT, then the origin's response;
// or brock's refusal, or less.
function readTunnel(text) {
  const answer = /^HTTP\/1\.1 200 Connection established\r\nVia: [^\r\n]*\r\n\r\n/.exec(text);
  if (answer) return readResponse(text.slice(answer[0].length));
  const got = readResponse(text);
  assert.ok(got.status !== 200, 'a 200 that is not the answer to the CONNECT');
  return got;
}

// Sends request once for each allocation of its exchange, the Nth failing, until one goes
// through with none failing; returns how many allocations that took.
async function torture(name, request, want, read = readResponse) {
  for (let n = 1; n < 5000; n++) {
    fs.writeFileSync(atFile, String(n));
    const logged = fs.readFileSync(logFile, 'utf8').length;
    const r = await raw(proxy.port, request, { wait: 20000 });
    const what = `${name}, allocation ${n} failing`;
    await new Promise((done) => setTimeout(done, 20));
    assert.equal(proxy.proc.exitCode, null, `${what}: brock exited: ${proxy.log()}`);
    assert.equal(proxy.proc.signalCode, null, `${what}: brock died: ${proxy.log()}`);
    assert.ok(r.closed, `${what}: the connection was not closed`);
    let got;
    try {
      got = read(r.text);
    } catch (e) {
      throw new Error(`${what}: malformed: ${e.message}: ${JSON.stringify(r.text.slice(0, 300))}`);
    }
    if (got.complete && got.status === 200)
      assert.ok(got.body === want, `${what}: a whole 200 with the wrong body`);
    else if (got.complete)
      assert.ok(got.status >= 500, `${what}: status ${got.status}`);
    const failed = fs.readFileSync(logFile, 'utf8').slice(logged).split('\n');
    if (!failed.includes(String(n))) {
      assert.ok(got.complete && got.status === 200, `${what}: nothing failed, yet ${r.text}`);
      fs.writeFileSync(atFile, '0');
      console.log(`# ${name}: ${n - 1} allocations, each failed once`);
      return n - 1;
    }
  }
  throw new Error(`${name}: no end to the allocations`);
}

before(async () => {
  const dir = tmpdir('oom');
  const shim = path.join(dir, 'libevent_oom.so');
  const cc = await run(process.env.CC || 'cc', ['-shared', '-fPIC', '-O1', '-o', shim,
                                                path.join(__dirname, 'libevent_oom.c'),
                                                '-levent_core', '-ldl'], { timeout: 60000 });
  assert.equal(cc.code, 0, cc.stderr);
  atFile = path.join(dir, 'at');
  logFile = path.join(dir, 'failed');
  fs.writeFileSync(atFile, '0');
  fs.writeFileSync(logFile, '');
  // Started as root, brock serves as nobody, who writes the log.
  fs.chmodSync(logFile, 0o666);
  origin = await startOrigin();
  const asan = process.env.ASAN_OPTIONS ? process.env.ASAN_OPTIONS + ':' : '';
  proxy = await startBrock({
    state: tmpdir('oom-state'),
    global: ['--no-seed'],
    args: ['--no-update', ...resolveTo(origin.port, '*.test'),
           '--header-timeout', '5', '--upstream-timeout', '5'],
    env: {
      LD_PRELOAD: shim, BROCK_OOM_AT: atFile, BROCK_OOM_LOG: logFile,
      // The sanitizers' runtime is not the first library loaded then; it works all the same.
      ASAN_OPTIONS: asan + 'verify_asan_link_order=0',
    },
  });
});

after(async () => {
  if (proxy) await proxy.stop();
  if (origin) await origin.close();
});

check('a chunked response, with every libevent allocation failing in turn', async () => {
  const n = await torture('chunked',
    'GET http://oom.test/chunked HTTP/1.1\r\nHost: oom.test\r\nConnection: close\r\n\r\n',
    CHUNKED.toString('latin1'));
  assert.ok(n > 10, `only ${n} allocations: the failures did not reach the exchange`);
}, 600000);

check('a response read until close, re-chunked, with every allocation failing', async () => {
  await torture('until close',
    'GET http://oom.test/eof HTTP/1.1\r\nHost: oom.test\r\nConnection: close\r\n\r\n',
    EOF.toString('latin1'));
}, 600000);

check('a request body of known length, with every allocation failing', async () => {
  await torture('upload',
    Buffer.concat([Buffer.from('POST http://oom.test/upload HTTP/1.1\r\nHost: oom.test\r\n' +
                               `Content-Length: ${UPLOAD.length}\r\nConnection: close\r\n\r\n`),
                   UPLOAD]),
    `got ${UPLOAD.length}`);
}, 600000);

check('a tunnel, with every allocation failing', async () => {
  await torture('tunnel',
    'CONNECT oom.test:80 HTTP/1.1\r\nHost: oom.test:80\r\n\r\n' +
    'GET /chunked HTTP/1.1\r\nHost: oom.test\r\nConnection: close\r\n\r\n',
    CHUNKED.toString('latin1'), readTunnel);
}, 600000);

check('brock still serves afterwards', async () => {
  const r = await raw(proxy.port,
    'GET http://oom.test/chunked HTTP/1.1\r\nHost: oom.test\r\nConnection: close\r\n\r\n');
  const got = readResponse(r.text);
  assert.ok(got.complete && got.status === 200 && got.body === CHUNKED.toString('latin1'));
});
