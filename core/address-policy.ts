import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where an outbound request to an address a user chose (a webhook, a source's feed or database) may not go, by the
 * names ipaddr.js gives the IANA special-purpose ranges: loopback, private, shared (CGNAT), link-local (cloud
 * metadata), multicast, broadcast and unspecified; in IPv6 also unique and site local, discard-only, and
 * the forms that reach IPv4 through a translator on the local network (NAT64, RFC 6052 and 8215; IPv4-translated,
 * RFC 6145). IPv4-mapped addresses are judged as the IPv4 address they reach.
 */
const REFUSED_RANGES = new Set([
  'unspecified', 'broadcast', 'multicast', 'linkLocal', 'loopback', 'carrierGradeNat', 'private',
  'uniqueLocal', 'deprecatedSiteLocal', 'discard', 'rfc6052', 'rfc6145',
]);

/**
 * Refused besides: what ipaddr.js files as "reserved" together with the documentation ranges (RFC 5737, which reach
 * nothing and stand for public addresses in examples and tests), and IPv4-compatible IPv6 (`::a.b.c.d`, deprecated).
 */
const REFUSED_SUBNETS = ['192.0.0.0/24', '198.18.0.0/15', '240.0.0.0/4', '::/96'].map((cidr) => ipaddr.parseCIDR(cidr));

/** Whether a request to an address a user chose may not connect to `address` (a literal IP). */
export function isForbiddenAddress(address: string): boolean {
  // Only the forms Node and resolvers give: ipaddr.js would also read legacy ones (`0x7f.1`, `2130706433`).
  if (isIP(address) === 0) return true;
  const ip = ipaddr.process(address);
  return REFUSED_RANGES.has(ip.range()) || REFUSED_SUBNETS.some(([net, bits]) => ip.kind() === net.kind() && ip.match(net, bits));
}
