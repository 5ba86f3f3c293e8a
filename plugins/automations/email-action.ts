import { inTransaction, type Db } from '../../core/db.ts';
import { Type, type Static } from '../../core/schema.ts';
import type { MailSender } from '../mail/public.ts';
import { StepFailed, type ActionDefinition } from './actions.ts';

const EMAIL = /^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;
// An address, or one placeholder (`{{record.email}}`) that becomes one when the run fills it.
const Address = Type.String({ maxLength: 320, pattern: '^([^\\s@<>]+@[^\\s@<>]+\\.[^\\s@<>]+|\\{\\{\\s*[a-z_]+(\\.[A-Za-z0-9_]+)*\\s*\\}\\})$', description: 'An email address, or one placeholder holding one.' });
const MAX_RECIPIENTS = 50;

const SendEmail = Type.Object(
  {
    to: Type.Union([Address, Type.Array(Address, { minItems: 1, maxItems: MAX_RECIPIENTS, uniqueItems: true })], { description: `One address or a list of at most ${MAX_RECIPIENTS}.` }),
    subject: Type.String({ minLength: 1, maxLength: 500 }),
    text: Type.String({ minLength: 1, maxLength: 100_000 }),
  },
  { additionalProperties: false },
);
type SendEmail = Static<typeof SendEmail>;

const recipients = (to: SendEmail['to']) => (Array.isArray(to) ? to : [to]);

/**
 * `send_email`: one message per recipient through `mail.sender`, all queued in one transaction; the mail plugin
 * delivers each durably and retries the delivery itself. Not retry-safe: each `send` is a new message (its delivery id
 * is made per call), so doing the step again after the messages were queued would mail every recipient twice.
 */
export function emailAction(db: () => Db, mail: () => MailSender): ActionDefinition<SendEmail> {
  return {
    type: 'send_email',
    schema: SendEmail,
    retrySafe: false,
    async run(ctx) {
      const to = recipients(ctx.config.to);
      // Placeholders are filled after the save-time check: a `{{record.x}}` address is checked here.
      const bad = to.filter((address) => typeof address !== 'string' || !EMAIL.test(address));
      if (bad.length > 0) throw new StepFailed(`Not an email address: ${bad.map((a) => JSON.stringify(a)).join(', ')}.`);
      // One transaction: every recipient's message is queued, or none is.
      await inTransaction(db(), async (trx) => {
        for (const address of to) await mail().send({ to: address, subject: String(ctx.config.subject ?? ''), text: String(ctx.config.text ?? '') }, trx);
      });
      return { sent: to.length };
    },
    dryRun: async (ctx) => ({ to: recipients(ctx.config.to), subject: ctx.config.subject, text: ctx.config.text }),
  };
}
