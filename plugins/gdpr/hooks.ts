import type { Db } from '../../core/db.ts';
import { AsyncSeriesBailHook, AsyncSeriesWaterfallHook } from '../../core/hooks.ts';
import type { UserPrincipal } from '../../core/principal.ts';

/** Who a user is, as the plugin that keeps accounts answers it: what an erasure must leave nowhere. */
export interface PersonIdentity {
  email: string;
  name: string;
}

/** A blob that belongs in an export (a member's upload), written into the zip at `path`. */
export interface ExportFile {
  /** Inside the zip, under `<kind>/`; made unique by the writer when two files share one. */
  path: string;
  blobKey: string;
}

/** One kind of a user's data in an export: a JSON file `<kind>.json` in the zip, and the bytes of `files` beside it. */
export interface ExportSection {
  kind: string;
  items: unknown[];
  files?: ExportFile[];
}

/** What a tap kept of the person and why: nothing personal, only what and until when. */
export interface Retained {
  what: string;
  reason: string;
  /** ISO date, or null for "as long as the thing it belongs to exists". */
  until: string | null;
}

/** One tap's answer to an erasure, shown on the receipt. */
export interface EraseReport {
  kind: string;
  deleted: number;
  pseudonymised: number;
  retained: Retained[];
}

export interface ExportContext {
  trx: Db;
  userId: string;
  person: PersonIdentity;
  /** Set: only that workspace's data (an admin's export of a member). */
  workspaceId?: string;
}

export interface EraseContext {
  trx: Db;
  userId: string;
  person: PersonIdentity;
  /** The workspace being erased from, inside its own transaction; null for the account-wide part (instance admin only). */
  workspaceId: string | null;
  actor: UserPrincipal;
}

/**
 * `gdpr.personalData`: every plugin that keeps personal data taps it (declaring `optionalDependsOn: { gdpr }`).
 * `identify` names the person; `memberships` lists the workspaces to erase from; `export` and `erase` are
 * waterfalls each tap appends its section or report to. A tap refuses an erasure by throwing a typed AppError,
 * which rolls that workspace's transaction back.
 */
export function createPersonalDataHooks() {
  return {
    identify: new AsyncSeriesBailHook<[{ trx: Db; userId: string }], PersonIdentity | undefined>(['request']),
    memberships: new AsyncSeriesWaterfallHook<[string[], { trx: Db; userId: string }]>(['workspaceIds', 'request']),
    export: new AsyncSeriesWaterfallHook<[ExportSection[], ExportContext]>(['sections', 'context']),
    erase: new AsyncSeriesWaterfallHook<[EraseReport[], EraseContext]>(['reports', 'context']),
  };
}

export type PersonalDataHooks = Readonly<ReturnType<typeof createPersonalDataHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'gdpr.personalData': PersonalDataHooks;
  }
}
