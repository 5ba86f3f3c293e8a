import type { Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { AsyncSeriesHook, AsyncSeriesWaterfallHook, SyncHook } from '../../core/hooks.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import type { ViewQuery, ViewSummary } from './schemas.ts';

/** `databases.fieldTypes`: plugins bringing field types (links, formulas, attachments) add them at boot. */
export function createFieldTypeHooks() {
  return {
    register: new SyncHook<[FieldTypeRegistry]>(['registry']),
  };
}

export type FieldTypeHooks = Readonly<ReturnType<typeof createFieldTypeHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'databases.fieldTypes': FieldTypeHooks;
  }
}

/** What `databases.databases` taps receive about a database just created, in its transaction. */
export interface DatabaseCreated {
  trx: Db;
  workspaceId: string;
  databaseId: string;
  createdBy: string;
}

/** A database being deleted (alone, or with its space or workspace), inside the deletion's transaction. */
export interface DatabaseDeletion {
  trx: Db;
  workspaceId: string;
  databaseId: string;
  /** Undefined when no user asked (a sweep). */
  actor: UserPrincipal | undefined;
}

/**
 * `databases.databases`: what other plugins add to a database. The views plugin gives every new database its
 * default view, names a database's views in its answers, and hands over the queries its views run so that the
 * fields they filter and sort on get indexes.
 */
export function createDatabaseHooks() {
  return {
    /** In the creating transaction, after the fields. */
    created: new AsyncSeriesHook<[DatabaseCreated]>(['created']),
    /** Before the database's row goes: what reaches into it from other databases (relations) still finds it. */
    deleting: new AsyncSeriesHook<[DatabaseDeletion]>(['deletion']),
    /** Once its row is gone: what names it by id alone (grants). */
    deleted: new AsyncSeriesHook<[DatabaseDeletion]>(['deletion']),
    /** Waterfall: the views of a database, as `GET …/databases/{id}` lists them. */
    views: new AsyncSeriesWaterfallHook<[ViewSummary[], { db: Db; databaseId: string }]>(['views', 'at']),
    /** Waterfall: the queries (filter and sorts) run often enough on a database to deserve indexes. */
    indexedQueries: new AsyncSeriesWaterfallHook<[ViewQuery[], { db: Db; databaseId: string }]>(['queries', 'at']),
  };
}

export type DatabaseHooks = Readonly<ReturnType<typeof createDatabaseHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'databases.databases': DatabaseHooks;
  }
}
