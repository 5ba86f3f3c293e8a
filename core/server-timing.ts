import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';

/** Where one request's time went, as its `Server-Timing` header says it (milliseconds). */
export interface RequestTiming {
  db: number;
  /** Round trips to the database: what a page costs, whatever the machine's load does to `db`. */
  statements: number;
  /** Statements of this request under way, by knex's query uid, and when each was sent. */
  readonly pending: Map<string, number>;
}

const current = new AsyncLocalStorage<RequestTiming>();

/** Runs one request's handling with its timing in scope: every statement it sends adds to `db`. */
export function timeRequest<T>(fn: () => Promise<T>): { timing: RequestTiming; done: Promise<T> } {
  const timing: RequestTiming = { db: 0, statements: 0, pending: new Map() };
  return { timing, done: current.run(timing, fn) };
}

/** Adds the time of `work` (a statement sent outside knex's query builder) to the current request's `db`. */
export async function timedStatement<T>(work: () => Promise<T>): Promise<T> {
  const timing = current.getStore();
  if (!timing) return work();
  timing.statements++;
  const started = performance.now();
  try {
    return await work();
  } finally {
    timing.db += performance.now() - started;
  }
}

/** Counts knex's statements (transactions' too: their events reach the instance) towards the request that sent them. */
export function timeKnexStatements(knex: Knex): void {
  knex.on('query', (q: { __knexQueryUid?: string }) => {
    const timing = current.getStore();
    if (!timing || !q.__knexQueryUid) return;
    timing.statements++;
    timing.pending.set(q.__knexQueryUid, performance.now());
  });
  const end = (q: { __knexQueryUid?: string }) => {
    const timing = current.getStore();
    const started = q.__knexQueryUid ? timing?.pending.get(q.__knexQueryUid) : undefined;
    if (!timing || started === undefined) return;
    timing.pending.delete(q.__knexQueryUid!);
    timing.db += performance.now() - started;
  };
  knex.on('query-response', (_response: unknown, q: { __knexQueryUid?: string }) => end(q));
  knex.on('query-error', (_error: unknown, q: { __knexQueryUid?: string }) => end(q));
}

/**
 * `db;dur=…;desc="N statements", serialise;dur=…, total;dur=…` (W3C Server Timing), to a hundredth of a millisecond.
 * Only this request's statements count: background work running at the same time (events being dispatched) does not.
 */
export function serverTimingHeader(timing: RequestTiming, serialiseMs: number, totalMs: number): string {
  const dur = (ms: number) => Math.round(ms * 100) / 100;
  return `db;dur=${dur(timing.db)};desc="${timing.statements} statements", serialise;dur=${dur(serialiseMs)}, total;dur=${dur(totalMs)}`;
}
