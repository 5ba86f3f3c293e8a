import type { Db } from '../../core/db.ts';
import type { DomainEvent } from '../../core/events.ts';

const FEED = 'realtime_feed';
const LISTENERS = 'realtime_listeners';
/** Held by each fan-out that appends, until it commits: sequence numbers then follow commit order, and a reader that saw `seq` has seen everything before it. */
const APPEND_LOCK = 'tessera-realtime-feed';

/** An event as the feed keeps it. */
export interface FeedRow {
  seq: number;
  event_id: number;
  name: string;
  workspace_id: string;
  actor_id: string | null;
  payload: unknown;
  occurred_at: string;
}

const COLUMNS = ['seq', 'event_id', 'name', 'workspace_id', 'actor_id', 'payload', 'occurred_at'];

const normalised = (row: Record<string, unknown>): FeedRow => ({
  ...(row as unknown as FeedRow),
  seq: Number(row.seq),
  event_id: Number(row.event_id),
  occurred_at: new Date(row.occurred_at as string).toISOString(),
});

/** The feed table: appended by the fan-out, read by every process with streams open, pruned by age. */
export class FeedStore {
  constructor(private readonly db: Db) {}

  async append(trx: Db, events: DomainEvent[]): Promise<number> {
    const rows = events
      .filter((e) => e.workspace_id)
      .map((e) => ({ event_id: e.id, name: e.name, workspace_id: e.workspace_id, actor_id: e.actor_id, payload: JSON.stringify(e.payload ?? null), occurred_at: e.occurred_at }));
    if (rows.length === 0) return 0;
    await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [APPEND_LOCK]);
    for (let i = 0; i < rows.length; i += 1000) await trx(FEED).insert(rows.slice(i, i + 1000));
    return rows.length;
  }

  /** Up to `limit` rows after `seq`, in order. */
  async after(seq: number, limit: number): Promise<FeedRow[]> {
    const rows = await this.db(FEED).where('seq', '>', seq).orderBy('seq').limit(limit).select(COLUMNS);
    return rows.map(normalised);
  }

  /** A workspace's rows after `seq` up to `until`, recorded since `since`: what a reconnecting stream missed. */
  async missed(workspaceId: string, seq: number, until: number, since: Date): Promise<FeedRow[]> {
    const rows = await this.db(FEED).where({ workspace_id: workspaceId }).where('seq', '>', seq).where('seq', '<=', until).where('recorded_at', '>=', since).orderBy('seq').select(COLUMNS);
    return rows.map(normalised);
  }

  async latest(): Promise<number> {
    const row = await this.db(FEED).max({ seq: 'seq' }).first();
    return Number(row?.seq ?? 0);
  }

  /** Drops what is older than `before`: feed rows, and processes that stopped saying they listen. */
  async prune(before: Date): Promise<number> {
    await this.db(LISTENERS).where('seen_at', '<', before).delete();
    return this.db(FEED).where('recorded_at', '<', before).delete();
  }

  /** This process has streams open (said again every few seconds while it has). */
  async listening(process: string): Promise<void> {
    await this.db(LISTENERS).insert({ process, seen_at: this.db.fn.now() }).onConflict('process').merge();
  }

  /** Whether any process said it had streams open within `seconds`. */
  async anyListening(seconds: number): Promise<boolean> {
    return (await this.db(LISTENERS).where('seen_at', '>', this.db.raw(`now() - make_interval(secs => ?)`, [seconds])).first('process')) !== undefined;
  }
}
