import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';

type Pack = { resources: Record<string, Array<Record<string, any>>>; requires: Record<string, string>; [k: string]: unknown };

const para = (...content: unknown[]) => ({ type: 'paragraph', content });
const text = (t: string, marks?: unknown[]) => ({ type: 'text', text: t, ...(marks ? { marks } : {}) });

describe('documents: packs', function () {
  this.timeout(60_000);
  let t: TestKernel;
  let admin: SignedUpUser;
  let mia: SignedUpUser;
  let home: string;
  let away: string;
  const api = (ws: string, path: string) => `/api/v1/workspaces/${ws}${path}`;
  const post = async (ws: string, path: string, body: object, status = 201) => (await t.request.post(api(ws, path)).set(admin.auth).send(body).expect(status)).body;
  const put = async (ws: string, path: string, body: object) => (await t.request.put(api(ws, path)).set(admin.auth).send(body).expect(200)).body;

  before(async () => {
    t = await startTestKernel();
    admin = await signUp(t, { name: 'Ada' });
    mia = await signUp(t, { name: 'Mia' });
    home = (await createWorkspace(t, admin)).id;
    away = (await createWorkspace(t, admin)).id;
    await t.db('workspace_members').insert({ workspace_id: home, user_id: mia.id, role: 'member' });
  });
  after(() => t.stop());

  it('exports documents and sample records\' descriptions, installs them elsewhere and exports the same pack again', async () => {
    const space = (await post(home, '/spaces', { name: 'Handbook' })).id;
    const folder = (await post(home, `/spaces/${space}/folders`, { name: 'Policies' })).id;
    const a = (await post(home, '/documents', { title: 'Welcome', space_id: space })).id;
    await put(home, `/documents/${a}/content`, { content: { type: 'doc', content: [{ type: 'heading', attrs: { level: 1 }, content: [text('Hello')] }, para(text('Ask '), { type: 'mention', attrs: { user_id: mia.id } }, text(' or read '), text('this', [{ type: 'link', attrs: { href: 'https://example.com' } }]))] }, version: 0 });
    await post(home, '/documents', { title: 'Leave', space_id: space, folder_id: folder });
    const database = (await post(home, '/databases', { name: 'Tasks', space_id: space })).id;
    const record = (await post(home, `/databases/${database}/records`, { values: { name: 'Onboard' } })).id;
    await post(home, `/databases/${database}/records`, { values: { name: 'Bare' } });
    await put(home, `/databases/${database}/records/${record}/description`, { content: { type: 'doc', content: [para(text('Steps'))] }, version: 0 });

    const pack: Pack = await post(home, '/packs/export', { space_ids: [space], include_records: true }, 200);
    assert.deepEqual(
      pack.resources.document.map((d) => [d.title, d.folder !== null]),
      [['Welcome', false], ['Leave', true]],
    );
    // People do not travel: the mention is written out as text.
    assert.deepEqual(pack.resources.document[0].content.content[1].content[1], { type: 'text', text: '@Mia' });
    assert.equal(pack.resources.record_description.length, 1);
    assert.equal(pack.resources.record_description[0].record, pack.resources.record.find((r) => r.values.name === 'Onboard')!.ref);
    assert.equal(pack.requires.documents, '^1.0.0');

    const installed = await post(away, '/packs/install', { pack });
    const newSpace = installed.created.space[0].id;
    const again: Pack = await post(away, '/packs/export', { space_ids: [newSpace], include_records: true }, 200);
    assert.deepEqual(again, pack);
    const welcome = installed.created.document.find((d: { ref: string }) => d.ref === pack.resources.document[0].ref).id;
    const content = (await t.request.get(api(away, `/documents/${welcome}/content`)).set(admin.auth).expect(200)).body;
    assert.equal(content.version, 1);

    const removed = (await t.request.delete(api(away, `/packs/installs/${installed.install_id}`)).set(admin.auth).expect(200)).body;
    assert.ok(removed.removed.some((r: { kind: string }) => r.kind === 'document'));
    assert.equal((await t.db('documents').where({ workspace_id: away }).count({ n: '*' }))[0].n, 0);
  });

  it('refuses a pack whose content names an image, pointing at it, and makes nothing', async () => {
    const pack = {
      format: 'tessera-pack',
      format_version: 1,
      name: 'Pictures',
      version: '1.0.0',
      requires: {},
      resources: {
        space: [{ ref: 'space_1', name: 'Pictures' }],
        document: [{ ref: 'document_1', space: 'space_1', title: 'Gallery', content: { type: 'doc', content: [{ type: 'image', attrs: { file_id: randomUUID() } }] } }],
      },
    };
    const res = await t.request.post(api(away, '/packs/install')).set(admin.auth).send({ pack }).expect(422);
    assert.deepEqual(res.body.errors.map((e: { pointer: string }) => e.pointer), ['/pack/resources/document/0/content/content/0/attrs/file_id']);
    assert.equal((await t.db('documents').where({ workspace_id: away }).count({ n: '*' }))[0].n, 0);
  });
});
