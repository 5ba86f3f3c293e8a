import type { Logger } from 'pino';
import type { Authz } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { RecordBulkService, RecordService, WriteOrigin } from '../records/public.ts';
import { CursorExpired, RateLimited, SourceUnavailable, type SourceKind } from './hooks.ts';
import type { SourceInputs } from './inputs.ts';
import type { SourceKinds } from './kinds.ts';
import { writePage, type PageOutcome } from './page-writer.ts';
import { nextRunAt, ROWS, RUNS, SOURCES, type RunRow, type SourceRow } from './store.ts';

/** A running run silent for this long is taken for one whose process stopped (see `claim` and the minute's tick). */
export const STALE_MINUTES = 10;
/** How often a run waiting out a rate limit says it is alive. */
const HEARTBEAT_MS = 60_000;
/** Records a snapshot's leftovers are deleted in, each chunk its own transaction. */
const GONE_CHUNK = 500;

export interface RunnerDeps {
  db: Db;
  events: EventBus;
  authz: Authz;
  kinds: SourceKinds;
  inputs: SourceInputs;
  records: () => RecordService;
  bulk: () => RecordBulkService;
  logger: Logger;
  maxWaitSeconds: number;
  pauseAfterFailures: number;
  /** Tells the source's creator that its schedule paused itself, in `trx`. */
  paused: (trx: Db, source: SourceRow, error: string) => Promise<void>;
  /** Waits `ms` (a test's clock may stand in). */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Why a run ends without having read everything: the message its run and the source show. */
class RunFailed extends Error {
  constructor(message: string, readonly retryAt: Date | null = null) {
    super(message);
  }
}

/** The principal a run writes as: the source's creator, by id (history names users by id). */
function actingAs(userId: string): UserPrincipal {
  return { kind: 'session', sessionId: '', user: { id: userId, email: '', name: '', is_instance_admin: false, avatar_key: null, avatar_updated_at: null, created_at: new Date(0) } };
}

/**
 * Runs a source's sync: a page at a time, each page's records and the cursor after it in one transaction, so a run
 * that stops anywhere (a crash, `kill -9`, a failed page) goes on from its last saved page when it is run again,
 * losing and doubling nothing. After the last page of a snapshot, the rows it did not list are gone at the source.
 * The run's end saves where the next one starts and resets the source's failures; a failure counts one more, and
 * enough in a row pause the schedule.
 */
export class SyncRunner {
  constructor(private readonly deps: RunnerDeps) {}

  async run(runId: string, signal: AbortSignal = new AbortController().signal): Promise<void> {
    const claimed = await this.claim(runId);
    if (!claimed) return;
    const { run, source } = claimed;
    try {
      const kind = this.deps.kinds.find(source.kind);
      if (!kind) throw new RunFailed(`The ${source.kind} kind is not available (its provider plugin is off).`);
      if (!source.created_by) throw new RunFailed("The source's creator is gone; someone else must create it again.");
      await this.readAll(kind, source, run, signal);
      // Stopped (the process is going down): the run stays running, for the next process to go on from its last page.
      if (signal.aborted) return;
      await this.finish(source, run.id);
    } catch (err) {
      if (signal.aborted) return;
      const message = err instanceof RunFailed || err instanceof SourceUnavailable ? err.message : 'The sync stopped on an internal error.';
      if (!(err instanceof RunFailed || err instanceof SourceUnavailable)) this.deps.logger.error({ err, run: runId, source: source.id }, 'sync run failed');
      await this.fail(source, run.id, message, err instanceof RunFailed ? err.retryAt : null);
    }
  }

  /**
   * Takes a queued run, or a running one whose process has written nothing for `STALE_MINUTES` (it stopped: a crash,
   * `kill -9`), for this process; undefined when there is nothing to do or another process is on it (a job sent twice
   * runs once).
   */
  private async claim(runId: string): Promise<{ run: RunRow; source: SourceRow } | undefined> {
    return inTransaction(this.deps.db, async (trx) => {
      const run = (await trx(RUNS).where({ id: runId }).forUpdate().first()) as RunRow | undefined;
      if (!run || (run.status !== 'queued' && run.status !== 'running')) return undefined;
      if (run.status === 'running' && run.heartbeat_at && run.heartbeat_at.getTime() > Date.now() - STALE_MINUTES * 60_000) return undefined;
      const source = (await trx(SOURCES).where({ id: run.source_id }).first()) as SourceRow | undefined;
      if (!source) return undefined;
      const [claimed] = (await trx(RUNS)
        .where({ id: runId })
        .update({ status: 'running', started_at: run.started_at ?? trx.fn.now(), heartbeat_at: trx.fn.now(), resumed: run.status === 'running' })
        .returning('*')) as RunRow[];
      return { run: claimed, source };
    });
  }

  /** Reads from where the run stands and writes each page; a rate limit waits in place (up to the limit), an expired cursor starts a full read once. */
  private async readAll(kind: SourceKind, source: SourceRow, run: RunRow, signal: AbortSignal): Promise<void> {
    const principal = actingAs(source.created_by!);
    const origin: WriteOrigin = { type: 'sync', id: run.id };
    let restarted = false;
    for (;;) {
      const current = (await this.deps.db(RUNS).where({ id: run.id }).first('page_cursor', 'full')) as Pick<RunRow, 'page_cursor' | 'full'>;
      const cursor = current.page_cursor ?? (current.full ? null : source.cursor);
      // A resumed run reads as of its start (a kind's windows are relative to it), so its cursor still fits.
      const input = await this.deps.inputs.forConfig(kind.provider, source.connection_id, source.config, signal, run.started_at ?? new Date());
      try {
        // The next page is read from the provider while this one is written: the provider and the database work side by side.
        const pages = kind.read({ ...input, cursor })[Symbol.asyncIterator]();
        let next = pages.next();
        for (;;) {
          const { value: page, done } = await next;
          if (done || signal.aborted) {
            if (!done) await pages.return?.();
            return;
          }
          next = pages.next();
          next.catch(() => undefined);
          try {
            await inTransaction(this.deps.db, async (trx) => {
              const outcome = await writePage({ trx, source, runId: run.id, principal, origin, records: this.deps.records(), bulk: this.deps.bulk() }, page.rows);
              await this.savePage(trx, run.id, outcome, page.cursor, page.snapshot);
            });
          } catch (err) {
            await pages.return?.().catch(() => undefined);
            throw err;
          }
        }
      } catch (err) {
        if (err instanceof CursorExpired && !restarted) {
          restarted = true;
          await this.deps.db(RUNS).where({ id: run.id }).update({ full: true, page_cursor: null, snapshot: null });
          continue;
        }
        if (err instanceof RateLimited) {
          if (err.seconds > this.deps.maxWaitSeconds) throw new RunFailed(`The provider asked to wait ${err.seconds} s; the next run starts after that.`, new Date(Date.now() + err.seconds * 1000));
          // A minute at a time, each telling the run is alive: a long wait is not taken for a stopped process.
          for (let left = err.seconds * 1000; left > 0 && !signal.aborted; left -= HEARTBEAT_MS) {
            await this.deps.sleep(Math.min(left, HEARTBEAT_MS), signal);
            await this.deps.db(RUNS).where({ id: run.id }).update({ heartbeat_at: this.deps.db.fn.now() });
          }
          continue;
        }
        throw err;
      }
    }
  }

  private async savePage(trx: Db, runId: string, outcome: PageOutcome, cursor: unknown, snapshot: boolean): Promise<void> {
    await trx(RUNS)
      .where({ id: runId })
      .update({
        created: trx.raw('created + ?', [outcome.created]),
        updated: trx.raw('updated + ?', [outcome.updated]),
        deleted: trx.raw('deleted + ?', [outcome.deleted]),
        skipped: trx.raw('skipped + ?', [outcome.skipped]),
        row_errors: outcome.errors.length > 0 ? trx.raw(`(SELECT coalesce(jsonb_agg(e), '[]'::jsonb) FROM (SELECT e FROM jsonb_array_elements(row_errors || ?::jsonb) e LIMIT 100) x)`, [JSON.stringify(outcome.errors)]) : trx.raw('row_errors'),
        page_cursor: JSON.stringify(cursor ?? null),
        snapshot: trx.raw('coalesce(snapshot, ?)', [snapshot]),
        heartbeat_at: trx.fn.now(),
      });
  }

  /** After a snapshot, the rows it did not list are gone: their records follow the delete policy. Then the run succeeds. */
  private async finish(source: SourceRow, runId: string): Promise<void> {
    const run = (await this.deps.db(RUNS).where({ id: runId }).first()) as RunRow;
    if (run.snapshot) {
      const principal = actingAs(source.created_by!);
      for (;;) {
        const done = await inTransaction(this.deps.db, async (trx) => {
          const gone = (await trx(ROWS)
            .where({ source_id: source.id, gone: false })
            .where((q) => q.whereNull('seen_run').orWhereNot('seen_run', runId))
            .limit(GONE_CHUNK)
            .select('key', 'record_id')) as Array<{ key: string; record_id: string }>;
          if (gone.length === 0) return true;
          let deleted = 0;
          if (source.delete_policy === 'delete') {
            deleted = (await this.deps.bulk().delete(principal, source.workspace_id, source.database_id, gone.map((g) => g.record_id), trx, { type: 'sync', id: runId })).length;
          }
          await trx(ROWS).where({ source_id: source.id }).whereIn('key', gone.map((g) => g.key)).update({ gone: true, seen_run: runId });
          await trx(RUNS).where({ id: runId }).update({ deleted: trx.raw('deleted + ?', [deleted]), heartbeat_at: trx.fn.now() });
          return false;
        });
        if (done) break;
      }
    }
    await inTransaction(this.deps.db, async (trx) => {
      const [current] = (await trx(SOURCES).where({ id: source.id }).forUpdate().select('schedule')) as Array<Pick<SourceRow, 'schedule'>>;
      if (!current) return;
      const last = (await trx(RUNS).where({ id: runId }).first('page_cursor')) as Pick<RunRow, 'page_cursor'>;
      await trx(SOURCES)
        .where({ id: source.id })
        .update({ cursor: JSON.stringify(last.page_cursor ?? null), failures: 0, status: 'idle', next_run_at: nextRunAt(current.schedule, new Date()), updated_at: trx.fn.now() });
      await trx(RUNS).where({ id: runId }).update({ status: 'succeeded', finished_at: trx.fn.now() });
      await this.ended(trx, source, runId);
    });
  }

  /** `source.synced`, with what the run did: what follows a sync as a whole (the search index) hears of it. */
  private async ended(trx: Db, source: SourceRow, runId: string): Promise<void> {
    const run = (await trx(RUNS).where({ id: runId }).first('status', 'created', 'updated', 'deleted', 'error')) as Pick<RunRow, 'status' | 'created' | 'updated' | 'deleted' | 'error'>;
    await this.deps.events.emit(trx, {
      name: 'source.synced',
      workspaceId: source.workspace_id,
      actorId: source.created_by,
      payload: { source_id: source.id, database_id: source.database_id, run_id: runId, ...run },
    });
  }

  private async fail(source: SourceRow, runId: string, message: string, retryAt: Date | null): Promise<void> {
    await inTransaction(this.deps.db, async (trx) => {
      await trx(RUNS).where({ id: runId }).update({ status: 'failed', error: message, finished_at: trx.fn.now() });
      await this.ended(trx, source, runId);
      const [current] = (await trx(SOURCES).where({ id: source.id }).forUpdate().select('*')) as SourceRow[];
      if (!current) return;
      const failures = current.failures + 1;
      const pause = failures >= this.deps.pauseAfterFailures && current.schedule !== 'manual';
      const next = pause ? null : retryAt ?? nextRunAt(current.schedule, new Date());
      await trx(SOURCES).where({ id: source.id }).update({ failures, status: pause ? 'paused' : 'error', next_run_at: next, updated_at: trx.fn.now() });
      if (pause) await this.deps.paused(trx, current, message);
    });
  }
}
