import type { MatrixRow, TestKernel, World } from '../../../core/testing.ts';

/**
 * The sources plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * The sources here are stored directly on database D (in space S, which `guest_in` reads and `guest_out` does not), of
 * a kind no built-in plugin offers: no row depends on reaching a provider, and a run started here fails on its own.
 */
export const plugin = 'sources';

const sources = (ws: string) => `/workspaces/${ws}/sources`;

/** A source of `ws` writing `database`. */
async function made(t: TestKernel, ws: string, database: string): Promise<string> {
  const [{ id }] = await t.db('sources')
    .insert({ workspace_id: ws, database_id: database, kind: 'matrix.rows', name: 'Matrix', config: '{}', fields: '{}', schedule: 'manual', delete_policy: 'keep', status: 'idle' })
    .returning('id');
  return id;
}

const ours = async (w: World, t: TestKernel, suffix = '') => ({ path: `${sources(w.ws)}/${await made(t, w.ws, w.databaseD)}${suffix}` });
/** The outsider's source, named under this workspace. */
const theirs = async (w: World, t: TestKernel, suffix = '') => ({ path: `${sources(w.ws)}/${await made(t, w.otherWs, w.foreign.database)}${suffix}` });

const READERS = '404 200 200 200 200 200 404 200 200 200 404 401';
const CREATORS = (ok: number) => `404 ${ok} ${ok} 403 403 403 404 403 ${ok} ${ok} 404 401`;

export const rows: MatrixRow[] = [
  // Allowed callers reach validation: no provider plugin offers the kind.
  { route: 'POST /workspaces/{ws}/sources', expect: '404 422 422 422 422 422 422 403 422 422 404 401', request: (w) => ({ path: sources(w.ws), body: { kind: 'no.such', name: 'Nothing', config: {} } }) },
  { route: 'GET /workspaces/{ws}/sources', expect: '404 200 200 200 200 200 200 200 200 200 404 401', request: (w) => ({ path: sources(w.ws) }) },
  { route: 'GET /workspaces/{ws}/sources/{id}', expect: READERS, request: (w, _c, t) => ours(w, t), foreign: (w, t) => theirs(w, t) },
  {
    route: 'PATCH /workspaces/{ws}/sources/{id}',
    expect: CREATORS(200),
    request: async (w, _c, t) => ({ ...(await ours(w, t)), body: { name: 'Renamed' } }),
    foreign: async (w, t) => ({ ...(await theirs(w, t)), body: { name: 'Renamed' } }),
  },
  { route: 'DELETE /workspaces/{ws}/sources/{id}', expect: CREATORS(204), request: (w, _c, t) => ours(w, t), foreign: (w, t) => theirs(w, t) },
  {
    route: 'POST /workspaces/{ws}/sources/{id}/sync',
    expect: '404 202 202 202 403 403 404 403 202 202 404 401',
    request: async (w, _c, t) => ({ ...(await ours(w, t, '/sync')), body: {} }),
    foreign: async (w, t) => ({ ...(await theirs(w, t, '/sync')), body: {} }),
  },
  { route: 'GET /workspaces/{ws}/sources/{id}/runs', expect: READERS, request: (w, _c, t) => ours(w, t, '/runs'), foreign: (w, t) => theirs(w, t, '/runs') },
];
