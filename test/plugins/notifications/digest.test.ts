import assert from 'node:assert/strict';
import { startTestKernel } from '../../../core/testing.ts';
import type { NotificationInput } from '../../../plugins/notifications/public.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { notificationsWorld, type NotificationsWorld } from './setup.ts';

const PUBLIC_URL = 'https://tessera.example';

describe('notifications: the email digest and unsubscribing', () => {
  let w: NotificationsWorld;
  const outboxFor = (to: string) => w.t.db('mail_outbox').where({ to }).orderBy('created_at').select('subject', 'text', 'headers');
  const digest = () => w.t.container.resolverFor('notifications')('notifications.digest');
  const about = (type: string, title: string): NotificationInput => ({
    workspaceId: w.ws,
    userId: w.member.id,
    type,
    actorId: w.admin.id,
    subject: { type: 'record', id: crypto.randomUUID(), title },
  });
  const linkFor = (text: string, what: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`Stop emails about ${what}:`));
    assert.ok(line, `an unsubscribe line for ${what} in:\n${text}`);
    const url = line.slice(line.indexOf(': ') + 2);
    assert.ok(url.startsWith(`${PUBLIC_URL}/api/v1/public/notifications/unsubscribe/`), url);
    return url.slice(PUBLIC_URL.length);
  };

  before(async () => {
    w = await notificationsWorld({ config: { publicUrl: PUBLIC_URL } });
  });
  after(() => w.t.stop());

  it('mails one digest for several notifications, then nothing more until the window has passed', async () => {
    await w.notify([about('mention', 'Alpha'), about('assigned', 'Beta')]);
    await w.notify([about('mention', 'Gamma')]);
    await digest().sendDue();
    const [first] = await waitUntil('the first digest', async () => {
      const mails = await outboxFor(w.member.email);
      return mails.length > 0 && mails;
    });
    assert.equal(first.subject, '3 new notifications');
    for (const line of ['- Ada mentioned you on “Alpha”', '- Ada assigned you to “Beta”', '- Ada mentioned you on “Gamma”']) assert.ok(first.text.includes(line), `${line} in:\n${first.text}`);
    linkFor(first.text, 'mentions');
    linkFor(first.text, 'assignments');
    // One-click unsubscribe (RFC 8058): an absolute HTTPS link for every type the mail holds.
    assert.match(first.headers['List-Unsubscribe'], new RegExp(`^<${PUBLIC_URL}/api/v1/public/notifications/unsubscribe/[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+>$`));
    assert.equal(first.headers['List-Unsubscribe-Post'], 'List-Unsubscribe=One-Click');
    assert.deepEqual(await w.t.db('notifications_emails').where({ user_id: w.member.id }).select('id'), [], 'the queue is emptied');

    await w.notify([about('comment', 'Delta')]);
    assert.equal(await digest().sendDue(), 0, 'within the window: nothing');
    assert.equal(await digest().sendDue(new Date(Date.now() + 11 * 60_000)), 1, 'once the window has passed');
    const mails = await waitUntil('the second digest', async () => {
      const found = await outboxFor(w.member.email);
      return found.length === 2 && found;
    });
    assert.equal(mails[1].subject, '1 new notification');
    assert.ok(mails[1].text.includes('- Ada commented on “Delta”'));
    assert.ok(!mails[1].text.includes('Alpha'), 'only what arrived since the last digest');
    assert.equal((await outboxFor(w.admin.email)).length, 0, 'the actor got nothing');
  });

  it('unsubscribes from one type by the link, without a credential, idempotently; a bad token is a 404', async () => {
    const [mail] = await outboxFor(w.member.email);
    const link = linkFor(mail.text, 'mentions');
    assert.deepEqual((await w.t.request.get(link).expect(200)).body, { type: 'mention', types: ['mention'], email: false });
    const prefs = (await w.t.request.get('/api/v1/me/preferences').set(w.member.auth).expect(200)).body;
    assert.deepEqual(prefs.notifications, { mention: { inbox: true, email: false } });
    await w.t.request.get(link).expect(200);
    await w.t.request.post(link).expect(200);
    assert.deepEqual((await w.t.request.get('/api/v1/me/preferences').set(w.member.auth).expect(200)).body.notifications, { mention: { inbox: true, email: false } });

    const token = link.split('/').pop()!;
    const [payload, signature] = token.split('.');
    const forged = `${Buffer.from(JSON.stringify([w.admin.id, 'mention'])).toString('base64url')}.${signature}`;
    for (const bad of [forged, `${payload}.${signature.slice(0, -2)}xx`, 'nonsense', `${payload}`]) {
      const res = await w.t.request.get(`/api/v1/public/notifications/unsubscribe/${bad}`).expect(404);
      assert.equal(res.body.code, 'not_found');
    }
    await w.t.request.post(`/api/v1/public/notifications/unsubscribe/${forged}`).expect(404);

    await w.notify([about('mention', 'Epsilon'), about('assigned', 'Zeta')]);
    assert.deepEqual((await w.t.db('notifications_emails').where({ user_id: w.member.id }).select('type')).map((r) => r.type), ['assigned'], 'no mail for mentions any more');
    assert.equal((await w.t.db('notifications').where({ user_id: w.member.id, subject_title: 'Epsilon' })).length, 1, 'the inbox still gets them');
  });

  it("takes a mail client's one-click POST of the List-Unsubscribe link, as a form, for every type of the mail", async () => {
    await w.t.request.patch('/api/v1/me/preferences').set(w.editor.auth).send({ notifications: { mention: { email: true }, assigned: { email: true } } }).expect(200);
    await w.notify([about('mention', 'Eta'), about('assigned', 'Theta')].map((n) => ({ ...n, userId: w.editor.id })));
    await digest().sendDue();
    const [mail] = await waitUntil('the digest', async () => {
      const mails = await outboxFor(w.editor.email);
      return mails.length > 0 && mails;
    });
    const link = mail.headers['List-Unsubscribe'].slice(1 + PUBLIC_URL.length, -1);
    const emails = async () => (await w.t.request.get('/api/v1/me/preferences').set(w.editor.auth).expect(200)).body.notifications;

    // Refused, changing nothing: another field, a JSON body, a file.
    const stray = await w.t.request.post(link).type('form').send('List-Unsubscribe=One-Click&also=1').expect(422);
    assert.equal(stray.body.code, 'validation_failed');
    await w.t.request.post(link).send({ 'List-Unsubscribe': 'One-Click' }).expect(415);
    await w.t.request.post(link).attach('file', Buffer.from('x'), 'x.txt').expect(422);
    assert.deepEqual(await emails(), { mention: { inbox: true, email: true }, assigned: { inbox: true, email: true } });

    const res = await w.t.request.post(link).type('form').send('List-Unsubscribe=One-Click').expect(200);
    assert.deepEqual(res.body, { type: 'mention', types: ['mention', 'assigned'], email: false });
    assert.deepEqual(await emails(), { mention: { inbox: true, email: false }, assigned: { inbox: true, email: false } });
    // As multipart/form-data too (what RFC 8058 suggests clients send).
    await w.t.request.post(link).field('List-Unsubscribe', 'One-Click').expect(200);
  });

  it('keeps the inbox setting of the type as it was when a link turns its email off', async () => {
    await w.t.request.patch('/api/v1/me/preferences').set(w.admin.auth).send({ notifications: { comment: { inbox: false }, assigned: { email: true } } }).expect(200);
    const token = await w.t.container.resolverFor('notifications')('notifications.unsubscriber').token(w.admin.id, 'comment');
    await w.t.request.post(`/api/v1/public/notifications/unsubscribe/${token}`).expect(200);
    const prefs = (await w.t.request.get('/api/v1/me/preferences').set(w.admin.auth).expect(200)).body.notifications;
    assert.deepEqual(prefs, { comment: { inbox: false, email: false }, assigned: { inbox: true, email: true } });
  });

  it('refuses options out of range at start-up', async () => {
    await assert.rejects(startTestKernel({ config: { plugins: { notifications: { options: { emailDigestMinutes: 0 } } } } }), /emailDigestMinutes/);
  });
});
