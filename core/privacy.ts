import type { Db } from './db.ts';
import { containsPattern } from './like-pattern.ts';

/** Who is being forgotten: the strings that must not survive in the kernel's own tables. */
export interface PersonTraces {
  email: string;
  name: string;
}

/** What the kernel removed or rewrote, per table, for the erasure receipt. */
export interface KernelScrubReport {
  events_redacted: number;
  replays_deleted: number;
  jobs_deleted: number;
}

/** What replaces a redacted string in an event payload: readable, and nobody's data. */
export const REDACTED = 'Former member';

/**
 * Erasure of the kernel's own copies of a person's email and name: event payloads (rewritten, so undispatched
 * events are still delivered), idempotency replays that show them (deleted: a retry then runs afresh), and
 * queued or finished jobs whose data names them (deleted: the mail to an erased person must not go out).
 * The kernel owns these tables, so plugins ask this service instead of writing SQL on them.
 */
export class KernelPrivacy {
  constructor(private readonly jobsSchema: string) {}

  /** Inside the caller's transaction; `workspaceId` narrows the events to that workspace's. */
  async scrub(trx: Db, person: PersonTraces, workspaceId?: string): Promise<KernelScrubReport> {
    const needles = [person.email, person.name].filter((s) => s.trim() !== '');
    if (needles.length === 0) return { events_redacted: 0, replays_deleted: 0, jobs_deleted: 0 };
    const matches = (column: string) => `(${needles.map(() => `${column}::text ILIKE ?`).join(' OR ')})`;
    const patterns = needles.map(containsPattern);

    const events = trx('kernel_events').whereRaw(matches('payload'), patterns).select('id', 'payload');
    if (workspaceId) events.where({ workspace_id: workspaceId });
    const found: Array<{ id: string; payload: unknown }> = await events;
    for (const { id, payload } of found) await trx('kernel_events').where({ id }).update({ payload: JSON.stringify(redact(payload, needles)) });

    let replays = 0;
    let jobs = 0;
    if (!workspaceId) {
      replays = await trx('kernel_idempotency_keys').whereRaw(matches('response_body'), patterns).del();
      for (const table of ['job', 'archive']) {
        const sql = `WITH gone AS (DELETE FROM ??.?? WHERE ${matches('data')} OR ${matches('output')} RETURNING 1) SELECT count(*)::int AS n FROM gone`;
        const result: { rows: Array<{ n: number }> } = await trx.raw(sql, [this.jobsSchema, table, ...patterns, ...patterns]);
        jobs += Number(result.rows[0]?.n ?? 0);
      }
    }
    return { events_redacted: found.length, replays_deleted: replays, jobs_deleted: jobs };
  }
}

/** Every string holding one of `needles` (any case) becomes REDACTED; the shape of the payload stays. */
function redact(value: unknown, needles: string[]): unknown {
  if (typeof value === 'string') {
    const lower = value.toLowerCase();
    return needles.some((n) => lower.includes(n.toLowerCase())) ? REDACTED : value;
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, needles));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, needles)]));
  return value;
}
