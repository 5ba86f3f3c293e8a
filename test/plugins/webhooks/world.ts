import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel, type TestKernelOptions } from '../../../core/testing.ts';

/** A workspace with an admin and an editor, a database `Deals` in a space, and an outsider with a workspace of its own. */
export interface WebhookWorld {
  t: TestKernel;
  admin: SignedUpUser;
  editor: SignedUpUser;
  outsider: SignedUpUser;
  ws: string;
  otherWs: string;
  space: string;
  db: string;
  otherDb: string;
  api: (path: string) => string;
}

export async function webhookWorld(opts: TestKernelOptions): Promise<WebhookWorld> {
  const t = await startTestKernel(opts);
  const admin = await signUp(t, { name: 'Ada Admin' });
  const editor = await signUp(t, { name: 'Eddie Editor' });
  const outsider = await signUp(t, { name: 'Otto Outsider' });
  const ws = (await createWorkspace(t, admin, 'Acme')).id;
  const otherWs = (await createWorkspace(t, outsider, 'Elsewhere')).id;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
  await joinWorkspace(t, admin, ws, editor, 'editor');
  const space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'S' }).expect(201)).body.id as string;
  const db = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Deals', space_id: space }).expect(201)).body.id as string;
  const otherDb = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Other', space_id: space }).expect(201)).body.id as string;
  return { t, admin, editor, outsider, ws, otherWs, space, db, otherDb, api };
}
