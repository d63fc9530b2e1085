#!/usr/bin/env -S node --test --test-reporter=tap
// SPDX-License-Identifier: GPL-3.0-or-later
// Request smuggling and framing: a request whose framing two HTTP implementations could read
// differently gets 400 and a closed connection, and the origin sees nothing of it (no
// connection even); a response framed so gets 502 and its upstream connection is never used
// again. Also pipelined and inside intercepted TLS.
'use strict';

const assert = require('node:assert/strict');
const { before, after } = require('node:test');
const tls = require('node:tls');
const net = require('node:net');
const { check, startBrock, brock, raw, tmpdir, waitFor } = require('./harness.js');
const { startRecordingOrigin } = require('./origin.js');

// Responses the origin gives for GET /bad/NAME.
const BAD_RESPONSES = {
  'cl-with-te': 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n' +
                '5\r\nhello\r\n0\r\n\r\n',
  'cl-differ': 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nabc',
  'cl-list': 'HTTP/1.1 200 OK\r\nContent-Length: 2, 3\r\n\r\nabc',
  'cl-sign': 'HTTP/1.1 200 OK\r\nContent-Length: +2\r\n\r\nab',
  'te-gzip': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nabc',
  'te-xchunked': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\n2\r\nab\r\n0\r\n\r\n',
  'te-comma': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked ,\r\n\r\n2\r\nab\r\n0\r\n\r\n',
  'obs-fold': 'HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\nContent-Length: 2\r\n\r\nab',
  'bare-lf': 'HTTP/1.1 200 OK\nContent-Length: 2\n\nab',
  'bare-cr': 'HTTP/1.1 200 OK\r\nX-A: a\rb\r\nContent-Length: 2\r\n\r\nab',
  'nul-value': 'HTTP/1.1 200 OK\r\nX-A: a\0b\r\nContent-Length: 2\r\n\r\nab',
  'space-colon': 'HTTP/1.1 200 OK\r\nContent-Length : 2\r\n\r\nab',
};

// Chunked responses whose head is fine and whose body is not: the head has gone to the client
// by then, so the client's connection is cut rather than answered 502.
const BAD_CHUNKED = {
  'chunk-junk': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2x\r\nab\r\n0\r\n\r\n',
  'chunk-overflow': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' +
                    '10000000000000002\r\nab\r\n0\r\n\r\n',
  'chunk-bare-lf': 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\nab\r\n0\r\n\r\n',
};

let origin, proxy, state;

// The origin splits what arrives at each empty line, so a chunked body looks like a head too.
function isRequest(head) {
  return /^[A-Z]+ \S+ HTTP\/1\.[01]\r\n/.test(head);
}

// The request targets among the heads the origin saw from index from on.
function targets(from) {
  return origin.seen.heads.slice(from).filter((h) => isRequest(h.head))
    .map((h) => h.head.split(' ')[1]);
}

// Responses that have no body (RFC 9112 6.3) but announce one, and send its bytes anyway.
const NO_BODY = {
  '304': 'HTTP/1.1 304 Not Modified\r\nContent-Length: 5\r\n\r\nhello',
  '204': 'HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello',
  'head': 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello',
};

function reply(head) {
  if (!isRequest(head)) return null;
  const path = head.split(' ')[1] || '';
  const m = /^\/bad\/(.+)$/.exec(path);
  if (m) return BAD_RESPONSES[m[1]] || BAD_CHUNKED[m[1]];
  const nb = /^\/nobody\/(.+)$/.exec(path);
  if (nb) return NO_BODY[nb[1]];
  if (path === '/te-param')
    return 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked;foo=bar\r\n\r\n2\r\nok\r\n0\r\n\r\n';
  if (path === '/chunked')
    return 'HTTP/1.1 200 OK\r\nTransfer-Encoding: Chunked\r\n\r\n2;x=y\r\nok\r\n0\r\n\r\n';
  if (path === '/slow') return null;
  return 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
}

before(async () => {
  origin = await startRecordingOrigin(reply);
  state = tmpdir('framing');
  const init = await brock(state, ['ca', 'init']);
  assert.equal(init.code, 0, init.stderr);
  proxy = await startBrock({
    state,
    args: ['-v', '--no-update', '--intercept', '--resolve', `*.test=127.0.0.1:${origin.port}`],
  });
});

after(async () => {
  if (proxy) await proxy.stop();
  if (origin) await origin.close();
});

const closedAfterAnswer = { wait: 10000 };

// A request through brock that must be refused before anything goes upstream.
async function refused(what, head, body = '') {
  const before = { conns: origin.seen.connections, bytes: origin.seen.bytes.length };
  const r = await raw(proxy.port, head + body, closedAfterAnswer);
  assert.match(r.text, /^HTTP\/1\.1 400 /, `${what}: ${JSON.stringify(r.text)}`);
  assert.match(r.text, /\r\nConnection: close\r\n/i, what);
  assert.equal(r.closed, true, `${what}: the connection stays open`);
  assert.equal((r.text.match(/HTTP\/1\.1 /g) || []).length, 1, `${what}: one answer`);
  assert.equal(origin.seen.connections, before.conns, `${what}: the origin was connected to`);
  assert.equal(origin.seen.bytes.length, before.bytes, `${what}: bytes reached the origin`);
  return r;
}

const GET = 'GET http://req.test/x HTTP/1.1\r\nHost: req.test\r\n';
const POST = 'POST http://req.test/x HTTP/1.1\r\nHost: req.test\r\n';

const BAD_REQUESTS = [
  ['Content-Length with Transfer-Encoding',
   POST + 'Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n', '0\r\n\r\n'],
  ['Transfer-Encoding with Content-Length',
   POST + 'Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n', '0\r\n\r\n'],
  ['two Content-Length that differ', POST + 'Content-Length: 3\r\nContent-Length: 4\r\n\r\n',
   'abcd'],
  ['two identical Content-Length', POST + 'Content-Length: 4\r\nContent-Length: 4\r\n\r\n',
   'abcd'],
  ['a Content-Length list that differs', POST + 'Content-Length: 3, 4\r\n\r\n', 'abcd'],
  ['an identical Content-Length list', POST + 'Content-Length: 4, 4\r\n\r\n', 'abcd'],
  ['Content-Length with +', POST + 'Content-Length: +4\r\n\r\n', 'abcd'],
  ['Content-Length with -', POST + 'Content-Length: -4\r\n\r\n', 'abcd'],
  ['Content-Length with a space inside', POST + 'Content-Length: 1 2\r\n\r\n', 'abcd'],
  ['Content-Length in hex', POST + 'Content-Length: 0x4\r\n\r\n', 'abcd'],
  ['Content-Length overflowing', POST + 'Content-Length: 99999999999999999999\r\n\r\n', 'a'],
  ['Transfer-Encoding not ending in chunked', POST + 'Transfer-Encoding: chunked, gzip\r\n\r\n',
   '0\r\n\r\n'],
  ['Transfer-Encoding: identity', POST + 'Transfer-Encoding: identity\r\n\r\n', 'abcd'],
  ['Transfer-Encoding: xchunked', POST + 'Transfer-Encoding: xchunked\r\n\r\n', '0\r\n\r\n'],
  ['Transfer-Encoding: chunked ,', POST + 'Transfer-Encoding: chunked ,\r\n\r\n', '0\r\n\r\n'],
  ['Transfer-Encoding: chunked, chunked', POST + 'Transfer-Encoding: chunked, chunked\r\n\r\n',
   '0\r\n\r\n'],
  ['two Transfer-Encoding chunked',
   POST + 'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n', '0\r\n\r\n'],
  ['Transfer-Encoding with a vertical tab', POST + 'Transfer-Encoding: chunked\v\r\n\r\n',
   '0\r\n\r\n'],
  ['Transfer-Encoding with a tab before the colon', POST + 'Transfer-Encoding\t: chunked\r\n\r\n',
   '0\r\n\r\n'],
  ['Transfer-Encoding with a space before the colon',
   POST + 'Transfer-Encoding : chunked\r\n\r\n', '0\r\n\r\n'],
  ['Transfer-Encoding folded', POST + 'Transfer-Encoding:\r\n chunked\r\n\r\n', '0\r\n\r\n'],
  ['Transfer-Encoding in HTTP/1.0',
   'POST http://req.test/x HTTP/1.0\r\nHost: req.test\r\nTransfer-Encoding: chunked\r\n\r\n',
   '0\r\n\r\n'],
  ['obs-fold', GET + 'X-A: 1\r\n\tfolded\r\n\r\n'],
  ['a bare LF ending a header', GET + 'X-A: 1\n\r\n'],
  ['a bare LF ending the request line', 'GET http://req.test/x HTTP/1.1\nHost: req.test\r\n\r\n'],
  ['a bare CR in a value', GET + 'X-A: a\rb\r\n\r\n'],
  ['a NUL in a name', GET + 'X-\0A: 1\r\n\r\n'],
  ['a NUL in a value', GET + 'X-A: a\0b\r\n\r\n'],
  ['a control character in a value', GET + 'X-A: a\x01b\r\n\r\n'],
  ['DEL in a value', GET + 'X-A: a\x7fb\r\n\r\n'],
  ['a non-token character in a name', GET + 'X(A): 1\r\n\r\n'],
  ['an empty name', GET + ': 1\r\n\r\n'],
  ['a header line without a colon', GET + 'X-A 1\r\n\r\n'],
];

for (const [what, head, body] of BAD_REQUESTS)
  check(`request refused with 400, nothing forwarded: ${what}`, () => refused(what, head, body));

check('the 400 says why', async () => {
  const r = await refused('CL with TE', POST + 'Transfer-Encoding: chunked\r\n' +
                          'Content-Length: 4\r\nX-Pad: 1\r\n\r\n', '0\r\n\r\n');
  // http-parser may see the clash first; either way the body names it.
  assert.match(r.text, /content-length/i, r.text);
  const v = await refused('VT', POST + 'Transfer-Encoding: chunked\v\r\n\r\n', '0\r\n\r\n');
  assert.match(v.text, /control character in a header value/, v.text);
  const f = await refused('fold', GET + 'X-A: 1\r\n folded\r\n\r\n');
  assert.match(f.text, /obs-fold/, f.text);
});

check('a head split across many writes is checked as one', async () => {
  const before = origin.seen.connections;
  const text = GET + 'X-A: 1\r\n \r\n\r\n';
  const s = net.connect(proxy.port, '127.0.0.1');
  let got = '';
  const closed = new Promise((resolve) => {
    s.on('data', (d) => { got += d.toString('latin1'); });
    s.on('end', resolve);
    s.on('error', resolve);
  });
  await new Promise((r) => s.on('connect', r));
  for (const ch of text) {
    s.write(ch);
    await new Promise((r) => setTimeout(r, 2));
  }
  await Promise.race([closed, new Promise((r) => setTimeout(r, 10000))]);
  s.destroy();
  assert.match(got, /^HTTP\/1\.1 400 /, got);
  assert.equal(origin.seen.connections, before);
});

// Chunked request bodies: what came with the head is checked before anything goes upstream,
// so a bad chunk there is answered 400 and the origin sees nothing, not even a connection.
const BAD_CHUNKS = [
  ['a chunk size with junk', '2x\r\nab\r\n0\r\n\r\n', '2x'],
  ['a chunk size that is not hex', 'zz\r\nab\r\n0\r\n\r\n', 'zz'],
  ['a chunk size overflowing', '10000000000000002\r\nab\r\n0\r\n\r\n', 'ab'],
  ['a chunk size line without CR', '2\nab\r\n0\r\n\r\n', 'ab'],
  ['a chunk extension with a bare CR', '2;a\rb\r\nab\r\n0\r\n\r\n', 'ab'],
  ['chunk data longer than its size', '2\r\nabc\r\n0\r\n\r\n', 'abc'],
  ['a bad chunk after good ones', '2\r\nok\r\n3\r\nyes\r\nzz\r\n', 'zz'],
];

for (const [what, body] of BAD_CHUNKS) {
  check(`request with ${what}: 400, nothing sent upstream`, async () => {
    const r = await refused(what, 'POST http://chunk.test/x HTTP/1.1\r\nHost: chunk.test\r\n' +
                            'Transfer-Encoding: chunked\r\n\r\n', body);
    assert.match(r.text, /chunk/, r.text);
  });
}

// A bad chunk that comes after the head went upstream cannot be kept from the origin's
// connection; it is kept from its bytes, and that connection is closed.
check('a bad chunk after the head went upstream: 400, not forwarded, upstream closed',
      async () => {
  const from = { heads: origin.seen.heads.length, bytes: origin.seen.bytes.length };
  const s = net.connect(proxy.port, '127.0.0.1');
  let got = '';
  const closed = new Promise((resolve) => {
    s.on('data', (d) => { got += d.toString('latin1'); });
    s.on('end', resolve);
    s.on('error', resolve);
  });
  await new Promise((r) => s.on('connect', r));
  s.write('POST http://chunk.test/slow HTTP/1.1\r\nHost: chunk.test\r\n' +
          'Transfer-Encoding: chunked\r\n\r\n2\r\nok\r\n');
  await waitFor('the head upstream', () => targets(from.heads).includes('/slow'), 10000);
  s.write('zz\r\nab\r\n0\r\n\r\n');
  await Promise.race([closed, new Promise((r) => setTimeout(r, 10000))]);
  s.destroy();
  assert.match(got, /^HTTP\/1\.1 400 [^]*chunk/, got);
  const up = origin.seen.bytes.slice(from.bytes);
  assert.ok(up.includes('2\r\nok\r\n') && !up.includes('zz'), JSON.stringify(up));
  const r = await raw(proxy.port, 'GET http://chunk.test/after HTTP/1.1\r\nHost: chunk.test\r\n' +
                      'Connection: close\r\n\r\n', closedAfterAnswer);
  assert.match(r.text, /^HTTP\/1\.1 200 /, r.text);
  assert.notEqual(connOf('/after'), connOf('/slow'));
});

check('a malformed request gets a sentence, not the parser\'s words', async () => {
  for (const [head, words] of [
    ['GET http://req.test/x FOO/1.1\r\nHost: req.test\r\n\r\n', /the start line is not valid/],
    ['FETCH http://req.test/x HTTP/1.1\r\nHost: req.test\r\n\r\n', /method is not one brock/],
  ]) {
    const r = await refused(head, head);
    const body = r.text.split('\r\n\r\n')[1];
    assert.match(body, words, r.text);
    assert.doesNotMatch(body, /invalid constant|invalid HTTP method|HPE_/, r.text);
  }
});

// ---- accepted forms ----

check('good framing passes: chunked (with an extension), gzip then chunked, Content-Length',
      async () => {
  for (const [te, body] of [['chunked', '2;x=y\r\nhi\r\n0\r\n\r\n'],
                            ['CHUNKED', '2\r\nhi\r\n0\r\n\r\n'],
                            ['gzip, chunked', '2\r\nhi\r\n0\r\n\r\n']]) {
    const r = await raw(proxy.port, `POST http://good.test/x HTTP/1.1\r\nHost: good.test\r\n` +
                        `Transfer-Encoding: ${te}\r\nConnection: close\r\n\r\n${body}`,
                        closedAfterAnswer);
    assert.match(r.text, /^HTTP\/1\.1 200 /, `${te}: ${r.text}`);
    assert.match(r.text, /\r\n\r\nok$/, r.text);
  }
  const r = await raw(proxy.port, 'POST http://good.test/x HTTP/1.1\r\nHost: good.test\r\n' +
                      'Content-Length:  2 \r\nX-Tab: a\tb\r\nConnection: close\r\n\r\nhi',
                      closedAfterAnswer);
  assert.match(r.text, /^HTTP\/1\.1 200 /, r.text);
});

// RFC 9110 5.6.1 and 10.1.4: optional whitespace (spaces, tabs) around the commas and
// semicolons of a list, and parameters on a coding, are valid. brock passes them on in plain
// words, and closes the origin's connection after such a request.
const GOOD_LISTS = [
  ['tabs around the comma', 'gzip\t,\tchunked', 'gzip, chunked'],
  ['chunked with a parameter', 'chunked;foo=bar', 'chunked'],
  ['whitespace around semicolon, equals and comma', 'gzip ; level=1 , chunked',
   'gzip;level=1, chunked'],
];

for (const [what, te, plain] of GOOD_LISTS) {
  check(`a valid Transfer-Encoding list passes: ${what}`, async () => {
    const from = origin.seen.heads.length;
    const path = `/list-${from}`;
    const r = await raw(proxy.port, `POST http://list.test${path} HTTP/1.1\r\n` +
                        `Host: list.test\r\nTransfer-Encoding: ${te}\r\n\r\n` +
                        '2\r\nhi\r\n3\r\nyou\r\n0\r\n\r\n',
                        { until: (t) => /\r\n\r\nok$/.test(t) });
    assert.match(r.text, /^HTTP\/1\.1 200 /, `${what}: ${JSON.stringify(r.text)}`);
    const h = origin.seen.heads.slice(from).find((x) => x.head.split(' ')[1] === path);
    assert.ok(h, `${what}: the origin never saw it`);
    assert.match(h.head, new RegExp(`\r\nTransfer-Encoding: ${plain}(\r\n|$)`), h.head);
    assert.equal((h.head.match(/transfer-encoding/gi) || []).length, 1, h.head);
    assert.match(h.head, /\r\nConnection: close(\r\n|$)/, h.head);
    // The body came through whole, chunked by brock (the origin splits it like a head).
    const at = origin.seen.heads.indexOf(h) + 1;
    const body = await waitFor('the body upstream', () => origin.seen.heads[at], 10000);
    assert.ok(/^\d+\r\nhi/.test(body.head) && /you\r\n0$/.test(body.head),
              JSON.stringify(body));
    await nextIsFresh(what, h.conn);
  });
}

check('a response chunked with a parameter reaches the client as plain chunked', async () => {
  const r = await raw(proxy.port, 'GET http://resp.test/te-param HTTP/1.1\r\n' +
                      'Host: resp.test\r\nConnection: close\r\n\r\n', closedAfterAnswer);
  assert.match(r.text, /^HTTP\/1\.1 200 /, r.text);
  assert.match(r.text, /\r\nTransfer-Encoding: chunked\r\n/, r.text);
  assert.match(r.text, /\r\n\r\n2\r\nok\r\n0\r\n\r\n$/, JSON.stringify(r.text));
  await nextIsFresh('te-param', connOf('/te-param'));
});

check('a chunked response with "Chunked" and an extension passes', async () => {
  const r = await raw(proxy.port, 'GET http://good.test/chunked HTTP/1.1\r\nHost: good.test\r\n' +
                      'Connection: close\r\n\r\n', closedAfterAnswer);
  assert.match(r.text, /^HTTP\/1\.1 200 /, r.text);
  assert.match(r.text, /\r\n\r\n2\r\nok\r\n0\r\n\r\n$/, JSON.stringify(r.text));
});

// ---- pipelining ----

check('pipelined: a good request then a smuggled one; the first answered, the second 400',
      async () => {
  const from = origin.seen.heads.length;
  const r = await raw(proxy.port,
                      'GET http://pipe.test/one HTTP/1.1\r\nHost: pipe.test\r\n\r\n' +
                      'POST http://pipe.test/two HTTP/1.1\r\nHost: pipe.test\r\n' +
                      'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n' +
                      '0\r\n\r\nGET http://pipe.test/three HTTP/1.1\r\nHost: pipe.test\r\n\r\n',
                      closedAfterAnswer);
  assert.match(r.text, /^HTTP\/1\.1 200 [^]*\r\n\r\nokHTTP\/1\.1 400 /, JSON.stringify(r.text));
  assert.equal(r.closed, true);
  assert.deepEqual(targets(from), ['/one']);
  assert.ok(!origin.seen.bytes.includes('/two') && !origin.seen.bytes.includes('/three'));
});

check('pipelined: a good chunked request then one with a bare LF', async () => {
  const from = origin.seen.heads.length;
  const r = await raw(proxy.port,
                      'POST http://pipe.test/a HTTP/1.1\r\nHost: pipe.test\r\n' +
                      'Transfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n' +
                      'GET http://pipe.test/b HTTP/1.1\nHost: pipe.test\r\n\r\n',
                      closedAfterAnswer);
  assert.match(r.text, /^HTTP\/1\.1 200 [^]*okHTTP\/1\.1 400 /, JSON.stringify(r.text));
  assert.deepEqual(targets(from), ['/a']);
});

// ---- responses ----

// The upstream connection the last head for path arrived on.
function connOf(path) {
  const h = origin.seen.heads.filter((x) => x.head.split(' ')[1] === path).pop();
  assert.ok(h, `the origin never saw ${path}`);
  return h.conn;
}

async function nextIsFresh(what, badConn) {
  const r = await raw(proxy.port, 'GET http://resp.test/after HTTP/1.1\r\nHost: resp.test\r\n' +
                      'Connection: close\r\n\r\n', closedAfterAnswer);
  assert.match(r.text, /^HTTP\/1\.1 200 /, `${what}: ${r.text}`);
  assert.notEqual(connOf('/after'), badConn, `${what}: the bad upstream connection was reused`);
}

for (const name of Object.keys(BAD_RESPONSES)) {
  check(`response refused with 502, its upstream not reused: ${name}`, async () => {
    // A good exchange first, so that a pooled connection exists to be (wrongly) reused.
    await raw(proxy.port, 'GET http://resp.test/warm HTTP/1.1\r\nHost: resp.test\r\n' +
              'Connection: close\r\n\r\n', closedAfterAnswer);
    const r = await raw(proxy.port, `GET http://resp.test/bad/${name} HTTP/1.1\r\n` +
                        'Host: resp.test\r\n\r\n', closedAfterAnswer);
    assert.match(r.text, /^HTTP\/1\.1 502 /, `${name}: ${JSON.stringify(r.text)}`);
    assert.equal(r.closed, true, name);
    assert.ok(!r.text.includes('200 OK'), `${name}: the bad response went through`);
    await nextIsFresh(name, connOf(`/bad/${name}`));
  });
}

// The one line a bad chunk after the response's head leaves in the log.
const CUT_LINE = new RegExp('GET resp\\.test: the upstream\'s response body is malformed ' +
                            '\\(invalid chunk[^)]*\\): the response was cut short and the ' +
                            'client\'s connection closed\n', 'g');
const cutLines = () => (proxy.log().match(CUT_LINE) || []).length;

for (const name of Object.keys(BAD_CHUNKED)) {
  check(`response with a bad chunk: the client cut, the upstream not reused: ${name}`,
        async () => {
    const lines = cutLines();
    const r = await raw(proxy.port, `GET http://resp.test/bad/${name} HTTP/1.1\r\n` +
                        'Host: resp.test\r\n\r\n', closedAfterAnswer);
    assert.equal(r.closed, true, name);
    await waitFor('the line saying why', () => cutLines() === lines + 1, 10000);
    // Either refused before the head went out, or cut: never a complete chunked body.
    assert.ok(/^HTTP\/1\.1 502 /.test(r.text) || !/0\r\n\r\n$/.test(r.text),
              JSON.stringify(r.text));
    assert.ok(!r.text.includes('\r\nab\r\n'), JSON.stringify(r.text));
    await nextIsFresh(name, connOf(`/bad/${name}`));
  });
}

// An HTTP/1.0 client reads the body until the connection closes: a clean close after a bad
// chunk would pass for the body's end, so the connection is reset instead.
check('a bad chunk for an HTTP/1.0 client: its connection is reset, not closed', async () => {
  const lines = cutLines();
  const s = net.connect(proxy.port, '127.0.0.1');
  const how = new Promise((resolve) => {
    const timer = setTimeout(() => resolve('no end'), 10000);
    s.on('data', () => {});
    s.on('end', () => { clearTimeout(timer); resolve('a clean close'); });
    s.on('error', (e) => { clearTimeout(timer); resolve(e.code); });
  });
  s.write('GET http://resp.test/bad/chunk-junk HTTP/1.0\r\nHost: resp.test\r\n\r\n');
  assert.equal(await how, 'ECONNRESET');
  s.destroy();
  await waitFor('the line saying why', () => cutLines() === lines + 1, 10000);
});

// RFC 9112 6.3: a 304, a 204 and a response to HEAD end at their head whatever it says. The
// bytes the upstream sends after it belong to nothing: never forwarded, and that connection
// is never used again.
for (const [what, method] of [['304', 'GET'], ['204', 'GET'], ['head', 'HEAD']]) {
  check(`a ${what} with Content-Length and bytes after it: no body, upstream not reused`,
        async () => {
    // A good exchange first, so that a pooled connection exists to be (wrongly) reused.
    await raw(proxy.port, 'GET http://resp.test/warm HTTP/1.1\r\nHost: resp.test\r\n' +
              'Connection: close\r\n\r\n', closedAfterAnswer);
    const r = await raw(proxy.port, `${method} http://resp.test/nobody/${what} HTTP/1.1\r\n` +
                        'Host: resp.test\r\nConnection: close\r\n\r\n', closedAfterAnswer);
    assert.match(r.text, /^HTTP\/1\.1 (304|204|200) /, r.text);
    assert.ok(r.text.endsWith('\r\n\r\n'), `${what}: a body went out: ${JSON.stringify(r.text)}`);
    assert.ok(!r.text.includes('hello'), JSON.stringify(r.text));
    // A 204 may not announce a body (RFC 9110 8.6); a 304 and a HEAD's answer say what a GET
    // would get.
    if (what === '204') assert.doesNotMatch(r.text, /content-length/i, r.text);
    else assert.match(r.text, /\r\nContent-Length: 5\r\n/, r.text);
    await nextIsFresh(what, connOf(`/nobody/${what}`));
  });
}

// A request framed so that brock reads it one way and an origin might read it another: after
// its response the origin's connection is closed, never reused, and the origin is told so.
check('a GET with a body: its upstream connection closes after the response', async () => {
  await raw(proxy.port, 'GET http://resp.test/warm HTTP/1.1\r\nHost: resp.test\r\n' +
            'Connection: close\r\n\r\n', closedAfterAnswer);
  const r = await raw(proxy.port, 'GET http://resp.test/get-body HTTP/1.1\r\n' +
                      'Host: resp.test\r\nContent-Length: 4\r\nConnection: close\r\n\r\n' +
                      'abcd', closedAfterAnswer);
  assert.match(r.text, /^HTTP\/1\.1 200 [^]*\r\n\r\nok$/, r.text);
  const h = origin.seen.heads.filter((x) => x.head.split(' ')[1] === '/get-body').pop();
  assert.match(h.head, /\r\nConnection: close(\r\n|$)/, h.head);
  await nextIsFresh('GET with a body', h.conn);
});

// ---- inside intercepted TLS ----

check('inside intercepted TLS the same checks run: 400, nothing upstream', async () => {
  const before = { conns: origin.seen.connections, bytes: origin.seen.bytes.length };
  const sock = net.connect(proxy.port, '127.0.0.1');
  await new Promise((r) => sock.on('connect', r));
  sock.write('CONNECT tls.test:443 HTTP/1.1\r\nHost: tls.test:443\r\n\r\n');
  const answer = await new Promise((resolve, reject) => {
    let got = '';
    const timer = setTimeout(() => reject(new Error('no CONNECT answer: ' + got)), 10000);
    const on = (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) {
        clearTimeout(timer);
        sock.removeListener('data', on);
        resolve(got);
      }
    };
    sock.on('data', on);
  });
  assert.match(answer, /^HTTP\/1\.1 200 /);
  const t = tls.connect({ socket: sock, servername: 'tls.test', rejectUnauthorized: false });
  await new Promise((r, j) => { t.on('secureConnect', r); t.on('error', j); });
  let got = '';
  const ended = new Promise((resolve) => {
    t.on('data', (d) => { got += d.toString('latin1'); });
    t.on('end', resolve);
    t.on('close', resolve);
    t.on('error', resolve);
  });
  t.write('POST /x HTTP/1.1\r\nHost: tls.test\r\nContent-Length: 4\r\n' +
          'Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
  await Promise.race([ended, new Promise((r) => setTimeout(r, 10000))]);
  t.destroy();
  sock.destroy();
  assert.match(got, /^HTTP\/1\.1 400 /, got);
  assert.match(got, /\r\nConnection: close\r\n/i);
  assert.equal(origin.seen.connections, before.conns);
  assert.equal(origin.seen.bytes.length, before.bytes);
});

check('inside intercepted TLS: obs-fold refused', async () => {
  const before = origin.seen.connections;
  const sock = net.connect(proxy.port, '127.0.0.1');
  await new Promise((r) => sock.on('connect', r));
  sock.write('CONNECT tls.test:443 HTTP/1.1\r\nHost: tls.test:443\r\n\r\n');
  await new Promise((resolve) => {
    let got = '';
    const on = (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n\r\n')) { sock.removeListener('data', on); resolve(); }
    };
    sock.on('data', on);
  });
  const t = tls.connect({ socket: sock, servername: 'tls.test', rejectUnauthorized: false });
  await new Promise((r, j) => { t.on('secureConnect', r); t.on('error', j); });
  let got = '';
  const ended = new Promise((resolve) => {
    t.on('data', (d) => { got += d.toString('latin1'); });
    t.on('end', resolve);
    t.on('close', resolve);
    t.on('error', resolve);
  });
  t.write('GET /x HTTP/1.1\r\nHost: tls.test\r\nX-A: 1\r\n folded\r\n\r\n');
  await Promise.race([ended, new Promise((r) => setTimeout(r, 10000))]);
  t.destroy();
  sock.destroy();
  assert.match(got, /^HTTP\/1\.1 400 [^]*obs-fold/, got);
  assert.equal(origin.seen.connections, before);
});
