import assert from 'node:assert/strict';
import { captureLogs } from '../../fixtures/log-capture.ts';
import { waitUntil } from '../../fixtures/wait.ts';
import { notificationsWorld, type NotificationsWorld } from './setup.ts';

/** No publicUrl: mail links still open from a mail client, pointing at the address the server listens on. */
describe('notifications: mail links without a publicUrl', () => {
  let w: NotificationsWorld;
  const logs = captureLogs();

  before(async () => {
    w = await notificationsWorld({ logger: logs.logger });
  });
  after(() => w.t.stop());

  it('warns at start that the server listens on loopback only, naming the address links will carry', () => {
    const warning = logs.lines.find((l) => typeof l.msg === 'string' && l.msg.startsWith('No publicUrl is set'));
    assert.ok(warning, JSON.stringify(logs.lines));
    assert.equal(warning.publicUrl, w.t.url);
    assert.match(warning.msg, /PUBLIC_URL/);
  });

  it('mails absolute links to the listening address, with a List-Unsubscribe header (no one-click POST over plain HTTP)', async () => {
    await w.notify([{ workspaceId: w.ws, userId: w.member.id, type: 'mention', actorId: w.admin.id, subject: { type: 'record', id: crypto.randomUUID(), title: 'Alpha' } }]);
    await w.t.container.resolverFor('notifications')('notifications.digest').sendDue();
    const [mail] = await waitUntil('the digest', async () => {
      const mails = await w.t.db('mail_outbox').where({ to: w.member.email }).select('text', 'headers');
      return mails.length > 0 && mails;
    });
    const prefix = `${w.t.url}/api/v1/public/notifications/unsubscribe/`;
    const line = mail.text.split('\n').find((l: string) => l.startsWith('Stop emails about mentions: '));
    assert.ok(line?.includes(`: ${prefix}`), mail.text);
    assert.ok(mail.headers['List-Unsubscribe'].startsWith(`<${prefix}`), JSON.stringify(mail.headers));
    assert.equal(mail.headers['List-Unsubscribe-Post'], undefined, 'RFC 8058 one-click needs an HTTPS link');
    // The link opens as it is.
    const res = await fetch(line!.slice(line!.indexOf(': ') + 2));
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { type: 'mention', types: ['mention'], email: false });
  });
});
