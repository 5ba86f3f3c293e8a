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
  /** When the redacted events go at the latest: once dispatched, they are purged after the events' retention. */
  events_kept_until: string;
  replays_deleted: number;
  jobs_deleted: number;
}

/** What stands in for a person in text that stays: readable, and nobody's data. */
export const FORMER_MEMBER = 'Former member';

/**
 * A person's email or name as a whole word, any case: "Al" is in "Al said", not in "Alpha", so erasing
 * a short name does not rewrite everyone else's text. SQL's ILIKE finds the candidates; this decides.
 */
function mentionOf(needle: string): RegExp {
  const escaped = needle.trim().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\p{L}\\p{N}])${escaped}(?![\\p{L}\\p{N}])`, 'giu');
}

/** `text` with every mention of the person's email or name replaced by FORMER_MEMBER. */
export function withoutPerson(text: string, person: PersonTraces): string {
  return needlesOf(person).reduce((out, needle) => out.replace(mentionOf(needle), FORMER_MEMBER), text);
}

/** Whether `text` mentions the person's email or name. */
export function mentions(text: string, person: PersonTraces): boolean {
  return needlesOf(person).some((needle) => mentionOf(needle).test(text));
}

function needlesOf(person: PersonTraces): string[] {
  return [person.email, person.name].filter((s) => s.trim() !== '');
}

/**
 * Erasure of the kernel's own copies of a person's email and name: event payloads (rewritten, so undispatched
 * events are still delivered), idempotency replays that show them (deleted: a retry then runs afresh), and
 * queued or finished jobs whose data names them (deleted: the mail to an erased person must not go out).
 * The kernel owns these tables, so plugins ask this service instead of writing SQL on them.
 */
export class KernelPrivacy {
  constructor(
    private readonly jobsSchema: string,
    private readonly eventRetentionDays: number,
  ) {}

  /** Inside the caller's transaction; `workspaceId` narrows it to that workspace's events. */
  async scrub(trx: Db, person: PersonTraces, workspaceId?: string): Promise<KernelScrubReport> {
    const keptUntil = new Date(Date.now() + this.eventRetentionDays * 86_400_000).toISOString();
    const report = { events_redacted: 0, events_kept_until: keptUntil, replays_deleted: 0, jobs_deleted: 0 };
    const needles = needlesOf(person);
    if (needles.length === 0) return report;
    const matching = (column: string) => ({ sql: `(${needles.map(() => `${column}::text ILIKE ?`).join(' OR ')})`, values: needles.map(containsPattern) });

    const events = trx('kernel_events').whereRaw(matching('payload').sql, matching('payload').values).select('id', 'payload');
    if (workspaceId) events.where({ workspace_id: workspaceId });
    for (const { id, payload } of (await events) as Array<{ id: string; payload: unknown }>) {
      if (!mentions(JSON.stringify(payload), person)) continue;
      await trx('kernel_events').where({ id }).update({ payload: JSON.stringify(redact(payload, person)) });
      report.events_redacted++;
    }
    if (workspaceId) return report;

    const replays: Array<{ user_id: string; key: string; response_body: unknown }> = await trx('kernel_idempotency_keys')
      .whereRaw(matching('response_body').sql, matching('response_body').values)
      .select('user_id', 'key', 'response_body');
    for (const { user_id, key, response_body } of replays) {
      if (mentions(JSON.stringify(response_body), person)) report.replays_deleted += await trx('kernel_idempotency_keys').where({ user_id, key }).del();
    }

    for (const table of ['job', 'archive']) {
      const data = matching('data');
      const output = matching('output');
      const { rows } = await trx.raw<{ rows: Array<{ id: string; data: unknown; output: unknown }> }>(`SELECT id, data, output FROM ??.?? WHERE ${data.sql} OR ${output.sql}`, [this.jobsSchema, table, ...data.values, ...output.values]);
      const ids = rows.filter((r) => mentions(JSON.stringify([r.data, r.output]), person)).map((r) => r.id);
      if (ids.length > 0) await trx.raw('DELETE FROM ??.?? WHERE id = ANY(?::uuid[])', [this.jobsSchema, table, ids]);
      report.jobs_deleted += ids.length;
    }
    return report;
  }
}

/** Every string of a payload with the person in it has them replaced; the payload keeps its shape. */
function redact(value: unknown, person: PersonTraces): unknown {
  if (typeof value === 'string') return withoutPerson(value, person);
  if (Array.isArray(value)) return value.map((v) => redact(v, person));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v, person)]));
  return value;
}
