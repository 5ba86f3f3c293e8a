/** What other plugins may use from the mail plugin: the sender (`mail.sender`) and the message it takes. */
export type { MailMessage, MailProvider, Delivery } from './types.ts';
export type { MailSender } from './sender.ts';
