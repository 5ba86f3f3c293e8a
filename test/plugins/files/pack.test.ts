import assert from 'node:assert/strict';
import { eventually, filesWorld, images, PDF, type FilesWorld } from './setup.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';
import { blobsSince, uploadedBlobs } from '../../fixtures/uploads.ts';

type Pack = { resources: Record<string, Array<Record<string, any>>>; requires: Record<string, string>; [k: string]: unknown };
const showing = (...fileIds: string[]) => ({ type: 'doc', content: [...fileIds.map((id) => ({ type: 'image', attrs: { file_id: id } })), { type: 'paragraph', content: [{ type: 'text', text: 'Caption' }] }] });

describe('files: images travel in packs with the documents that show them', function () {
  this.timeout(60_000);
  let w: FilesWorld;
  let png: Buffer;
  let gif: Buffer;
  const api = (ws: string, p: string) => `/api/v1/workspaces/${ws}${p}`;
  const upload = async (bytes: Buffer, name: string) => (await w.t.request.post(api(w.ws, '/files')).set(w.admin.auth).attach('file', bytes, { filename: name, contentType: 'image/png' }).expect(201)).body;
  const exportSpace = (space: string, extra: object = {}) => w.t.request.post(api(w.ws, '/packs/export')).set(w.admin.auth).send({ space_ids: [space], ...extra });
  const install = (pack: object, extra: object = {}) => w.t.request.post(api(w.otherWs, '/packs/install')).set(w.outsider.auth).send({ pack, ...extra });
  const theirFiles = async () => (await w.t.db('files').where({ workspace_id: w.otherWs }).select('id', 'name', 'created_by')) as Array<{ id: string; name: string; created_by: string }>;

  before(async () => {
    [png, gif] = [await images.png(), await images.gif()];
  });
  // The kernel is the file's: the pack blobs a test looks at are those that were not there when it began.
  let packBlobsBefore: string[];
  const newPackBlobs = () => blobsSince(w.t, packBlobsBefore, 'files');
  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await filesWorld({}, kernel());
    packBlobsBefore = uploadedBlobs(w.t, 'files');
  });

  /** Space S with a document showing two images and a sample record whose description shows a third; one more image nothing shows. */
  async function illustrated() {
    const [a, b, c] = [await upload(png, 'a.png'), await upload(gif, 'b.gif'), await upload(png, 'c.png')];
    await upload(png, 'unshown.png');
    const doc = (await w.t.request.post(api(w.ws, '/documents')).set(w.admin.auth).send({ title: 'Gallery', space_id: w.space }).expect(201)).body.id;
    await w.t.request.put(api(w.ws, `/documents/${doc}/content`)).set(w.admin.auth).send({ content: showing(a.id, b.id), version: 0 }).expect(200);
    const db = (await w.t.request.post(api(w.ws, '/databases')).set(w.admin.auth).send({ name: 'Tasks', space_id: w.space }).expect(201)).body.id;
    const record = (await w.t.request.post(api(w.ws, `/databases/${db}/records`)).set(w.admin.auth).send({ values: {} }).expect(201)).body.id;
    await w.t.request.put(api(w.ws, `/databases/${db}/records/${record}/description`)).set(w.admin.auth).send({ content: showing(c.id.toUpperCase()), version: 0 }).expect(200);
    return { a, b, c };
  }

  it('exports the images shown, bytes in base64, named by ref, and installs them as new files of the other workspace', async () => {
    await illustrated();
    const pack: Pack = (await exportSpace(w.space, { include_records: true }).expect(200)).body;
    assert.deepEqual(
      pack.resources.file.map((f) => [f.ref, f.name, Buffer.from(f.data, 'base64')]),
      [['file_1', 'a.png', png], ['file_2', 'b.gif', gif], ['file_3', 'c.png', png]],
    );
    assert.deepEqual(pack.resources.document[0].content.content.slice(0, 2).map((n: { attrs: { file_id: string } }) => n.attrs.file_id), ['file_1', 'file_2']);
    assert.equal(pack.resources.record_description[0].content.content[0].attrs.file_id, 'file_3');
    assert.equal(pack.requires.files, '^1.0.0');
    // Without sample records, only the document's images travel.
    assert.deepEqual((await exportSpace(w.space).expect(200)).body.resources.file.map((f: { name: string }) => f.name), ['a.png', 'b.gif']);

    const installed = (await install(pack).expect(201)).body;
    const made = installed.created.file as Array<{ ref: string; id: string }>;
    assert.deepEqual(made.map((f) => f.ref), ['file_1', 'file_2', 'file_3']);
    const theirs = await theirFiles();
    assert.equal(theirs.length, 3);
    assert.ok(theirs.every((f) => f.created_by === w.outsider.id));
    const doc = installed.created.document[0].id;
    const content = (await w.t.request.get(api(w.otherWs, `/documents/${doc}/content`)).set(w.outsider.auth).expect(200)).body.content;
    assert.deepEqual(content.content.slice(0, 2).map((n: { attrs: { file_id: string } }) => n.attrs.file_id), [made[0].id, made[1].id]);
    const file2 = (await w.t.request.get(api(w.otherWs, `/files/${made[1].id}`)).set(w.outsider.auth).expect(200)).body;
    assert.deepEqual([file2.name, file2.mime_type, file2.width, file2.height], ['b.gif', 'image/gif', 2, 7]);
    const bytes = await w.t.request.get(file2.url).set(w.outsider.auth).buffer(true).parse((r, cb) => {
      const parts: Buffer[] = [];
      r.on('data', (c: Buffer) => parts.push(c));
      r.on('end', () => cb(null, Buffer.concat(parts)));
    }).expect(200);
    assert.deepEqual(bytes.body, gif);

    // Exported again from there, the same images travel.
    const again: Pack = (await w.t.request.post(api(w.otherWs, '/packs/export')).set(w.outsider.auth).send({ space_ids: [installed.created.space[0].id], include_records: true }).expect(200)).body;
    assert.deepEqual(again.resources.file, pack.resources.file);

    // Uninstalled: the files go with the documents, bytes included.
    const keys = await w.t.db('files').whereIn('id', made.map((f) => f.id)).pluck('blob_key');
    const removed = (await w.t.request.delete(api(w.otherWs, `/packs/installs/${installed.install_id}`)).set(w.outsider.auth).expect(200)).body;
    assert.deepEqual(removed.removed.filter((r: { kind: string }) => r.kind === 'file').map((r: { id: string }) => r.id).sort(), made.map((f) => f.id).sort());
    assert.deepEqual(await theirFiles(), []);
    for (const key of keys) await eventually(async () => !(await w.t.kernel.blobs.exists(key)), `${key} to be deleted`);
  });

  it('keeps a file at uninstall while a document someone changed still shows it', async () => {
    await illustrated();
    const pack: Pack = (await exportSpace(w.space).expect(200)).body;
    const installed = (await install(pack).expect(201)).body;
    const doc = installed.created.document[0].id;
    await w.t.request.patch(api(w.otherWs, `/documents/${doc}`)).set(w.outsider.auth).send({ title: 'Mine now' }).expect(200);
    const removed = (await w.t.request.delete(api(w.otherWs, `/packs/installs/${installed.install_id}`)).set(w.outsider.auth).expect(200)).body;
    assert.deepEqual(removed.kept.map((k: { kind: string }) => k.kind).sort(), ['document', 'file', 'file', 'space']);
    assert.equal((await theirFiles()).length, 2);
  });

  it('makes nothing, bytes included, on a dry run or when the pack fails', async () => {
    await illustrated();
    const pack: Pack = (await exportSpace(w.space).expect(200)).body;
    const dry = (await install(pack, { dry_run: true }).expect(200)).body;
    assert.deepEqual(dry.problems, []);
    assert.ok(dry.plan.some((p: { kind: string }) => p.kind === 'file'));
    assert.deepEqual(await theirFiles(), []);
    await eventually(async () => newPackBlobs().length === 0, 'the dry run’s bytes to be deleted');

    const broken = structuredClone(pack);
    broken.resources.file[1].data = PDF.toString('base64');
    broken.resources.file.push({ ref: 'file_9', name: '../evil.png', data: png.toString('base64') });
    const res = (await install(broken).expect(422)).body;
    // The document showing the refused image is refused at that image too.
    assert.deepEqual(res.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/pack/resources/document/0/content/content/1/attrs/file_id', '/pack/resources/file/1/data', '/pack/resources/file/2/name']);
    const garbled = structuredClone(pack);
    garbled.resources.file[0].data = 'not base64!';
    assert.deepEqual((await install(garbled).expect(422)).body.errors.map((e: { pointer: string }) => e.pointer), ['/pack/resources/file/0/data']);
    assert.deepEqual(await theirFiles(), []);
    await eventually(async () => newPackBlobs().length === 0, 'the failed install’s bytes to be deleted');
  });

  it('refuses an export whose images weigh more than files.packMaxBytes', async () => {
    w = await filesWorld({ config: { plugins: { files: { options: { packMaxBytes: png.length + gif.length - 1 } } } } });
    try {
      await illustrated();
      const res = (await exportSpace(w.space).expect(422)).body;
      assert.equal(res.code, 'limit_exceeded');
      assert.match(res.detail, /files\.packMaxBytes/);
    } finally {
      await w.t.stop();
    }
  });
});
