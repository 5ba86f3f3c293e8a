import { Transform, type TransformCallback } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import type { Context } from 'koa';

/** Raised by a capped body past its cap; `status` 413 is how the body parser's error handler recognises it. */
export class BodyCapExceeded extends Error {
  readonly status = 413;
  constructor(readonly cap: number) {
    super(`The request body exceeds ${cap} bytes.`);
  }
}

/** Raised when a body's next bytes do not come in time; `status` 408, as for the cap. */
export class BodyStalled extends Error {
  readonly status = 408;
  constructor(readonly idleMs: number) {
    super(`No byte of the request body came for ${idleMs / 1000} s.`);
  }
}

/**
 * Passes a request body through, failing as soon as more than `cap` bytes have come, however the body is framed,
 * or once the parser has waited `idleMs` for the next bytes. The wait is timed only while the parser asks for more:
 * a parser that is slow to take what came (a blob store behind an upload) is not the client's doing.
 */
class ByteCap extends Transform {
  private received = 0;
  private idle: NodeJS.Timeout | undefined;
  constructor(
    private readonly cap: number,
    private readonly idleMs: number,
    readonly headers: IncomingHttpHeaders,
  ) {
    super();
  }

  override _read(size: number): void {
    this.idle ??= setTimeout(() => this.destroy(new BodyStalled(this.idleMs)), this.idleMs);
    super._read(size);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.stopWaiting();
    this.received += chunk.length;
    if (this.received > this.cap) done(new BodyCapExceeded(this.cap));
    else done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    this.stopWaiting();
    done();
  }

  override _destroy(err: Error | null, done: (err: Error | null) => void): void {
    this.stopWaiting();
    done(err);
  }

  private stopWaiting(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
  }
}

/** What a body is held to while it is read. */
export interface BodyLimits {
  /** Bytes, framing included. */
  cap: number;
  /** Milliseconds the parser may wait for the next bytes. */
  idleMs: number;
}

/**
 * Runs `parse` on a context whose `req` is the request body held to `limits`. A parser's own limits (formidable's
 * file and field sizes) count only some bytes: a body that never reaches its boundary, or a huge preamble, would
 * otherwise be read to its end; and none of them times a body that stops coming. The request is unpiped afterwards,
 * so what is left of it is not fed to a parser that has given up (the connection lingers and closes, see linger.ts).
 */
export async function withCappedBody<T>(ctx: Context, limits: BodyLimits, parse: (capped: Context) => Promise<T>): Promise<T> {
  const req = ctx.req;
  const capped = new ByteCap(limits.cap, limits.idleMs, req.headers);
  req.pipe(capped);
  // pipe() forwards data, not a hang-up: without this the parser would wait for the rest forever.
  const hangUp = () => req.complete || capped.destroy(new Error('The client closed the connection before the end of the body.'));
  req.once('close', hangUp);
  // Everything else (method, headers, ctx.request for the results) is the real context's.
  const view = Object.create(ctx, { req: { value: capped } }) as Context;
  try {
    return await parse(view);
  } finally {
    req.off('close', hangUp);
    req.unpipe(capped);
    req.pause();
    // Its wait ends with the parse: a timer left running would fail a stream nobody listens to any more.
    capped.destroy();
  }
}
