import type { Context, Next } from 'koa';

/**
 * Whether this instance is answering requests. Work that may wait (webhook deliveries) yields to requests: on a small
 * machine, any CPU it takes while a request runs lengthens that request's every round trip to the database, since the
 * database and this process then wait for a core after each one.
 */
export class RequestLoad {
  private inFlight = 0;
  /** When a request last began or ended (ms, monotonic). */
  private lastActive = 0;

  private readonly ends = new WeakMap<Context, () => void>();

  /** Counts a request from its first middleware until its connection is done with the answer (a stream included). */
  middleware() {
    return (ctx: Context, next: Next) => {
      this.inFlight++;
      this.lastActive = performance.now();
      let counted = true;
      const done = () => {
        if (!counted) return;
        counted = false;
        this.inFlight--;
        this.lastActive = performance.now();
      };
      this.ends.set(ctx, done);
      ctx.res.once('close', done);
      return next();
    };
  }

  /**
   * Stops counting a request whose answer goes on with nothing to do between its messages (an event stream): left
   * counted, the instance would never look quiet, and work that yields to requests would wait for ever.
   */
  detach(ctx: Context): void {
    this.ends.get(ctx)?.();
  }

  /** Milliseconds since a request was last in flight: 0 while one is. */
  quietFor(): number {
    return this.inFlight > 0 ? 0 : performance.now() - this.lastActive;
  }
}
