import assert from 'node:assert/strict';
import { generateKeyPairSync, sign } from 'node:crypto';
import { createWorkspace, joinWorkspace, signUp, startTestKernel, type SignedUpUser, type TestKernel } from '../../../core/testing.ts';
import { waitUntil } from '../../fixtures/wait.ts';

/**
 * Bounces end to end: SendGrid's Event Webhook (signed with an ECDSA P-256 key made here, its public key in the plugin's
 * options) posted to an instance admin's mail-bounces connection marks the accounts it names; the admin list shows it;
 * a bouncing address gets no notification digest.
 */
describe('integration-mail-bounces: marking addresses', function () {
  const keys = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicKey = keys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');
  let t: TestKernel;
  let root: SignedUpUser;
  let member: SignedUpUser;
  let other: SignedUpUser;
  let ws: string;

  before(async () => {
    t = await startTestKernel({ config: { plugins: { 'integration-mail-bounces': { options: { sendgridPublicKey: publicKey } } } } });
    root = await signUp(t);
    member = await signUp(t);
    other = await signUp(t);
    ws = (await createWorkspace(t, root)).id;
    await joinWorkspace(t, root, ws, member, 'admin');
  });
  after(() => t.stop());

  const post = (connection: string, events: object[]) => {
    const body = JSON.stringify(events);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const signature = sign('sha256', Buffer.from(timestamp + body), keys.privateKey).toString('base64');
    return t.request
      .post(`/api/v1/integrations/mail-bounces/webhook/${connection}`)
      .set({ 'content-type': 'application/json', 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': timestamp })
      .send(body);
  };
  const statusOf = async (user: SignedUpUser) => (await t.db('users').where({ id: user.id }).first('email_status')).email_status;

  it('lets only an instance admin connect it', async () => {
    const refused = await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(member.auth).send({ provider: 'mail-bounces', name: 'Bounces' });
    assert.equal(refused.status, 403);
    assert.equal(await t.db('integration_connections').where({ provider: 'mail-bounces' }).count({ n: '*' }).then((r) => Number(r[0].n)), 0);
  });

  it('marks a bounced address bouncing and a complaining one complained, which the admin list shows and digests respect', async () => {
    const connection = (await t.request.post(`/api/v1/workspaces/${ws}/connections`).set(root.auth).send({ provider: 'mail-bounces', name: 'Bounces' }).expect(201)).body;
    const res = await post(connection.id, [
      { email: member.email.toUpperCase(), event: 'bounce', type: 'bounce', sg_event_id: 'e1', timestamp: 1 },
      { email: other.email, event: 'spamreport', sg_event_id: 'e2', timestamp: 1 },
      { email: root.email, event: 'bounce', type: 'blocked', sg_event_id: 'e3', timestamp: 1 },
    ]);
    assert.equal(res.status, 202);
    await t.kernel.events.settle();
    assert.equal(await statusOf(member), 'bouncing');
    assert.equal(await statusOf(other), 'complained');
    assert.equal(await statusOf(root), 'ok', 'a blocked message is not a bounce of the address');

    // A later bounce does not soften a complaint.
    assert.equal((await post(connection.id, [{ email: other.email, event: 'bounce', type: 'bounce', sg_event_id: 'e4', timestamp: 2 }])).status, 202);
    await t.kernel.events.settle();
    assert.equal(await statusOf(other), 'complained');

    const listed = (await t.request.get('/api/v1/admin/users').set(root.auth).expect(200)).body.data;
    assert.equal(listed.find((u: { id: string }) => u.id === member.id).email_status, 'bouncing');

    const mails = async (user: SignedUpUser) => Number((await t.db('mail_outbox').where({ to: user.email }).count({ n: '*' }))[0].n);
    const before = { member: await mails(member), root: await mails(root) };
    const notify = t.container.resolverFor('notifications')('notifications.service');
    for (const [user, actor] of [[member, root], [root, member]] as const) {
      await notify.notify(t.db, [{ workspaceId: ws, userId: user.id, type: 'mention', actorId: actor.id, subject: { type: 'record', id: crypto.randomUUID(), title: 'Hello' } }]);
    }
    await t.container.resolverFor('notifications')('notifications.digest').sendDue();
    // Mail goes out through the mail plugin's queue: the digest that is sent shows up shortly.
    await waitUntil('the digest of the address that takes mail', async () => ((await mails(root)) === before.root + 1 ? true : null), 10000);
    assert.equal(await mails(member), before.member, 'a bouncing address gets none');
  });
});
