import { promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

/** Resolves a host name to its addresses; injectable so tests prove refusals without asking any real DNS. */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/** Where a feed may be fetched from. */
export interface AddressRules {
  /** `sources.allowPrivateNetworks`: whether loopback, private and link-local addresses may be reached. */
  allowPrivateNetworks: boolean;
  resolver: Resolver;
  /** The kernel's policy (`core/address-policy.ts`); a test reaching its loopback server as a public host gives its own. */
  isForbidden: (address: string) => boolean;
}

/** Why an address is refused, in a sentence for whoever configured the source. */
export class RefusedAddress extends Error {}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/**
 * The checks that need no DNS: http(s) only, no credentials, no forbidden literal address (a socket connects to a
 * literal without any lookup the connect-time guard could see). Names only the host in what it says: a feed's path
 * and query often carry its secret (Google's "secret address").
 */
export function feedUrl(raw: string, rules: AddressRules): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedAddress('Not an absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedAddress(`Only http and https feeds can be read, not ${url.protocol.slice(0, -1)}.`);
  if (url.username || url.password) throw new RefusedAddress('Credentials in the URL are not accepted.');
  const host = hostOf(url);
  if (!rules.allowPrivateNetworks && isIP(host) && rules.isForbidden(host))
    throw new RefusedAddress(`${host} is a loopback, private, link-local or multicast address.`);
  return url;
}

/**
 * Checks a feed's address as the source is saved: `feedUrl`, and no host name that resolves to a forbidden address.
 * A name that does not resolve now passes: the connect-time guard judges whatever it resolves to later.
 */
export async function checkFeedAddress(raw: string, rules: AddressRules): Promise<void> {
  const url = feedUrl(raw, rules);
  const host = hostOf(url);
  if (rules.allowPrivateNetworks || isIP(host)) return;
  const addresses = await rules.resolver(host).catch(() => []);
  const bad = addresses.find((a) => rules.isForbidden(a.address));
  if (bad) throw new RefusedAddress(`${host} resolves to ${bad.address}, a loopback, private, link-local or multicast address.`);
}

/**
 * The connect-time guard: resolves once, refuses if any answer is forbidden, and hands the socket only the addresses
 * it checked, so a DNS answer that changed since the source was saved (rebinding) cannot get through.
 */
export function guardedLookup(rules: AddressRules): LookupFunction {
  const checked = async (hostname: string) => {
    const addresses = await rules.resolver(hostname);
    if (addresses.length === 0) throw Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' });
    const bad = rules.allowPrivateNetworks ? undefined : addresses.find((a) => rules.isForbidden(a.address));
    if (bad) throw new RefusedAddress(`${hostname} resolves to ${bad.address}, a loopback, private, link-local or multicast address.`);
    return addresses;
  };
  return (hostname, options, callback) => {
    checked(hostname).then(
      (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family)),
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
