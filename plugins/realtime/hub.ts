import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../core/logger.ts';
import type { FeedStore } from './feed.ts';
import type { EventStream } from './stream.ts';

/** Rows read from the feed at a time. */
const PAGE = 500;
/** How often a process with streams says so, and how long that is believed by the others. */
const LISTENING_EVERY_MS = 10_000;
const LISTENING_FOR_SECONDS = 30;
/** How often a process without streams asks whether another one has some. */
const ASK_EVERY_MS = 1_000;

/**
 * This process's open streams and the one loop that feeds them: while any is open it reads the feed after the last row
 * it handed out — woken at once by a fan-out this process committed, every `pollMs` for what other processes did — and
 * offers each row to every stream. Events go into the feed (the fan-out tap) only while some process listens.
 */
export class RealtimeHub {
  private readonly streams = new Set<EventStream>();
  private readonly process = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private cursor = 0;
  private running: Promise<void> | null = null;
  private starting: Promise<void> | null = null;
  private wakeUp: (() => void) | null = null;
  private othersListen = false;
  /** When a stream was last open here (ms, monotonic). */
  private lastOpen = -Infinity;
  private asking: NodeJS.Timeout | null = null;
  private saying: NodeJS.Timeout | null = null;

  constructor(private readonly deps: { feed: FeedStore; pollMs: number; replayMinutes: number; logger: Logger; multiProcess: boolean }) {}

  /**
   * Whether the fan-out should record events for streams: some are open here or in another process, or were within the
   * replay window (a stream that reconnects gets what it missed meanwhile).
   */
  wanted(): boolean {
    return this.streams.size > 0 || performance.now() - this.lastOpen < this.deps.replayMinutes * 60_000 || this.othersListen;
  }

  /** Starts asking, now and then, whether another process listens (PostgreSQL only: PGlite has one process). */
  start(): void {
    if (!this.deps.multiProcess) return;
    this.asking = setInterval(() => {
      if (this.streams.size > 0) return;
      this.deps.feed.anyListening(LISTENING_FOR_SECONDS + this.deps.replayMinutes * 60).then((any) => (this.othersListen = any), (err: unknown) => this.deps.logger.warn({ err }, 'could not ask whether other processes stream events'));
    }, ASK_EVERY_MS);
    this.asking.unref();
  }

  /**
   * Adds a stream; with `lastEventId`, it first gets what it missed in its workspace (within the replay window), then
   * the live events from where the loop is.
   */
  async add(stream: EventStream, lastEventId: number | undefined): Promise<void> {
    // In first (it holds what the loop offers it until its replay is done): the loop runs while there are streams.
    this.streams.add(stream);
    // Streams opened together start one loop.
    if (!this.running) await (this.starting ??= this.listen().finally(() => (this.starting = null)));
    const from = this.cursor;
    const since = new Date(Date.now() - this.deps.replayMinutes * 60_000);
    stream.replayed(lastEventId !== undefined && lastEventId < from ? await this.deps.feed.missed(stream.workspaceId, lastEventId, from, since) : []);
  }

  remove(stream: EventStream): void {
    this.streams.delete(stream);
    this.lastOpen = performance.now();
  }

  /** A fan-out of this process committed events: read them now. */
  wake(): void {
    this.wakeUp?.();
  }

  /** Ends every stream (the instance stops) and the timers. */
  stop(): void {
    for (const stream of [...this.streams]) stream.end();
    if (this.asking) clearInterval(this.asking);
    this.asking = null;
  }

  /**
   * The first stream: other processes hear that this one listens, and the loop starts after the feed's last row (or
   * goes on where it was, when it had not yet noticed that the last stream went).
   */
  private async listen(): Promise<void> {
    await this.deps.feed.listening(this.process);
    if (!this.saying) {
      this.saying = setInterval(() => void this.deps.feed.listening(this.process).catch(() => undefined), LISTENING_EVERY_MS);
      this.saying.unref();
    }
    if (this.running) return;
    this.cursor = await this.deps.feed.latest();
    this.running = this.run().finally(() => {
      this.running = null;
      if (this.saying) clearInterval(this.saying);
      this.saying = null;
    });
  }

  private async run(): Promise<void> {
    while (this.streams.size > 0) {
      let rows;
      try {
        rows = await this.deps.feed.after(this.cursor, PAGE);
      } catch (err) {
        this.deps.logger.warn({ err }, 'the realtime feed could not be read; trying again');
        await this.sleep(this.deps.pollMs * 20);
        continue;
      }
      for (const row of rows) for (const stream of this.streams) stream.offer(row);
      if (rows.length > 0) this.cursor = rows[rows.length - 1].seq;
      if (rows.length < PAGE) await this.sleep(this.deps.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = null;
        done();
      };
    });
  }
}
