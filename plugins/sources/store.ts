import type { Db } from '../../core/db.ts';
import type { LastRun, RunStatus, Schedule, Source, SourceRun, SourceStatus } from './schemas.ts';

export const SOURCES = 'sources';
export const RUNS = 'source_runs';
export const ROWS = 'source_rows';

export interface SourceRow {
  id: string;
  workspace_id: string;
  database_id: string;
  connection_id: string | null;
  kind: string;
  name: string;
  config: Record<string, unknown>;
  /** Property key → field id. */
  fields: Record<string, string>;
  schedule: Schedule;
  delete_policy: 'delete' | 'keep';
  status: SourceStatus;
  cursor: unknown;
  failures: number;
  last_run_id: string | null;
  push_channel: { id: string; resourceId: string | null; expiresAt: string } | null;
  next_run_at: Date | null;
  created_by: string | null;
  created_at: Date;
}

export interface RunRow {
  id: string;
  source_id: string;
  workspace_id: string;
  status: RunStatus;
  trigger: 'manual' | 'schedule' | 'push';
  full: boolean;
  page_cursor: unknown;
  resumed: boolean;
  snapshot: boolean | null;
  created: number;
  updated: number;
  deleted: number;
  skipped: number;
  error: string | null;
  row_errors: Array<{ key: string; detail: string }>;
  created_at: Date;
  started_at: Date | null;
  heartbeat_at: Date | null;
  finished_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function lastRunOf(run: RunRow): LastRun {
  return { id: run.id, status: run.status, started_at: iso(run.started_at), finished_at: iso(run.finished_at), created: run.created, updated: run.updated, deleted: run.deleted, error: run.error };
}

export function presentRun(run: RunRow): SourceRun {
  return { ...lastRunOf(run), trigger: run.trigger, full: run.full, skipped: run.skipped, row_errors: run.row_errors, created_at: run.created_at.toISOString() };
}

export function presentSource(row: SourceRow, lastRun: RunRow | undefined): Source {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    connection_id: row.connection_id,
    kind: row.kind,
    name: row.name,
    database_id: row.database_id,
    config: row.config,
    schedule: row.schedule,
    delete_policy: row.delete_policy,
    status: row.status,
    last_run: lastRun ? lastRunOf(lastRun) : null,
    created_at: row.created_at.toISOString(),
  };
}

/** Sources with their last runs, in the order given. */
export async function withLastRuns(db: Db, rows: SourceRow[]): Promise<Source[]> {
  const ids = rows.map((r) => r.last_run_id).filter((id): id is string => id !== null);
  const runs = ids.length > 0 ? ((await db(RUNS).whereIn('id', ids)) as RunRow[]) : [];
  const byId = new Map(runs.map((r) => [r.id, r]));
  return rows.map((row) => presentSource(row, row.last_run_id ? byId.get(row.last_run_id) : undefined));
}

/** When a schedule next runs after `from`; null for `manual`. */
export function nextRunAt(schedule: Schedule, from: Date): Date | null {
  const minutes = { manual: 0, '15m': 15, hourly: 60, daily: 24 * 60 }[schedule];
  return minutes === 0 ? null : new Date(from.getTime() + minutes * 60_000);
}
