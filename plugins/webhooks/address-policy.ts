import { BlockList, isIP } from 'node:net';

/**
 * Where a webhook may not point: loopback, private, shared (CGNAT), link-local (cloud metadata), multicast, reserved
 * and unspecified ranges, and the IPv6 forms that reach them (IPv4-mapped and -compatible, NAT64).
 */
const forbidden = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) forbidden.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [['::', 96], ['64:ff9b::', 96], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) forbidden.addSubnet(net, prefix, 'ipv6');

/** `::ffff:a.b.c.d` (in any spelling) as the IPv4 address it reaches; any other address as it is. */
export function unmapped(address: string): string {
  if (isIP(address) !== 6) return address;
  const canonical = new URL(`http://[${address}]`).hostname.slice(1, -1);
  const m = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!m) return canonical;
  const [hi, lo] = [parseInt(m[1], 16), parseInt(m[2], 16)];
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** Whether a webhook may connect to `address` (a literal IP). */
export function isForbiddenAddress(address: string): boolean {
  const plain = unmapped(address);
  const family = isIP(plain);
  if (family === 0) return true;
  return forbidden.check(plain, family === 4 ? 'ipv4' : 'ipv6');
}
