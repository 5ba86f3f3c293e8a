import { randomUUID } from 'node:crypto';
import { perWorld, type MatrixRow, type TestKernel, type World } from '../../../core/testing.ts';

/**
 * The activity plugin's rows of the authorization matrix. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 */
export const plugin = 'activity';

/** A record of D, created and changed by the creator, so that it has a trail. */
async function changedRecord(t: TestKernel, w: World): Promise<string> {
  const records = `/api/v1/workspaces/${w.ws}/databases/${w.databaseD}/records`;
  const res = await t.request.post(records).set(w.people.creator.auth).send({ values: { name: 'With a trail' } });
  if (res.status !== 201) throw new Error(`POST ${records} → ${res.status} ${JSON.stringify(res.body)}`);
  await t.request.patch(`${records}/${res.body.id}`).set(w.people.creator.auth).send({ values: { notes: 'changed' } });
  return res.body.id;
}

/** Read by every caller of its read-only row: made once per world. */
const trailedRecord = perWorld(changedRecord);

export const rows: MatrixRow[] = [
  {
    route: 'GET /workspaces/{ws}/databases/{db}/records/{id}/activity',
    expect: '404 200 200 200 200 200 404 200 200 200 404 401',
    request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${await trailedRecord(t, w)}/activity` }),
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/${randomUUID()}/activity` }),
  },
  {
    // Any member, a guest included, sees the entries of the databases it can see.
    route: 'GET /workspaces/{ws}/activity',
    expect: '404 200 200 200 200 200 200 200 200 200 404 401',
    request: (w) => ({ path: `/workspaces/${w.ws}/activity` }),
  },
];
