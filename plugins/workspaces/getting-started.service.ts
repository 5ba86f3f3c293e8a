import { inTransaction, type Db } from '../../core/db.ts';
import { STEPS, type StepKey } from './getting-started.steps.ts';
import type { GettingStarted, PatchGettingStartedBody } from './getting-started.schemas.ts';

const TABLE = 'workspace_getting_started';

interface StateRow {
  completed: string[];
  dismissed_at: Date | null;
}

function toView(row: StateRow | undefined): GettingStarted {
  const done = new Set(row?.completed ?? []);
  const steps = STEPS.map((s) => ({ key: s.key, title: s.title, completed: done.has(s.key) }));
  return { steps, completed_count: steps.filter((s) => s.completed).length, total: steps.length, dismissed: !!row?.dismissed_at };
}

/** A member's onboarding checklist in one workspace. No row until something is ticked or dismissed; leaving the workspace deletes it (cascade). */
export class GettingStartedService {
  constructor(private readonly db: Db) {}

  async get(workspaceId: string, userId: string): Promise<GettingStarted> {
    return toView(await this.db(TABLE).where({ workspace_id: workspaceId, user_id: userId }).first('completed', 'dismissed_at'));
  }

  async update(workspaceId: string, userId: string, body: PatchGettingStartedBody): Promise<GettingStarted> {
    return inTransaction(this.db, async (trx) => {
      await trx(TABLE).insert({ workspace_id: workspaceId, user_id: userId }).onConflict(['workspace_id', 'user_id']).ignore();
      // Held so that an event ticking a step meanwhile is not lost under this write.
      const row: StateRow = await trx(TABLE).where({ workspace_id: workspaceId, user_id: userId }).forUpdate().first('completed', 'dismissed_at');
      const done = new Set(row.completed);
      for (const [key, on] of Object.entries(body.completed ?? {})) {
        if (on) done.add(key);
        else done.delete(key);
      }
      const dismissedAt = body.dismissed === undefined ? row.dismissed_at : body.dismissed ? (row.dismissed_at ?? new Date()) : null;
      const [updated] = await trx(TABLE)
        .where({ workspace_id: workspaceId, user_id: userId })
        .update({ completed: [...done], dismissed_at: dismissedAt, updated_at: trx.fn.now() })
        .returning(['completed', 'dismissed_at']);
      return toView(updated);
    });
  }

  /**
   * Ticks steps for a member; idempotent, for at-least-once event delivery. Nothing happens
   * for someone who is not (or no longer) a member.
   */
  async complete(workspaceId: string, userId: string, keys: StepKey[]): Promise<void> {
    if (keys.length === 0) return;
    await this.db.raw(
      `INSERT INTO ${TABLE} (workspace_id, user_id, completed)
       SELECT m.workspace_id, m.user_id, ?::text[] FROM workspace_members m WHERE m.workspace_id = ? AND m.user_id = ?
       ON CONFLICT (workspace_id, user_id) DO UPDATE
         SET completed = ARRAY(SELECT DISTINCT unnest(${TABLE}.completed || EXCLUDED.completed)), updated_at = now()
       WHERE NOT (${TABLE}.completed @> EXCLUDED.completed)`,
      [keys, workspaceId, userId],
    );
  }
}
