import { AsyncSeriesBailHook } from '../../core/hooks.ts';
import type { SortInput } from './sort-keys.ts';

/** Which view a record query names, for whom. */
export interface ViewLookup {
  workspaceId: string;
  databaseId: string;
  viewId: string;
  userId: string;
}

/** What a view adds to a record query: its filters (ANDed) and its sorts, fields named by api_name. */
export interface QueryView {
  /** The view's own filter, then the caller's personal override, each a filter AST. */
  filters: unknown[];
  sorts?: SortInput[];
}

/**
 * `records.views`: the plugin that owns views (views) answers `view_id` in record queries;
 * undefined (no tap, or no such view in the database) makes the query a 422.
 */
export function createRecordViewHooks() {
  return {
    resolve: new AsyncSeriesBailHook<[ViewLookup], QueryView | undefined>(['lookup']),
  };
}

export type RecordViewHooks = Readonly<ReturnType<typeof createRecordViewHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'records.views': RecordViewHooks;
  }
}
