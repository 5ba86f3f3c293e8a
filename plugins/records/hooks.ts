import type { Db, NativeStatement } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { AsyncSeriesBailHook, AsyncSeriesHook, SyncHook } from '../../core/hooks.ts';
import type { SortInput } from './sort-keys.ts';
import type { ApiRecord } from './schemas.ts';

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
  /** In the order of the query's sorts; a field sorted twice keeps its first direction. */
  sorted: Array<{ fieldId: string; direction: 'asc' | 'desc' }>;
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


/**
 * Where a write came from, as history shows it. `id`: the user, token, automation, form view, import or sync run behind
 * it. Only a `sync` writes a source's synced fields.
 */
export interface WriteOrigin {
  type: 'user' | 'token' | 'automation' | 'public_form' | 'import' | 'restore' | 'sync';
  id: string | null;
  /** For `restore`: the version whose values were written back. */
  restored_from?: number;
}

/** A field of the changed records' database, as it was named when the write happened. */
export interface ChangedField {
  id: string;
  api_name: string;
  name: string;
  type: string;
  /** Computed or system: never written through the API, so never restored. */
  read_only: boolean;
  /** The database's title field: what names a record in notifications and history. */
  is_title: boolean;
}

/** One record a write changed, presented in full before and after (`before` null when created, `after` null when never shown again). */
export interface RecordChange {
  kind: 'created' | 'updated' | 'deleted' | 'restored';
  recordId: string;
  before: ApiRecord | null;
  after: ApiRecord | null;
  /** A duplicate's source record. */
  duplicatedFrom?: string;
  /** For an update: the ids of the fields whose cells differ between `before` and `after` (computed once, for every tap); otherwise empty. */
  changed: string[];
}

/** A change as a writer tells it: the records service works out `changed`. */
export type RecordChangeInput = Omit<RecordChange, 'changed'>;

/** Records a write changed, inside the writing transaction. */
export interface RecordsChanged {
  trx: Db;
  workspaceId: string;
  databaseId: string;
  /** Null when no user wrote (a public form). */
  actor: UserPrincipal | null;
  origin: WriteOrigin;
  /**
   * A batch of a write of many new records at once (an import): history keeps such a batch as one thing (one activity
   * entry, one set of first versions) rather than record by record.
   */
  batch: boolean;
  fields: ChangedField[];
  changes: RecordChange[];
  /**
   * Hands over a write the tap needs no answer from (an INSERT, UPDATE or DELETE written with `$1` placeholders, no
   * `RETURNING`, no data-modifying `WITH` of its own): the records plugin runs every tap's such writes as one statement as soon as all taps are done, in the
   * same transaction, so a write's history costs one round trip instead of one per plugin. They must not touch the
   * same rows as one another, and a failure fails the write like a tap that throws.
   */
  later(statement: NativeStatement): void;
}

/**
 * `records.changes`: every write that changes records (creates, patches, moves, duplicates, deletes and restores from
 * the trash, single or bulk), once per write, in its transaction, after the rows are written and before the
 * `record.*` events. History (activity, versions) and notifications tap it: what they write commits with the
 * change, and a tap that throws undoes it. Writes a tap needs no answer from go through `later`.
 */
export function createRecordChangeHooks() {
  return {
    changed: new AsyncSeriesHook<[RecordsChanged]>(['changed']),
  };
}

export type RecordChangeHooks = Readonly<ReturnType<typeof createRecordChangeHooks>>;

/**
 * Records changed by writes that committed, as their `record.*` events tell it, in the transaction that fans those
 * events out: consecutive events of one database, actor and origin make one call, so a tap works per batch of writes.
 */
export interface RecordsCommitted {
  trx: Db;
  workspaceId: string;
  databaseId: string;
  actorId: string | null;
  /** Where the writes came from when their events say so (a public form, an import); null for a user's own writes. */
  origin: WriteOrigin | null;
  /** The database's fields as they are now (a field deleted since the writes is not among them). */
  fields: ChangedField[];
  /** In the order written; an update's `before` is its `after` with the cells it changed put back. */
  changes: RecordChange[];
}

/**
 * `records.committed`: what changed records after the writes committed, for work that need not be atomic with them
 * (search, notifications): fed from the writes' durable events, so nothing a committed write did is missed across a
 * crash, and delivered at least once — a tap that throws has the whole batch offered again. A tap must be quick in
 * SQL: it holds up the fan-out of every event.
 */
export function createRecordCommittedHooks() {
  return {
    committed: new AsyncSeriesHook<[RecordsCommitted]>(['committed']),
  };
}

export type RecordCommittedHooks = Readonly<ReturnType<typeof createRecordCommittedHooks>>;

/** The origin of a user's own write: their session, or their token. */
export function originOf(principal: UserPrincipal): WriteOrigin {
  return principal.kind === 'pat' ? { type: 'token', id: principal.tokenId } : { type: 'user', id: principal.user.id };
}

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'records.views': RecordViewHooks;
    'records.lifecycle': RecordLifecycle;
    'records.queries': RecordQueryHooks;
    'records.changes': RecordChangeHooks;
    'records.committed': RecordCommittedHooks;
  }
}
