/** What provider plugins that add source kinds may import from the sources plugin: the kind contract and its errors. */
export { CursorExpired, RateLimited, SourceRefused, SourceUnavailable } from './hooks.ts';
export type { PushChannel, SourceInput, SourceKind, SourceKindHooks, SourcePage, SourceProperty, SourceRow } from './hooks.ts';
