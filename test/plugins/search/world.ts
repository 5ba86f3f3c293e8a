import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';

/**
 * A workspace with an admin, a member, a guest of space S and an outsider (who has a workspace of its own); database
 * D in S with a text field `notes`, a long text `details` and a single select `stage`; database H in space T, which
 * the guest does not see.
 */
export interface SearchWorld {
  t: TestKernel;
  admin: SignedUpUser;
  member: SignedUpUser;
  guest: SignedUpUser;
  outsider: SignedUpUser;
  ws: string;
  otherWs: string;
  spaceS: string;
  spaceT: string;
  db: string;
  hidden: string;
  api: (path: string) => string;
  create: (db: string, values: Record<string, unknown>) => Promise<{ id: string; version: number }>;
  search: (user: SignedUpUser, query: Record<string, string | number>, ws?: string) => Promise<Array<{ type: string; id: string; title: string; snippet: string; database_id: string | null; space_id: string; score: number }>>;
}

/** `kernel`: a running kernel to build the world in (a suite's, see test/fixtures/suite-kernel.ts) instead of a new one. */
export async function searchWorld(kernel?: TestKernel): Promise<SearchWorld> {
  const t = kernel ?? (await startTestKernel({}));
  await signUp(t, { name: 'Root' });
  const admin = await signUp(t, { name: 'Ada Admin' });
  const member = await signUp(t, { name: 'Mia Member' });
  const guest = await signUp(t, { name: 'Gus Guest' });
  const outsider = await signUp(t, { name: 'Otto Outsider' });
  const ws = (await createWorkspace(t, admin, 'Acme')).id;
  const otherWs = (await createWorkspace(t, outsider, 'Elsewhere')).id;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
  const spaceS = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'Sales' }).expect(201)).body.id as string;
  const spaceT = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'Treasury' }).expect(201)).body.id as string;
  await joinWorkspace(t, admin, ws, member, 'member');
  await joinWorkspace(t, admin, ws, guest, 'guest', [spaceS]);
  const db = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Deals', space_id: spaceS }).expect(201)).body.id as string;
  const hidden = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Payroll', space_id: spaceT }).expect(201)).body.id as string;
  for (const body of [
    { name: 'Notes', type: 'text' },
    { name: 'Details', type: 'long_text' },
    { name: 'Stage', type: 'single_select', options: { choices: [{ label: 'Negotiation' }, { label: 'Closed' }] } },
    { name: 'Amount', type: 'number' },
  ]) {
    await t.request.post(api(`/databases/${db}/fields`)).set(admin.auth).send(body).expect(201);
  }
  await t.request.post(api(`/databases/${hidden}/fields`)).set(admin.auth).send({ name: 'Notes', type: 'text' }).expect(201);
  const create = async (database: string, values: Record<string, unknown>) =>
    (await t.request.post(api(`/databases/${database}/records`)).set(admin.auth).send({ values }).expect(201)).body as { id: string; version: number };
  // Records reach the index once their writes' events are fanned out: searched after that.
  const search = async (user: SignedUpUser, query: Record<string, string | number>, inWs = ws) =>
    (await t.kernel.events.settle(), await t.request.get(`/api/v1/workspaces/${inWs}/search`).query(query).set(user.auth).expect(200)).body.data;
  return { t, admin, member, guest, outsider, ws, otherWs, spaceS, spaceT, db, hidden, api, create, search };
}
