import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { isForbiddenAddress } from '../../core/address-policy.ts';
import { ConnectionFailed, ForbiddenAddress } from './failures.ts';

/** Resolves a host name to its addresses; injectable so tests can make a name resolve where they need it. */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface AddressRules {
  allowPrivateNetworks: boolean;
  resolver: Resolver;
}

const WHY = 'a loopback, private, link-local or otherwise reserved address, which could reach this server\'s own databases';

/**
 * Where a session may connect for `host`: the addresses it resolves to, all checked, in the resolver's order (the
 * socket is then opened to these addresses, never to the name, so a DNS answer that changes between the check and the
 * connection cannot get through), or the Unix socket directory itself when private networks are allowed.
 */
export async function checkedAddresses(host: string, rules: AddressRules): Promise<string[]> {
  if (host.startsWith('/')) {
    if (!rules.allowPrivateNetworks) throw new ForbiddenAddress(`${host} is a Unix socket on this server: refused (${WHY}).`);
    return [host];
  }
  if (isIP(host)) {
    if (!rules.allowPrivateNetworks && isForbiddenAddress(host)) throw new ForbiddenAddress(`${host} is ${WHY}: refused.`);
    return [host];
  }
  const found = await rules.resolver(host).catch(() => []);
  if (found.length === 0) throw new ConnectionFailed(`The host name ${host} does not resolve.`);
  const bad = rules.allowPrivateNetworks ? undefined : found.find((a) => isForbiddenAddress(a.address));
  if (bad) throw new ForbiddenAddress(`${host} resolves to ${bad.address}, ${WHY}: refused.`);
  return [...new Set(found.map((a) => a.address))];
}
