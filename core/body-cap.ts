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

/** Passes a request body through, failing as soon as more than `cap` bytes have come, however the body is framed. */
class ByteCap extends Transform {
  private received = 0;
  constructor(
    private readonly cap: number,
    readonly headers: IncomingHttpHeaders,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.cap) done(new BodyCapExceeded(this.cap));
    else done(null, chunk);
  }
}

/**
 * Runs `parse` on a context whose `req` is the request body capped at `cap` bytes. A parser's own limits
 * (formidable's file and field sizes) count only some bytes: a body that never reaches its boundary, or a huge
 * preamble, would otherwise be read to its end. The request is unpiped afterwards, so what is left of it is not
 * fed to a parser that has given up (the connection lingers and closes, see linger.ts).
 */
export async function withCappedBody<T>(ctx: Context, cap: number, parse: (capped: Context) => Promise<T>): Promise<T> {
  const req = ctx.req;
  const capped = new ByteCap(cap, req.headers);
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
  }
}
