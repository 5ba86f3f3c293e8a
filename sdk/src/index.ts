import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from './schema.ts';

export type { components, operations, paths };

/** A schema of the document by name: `Schema<'Filter'>`, `Schema<'Problem'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

/** What `fetch` the client uses: the global one unless told otherwise (a test, a proxy, a logger). */
export type Fetch = (input: Request) => Promise<Response>;

export interface TesseraOptions {
  /**
   * Where the instance is served, such as `https://tessera.example.com`: the document's paths carry `/api/v1`
   * themselves, so the base is the origin (plus any path prefix a proxy adds), not `…/api/v1`.
   */
  baseUrl: string;
  /**
   * A session token (`tss_…`) or a personal access token (`tpat_…`), sent as `Authorization: Bearer`. A function is
   * asked before each request (a token that is renewed); none, or `undefined`, calls anonymously.
   */
  token?: string | (() => string | undefined | Promise<string | undefined>);
  fetch?: Fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** One server-sent event of `GET /api/v1/workspaces/{ws}/events`. */
export interface TesseraEvent<Data = EventData> {
  /** The event's id: what `Last-Event-ID` sends back when the stream reconnects. */
  id: string;
  /** Its name: `record.created`, `record.updated`, `comment.created`, `field.deleted`, … */
  event: string;
  /** Its `data`, parsed from JSON. */
  data: Data;
}

/** The `data` of an event, as the realtime plugin documents it. */
export interface EventData {
  name: string;
  workspace_id: string;
  actor_id: string | null;
  occurred_at: string;
  payload: Record<string, unknown>;
}

export interface SubscribeOptions {
  /** `database:<id>` and `record:<id>`; none: every database the caller may read. */
  topics?: readonly string[];
  /** Resume after this event: what was missed since is replayed (as far back as the server keeps it). */
  lastEventId?: string;
  /** Ends the subscription: the stream is closed and `subscribe` resolves. */
  signal?: AbortSignal;
  /** How long to wait before reconnecting (ms) until the server says otherwise with `retry:`; 3000 by default. */
  retryMs?: number;
  /** Told why a connection dropped or failed before the next try: the subscription goes on. */
  onError?: (error: unknown) => void;
}

/** An answer that reconnecting cannot mend (401, 403, 404, 422, a body that is no event stream): `subscribe` rejects with it. */
export class SubscribeError extends Error {
  constructor(message: string, readonly status: number, readonly problem?: unknown) {
    super(message);
    this.name = 'SubscribeError';
  }
}

export type TesseraClient = Client<paths> & {
  /**
   * Follows the workspace's event stream, calling `onEvent` for each event in order (a promise it returns is waited
   * for before the next). Reconnects when the stream ends or drops, or the server answers 5xx, 408 or 429, sending the
   * last event id it saw as `Last-Event-ID` so that nothing is missed. Resolves once `signal` aborts (or the server
   * answers 204); rejects with a `SubscribeError` for an answer a retry cannot mend.
   */
  subscribe<Data = EventData>(workspaceId: string, options: SubscribeOptions, onEvent: (event: TesseraEvent<Data>) => void | Promise<void>): Promise<void>;
};

/** A typed client of a Tessera instance: `GET`, `POST`, `PATCH`, … of every documented route, and `subscribe`. */
export function createTessera(options: TesseraOptions): TesseraClient {
  const fetcher: Fetch = options.fetch ?? ((request) => globalThis.fetch(request));
  const token = options.token;
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: fetcher, headers: options.headers });
  const bearer = async () => (typeof token === 'function' ? await token() : token);
  if (token !== undefined) {
    client.use({
      async onRequest({ request }) {
        const value = await bearer();
        if (value && !request.headers.has('authorization')) request.headers.set('Authorization', `Bearer ${value}`);
        return request;
      },
    });
  }
  return Object.assign(client, {
    subscribe<Data = EventData>(workspaceId: string, subscribeOptions: SubscribeOptions, onEvent: (event: TesseraEvent<Data>) => void | Promise<void>) {
      return subscribe<Data>({ baseUrl: options.baseUrl, fetch: fetcher, headers: options.headers, bearer }, workspaceId, subscribeOptions, onEvent);
    },
  });
}

interface Connection {
  baseUrl: string;
  fetch: Fetch;
  headers?: Record<string, string>;
  bearer: () => Promise<string | undefined>;
}

/** The longest wait between tries after failures in a row. */
const MAX_RETRY_MS = 30_000;

async function subscribe<Data>(conn: Connection, workspaceId: string, options: SubscribeOptions, onEvent: (event: TesseraEvent<Data>) => void | Promise<void>): Promise<void> {
  const { signal } = options;
  const url = new URL(`${conn.baseUrl.replace(/\/+$/, '')}/api/v1/workspaces/${encodeURIComponent(workspaceId)}/events`);
  if (options.topics?.length) url.searchParams.set('topics', options.topics.join(','));
  let lastEventId = options.lastEventId ?? '';
  let retryMs = options.retryMs ?? 3000;
  let failures = 0;
  while (!signal?.aborted) {
    let waitMs = retryMs;
    try {
      const headers = new Headers({ ...conn.headers, Accept: 'text/event-stream', 'Cache-Control': 'no-cache' });
      const token = await conn.bearer();
      if (token) headers.set('Authorization', `Bearer ${token}`);
      if (lastEventId) headers.set('Last-Event-ID', lastEventId);
      const response = await conn.fetch(new Request(url, { headers, signal }));
      if (response.status === 204) return;
      if (response.status !== 200) {
        const problem = await response.json().catch(() => undefined);
        const retriable = response.status >= 500 || response.status === 408 || response.status === 429;
        if (!retriable) throw new SubscribeError(`The event stream was refused: ${response.status} ${detailOf(problem)}`.trim(), response.status, problem);
        const after = Number(response.headers.get('retry-after'));
        if (Number.isFinite(after) && after > 0) waitMs = after * 1000;
        throw new Error(`The event stream answered ${response.status}`);
      }
      const type = response.headers.get('content-type') ?? '';
      if (!/^text\/event-stream\b/i.test(type) || !response.body) {
        await response.body?.cancel();
        throw new SubscribeError(`Not an event stream (${type || 'no content type'}): is ${conn.baseUrl} a Tessera instance?`, response.status);
      }
      failures = 0;
      const parser = new EventStreamParser();
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          for (const message of parser.push(decoder.decode(value, { stream: true }))) {
            let data: Data;
            try {
              data = JSON.parse(message.data) as Data;
            } catch {
              lastEventId = message.id;
              options.onError?.(new Error(`Event ${message.id} (${message.event}) has data that is not JSON`));
              continue;
            }
            try {
              await onEvent({ id: message.id, event: message.event, data });
            } catch (err) {
              // The caller's own failure ends the subscription: a retry would skip the event or fail on it again.
              await reader.cancel().catch(() => undefined);
              throw new HandlerFailure(err);
            }
            lastEventId = message.id;
          }
          if (parser.retryMs !== undefined) retryMs = parser.retryMs;
        }
      } finally {
        reader.releaseLock();
      }
      // The stream ended (the server restarted, the credential changed): reconnect as EventSource would.
      waitMs = retryMs;
      options.onError?.(new Error('The event stream ended'));
    } catch (err) {
      if (err instanceof HandlerFailure) throw err.cause;
      if (signal?.aborted) return;
      if (err instanceof SubscribeError) throw err;
      failures++;
      waitMs = Math.max(waitMs, Math.min(MAX_RETRY_MS, retryMs * 2 ** (failures - 1)));
      options.onError?.(err);
    }
    await pause(waitMs, signal);
  }
}

/** What `onEvent` threw, carried past the retry logic. */
class HandlerFailure {
  constructor(readonly cause: unknown) {}
}

function detailOf(problem: unknown): string {
  const p = problem as { code?: unknown; detail?: unknown } | undefined;
  return [p?.code, p?.detail].filter((v) => typeof v === 'string').join(': ');
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** An event as the stream gives it, before its data is parsed. */
export interface StreamMessage {
  id: string;
  event: string;
  data: string;
}

/**
 * text/event-stream, parsed as the HTML standard's EventSource does: lines end with LF, CR or CRLF; a line starting
 * with `:` is a comment; `field: value` lines set `event`, `data` (one more line of it each), `id` and `retry`; a
 * blank line dispatches the event, unless it has no data. `id` carries over to the events after it.
 */
export class EventStreamParser {
  /** The reconnection delay the server last asked for. */
  retryMs: number | undefined;
  private buffer = '';
  private started = false;
  private lastEventId = '';
  private event = '';
  private data: string[] = [];

  /** Feeds decoded text; answers the events it completes. */
  push(text: string): StreamMessage[] {
    this.buffer += text;
    if (!this.started && this.buffer.length > 0) {
      this.started = true;
      if (this.buffer.startsWith('\uFEFF')) this.buffer = this.buffer.slice(1);
    }
    const out: StreamMessage[] = [];
    let start = 0;
    for (let i = 0; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (c !== '\n' && c !== '\r') continue;
      // A CR last in the buffer may be the first half of a CRLF: wait for what follows.
      if (c === '\r' && i === this.buffer.length - 1) break;
      this.line(this.buffer.slice(start, i), out);
      if (c === '\r' && this.buffer[i + 1] === '\n') i++;
      start = i + 1;
    }
    this.buffer = this.buffer.slice(start);
    return out;
  }

  private line(line: string, out: StreamMessage[]): void {
    if (line === '') {
      if (this.data.length) out.push({ id: this.lastEventId, event: this.event || 'message', data: this.data.join('\n') });
      this.data = [];
      this.event = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
    else if (field === 'id' && !value.includes('\0')) this.lastEventId = value;
    else if (field === 'retry' && /^\d+$/.test(value)) this.retryMs = Number(value);
  }
}
