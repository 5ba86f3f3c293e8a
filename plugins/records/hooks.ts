import type { Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { AsyncSeriesBailHook, AsyncSeriesHook, SyncHook } from '../../core/hooks.ts';
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

/** Records gone for good (`purged`): hard-deleted from their table, inside the deleting transaction. */
export interface RecordsPurged {
  trx: Db;
  databaseId: string;
  recordIds: string[];
}

/** Records moved to the trash (`trashed`) or back out of it (`restored`), inside the moving transaction. */
export interface RecordsTrashMoved {
  trx: Db;
  workspaceId: string;
  databaseId: string;
  recordIds: string[];
  actor: UserPrincipal;
}

/**
 * `records.lifecycle`: what happens to records that other plugins keep something about (favorites, comments,
 * activity). Each stage runs once per batch, in the batch's transaction, so a tap's writes commit with the change
 * and a tap that throws undoes it: `trashed` and `restored` when records enter or leave the trash (a single
 * delete too), `purged` when they leave it for good.
 */
export function createRecordLifecycle() {
  return {
    trashed: new AsyncSeriesHook<[RecordsTrashMoved]>(['trash']),
    restored: new AsyncSeriesHook<[RecordsTrashMoved]>(['trash']),
    purged: new AsyncSeriesHook<[RecordsPurged]>(['purge']),
  };
}

export type RecordLifecycle = Readonly<ReturnType<typeof createRecordLifecycle>>;

/** A record query that ran: the fields its caller filtered and sorted on (by id, views' own left out; none for a plain page or search), and how long it took. */
export interface QueryRan {
  workspaceId: string;
  databaseId: string;
  filtered: string[];
  sorted: string[];
  /** Milliseconds from the first statement to the rows. */
  ms: number;
}

/**
 * `records.queries`: what record queries ask of a database, for plugins that learn from it (adaptive indexes). Called
 * after the page is read, synchronously: a tap must not wait on anything.
 */
export function createRecordQueryHooks() {
  return {
    ran: new SyncHook<[QueryRan]>(['query']),
  };
}

export type RecordQueryHooks = Readonly<ReturnType<typeof createRecordQueryHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'records.views': RecordViewHooks;
    'records.lifecycle': RecordLifecycle;
    'records.queries': RecordQueryHooks;
  }
}
