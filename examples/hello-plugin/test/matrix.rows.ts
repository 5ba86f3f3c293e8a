import type { MatrixRow } from '../../../test/authorization/rows.ts';

/**
 * This plugin's rows of the authorization matrix (test/authorization), one per route. The matrix
 * counts them while the plugin is built in: copied to test/plugins/<id>/matrix.rows.ts by
 * `npm run new-plugin`. Statuses follow the callers' order written in MatrixRow.expect.
 */
export const plugin = 'hello';

export const rows: MatrixRow[] = [
  { route: 'GET /hello/greetings', expect: '200 200 200 200 200 200 200 200 200 200 200 401', request: () => ({ path: '/hello/greetings' }) },
  {
    route: 'POST /hello/greetings',
    expect: '201 201 201 201 201 201 201 403 201 201 201 401',
    request: () => ({ path: '/hello/greetings', body: { name: 'Ada' } }),
  },
];
