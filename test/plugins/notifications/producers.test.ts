import assert from 'node:assert/strict';
import { definePlugin } from '../../../core/plugin.ts';
import { versionConflict } from '../../../core/errors.ts';
import { notificationsWorld, type NotificationsWorld } from './setup.ts';

/** Refuses, after every other tap ran, a write whose record is named `boom`: the write fails after notifications were written in it. */
const refuser = definePlugin({
  id: 'notification-refuser',
  version: '1.0.0',
  kernel: '^1.0.0',
  dependsOn: { records: '^1.0.0', notifications: '^1.0.0' },
  register(ctx) {
    ctx.hooksOf('records.changes').changed.tapPromise('notification-refuser', async ({ changes }) => {
      if (changes.some((c) => c.after?.values.name === 'boom')) throw versionConflict(0);
    });
  },
});

interface Row {
  user_id: string;
  type: string;
  actor_id: string | null;
  subject_type: string;
  subject_id: string;
  subject_title: string | null;
  record_id: string | null;
  database_id: string | null;
  data: Record<string, unknown>;
}

describe('notifications: what record writes send', () => {
  let w: NotificationsWorld;
  // Record changes are told once their writes' events are fanned out: read after that.
  const rows = async (where: Partial<Row> = {}): Promise<Row[]> => (await w.t.kernel.events.settle(), w.t.db('notifications')).where(where).orderBy('created_at').select('user_id', 'type', 'actor_id', 'subject_type', 'subject_id', 'subject_title', 'record_id', 'database_id', 'data');
  const create = async (auth: Record<string, string>, values: Record<string, unknown>) => (await w.t.request.post(w.records()).set(auth).send({ values }).expect(201)).body.id as string;
  const patch = (auth: Record<string, string>, id: string, values: Record<string, unknown>) => w.t.request.patch(w.records(`/${id}`)).set(auth).send({ values });
  const watch = (auth: Record<string, string>, id: string) => w.t.request.put(w.records(`/${id}/watch`)).set(auth).expect(201);

  before(async () => {
    // No workers: the digest job runs every minute and mails (so empties) a queue an assertion is about to read.
    w = await notificationsWorld({ extra: [refuser], config: { jobs: { enabled: false } } });
  });
  after(() => w.t.stop());
  beforeEach(async () => {
    await w.t.db('notifications').delete();
    await w.t.db('notifications_emails').delete();
    await w.t.db('users_preferences').delete();
  });

  it("tells a record's watchers it changed (record_updated), never the one who changed it", async () => {
    const id = await create(w.editor.auth, { name: 'Deal' });
    await watch(w.member.auth, id);
    await watch(w.editor.auth, id);
    await patch(w.editor.auth, id, { score: 3 }).expect(200);
    assert.deepEqual(await rows(), [
      {
        user_id: w.member.id,
        type: 'record_updated',
        actor_id: w.editor.id,
        subject_type: 'record',
        subject_id: id,
        subject_title: 'Deal',
        record_id: id,
        database_id: w.db,
        data: { changed_fields: ['score'] },
      },
    ]);
    await w.t.kernel.events.settle();
    const shown = (await w.t.request.get(w.api('/notifications')).set(w.member.auth).expect(200)).body.data;
    assert.deepEqual([shown[0].actor, shown[0].subject], [{ id: w.editor.id, name: 'Eddie' }, { type: 'record', id, title: 'Deal' }]);

    await w.t.db('notifications').delete();
    await patch(w.admin.auth, id, { name: 'Deal 2' }).expect(200);
    assert.deepEqual((await rows()).map((r) => [r.user_id, r.subject_title]).sort(), [[w.editor.id, 'Deal 2'], [w.member.id, 'Deal 2']].sort());
  });

  it('tells the watchers of every record a bulk patch changes, in one go', async () => {
    const a = await create(w.editor.auth, { name: 'A' });
    const b = await create(w.editor.auth, { name: 'B' });
    const c = await create(w.editor.auth, { name: 'C' });
    await watch(w.member.auth, a);
    await watch(w.member.auth, b);
    await watch(w.admin.auth, b);
    await w.t.request
      .patch(w.records())
      .set(w.editor.auth)
      .send({ records: [a, b, c].map((id) => ({ id, values: { score: 7 } })) })
      .expect(200);
    const sent = (await rows({ type: 'record_updated' })).map((r) => [r.user_id, r.subject_title]);
    assert.deepEqual(sent.sort(), [[w.member.id, 'A'], [w.member.id, 'B'], [w.admin.id, 'B']].sort());
  });

  it('tells a user set in a user cell (assigned) on create and update, once, unless they set themselves or cannot see the database', async () => {
    const id = await create(w.editor.auth, { name: 'Task', owner: w.member.id });
    assert.deepEqual((await rows()).map((r) => [r.user_id, r.type, r.subject_title, r.data]), [[w.member.id, 'assigned', 'Task', { field: 'owner', field_name: 'Owner' }]]);

    await watch(w.member.auth, id);
    await w.t.db('notifications').delete();
    await patch(w.editor.auth, id, { score: 1 }).expect(200);
    assert.deepEqual((await rows()).map((r) => r.type), ['record_updated'], 'the owner unchanged: no new assignment');

    await w.t.db('notifications').delete();
    await patch(w.editor.auth, id, { owner: w.editor.id }).expect(200);
    assert.deepEqual((await rows()).map((r) => [r.user_id, r.type]), [[w.member.id, 'record_updated']], 'assigning oneself tells nobody');

    await w.t.db('notifications').delete();
    await patch(w.editor.auth, id, { owner: w.member.id }).expect(200);
    assert.deepEqual((await rows()).map((r) => [r.user_id, r.type]), [[w.member.id, 'assigned']], 'a watcher assigned hears it once, as assigned');

    await w.t.db('notifications').delete();
    await create(w.editor.auth, { name: 'Hidden', owner: w.guest.id });
    assert.deepEqual(await rows(), [], 'the guest does not see D');
  });

  it("follows each recipient's delivery: inbox off leaves no row, email off queues no mail", async () => {
    await w.t.request.patch('/api/v1/me/preferences').set(w.member.auth).send({ notifications: { assigned: { inbox: false } } }).expect(200);
    await w.t.request.patch('/api/v1/me/preferences').set(w.admin.auth).send({ notifications: { assigned: { email: false } } }).expect(200);
    await create(w.editor.auth, { name: 'A', owner: w.member.id });
    await create(w.editor.auth, { name: 'B', owner: w.admin.id });
    assert.deepEqual((await rows()).map((r) => [r.user_id, r.subject_title]), [[w.admin.id, 'B']]);
    const queued = await w.t.db('notifications_emails').select('user_id', 'subject_title');
    assert.deepEqual(queued, [{ user_id: w.member.id, subject_title: 'A' }]);
  });

  it('leaves no notification and no mail behind when the write fails', async () => {
    const id = await create(w.editor.auth, { name: 'Fine' });
    await watch(w.member.auth, id);
    await w.t.db('notifications').delete();
    await w.t.db('notifications_emails').delete();
    await patch(w.editor.auth, id, { name: 'boom', owner: w.member.id }).expect(409);
    await w.t.request.post(w.records()).set(w.editor.auth).send({ values: { name: 'boom', owner: w.member.id } }).expect(409);
    assert.deepEqual(await rows(), []);
    assert.deepEqual(await w.t.db('notifications_emails').select('id'), []);
  });

  it('forgets what was sent about records purged from the trash', async () => {
    const gone = await create(w.editor.auth, { name: 'Gone', owner: w.member.id });
    const kept = await create(w.editor.auth, { name: 'Kept', owner: w.member.id });
    await w.t.request.delete(w.records(`/${gone}`)).set(w.editor.auth).expect(204);
    assert.deepEqual((await rows()).map((r) => r.record_id), [gone, kept], 'the trash keeps them');
    await w.t.container.resolverFor('records')('records.trash').purge(new Date(Date.now() + 365 * 86_400_000));
    assert.deepEqual((await rows()).map((r) => r.record_id), [kept]);
    assert.deepEqual((await w.t.db('notifications_emails').select('record_id')).map((r) => r.record_id), [kept]);
  });
});
