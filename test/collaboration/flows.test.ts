import assert from 'node:assert/strict';
import { joinWorkspace, signUp, type SignedUpUser } from '../../core/testing.ts';
import { recordsWorld, type RecordsWorld } from '../plugins/records/setup.ts';
import { suiteKernel } from '../fixtures/suite-kernel.ts';

/** Rich text with a paragraph of text and, optionally, mentions of users. */
const doc = (text: string, ...mentioned: string[]) => ({
  type: 'doc',
  content: [{ type: 'paragraph', content: [{ type: 'text', text }, ...mentioned.map((user_id) => ({ type: 'mention', attrs: { user_id } }))] }],
});

/**
 * The collaboration plugins together, as users meet them: a comment's mentions reach the people named (once), watchers
 * hear of comments and changes, history follows every write, and a refused write leaves nothing anywhere.
 */
describe('collaboration: comments, mentions, notifications and history together', () => {
  let w: RecordsWorld;
  let record: string;
  const api = (path: string) => `/api/v1/workspaces/${w.ws}${path}`;
  const comments = (path = '') => w.url(`/${record}/comments${path}`);
  const inbox = async (user: SignedUpUser, query = '') => (await w.t.kernel.events.settle(), await w.t.request.get(api(`/notifications${query}`)).set(user.auth).expect(200)).body.data as Array<Record<string, any>>;
  const unread = async (user: SignedUpUser) => (await w.t.request.get(api('/notifications/unread-count')).set(user.auth).expect(200)).body.count as number;

  const kernel = suiteKernel();
  beforeEach(async () => {
    w = await recordsWorld(undefined, kernel());
    record = (await w.t.request.post(w.url()).set(w.editor.auth).send({ values: { name: 'Launch' } }).expect(201)).body.id;
  });

  it('notifies a mention once, and on an edit only the people newly mentioned', async () => {
    const posted = (await w.t.request.post(comments()).set(w.editor.auth).send({ content: doc('Look, ', w.member.id) }).expect(201)).body;
    assert.deepEqual(posted.mentions, [w.member.id]);
    const [mention] = await inbox(w.member);
    assert.equal(mention.type, 'mention');
    assert.deepEqual(mention.actor, { id: w.editor.id, name: 'Eddie' });
    assert.equal(mention.record_id, record);
    assert.equal(await unread(w.member), 1);
    const mentions = (await w.t.request.get(api('/mentions')).set(w.member.auth).expect(200)).body.data;
    assert.deepEqual(mentions.map((m: any) => [m.source_type, m.source_id, m.record_id, m.mentioned_by.id]), [['comment', posted.id, record, w.editor.id]]);

    await w.t.request.patch(comments(`/${posted.id}`)).set(w.editor.auth).send({ content: doc('Look again, ', w.member.id, w.admin.id) }).expect(200);
    assert.equal(await unread(w.member), 1, 'the member was mentioned before: no second notification');
    assert.deepEqual((await inbox(w.admin)).map((n) => n.type), ['mention']);
    assert.deepEqual(await inbox(w.editor), [], 'nobody is notified of their own action');
  });

  it('tells watchers of comments (a mentioned watcher hears of the mention alone) and of changes by others', async () => {
    await w.t.request.put(w.url(`/${record}/watch`)).set(w.member.auth).expect(201);
    await w.t.request.put(w.url(`/${record}/watch`)).set(w.admin.auth).expect(201);
    await w.t.request.post(comments()).set(w.editor.auth).send({ content: doc('Ping ', w.admin.id) }).expect(201);
    assert.deepEqual((await inbox(w.member)).map((n) => n.type), ['comment']);
    assert.deepEqual((await inbox(w.admin)).map((n) => n.type), ['mention']);
    await w.t.request.patch(w.url(`/${record}`)).set(w.admin.auth).send({ values: { score: 3 } }).expect(200);
    assert.deepEqual((await inbox(w.member)).map((n) => n.type), ['record_updated', 'comment']);
    assert.deepEqual((await inbox(w.admin)).map((n) => n.type), ['mention'], 'the admin changed it: not told of it');
  });

  it('does not notify a guest mentioned on a record of a space it was not given', async () => {
    const guest = await signUp(w.t, { name: 'Gus' });
    const elsewhere = (await w.t.request.post(api('/spaces')).set(w.admin.auth).send({ name: 'Elsewhere' }).expect(201)).body.id;
    await joinWorkspace(w.t, w.admin, w.ws, guest, 'guest', [elsewhere]);
    // A guest is a member of the workspace: the mention is accepted, but it cannot see the record.
    await w.t.request.post(comments()).set(w.editor.auth).send({ content: doc('Hi ', guest.id) }).expect(201);
    assert.equal(await unread(guest), 0);
    assert.deepEqual(await inbox(guest), []);
    assert.deepEqual((await w.t.request.get(api('/mentions')).set(guest.auth).expect(200)).body.data, []);
  });

  it('keeps the trail of a record: its creation, each change with the field names of the time, comments and the description', async () => {
    await w.t.request.patch(w.url(`/${record}`)).set(w.editor.auth).send({ values: { score: 2 } }).expect(200);
    await w.t.request.patch(`/api/v1/workspaces/${w.ws}/databases/${w.db}/fields/score`).set(w.admin.auth).send({ name: 'Points' }).expect(200);
    await w.t.request.post(comments()).set(w.member.auth).send({ content: doc('Nice') }).expect(201);
    await w.t.request.put(w.url(`/${record}/description`)).set(w.editor.auth).send({ content: doc('What it is'), version: 0 }).expect(200);
    const trail = (await w.t.request.get(w.url(`/${record}/activity`)).set(w.member.auth).expect(200)).body.data as Array<Record<string, any>>;
    assert.deepEqual(trail.map((e) => e.type), ['description.updated', 'comment.created', 'record.updated', 'record.created']);
    const change = trail[2].changes.find((c: any) => c.before === null || c.after === 2);
    assert.equal(change.name, 'Score', 'the name when the change was made');
    assert.deepEqual(trail[2].origin, { type: 'user', id: w.editor.id });
    const versions = (await w.t.request.get(w.url(`/${record}/versions`)).set(w.member.auth).expect(200)).body.data;
    assert.equal(versions.length, 2);
  });

  it('leaves no activity, version or notification behind a refused write', async () => {
    await w.t.request.put(w.url(`/${record}/watch`)).set(w.member.auth).expect(201);
    const before = {
      activity: (await w.t.request.get(w.url(`/${record}/activity`)).set(w.member.auth).expect(200)).body.data.length,
      versions: (await w.t.request.get(w.url(`/${record}/versions`)).set(w.member.auth).expect(200)).body.data.length,
    };
    await w.t.request.patch(w.url(`/${record}`)).set(w.editor.auth).send({ values: { score: 'many' } }).expect(422);
    await w.t.request.patch(w.url(`/${record}`)).set(w.editor.auth).send({ values: { score: 1 }, version: 99 }).expect(409);
    await w.t.request.patch(w.url()).set(w.editor.auth).send({ records: [{ id: record, values: { score: 'x' } }] }).expect(200);
    await w.t.request.post(comments()).set(w.editor.auth).send({ content: { type: 'doc', content: [{ type: 'script' }] } }).expect(422);
    assert.equal((await w.t.request.get(w.url(`/${record}/activity`)).set(w.member.auth).expect(200)).body.data.length, before.activity);
    assert.equal((await w.t.request.get(w.url(`/${record}/versions`)).set(w.member.auth).expect(200)).body.data.length, before.versions);
    assert.deepEqual(await inbox(w.member), []);
  });
});
