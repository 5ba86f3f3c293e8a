/** What provider plugins that add source kinds may import from the sources plugin: the kind contract and its errors. */
export { CursorExpired, RateLimited, SourceRefused, SourceUnavailable } from './hooks.ts';
export type { PushChannel, SourceInput, SourceKind, SourceKindHooks, SourcePage, SourceProperty, SourceRow } from './hooks.ts';
/** Cells made to fit the field types' rules, for kinds turning a provider's values into rows. */
export { emailCell, instantCell, LONG_TEXT_MAX, textCell, TEXT_MAX, urlCell } from './cells.ts';
