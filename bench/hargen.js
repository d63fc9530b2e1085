#!/usr/bin/env node
// SPDX-License-Identifier: GPL-3.0-or-later
// Writes a synthetic HTTP Archive of N entries, shaped like what Chromium's DevTools save:
// visits of about 25 entries (a top-level document, then its scripts, images and styles, and
// requests to tracker hosts that carry and set cookies), one page per visit as Firefox writes
// them, about 2 KB an entry, a few entries started slightly out of file order.
// Usage: hargen.js N FILE [--pages-last]   (the same N always writes the same file)
'use strict';
const fs = require('fs');

const [n, out, flag] = [Number(process.argv[2]), process.argv[3], process.argv[4]];
if (!Number.isInteger(n) || n < 1 || !out) {
  console.error('usage: hargen.js N FILE [--pages-last]');
  process.exit(2);
}

let seed = 42;
function rnd(k) { // a small LCG: the same file every time, whatever Node's Math.random does
  seed = (seed * 1103515245 + 12345) >>> 0;
  return (seed >>> 8) % k;
}
function hex(len) {
  let s = '';
  while (s.length < len) s += rnd(0x10000).toString(16).padStart(4, '0');
  return s.slice(0, len);
}

const SITES = 2000, TRACKERS = 300, PER_VISIT = 25;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) ' +
  'Chrome/126.0.0.0 Safari/537.36';
const T0 = Date.parse('2026-05-01T10:00:00.000Z');

function hdr(name, value) { return { name, value }; }

function entry(page, t, url, kind, referer, frame, cookie, setCookie) {
  const host = new URL(url).host;
  const doc = kind === 'document';
  const req = [
    hdr('Accept', doc ? 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,' +
      'image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7' :
      kind === 'image' ? 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8' :
        '*/*'),
    hdr('Accept-Encoding', 'gzip, deflate, br, zstd'),
    hdr('Accept-Language', 'en-US,en;q=0.9'),
    hdr('Connection', 'keep-alive'),
    hdr('Host', host),
    hdr('Sec-Fetch-Dest', kind),
    hdr('Sec-Fetch-Mode', doc ? 'navigate' : 'no-cors'),
    hdr('Sec-Fetch-Site', doc ? 'none' : 'cross-site'),
    hdr('User-Agent', UA),
    hdr('sec-ch-ua', '"Not/A)Brand";v="8", "Chromium";v="126"'),
    hdr('sec-ch-ua-mobile', '?0'),
    hdr('sec-ch-ua-platform', '"Linux"'),
  ];
  if (referer) req.push(hdr('Referer', referer));
  if (cookie) req.push(hdr('Cookie', cookie));
  const mime = doc ? 'text/html; charset=utf-8' : kind === 'image' ? 'image/gif' :
    kind === 'script' ? 'application/javascript' : 'text/css';
  const resp = [
    hdr('Cache-Control', 'max-age=3600'),
    hdr('Content-Type', mime),
    hdr('Date', new Date(t).toUTCString()),
    hdr('Server', 'nginx'),
    hdr('Vary', 'Accept-Encoding'),
    hdr('Content-Length', String(100 + rnd(50000))),
  ];
  if (setCookie) resp.push(hdr('Set-Cookie', setCookie));
  return {
    pageref: page,
    startedDateTime: new Date(t).toISOString(),
    time: rnd(300) + 0.25,
    request: {
      method: 'GET', url, httpVersion: 'HTTP/1.1', cookies: [], headers: req,
      queryString: [], headersSize: -1, bodySize: 0,
    },
    response: {
      status: 200, statusText: 'OK', httpVersion: 'HTTP/1.1', cookies: [], headers: resp,
      content: { size: 100 + rnd(50000), mimeType: mime }, redirectURL: '',
      headersSize: -1, bodySize: -1, _transferSize: 500 + rnd(50000),
    },
    cache: {},
    timings: { blocked: 0.5, dns: -1, ssl: -1, connect: -1, send: 0.1, wait: rnd(200) + 0.5,
      receive: rnd(50) + 0.2, _blocked_queueing: 0.3 },
    _frameref: frame,
    _resourceType: doc ? 'document' : kind,
    serverIPAddress: '127.0.0.1',
    _priority: 'High',
    connection: String(1000 + rnd(9000)),
  };
}

const fd = fs.openSync(out + '.part', 'w');
let chunk = '';
function put(s) {
  chunk += s;
  if (chunk.length > (1 << 20)) {
    fs.writeSync(fd, chunk);
    chunk = '';
  }
}

const visits = Math.ceil(n / PER_VISIT);
const pages = [];
for (let v = 0; v < visits; v++) {
  const site = `site-${rnd(SITES)}.test`;
  pages.push({ startedDateTime: new Date(T0 + v * 30000).toISOString(), id: `page_${v + 1}`,
    title: `https://www.${site}/`, pageTimings: { onContentLoad: 800, onLoad: 1200 } });
}
function putPages() {
  put('"pages":[');
  pages.forEach((p, k) => put((k ? ',' : '') + JSON.stringify(p)));
  put(']');
}

put('{"log":{"version":"1.2","creator":{"name":"WebInspector","version":"537.36"},');
if (flag !== '--pages-last') {
  putPages();
  put(',');
}
put('"entries":[');
let written = 0;
for (let v = 0; v < visits && written < n; v++) {
  const site = new URL(pages[v].title).host.replace(/^www\./, '');
  const top = `https://www.${site}/`;
  const frame = `frame_${v}`;
  const t0 = T0 + v * 30000;
  for (let k = 0; k < PER_VISIT && written < n; k++, written++) {
    // Now and then an entry is written a little after one that started later.
    const t = t0 + k * 40 + (k > 1 && rnd(20) === 0 ? -60 : 0);
    let e;
    if (k === 0) {
      e = entry(pages[v].id, t, top, 'document', null, frame, null,
        `sess=${hex(16)}; Path=/; HttpOnly`);
    } else if (k % 3 === 0) {
      const what = ['script', 'image', 'style'][rnd(3)];
      e = entry(pages[v].id, t, `https://static.${site}/a/${hex(8)}.${what}`, what, top, frame,
        `sess=${hex(16)}`, null);
    } else {
      const tr = `tracker-${rnd(TRACKERS)}.test`;
      const what = rnd(2) ? 'image' : 'script';
      const url = what === 'image' ? `https://px.${tr}/p.gif?v=${hex(12)}&r=${rnd(1e6)}` :
        `https://cdn.${tr}/t.js`;
      e = entry(pages[v].id, t, url, what, top, frame, rnd(2) ? `uid=${hex(16)}` : null,
        rnd(3) === 0 ? `uid=${hex(16)}; Domain=.${tr}; Path=/; Max-Age=31536000; ` +
          'SameSite=None; Secure' : null);
    }
    put((written ? ',' : '') + JSON.stringify(e));
  }
}
put(']');
if (flag === '--pages-last') {
  put(',');
  putPages();
}
put('}}\n');
fs.writeSync(fd, chunk);
fs.closeSync(fd);
fs.renameSync(out + '.part', out);
