import assert from 'node:assert/strict';
import { signUp, type SignedUpUser } from '../../../core/testing.ts';
import type { MentionHooks, MentionsRecorded } from '../../../plugins/mentions/hooks.ts';
import { recordsWorld, type RecordsWorld } from '../records/setup.ts';
import { memberExport } from '../documents/member-export.ts';
import { suiteKernel } from '../../fixtures/suite-kernel.ts';

const mention = (id: string) => ({ type: 'mention', attrs: { user_id: id } });
const doc = (...inline: unknown[]) => ({ type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hey ' }, ...inline] }] });

describe('mentions', () => {
  let w: RecordsWorld;
  let record: string;
  let guest: SignedUpUser;
  let told: Array<Omit<MentionsRecorded, 'trx' | 'actor'> & { actor: string }>;
  const api = (p: string) => `/api/v1/workspaces/${w.ws}${p}`;
  const comment = (content: unknown, auth = w.member.auth) => w.t.request.post(w.url(`/${record}/comments`)).set(auth).send({ content });
  const mentionsOf = async (auth: Record<string, string>) => (await w.t.request.get(api('/mentions')).set(auth).expect(200)).body.data;
  const toldUsers = () => told.map((r) => r.mentions.map((m) => m.userId));

  /** Rows of `table` in the test's workspace: the kernel is the file's. */
  const countIn = async (table: string) => Number((await w.t.db(table).where({ workspace_id: w.ws }).count({ n: '*' }))[0].n);
  /** Set by the test of a failing write: the hook then throws, as a plugin tapping it might. */
  let hookFails = false;

  const kernel = suiteKernel();
  before(() => {
    const hooks = kernel().kernel.pluginHooks.get('mentions.recorded')!.hooks as MentionHooks;
    hooks.recorded.tapPromise('test', async ({ trx: _trx, actor, ...rest }) => {
      if (hookFails) throw new Error('mail down');
      told.push({ ...rest, actor: actor.user.id });
    });
  });
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
    record = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Launch' } }).expect(201)).body.id;
    guest = await signUp(w.t, { name: 'Gus' });
    // A guest of no space: a member of the workspace who cannot see database D.
    await w.t.db('workspace_members').insert({ workspace_id: w.ws, user_id: guest.id, role: 'guest', space_ids: [] });
    told = [];
  });

  it('records a comment mention once per user, tells only new ones to those who can see it, never the writer', async () => {
    const c = (await comment(doc(mention(w.editor.id), mention(guest.id), mention(w.member.id))).expect(201)).body;
    assert.deepEqual(toldUsers(), [[w.editor.id]]);
    assert.deepEqual(told[0].source, { type: 'comment', id: c.id, recordId: record, databaseId: w.db, documentId: null, title: 'Launch' });
    assert.equal(told[0].actor, w.member.id);
    assert.equal(told[0].text, 'Hey @Eddie@Gus@Mia');
    assert.deepEqual((await w.t.db('mentions').where({ workspace_id: w.ws }).pluck('user_id')).sort(), [w.editor.id, guest.id].sort());

    await w.t.request.patch(w.url(`/${record}/comments/${c.id}`)).set(w.member.auth).send({ content: doc(mention(w.editor.id), mention(w.admin.id)) }).expect(200);
    assert.deepEqual(toldUsers(), [[w.editor.id], [w.admin.id]]);
    // Dropped from the text, the guest's mention stays recorded: it was made.
    assert.equal(await countIn('mentions'), 3);

    const [listed] = await mentionsOf(w.editor.auth);
    assert.deepEqual({ ...listed, id: undefined, created_at: undefined }, {
      id: undefined,
      source_type: 'comment',
      source_id: c.id,
      record_id: record,
      database_id: w.db,
      document_id: null,
      mentioned_by: { id: w.member.id, name: 'Mia' },
      created_at: undefined,
    });
    assert.deepEqual(await mentionsOf(guest.auth), [], 'a guest who cannot see D is not shown its mention');
    assert.deepEqual(await mentionsOf(w.member.auth), []);

    await w.t.request.delete(w.url(`/${record}/comments/${c.id}`)).set(w.member.auth).expect(204);
    assert.equal(await countIn('mentions'), 0);
  });

  it('records mentions in descriptions and documents, and lists the newest first', async () => {
    await w.t.request.put(w.url(`/${record}/description`)).set(w.editor.auth).send({ content: doc(mention(w.member.id)), version: 0 }).expect(200);
    await w.t.request.put(w.url(`/${record}/description`)).set(w.admin.auth).send({ content: doc(mention(w.member.id)), version: 1 }).expect(200);
    assert.deepEqual(told.map((r) => [r.source.type, r.source.id, r.source.title, r.actor]), [['description', record, 'Launch', w.editor.id]]);

    const space = (await w.t.request.post(api('/spaces')).set(w.admin.auth).send({ name: 'Wiki' }).expect(201)).body.id;
    const d = (await w.t.request.post(api('/documents')).set(w.admin.auth).send({ title: 'Roadmap', space_id: space }).expect(201)).body;
    await w.t.request.put(api(`/documents/${d.id}/content`)).set(w.editor.auth).send({ content: doc(mention(w.member.id)), version: 0 }).expect(200);
    assert.deepEqual(told[1].source, { type: 'document', id: d.id, recordId: null, databaseId: null, documentId: d.id, title: 'Roadmap' });

    const listed = await mentionsOf(w.member.auth);
    assert.deepEqual(listed.map((m: { source_type: string }) => m.source_type), ['document', 'description']);
    assert.equal(listed[0].document_id, d.id);
    const page = (await w.t.request.get(api('/mentions?limit=1')).set(w.member.auth).expect(200)).body;
    assert.equal(page.data[0].source_type, 'document');
    const next = (await w.t.request.get(api(`/mentions?limit=1&cursor=${page.next_cursor}`)).set(w.member.auth).expect(200)).body;
    assert.equal(next.data[0].source_type, 'description');

    // A record in the trash hides its mentions; a deleted document takes its own along.
    await w.t.request.delete(w.url(`/${record}`)).set(w.editor.auth).expect(204);
    await w.t.request.delete(api(`/documents/${d.id}`)).set(w.admin.auth).expect(204);
    assert.deepEqual(await mentionsOf(w.member.auth), []);
    assert.equal(await countIn('mentions'), 1);
  });

  it('leaves nothing behind when the write fails', async () => {
    hookFails = true;
    try {
      await comment(doc(mention(w.editor.id))).expect(500);
      await w.t.request.put(w.url(`/${record}/description`)).set(w.editor.auth).send({ content: doc(mention(w.member.id)), version: 0 }).expect(500);
    } finally {
      hookFails = false;
    }
    for (const table of ['comments', 'document_descriptions', 'mentions']) assert.equal(await countIn(table), 0, table);
    assert.equal(Number((await w.t.db('kernel_events').where({ workspace_id: w.ws }).whereIn('name', ['comment.created', 'description.updated']).count({ n: '*' }))[0].n), 0);
  });

  it('on erasure, forgets mentions of the member and the name of the member who mentioned; the export lists both', async () => {
    await comment(doc(mention(w.editor.id))).expect(201);
    await comment(doc(mention(w.member.id)), w.editor.auth).expect(201);
    const files = await memberExport(w.t, w.ws, w.admin, w.member.id);
    assert.equal(files['mentions_of_you.json'].length, 1);
    assert.equal(files['mentions_by_you.json'].length, 1);
    const receipt = (await w.t.request.post(api(`/members/${w.member.id}/erase`)).set(w.admin.auth).send({ confirm: w.member.email }).expect(200)).body;
    const report = receipt.reports.find((r: { kind: string }) => r.kind === 'mentions');
    assert.deepEqual([report.deleted, report.pseudonymised], [1, 1]);
    const [left] = await mentionsOf(w.editor.auth);
    assert.deepEqual(left.mentioned_by, { id: null, name: 'Former member' });
  });

  it('goes, with comments, descriptions and documents, when the workspace is deleted', async () => {
    await comment(doc(mention(w.editor.id))).expect(201);
    await w.t.request.put(w.url(`/${record}/description`)).set(w.editor.auth).send({ content: doc(mention(w.member.id)), version: 0 }).expect(200);
    const space = (await w.t.request.post(api('/spaces')).set(w.admin.auth).send({ name: 'Wiki' }).expect(201)).body.id;
    const d = (await w.t.request.post(api('/documents')).set(w.admin.auth).send({ title: 'Roadmap', space_id: space }).expect(201)).body;
    await w.t.request.put(api(`/documents/${d.id}/content`)).set(w.editor.auth).send({ content: doc(mention(w.member.id)), version: 0 }).expect(200);
    assert.equal(await countIn('mentions'), 3);
    await w.t.request.delete(api('')).set(w.admin.auth).expect(204);
    for (const table of ['mentions', 'comments', 'document_descriptions', 'documents']) assert.equal(await countIn(table), 0, table);
  });
});
