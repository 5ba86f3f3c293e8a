/**
 * The webhooks benchmark's receiver, in a process of its own so that taking 3,000 deliveries does not slow the load
 * generator's event loop (which would count as write latency). Answers 204 to everything; on the message `report` it
 * sends back how many distinct deliveries (path + `webhook-id`) it took, how many requests in all, and when the last one
 * arrived.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const seen = new Set<string>();
let received = 0;
let lastAt = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    seen.add(`${req.url}|${req.headers['webhook-id']}`);
    received++;
    lastAt = Date.now();
    res.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
process.on('message', (message) => {
  if (message === 'report') process.send!({ distinct: seen.size, received, lastAt });
  else if (message === 'stop') server.close(() => process.exit(0));
});
