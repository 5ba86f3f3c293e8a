import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel, type TestKernelOptions } from '../../../core/testing.ts';

/** A workspace with an admin (creator everywhere) and an editor, a database `Deals` (fields name, amount, stage, note) and another `Log`, and an outsider. */
export interface AutomationWorld {
  t: TestKernel;
  admin: SignedUpUser;
  editor: SignedUpUser;
  outsider: SignedUpUser;
  ws: string;
  db: string;
  logDb: string;
  api: (path: string) => string;
}

export async function automationWorld(opts: TestKernelOptions = {}): Promise<AutomationWorld> {
  const t = await startTestKernel(opts);
  const admin = await signUp(t, { name: 'Ada Admin' });
  const editor = await signUp(t, { name: 'Eddie Editor' });
  const outsider = await signUp(t, { name: 'Otto Outsider' });
  const ws = (await createWorkspace(t, admin, 'Acme')).id;
  await createWorkspace(t, outsider, 'Elsewhere');
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
  await joinWorkspace(t, admin, ws, editor, 'editor');
  const space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'S' }).expect(201)).body.id as string;
  const db = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Deals', space_id: space }).expect(201)).body.id as string;
  const logDb = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Log', space_id: space }).expect(201)).body.id as string;
  for (const field of [
    { name: 'Amount', api_name: 'amount', type: 'number' },
    { name: 'Stage', api_name: 'stage', type: 'text' },
    { name: 'Note', api_name: 'note', type: 'text' },
  ]) {
    await t.request.post(api(`/databases/${db}/fields`)).set(admin.auth).send(field).expect(201);
  }
  return { t, admin, editor, outsider, ws, db, logDb, api };
}
