import net from 'node:net';
import os from 'node:os';

const LOOPBACK = new net.BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Listen addresses that mean every interface. */
const EVERY_INTERFACE = new Set(['0.0.0.0', '::', '']);

/** Whether a listen address takes connections from this machine only (`localhost`, 127.0.0.0/8, ::1, their IPv4-mapped forms). */
export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const family = net.isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 6 ? 'ipv6' : 'ipv4');
}

/** This machine's first address other machines may reach (IPv4), else its name. */
function reachableAddress(): string {
  const external = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []).find((a) => !a.internal && a.family === 'IPv4');
  return external?.address ?? os.hostname();
}

/**
 * Where links made outside a request (mail) point when `publicUrl` is not set: the address the server listens on,
 * and for every interface (`0.0.0.0`), this machine's first external IPv4 address. Absolute either way: a mail
 * client cannot open a relative link.
 */
export function listenOrigin(host: string, port: number): string {
  const name = EVERY_INTERFACE.has(host) ? reachableAddress() : host;
  return `http://${net.isIP(name) === 6 ? `[${name}]` : name}:${port}`;
}
