import assert from 'node:assert/strict';
import type { PersonalDataHooks } from '../../../plugins/gdpr/public.ts';
import { memberExport } from '../documents/member-export.ts';
import { attachmentsWorld, eventually, type AttachmentsWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

describe('attachments: a member\'s uploads in GDPR exports and erasures', () => {
  let w: AttachmentsWorld;
  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await attachmentsWorld(undefined, kernel());
  });

  it('exports the member\'s uploads with their bytes', async () => {
    const a = (await w.upload(Buffer.from('mine'), 'mine.txt', 'text/plain')).body;
    await w.upload(Buffer.from('theirs'), 'theirs.txt', 'text/plain', { auth: w.admin.auth });
    const zip = await memberExport(w.t, w.ws, w.admin, w.editor.id);
    assert.deepEqual(
      (zip['attachments.json'] as Array<Record<string, unknown>>).map(({ created_at: _c, ...item }) => item),
      [{ id: a.id, workspace_id: w.ws, database_id: w.db, record_id: w.record, name: 'mine.txt', mime_type: 'application/octet-stream', size: 4 }],
    );
    const hooks = w.t.kernel.pluginHooks.get('gdpr.personalData')!.hooks as PersonalDataHooks;
    const sections = await w.t.db.transaction((trx) => hooks.export.promise([], { trx, userId: w.editor.id, person: { email: w.editor.email, name: 'Eddie' }, workspaceId: w.ws }));
    const section = sections.find((s) => s.kind === 'attachments')!;
    assert.equal(section.files!.length, 1);
    assert.equal(section.files![0].path, `${a.id}-mine.txt`);
    assert.equal((await w.t.kernel.blobs.read(section.files![0].blobKey))!.toString(), 'mine');
  });

  it('erasing a member deletes their uploads no live record holds and keeps, unattributed, those a record still shows', async () => {
    const kept = (await w.upload(Buffer.from('kept'), 'kept.txt')).body;
    const trashed = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Old' } }).expect(201)).body.id;
    const loose = (await w.upload(Buffer.from('loose'), 'loose.txt', 'text/plain', { record: trashed })).body;
    const looseKey = (await w.t.db('attachments').where({ id: loose.id }).first('blob_key')).blob_key;
    const others = (await w.upload(Buffer.from('admin'), 'admin.txt', 'text/plain', { auth: w.admin.auth })).body;
    await w.t.request.delete(w.url(`/${trashed}`)).set(w.editor.auth).expect(204);

    const receipt = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/members/${w.editor.id}/erase`).set(w.admin.auth).send({ confirm: w.editor.email }).expect(200)).body;
    const report = receipt.reports.find((r: { kind: string }) => r.kind === 'attachments');
    assert.deepEqual(report, { kind: 'attachments', workspace_id: w.ws, deleted: 1, pseudonymised: 1, retained: [{ what: 'files they uploaded that records still hold, no longer linked to them', reason: 'kept for the workspace', until: null }] });
    assert.equal((await w.t.db('attachments').where({ id: kept.id }).first('created_by')).created_by, null);
    assert.equal((await w.t.db('attachments').where({ id: others.id }).first('created_by')).created_by, w.admin.id);
    assert.equal(await w.t.db('attachments').where({ id: loose.id }).first(), undefined);
    await eventually(async () => !(await w.t.kernel.blobs.exists(looseKey)), 'the loose upload\'s bytes to go');
    const got = (await w.t.request.get(w.att(`/${kept.id}`)).set(w.member.auth).expect(200)).body;
    assert.equal(got.created_by, null);
  });
});
