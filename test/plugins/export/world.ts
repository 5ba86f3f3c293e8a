import { binary } from '../../fixtures/uploads.ts';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';

/** A workspace with an admin, an editor, a member, a guest of space S and an outsider; database D in S. */
export interface ExportWorld {
  t: TestKernel;
  admin: SignedUpUser;
  editor: SignedUpUser;
  member: SignedUpUser;
  guest: SignedUpUser;
  outsider: SignedUpUser;
  ws: string;
  otherWs: string;
  space: string;
  db: string;
  api: (path: string) => string;
}

export async function exportWorld(t: TestKernel): Promise<ExportWorld> {
  await signUp(t, { name: 'Root' });
  const admin = await signUp(t, { name: 'Ada Admin' });
  const editor = await signUp(t, { name: 'Eddie Editor' });
  const member = await signUp(t, { name: 'Mia Member' });
  const guest = await signUp(t, { name: 'Gus Guest' });
  const outsider = await signUp(t, { name: 'Otto Outsider' });
  const ws = (await createWorkspace(t, admin, 'Acme')).id;
  const otherWs = (await createWorkspace(t, outsider, 'Elsewhere')).id;
  const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
  const space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'S' }).expect(201)).body.id as string;
  await joinWorkspace(t, admin, ws, editor, 'editor');
  await joinWorkspace(t, admin, ws, member, 'member');
  await joinWorkspace(t, admin, ws, guest, 'guest', [space]);
  const db = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Deals', space_id: space }).expect(201)).body.id as string;
  return { t, admin, editor, member, guest, outsider, ws, otherWs, space, db, api };
}

export { startTestKernel };

/** GET `path` with its body as bytes: supertest collects a binary body only when asked to. */
export function download(t: TestKernel, path: string, auth: Record<string, string> = {}) {
  return t.request.get(path).set(auth).buffer(true).parse(binary);
}
