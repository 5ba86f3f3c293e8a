import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { signUp, type SignedUpUser } from '../../../core/testing.ts';
import { recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

interface Change {
  field: string | null;
  name: string;
  before: unknown;
  after: unknown;
}
interface Entry {
  id: string;
  type: string;
  actor: { id: string; name: string } | null;
  workspace_id: string;
  database_id: string;
  record_id: string | null;
  changes: Change[];
  origin: { type: string; id: string | null };
  created_at: string;
}

describe('activity', () => {
  let w: RecordsWorld;
  let fieldId: Record<string, string>;
  const api = (path: string) => `/api/v1/workspaces/${w.ws}${path}`;
  const create = async (values: Record<string, unknown>, user = w.editor) => (await w.t.request.post(w.url()).set(user.auth).send({ values }).expect(201)).body as { id: string; version: number };
  const patch = (id: string, body: object, user = w.editor) => w.t.request.patch(w.url(`/${id}`)).set(user.auth).send(body);
  const recordActivity = async (id: string, query = '', user = w.member): Promise<{ data: Entry[]; next_cursor: string | null }> =>
    (await w.t.request.get(w.url(`/${id}/activity${query}`)).set(user.auth).expect(200)).body;
  const workspaceActivity = async (query = '', user: SignedUpUser = w.admin): Promise<Entry[]> => (await w.t.request.get(api(`/activity${query}`)).set(user.auth).expect(200)).body.data;
  // Record entries only: the world's field entries arrive on their own time.
  const stored = () => w.t.db('activity_entries').whereNotNull('record_id').count<{ count: string }[]>('* as count').first().then((r) => Number(r!.count));

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
    fieldId = {};
    for (const f of await w.t.db('fields').where({ database_id: w.db }).select('id', 'api_name')) fieldId[f.api_name] = f.id;
  });

  it('tells a record created, patched (field by field, with the names the fields had then), deleted and restored', async () => {
    const r = await create({ name: 'First', score: 1.5, done: false });
    await patch(r.id, { values: { score: 2 } }).expect(200);
    await w.t.request.patch(`/api/v1/workspaces/${w.ws}/databases/${w.db}/fields/score`).set(w.admin.auth).send({ name: 'Points' }).expect(200);
    await patch(r.id, { values: { score: 3, name: 'Renamed' } }).expect(200);
    // The same values again: nothing changed, nothing told.
    await patch(r.id, { values: { score: 3 } }).expect(200);
    await w.t.request.delete(w.url(`/${r.id}`)).set(w.editor.auth).expect(204);
    await w.t.request.post(w.url('/restore')).set(w.editor.auth).send({ ids: [r.id] }).expect(200);

    const { data, next_cursor } = await recordActivity(r.id);
    assert.equal(next_cursor, null);
    assert.deepEqual(data.map((e) => e.type), ['record.restored', 'record.deleted', 'record.updated', 'record.updated', 'record.created']);
    const [restored, deleted, second, first, created] = data;
    // A creation lists no cells: its values are the record's first version.
    assert.deepEqual(created.changes, []);
    assert.deepEqual(first.changes, [{ field: fieldId.score, name: 'Score', before: 1.5, after: 2 }]);
    assert.deepEqual(
      second.changes.sort((a, b) => a.name.localeCompare(b.name)),
      [
        { field: fieldId.name, name: 'Name', before: 'First', after: 'Renamed' },
        { field: fieldId.score, name: 'Points', before: 2, after: 3 },
      ],
    );
    assert.deepEqual([deleted.changes, restored.changes], [[], []]);
    for (const e of data) {
      assert.deepEqual(e.actor, { id: w.editor.id, name: 'Eddie' });
      assert.deepEqual(e.origin, { type: 'user', id: w.editor.id });
      assert.deepEqual([e.workspace_id, e.database_id, e.record_id], [w.ws, w.db, r.id]);
      assert.ok(!Number.isNaN(Date.parse(e.created_at)));
    }
  });

  it('writes one entry per record of a bulk create and a bulk patch', async () => {
    const made = (await w.t.request.post(w.url()).set(w.editor.auth).send({ records: [{ values: { name: 'a' } }, { values: { name: 'b' } }, { values: { name: 'c' } }] }).expect(201)).body.data as Array<{ id: string }>;
    const res = await w.t.request
      .patch(w.url())
      .set(w.editor.auth)
      .send({ records: [{ id: made[0].id, values: { score: 1 } }, { id: made[1].id, values: { score: 2 } }, { id: randomUUID(), values: { score: 3 } }] })
      .expect(200);
    assert.equal(res.body.errors.length, 1);
    const entries = await workspaceActivity(`?database_id=${w.db}`);
    assert.equal(entries.filter((e) => e.type === 'record.created').length, 3);
    const updated = entries.filter((e) => e.type === 'record.updated');
    assert.deepEqual(updated.map((e) => e.record_id).sort(), [made[0].id, made[1].id].sort());
    assert.deepEqual((await recordActivity(made[2].id)).data.map((e) => e.type), ['record.created']);
  });

  it('keeps no entry of a write that failed (422, 409)', async () => {
    const r = await create({ name: 'Kept' });
    const before = await stored();
    await patch(r.id, { values: { score: 'not a number' } }).expect(422);
    await patch(r.id, { values: { score: 5 }, version: r.version + 7 }).expect(409);
    await w.t.request.post(w.url()).set(w.editor.auth).send({ records: [{ values: { name: 'ok' } }, { values: { owner: randomUUID() } }] }).expect(422);
    assert.equal(await stored(), before);
    assert.deepEqual((await recordActivity(r.id)).data.map((e) => e.type), ['record.created']);
  });

  it('pages a record’s trail newest first', async () => {
    const r = await create({ name: 'Paged', score: 0 });
    for (let i = 1; i <= 4; i++) await patch(r.id, { values: { score: i } }).expect(200);
    const seen: unknown[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: Entry[]; next_cursor: string | null } = await recordActivity(r.id, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.data.map((e) => e.changes.find((c) => c.field === fieldId.score)?.after));
      cursor = page.next_cursor;
    } while (cursor);
    assert.deepEqual(seen, [4, 3, 2, 1, undefined]);
    await w.t.request.get(w.url(`/${r.id}/activity?cursor=bm9wZQ`)).set(w.member.auth).expect(422);
  });

  it('answers 404 for a record unknown in the database, and to whoever cannot see the workspace', async () => {
    const r = await create({ name: 'Mine' });
    await w.t.request.get(w.url(`/${randomUUID()}/activity`)).set(w.member.auth).expect(404);
    await w.t.request.get(w.url(`/${r.id}/activity`)).set(w.outsider.auth).expect(404);
    await w.t.request.get(api('/activity')).set(w.outsider.auth).expect(404);
  });

  it('filters the workspace trail by database, actor and type, and shows a guest only its spaces', async () => {
    const other = (await w.t.request.post(api('/spaces')).set(w.admin.auth).send({ name: 'Other' }).expect(201)).body.id;
    const db2 = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'Elsewhere', space_id: other }).expect(201)).body.id;
    const here = await create({ name: 'Here' });
    await patch(here.id, { values: { score: 1 } }, w.admin).expect(200);
    const there = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases/${db2}/records`).set(w.admin.auth).send({ values: { name: 'There' } }).expect(201)).body;

    const records = (entries: Entry[]) => entries.filter((e) => e.type.startsWith('record.')).map((e) => `${e.type} ${e.record_id}`);
    assert.deepEqual(records(await workspaceActivity()), [`record.created ${there.id}`, `record.updated ${here.id}`, `record.created ${here.id}`]);
    assert.deepEqual(records(await workspaceActivity(`?database_id=${db2}`)), [`record.created ${there.id}`]);
    assert.deepEqual(records(await workspaceActivity(`?actor_id=${w.editor.id}`)), [`record.created ${here.id}`]);
    assert.deepEqual(records(await workspaceActivity('?type=record.updated')), [`record.updated ${here.id}`]);
    await w.t.request.get(api('/activity?type=nope')).set(w.admin.auth).expect(422);

    const guest = await signUp(w.t, { name: 'Gus' });
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    await w.t.db('workspace_members').insert({ workspace_id: w.ws, user_id: guest.id, role: 'guest', space_ids: [space] });
    assert.deepEqual(records(await workspaceActivity('', guest)), [`record.updated ${here.id}`, `record.created ${here.id}`]);
    assert.deepEqual(records(await workspaceActivity(`?database_id=${db2}`, guest)), []);
    await w.t.request.get(`/api/v1/workspaces/${w.ws}/databases/${db2}/records/${there.id}/activity`).set(guest.auth).expect(404);
    assert.equal((await recordActivity(here.id, '', guest)).data.length, 2);
  });

  it('hides from a guest the cells of links into a space it was not given, in the trail and in versions', async () => {
    const other = (await w.t.request.post(api('/spaces')).set(w.admin.auth).send({ name: 'Vault space' }).expect(201)).body.id;
    const vault = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'Vault', space_id: other }).expect(201)).body.id;
    await w.t.request.post(api('/relations')).set(w.admin.auth).send({ from_database_id: w.db, to_database_id: vault, kind: 'many_to_many', from_field_name: 'Vault', to_field_name: 'Items' }).expect(201);
    const marker = `secret-${randomUUID()}`;
    const secret = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases/${vault}/records`).set(w.admin.auth).send({ values: { name: marker } }).expect(201)).body.id;
    const r = await create({ name: 'Soon links the vault' }, w.admin);
    await patch(r.id, { values: { name: 'Links the vault', vault: [secret] } }, w.admin).expect(200);
    const guest = await signUp(w.t, { name: 'Gus' });
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    await w.t.db('workspace_members').insert({ workspace_id: w.ws, user_id: guest.id, role: 'guest', space_ids: [space] });

    const mine = await recordActivity(r.id, '', w.admin);
    assert.ok(JSON.stringify(mine).includes(marker));
    for (const path of [w.url(`/${r.id}/activity`), w.url(`/${r.id}/versions`), api('/activity')]) {
      const res = await w.t.request.get(path).set(guest.auth).expect(200);
      assert.ok(!res.text.includes(marker) && !res.text.includes(secret) && !res.text.includes(vault), `${path} shows the guest what is in the vault`);
    }
    assert.deepEqual((await recordActivity(r.id, '', guest)).data[0].changes.map((c) => c.name), ['Name']);
  });

  it('tells field changes shortly after they commit, once each', async () => {
    const fields = `/api/v1/workspaces/${w.ws}/databases/${w.db}/fields`;
    const made = (await w.t.request.post(fields).set(w.admin.auth).send({ name: 'Notes', type: 'text' }).expect(201)).body;
    await w.t.request.patch(`${fields}/${made.id}`).set(w.admin.auth).send({ name: 'Remarks' }).expect(200);
    await w.t.request.delete(`${fields}/${made.id}`).set(w.admin.auth).expect(200);
    const entries = await waitUntil('the three field entries', async () => {
      const found = (await workspaceActivity(`?database_id=${w.db}`)).filter((e) => e.changes[0]?.field === made.id);
      return found.length === 3 && found;
    });
    const byType = Object.fromEntries(entries.map((e) => [e.type, e]));
    assert.deepEqual(Object.keys(byType).sort(), ['field.created', 'field.deleted', 'field.updated']);
    assert.deepEqual(byType['field.created'].changes, [{ field: made.id, name: 'Notes', before: null, after: { name: 'Notes', api_name: 'notes', type: 'text' } }]);
    assert.deepEqual(byType['field.updated'].changes, [
      { field: made.id, name: 'Remarks', before: { name: 'Notes', api_name: 'notes', type: 'text' }, after: { name: 'Remarks', api_name: 'notes', type: 'text' } },
    ]);
    assert.deepEqual(byType['field.deleted'].changes[0].after, null);
    assert.equal(byType['field.created'].record_id, null);
    assert.deepEqual(byType['field.created'].actor, { id: w.admin.id, name: 'Ada' });
  });

  it('lets the entries of a deleted database go with it', async () => {
    await create({ name: 'Gone soon' });
    assert.ok((await w.t.db('activity_entries').where({ database_id: w.db }).count('* as n').first())!.n !== '0');
    await w.t.request.delete(api(`/databases/${w.db}`)).set(w.admin.auth).send({ confirm: 'D' }).expect(204);
    assert.deepEqual(await w.t.db('activity_entries').where({ database_id: w.db }).select('id'), []);
  });
});
