/** What other plugins may use from the webhooks plugin: the services' types (`webhooks.outbound` is exported for resolution). */
export type { WebhookService } from './webhooks.service.ts';
export type { DeliveryService } from './deliveries.service.ts';
/** Standard Webhooks secrets and signatures, for plugins that sign or check the same way (automations' inbound hooks). */
export { newSecret, signature, signedHeaders } from './signing.ts';
/** `webhooks.outbound`: a guarded JSON POST to a user-given URL, and the save-time check of such a URL. */
export type { OutboundPoster } from './outbound.ts';
export type { AttemptResult } from './http-client.ts';
