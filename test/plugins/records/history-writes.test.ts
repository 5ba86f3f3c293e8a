import assert from 'node:assert/strict';
import type { RecordChangeHooks, RecordsChanged } from '../../../plugins/records/public.ts';
import { recordsWorld, type RecordsWorld } from './setup.ts';

/**
 * `records.changes` taps hand over the writes they need no answer from (`later`); the records plugin runs them with
 * the other plugins' (activity, versions, events) as one statement in the write's transaction.
 */
describe('records: the writes taps hand over (records.changes later)', () => {
  let w: RecordsWorld;
  /** What the test tap hands over on the next write: a probe row, or a write that fails. */
  let next: 'probe' | 'failing' | null = null;

  before(async () => {
    w = await recordsWorld();
    await w.t.db.raw('CREATE TABLE later_probe (record_id uuid NOT NULL, title text NOT NULL)');
    const hooks = w.t.kernel.pluginHooks.get('records.changes')!.hooks as RecordChangeHooks;
    hooks.changed.tapPromise('test-later', async (write: RecordsChanged) => {
      const change = write.changes[0];
      if (next === 'probe') write.later({ sql: 'INSERT INTO later_probe (record_id, title) VALUES ($1, $2)', bindings: [change.recordId, String(change.after?.values.name)] });
      if (next === 'failing') write.later({ sql: 'INSERT INTO later_probe (record_id, title) VALUES ($1, NULL)', bindings: [change.recordId] });
      next = null;
    });
  });
  after(() => w.t.stop());

  const versionsOf = async (id: string) => (await w.t.db('record_versions').where({ record_id: id }).count({ n: '*' }).first())?.n;
  const activityOf = async (id: string) => (await w.t.db('activity_entries').where({ record_id: id }).count({ n: '*' }).first())?.n;

  it('commits what a tap handed over with the write and its history', async () => {
    next = 'probe';
    const created = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Kept' } }).expect(201)).body;
    assert.deepEqual(await w.t.db('later_probe').select('record_id', 'title'), [{ record_id: created.id, title: 'Kept' }]);
    assert.equal(await versionsOf(created.id), 1);
    assert.equal(await activityOf(created.id), 1);
    await w.t.kernel.events.settle();
    const found = await w.t.request.get(`/api/v1/workspaces/${w.ws}/search?q=Kept&types=records`).set(w.editor.auth).expect(200);
    assert.deepEqual(found.body.data.map((hit: { id: string }) => hit.id), [created.id]);
  });

  it('undoes the write and all its history when a handed-over write fails', async () => {
    const created = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Before' } }).expect(201)).body;
    next = 'failing';
    const res = await w.t.request.patch(w.url(`/${created.id}`)).set(w.editor.auth).send({ values: { name: 'After' } });
    assert.equal(res.status, 500);
    assert.equal(res.body.code, 'internal_error');
    const stored = await w.t.request.get(w.url(`/${created.id}`)).set(w.editor.auth).expect(200);
    assert.equal(stored.body.values.name, 'Before');
    assert.equal(stored.body.version, 1);
    assert.equal(await versionsOf(created.id), 1);
    assert.equal(await activityOf(created.id), 1);
  });
});
