import http from 'node:http';
import https from 'node:https';
import { promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isForbiddenAddress } from '../../core/address-policy.ts';
import { parseRetryAfter } from './schedule.ts';

/** Resolves a host name to its addresses; injectable so tests prove refusals without asking any real DNS. */
export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface ClientOptions {
  resolver: Resolver;
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  maxResponseBytes: number;
}

export interface AttemptResult {
  /** A 2xx answer. */
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
  retryAfterMs: number | null;
}

/** Why a target is refused, said to whoever configured it; the error is thrown before any connection is opened. */
export class RefusedTarget extends Error {}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** The checks that need no DNS: http(s) only, no credentials, no forbidden literal address (which no lookup would see). */
function checkUrl(raw: string, allowPrivateNetworks: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedTarget('Not an absolute URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new RefusedTarget('Only http and https URLs can receive webhooks.');
  if (url.username || url.password) throw new RefusedTarget('Credentials in the URL are not accepted; receivers authenticate deliveries by their signature.');
  const host = hostOf(url);
  if (!allowPrivateNetworks && isIP(host) && isForbiddenAddress(host)) throw new RefusedTarget(`${host} is a loopback, private, link-local or multicast address.`);
  return url;
}

/**
 * Checks a webhook URL as it is saved: `checkUrl`, and no host name that resolves to a forbidden address. A name that
 * does not resolve now passes (the connect-time check still applies to whatever it resolves to later).
 */
export async function checkTarget(raw: string, opts: Pick<ClientOptions, 'resolver' | 'allowPrivateNetworks'>): Promise<void> {
  const url = checkUrl(raw, opts.allowPrivateNetworks);
  const host = hostOf(url);
  if (opts.allowPrivateNetworks || isIP(host)) return;
  const addresses = await opts.resolver(host).catch(() => []);
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  if (bad) throw new RefusedTarget(`${host} resolves to ${bad.address}, a loopback, private, link-local or multicast address.`);
}

/**
 * The connect-time guard: resolves once, refuses if any answer is forbidden, and hands the socket only the addresses
 * it checked, so a DNS answer that changed since the webhook was saved cannot get through.
 */
function guardedLookup(opts: ClientOptions): LookupFunction {
  const checked = async (hostname: string) => {
    const addresses = await opts.resolver(hostname);
    if (addresses.length === 0) throw Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' });
    const bad = opts.allowPrivateNetworks ? undefined : addresses.find((a) => isForbiddenAddress(a.address));
    if (bad) throw new RefusedTarget(`refused: ${hostname} resolves to ${bad.address}, a loopback, private, link-local or multicast address`);
    return addresses;
  };
  return (hostname, options, callback) => {
    checked(hostname).then(
      (addresses) => (options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family)),
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

function describe(err: NodeJS.ErrnoException): string {
  if (err instanceof RefusedTarget) return err.message;
  if (err.code === 'ECONNREFUSED') return 'connection refused';
  if (err.code === 'ENOTFOUND' || err.code === 'EAI_AGAIN') return 'the host name does not resolve';
  if (err.code === 'ECONNRESET') return 'connection reset';
  return err.code ? `${err.code}: ${err.message}` : err.message;
}

/**
 * POSTs one signed body. Follows no redirect (a 3xx is a failure), gives up after `timeoutMs` in all, reads at most
 * `maxResponseBytes` of the answer (only its status matters) and never throws: every outcome is an `AttemptResult`.
 */
export class WebhookClient {
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(private readonly opts: ClientOptions) {
    this.agents = { http: new http.Agent({ keepAlive: true, maxSockets: 16 }), https: new https.Agent({ keepAlive: true, maxSockets: 16 }) };
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  async post(target: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = Date.now();
    const done = (r: Omit<AttemptResult, 'durationMs'>): AttemptResult => ({ ...r, durationMs: Date.now() - started });
    let url: URL;
    try {
      url = checkUrl(target, this.opts.allowPrivateNetworks);
    } catch (err) {
      return done({ ok: false, status: null, error: `refused: ${(err as Error).message}`, retryAfterMs: null });
    }
    const client = url.protocol === 'https:' ? https : http;
    return new Promise<AttemptResult>((resolve) => {
      let settled = false;
      let req: http.ClientRequest;
      const finish = (r: Omit<AttemptResult, 'durationMs'>) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(done(r));
      };
      const timer = setTimeout(() => {
        finish({ ok: false, status: null, error: `timed out after ${this.opts.timeoutMs / 1000} s`, retryAfterMs: null });
        req.destroy();
      }, this.opts.timeoutMs);
      const send = (onFreshConnection: boolean) => {
        req = client.request(url, {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Tessera-Webhooks/1' },
          agent: onFreshConnection ? false : url.protocol === 'https:' ? this.agents.https : this.agents.http,
          lookup: guardedLookup(this.opts),
        });
        const sent = req;
        sent.on('error', (err: NodeJS.ErrnoException) => {
          // A kept-alive connection the receiver closed while idle fails as soon as it is written to, before the
          // receiver saw anything: that is not the receiver's answer, so the body goes again on a new connection.
          if (!onFreshConnection && sent.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && !settled) return send(true);
          finish({ ok: false, status: null, error: describe(err), retryAfterMs: null });
        });
        sent.on('response', (res) => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          const retryAfter = parseRetryAfter(res.headers['retry-after'] as string | undefined);
          const result = { ok, status, error: ok ? null : `HTTP ${status}`, retryAfterMs: ok ? null : retryAfter };
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > this.opts.maxResponseBytes) {
              finish(result);
              res.destroy();
            }
          });
          res.on('end', () => finish(result));
          res.on('error', () => finish(result));
          res.on('close', () => finish(result));
        });
        sent.end(body);
      };
      send(false);
    });
  }
}
