import type { MatrixRow } from '../../../core/testing.ts';

/**
 * The mentions plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'mentions';

export const rows: MatrixRow[] = [
  { route: 'GET /workspaces/{ws}/mentions', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: `/workspaces/${w.ws}/mentions` }) },
];
