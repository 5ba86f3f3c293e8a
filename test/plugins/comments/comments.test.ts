import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { recordsWorld, pointers, type RecordsWorld } from '../records/setup.ts';
import { memberExport } from '../documents/member-export.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

const doc = (t: string, ...extra: unknown[]) => ({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: t }, ...extra] }] });
const mention = (id: string) => ({ type: 'mention', attrs: { user_id: id } });

describe('comments', () => {
  let w: RecordsWorld;
  let record: string;
  const path = (suffix = '', id = record) => w.url(`/${id}/comments${suffix}`);
  const post = (content: unknown, auth = w.member.auth) => w.t.request.post(path()).set(auth).send({ content });
  const list = async (auth = w.member.auth, query = '') => (await w.t.request.get(path(query)).set(auth).expect(200)).body;

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
    record = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Task' } }).expect(201)).body.id;
  });

  it('lets members comment, lists oldest first with authors, text and mentions, and emits comment.created', async () => {
    const first = (await post(doc('Ask ', mention(w.editor.id))).expect(201)).body;
    assert.deepEqual(first.author, { id: w.member.id, name: 'Mia' });
    assert.equal(first.record_id, record);
    assert.equal(first.text, 'Ask @Eddie');
    assert.deepEqual(first.mentions, [w.editor.id]);
    assert.equal(first.edited, false);
    assert.deepEqual(Object.keys(first).sort(), ['author', 'content', 'created_at', 'edited', 'id', 'mentions', 'record_id', 'text', 'updated_at']);
    const second = (await post(doc('Done'), w.editor.auth).expect(201)).body;
    assert.deepEqual((await list()).data, [first, second]);
    const page = await list(w.member.auth, '?limit=1');
    assert.deepEqual(page.data, [first]);
    assert.deepEqual((await list(w.member.auth, `?limit=1&cursor=${page.next_cursor}`)).data, [second]);
    const [event] = await w.t.db('kernel_events').where({ name: 'comment.created', workspace_id: w.ws }).orderBy('id').select('payload', 'actor_id');
    assert.deepEqual(event.payload, { database_id: w.db, record_id: record, comment: first });
    assert.equal(event.actor_id, w.member.id);
  });

  it('refuses invalid content, long text, outsiders mentioned and records it cannot see or that are in the trash', async () => {
    assert.deepEqual(pointers(await post({ type: 'doc', content: [{ type: 'script' }] }).expect(422)), ['/content/content/0/type']);
    assert.deepEqual(pointers(await post(doc('x'.repeat(10_001))).expect(422)), ['/content']);
    await post(doc('x'.repeat(10_000))).expect(201);
    assert.deepEqual(pointers(await post({ type: 'doc', content: [{ type: 'paragraph' }] }).expect(422)), ['/content']);
    assert.deepEqual(pointers(await post(doc('Hi ', mention(w.outsider.id))).expect(422)), ['/content/content/0/content/1/attrs/user_id']);
    await w.t.request.post(path()).set(w.member.auth).send({ content: doc('x'), author_id: w.admin.id }).expect(422);
    await post(doc('x'), w.outsider.auth).expect(404);
    await w.t.request.get(path()).set(w.outsider.auth).expect(404);
    await w.t.request.post(path('', randomUUID())).set(w.member.auth).send({ content: doc('x') }).expect(404);
    await w.t.request.delete(w.url(`/${record}`)).set(w.editor.auth).expect(204);
    await post(doc('x')).expect(404);
    await w.t.request.get(path()).set(w.member.auth).expect(404);
    assert.equal((await w.t.db('comments').where({ workspace_id: w.ws }).count({ n: '*' }))[0].n, 1);
  });

  it('lets only the author edit (edited set, before in the event), and the author or an admin delete', async () => {
    const c = (await post(doc('Frist')).expect(201)).body;
    assert.equal((await w.t.request.patch(path(`/${c.id}`)).set(w.editor.auth).send({ content: doc('Hijack') }).expect(403)).body.code, 'not_author');
    await w.t.request.patch(path(`/${c.id}`)).set(w.outsider.auth).send({ content: doc('Hijack') }).expect(404);
    await w.t.request.patch(path(`/${randomUUID()}`)).set(w.member.auth).send({ content: doc('x') }).expect(404);
    const edited = (await w.t.request.patch(path(`/${c.id}`)).set(w.member.auth).send({ content: doc('First') }).expect(200)).body;
    assert.equal(edited.edited, true);
    assert.equal(edited.text, 'First');
    assert.equal(edited.created_at, c.created_at);
    const [updated] = await w.t.db('kernel_events').where({ name: 'comment.updated', workspace_id: w.ws }).select('payload');
    assert.equal(updated.payload.before.text, 'Frist');
    assert.equal(updated.payload.comment.text, 'First');

    await w.t.request.delete(path(`/${c.id}`)).set(w.editor.auth).expect(403);
    await w.t.request.delete(path(`/${c.id}`)).set(w.member.auth).expect(204);
    const other = (await post(doc('Spam'), w.editor.auth).expect(201)).body;
    await w.t.request.delete(path(`/${other.id}`)).set(w.admin.auth).expect(204);
    assert.deepEqual((await list()).data, []);
    assert.deepEqual(await w.t.db('kernel_events').where({ name: 'comment.deleted', workspace_id: w.ws }).count({ n: '*' }).then((r) => Number(r[0].n)), 2);
  });

  it('go when their record is purged from the trash', async () => {
    await post(doc('Bye')).expect(201);
    await w.t.request.delete(w.url(`/${record}`)).set(w.editor.auth).expect(204);
    await w.t.db(w.table).where({ id: record }).update({ deleted_at: '2026-01-01T00:00:00Z' });
    await w.t.container.resolverFor('records')('records.trash').purge(new Date('2026-03-01T00:00:00Z'));
    assert.equal((await w.t.db('comments').where({ workspace_id: w.ws }).count({ n: '*' }))[0].n, 0);
  });

  it('keep their text when the author is erased, shown as a former member; the export lists them', async () => {
    const c = (await post(doc('Mine')).expect(201)).body;
    const naming = (await post(doc('Ask ', mention(w.member.id)), w.editor.auth).expect(201)).body;
    const files = await memberExport(w.t, w.ws, w.admin, w.member.id);
    assert.deepEqual((files['comments.json'] as Array<{ id: string; record_id: string; text: string }>).map((x) => [x.id, x.record_id, x.text]), [[c.id, record, 'Mine']]);
    const receipt = (await w.t.request.post(`/api/v1/workspaces/${w.ws}/members/${w.member.id}/erase`).set(w.admin.auth).send({ confirm: w.member.email }).expect(200)).body;
    const report = receipt.reports.find((r: { kind: string }) => r.kind === 'comments');
    assert.deepEqual([report.deleted, report.pseudonymised, report.retained.length], [0, 1, 1]);
    const [shown, other] = (await list(w.editor.auth)).data;
    assert.equal(shown.id, c.id);
    assert.equal(other.id, naming.id);
    assert.equal(other.text, 'Ask @Former member');
    assert.deepEqual(shown.author, { id: null, name: 'Former member' });
    assert.equal(shown.text, 'Mine');
  });
});
