import { perWorld, type MatrixRow, type TestKernel, type World } from '../../../core/testing.ts';

/**
 * The buttons plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * Editors press; the matrix's tokens are made without `allow_run_button`, so every token is refused.
 */
export const plugin = 'buttons';

async function creatorPost(t: TestKernel, w: World, path: string, body: object): Promise<{ id: string; api_name?: string }> {
  const res = await t.request.post(`/api/v1/workspaces/${w.ws}${path}`).set(w.people.creator.auth).send(body);
  if (res.status >= 300) throw new Error(`POST ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** One button on D per world (its automation changes nothing it can find), pressed on a new record each time. */
const buttonOf = perWorld(async (t: TestKernel, w: World): Promise<string> => {
  const automation = await creatorPost(t, w, '/automations', { name: 'Matrix button', database_id: w.databaseD, trigger: { type: 'button' }, actions: [{ type: 'update_record', values: {} }], enabled: true });
  return (await creatorPost(t, w, `/databases/${w.databaseD}/fields`, { name: 'Matrix press', type: 'button', options: { label: 'Press', automation_id: automation.id } })).api_name!;
});

export const rows: MatrixRow[] = [
  {
    route: 'POST /workspaces/{ws}/databases/{db}/records/{id}/buttons/{field}/press',
    expect: '404 202 202 202 403 403 404 403 403 403 404 401',
    request: async (w, _c, t) => {
      const button = await buttonOf(t, w);
      const record = await creatorPost(t, w, `/databases/${w.databaseD}/records`, { values: { name: 'Press me' } });
      return { path: `/workspaces/${w.ws}/databases/${w.databaseD}/records/${record.id}/buttons/${button}/press` };
    },
    foreign: (w) => ({ path: `/workspaces/${w.ws}/databases/${w.foreign.database}/records/00000000-0000-4000-8000-000000000000/buttons/x/press` }),
  },
];
