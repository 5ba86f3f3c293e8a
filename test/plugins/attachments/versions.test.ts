import assert from 'node:assert/strict';
import { attachmentsWorld, type AttachmentsWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('attachments: record versions', () => {
  let w: AttachmentsWorld;
  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await attachmentsWorld(undefined, kernel());
  });
  const versions = async () => (await w.t.request.get(w.url(`/${w.record}/versions`)).set(w.member.auth).expect(200)).body.data as Array<{ version: number; values: Record<string, unknown> }>;
  const restore = (v: number, body: object = {}) => w.t.request.post(w.url(`/${w.record}/versions/${v}/restore`)).set(w.editor.auth).send(body);
  const cellIds = async () => ((await w.t.request.get(w.url(`/${w.record}`)).set(w.member.auth).expect(200)).body.values.files as Array<{ id: string }>).map((c) => c.id);

  it('captures each upload as a version, and restores an earlier cell (files uploaded since leave it), refusing one whose file was deleted', async () => {
    const a = (await w.upload(Buffer.from('a'), 'a.txt')).body;
    const b = (await w.upload(Buffer.from('b'), 'b.txt')).body;
    const list = await versions();
    const withA = list.find((v) => JSON.stringify(v.values).includes(a.id) && !JSON.stringify(v.values).includes(b.id))!;
    assert.ok(withA, 'a version holds the cell with the first file only');

    const dry = (await restore(withA.version, { dry_run: true }).expect(200)).body;
    assert.deepEqual(dry.changes.map((c: { field: string }) => c.field), ['files']);
    assert.deepEqual(await cellIds(), [a.id, b.id], 'a dry run writes nothing');
    await restore(withA.version).expect(201);
    assert.deepEqual(await cellIds(), [a.id]);
    assert.equal(await w.t.db('attachments').where({ id: b.id }).first(), undefined);

    await w.t.request.delete(w.att(`/${a.id}`)).set(w.editor.auth).expect(204);
    const refused = await restore(withA.version).expect(422);
    assert.deepEqual(refused.body.errors.map((e: { pointer: string }) => e.pointer), ['/values/files/0']);
  });
});
