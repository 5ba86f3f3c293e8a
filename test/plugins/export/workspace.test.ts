import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { strFromU8, unzipSync } from 'fflate';
import { parse } from 'csv-parse/sync';
import { definePlugin } from '../../../core/plugin.ts';
import { joinWorkspace, signUp } from '../../../core/testing.ts';
import { builtinPlugins } from '../../../plugins/index.ts';
import { download as fetchBytes, exportWorld, startTestKernel, type ExportWorld } from './world.ts';

/** Workspaces whose exports the probe breaks, as a failing plugin would. */
const breakFor = new Set<string>();
/** Workspaces whose exports wait, at the probe's last entry, until the test lets them go on. */
const holdFor = new Map<string, Promise<void>>();

/** A plugin adding a blob and some content to every workspace export, as the attachments plugin will. */
const contributor = definePlugin({
  id: 'export-probe',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { export: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('export.workspace').contribute.tapPromise('export-probe', async (entries, { workspaceId }) => {
      if (breakFor.has(workspaceId)) throw new Error('probe failed reading /var/secret/path');
      await ctx.blobs.put(`probe/${workspaceId}`, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
      return [
        ...entries,
        { path: 'attachments/../../photo.png', blobKey: `probe/${workspaceId}` },
        { path: 'attachments/notes.txt', content: 'hello' },
        { path: 'attachments/gone.bin', blobKey: 'probe/never-stored' },
        ...(holdFor.has(workspaceId) ? [{ path: 'attachments/slow.txt', open: async () => (await holdFor.get(workspaceId), 'late') }] : []),
      ];
    });
  },
});

interface Manifest {
  format_version: number;
  tessera_version: string;
  workspace: { id: string; name: string };
  created_at: string;
  databases: Array<{ id: string; name: string; csv: string; schema: string }>;
  entries: Array<{ path: string; size: number; sha256: string }>;
  missing: string[];
}

describe('export: whole-workspace export', () => {
  let w: ExportWorld;
  let otherAdmin: { auth: Record<string, string> };

  const exportsUrl = (path = '') => w.api(`/exports${path}`);
  const download = (path: string, auth = w.admin.auth) => fetchBytes(w.t, path, auth);
  async function finished(id: string): Promise<Record<string, any>> {
    const seen: string[] = [];
    for (let i = 0; i < 300; i++) {
      const res = await w.t.request.get(exportsUrl(`/${id}`)).set(w.admin.auth).expect(200);
      seen.push(res.body.status);
      if (res.body.status !== 'queued' && res.body.status !== 'running') return { ...res.body, seen };
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`export ${id} never finished`);
  }

  before(async () => {
    w = await exportWorld(await startTestKernel({ plugins: [...builtinPlugins, contributor] }));
    otherAdmin = w.outsider;
    await w.t.request.post(w.api(`/databases/${w.db}/fields`)).set(w.admin.auth).send({ name: 'Amount', type: 'number', options: { precision: 2 } }).expect(201);
    const first = (await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.editor.auth).send({ values: { name: 'Big deal, "quoted"', amount: 12.5 } }).expect(201)).body.id;
    await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(w.editor.auth).send({ values: { name: 'Small deal' } }).expect(201);
    await w.t.request.put(w.api(`/databases/${w.db}/records/${first}/description`)).set(w.editor.auth).send({ version: 0, content: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Described' }] }] } }).expect(200);
    const doc = (await w.t.request.post(w.api('/documents')).set(w.admin.auth).send({ title: 'Plan/2025', space_id: w.space }).expect(201)).body.id;
    await w.t.request.put(w.api(`/documents/${doc}/content`)).set(w.admin.auth).send({ version: 0, content: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'The plan' }] }] } }).expect(200);
    await w.t.request.post(w.api('/databases')).set(w.admin.auth).send({ name: 'Empty', space_id: w.space }).expect(201);
  });
  after(() => w.t.stop());

  it('runs as a job with progress, then serves a zip whose manifest names every entry with its size and checksum', async () => {
    const queued = await w.t.request.post(exportsUrl()).set(w.admin.auth).expect(202);
    assert.equal(queued.body.status, 'queued');
    assert.deepEqual(queued.body.progress, { done: 0, total: 0 });
    assert.ok(Date.parse(queued.body.created_at) > Date.now() - 60_000);
    await w.t.request.get(exportsUrl(`/${queued.body.id}/download`)).set(w.admin.auth).expect((res) => assert.ok([409, 200].includes(res.status)));

    const done = await finished(queued.body.id);
    assert.equal(done.status, 'succeeded', JSON.stringify(done));
    // Two databases (a CSV and a schema each), one document, one description, three contributions.
    assert.deepEqual(done.progress, { done: 9, total: 9 });
    assert.equal(done.download_url, `/api/v1/workspaces/${w.ws}/exports/${queued.body.id}/download`);
    const hours = (Date.parse(done.expires_at) - Date.now()) / 3_600_000;
    assert.ok(hours > 23.9 && hours <= 24, `expires in ${hours} h`);

    const res = await download(done.download_url).expect(200);
    assert.equal(res.headers['content-type'], 'application/zip');
    assert.equal(Number(res.headers['content-length']), done.size);
    const files = unzipSync(new Uint8Array(res.body as Buffer));
    const manifest = JSON.parse(strFromU8(files['manifest.json'])) as Manifest;
    assert.equal(manifest.format_version, 1);
    assert.match(manifest.tessera_version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(manifest.workspace, { id: w.ws, name: 'Acme' });
    assert.deepEqual(Object.keys(files).filter((f) => f !== 'manifest.json').sort(), manifest.entries.map((e) => e.path).sort());
    for (const entry of manifest.entries) {
      assert.equal(files[entry.path].length, entry.size, entry.path);
      assert.equal(createHash('sha256').update(files[entry.path]).digest('hex'), entry.sha256, entry.path);
    }
    assert.deepEqual(manifest.missing, ['attachments/gone.bin']);

    assert.deepEqual(manifest.databases.map((d) => [d.name, d.csv, d.schema]), [
      ['Deals', 'Deals.csv', 'Deals.schema.json'],
      ['Empty', 'Empty.csv', 'Empty.schema.json'],
    ]);
    const csv = parse(strFromU8(files['Deals.csv'])) as string[][];
    assert.deepEqual(csv.map((r) => [r[0], r[r.length - 1]]), [['Name', 'Amount'], ['Big deal, "quoted"', '12.50'], ['Small deal', '']]);
    const schema = JSON.parse(strFromU8(files['Deals.schema.json']));
    assert.deepEqual(schema.fields.find((f: { api_name: string }) => f.api_name === 'amount').options.precision, 2);
    assert.equal(schema.fields.find((f: { api_name: string }) => f.api_name === 'amount').type, 'number');

    const document = JSON.parse(strFromU8(files['documents/Plan_2025.json']));
    assert.equal(document.title, 'Plan/2025');
    assert.equal(document.content.content[0].content[0].text, 'The plan');
    const description = Object.entries(files).find(([path]) => path.startsWith(`record_descriptions/${w.db}/`));
    assert.ok(description, 'the record description is in the zip');
    assert.equal(JSON.parse(strFromU8(description[1])).content.content[0].content[0].text, 'Described');
    // A contributed path cannot climb out of its folder.
    assert.deepEqual([...files['attachments/_/_/photo.png']], [0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]);
    assert.equal(strFromU8(files['attachments/notes.txt']), 'hello');

    const list = await w.t.request.get(exportsUrl()).set(w.admin.auth).expect(200);
    assert.deepEqual(list.body.data.map((e: { id: string }) => e.id), [queued.body.id]);
    assert.equal(list.body.next_cursor, null);
  });

  it('is for admins only, and another workspace’s admin gets 404', async () => {
    for (const who of [w.editor, w.member, w.guest]) await w.t.request.post(exportsUrl()).set(who.auth).expect(403);
    const id = (await w.t.request.post(exportsUrl()).set(w.admin.auth).expect(202)).body.id;
    const done = await finished(id);
    for (const who of [w.editor, w.member]) {
      await w.t.request.get(exportsUrl(`/${id}`)).set(who.auth).expect(403);
      await w.t.request.get(exportsUrl(`/${id}/download`)).set(who.auth).expect(403);
    }
    await w.t.request.get(exportsUrl(`/${id}`)).set(otherAdmin.auth).expect(404);
    await w.t.request.get(done.download_url).set(otherAdmin.auth).expect(404);
    // Named under the other admin's own workspace, the export is not theirs either.
    await w.t.request.get(`/api/v1/workspaces/${w.otherWs}/exports/${id}/download`).set(otherAdmin.auth).expect(404);
    await w.t.request.get(exportsUrl(`/${randomUUID()}`)).set(w.admin.auth).expect(404);
    await w.t.request.get(done.download_url).expect(401);
  });

  it('deletes the zip once its retention has passed: the export says expired and its download 410; one cut short says failed', async () => {
    const id = (await w.t.request.post(exportsUrl()).set(w.admin.auth).expect(202)).body.id;
    const done = await finished(id);
    await download(done.download_url).expect(200);
    const service = w.t.container.resolverFor('export')('export.workspaces');
    assert.equal(await service.expire(), 0, 'nothing is due yet');
    await w.t.db('export_workspace_exports').where({ id }).update({ expires_at: new Date(Date.now() - 1000) });
    assert.equal(await service.expire(), 1);
    const expired = await w.t.request.get(exportsUrl(`/${id}`)).set(w.admin.auth).expect(200);
    assert.equal(expired.body.status, 'expired');
    assert.equal(expired.body.download_url, null);
    const gone = await w.t.request.get(done.download_url).set(w.admin.auth).expect(410);
    assert.equal(gone.body.code, 'export_expired');
    assert.equal(gone.body.title, 'Gone');
    assert.equal(await w.t.container.resolverFor('export')('blobs').exists(`export/workspaces/${id}.zip`), false);

    // An export whose process stopped while it ran stays `running` no longer than the retention.
    const [stuck] = await w.t.db('export_workspace_exports').insert({ workspace_id: w.ws, requested_by: w.admin.id, status: 'running', created_at: new Date(Date.now() - 25 * 3_600_000) }).returning('id');
    await service.expire();
    const cut = (await w.t.request.get(exportsUrl(`/${stuck.id}`)).set(w.admin.auth).expect(200)).body;
    assert.equal(cut.status, 'failed');
    assert.match(cut.error, /cut short/);
  });

  it('fails with a reason that tells nothing of the server when a contribution fails, keeping no zip', async () => {
    breakFor.add(w.ws);
    try {
      const id = (await w.t.request.post(exportsUrl()).set(w.admin.auth).expect(202)).body.id;
      const done = await finished(id);
      assert.equal(done.status, 'failed');
      assert.equal(done.error, 'The export failed; the server log says why.');
      assert.equal(done.download_url, null);
      const refused = await w.t.request.get(exportsUrl(`/${id}/download`)).set(w.admin.auth).expect(409);
      assert.equal(refused.body.code, 'export_not_ready');
      assert.equal(await w.t.container.resolverFor('export')('blobs').exists(`export/workspaces/${id}.zip`), false);
    } finally {
      breakFor.delete(w.ws);
    }
  });

  it('goes with its workspace: the rows and, once the deletion commits, the zips', async () => {
    const ws = (await w.t.request.post('/api/v1/workspaces').set(w.admin.auth).send({ name: 'Short-lived' }).expect(201)).body.id;
    const id = (await w.t.request.post(`/api/v1/workspaces/${ws}/exports`).set(w.admin.auth).expect(202)).body.id;
    for (let i = 0; i < 300; i++) {
      const res = await w.t.request.get(`/api/v1/workspaces/${ws}/exports/${id}`).set(w.admin.auth).expect(200);
      if (res.body.status === 'succeeded') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const blobs = w.t.container.resolverFor('export')('blobs');
    assert.equal(await blobs.exists(`export/workspaces/${id}.zip`), true);
    await w.t.request.delete(`/api/v1/workspaces/${ws}`).set(w.admin.auth).expect(204);
    assert.equal(await w.t.db('export_workspace_exports').where({ id }).first(), undefined);
    for (let i = 0; i < 50 && (await blobs.exists(`export/workspaces/${id}.zip`)); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await blobs.exists(`export/workspaces/${id}.zip`), false);
  });

  it('shows its progress while it runs', async () => {
    let release!: () => void;
    holdFor.set(w.ws, new Promise<void>((resolve) => (release = resolve)));
    try {
      const id = (await w.t.request.post(exportsUrl()).set(w.admin.auth).expect(202)).body.id;
      let seen: Record<string, any> | undefined;
      for (let i = 0; i < 300; i++) {
        const res = await w.t.request.get(exportsUrl(`/${id}`)).set(w.admin.auth).expect(200);
        if (res.body.status === 'running' && res.body.progress.done === 9) {
          seen = res.body;
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.ok(seen, 'the export was seen running at its last entry');
      assert.deepEqual(seen.progress, { done: 9, total: 10 });
      assert.equal(seen.download_url, null);
      await w.t.request.get(exportsUrl(`/${id}/download`)).set(w.admin.auth).expect(409);
      release();
      const done = await finished(id);
      assert.equal(done.status, 'succeeded');
      assert.deepEqual(done.progress, { done: 10, total: 10 });
    } finally {
      holdFor.delete(w.ws);
      release();
    }
  });

  it("goes when a member is erased from the workspace: its zip may name them", async () => {
    const leaving = await signUp(w.t, { name: 'Lea Leaving' });
    await joinWorkspace(w.t, w.admin, w.ws, leaving, 'editor');
    await w.t.request.post(w.api(`/databases/${w.db}/records`)).set(leaving.auth).send({ values: { name: 'Written by Lea' } }).expect(201);
    const id = (await w.t.request.post(exportsUrl()).set(w.admin.auth).expect(202)).body.id;
    const done = await finished(id);
    const zip = unzipSync(new Uint8Array((await download(done.download_url).expect(200)).body as Buffer));
    assert.ok(strFromU8(zip['Deals.csv']).includes('Lea Leaving'), 'the zip names her');
    const receipt = await w.t.request.post(w.api(`/members/${leaving.id}/erase`)).set(w.admin.auth).send({ confirm: leaving.email }).expect(200);
    const report = receipt.body.reports.find((r: { kind: string }) => r.kind === 'workspace_exports');
    assert.ok(report.deleted >= 1, JSON.stringify(receipt.body.reports));
    await w.t.request.get(exportsUrl(`/${id}`)).set(w.admin.auth).expect(404);
    const blobs = w.t.container.resolverFor('export')('blobs');
    for (let i = 0; i < 50 && (await blobs.exists(`export/workspaces/${id}.zip`)); i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await blobs.exists(`export/workspaces/${id}.zip`), false);
  });
});
