import { perWorld, type MatrixRow, type TestKernel, type World } from '../../../core/testing.ts';

/**
 * The automations plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * Creators of the database manage its automations and read their runs. Every automation made here is disabled (nothing runs)
 * but the inbound ones, whose runs fail harmlessly: their update_record has no record to write.
 */
export const plugin = 'automations';

const list = (ws: string) => `/workspaces/${ws}/automations`;
const RULE = (database: string) => ({ name: 'Matrix', database_id: database, trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: { notes: 'x' } }], enabled: false });

/** A disabled automation on D made by the creator, with one finished run. */
async function made(t: TestKernel, w: World): Promise<{ id: string; run: string }> {
  const res = await t.request.post(`/api/v1${list(w.ws)}`).set(w.people.creator.auth).send(RULE(w.databaseD));
  if (res.status !== 201) throw new Error(`automation creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  const [run] = await t.db('automation_runs')
    .insert({ automation_id: res.body.id, workspace_id: w.ws, status: 'succeeded', trigger: JSON.stringify({ type: 'record_created', record_id: null, event_id: null, before: null, after: null, depth: 0, chain: [] }) })
    .returning('id');
  return { id: res.body.id, run: run.id };
}

/** The same for a queued run (cancel succeeds once). */
async function queued(t: TestKernel, w: World): Promise<string> {
  const { id } = await made(t, w);
  const [run] = await t.db('automation_runs').insert({ automation_id: id, workspace_id: w.ws, status: 'queued', trigger: JSON.stringify({ type: 'record_created', record_id: null, event_id: null, before: null, after: null, depth: 0, chain: [] }) }).returning('id');
  return run.id;
}

/** The outsider's automation and run, named under this workspace. */
async function theirs(t: TestKernel, w: World): Promise<{ id: string; run: string }> {
  const res = await t.request.post(`/api/v1${list(w.otherWs)}`).set(w.people.outsider.auth).send(RULE(w.foreign.database));
  if (res.status !== 201) throw new Error(`automation creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  const [run] = await t.db('automation_runs').insert({ automation_id: res.body.id, workspace_id: w.otherWs, status: 'queued', trigger: JSON.stringify({ type: 'record_created', record_id: null, event_id: null, before: null, after: null, depth: 0, chain: [] }) }).returning('id');
  return { id: res.body.id, run: run.id };
}

/** A new enabled inbound automation on D: the path of its hook (a new token per caller, so no rate is shared). */
async function hookPath(t: TestKernel, w: World): Promise<string> {
  const res = await t.request.post(`/api/v1${list(w.ws)}`).set(w.people.creator.auth).send({ ...RULE(w.databaseD), trigger: { type: 'inbound_webhook' }, enabled: true });
  if (res.status !== 201) throw new Error(`automation creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  return new URL(res.body.hook_url).pathname.replace('/api/v1', '');
}

const CREATORS = (ok: number) => `404 ${ok} ${ok} 403 403 403 404 403 ${ok} ${ok} 404 401`;
/** Workspace-wide routes: a guest knows the workspace, so is refused (403) rather than kept in the dark. */
const CREATORS_WS = (ok: number) => `404 ${ok} ${ok} 403 403 403 403 403 ${ok} ${ok} 404 401`;

/** Read by every caller of the read-only rows: made once per world. */
const readAutomation = perWorld(made);

// A read token's ceiling is below creator, so it reads no automation either: automations are design, not data.
export const rows: MatrixRow[] = [
  { route: 'POST /workspaces/{ws}/automations', expect: CREATORS_WS(201), request: (w) => ({ path: list(w.ws), body: RULE(w.databaseD) }) },
  { route: 'GET /workspaces/{ws}/automations', expect: CREATORS_WS(200), request: (w) => ({ path: list(w.ws) }) },
  { route: 'GET /workspaces/{ws}/automations/{id}', expect: CREATORS(200), request: async (w, _c, t) => ({ path: `${list(w.ws)}/${(await readAutomation(t, w)).id}` }), foreign: async (w, t) => ({ path: `${list(w.ws)}/${(await theirs(t, w)).id}` }) },
  {
    route: 'PATCH /workspaces/{ws}/automations/{id}',
    expect: CREATORS(200),
    request: async (w, _c, t) => ({ path: `${list(w.ws)}/${(await made(t, w)).id}`, body: { name: 'Renamed' } }),
    foreign: async (w, t) => ({ path: `${list(w.ws)}/${(await theirs(t, w)).id}`, body: { name: 'Renamed' } }),
  },
  { route: 'DELETE /workspaces/{ws}/automations/{id}', expect: CREATORS(204), request: async (w, _c, t) => ({ path: `${list(w.ws)}/${(await made(t, w)).id}` }), foreign: async (w, t) => ({ path: `${list(w.ws)}/${(await theirs(t, w)).id}` }) },
  {
    route: 'POST /workspaces/{ws}/automations/{id}/rotate-hook',
    expect: CREATORS(409),
    request: async (w, _c, t) => ({ path: `${list(w.ws)}/${(await made(t, w)).id}/rotate-hook` }),
    foreign: async (w, t) => ({ path: `${list(w.ws)}/${(await theirs(t, w)).id}/rotate-hook` }),
  },
  {
    route: 'POST /workspaces/{ws}/automations/{id}/dry-run',
    expect: CREATORS(200),
    request: async (w, _c, t) => {
      const record = await t.request.post(`/api/v1/workspaces/${w.ws}/databases/${w.databaseD}/records`).set(w.people.creator.auth).send({ values: { name: 'Dry' } });
      return { path: `${list(w.ws)}/${(await made(t, w)).id}/dry-run`, body: { record_id: record.body.id } };
    },
    foreign: async (w, t) => ({ path: `${list(w.ws)}/${(await theirs(t, w)).id}/dry-run`, body: { record_id: '00000000-0000-4000-8000-000000000000' } }),
  },
  { route: 'GET /workspaces/{ws}/automations/{id}/runs', expect: CREATORS(200), request: async (w, _c, t) => ({ path: `${list(w.ws)}/${(await readAutomation(t, w)).id}/runs` }), foreign: async (w, t) => ({ path: `${list(w.ws)}/${(await theirs(t, w)).id}/runs` }) },
  { route: 'GET /workspaces/{ws}/runs/{id}', expect: CREATORS(200), request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/runs/${(await readAutomation(t, w)).run}` }), foreign: async (w, t) => ({ path: `/workspaces/${w.ws}/runs/${(await theirs(t, w)).run}` }) },
  // The token is the credential: whoever holds it, signed in or not, starts a run.
  { route: 'POST /hooks/{token}', expect: '202 202 202 202 202 202 202 202 202 202 202 202', request: async (w, _c, t) => ({ path: await hookPath(t, w), body: {} }) },
  { route: 'POST /workspaces/{ws}/runs/{id}/cancel', expect: CREATORS(200), request: async (w, _c, t) => ({ path: `/workspaces/${w.ws}/runs/${await queued(t, w)}/cancel` }), foreign: async (w, t) => ({ path: `/workspaces/${w.ws}/runs/${(await theirs(t, w)).run}/cancel` }) },
];
