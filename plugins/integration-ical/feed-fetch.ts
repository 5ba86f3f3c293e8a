import http from 'node:http';
import https from 'node:https';
import { pipeline, type Readable, type Transform } from 'node:stream';
import zlib from 'node:zlib';
import { RateLimited, SourceUnavailable } from '../sources/public.ts';
import { feedUrl, guardedLookup, RefusedAddress, type AddressRules } from './feed-address.ts';

export interface FetchLimits {
  /** For the whole fetch: every redirect, and the body. */
  timeoutMs: number;
  /** Of the body as decoded (a gzip bomb is cut off like a plain one). */
  maxBytes: number;
  maxRedirects: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_RETRY_AFTER_S = 60;

/** The Content-Encodings a feed may come in (asked for: gzip, deflate, br), and how each is undone. */
const DECODERS = new Map<string, (() => Transform) | null>([
  ['identity', null],
  ['gzip', () => zlib.createGunzip()],
  ['x-gzip', () => zlib.createGunzip()],
  ['deflate', () => zlib.createInflate()],
  ['br', () => zlib.createBrotliDecompress()],
]);

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), at least 1; 60 when absent or unreadable. */
export function retryAfterSeconds(header: string | undefined, now = Date.now()): number {
  const value = header?.trim();
  if (!value) return DEFAULT_RETRY_AFTER_S;
  if (/^[0-9]+$/.test(value)) return Math.max(1, Number(value));
  const at = Date.parse(value);
  return Number.isNaN(at) ? DEFAULT_RETRY_AFTER_S : Math.max(1, Math.ceil((at - now) / 1000));
}

function get(url: URL, rules: AddressRules, signal: AbortSignal): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.get(url, {
      // A fresh connection each time: a pooled one would skip the lookup guard.
      agent: false,
      lookup: guardedLookup(rules),
      signal,
      headers: { accept: 'text/calendar, */*;q=0.5', 'accept-encoding': 'gzip, deflate, br', 'user-agent': 'Tessera-Sources/1 (iCalendar feed)' },
    }, resolve);
    req.on('error', reject);
  });
}

async function readBody(res: http.IncomingMessage, host: string, maxBytes: number): Promise<Buffer> {
  const cap = maxBytes >= 1024 * 1024 ? `${+(maxBytes / 1024 / 1024).toFixed(1)} MiB` : `${+(maxBytes / 1024).toFixed(1)} KiB`;
  const tooLarge = () => new SourceUnavailable(`The feed at ${host} is larger than ${cap}, the most a source reads.`);
  if (Number(res.headers['content-length']) > maxBytes) {
    res.destroy();
    throw tooLarge();
  }
  const encoding = (res.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  const decoder = DECODERS.get(encoding);
  if (decoder === undefined) {
    res.destroy();
    throw new SourceUnavailable(`The feed at ${host} came in an encoding that cannot be read (${encoding.slice(0, 40)}).`);
  }
  const body: Readable = decoder ? pipeline(res, decoder(), () => undefined) : res;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      body.destroy();
      res.destroy();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function describe(err: NodeJS.ErrnoException): string {
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (err.code === 'ECONNRESET') return 'connection reset';
  if (err.code === 'Z_DATA_ERROR' || err.code === 'Z_BUF_ERROR' || err.code?.startsWith('ERR__')) return 'its compressed body is corrupt';
  return err.code ? `${err.code}: ${err.message}` : err.message;
}

/** What became of a fetch that got no usable answer, told without the URL's path or query (where feeds keep secrets). */
function failure(err: unknown, host: string, stopped: AbortSignal, timeout: AbortSignal, timeoutMs: number): Error {
  if (err instanceof SourceUnavailable || err instanceof RateLimited) return err;
  if (stopped.aborted) return new SourceUnavailable(`The read was stopped before the feed at ${host} was read.`);
  if (timeout.aborted) return new SourceUnavailable(`The feed at ${host} was not read within ${timeoutMs / 1000} s.`);
  if (err instanceof RefusedAddress) return new SourceUnavailable(`The feed at ${host} was not fetched: ${err.message}`);
  return new SourceUnavailable(`The feed at ${host} could not be read: ${describe(err as NodeJS.ErrnoException)}.`);
}

/**
 * GETs a feed's bytes: the address checked before every request and again at connect time, at most `maxRedirects`
 * redirects (each checked the same), the whole within `timeoutMs`, the body within `maxBytes`. Throws `RateLimited`
 * for a 429 and `SourceUnavailable` for everything else that is not a 2xx with a body.
 */
export async function fetchFeed(raw: string, rules: AddressRules, limits: FetchLimits, stopped: AbortSignal): Promise<Buffer> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = AbortSignal.any([stopped, timeout]);
  let url: URL;
  try {
    url = feedUrl(raw, rules);
  } catch (err) {
    throw new SourceUnavailable(`The feed's address is refused: ${(err as Error).message}`);
  }
  for (let redirects = 0; ; redirects++) {
    const host = url.host;
    try {
      const res = await get(url, rules, signal);
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) return await readBody(res, host, limits.maxBytes);
      res.destroy();
      if (status === 429) {
        const seconds = retryAfterSeconds(res.headers['retry-after']);
        throw new RateLimited(seconds, `The feed at ${host} asked to be read again in ${seconds} s (HTTP 429).`);
      }
      if (!REDIRECTS.has(status)) throw new SourceUnavailable(`The feed at ${host} answered HTTP ${status}${http.STATUS_CODES[status] ? ` ${http.STATUS_CODES[status]}` : ''}.`);
      if (redirects === limits.maxRedirects) throw new SourceUnavailable(`The feed at ${host} redirected more than ${limits.maxRedirects} times.`);
      url = nextUrl(res.headers.location, url, rules);
    } catch (err) {
      throw failure(err, host, stopped, timeout, limits.timeoutMs);
    }
  }
}

/** Where a redirect goes, checked as the configured address was. */
function nextUrl(location: string | undefined, from: URL, rules: AddressRules): URL {
  if (!location) throw new SourceUnavailable(`The feed at ${from.host} redirected without saying where to.`);
  let target: URL;
  try {
    target = new URL(location, from);
  } catch {
    throw new SourceUnavailable(`The feed at ${from.host} redirected to something that is not a URL.`);
  }
  try {
    return feedUrl(target.href, rules);
  } catch (err) {
    throw new SourceUnavailable(`The feed at ${from.host} redirected to an address that is refused: ${(err as Error).message}`);
  }
}
