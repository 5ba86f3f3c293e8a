import { randomUUID } from 'node:crypto';
import { afterCommit, inTransaction, type Db } from '../../core/db.ts';
import type { DomainEvent } from '../../core/events.ts';
import { notFound } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { AttemptResult } from './http-client.ts';
import { MAX_ATTEMPTS, retryDelayMs } from './schedule.ts';
import { messageId } from './signing.ts';
import type { Delivery } from './schemas.ts';
import { TABLE as WEBHOOKS } from './webhooks.service.ts';

export const TABLE = 'webhook_deliveries';
const COLUMNS = ['id', 'webhook_id', 'event_id', 'event_type', 'message_id', 'status', 'attempt', 'response_code', 'error', 'duration_ms', 'next_retry_at', 'created_at'];
/** Rows per INSERT: at most eight parameters each, far below PostgreSQL's 65,535. */
const INSERT_CHUNK = 1000;
/** Deliveries deleted per statement by the retention purge. */
const PURGE_CHUNK = 5000;
/** A claimed delivery not settled by then is presumed lost with its sender (a crash) and claimed again. */
export const LEASE_SECONDS = 60;

interface DeliveryRow extends Omit<Delivery, 'event_id' | 'next_retry_at' | 'created_at'> {
  event_id: string | number;
  next_retry_at: Date | null;
  created_at: Date;
}

const present = (row: DeliveryRow): Delivery => ({
  ...row,
  event_id: String(row.event_id),
  next_retry_at: row.next_retry_at ? row.next_retry_at.toISOString() : null,
  created_at: row.created_at.toISOString(),
});

/** A due delivery taken by one sender, with what sending it needs. */
export interface Claimed {
  id: string;
  webhook_id: string;
  workspace_id: string;
  event_type: string;
  message_id: string;
  body: string;
  attempt: number;
  url: string;
  secret: string;
  /** The webhook's failure count when claimed: a success resets it only when there is something to reset. */
  consecutive_failures: number;
}

interface Deps {
  db: Db;
  /** Called after a commit that made deliveries due now. */
  wake: () => void;
  /**
   * The sender of this instance: how many new deliveries it can take straight from the fan-out, and the hand-off of
   * those after their commit (they are made already leased to it, so no claim query is needed and no other instance
   * takes them; if this one dies, the lease runs out and they are claimed like any other).
   */
  sender: () => { room(): number; take(claimed: Claimed[]): void };
  retryScale: number;
  disableAfterFailures: number;
  /** Tells the workspace's admins that a webhook was disabled, in the transaction that disabled it. */
  disabled: (trx: Db, webhook: { id: string; workspace_id: string; url: string }, reason: string) => Promise<void>;
}

/**
 * A write that changed nothing sends nothing. The records plugin reports a write whose cells all stayed the same as
 * `record.updated` for its other listeners; its `before` lists only the cells that changed, and then those are just
 * the system ones that every write moves (an `updated_at` field holding the record's old `updated_at`, an
 * `updated_by` field naming its old `updated_by`).
 */
function changedNothing(event: DomainEvent): boolean {
  if (event.name !== 'record.updated') return false;
  const before = (event.payload as { before?: { values?: Record<string, unknown>; updated_at?: unknown; updated_by?: unknown } } | null)?.before;
  if (!before?.values) return false;
  return Object.values(before.values).every((value) => value === before.updated_at || (!!value && typeof value === 'object' && (value as { id?: unknown }).id === before.updated_by));
}

/**
 * Whether a webhook hears `event`: it occurred once the webhook was created or enabled, its name is listed (or `*`),
 * and its database is the webhook's when the webhook names one.
 */
function hears(hook: { events: string[]; database_id: string | null; listening_since: Date }, event: DomainEvent): boolean {
  if (new Date(event.occurred_at) < hook.listening_since) return false;
  if (!hook.events.includes('*') && !hook.events.includes(event.name)) return false;
  if (!hook.database_id) return true;
  const payload = event.payload as { database_id?: unknown } | null;
  return payload?.database_id === hook.database_id;
}

/** Deliveries: queued from the event fan-out, claimed and settled by the sender, listed and redelivered by admins. */
export class DeliveryService {
  constructor(private readonly deps: Deps) {}

  /**
   * The fan-out tap: one delivery per (enabled webhook of the event's workspace that hears it, event), written in the
   * fan-out's transaction. Events without a workspace reach no webhook, nor events older than the webhook or its last
   * enabling (the fan-out may come long after the write: a backlog is not owed to a webhook made since). One query for
   * the batch's webhooks.
   */
  async enqueue(trx: Db, events: DomainEvent[]): Promise<number> {
    const workspaces = [...new Set(events.map((e) => e.workspace_id).filter((ws): ws is string => !!ws))];
    if (workspaces.length === 0) return 0;
    const hooks: Array<{ id: string; workspace_id: string; events: string[]; database_id: string | null; listening_since: Date; url: string; secret: string; consecutive_failures: number }> = await trx(WEBHOOKS)
      .whereIn('workspace_id', workspaces)
      .where({ enabled: true })
      .select('id', 'workspace_id', 'events', 'database_id', 'listening_since', 'url', 'secret', 'consecutive_failures');
    if (hooks.length === 0) return 0;
    const room = this.deps.sender().room();
    const rows = [];
    const handed: Claimed[] = [];
    for (const event of events) {
      if (changedNothing(event)) continue;
      let body: string | undefined;
      for (const hook of hooks) {
        if (hook.workspace_id !== event.workspace_id || !hears(hook, event)) continue;
        body ??= JSON.stringify({ type: event.name, timestamp: new Date(event.occurred_at).toISOString(), data: event.payload });
        const id = randomUUID();
        const message_id = messageId(hook.id, event.id);
        const leased = handed.length < room;
        rows.push({ id, webhook_id: hook.id, event_id: event.id, event_type: event.name, message_id, body, next_retry_at: trx.fn.now(), locked_until: leased ? trx.raw('now() + make_interval(secs => ?)', [LEASE_SECONDS]) : null });
        if (leased) handed.push({ id, webhook_id: hook.id, workspace_id: hook.workspace_id, event_type: event.name, message_id, body, attempt: 0, url: hook.url, secret: hook.secret, consecutive_failures: hook.consecutive_failures });
      }
    }
    for (let start = 0; start < rows.length; start += INSERT_CHUNK) await trx(TABLE).insert(rows.slice(start, start + INSERT_CHUNK));
    if (handed.length > 0) afterCommit(trx, () => this.deps.sender().take(handed));
    if (rows.length > handed.length) afterCommit(trx, this.deps.wake);
    return rows.length;
  }

  async list(workspaceId: string, webhookId: string, page: { limit?: number; cursor?: string }): Promise<Page<Delivery>> {
    await this.webhook(this.deps.db, workspaceId, webhookId);
    const q = this.deps.db(TABLE).where({ webhook_id: webhookId }).select(COLUMNS);
    const rows = await keysetPage<DeliveryRow>(this.deps.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    return { data: rows.data.map(present), next_cursor: rows.next_cursor };
  }

  /** A new delivery of the same event with the same body and `webhook-id`, due now (sent once the webhook is enabled). */
  async redeliver(workspaceId: string, webhookId: string, deliveryId: string): Promise<Delivery> {
    return inTransaction(this.deps.db, async (trx) => {
      await this.webhook(trx, workspaceId, webhookId);
      const source = await trx(TABLE).where({ id: deliveryId, webhook_id: webhookId }).first('event_id', 'event_type', 'message_id', 'body');
      if (!source) throw notFound('No such delivery of this webhook.');
      const [row] = await trx(TABLE).insert({ ...source, webhook_id: webhookId, next_retry_at: trx.fn.now() }).returning(COLUMNS);
      afterCommit(trx, this.deps.wake);
      return present(row);
    });
  }

  /**
   * Takes up to `limit` due deliveries of enabled webhooks under a lease: no lock outlives the statement, so a slow
   * receiver holds nothing, and another instance skips what this one took. `dueForMs`: only those due for at least
   * that long.
   */
  async claim(limit: number, dueForMs = 0): Promise<Claimed[]> {
    const result = await this.deps.db.raw(
      `UPDATE ${TABLE} d SET locked_until = now() + make_interval(secs => ?)
       FROM ${WEBHOOKS} w
       WHERE w.id = d.webhook_id AND d.id IN (
         SELECT d2.id FROM ${TABLE} d2 JOIN ${WEBHOOKS} w2 ON w2.id = d2.webhook_id AND w2.enabled
         WHERE d2.status = 'pending' AND d2.next_retry_at <= now() - make_interval(secs => ?) AND (d2.locked_until IS NULL OR d2.locked_until < now())
         ORDER BY d2.next_retry_at LIMIT ? FOR UPDATE OF d2 SKIP LOCKED)
       RETURNING d.id, d.webhook_id, w.workspace_id, d.event_type, d.message_id, d.body, d.attempt, w.url, w.secret, w.consecutive_failures`,
      [LEASE_SECONDS, dueForMs / 1000, limit],
    );
    return result.rows as Claimed[];
  }

  /**
   * Records successful attempts in one statement: under load most attempts succeed, and one UPDATE per delivery
   * would cost the writes whose events they carry. Webhooks that had failures before start over.
   */
  async succeeded(batch: Array<{ claimed: Claimed; result: AttemptResult }>): Promise<void> {
    if (batch.length === 0) return;
    const values = batch.map(() => '(?::uuid, ?::int, ?::int, ?::int)').join(', ');
    const bindings = batch.flatMap(({ claimed, result }) => [claimed.id, claimed.attempt + 1, result.status, result.durationMs]);
    await this.deps.db.raw(
      `UPDATE ${TABLE} d SET status = 'succeeded', attempt = v.attempt, response_code = v.code, duration_ms = v.ms, error = NULL, next_retry_at = NULL, locked_until = NULL
       FROM (VALUES ${values}) AS v(id, attempt, code, ms) WHERE d.id = v.id`,
      bindings,
    );
    const recovered = [...new Set(batch.filter(({ claimed }) => claimed.consecutive_failures > 0).map(({ claimed }) => claimed.webhook_id))];
    if (recovered.length > 0) await this.deps.db(WEBHOOKS).whereIn('id', recovered).update({ consecutive_failures: 0 });
  }

  /**
   * Records one failed attempt: the next one scheduled (or none after the last), the webhook's failure count raised;
   * a `410`, the last attempt or `disableAfterFailures` failures in a row disable the webhook and tell its admins, once.
   */
  async failed(claimed: Claimed, result: AttemptResult): Promise<void> {
    const attempt = claimed.attempt + 1;
    const outcome = { attempt, response_code: result.status, error: result.error, duration_ms: result.durationMs, locked_until: null };
    const gone = result.status === 410;
    const delay = gone ? null : retryDelayMs(attempt, this.deps.retryScale, result.retryAfterMs);
    await inTransaction(this.deps.db, async (trx) => {
      await trx(TABLE)
        .where({ id: claimed.id })
        .update({ ...outcome, status: delay === null ? 'failed' : 'pending', next_retry_at: delay === null ? null : new Date(Date.now() + delay) });
      const [hook]: Array<{ consecutive_failures: number }> = await trx(WEBHOOKS)
        .where({ id: claimed.webhook_id })
        .increment('consecutive_failures', 1)
        .returning(['consecutive_failures']);
      const reason = gone
        ? 'The endpoint answered 410 Gone.'
        : delay === null
          ? `A delivery of ${claimed.event_type} failed on all ${MAX_ATTEMPTS} attempts (last: ${result.error}).`
          : hook && hook.consecutive_failures >= this.deps.disableAfterFailures
            ? `${hook.consecutive_failures} consecutive failed attempts (last: ${result.error}).`
            : null;
      if (!reason) return;
      const disabled = await trx(WEBHOOKS).where({ id: claimed.webhook_id, enabled: true }).update({ enabled: false, disabled_reason: reason, updated_at: trx.fn.now() }).returning(['id', 'workspace_id', 'url']);
      if (disabled.length > 0) await this.deps.disabled(trx, disabled[0], reason);
    });
  }

  /**
   * Deletes the settled deliveries (succeeded, or failed for good) older than `days`; pending ones stay whatever their
   * age. Webhook by webhook, through the log's (webhook, created_at) index, in chunks that hold no lock for long.
   */
  async purge(days: number): Promise<number> {
    const db = this.deps.db;
    let total = 0;
    for (const { id } of await db(WEBHOOKS).select('id')) {
      for (;;) {
        const old = db(TABLE)
          .where('webhook_id', id)
          .where('created_at', '<', db.raw('now() - make_interval(days => ?)', [days]))
          .whereNot('status', 'pending')
          .select('id')
          .limit(PURGE_CHUNK);
        const deleted = await db(TABLE).whereIn('id', old).delete();
        total += deleted;
        if (deleted < PURGE_CHUNK) break;
      }
    }
    return total;
  }

  /** 404 unless the webhook is one of this workspace's. */
  private async webhook(trx: Db, workspaceId: string, webhookId: string): Promise<void> {
    const found = await trx(WEBHOOKS).where({ workspace_id: workspaceId, id: webhookId }).first('id');
    if (!found) throw notFound('No such webhook in this workspace.');
  }
}
