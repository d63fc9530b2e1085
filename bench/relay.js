// SPDX-License-Identifier: GPL-3.0-or-later
// The network of bench/pageload: a TCP relay on 127.0.0.1:PORT to 127.0.0.1:TARGET that holds
// every chunk half a round trip (RTT_MS / 2) in each direction, in order, as a link with that
// round trip would. A client's first bytes also wait for the round trip of TCP's handshake,
// which loopback skips: they reach the target no sooner than 1.5 round trips after the
// connection was accepted. Each accepted connection appends a line to COUNT_FILE, so that a
// reader can tell how many were opened between two moments. SIGUSR1 cuts every connection
// open (so that the next load starts with none to the origin, a proxy's kept ones
// included). Runs until killed.
// Usage: node relay.js PORT TARGET RTT_MS COUNT_FILE
'use strict';

const fs = require('node:fs');
const net = require('node:net');

const [port, target, rtt] = process.argv.slice(2, 5).map(Number);
const countFile = process.argv[5];
const half = rtt / 2;

// Sends what arrives on from to to, each chunk half a round trip later than it came and never
// before notBefore (ms, Date.now() time); the end of the stream is passed on in its turn.
function pipeDelayed(from, to, notBefore = 0) {
  const queue = [];
  let timer = null;
  let last = 0;
  const send = (data) => {
    if (to.destroyed) return;
    if (data === null) to.end();
    else to.write(data);
  };
  const pump = () => {
    timer = null;
    const now = Date.now();
    while (queue.length && queue[0].at <= now) {
      send(queue.shift().data);
    }
    if (queue.length) timer = setTimeout(pump, queue[0].at - now);
  };
  const push = (data) => {
    if (rtt === 0 && !queue.length) {
      send(data);
      return;
    }
    // Later than the chunk before it, whatever the timers do: order is kept.
    last = Math.max(Date.now() + half, notBefore, last);
    queue.push({ at: last, data });
    if (!timer) timer = setTimeout(pump, Math.max(0, queue[0].at - Date.now()));
  };
  from.on('data', (d) => push(d));
  from.on('end', () => push(null));
}

const open = new Set();
const server = net.createServer({ allowHalfOpen: true, noDelay: true }, (client) => {
  fs.appendFileSync(countFile, '.\n');
  open.add(client);
  client.on('close', () => open.delete(client));
  const accepted = Date.now();
  const origin = net.connect({ port: target, host: '127.0.0.1', allowHalfOpen: true,
                               noDelay: true });
  open.add(origin);
  origin.on('close', () => open.delete(origin));
  const close = () => { client.destroy(); origin.destroy(); };
  client.on('error', close);
  origin.on('error', close);
  // A side gone for good takes the other with it once what was on the way has arrived.
  client.on('close', () => setTimeout(() => origin.destroy(), rtt + 100));
  origin.on('close', () => setTimeout(() => client.destroy(), rtt + 100));
  pipeDelayed(client, origin, accepted + 3 * half);
  pipeDelayed(origin, client);
});
server.listen(port, '127.0.0.1', () => console.log(`relay: listening on 127.0.0.1:${port}`));
process.on('SIGUSR1', () => { for (const s of open) s.destroy(); });
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => process.exit(0));
