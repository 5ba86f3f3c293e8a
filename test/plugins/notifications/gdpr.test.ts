import assert from 'node:assert/strict';
import type { NotificationInput } from '../../../plugins/notifications/public.ts';
import { finished, unzipJson } from '../gdpr/helpers.ts';
import { notificationsWorld, type NotificationsWorld } from './setup.ts';

describe('notifications: personal data', () => {
  let w: NotificationsWorld;
  const about = (userId: string, actorId: string, title: string): NotificationInput => ({
    workspaceId: w.ws,
    userId,
    type: 'mention',
    actorId,
    subject: { type: 'record', id: crypto.randomUUID(), title },
  });

  before(async () => {
    w = await notificationsWorld();
  });
  after(() => w.t.stop());

  it("exports a member's notifications; erasing them deletes theirs and leaves others' without them as actor", async () => {
    // Both were just mailed, so the digest job (every minute) cannot empty their mail queues while this test runs.
    await w.t.db('notifications_digests').insert([w.member.id, w.editor.id].map((user_id) => ({ user_id, last_sent_at: new Date() })));
    await w.notify([about(w.member.id, w.editor.id, 'For Mia'), about(w.editor.id, w.member.id, 'By Mia')]);
    await w.notify([about(w.member.id, w.admin.id, 'Mailed to Mia')]);

    const queued = (await w.t.request.post(w.api(`/members/${w.member.id}/data-export`)).set(w.admin.auth).expect(202)).body.id;
    const done = await finished(w.t, w.api(`/data-exports/${queued}`), w.admin.auth);
    const zip = await w.t.request.get(done.download_url!).set(w.admin.auth).buffer(true).parse((res, cb) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => cb(null, Buffer.concat(chunks)));
    });
    const exported = unzipJson(zip.body as Buffer)['notifications.json'] as Array<{ subject_title: string; type: string }>;
    assert.deepEqual(exported.map((n) => n.subject_title).sort(), ['For Mia', 'Mailed to Mia']);

    const res = await w.t.request.post(w.api(`/members/${w.member.id}/erase`)).set(w.admin.auth).send({ confirm: w.member.email }).expect(200);
    const report = res.body.reports.find((r: { kind: string }) => r.kind === 'notifications');
    assert.deepEqual([report.deleted, report.pseudonymised], [4, 2], 'theirs: two in the inbox, two waiting for mail; the one they caused: in the inbox and waiting for mail');
    assert.deepEqual(await w.t.db('notifications').where({ user_id: w.member.id }).select('id'), []);
    assert.deepEqual(await w.t.db('notifications_emails').where({ user_id: w.member.id }).select('id'), []);
    const [left] = (await w.t.request.get(w.api('/notifications')).set(w.editor.auth).expect(200)).body.data;
    assert.deepEqual([left.subject.title, left.actor], ['By Mia', null]);
  });
});
