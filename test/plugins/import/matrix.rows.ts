import { randomUUID } from 'node:crypto';
import { perWorld, type MatrixRow, type TestKernel, type World } from '../../../core/testing.ts';

/**
 * The import plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'import';

const importPath = (w: World, database = w.databaseD) => `/workspaces/${w.ws}/databases/${database}/import`;

/** An import into D, made by its creator, for the status route to read. */
async function anImport(t: TestKernel, w: World): Promise<string> {
  const res = await t.request
    .post(`/api/v1${importPath(w)}`)
    .set(w.people.creator.auth)
    .attach('file', Buffer.from('notes\nfrom the matrix\n'), { filename: 'a.csv', contentType: 'text/csv' })
    .field('mapping', JSON.stringify({ notes: 'notes' }));
  if (res.status !== 201) throw new Error(`import failed: ${res.status} ${JSON.stringify(res.body)}`);
  const run = await t.db('import_runs').where({ database_id: w.databaseD }).orderBy('created_at', 'desc').first('id');
  return run.id as string;
}

const file = { bytes: Buffer.from('notes\nhello\n'), filename: 'a.csv', type: 'text/csv' };

/** Read by every caller of its read-only row: made once per world. */
const readImport = perWorld(anImport);

export const rows: MatrixRow[] = [
  {
    // Editors import. The matrix sends the file alone: past the permission checks, a file without its `mapping` part is a 422.
    route: 'POST /workspaces/{ws}/databases/{db}/import',
    expect: '404 422 422 422 403 403 404 403 422 422 404 401',
    request: (w) => ({ path: importPath(w), file }),
    foreign: (w) => ({ path: importPath(w, w.foreign.database), file }),
  },
  {
    // Whoever reads the database reads its imports.
    route: 'GET /workspaces/{ws}/databases/{db}/imports/{id}',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/imports/${await readImport(t, w)}` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/imports/${randomUUID()}` }),
  },
];
