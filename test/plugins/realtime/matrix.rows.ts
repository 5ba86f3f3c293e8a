import type { MatrixRow } from '../../../core/testing.ts';

/**
 * The realtime plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * The stream listens to database D (in space S, which `guest_in` reads and `guest_out` does not); a stream let through
 * answers 200 and is closed at once.
 */
export const plugin = 'realtime';

export const rows: MatrixRow[] = [
  {
    route: 'GET /workspaces/{ws}/events',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/events`, query: { topics: `database:${w.databaseD}` }, stream: true }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/events`, query: { topics: `database:${w.foreign.database}` }, stream: true }),
  },
];
