import type { Db } from '../../core/db.ts';
import { TOLERANCE_SECONDS, type SignedPost } from './hook-signature.ts';

const TABLE = 'automation_hook_seen';

/**
 * The `webhook-id`s of an inbound hook's signed posts, each kept until its timestamp leaves the tolerance window (from
 * then on the signature check refuses a replay by itself). Standard Webhooks senders reuse the id on every attempt of
 * one message, so a replay, or a retry whose first answer was lost, gets the first post's run and starts nothing.
 */
export class HookSeen {
  constructor(private readonly db: Db) {}

  /** The run a live post with this id started, if one was received. */
  async run(automationId: string, post: SignedPost, db: Db = this.db): Promise<string | undefined> {
    const row = await db(TABLE).where({ automation_id: automationId, webhook_id: post.id }).andWhere('expires_at', '>', db.fn.now()).first('run_id');
    return row ? (row.run_id ?? undefined) : undefined;
  }

  /**
   * Claims the id in the caller's transaction (the one that starts the run), or answers false when a live post holds it
   * (a concurrent twin that won); an expired claim is taken over.
   */
  async claim(trx: Db, automationId: string, post: SignedPost): Promise<boolean> {
    const { rows } = await trx.raw<{ rows: unknown[] }>(
      `INSERT INTO ${TABLE} (automation_id, webhook_id, expires_at) VALUES (?, ?, to_timestamp(?))
       ON CONFLICT (automation_id, webhook_id) DO UPDATE SET run_id = NULL, expires_at = excluded.expires_at WHERE ${TABLE}.expires_at <= now()
       RETURNING 1`,
      [automationId, post.id, post.seconds + TOLERANCE_SECONDS],
    );
    return rows.length > 0;
  }

  async ran(trx: Db, automationId: string, post: SignedPost, runId: string): Promise<void> {
    await trx(TABLE).where({ automation_id: automationId, webhook_id: post.id }).update({ run_id: runId });
  }

  /** Ids whose window has passed: by the daily retention job (a lookup ignores them meanwhile). */
  async purge(): Promise<number> {
    return this.db(TABLE).where('expires_at', '<=', this.db.fn.now()).del();
  }
}
