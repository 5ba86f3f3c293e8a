import type { Caller, MatrixRow, Person, TestKernel, World } from '../../../core/testing.ts';

/**
 * The approvals plugin's rows. Statuses follow the callers' order:
 * root admin creator editor member guest_in guest_out pat_read pat_write pat_admin outsider anonymous.
 * Every route takes a session (tokens → 403). Each call gets a pending approval of its own whose approver is the
 * caller (a token's: its owner, the admin), on database D: who cannot read D (guest_out, root, the outsider) → 404.
 * No `foreign` rows: the matrix expects a token naming another workspace's resource to get 404, and these refuse
 * every token first (403); approvals.test.ts names one workspace's approval under another.
 */
export const plugin = 'approvals';

const TRIGGER = JSON.stringify({ type: 'record_created', record_id: null, event_id: null, before: null, after: null, depth: 0, chain: [] });

/** A pending approval in `ws` on `database`, its run waiting on it; the automation (by `by`) has no step after it. */
async function pending(t: TestKernel, ws: string, database: string, by: { auth: Record<string, string> }, approver: string): Promise<string> {
  const res = await t.request.post(`/api/v1/workspaces/${ws}/automations`).set(by.auth).send({ name: 'Matrix', database_id: database, trigger: { type: 'record_created' }, actions: [{ type: 'update_record', values: {} }], enabled: false });
  if (res.status !== 201) throw new Error(`automation creation failed: ${res.status} ${JSON.stringify(res.body)}`);
  const at = new Date().toISOString();
  const [run] = await t.db('automation_runs')
    .insert({ automation_id: res.body.id, workspace_id: ws, status: 'waiting_for_approval', trigger: TRIGGER, steps: JSON.stringify([{ action: 'request_approval', status: 'running', output: null, error: null, started_at: at, finished_at: null }]) })
    .returning('id');
  const [approval] = await t.db('approvals')
    .insert({ workspace_id: ws, run_id: run.id, automation_id: res.body.id, database_id: database, text: 'Matrix?', approver_ids: JSON.stringify([approver]), expires_at: t.db.raw("now() + interval '1 hour'") })
    .returning('id');
  return approval.id;
}

const approverOf = (w: World, caller: Caller) => (caller.startsWith('pat_') || caller === 'anonymous' ? w.people.admin : w.people[caller as Person]).id;
const mine = (w: World, caller: Caller, t: TestKernel) => pending(t, w.ws, w.databaseD, w.people.creator, approverOf(w, caller));

const APPROVERS = '404 200 200 200 200 200 404 403 403 403 404 401';
const base = (w: World) => `/workspaces/${w.ws}/approvals`;

export const rows: MatrixRow[] = [
  { route: 'GET /workspaces/{ws}/approvals', expect: '404 200 200 200 200 200 200 403 403 403 404 401', request: (w) => ({ path: base(w) }) },
  { route: 'GET /workspaces/{ws}/approvals/{id}', expect: APPROVERS, request: async (w, c, t) => ({ path: `${base(w)}/${await mine(w, c, t)}` }) },
  {
    route: 'POST /workspaces/{ws}/approvals/{id}/approve',
    expect: APPROVERS,
    request: async (w, c, t) => ({ path: `${base(w)}/${await mine(w, c, t)}/approve`, body: { comment: 'Yes.' } }),
  },
  {
    route: 'POST /workspaces/{ws}/approvals/{id}/reject',
    expect: APPROVERS,
    request: async (w, c, t) => ({ path: `${base(w)}/${await mine(w, c, t)}/reject`, body: { comment: 'No.' } }),
  },
];
