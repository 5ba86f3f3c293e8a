import assert from 'node:assert/strict';
import { createWorkspace, signUp } from '../../../core/testing.ts';
import type { NotificationInput } from '../../../plugins/notifications/public.ts';
import { createPat } from '../tokens/helpers.ts';
import { notificationsWorld, type NotificationsWorld } from './setup.ts';

type Auth = Record<string, string>;
interface Shown {
  id: string;
  type: string;
  read: boolean;
  archived: boolean;
  read_at: string | null;
  archived_at: string | null;
  subject: { type: string; id: string; title: string | null };
}

describe('notifications: the inbox and its states', () => {
  let w: NotificationsWorld;
  const list = async (auth: Auth, query = '') => (await w.t.request.get(w.api(`/notifications${query}`)).set(auth).expect(200)).body as { data: Shown[]; next_cursor: string | null };
  const count = async (auth: Auth) => (await w.t.request.get(w.api('/notifications/unread-count')).set(auth).expect(200)).body.count as number;
  const post = (auth: Auth, path: string) => w.t.request.post(w.api(`/notifications${path}`)).set(auth);
  const about = (userId: string, type: string, title: string, extra: Partial<NotificationInput> = {}): NotificationInput => ({
    workspaceId: w.ws,
    userId,
    type,
    actorId: w.admin.id,
    subject: { type: 'record', id: crypto.randomUUID(), title },
    ...extra,
  });
  /** Three notifications for the member, oldest first: a mention, a comment, an assignment. */
  const three = async () => {
    for (const [type, title] of [['mention', 'One'], ['comment', 'Two'], ['assigned', 'Three']]) await w.notify([about(w.member.id, type, title)]);
    return (await list(w.member.auth)).data;
  };

  before(async () => {
    w = await notificationsWorld();
  });
  after(() => w.t.stop());
  beforeEach(() => w.t.db('notifications').delete());

  it('lists the inbox newest first in the shape of the specification, with the unread count', async () => {
    const [n] = await three();
    const { data } = await list(w.member.auth);
    assert.deepEqual(data.map((d) => d.subject.title), ['Three', 'Two', 'One']);
    assert.deepEqual(Object.keys(n).sort(), ['actor', 'archived', 'archived_at', 'created_at', 'data', 'database_id', 'id', 'read', 'read_at', 'record_id', 'subject', 'type', 'workspace_id'].sort());
    assert.deepEqual({ ...n, id: undefined, created_at: undefined, subject: { ...n.subject, id: undefined } }, {
      id: undefined,
      workspace_id: w.ws,
      type: 'assigned',
      actor: { id: w.admin.id, name: 'Ada' },
      subject: { type: 'record', id: undefined, title: 'Three' },
      record_id: null,
      database_id: null,
      data: {},
      read: false,
      read_at: null,
      archived: false,
      archived_at: null,
      created_at: undefined,
    });
    assert.equal(await count(w.member.auth), 3);
    assert.deepEqual((await list(w.editor.auth)).data, [], 'only the recipient sees it');
  });

  it('moves through every state: read, read-all, archive and unarchive (201), read and archived independent', async () => {
    const [assigned, comment, mention] = await three();

    const read = await post(w.member.auth, `/${comment.id}/read`).expect(200);
    assert.equal(read.body.id, comment.id);
    assert.equal(read.body.read, true);
    assert.ok(read.body.read_at);
    assert.equal(await count(w.member.auth), 2, 'the badge drops');
    const again = await post(w.member.auth, `/${comment.id}/read`).expect(200);
    assert.equal(again.body.read_at, read.body.read_at, 'reading twice keeps the first time');
    assert.deepEqual((await list(w.member.auth, '?status=read')).data.map((d) => d.id), [comment.id]);
    assert.deepEqual((await list(w.member.auth, '?status=unread')).data.map((d) => d.id), [assigned.id, mention.id]);

    const archived = await post(w.member.auth, `/${mention.id}/archive`).expect(200);
    assert.deepEqual([archived.body.archived, archived.body.read], [true, false]);
    assert.equal(await count(w.member.auth), 1, 'an archived notification leaves the badge');
    assert.deepEqual((await list(w.member.auth)).data.map((d) => d.id), [assigned.id, comment.id], 'and the inbox');
    assert.deepEqual((await list(w.member.auth, '?status=archived')).data.map((d) => d.id), [mention.id]);
    assert.deepEqual((await list(w.member.auth, '?status=unread')).data.map((d) => d.id), [assigned.id]);

    const readArchived = await post(w.member.auth, `/${mention.id}/read`).expect(200);
    assert.deepEqual([readArchived.body.archived, readArchived.body.read], [true, true], 'reading an archived one keeps it archived');

    const back = await post(w.member.auth, `/${mention.id}/unarchive`).expect(201);
    assert.deepEqual([back.body.archived, back.body.archived_at, back.body.read], [false, null, true]);
    assert.deepEqual((await list(w.member.auth)).data.map((d) => d.id), [assigned.id, comment.id, mention.id]);

    await post(w.member.auth, `/${comment.id}/archive`).expect(200);
    const unreadArchived = (await post(w.member.auth, `/${assigned.id}/archive`).expect(200)).body as Shown;
    assert.equal(unreadArchived.read, false);
    await post(w.member.auth, `/${unreadArchived.id}/unarchive`).expect(201);
    assert.equal(await count(w.member.auth), 1, 'unarchived, it is unread in the inbox again');
  });

  it('read-all marks the unread of the inbox read and says how many; archived ones keep their state', async () => {
    const [assigned, comment, mention] = await three();
    await post(w.member.auth, `/${comment.id}/read`).expect(200);
    await post(w.member.auth, `/${mention.id}/archive`).expect(200);
    const other = await w.notify([about(w.editor.id, 'mention', 'Theirs')]);
    assert.equal(other, 1);

    assert.deepEqual((await post(w.member.auth, '/read-all').expect(200)).body, { updated: 1 });
    assert.equal(await count(w.member.auth), 0);
    const { data } = await list(w.member.auth, '?status=archived');
    assert.deepEqual(data.map((d) => [d.id, d.read]), [[mention.id, false]]);
    assert.equal((await list(w.member.auth, '?status=read')).data.some((d) => d.id === assigned.id), true);
    assert.equal(await count(w.editor.auth), 1, "another user's stay unread");
    assert.deepEqual((await post(w.member.auth, '/read-all').expect(200)).body, { updated: 0 });
  });

  it('filters by type and pages newest first', async () => {
    await three();
    await w.notify([about(w.member.id, 'mention', 'Four')]);
    assert.deepEqual((await list(w.member.auth, '?type=mention')).data.map((d) => d.subject.title), ['Four', 'One']);
    assert.deepEqual((await list(w.member.auth, '?type=invite')).data, []);
    const first = await list(w.member.auth, '?limit=3');
    assert.equal(first.data.length, 3);
    const second = await list(w.member.auth, `?limit=3&cursor=${first.next_cursor}`);
    assert.deepEqual([...first.data, ...second.data].map((d) => d.subject.title), ['Four', 'Three', 'Two', 'One']);
    assert.equal(second.next_cursor, null);
    const bad = await w.t.request.get(w.api('/notifications?status=new')).set(w.member.auth).expect(422);
    assert.equal(bad.body.code, 'validation_failed');
  });

  it("answers 404 for someone else's notification, and for one named under another workspace", async () => {
    const [mine] = await three();
    for (const action of ['read', 'archive', 'unarchive']) {
      await post(w.editor.auth, `/${mine.id}/${action}`).expect(404);
      await post(w.member.auth, `/${crypto.randomUUID()}/${action}`).expect(404);
    }
    const { data } = await list(w.member.auth);
    assert.deepEqual(data.map((d) => [d.read, d.archived]), [[false, false], [false, false], [false, false]], 'nothing changed');
    const outsider = await signUp(w.t, { name: 'Otto' });
    const elsewhere = (await createWorkspace(w.t, outsider)).id;
    await w.t.request.post(`/api/v1/workspaces/${elsewhere}/notifications/${mine.id}/read`).set(outsider.auth).expect(404);
    await w.t.request.get(w.api('/notifications')).set(outsider.auth).expect(404);
  });

  it('lets a token of the workspace read and mark its user\'s notifications; a read token only reads', async () => {
    const [n] = await (async () => {
      await w.notify([about(w.admin.id, 'mention', 'For Ada', { actorId: w.member.id })]);
      return (await list(w.admin.auth)).data;
    })();
    const write = await createPat(w.t, w.admin, { name: 'w', workspace_id: w.ws, scope: 'write' });
    const read = await createPat(w.t, w.admin, { name: 'r', workspace_id: w.ws, scope: 'read' });
    const byToken = (token: string) => ({ Authorization: `Bearer ${token}` });
    assert.equal((await w.t.request.get(w.api('/notifications/unread-count')).set(byToken(read.token)).expect(200)).body.count, 1);
    await post(byToken(read.token), `/${n.id}/read`).expect(403);
    await post(byToken(write.token), `/${n.id}/read`).expect(200);
  });

  it('never notifies the actor of their own action', async () => {
    assert.equal(await w.notify([about(w.member.id, 'mention', 'Self', { actorId: w.member.id })]), 0);
    assert.equal(await count(w.member.auth), 0);
  });

  it('shows a guest only notifications about databases it can see now', async () => {
    const recordId = crypto.randomUUID();
    await w.notify([about(w.guest.id, 'mention', 'In D', { databaseId: w.db, recordId }), about(w.guest.id, 'invite', 'No database')]);
    assert.deepEqual((await list(w.guest.auth)).data.map((d) => d.subject.title), ['No database'], 'D is in a space the guest does not see');
    assert.equal(await count(w.guest.auth), 1);
    await w.t.request.patch(w.api(`/members/${w.guest.id}`)).set(w.admin.auth).send({ space_ids: [w.space, w.otherSpace] }).expect(200);
    const seen = (await list(w.guest.auth)).data;
    assert.equal(seen.length, 2);
    assert.equal(await count(w.guest.auth), 2);
    await w.t.request.patch(w.api(`/members/${w.guest.id}`)).set(w.admin.auth).send({ space_ids: [w.otherSpace] }).expect(200);
    const hidden = seen.find((d) => d.subject.title === 'In D')!;
    await post(w.guest.auth, `/${hidden.id}/read`).expect(404);
    assert.deepEqual((await post(w.guest.auth, '/read-all').expect(200)).body, { updated: 1 }, 'read-all leaves what the guest cannot see');
    assert.equal((await w.t.db('notifications').where({ id: hidden.id }).first('read_at')).read_at, null);
  });

  it('forgets a member\'s notifications when they leave the workspace', async () => {
    await three();
    await w.notify([about(w.editor.id, 'mention', 'Stays')]);
    await w.t.request.delete(w.api(`/members/${w.member.id}`)).set(w.admin.auth).expect(204);
    assert.deepEqual(await w.t.db('notifications').where({ user_id: w.member.id }).select('id'), []);
    assert.equal((await w.t.db('notifications').where({ user_id: w.editor.id })).length, 1);
    await w.t.db('workspace_members').insert({ workspace_id: w.ws, user_id: w.member.id, role: 'member' });
  });

  it("goes with a deleted database, a deleted workspace and an erased account (the tables keep no foreign keys)", async () => {
    const gone = (await w.t.request.post(w.api('/databases')).set(w.admin.auth).send({ name: 'Short-lived', space_id: w.space }).expect(201)).body.id;
    await w.notify([about(w.editor.id, 'mention', 'About the short-lived', { databaseId: gone, recordId: crypto.randomUUID() }), about(w.editor.id, 'mention', 'Elsewhere')]);
    await w.t.request.delete(w.api(`/databases/${gone}`)).set(w.admin.auth).send({ confirm: 'Short-lived' }).expect(204);
    assert.deepEqual(await w.t.db('notifications').where({ database_id: gone }).select('id'), []);
    assert.deepEqual(await w.t.db('notifications_emails').where({ database_id: gone }).select('id'), []);
    assert.equal((await w.t.db('notifications').where({ user_id: w.editor.id, subject_title: 'Elsewhere' })).length, 1);

    const other = (await w.t.request.post('/api/v1/workspaces').set(w.admin.auth).send({ name: 'Doomed' }).expect(201)).body.id;
    await w.notify([{ ...about(w.admin.id, 'invite', 'In the doomed one'), workspaceId: other, actorId: w.editor.id }]);
    assert.equal((await w.t.db('notifications').where({ workspace_id: other })).length, 1);
    await w.t.request.delete(`/api/v1/workspaces/${other}`).set(w.admin.auth).expect(204);
    assert.deepEqual(await w.t.db('notifications').where({ workspace_id: other }).select('id'), []);

    await w.notify([about(w.admin.id, 'mention', 'By the editor', { actorId: w.editor.id })]);
    await w.t.request.post(`/api/v1/admin/users/${w.editor.id}/erase`).set(w.admin.auth).send({ confirm: w.editor.email }).expect(200);
    assert.deepEqual(await w.t.db('notifications').where({ user_id: w.editor.id }).select('id'), []);
    assert.deepEqual(await w.t.db('notifications').where({ actor_id: w.editor.id }).select('id'), []);
    assert.equal((await w.t.db('notifications').where({ user_id: w.admin.id, subject_title: 'By the editor' }).first('actor_id')).actor_id, null);
  });
});
