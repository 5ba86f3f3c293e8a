import { isForbiddenAddress } from '../../core/address-policy.ts';
import { SourceRefused, type SourceInput, type SourceKind } from '../sources/public.ts';
import { checkFeedAddress, RefusedAddress, systemResolver, type AddressRules, type Resolver } from './feed-address.ts';
import { eventProperties } from './properties.ts';
import { readFeed } from './read-feed.ts';
import { IcalEventsConfig } from './schemas.ts';

export interface IcalKindOptions {
  /** DNS for the address checks (default: the system's); tests give their own. */
  resolver?: Resolver;
  /** Which resolved addresses are private (default: `core/address-policy.ts`); tests give their own. */
  isForbidden?: (address: string) => boolean;
  /** For a whole fetch, redirects and body included (default 30 s). */
  timeoutMs?: number;
  /** Of a feed's body, decoded (default 20 MiB). */
  maxBytes?: number;
  /** Rows one read may give (default 100,000). */
  maxOccurrences?: number;
  /** Recurrence steps one read may take (default 1,000,000). */
  maxSteps?: number;
}

/** The `ical.events` source kind: the events of an iCalendar feed at a URL, recurring ones one row per occurrence. */
export function icalEventsKind(options: IcalKindOptions = {}): SourceKind<IcalEventsConfig> {
  const limits = {
    timeoutMs: options.timeoutMs ?? 30_000,
    maxBytes: options.maxBytes ?? 20 * 1024 * 1024,
    maxRedirects: 5,
    maxOccurrences: options.maxOccurrences ?? 100_000,
    maxSteps: options.maxSteps ?? 1_000_000,
  };
  const rulesFor = (input: SourceInput<IcalEventsConfig>): AddressRules => ({
    allowPrivateNetworks: input.allowPrivateNetworks,
    resolver: options.resolver ?? systemResolver,
    isForbidden: options.isForbidden ?? isForbiddenAddress,
  });
  return {
    id: 'ical.events',
    name: 'iCalendar feed events',
    provider: null,
    configSchema: IcalEventsConfig,
    async check(input) {
      try {
        await checkFeedAddress(input.config.url, rulesFor(input));
      } catch (err) {
        if (err instanceof RefusedAddress) throw new SourceRefused('/config/url', err.message);
        throw err;
      }
    },
    properties: async () => eventProperties(),
    read: (input) => readFeed(input, rulesFor(input), limits),
  };
}
