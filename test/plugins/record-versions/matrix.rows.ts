import { randomUUID } from 'node:crypto';
import { perWorld, type MatrixRow, type TestKernel, type World } from '../../../core/testing.ts';

/**
 * The record-versions plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'record-versions';

/** A record of D with two versions that differ. */
async function changedRecord(t: TestKernel, w: World): Promise<string> {
  const records = `/api/v1/workspaces/${w.ws}/databases/${w.databaseD}/records`;
  const res = await t.request.post(records).set(w.people.creator.auth).send({ values: { name: 'Versioned', notes: 'first' } });
  if (res.status !== 201) throw new Error(`POST ${records} → ${res.status} ${JSON.stringify(res.body)}`);
  await t.request.patch(`${records}/${res.body.id}`).set(w.people.creator.auth).send({ values: { notes: 'second' } });
  return res.body.id;
}

/** Read by every caller of its read-only row: made once per world. */
const versionedRecord = perWorld(changedRecord);

export const rows: MatrixRow[] = [
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/{id}/versions',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${await versionedRecord(t, w)}/versions` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/versions` }),
  },
  {
    // Editors restore; a member or a guest of S reads versions but gets 403 here.
    route: 'POST /workspaces/{ws}/databases/{db}/records/{id}/versions/{v}/restore',
    expect: '404 201 201 201 403 403 404 403 201 201 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${await changedRecord(t, w)}/versions/1/restore`, body: {} }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/versions/1/restore`, body: {} }),
  },
];
