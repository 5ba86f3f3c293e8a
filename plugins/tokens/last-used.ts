import type { Logger } from 'pino';
import type { Db } from '../../core/db.ts';

/** Forget write times this old when the map grows; they no longer suppress anything. */
const PRUNE_AT = 10_000;

/**
 * Keeps `last_used_at` accurate to `intervalMs` without a write per request: a token is
 * written at most once per interval by this process (the map), and the SQL guard keeps
 * several instances from writing the same row within the interval. Writes never delay
 * the request that caused them.
 */
export class LastUsedRecorder {
  private readonly written = new Map<string, number>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly db: Db, private readonly logger: Logger, private readonly intervalMs = 60_000) {}

  touch(tokenId: string, lastUsedAt: Date | null, now = Date.now()): void {
    if (lastUsedAt && now - lastUsedAt.getTime() < this.intervalMs) return;
    const written = this.written.get(tokenId);
    if (written !== undefined && now - written < this.intervalMs) return;
    this.remember(tokenId, now);
    const write = this.db('personal_access_tokens')
      .where('id', tokenId)
      .where((q) => q.whereNull('last_used_at').orWhereRaw('last_used_at < now() - ? * interval \'1 millisecond\'', [this.intervalMs]))
      .update({ last_used_at: this.db.fn.now() })
      .catch((err: unknown) => {
        this.written.delete(tokenId);
        this.logger.warn({ err, tokenId }, 'could not record a personal access token use');
      })
      .finally(() => this.inFlight.delete(write));
    this.inFlight.add(write);
  }

  /** Waits for pending writes, so shutdown does not close the pool under them. */
  async drain(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private remember(tokenId: string, now: number): void {
    if (this.written.size >= PRUNE_AT) {
      for (const [id, at] of this.written) if (now - at >= this.intervalMs) this.written.delete(id);
    }
    this.written.set(tokenId, now);
  }
}
