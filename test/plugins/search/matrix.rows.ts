import type { MatrixRow } from '../../../core/testing.ts';

/**
 * The search plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * Every member searches, a guest too (within what it sees). The query is the title of Vault's record, which
 * `guest_in` cannot see: the matrix checks that no answer to it holds that marker or Vault's id.
 */
export const plugin = 'search';

export const rows: MatrixRow[] = [
  {
    route: 'GET /workspaces/{ws}/search',
    expect: '404 200 200 200 200 200 200 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/search`, query: { q: w.vault?.marker ?? 'D' } }),
  },
];
