import assert from 'node:assert/strict';
import { startTestKernel, type TestKernel, signUp } from '../../../core/testing.ts';
import { definePlugin } from '../../../core/plugin.ts';
import type { Resolve } from '../../../core/container.ts';
import type { ConfigInput } from '../../../core/config.ts';
import system from '../../../plugins/system/index.ts';
import auth from '../../../plugins/auth/index.ts';
import mail, { type MailMessage, type MailProvider } from '../../../plugins/mail/index.ts';
import { captureLogs } from '../../fixtures/log-capture.ts';
import { sleep, waitUntil } from '../../fixtures/wait.ts';
import { body, header, startSmtpSink, type SmtpSink } from './smtp-sink.ts';

const FROM = 'Tessera <no-reply@tessera.test>';

/** A plugin that sends mail the way any plugin does: through `mail.sender`, resolved after declaring a dependency. */
function senderProbe() {
  let resolve: Resolve | undefined;
  const plugin = definePlugin({
    id: 'mail-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { mail: '^1.0.0' },
    register(ctx) {
      resolve = ctx.resolve;
    },
  });
  return { plugin, sender: () => resolve!('mail.sender') };
}

async function boot(config: ConfigInput, extra: ReturnType<typeof definePlugin>[] = [], logger?: ReturnType<typeof captureLogs>['logger']) {
  const probe = senderProbe();
  const t = await startTestKernel({ plugins: [system, auth, mail, probe.plugin, ...extra], config, logger });
  return { t, sender: probe.sender };
}

const smtpConfig = (port: number, smtp: Record<string, unknown> = {}, retry = { delaySeconds: 1 }): ConfigInput => ({
  plugins: { mail: { options: { smtp: { host: '127.0.0.1', port, secure: false, ...smtp }, from: FROM, retry } } },
});

describe('mail', () => {
  describe('smtp provider', () => {
    let sink: SmtpSink;
    let t: TestKernel;
    let sender: () => ReturnType<ReturnType<typeof senderProbe>['sender']>;

    before(async () => {
      sink = await startSmtpSink({
        authOptional: false,
        allowInsecureAuth: true,
        onAuth(a, _session, callback) {
          if (a.username === 'relay-user' && a.password === 'relay-secret') callback(null, { user: a.username });
          else callback(Object.assign(new Error('Invalid credentials'), { responseCode: 535 }));
        },
      });
      ({ t, sender } = await boot(smtpConfig(sink.port, { user: 'relay-user', password: 'relay-secret' })));
    });
    after(async () => {
      await t?.stop();
      await sink?.close();
    });

    it('delivers a message queued in a committed transaction, and never one whose transaction rolled back', async () => {
      await t.db
        .transaction(async (trx) => {
          await sender().send({ to: 'ghost@example.test', subject: 'Rolled back', text: 'never' }, trx);
          throw new Error('roll back');
        })
        .catch(() => {});
      await t.db.transaction((trx) => sender().send({ to: ' ann@example.test ', subject: 'Hello\r\nBcc: evil@example.test', text: 'Hi Ann, welcome.' }, trx));

      const [got] = await waitUntil('the message to arrive', () => sink.received.length > 0 && sink.received);
      assert.deepEqual(got.to, ['ann@example.test']);
      assert.equal(got.from, 'no-reply@tessera.test');
      assert.equal(got.user, 'relay-user', 'it authenticated with the configured user');
      assert.equal(header(got.raw, 'To'), 'ann@example.test');
      assert.equal(header(got.raw, 'From'), FROM);
      assert.equal(header(got.raw, 'Subject'), 'Hello Bcc: evil@example.test', 'a line break in a subject cannot add a header');
      assert.equal(header(got.raw, 'Bcc'), undefined);
      assert.match(header(got.raw, 'Message-ID')!, /^<[0-9a-f-]{36}@tessera\.test>$/);
      assert.equal(body(got.raw).trim(), 'Hi Ann, welcome.');

      // A later message arriving alone shows the rolled-back one was never queued.
      await sender().send({ to: 'bob@example.test', subject: 'Later', text: 'later' });
      await waitUntil('the later message', () => sink.received.length === 2);
      await sleep(500);
      assert.deepEqual(sink.received.map((m) => m.to[0]), ['ann@example.test', 'bob@example.test']);
    });

    it("sends a caller's own headers (List-Unsubscribe), and refuses at once a header the message owns or a line break", async () => {
      sink.received.length = 0;
      const link = 'https://tessera.test/api/v1/public/notifications/unsubscribe/abc.def';
      await sender().send({ to: 'dan@example.test', subject: 'Digest', text: 'news', headers: { 'List-Unsubscribe': `<${link}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } });
      const [got] = await waitUntil('the message with headers', () => sink.received.length > 0 && sink.received);
      assert.equal(header(got.raw, 'List-Unsubscribe'), `<${link}>`);
      assert.equal(header(got.raw, 'List-Unsubscribe-Post'), 'List-Unsubscribe=One-Click');
      for (const headers of [{ Bcc: 'evil@example.test' }, { 'content-type': 'text/html' }, { 'X-Note': 'one\r\nBcc: evil@example.test' }, { 'Bad Name': 'x' }] as Array<Record<string, string>>) {
        await assert.rejects(sender().send({ to: 'dan@example.test', subject: 'No', text: 'no', headers }), TypeError, JSON.stringify(headers));
      }
    });

    it('retries a message the relay refused for now, with the same Message-ID', async function () {
      this.timeout(30000);
      sink.received.length = 0;
      sink.refuseNext.push(451, 451);
      await sender().send({ to: 'cid@example.test', subject: 'Persistent', text: 'third time lucky', html: '<p>third time lucky</p>' });
      const [got] = await waitUntil('the message after two refusals', () => sink.received.length > 0 && sink.received, 25000);
      assert.deepEqual(got.to, ['cid@example.test']);
      assert.equal(sink.refuseNext.length, 0, 'both refusals were spent first');
      assert.match(got.raw, /multipart\/alternative/);
      assert.match(got.raw, /<p>third time lucky<\/p>/);
    });
  });

  it('sends over STARTTLS when required, trusting a self-signed relay only when told to', async () => {
    const sink = await startSmtpSink({ disabledCommands: [] });
    const { t, sender } = await boot(smtpConfig(sink.port, { requireTLS: true, rejectUnauthorized: false }));
    try {
      await sender().send({ to: 'tls@example.test', subject: 'Encrypted', text: 'over TLS' });
      const [got] = await waitUntil('the message over TLS', () => sink.received.length > 0 && sink.received);
      assert.equal(got.secure, true);
      assert.equal(body(got.raw).trim(), 'over TLS');
    } finally {
      await t.stop();
      await sink.close();
    }
  });

  it('logs a message it gives up on after its retries', async function () {
    this.timeout(30000);
    const logs = captureLogs('warn');
    const failing = definePlugin({
      id: 'failing-mail',
      version: '1.0.0',
      kernel: '^1.0.0',
      register(ctx) {
        const provider: MailProvider = { send: async () => Promise.reject(new Error('relay is down')) };
        ctx.hooks.providers.for('mail').tap('failing', (list) => [...list, { id: 'failing', provider }]);
      },
    });
    const { t, sender } = await boot({ plugins: { mail: { options: { provider: 'failing', retry: { limit: 1, delaySeconds: 1 } } } } }, [failing], logs.logger);
    try {
      await sender().send({ to: 'dan@example.test', subject: 'Doomed', text: 'secret link' });
      const line = await waitUntil('the give-up log line', () => logs.lines.find((l) => l.msg === 'mail could not be delivered; giving up'), 25000);
      assert.equal(line.level, 50);
      assert.equal(line.to, 'dan@example.test');
      assert.equal(line.subject, 'Doomed');
      assert.equal(line.err.message, 'relay is down');
      assert.equal(JSON.stringify(logs.lines).includes('secret link'), false, 'the body (it may hold links) is never logged');
      assert.equal(logs.lines.filter((l) => l.msg === 'job failed; it will be retried' && l.job === 'mail.deliver').length, 2, 'the first attempt and one retry');
    } finally {
      await t.stop();
    }
  });

  it('delivers through a provider another plugin adds to the providers hook', async () => {
    const delivered: MailMessage[] = [];
    const memory = definePlugin({
      id: 'memory-mail',
      version: '1.0.0',
      kernel: '^1.0.0',
      register(ctx) {
        const provider: MailProvider = { send: async (message) => void delivered.push(message) };
        ctx.hooks.providers.for('mail').tap('memory', (list) => [...list, { id: 'memory', provider }]);
      },
    });
    const { t, sender } = await boot({ plugins: { mail: { options: { provider: 'memory' } } } }, [memory]);
    try {
      await sender().send({ to: 'eve@example.test', subject: 'Via memory', text: 'stored in memory' });
      await waitUntil('the memory provider to get it', () => delivered.length === 1);
      assert.deepEqual(delivered, [{ to: 'eve@example.test', subject: 'Via memory', text: 'stored in memory' }]);
      assert.equal((await t.db('mail_outbox').count({ n: '*' }))[0].n, 0);
    } finally {
      await t.stop();
    }
  });

  it('refuses to start with a provider no plugin adds, naming those that exist', async () => {
    await assert.rejects(startTestKernel({ plugins: [system, auth, mail], config: { plugins: { mail: { options: { provider: 'sendgrid' } } } } }), (err: Error) => {
      assert.match(err.message, /Mail provider "sendgrid".*available: "outbox"/);
      return true;
    });
    await assert.rejects(startTestKernel({ plugins: [system, auth, mail], config: { plugins: { mail: { options: { smtp: { host: '127.0.0.1' } } } } } }), /"from" is required/);
  });

  describe('outbox provider (no smtp configured)', () => {
    let t: TestKernel;
    let sender: () => ReturnType<ReturnType<typeof senderProbe>['sender']>;

    before(async () => {
      ({ t, sender } = await boot({}));
    });
    after(() => t.stop());

    it('stores messages for instance admins to read, newest first, paginated', async () => {
      const admin = await signUp(t); // the first user is the instance admin
      const other = await signUp(t);
      await t.db.transaction(async (trx) => {
        await sender().send({ to: 'first@example.test', subject: 'First', text: 'one' }, trx);
      });
      await waitUntil('the first message stored', async () => (await t.db('mail_outbox').where({ to: 'first@example.test' })).length === 1);
      await sender().send({ to: 'second@example.test', subject: 'Second', text: 'two', html: '<b>two</b>', headers: { 'List-Unsubscribe': '<https://tessera.test/u>' } });
      await waitUntil('the second message stored', async () => (await t.db('mail_outbox').where({ to: 'second@example.test' })).length === 1);

      const page1 = await t.request.get('/api/v1/admin/mail/outbox?limit=1').set(admin.auth);
      assert.equal(page1.status, 200);
      assert.equal(page1.body.data.length, 1);
      assert.deepEqual(
        { ...page1.body.data[0], id: undefined, created_at: undefined },
        { id: undefined, to: 'second@example.test', subject: 'Second', text: 'two', html: '<b>two</b>', headers: { 'List-Unsubscribe': '<https://tessera.test/u>' }, created_at: undefined },
      );
      assert.ok(page1.body.next_cursor);
      const page2 = await t.request.get(`/api/v1/admin/mail/outbox?limit=1&cursor=${page1.body.next_cursor}`).set(admin.auth);
      assert.deepEqual(page2.body.data.map((m: { to: string; html: unknown; headers: unknown }) => [m.to, m.html, m.headers]), [['first@example.test', null, null]]);
      assert.equal(page2.body.next_cursor, null);

      assert.equal((await t.request.get('/api/v1/admin/mail/outbox').set(other.auth)).status, 403);
      assert.equal((await t.request.get('/api/v1/admin/mail/outbox')).status, 401);
    });
  });
});
