// SPDX-License-Identifier: GPL-3.0-or-later
// A connection flood, run as a child process of a test so that its work does not slow the
// test's own clients: `node flooder.js PORT COUNT LOCAL_ADDRESS`. It opens COUNT connections to
// 127.0.0.1:PORT from LOCAL_ADDRESS, in batches; every tenth sends half a request head, the
// rest nothing. Each connection the proxy closes is opened again after a pause (at most about
// a thousand a second), until stdin closes. It prints one JSON line when all COUNT have been
// opened once ({"opened"}) and one when it stops ({"opened", "cut", "open"}: connections
// opened in all, closed by the proxy, and still open).
'use strict';

const net = require('node:net');

const [port, count, localAddress] = [Number(process.argv[2]), Number(process.argv[3]),
                                     process.argv[4] || '127.0.0.2'];
const HALF_HEAD = 'GET http://site.test/ HTTP/1.1\r\nHost: site.test\r\nX-Pad: ';
let opened = 0, cut = 0, stopping = false;
const open = new Set();

function connect(i) {
  const s = net.connect({ port, host: '127.0.0.1', localAddress });
  opened++;
  open.add(s);
  s.on('error', () => {});
  s.on('connect', () => { if (i % 10 === 0) s.write(HALF_HEAD); });
  s.on('close', () => {
    open.delete(s);
    if (stopping) return;
    cut++;
    setTimeout(() => { if (!stopping) connect(i); }, 100 + (i % 100));
  });
}

async function main() {
  for (let i = 0; i < count; i++) {
    connect(i);
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 10));
  }
  process.stdout.write(JSON.stringify({ opened }) + '\n');
}

process.stdin.on('end', () => {
  stopping = true;
  process.stdout.write(JSON.stringify({ opened, cut, open: open.size }) + '\n');
  for (const s of open) s.destroy();
  process.exit(0);
});
process.stdin.resume();
main();
