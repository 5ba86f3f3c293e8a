import type { IntegrationProvider } from '../integrations/public.ts';

/**
 * iCalendar feeds as an integrations provider: nothing to connect (a feed is read by its URL), listed so people find
 * the `ical.events` source kind under the calendar category.
 */
export function icalProvider(): IntegrationProvider {
  return {
    id: 'ical',
    name: 'iCalendar feed',
    categories: ['calendar'],
    auth: { type: 'none' },
    test: async () => ({ ok: true, detail: 'An iCalendar feed needs no connection: a source reads it by its URL.', account: null }),
    sources: ['ical.events'],
  };
}
