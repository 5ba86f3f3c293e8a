import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import type { KernelHooks } from '../../core/hooks.ts';
import { isUser, type UserPrincipal } from '../../core/principal.ts';
import type { Logger } from '../../core/logger.ts';
import type { FeedRow } from './feed.ts';
import type { EventSight } from './sight.ts';
import { matches, subjectOf, type Topics } from './topics.ts';

/**
 * One open event stream: what it listens to, for whom, and the text/event-stream it writes. Events are delivered one at
 * a time, in feed order, each after the credential is checked again (a revoked token or a signed-out session ends the
 * stream) and filtered for the reader. While a reconnecting stream replays what it missed, live events wait.
 */
export class EventStream {
  readonly body = new PassThrough();
  /** The feed's last seq this stream has dealt with (sent, or found not for it). */
  private delivered: number;
  private queue: Promise<void> = Promise.resolve();
  private held: FeedRow[] | null = [];
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly deps: { ctx: Context; token: string; hooks: KernelHooks; sight: EventSight; member: (reader: UserPrincipal) => Promise<boolean>; logger: Logger; heartbeatMs: number; onEnd: (stream: EventStream) => void },
    readonly workspaceId: string,
    private readonly topics: Topics,
    lastEventId: number | undefined,
  ) {
    this.delivered = lastEventId ?? 0;
    // The client reconnects after 3 s when the stream drops; a first line makes proxies pass the headers on at once.
    this.body.write('retry: 3000\n\n');
    this.heartbeat = setInterval(() => this.enqueue(async () => {
      const reader = await this.reader();
      if (reader && !(await deps.member(reader))) return this.end();
      if (reader) this.body.write(':\n\n');
    }), deps.heartbeatMs);
    this.heartbeat.unref();
    deps.ctx.res.once('close', () => this.end());
  }

  /** A live event: delivered in turn, or kept until the replay is done. */
  offer(row: FeedRow): void {
    if (this.held) this.held.push(row);
    else this.enqueue(() => this.deliver(row));
  }

  /** What the stream missed before it opened, then the live events kept meanwhile. */
  replayed(rows: FeedRow[]): void {
    const held = this.held ?? [];
    this.held = null;
    for (const row of [...rows, ...held]) this.enqueue(() => this.deliver(row));
  }

  /** Ends the stream (the client left, the instance stops, the credential or the access is gone). */
  end(): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.heartbeat);
    this.body.end();
    this.deps.onEnd(this);
  }

  private enqueue(step: () => Promise<void>): void {
    this.queue = this.queue.then(step).catch((err: unknown) => {
      this.deps.logger.warn({ err }, 'an event stream failed; it is closed');
      this.end();
    });
  }

  private async deliver(row: FeedRow): Promise<void> {
    if (this.closed || row.seq <= this.delivered) return;
    if (row.workspace_id !== this.workspaceId || !matches(this.topics, subjectOf(row.payload))) {
      this.delivered = row.seq;
      return;
    }
    const reader = await this.reader();
    if (!reader) return;
    const shown = await this.deps.sight.shown(reader, row);
    if (shown === 'gone') return this.end();
    this.delivered = row.seq;
    if (!shown) return;
    const data = JSON.stringify({ name: row.name, workspace_id: row.workspace_id, actor_id: row.actor_id, occurred_at: row.occurred_at, payload: shown.payload });
    this.body.write(`id: ${row.seq}\nevent: ${row.name}\ndata: ${data}\n\n`);
  }

  /** The stream's caller, authenticated again; the stream ends when the credential no longer works. */
  private async reader(): Promise<UserPrincipal | null> {
    if (this.closed) return null;
    const principal = await this.deps.hooks.auth.authenticate.promise({ token: this.deps.token, ctx: this.deps.ctx });
    if (principal && isUser(principal)) return principal;
    this.end();
    return null;
  }
}
