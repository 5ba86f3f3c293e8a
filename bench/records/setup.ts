import { columnNameOf, tableNameOf } from '../../plugins/databases/names.ts';
import { addMember, createToken, expect, signUp, type Headers, type Person } from '../lib/api.ts';

export const STATUS_LABELS = ['Backlog', 'Todo', 'In progress', 'Review', 'Done'];

/** The ten typed fields of issue 4's benchmark; the title is the database's own title field. */
const FIELDS = [
  { name: 'Status', type: 'single_select', options: { choices: STATUS_LABELS.map((label) => ({ label })) } },
  { name: 'Priority', type: 'number', options: { precision: 0 } },
  { name: 'Amount', type: 'currency', options: { precision: 2 } },
  { name: 'Due', type: 'date' },
  { name: 'Done', type: 'checkbox' },
  { name: 'Owner', type: 'user' },
  { name: 'Email', type: 'email' },
  { name: 'Rating', type: 'rating', options: { max: 5 } },
  { name: 'Notes', type: 'long_text' },
] as const;

export type FieldKey = 'title' | 'status' | 'priority' | 'amount' | 'due' | 'done' | 'owner' | 'email' | 'rating' | 'notes';

export interface BenchDatabase {
  workspaceId: string;
  spaceId: string;
  /** `/api/v1/workspaces/{ws}/databases/{db}/records`, the `R` of API.md. */
  records: string;
  table: string;
  /** Physical column of each field. */
  columns: Record<FieldKey, string>;
  statusIds: string[];
  admin: Person;
  editor: Person;
  /** The editor's personal access token (scope `write`): every measured request carries it. */
  pat: Headers;
}

/** A database of the bench's fields (and title renamed `title`), made by `admin` in a space of workspace `ws`. */
export async function addBenchDatabase(
  api: string,
  admin: Person,
  ws: string,
  space: string,
  name: string,
): Promise<Pick<BenchDatabase, 'records' | 'table' | 'columns' | 'statusIds'> & { id: string }> {
  const database = await expect(201, 'database', `${api}/workspaces/${ws}/databases`, 'POST', admin.session, { name, space_id: space });
  const fieldsUrl = `${api}/workspaces/${ws}/databases/${database.id}/fields`;
  const title = database.fields.find((f: { is_title: boolean }) => f.is_title);
  await expect(200, 'title field rename', `${fieldsUrl}/${title.id}`, 'PATCH', admin.session, { name: 'Title', api_name: 'title' });
  const columns = { title: columnNameOf(title.id) } as Record<FieldKey, string>;
  let statusIds: string[] = [];
  for (const field of FIELDS) {
    const created = await expect(201, `field ${field.name}`, fieldsUrl, 'POST', admin.session, field);
    if (created.api_name !== field.name.toLowerCase()) throw new Error(`field ${field.name} got api_name ${created.api_name}`);
    columns[created.api_name as FieldKey] = columnNameOf(created.id);
    if (field.type === 'single_select') statusIds = created.options.choices.map((c: { id: string }) => c.id);
  }
  return { id: database.id, records: `/api/v1/workspaces/${ws}/databases/${database.id}/records`, table: tableNameOf(database.id), columns, statusIds };
}

/**
 * Everything through the API, as a user would: sign-up, workspace, space, database, the fields,
 * an editor invited and accepted, and the editor's token.
 */
export async function createBenchDatabase(server: string): Promise<BenchDatabase> {
  const api = `${server}/api/v1`;
  const admin = await signUp(api, 'Bench admin');
  const ws = (await expect(201, 'workspace', `${api}/workspaces`, 'POST', admin.session, { name: 'Bench' })).id;
  const space = (await expect(201, 'space', `${api}/workspaces/${ws}/spaces`, 'POST', admin.session, { name: 'Bench space' })).id;
  const { records, table, columns, statusIds } = await addBenchDatabase(api, admin, ws, space, 'Tasks');
  const editor = await addMember(api, admin.session, ws, 'editor');
  const pat = (await createToken(api, editor, ws, 'write')).header;
  return { workspaceId: ws, spaceId: space, records, table, columns, statusIds, admin, editor, pat };
}
