import type { SourceProperty } from '../sources/public.ts';

export const STATUSES = ['TENTATIVE', 'CONFIRMED', 'CANCELLED'] as const;

/**
 * The fields an `ical.events` source's database gets; `uid` is the row key, `summary` the natural title. What each
 * value looks like is in `cells.ts`.
 */
export function eventProperties(): SourceProperty[] {
  return [
    { key: 'uid', name: 'UID', type: 'text', unique: true },
    { key: 'summary', name: 'Summary', type: 'text' },
    { key: 'description', name: 'Description', type: 'long_text' },
    { key: 'location', name: 'Location', type: 'text' },
    { key: 'start', name: 'Start', type: 'datetime' },
    { key: 'end', name: 'End', type: 'datetime' },
    { key: 'all_day', name: 'All day', type: 'checkbox' },
    {
      key: 'status',
      name: 'Status',
      type: 'single_select',
      options: { choices: [{ label: 'TENTATIVE', color: 'yellow' }, { label: 'CONFIRMED', color: 'green' }, { label: 'CANCELLED', color: 'red' }] },
    },
    { key: 'organizer', name: 'Organizer', type: 'email' },
    { key: 'url', name: 'URL', type: 'url' },
    { key: 'recurring', name: 'Recurring', type: 'checkbox' },
    { key: 'updated', name: 'Updated', type: 'datetime' },
  ];
}
