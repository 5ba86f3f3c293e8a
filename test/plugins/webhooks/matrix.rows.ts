import type { MatrixRow, SignedUpUser, TestKernel, World } from '../../../core/testing.ts';

/**
 * The webhooks plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * Admins only (the tokens are the admin's: only the `admin` scope reaches them). Every webhook made here is disabled
 * and points at a documentation address: nothing is ever sent.
 */
export const plugin = 'webhooks';

const TARGET = { url: 'https://203.0.113.10/hook', events: ['record.created'], enabled: false };
const hooks = (ws: string) => `/workspaces/${ws}/webhooks`;

/** A new disabled webhook of `ws` made by its admin `by`, with one delivery in its log. */
async function made(t: TestKernel, ws: string, by: SignedUpUser): Promise<{ id: string; delivery: string }> {
  const res = await t.request.post(`/api/v1${hooks(ws)}`).set(by.auth).send(TARGET);
  if (res.status !== 201) throw new Error(`webhook creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  const [delivery] = await t.db('webhook_deliveries')
    .insert({ webhook_id: res.body.id, event_id: 1, event_type: 'record.created', message_id: `msg_matrix_${res.body.id}`, body: '{}', status: 'failed', attempt: 1 })
    .returning('id');
  return { id: res.body.id, delivery: delivery.id };
}

const ours = async (w: World, t: TestKernel, suffix = '') => {
  const hook = await made(t, w.ws, w.people.admin);
  return { path: `${hooks(w.ws)}/${hook.id}${suffix.replace('{did}', hook.delivery)}` };
};
/** The outsider's webhook, named under this workspace. */
const theirs = async (w: World, t: TestKernel, suffix = '') => {
  const hook = await made(t, w.otherWs, w.people.outsider);
  return { path: `${hooks(w.ws)}/${hook.id}${suffix.replace('{did}', hook.delivery)}` };
};

const ADMIN_ONLY = (ok: number) => `404 ${ok} 403 403 403 403 403 403 403 ${ok} 404 401`;

export const rows: MatrixRow[] = [
  { route: 'POST /workspaces/{ws}/webhooks', expect: ADMIN_ONLY(201), request: (w) => ({ path: hooks(w.ws), body: TARGET }) },
  { route: 'GET /workspaces/{ws}/webhooks', expect: ADMIN_ONLY(200), request: (w) => ({ path: hooks(w.ws) }) },
  { route: 'GET /workspaces/{ws}/webhooks/{id}', expect: ADMIN_ONLY(200), request: (w, _c, t) => ours(w, t), foreign: (w, t) => theirs(w, t) },
  {
    route: 'PATCH /workspaces/{ws}/webhooks/{id}',
    expect: ADMIN_ONLY(200),
    request: async (w, _c, t) => ({ ...(await ours(w, t)), body: { events: ['record.updated'] } }),
    foreign: async (w, t) => ({ ...(await theirs(w, t)), body: { events: ['record.updated'] } }),
  },
  { route: 'DELETE /workspaces/{ws}/webhooks/{id}', expect: ADMIN_ONLY(204), request: (w, _c, t) => ours(w, t), foreign: (w, t) => theirs(w, t) },
  { route: 'POST /workspaces/{ws}/webhooks/{id}/sample', expect: ADMIN_ONLY(200), request: (w, _c, t) => ours(w, t, '/sample'), foreign: (w, t) => theirs(w, t, '/sample') },
  { route: 'GET /workspaces/{ws}/webhooks/{id}/deliveries', expect: ADMIN_ONLY(200), request: (w, _c, t) => ours(w, t, '/deliveries'), foreign: (w, t) => theirs(w, t, '/deliveries') },
  {
    route: 'POST /workspaces/{ws}/webhooks/{id}/deliveries/{did}/redeliver',
    expect: ADMIN_ONLY(202),
    request: (w, _c, t) => ours(w, t, '/deliveries/{did}/redeliver'),
    foreign: (w, t) => theirs(w, t, '/deliveries/{did}/redeliver'),
  },
];
