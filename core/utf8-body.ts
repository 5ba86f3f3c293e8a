import { Transform, type Readable, type TransformCallback } from 'node:stream';
import type { IncomingHttpHeaders } from 'node:http';
import zlib from 'node:zlib';
import type { Context } from 'koa';
import { unsupportedMediaType } from './errors.ts';

/** Raised by a body holding bytes that are not UTF-8; `status` 400 is how the body parser's error handler takes it. */
export class InvalidUtf8 extends Error {
  readonly status = 400;
  constructor() {
    super('The request body is not valid UTF-8.');
  }
}

/** The Content-Encodings a body may come in (those the JSON parser took before), each with its decompressor. */
const DECOMPRESSORS: Record<string, () => Transform> = {
  gzip: () => zlib.createUnzip(),
  deflate: () => zlib.createUnzip(),
  br: () => zlib.createBrotliDecompress(),
};

/**
 * Passes the bytes through, failing at the first that cannot be UTF-8, or at an end inside a character. The JSON
 * parser decodes with replacement: without this, `FF FE C3` would be stored as three U+FFFD instead of refused.
 */
class Utf8Check extends Transform {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(readonly headers: IncomingHttpHeaders) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      return done(new InvalidUtf8());
    }
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    try {
      this.decoder.decode();
    } catch {
      return done(new InvalidUtf8());
    }
    done();
  }
}

/**
 * Runs `parse` on a context whose `req` is the request body decompressed and checked as UTF-8 on its way, so the
 * parser fails with InvalidUtf8 rather than replace what it cannot decode. The parser sees an uncompressed body
 * (Content-Encoding `identity`; a decompressed body's Content-Length no longer holds, so it is left out).
 */
export async function withUtf8Body<T>(ctx: Context, parse: (checked: Context) => Promise<T>): Promise<T> {
  const req = ctx.req;
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decompress = encoding === 'identity' ? null : DECOMPRESSORS[encoding];
  if (decompress === undefined) throw unsupportedMediaType(`Content-Encoding "${encoding}" is not accepted; send the body as it is, or in gzip, deflate or br.`);
  const { 'content-length': length, ...rest } = req.headers;
  const checked = new Utf8Check({ ...rest, 'content-encoding': 'identity', ...(decompress ? {} : { 'content-length': length }) });
  const source: Readable = decompress ? req.pipe(decompress()) : req;
  // pipe() forwards no error either: a cap (body-cap.ts) or a decompressor failing must fail the parse with its own.
  const fail = (err: Error) => checked.destroy(err);
  req.once('error', fail);
  if (source !== req) source.once('error', fail);
  source.pipe(checked);
  // pipe() forwards data, not a hang-up: without this the parser would wait for the rest forever.
  const hangUp = () => ended(req) || checked.destroy(new Error('The client closed the connection before the end of the body.'));
  req.once('close', hangUp);
  // Everything else (method, headers, ctx.request for the results) is the real context's.
  const view = Object.create(ctx, { req: { value: checked } }) as Context;
  try {
    return await parse(view);
  } finally {
    req.off('close', hangUp);
    req.off('error', fail);
    source.unpipe(checked);
    if (source !== req) req.unpipe(source as Transform);
    req.pause();
  }
}

/** Whether the body was read to its end: the request's own flag, or, for a stream in front of it (body-cap.ts), its end. */
function ended(req: Readable & { complete?: boolean }): boolean {
  return req.complete ?? req.readableEnded;
}
