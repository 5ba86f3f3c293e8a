import type { ConfigInput } from '../../../core/config.ts';
import { startTestKernel, type TestKernel, createWorkspace, signUp, type SignedUpUser } from '../../../core/testing.ts';

/** A workspace with an admin (who makes the database), an editor and a member, and database D with a few fields. */
export interface RecordsWorld {
  t: TestKernel;
  admin: SignedUpUser;
  editor: SignedUpUser;
  member: SignedUpUser;
  outsider: SignedUpUser;
  ws: string;
  db: string;
  table: string;
  /** Column name by api_name. */
  column: Record<string, string>;
  /** `/api/v1/workspaces/{ws}/databases/{db}/records` + path. */
  url: (path?: string) => string;
}

/**
 * `config`: the kernel's, when a test needs other options (a plugin's limits, jobs off). `kernel`: a running kernel to
 * build the world in (a suite's, see test/fixtures/suite-kernel.ts) instead of a new one; its `config` is the kernel's.
 */
export async function recordsWorld(config?: ConfigInput, kernel?: TestKernel): Promise<RecordsWorld> {
  const t = kernel ?? (await startTestKernel(config ? { config } : {}));
  const admin = await signUp(t, { name: 'Ada' });
  const editor = await signUp(t, { name: 'Eddie' });
  const member = await signUp(t, { name: 'Mia' });
  const outsider = await signUp(t, { name: 'Otto' });
  const ws = (await createWorkspace(t, admin)).id;
  await t.db('workspace_members').insert([
    { workspace_id: ws, user_id: editor.id, role: 'editor' },
    { workspace_id: ws, user_id: member.id, role: 'member' },
  ]);
  const space = (await t.request.post(`/api/v1/workspaces/${ws}/spaces`).set(admin.auth).send({ name: 'S' }).expect(201)).body.id;
  const db = (await t.request.post(`/api/v1/workspaces/${ws}/databases`).set(admin.auth).send({ name: 'D', space_id: space }).expect(201)).body.id;
  const fields = `/api/v1/workspaces/${ws}/databases/${db}/fields`;
  for (const body of [
    { name: 'Score', type: 'number', options: { precision: 1 } },
    { name: 'Done', type: 'checkbox' },
    { name: 'Owner', type: 'user' },
    { name: 'Stage', type: 'single_select', options: { choices: [{ label: 'Open' }, { label: 'Closed' }] } },
  ]) {
    await t.request.post(fields).set(admin.auth).send(body).expect(201);
  }
  const table = (await t.db('databases').where({ id: db }).first('table_name')).table_name;
  const column: Record<string, string> = {};
  for (const f of await t.db('fields').where({ database_id: db }).select('api_name', 'column_name')) column[f.api_name] = f.column_name;
  const url = (path = '') => `/api/v1/workspaces/${ws}/databases/${db}/records${path}`;
  return { t, admin, editor, member, outsider, ws, db, table, column, url };
}

export const pointers = (res: { body: { errors?: Array<{ pointer: string }> } }) => (res.body.errors ?? []).map((e) => e.pointer);
