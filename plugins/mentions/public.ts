/** What other plugins may use from the mentions plugin: its hook set and the mention's shape. */
export type { MentionHooks, MentionSource, MentionsRecorded } from './hooks.ts';
export { Mention } from './schemas.ts';
