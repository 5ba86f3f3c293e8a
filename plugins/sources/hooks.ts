import { SyncWaterfallHook } from '../../core/hooks.ts';
import type { TSchema } from '../../core/schema.ts';

/**
 * A property a source offers: it becomes one synced field of the source's database. `key` is the property's own
 * stable name (what `SourceRow.values` are keyed by); `type` and `options` are a field type of the databases plugin
 * (`text`, `long_text`, `number`, `datetime`, `checkbox`, `url`, `email`, `single_select`, …).
 */
export interface SourceProperty {
  key: string;
  name: string;
  type: string;
  options?: Record<string, unknown>;
  /** The one property whose value tells a row apart from every other (an event's UID, an issue's id, a key column). */
  unique?: boolean;
}

/**
 * One row as a source reads it: its key (the unique property's value, as text) and its values by property key, each
 * a value its field type accepts through the API; or, `deleted`, a row gone at the source (values may be empty).
 */
export interface SourceRow {
  key: string;
  values: Record<string, unknown>;
  deleted?: boolean;
}

/**
 * A page of rows and where reading goes on from after it. The sources plugin stores `cursor` in the same transaction
 * as the page's records: a run that stops (a crash, a failed page) resumes with the read from that cursor, so no row
 * is lost and none is written twice.
 */
export interface SourcePage {
  rows: SourceRow[];
  /** What `read` takes to go on after this page (JSON); after the last page, where the next incremental run starts. */
  cursor: unknown;
  /**
   * Whether the read this page belongs to lists every row of the source (a first or full sync, an iCal file, a table
   * without an updated-at column): after its last page, rows it did not list are gone at the source and the source's
   * `delete_policy` decides what becomes of their records. An incremental read (`false`) tells deletions as rows.
   */
  snapshot: boolean;
}

/** What `read` and `properties` are given: the source's config, its connection's credentials (null without one). */
export interface SourceInput<C = any> {
  config: C;
  /** The connection's credentials opened (an OAuth connection's live access token as `access_token`); null without a connection. */
  credentials: Record<string, string> | null;
  /** Aborted when the run is canceled or the process stops: a kind passes it to its requests. */
  signal: AbortSignal;
  /**
   * Whether a URL or host the user gave may be a loopback, private or link-local address (`sources.allowPrivateNetworks`):
   * a kind that reaches an address the user chose checks it with `core/address-policy.ts` unless this is set.
   */
  allowPrivateNetworks: boolean;
  /** When the run started: what a kind's windows are relative to (recurring events expanded from it). */
  now: Date;
}

/** One kind of data sources sync (`ical.events`, `github.issues`), as its provider plugin adds it to `sources.kinds`. */
export interface SourceKind<C = any> {
  /** `<provider>.<things>`: `ical.events`, `google_calendar.events`, `github.issues`, `postgres.table`. */
  id: string;
  name: string;
  /** The integrations provider whose connection it reads through; null for a kind that needs none (an iCal URL). */
  provider: string | null;
  /** Its config, checked when a source is created or changed (a secret never goes in it: secrets live in connections). */
  configSchema: TSchema;
  /**
   * Checks what the schema cannot (a URL's address, a table that exists), throwing `SourceRefused` with a pointer under
   * `/config`. Called on create and on a config change; absent, the schema is all.
   */
  check?(input: SourceInput<C>): Promise<void>;
  /** The properties rows will have: exactly one `unique`. Asked when a source is created (its fields) and before each run. */
  properties(input: SourceInput<C>): Promise<SourceProperty[]>;
  /**
   * Reads the source from `cursor` on (null: from the start, a full listing), a page at a time, at least one page (an
   * empty source's snapshot is one page without rows: it tells the source is empty, so its rows are gone); throws
   * `CursorExpired` when the provider no longer knows the cursor (the run starts again from null), `RateLimited`
   * when the provider asks to wait, `SourceUnavailable` for anything else the provider refused or failed at.
   */
  read(input: SourceInput<C> & { cursor: unknown }): AsyncIterable<SourcePage>;
  /**
   * Push, for a kind whose provider can tell us when rows change (Google Calendar's channels): asks the provider to post
   * to `address` (the connection's receiver in the integrations plugin) with `token` (the connection's webhook secret,
   * which the provider's `verifyWebhook` checks) on a channel named `channelId`. Answers the provider's id of what is
   * watched and when the channel ends; the sources plugin opens a new one before that. Throws like `read`.
   */
  watch?(input: SourceInput<C> & { address: string; token: string; channelId: string }): Promise<PushChannel>;
  /** Closes a channel `watch` opened (the source is deleted, or a new channel replaced it); a channel already gone is no failure. */
  unwatch?(input: SourceInput<C> & { channel: PushChannel }): Promise<void>;
  /**
   * The channel an inbound delivery of the kind's provider is about, when it tells of changed rows (the integration
   * event's `payload`); null for anything else (a channel's opening message). Such a delivery starts an incremental run
   * of the source watching that channel.
   */
  changedChannel?(delivery: { event: string; payload: unknown }): string | null;
}

/** A push channel as the provider opened it. */
export interface PushChannel {
  id: string;
  /** The provider's id of what the channel watches (Google's `resourceId`), needed to close it. */
  resourceId: string | null;
  expiresAt: Date;
}

/** The provider no longer knows the cursor (Google Calendar's 410 Gone): the run starts again with a full read. */
export class CursorExpired extends Error {}

/** The provider asks to be called again later (HTTP 429 or a rate limit's reset): `seconds` from now. */
export class RateLimited extends Error {
  constructor(readonly seconds: number, message = `The provider asked to wait ${seconds} s.`) {
    super(message);
  }
}

/** The provider refused or failed (a 4xx or 5xx, an unreachable host, an answer it cannot read): the run fails with this message. */
export class SourceUnavailable extends Error {}

/** A config the kind's `check` refuses: a 422 at `pointer` (under `/config`). */
export class SourceRefused extends Error {
  constructor(readonly pointer: string, readonly detail: string) {
    super(detail);
  }
}

/** The hook set provider plugins tap to add their kinds. */
export function createSourceKindHooks() {
  return {
    kinds: new SyncWaterfallHook<[SourceKind[]]>(['kinds']),
  };
}

export type SourceKindHooks = ReturnType<typeof createSourceKindHooks>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'sources.kinds': SourceKindHooks;
  }
}
