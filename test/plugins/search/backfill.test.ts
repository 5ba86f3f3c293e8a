import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createWorkspace, newTestStorage, signUp, startTestKernel, type TestKernel } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';

describe('search enabled on an instance that already has data', () => {
  const storage = newTestStorage();
  let t: TestKernel | undefined;
  afterEach(async () => {
    await t?.stop();
    if (storage.dataDir) fs.rmSync(storage.dataDir, { recursive: true, force: true });
  });

  it('indexes the spaces, databases, records and documents made before, in the background, and says how many databases wait', async () => {
    t = await startTestKernel({ storage, config: { plugins: { search: { enabled: false } } } });
    await signUp(t, { name: 'Root' });
    const admin = await signUp(t, { name: 'Ada' });
    const ws = (await createWorkspace(t, admin)).id;
    const api = (path: string) => `/api/v1/workspaces/${ws}${path}`;
    const space = (await t.request.post(api('/spaces')).set(admin.auth).send({ name: 'Archive' }).expect(201)).body.id as string;
    const db = (await t.request.post(api('/databases')).set(admin.auth).send({ name: 'Letters', space_id: space }).expect(201)).body.id as string;
    for (const from of [0, 60]) {
      const records = Array.from({ length: 60 }, (_, i) => ({ values: { name: `Letter ${from + i} from Lisbon` } }));
      await t.request.post(api(`/databases/${db}/records`)).set(admin.auth).send({ records }).expect(201);
    }
    const doc = (await t.request.post(api('/documents')).set(admin.auth).send({ title: 'Correspondence index', space_id: space }).expect(201)).body.id as string;
    const content = { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Sorted by port of departure.' }] }] };
    await t.request.put(api(`/documents/${doc}/content`)).set(admin.auth).send({ version: 0, content }).expect(200);
    await t.stop({ keep: true });

    t = await startTestKernel({ storage, config: { plugins: { search: { options: { rebuildPageSize: 50 } } } } });
    const search = (q: string) => t!.request.get(api('/search')).query({ q, limit: 200 }).set(admin.auth).expect(200);
    const done = await waitUntil('the old records indexed', async () => {
      const res = await search('lisbon');
      return res.body.data.length === 120 && res.headers['search-rebuilds-pending'] === '0' && res;
    });
    assert.ok(done.body.data.every((h: { database_id: string; space_id: string }) => h.database_id === db && h.space_id === space));
    assert.deepEqual((await search('letters')).body.data.map((h: { type: string; id: string }) => [h.type, h.id]), [['database', db]]);
    await waitUntil('the old space and document named', async () => (await search('archive')).body.data.length === 1 && (await search('departure')).body.data.length === 1);
    assert.deepEqual((await search('archive')).body.data.map((h: { type: string; id: string }) => [h.type, h.id]), [['space', space]]);
    assert.deepEqual((await search('departure')).body.data.map((h: { type: string; id: string; title: string }) => [h.type, h.id, h.title]), [['document', doc, 'Correspondence index']]);
    // Queued once: a third start finds nothing left to backfill.
    await t.stop({ keep: true });
    t = await startTestKernel({ storage });
    assert.equal(Number((await t.db('search_rebuilds').count<{ count: string }[]>('* as count'))[0].count), 0);
  });
});
