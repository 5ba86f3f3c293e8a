import assert from 'node:assert/strict';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import type { FieldTypeRegistry } from '../../../plugins/databases/public.ts';

type Pack = { resources: Record<string, Array<Record<string, any>>>; requires: Record<string, string>; [k: string]: unknown };

/** Options for the types whose defaults need something of the database (what a lookup reads). */
const OPTIONS: Record<string, Record<string, unknown>> = {
  single_select: { choices: [{ label: 'Todo' }, { label: 'Doing', color: 'yellow' }, { label: 'Done', color: 'green' }] },
  multi_select: { choices: [{ label: 'Red' }, { label: 'Blue' }] },
  currency: { code: 'EUR', symbol: '€', precision: 2 },
  number: { precision: 1 },
};

/** A cell each writable type accepts, as the API would be sent it. */
const CELLS: Record<string, unknown> = {
  text: 'Write the spec',
  long_text: 'Line one\nLine two',
  number: 4.5,
  decimal: 12.34,
  currency: 19.99,
  percent: 0.25,
  rating: 4,
  duration: 5400,
  checkbox: true,
  date: '2026-03-01',
  datetime: '2026-03-01T10:30:00.000Z',
  time: '09:15',
  email: 'ops@example.com',
  url: 'https://example.com/spec',
  phone: '+44 20 7946 0000',
  json: { steps: [1, 2, 3] },
  single_select: 'Doing',
  multi_select: ['Red', 'Blue'],
};

describe('packs: the round trip', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: SignedUpUser;
  let home: string;
  let away: string;
  const api = (ws: string, path: string) => `/api/v1/workspaces/${ws}${path}`;

  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t);
    home = (await createWorkspace(t, admin)).id;
    away = (await createWorkspace(t, admin)).id;
  });
  after(() => t.stop());

  /** A space with two related databases: a field of every type, a folder, views of every type, a lookup, a rollup, a count, an auto-link rule and records. */
  async function buildSpace(): Promise<{ space: string; tasks: string; projects: string }> {
    const post = async (path: string, body: object) => {
      const res = await t.request.post(api(home, path)).set(admin.auth).send(body);
      assert.equal(res.status, 201, `${path}: ${JSON.stringify(res.body)}`);
      return res.body;
    };
    const space = (await post('/spaces', { name: 'Operations', description: 'Where work happens' })).id;
    const folder = (await post(`/spaces/${space}/folders`, { name: 'Delivery' })).id;
    const projects = (await post('/databases', { name: 'Projects', space_id: space, folder_id: folder })).id;
    const tasks = (await post('/databases', { name: 'Tasks', space_id: space, description: 'Every task' })).id;
    const types = t.container.resolverFor('databases')('databases.fieldTypes') as FieldTypeRegistry;
    const plain = types.names().filter((name) => {
      const type = types.get(name)!;
      // A button needs an automation to exist, and packs leave it out (plugins/buttons/README.md).
      return !type.managedBy && !['count', 'lookup', 'rollup', 'created_at', 'updated_at', 'created_by', 'updated_by', 'button'].includes(name);
    });
    for (const type of plain) await post(`/databases/${tasks}/fields`, { name: `F ${type}`, api_name: `f_${type}`, type, options: OPTIONS[type] ?? {} });
    await post(`/databases/${projects}/fields`, { name: 'Budget', type: 'currency', options: { code: 'EUR' } });
    await post(`/databases/${projects}/fields`, { name: 'Code', type: 'text' });
    await post(`/databases/${tasks}/fields`, { name: 'Project code', type: 'text' });
    const relation = (await post('/relations', { from_database_id: tasks, to_database_id: projects, kind: 'one_to_many', from_field_name: 'Project', to_field_name: 'Tasks' })).id;
    await post(`/databases/${tasks}/fields`, { name: 'Project budget', api_name: 'project_budget', type: 'lookup', options: { link_field_id: 'project', target_field_id: 'budget' } });
    await post(`/databases/${projects}/fields`, { name: 'Open tasks', type: 'count', options: { link_field_id: 'tasks' } });
    await post(`/databases/${projects}/fields`, { name: 'Total rating', type: 'rollup', options: { link_field_id: 'tasks', target_field_id: 'f_rating', function: 'sum' } });
    await post(`/relations/${relation}/auto-link-rules`, { from_field_id: 'project_code', to_field_id: 'code', backfill: false });
    await post(`/databases/${tasks}/views`, { name: 'Board', type: 'kanban', group_by: 'f_single_select', filter: { field: 'f_single_select', op: 'is_any_of', value: ['Todo', 'Doing'] } });
    await post(`/databases/${tasks}/views`, { name: 'Calendar', type: 'calendar', options: { date_field: 'f_date' }, sorts: [{ field: 'f_number', direction: 'desc' }], hidden_fields: ['f_json'] });
    await post(`/databases/${tasks}/views`, { name: 'Intake', type: 'form', options: { title: 'New task', submit_label: 'Send', required_fields: ['f_text'] } });
    await post(`/databases/${projects}/views`, { name: 'Gallery', type: 'gallery', is_default: true });
    const project = (await post(`/databases/${projects}/records`, { values: { name: 'Apollo', budget: 1000, code: 'AP' } })).id;
    const cells: Record<string, unknown> = { name: 'First task', project: [project] };
    for (const type of plain) if (CELLS[type] !== undefined) cells[`f_${type}`] = CELLS[type];
    await post(`/databases/${tasks}/records`, { values: cells });
    await post(`/databases/${tasks}/records`, { values: { name: 'Second task', f_single_select: 'Todo' } });
    return { space, tasks, projects };
  }

  it('exports a space, installs it in another workspace and exports it again to the same pack', async () => {
    const { space } = await buildSpace();
    const pack: Pack = (await t.request.post(api(home, '/packs/export')).set(admin.auth).send({ space_ids: [space], include_records: true }).expect(200)).body;
    assert.deepEqual(Object.keys(pack.resources), ['space', 'folder', 'database', 'relation', 'field', 'select_option', 'record', 'auto_link_rule', 'view']);
    // Nothing in a pack is an id of the workspace it came from.
    const ids = await t.db('fields').whereIn('database_id', t.db('databases').where({ workspace_id: home }).select('id')).pluck('id');
    const text = JSON.stringify(pack);
    for (const id of [home, space, ...ids]) assert.ok(!text.includes(id), `the pack names ${id}`);

    if (process.env.SHOW_PACK) console.log(JSON.stringify(pack, null, 1));
    const installed = await t.request.post(api(away, '/packs/install')).set(admin.auth).send({ pack }).expect(201);
    const newSpace = installed.body.created.space[0].id;
    const again: Pack = (await t.request.post(api(away, '/packs/export')).set(admin.auth).send({ space_ids: [newSpace], include_records: true }).expect(200)).body;
    assert.deepEqual(again, pack);

    // What was installed works: the lookup reads through the installed link.
    const tasks = installed.body.created.database.find((d: { ref: string }) => d.ref === pack.resources.database.find((r) => r.name === 'Tasks')!.ref).id;
    const rows = (await t.request.get(api(away, `/databases/${tasks}/records`)).set(admin.auth).expect(200)).body.data;
    const first = rows.find((r: { values: { name: string } }) => r.values.name === 'First task');
    assert.deepEqual(first.values.project_budget, [1000]);
    assert.equal(first.values.project[0].title, 'Apollo');
  });
});
