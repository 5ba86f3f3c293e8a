import assert from 'node:assert/strict';
import type { RecordsChanged } from '../../../plugins/records/public.ts';
import type { ImportStatus } from '../../../plugins/import/schemas.ts';
import type { RecordChangeHooks } from '../../../plugins/records/public.ts';
import { importWorld, sendImport, recordsOf, fieldNames, type ImportWorld } from './setup.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function settled(w: ImportWorld, id: string): Promise<ImportStatus> {
  for (;;) {
    const res = await w.t.request.get(w.url(`/imports/${id}`)).set(w.editor.auth).expect(200);
    if (res.body.status === 'succeeded' || res.body.status === 'failed') return res.body;
    await sleep(250);
  }
}

describe('import: large files run as a job', function () {
  this.timeout(10 * 60_000);

  describe('with the default threshold (10,000 rows)', () => {
    let w: ImportWorld;
    before(async () => {
      w = await importWorld();
    });
    after(() => w.t.stop());

    it('stores nothing when row 99,999 of 100,000 is invalid, and says which row', async () => {
      const rows = Array.from({ length: 100_000 }, (_, i) => `r${i + 1},${i % 1000}.5,${String(i).padStart(6, '0')}`);
      rows[99_998] = 'r99999,twelve,x';
      const csv = ['Name,Amount,New', ...rows].join('\n');
      const res = await sendImport(w, w.admin, csv, { Name: 'name', Amount: 'amount', New: { create: { name: 'New', type: 'text' } } }).expect(202);
      assert.match(res.body.import_id, /^[0-9a-f-]{36}$/);
      const done = await settled(w, res.body.import_id);
      assert.equal(done.status, 'failed');
      assert.equal(done.rows, 100_000);
      assert.equal(done.created, 0);
      assert.deepEqual(done.errors.map((e) => [e.row, e.column]), [[99_999, 'Amount']]);
      assert.deepEqual(await recordsOf(w), []);
      assert.ok(!(await fieldNames(w)).includes('new'), 'the new field was not kept');
      const run = await w.t.db('import_runs').where({ id: res.body.import_id }).first();
      assert.equal(run.blob_key, null);
    });

    it('imports a large file whole', async () => {
      const csv = ['Name,Code', ...Array.from({ length: 12_000 }, (_, i) => `r${i},${String(i).padStart(5, '0')}`)].join('\n');
      const res = await sendImport(w, w.editor, csv, { Name: 'name', Code: 'code' }).expect(202);
      const done = await settled(w, res.body.import_id);
      assert.deepEqual({ status: done.status, rows: done.rows, done: done.done, created: done.created, errors: done.errors }, { status: 'succeeded', rows: 12_000, done: 12_000, created: 12_000, errors: [] });
      const page = await w.t.request.get(w.url('/records')).query({ limit: '2' }).set(w.admin.auth).expect(200);
      assert.deepEqual(page.body.data.map((r: { values: { code: string } }) => r.values.code), ['00000', '00001']);
    });
  });

  describe('progress', () => {
    let w: ImportWorld;
    before(async () => {
      // Jobs are run by the test itself, so it can look at one while it runs.
      w = await importWorld({ config: { jobs: { enabled: false }, plugins: { import: { options: { syncMaxRows: 10, batchRows: 5 } } } } });
    });
    after(() => w.t.stop());

    it('reports queued, then running with rows and done, then succeeded; the file is deleted when it ends', async () => {
      const csv = ['Name,Code', ...Array.from({ length: 23 }, (_, i) => `r${i},${i}`)].join('\n');
      const res = await sendImport(w, w.editor, csv, { Name: 'name', Code: 'code' }).expect(202);
      const id = res.body.import_id as string;
      const queued = await w.t.request.get(w.url(`/imports/${id}`)).set(w.member.auth).expect(200);
      assert.deepEqual({ status: queued.body.status, rows: queued.body.rows, done: queued.body.done, created: queued.body.created }, { status: 'queued', rows: null, done: 0, created: 0 });
      const { blob_key: key } = await w.t.db('import_runs').where({ id }).first('blob_key');
      const blobs = w.t.container.resolverFor('import')('blobs');
      assert.ok(await blobs.exists(key), 'the job keeps the uploaded file until it runs');

      const service = w.t.container.resolverFor('import')('import.service');
      const runs = w.t.container.resolverFor('import')('import.runs');
      const seen: Array<Pick<ImportStatus, 'status' | 'rows' | 'done' | 'created'>> = [];
      const stored: number[] = [];
      const postgres = w.t.container.resolverFor('import')('database').kind === 'postgres';
      const hooks = w.t.kernel.pluginHooks.get('records.changes')!.hooks as RecordChangeHooks;
      hooks.changed.tapPromise('test-progress', async (write: RecordsChanged) => {
        if (write.origin.id !== id) return;
        // PostgreSQL: progress is in the table too, for other instances (read on another connection). Rows go on being
        // read while a batch is written, so progress moves while this runs: the table is read first, the process's
        // figure after it (read the other way, CI saw the table at 20 and the process at 15).
        const inTable = postgres ? ((await w.t.db('import_runs').where({ id }).first('done')).done as number) : undefined;
        const s = await runs.status(w.ws, w.db, id);
        seen.push({ status: s.status, rows: s.rows, done: s.done, created: s.created });
        if (inTable !== undefined) stored.push(inTable);
      });
      await service.run(id);
      // Five batches of 5; rows are read while the previous batch is written, so batch k (from 0) sees at least 5k rows done.
      assert.equal(seen.length, 5);
      assert.deepEqual(seen.map((s) => ({ status: s.status, rows: s.rows, created: s.created })), seen.map(() => ({ status: 'running', rows: 23, created: 0 })));
      seen.forEach((s, k) => assert.ok(s.done >= 5 * k && s.done <= 23 && s.done % 5 === 0 && (k === 0 || s.done >= seen[k - 1].done), `batch ${k}: done ${s.done}`));
      // The table's figure is written after the process's (an UPDATE on another connection, while the batch's history
      // is being written): it moves while the import runs, never ahead of the process, never going back.
      if (postgres) {
        assert.ok(stored.some((done) => done > 0), `stored progress ${stored.join(', ')}`);
        stored.forEach((done, k) => assert.ok(done % 5 === 0 && done <= seen[k].done && (k === 0 || done >= stored[k - 1]), `batch ${k}: stored ${done}, in the process ${seen[k].done}`));
      }
      const end = await w.t.request.get(w.url(`/imports/${id}`)).set(w.member.auth).expect(200);
      assert.deepEqual({ status: end.body.status, rows: end.body.rows, done: end.body.done, created: end.body.created }, { status: 'succeeded', rows: 23, done: 23, created: 23 });
      assert.ok(end.body.finished_at);
      assert.equal((await recordsOf(w)).length, 23);
      assert.equal(await blobs.exists(key), false);
    });

    it('a failed job deletes the file too and lists the problems', async () => {
      const csv = ['Name,Amount', ...Array.from({ length: 12 }, (_, i) => `r${i},${i === 11 ? 'x' : i}`)].join('\n');
      const before = (await recordsOf(w)).length;
      const res = await sendImport(w, w.editor, csv, { Name: 'name', Amount: 'amount' }).expect(202);
      const { blob_key: key } = await w.t.db('import_runs').where({ id: res.body.import_id }).first('blob_key');
      await w.t.container.resolverFor('import')('import.service').run(res.body.import_id);
      const end = await w.t.request.get(w.url(`/imports/${res.body.import_id}`)).set(w.editor.auth).expect(200);
      assert.equal(end.body.status, 'failed');
      assert.deepEqual(end.body.errors.map((e: { row: number; column: string }) => [e.row, e.column]), [[12, 'Amount']]);
      assert.equal((await recordsOf(w)).length, before);
      assert.equal(await w.t.container.resolverFor('import')('blobs').exists(key), false);
    });

    it('checks the rights of whoever sent the file again when the job runs, and keeps no name or address of theirs', async () => {
      const csv = ['Name', ...Array.from({ length: 12 }, (_, i) => `r${i}`)].join('\n');
      const before = (await recordsOf(w)).length;
      const res = await sendImport(w, w.editor, csv, { Name: 'name' }).expect(202);
      const run = await w.t.db('import_runs').where({ id: res.body.import_id }).first('actor');
      assert.ok(!JSON.stringify(run.actor).includes(w.editor.email));
      await w.t.request.patch(`/api/v1/workspaces/${w.ws}/members/${w.editor.id}`).set(w.admin.auth).send({ role: 'member' }).expect(200);
      try {
        await w.t.container.resolverFor('import')('import.service').run(res.body.import_id);
      } finally {
        await w.t.request.patch(`/api/v1/workspaces/${w.ws}/members/${w.editor.id}`).set(w.admin.auth).send({ role: 'editor' }).expect(200);
      }
      const end = await w.t.request.get(w.url(`/imports/${res.body.import_id}`)).set(w.editor.auth).expect(200);
      assert.equal(end.body.status, 'failed');
      assert.match(end.body.errors[0].detail, /editor/);
      assert.equal((await recordsOf(w)).length, before);
    });

    it('marks failed, and deletes the file of, an import whose job stopped without a word', async () => {
      const csv = ['Name', ...Array.from({ length: 12 }, (_, i) => `r${i}`)].join('\n');
      const res = await sendImport(w, w.editor, csv, { Name: 'name' }).expect(202);
      const id = res.body.import_id as string;
      const { blob_key: key } = await w.t.db('import_runs').where({ id }).first('blob_key');
      const runs = w.t.container.resolverFor('import')('import.runs');
      assert.equal(await runs.sweep(2), 0, 'a fresh import is left alone');
      await w.t.db('import_runs').where({ id }).update({ status: 'running', created_at: w.t.db.raw(`now() - interval '3 hours'`) });
      assert.equal(await runs.sweep(2), 1);
      const end = await w.t.request.get(w.url(`/imports/${id}`)).set(w.editor.auth).expect(200);
      assert.equal(end.body.status, 'failed');
      assert.match(end.body.errors[0].detail, /did not finish/);
      assert.equal(await w.t.container.resolverFor('import')('blobs').exists(key), false);
    });

    it('answers 404 for an import of another database', async () => {
      const [run] = await w.t.db('import_runs').select('id').limit(1);
      const space = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/spaces`).set(w.admin.auth).send({ name: 'Other' }).expect(201)).body.id;
      const other = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/databases`).set(w.admin.auth).send({ name: 'E', space_id: space }).expect(201)).body.id;
      await w.t.request.get(`/api/v1/workspaces/${w.ws}/databases/${other}/imports/${run.id}`).set(w.admin.auth).expect(404);
    });
  });
});
