/** What other plugins may use from the webhooks plugin: the services' types (nothing is exported for resolution yet). */
export type { WebhookService } from './webhooks.service.ts';
export type { DeliveryService } from './deliveries.service.ts';
