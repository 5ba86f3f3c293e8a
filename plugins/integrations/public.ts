/** What provider plugins and the plugins that use connections (sources, agents) may import from this one. */
export { ActionFailed, CATEGORIES, EVENT_PATTERN, refused } from './hooks.ts';
export type { CredentialField, Credentials, InboundDelivery, IntegrationProvider, ProviderAction, ProviderAuth, ProviderCategory, ProviderHooks, ReadDelivery, Refusal, TestOutcome } from './hooks.ts';
export type { IntegrationEventPayload } from './inbox.service.ts';
export type { ConnectionService } from './connections.service.ts';
export type { ConnectionOAuth } from './oauth.service.ts';
export { TokenRejected } from './oauth.service.ts';
export { AnswerTooLarge, describeFailure, readCapped, redact } from './provider-http.ts';
export { eventWord, headerOf, refusal } from './delivery-reading.ts';
