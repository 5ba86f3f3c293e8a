import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Stream } from 'node:stream';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import { canonicalJson } from './canonical-json.ts';
import type { Db } from './db.ts';
import { idempotencyInFlight, idempotencyKeyReused, invalidField } from './errors.ts';
import type { AnyRouteDef } from './routes.ts';

export const IDEMPOTENCY_TABLE = 'kernel_idempotency_keys';
/** A key is remembered this long; an older one is treated as new, and a scheduled job deletes it. */
export const IDEMPOTENCY_TTL_HOURS = 24;
export const REPLAYED_HEADER = 'Idempotency-Replayed';
const KEY_FORMAT = /^[\x20-\x7E]{1,255}$/;
const EXPIRED = `now() - interval '${IDEMPOTENCY_TTL_HOURS} hours'`;
/** No request runs this long: an unfinished claim this old belongs to a process that died, and is taken over. */
const ABANDONED = `now() - interval '5 minutes'`;
/** Response headers not replayed: framing the replay recomputes, per-response ids, and cookies (may carry secrets). */
const NOT_REPLAYED = new Set(['content-length', 'transfer-encoding', 'connection', 'date', 'x-request-id', 'set-cookie']);

/** POST creates (declared status 201) honour Idempotency-Key unless they opt out with `idempotency: false`. */
export function isIdempotentRoute(def: AnyRouteDef): boolean {
  return def.method === 'POST' && def.status === 201 && def.idempotency !== false;
}

interface Call {
  userId: string;
  key: string;
  method: string;
  route: string;
  path: string;
  hash: string;
}

interface Recorded {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

type UploadedFile = { filepath: string; originalFilename?: string | null; size: number };

/** Multipart uploads are part of the request: they count by content, not by name alone. */
async function fileDigests(ctx: Context) {
  const files = (ctx.request as { files?: Record<string, UploadedFile | UploadedFile[]> }).files ?? {};
  const out: Array<{ field: string; name: string | null; size: number; sha256: string }> = [];
  for (const [field, value] of Object.entries(files)) {
    for (const f of Array.isArray(value) ? value : [value]) {
      const hash = createHash('sha256');
      for await (const chunk of fs.createReadStream(f.filepath)) hash.update(chunk as Buffer);
      out.push({ field, name: f.originalFilename ?? null, size: f.size, sha256: hash.digest('hex') });
    }
  }
  return out;
}

/** Validated input (defaults applied) identifies the request: the same question asked twice hashes the same. */
async function requestHash(ctx: Context, input: { query: unknown; body: unknown }): Promise<string> {
  const files = await fileDigests(ctx);
  return createHash('sha256').update(canonicalJson({ query: input.query, body: input.body, files })).digest('hex');
}

function storable(body: unknown): boolean {
  return !Buffer.isBuffer(body) && !(body instanceof Stream);
}

function headersSetSince(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(after)) {
    if (NOT_REPLAYED.has(name) || value === undefined || value === before[name]) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

function replay(ctx: Context, recorded: Recorded): void {
  ctx.status = recorded.status;
  // Headers first: a stored Content-Type then survives assigning the body.
  for (const [name, value] of Object.entries(recorded.headers)) ctx.set(name, value);
  ctx.set(REPLAYED_HEADER, 'true');
  if (recorded.body !== null) ctx.body = recorded.body;
}

/**
 * API.md: "POST creates accept Idempotency-Key". A key is claimed in its own statement before
 * the handler runs (no transaction spans the handler: PGlite has one connection), completed
 * with the response after a success, and released after a failure so the client may retry.
 */
export class Idempotency {
  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {}

  /** Runs `execute`, which writes the response to ctx, at most once per (user, key); or replays its response. */
  async run(ctx: Context, userId: string, route: string, input: { query: unknown; body: unknown }, execute: () => Promise<void>): Promise<void> {
    const key = ctx.get('idempotency-key');
    if (!KEY_FORMAT.test(key)) throw invalidField('/headers/idempotency-key', 'Idempotency-Key must be 1 to 255 printable ASCII characters.');
    const call: Call = { userId, key, method: ctx.method, route, path: ctx.path, hash: await requestHash(ctx, input) };
    const recorded = await this.claim(call);
    if (recorded) return replay(ctx, recorded);

    const before = { ...ctx.response.headers };
    try {
      await execute();
    } catch (err) {
      await this.release(call);
      throw err;
    }
    // A failure changed nothing worth remembering (a handler that fails must not have written): the key is free again.
    if (ctx.status >= 400 || !storable(ctx.body)) return this.release(call);
    await this.complete(call, { status: ctx.status, body: ctx.body ?? null, headers: headersSetSince(before, ctx.response.headers) });
  }

  /** Deletes records older than the TTL; returns how many. */
  async purgeExpired(): Promise<number> {
    return this.db(IDEMPOTENCY_TABLE).whereRaw(`created_at < ${EXPIRED}`).del();
  }

  /** null = the key is now ours; else the response to replay. Throws 422 (other request) or 409 (in flight). */
  private async claim(call: Call): Promise<Recorded | null> {
    // A row that vanished between the two statements (released, or expired and purged) is claimed again.
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await this.db(IDEMPOTENCY_TABLE)
        .insert({ user_id: call.userId, key: call.key, method: call.method, route: call.route, path: call.path, request_hash: call.hash })
        .onConflict(['user_id', 'key'])
        // An expired record, or a claim abandoned by a crashed process, is taken over: its key counts as new.
        .merge({
          method: call.method,
          route: call.route,
          path: call.path,
          request_hash: call.hash,
          status: null,
          response_body: null,
          response_headers: null,
          created_at: this.db.fn.now(),
          completed_at: null,
        })
        .whereRaw(
          `${IDEMPOTENCY_TABLE}.created_at < ${EXPIRED} OR (${IDEMPOTENCY_TABLE}.completed_at IS NULL AND ${IDEMPOTENCY_TABLE}.created_at < ${ABANDONED})`,
        )
        .returning('user_id');
      if (claimed.length > 0) return null;

      const row = await this.db(IDEMPOTENCY_TABLE)
        .where({ user_id: call.userId, key: call.key })
        .whereRaw(`created_at >= ${EXPIRED}`)
        .first();
      if (!row) continue;
      if (row.method !== call.method || row.route !== call.route || row.path !== call.path || row.request_hash !== call.hash) {
        throw idempotencyKeyReused();
      }
      if (row.status === null) throw idempotencyInFlight();
      return { status: row.status, body: row.response_body, headers: row.response_headers ?? {} };
    }
    throw idempotencyInFlight();
  }

  /** The work is done: a failed write here is logged, not answered, lest the client retry a create that happened. */
  private async complete(call: Call, recorded: Recorded): Promise<void> {
    await this.pending(call)
      .update({
        status: recorded.status,
        response_body: JSON.stringify(recorded.body),
        response_headers: JSON.stringify(recorded.headers),
        completed_at: this.db.fn.now(),
      })
      .catch((err) => this.logger.error({ err, userId: call.userId, route: call.route }, 'could not record an idempotent response; the key stays in flight until it expires'));
  }

  /** Never hides the request's own outcome: a failed release only keeps the key in flight until it expires. */
  private async release(call: Call): Promise<void> {
    await this.pending(call)
      .del()
      .catch((err) => this.logger.error({ err, userId: call.userId, route: call.route }, 'could not release an idempotency key'));
  }

  private pending(call: Call) {
    return this.db(IDEMPOTENCY_TABLE).where({ user_id: call.userId, key: call.key }).whereNull('completed_at');
  }
}
