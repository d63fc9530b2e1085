// SPDX-License-Identifier: GPL-3.0-or-later
// A local port for a client that speaks no proxy (h2load): `node connectfwd.js PORT TARGET
// [PROXY_PORT HOST]`. Each connection to PORT is carried to TARGET (a loopback port) as it is;
// with PROXY_PORT, through that proxy's CONNECT to HOST:443 instead. Either way the bytes go
// through this process, so that the two paths a benchmark compares pay the same for it.
'use strict';

const net = require('node:net');

const [port, target, proxyPort, host] = process.argv.slice(2).map((a, i) => (i === 3 ? a : Number(a)));

function viaConnect(sock) {
  const t = net.connect(proxyPort, '127.0.0.1');
  let got = Buffer.alloc(0);
  t.on('error', () => sock.destroy());
  t.on('connect', () => t.write(`CONNECT ${host}:443 HTTP/1.1\r\nHost: ${host}:443\r\n\r\n`));
  const head = (d) => {
    got = Buffer.concat([got, d]);
    const end = got.indexOf('\r\n\r\n');
    if (end < 0) return;
    t.removeListener('data', head);
    if (!/^HTTP\/1\.1 200 /.test(got.toString('latin1'))) {
      sock.destroy();
      t.destroy();
      return;
    }
    if (got.length > end + 4) sock.write(got.subarray(end + 4));
    sock.pipe(t).pipe(sock);
  };
  t.on('data', head);
}

net.createServer((sock) => {
  sock.setNoDelay(true);
  sock.on('error', () => {});
  if (proxyPort) {
    viaConnect(sock);
    return;
  }
  const t = net.connect(target, '127.0.0.1');
  t.setNoDelay(true);
  t.on('error', () => sock.destroy());
  sock.pipe(t).pipe(sock);
}).listen(port, '127.0.0.1');
