import type { MatrixRow } from '../../../core/testing.ts';

/**
 * The indexes plugin's rows of the authorization matrix, on database D (in space S, which `guest_out` cannot see).
 * Statuses: root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'indexes';

export const rows: MatrixRow[] = [
  {
    route: 'GET /workspaces/{ws}/databases/{db}/indexes',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/indexes` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/indexes` }),
  },
  {
    route: 'PUT /workspaces/{ws}/databases/{db}/indexes/{field}',
    expect: '404 200 200 403 403 403 404 403 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/indexes/notes`, body: { mode: 'auto' } }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/indexes/name`, body: { mode: 'auto' } }),
  },
];
