/** What other plugins (the one acting on bounced addresses) may import from this one: the shape of its events. */
export { SENDGRID_EVENTS, SES_BOUNCE, SES_COMPLAINT } from './payloads.ts';
export type { MailBouncePayload, SendgridBatch, SesMailEvent } from './payloads.ts';
