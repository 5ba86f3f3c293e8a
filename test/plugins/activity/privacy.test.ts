import assert from 'node:assert/strict';
import { finished, unzipJson } from '../gdpr/helpers.ts';
import { recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

/** The history plugins keep the change, not the person: erasure, export, user cells, retention. */
describe('activity and record versions: people and retention', () => {
  let w: RecordsWorld;
  const trail = async (id: string) => (await w.t.request.get(w.url(`/${id}/activity`)).set(w.admin.auth).expect(200)).body.data;
  const versions = async (id: string) => (await w.t.request.get(w.url(`/${id}/versions`)).set(w.admin.auth).expect(200)).body.data;

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
  });

  it('names the users of user cells by their current name', async () => {
    const r = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Task' } }).expect(201)).body;
    await w.t.request.patch(w.url(`/${r.id}`)).set(w.editor.auth).send({ values: { owner: w.member.id } }).expect(200);
    await w.t.request.patch('/api/v1/me').set(w.member.auth).send({ name: 'Mia Renamed' }).expect(200);
    const [assigned] = await trail(r.id);
    assert.deepEqual(assigned.changes.find((c: { name: string }) => c.name === 'Owner'), { field: assigned.changes[0].field, name: 'Owner', before: null, after: { id: w.member.id, name: 'Mia Renamed' } });
    assert.deepEqual((await versions(r.id))[0].values.owner, { id: w.member.id, name: 'Mia Renamed' });
  });

  it('exports what a member did, and keeps their changes without them once erased', async () => {
    const r = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Theirs', owner: w.editor.id } }).expect(201)).body;
    await w.t.request.patch(w.url(`/${r.id}`)).set(w.editor.auth).send({ values: { score: 4 } }).expect(200);

    const queued = await w.t.request.post(`/api/v1/workspaces/${w.ws}/members/${w.editor.id}/data-export`).set(w.admin.auth).expect(202);
    const done = await finished(w.t, `/api/v1/workspaces/${w.ws}/data-exports/${queued.body.id}`, w.admin.auth);
    const zip = await w.t.request.get(done.download_url!).set(w.admin.auth).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    const files = unzipJson(zip.body as Buffer);
    assert.deepEqual((files['activity.json'] as Array<{ type: string }>).map((e) => e.type).sort(), ['record.created', 'record.updated']);
    assert.deepEqual((files['record_versions.json'] as Array<{ record_id: string; version: number }>).map((v) => [v.record_id, v.version]).sort(), [[r.id, 1], [r.id, 2]]);

    await w.t.request.post(`/api/v1/workspaces/${w.ws}/members/${w.editor.id}/erase`).set(w.admin.auth).send({ confirm: w.editor.email }).expect(200);
    const entries = await trail(r.id);
    assert.ok(entries.length >= 2);
    for (const e of entries) {
      assert.equal(e.actor, null);
      assert.ok(e.origin.id !== w.editor.id);
    }
    assert.deepEqual(entries.at(-1).changes.find((c: { name: string }) => c.name === 'Score'), undefined);
    assert.deepEqual(entries.at(-2).changes, [{ field: entries.at(-2).changes[0].field, name: 'Score', before: null, after: 4 }]);
    for (const v of await versions(r.id)) {
      assert.equal(v.created_by, null);
      assert.equal(v.origin.id, null);
      assert.equal(v.values.owner, null);
    }
    const raw = JSON.stringify([await w.t.db('activity_entries').select(), await w.t.db('record_versions').select()]);
    assert.ok(!raw.includes(w.editor.id), 'no history row names the erased member');
  });

  it('purges entries and versions past the retention period, keeping the newest version of a record', async () => {
    const r = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Old' } }).expect(201)).body;
    await w.t.request.patch(w.url(`/${r.id}`)).set(w.editor.auth).send({ values: { score: 1 } }).expect(200);
    await w.t.request.patch(w.url(`/${r.id}`)).set(w.editor.auth).send({ values: { score: 2 } }).expect(200);
    // Entries are purged along their time-ordered ids (UUIDv7): the first 48 bits moved 400 days back.
    await w.t.db('activity_entries')
      .where({ record_id: r.id })
      .update({
        created_at: w.t.db.raw("now() - interval '400 days'"),
        id: w.t.db.raw("(lpad(to_hex((extract(epoch FROM now() - interval '400 days') * 1000)::bigint), 12, '0') || substr(replace(id::text, '-', ''), 13))::uuid"),
      });
    await w.t.db('record_versions').where({ record_id: r.id }).update({ created_at: w.t.db.raw("now() - interval '400 days'") });
    await w.t.request.patch(w.url(`/${r.id}`)).set(w.editor.auth).send({ values: { score: 3 } }).expect(200);
    await w.t.db('record_versions').where({ record_id: r.id, seq: 4 }).update({ created_at: w.t.db.raw("now() - interval '400 days'") });

    assert.equal(await w.t.container.resolverFor('activity')('activity.service').purge(365), 3);
    assert.equal(await w.t.container.resolverFor('record-versions')('record-versions.service').purge(365), 3);
    assert.deepEqual((await trail(r.id)).map((e: { type: string }) => e.type), ['record.updated']);
    assert.deepEqual((await versions(r.id)).map((v: { version: number }) => v.version), [4]);
  });
});
