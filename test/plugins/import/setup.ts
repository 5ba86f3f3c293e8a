import { startTestKernel, createWorkspace, signUp, type SignedUpUser, type TestKernel, type TestKernelOptions } from '../../../core/testing.ts';

/** A workspace with an admin, a creator, an editor and a member, and database D with a title field and a few typed fields. */
export interface ImportWorld {
  t: TestKernel;
  admin: SignedUpUser;
  creator: SignedUpUser;
  editor: SignedUpUser;
  member: SignedUpUser;
  outsider: SignedUpUser;
  ws: string;
  db: string;
  /** `/api/v1/workspaces/{ws}/databases/{db}` + path. */
  url: (path?: string) => string;
}

export async function importWorld(opts: TestKernelOptions = {}): Promise<ImportWorld> {
  const t = await startTestKernel(opts);
  const [admin, creator, editor, member, outsider] = await Promise.all(['Ada', 'Cleo', 'Eddie', 'Mia', 'Otto'].map((name) => signUp(t, { name })));
  const ws = (await createWorkspace(t, admin)).id;
  await t.db('workspace_members').insert([
    { workspace_id: ws, user_id: creator.id, role: 'creator' },
    { workspace_id: ws, user_id: editor.id, role: 'editor' },
    { workspace_id: ws, user_id: member.id, role: 'member' },
  ]);
  const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
  const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
  const url = (path = '') => `/api/v1/workspaces/${ws}/databases/${db}${path}`;
  for (const body of [
    { name: 'Code', type: 'text' },
    { name: 'Amount', type: 'number', options: { precision: 2 } },
    { name: 'Done', type: 'checkbox' },
    { name: 'Due', type: 'date' },
  ]) {
    await t.request.post(url('/fields')).set(admin.auth).send(body).expect(201);
  }
  return { t, admin, creator, editor, member, outsider, ws, db, url };
}

/** The import request: `csv` as the file part, `mapping` as JSON, `dry_run` when given. */
export function sendImport(w: ImportWorld, who: SignedUpUser, csv: string | Buffer, mapping: unknown, dryRun?: boolean, db = w.db) {
  let req = w.t.request
    .post(`/api/v1/workspaces/${w.ws}/databases/${db}/import`)
    .set(who.auth)
    .attach('file', Buffer.isBuffer(csv) ? csv : Buffer.from(csv, 'utf8'), { filename: 'data.csv', contentType: 'text/csv' })
    .field('mapping', typeof mapping === 'string' ? mapping : JSON.stringify(mapping));
  if (dryRun !== undefined) req = req.field('dry_run', String(dryRun));
  return req;
}

/** Every live record of the database, in order, as the API shows them. */
export async function recordsOf(w: ImportWorld): Promise<Array<{ id: string; values: Record<string, unknown> }>> {
  const res = await w.t.request.get(w.url('/records')).query({ limit: '1000' }).set(w.admin.auth).expect(200);
  return res.body.data;
}

/** The live fields' api_names. */
export async function fieldNames(w: ImportWorld): Promise<string[]> {
  const res = await w.t.request.get(w.url('/fields')).set(w.admin.auth).expect(200);
  return res.body.data.map((f: { api_name: string }) => f.api_name);
}
