import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { pointers, recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

interface Version {
  version: number;
  values: Record<string, any>;
  changed_fields: string[];
  created_at: string;
  created_by: string | null;
  origin: { type: string; id: string | null; restored_from?: number };
}

describe('record versions', () => {
  let w: RecordsWorld;
  const api = (path: string) => `/api/v1/workspaces/${w.ws}${path}`;
  const fields = (path = '') => api(`/databases/${w.db}/fields${path}`);
  const create = async (values: Record<string, unknown>) => (await w.t.request.post(w.url()).set(w.editor.auth).send({ values }).expect(201)).body as { id: string; version: number };
  const patch = (id: string, body: object) => w.t.request.patch(w.url(`/${id}`)).set(w.editor.auth).send(body);
  const versions = async (id: string, query = '', user = w.member): Promise<Version[]> => (await w.t.request.get(w.url(`/${id}/versions${query}`)).set(user.auth).expect(200)).body.data;
  const restore = (id: string, v: number, body: object = {}, user = w.editor) => w.t.request.post(w.url(`/${id}/versions/${v}/restore`)).set(user.auth).send(body);
  const count = async () => Number((await w.t.db('record_versions').where({ workspace_id: w.ws }).count('* as n').first())!.n);

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
  });

  it('captures a version per write that changes a record, numbered from 1, newest first', async () => {
    const r = await create({ name: 'One', score: 1 });
    await patch(r.id, { values: { score: 2, stage: 'Open' } }).expect(200);
    // Nothing changed: no version.
    await patch(r.id, { values: { score: 2 } }).expect(200);
    const list = await versions(r.id);
    assert.deepEqual(list.map((v) => v.version), [2, 1]);
    const [second, first] = list;
    assert.deepEqual(first.values, { name: 'One', score: 1, done: false, owner: null, stage: null });
    assert.deepEqual(first.changed_fields, ['name', 'score']);
    assert.deepEqual(first.origin, { type: 'user', id: w.editor.id });
    assert.equal(first.created_by, w.editor.id);
    assert.equal(second.values.stage.label, 'Open');
    assert.deepEqual(second.changed_fields.sort(), ['score', 'stage']);
    const page = (await w.t.request.get(w.url(`/${r.id}/versions?limit=1`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(page.data.map((v: Version) => v.version), [2]);
    const next = (await w.t.request.get(w.url(`/${r.id}/versions?limit=1&cursor=${page.next_cursor}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual([next.data.map((v: Version) => v.version), next.next_cursor], [[1], null]);
  });

  it('captures the versions of bulk writes, and none of writes that failed', async () => {
    const made = (await w.t.request.post(w.url()).set(w.editor.auth).send({ records: [{ values: { name: 'a' } }, { values: { name: 'b' } }] }).expect(201)).body.data as Array<{ id: string; version: number }>;
    await w.t.request.patch(w.url()).set(w.editor.auth).send({ records: [{ id: made[0].id, values: { score: 7 } }, { id: made[1].id, values: { name: 'b' } }] }).expect(200);
    assert.deepEqual((await versions(made[0].id)).map((v) => [v.version, v.values.score]), [[2, 7], [1, null]]);
    assert.deepEqual((await versions(made[1].id)).map((v) => v.version), [1]);
    // A bulk create keeps its first versions as one batch: version 1 reads and restores like any other.
    assert.deepEqual((await versions(made[1].id))[0].values, { name: 'b', score: null, done: false, owner: null, stage: null });
    await restore(made[0].id, 1).expect(201);
    assert.deepEqual((await versions(made[0].id)).map((v) => [v.version, v.values.score, v.origin.restored_from ?? null]), [[3, null, 1], [2, 7, null], [1, null, null]]);
    const before = await count();
    await patch(made[0].id, { values: { score: 'many' } }).expect(422);
    await patch(made[0].id, { values: { score: 8 }, version: made[0].version }).expect(409);
    await w.t.request.post(w.url()).set(w.editor.auth).send({ records: [{ values: { name: 'c' } }, { values: { owner: randomUUID() } }] }).expect(422);
    assert.equal(await count(), before);
  });

  it('captures link changes as the link cell, from record writes and from the links routes', async () => {
    const space = (await w.t.db('databases').where({ id: w.db }).first('space_id')).space_id;
    const companies = (await w.t.request.post(api('/databases')).set(w.admin.auth).send({ name: 'Companies', space_id: space }).expect(201)).body.id;
    await w.t.request.post(api('/relations')).set(w.admin.auth).send({ from_database_id: w.db, to_database_id: companies, kind: 'many_to_many', from_field_name: 'Employers', to_field_name: 'Staff' }).expect(201);
    const acme = (await w.t.request.post(api(`/databases/${companies}/records`)).set(w.editor.auth).send({ values: { name: 'Acme' } }).expect(201)).body.id;
    const globex = (await w.t.request.post(api(`/databases/${companies}/records`)).set(w.editor.auth).send({ values: { name: 'Globex' } }).expect(201)).body.id;
    const ann = await create({ name: 'Ann', employers: [acme] });
    await w.t.request.post(w.url(`/${ann.id}/links/employers`)).set(w.editor.auth).send({ record_ids: [globex] }).expect(200);
    const list = await versions(ann.id);
    assert.deepEqual(list.map((v) => [v.version, v.values.employers.map((l: { title: string }) => l.title).sort()]), [[2, ['Acme', 'Globex']], [1, ['Acme']]]);
    assert.deepEqual(list[0].changed_fields, ['employers']);
    // Restoring version 1 unlinks Globex.
    await restore(ann.id, 1).expect(201);
    const now = (await w.t.request.get(w.url(`/${ann.id}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual(now.values.employers.map((l: { id: string }) => l.id), [acme]);
  });

  it('keeps every cell of a database with more writable fields than one jsonb_build_object call takes (50 pairs)', async () => {
    const names: string[] = [];
    for (let i = 0; i < 52; i++) names.push((await w.t.request.post(fields()).set(w.admin.auth).send({ name: `Extra ${i}`, type: 'number' }).expect(201)).body.api_name);
    const values = Object.fromEntries(names.map((name, i) => [name, i % 3 === 0 ? null : i]));
    const r = await create({ name: 'Wide', ...values });
    const [first] = await versions(r.id);
    assert.deepEqual(first.values, { name: 'Wide', score: null, done: false, owner: null, stage: null, ...values });
    assert.deepEqual(first.changed_fields.sort(), ['name', ...names.filter((_, i) => i % 3 !== 0)].sort());
  });

  it('restores a version after a field was deleted and another renamed, as a new version with restored_from', async () => {
    const r = await create({ name: 'Draft', score: 1, stage: 'Open', done: true });
    await patch(r.id, { values: { name: 'Final', score: 2, stage: 'Closed', done: false } }).expect(200);
    await w.t.request.patch(fields('/score')).set(w.admin.auth).send({ name: 'Points', api_name: 'points' }).expect(200);
    await w.t.request.delete(fields('/done')).set(w.admin.auth).expect(200);

    const [, first] = await versions(r.id);
    assert.deepEqual(first.values, { name: 'Draft', points: 1, owner: null, stage: first.values.stage });
    const restored = (await restore(r.id, 1).expect(201)).body as Version;
    assert.equal(restored.version, 3);
    assert.deepEqual(restored.origin, { type: 'restore', id: w.editor.id, restored_from: 1 });
    assert.deepEqual(restored.changed_fields.sort(), ['name', 'points', 'stage']);
    const now = (await w.t.request.get(w.url(`/${r.id}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual([now.values.name, now.values.points, now.values.stage.label], ['Draft', 1, 'Open']);
    // The deleted field is back with the value it had: the restore did not touch it.
    await w.t.request.post(fields('/done/restore')).set(w.admin.auth).expect(200);
    assert.equal((await w.t.request.get(w.url(`/${r.id}`)).set(w.member.auth).expect(200)).body.values.done, false);
    const activity = (await w.t.request.get(w.url(`/${r.id}/activity`)).set(w.member.auth).expect(200)).body.data;
    assert.deepEqual(activity[0].origin, { type: 'restore', id: w.editor.id, restored_from: 1 });
  });

  it('answers a dry run with what would change, and writes nothing', async () => {
    const r = await create({ name: 'Dry', score: 1 });
    await patch(r.id, { values: { score: 5 } }).expect(200);
    const before = await count();
    const res = await restore(r.id, 1, { dry_run: true }).expect(200);
    assert.deepEqual(res.body, { changes: [{ field: 'score', before: 5, after: 1 }] });
    assert.equal(await count(), before);
    assert.equal((await w.t.request.get(w.url(`/${r.id}`)).set(w.member.auth).expect(200)).body.values.score, 5);
    // Restoring what is already there writes nothing either.
    assert.deepEqual((await restore(r.id, 2).expect(200)).body, { changes: [] });
    assert.equal(await count(), before);
  });

  it('restores only the fields asked for, by api_name or id', async () => {
    const r = await create({ name: 'Partial', score: 1, stage: 'Open' });
    await patch(r.id, { values: { name: 'Changed', score: 2, stage: 'Closed' } }).expect(200);
    const stageId = (await w.t.db('fields').where({ database_id: w.db, api_name: 'stage' }).first('id')).id;
    const restored = (await restore(r.id, 1, { fields: ['score', stageId] }).expect(201)).body as Version;
    assert.deepEqual(restored.changed_fields.sort(), ['score', 'stage']);
    const now = (await w.t.request.get(w.url(`/${r.id}`)).set(w.member.auth).expect(200)).body;
    assert.deepEqual([now.values.name, now.values.score, now.values.stage.label], ['Changed', 1, 'Open']);
  });

  it('refuses unknown versions (404), unknown or computed fields (422), members (403) and other bodies (422)', async () => {
    const r = await create({ name: 'Guarded', score: 1 });
    await restore(r.id, 9).expect(404);
    await restore(randomUUID(), 1).expect(404);
    assert.deepEqual(pointers(await restore(r.id, 1, { fields: ['score', 'nope', 'created_at'] }).expect(422)), ['/fields/1', '/fields/2']);
    await restore(r.id, 1, { dryrun: true }).expect(422);
    await restore(r.id, 1, {}, w.member).expect(403);
    await restore(r.id, 1, {}, w.outsider).expect(404);
    await w.t.request.get(w.url(`/${randomUUID()}/versions`)).set(w.member.auth).expect(404);
    await w.t.request.get(w.url(`/${r.id}/versions`)).set(w.outsider.auth).expect(404);
  });
});
