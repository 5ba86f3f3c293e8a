import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import { checkedAddresses, type AddressRules } from './address.ts';
import { parseConnectionUrl, type ConnectionTarget } from './connection-url.ts';
import { ConnectionFailed, UnusableUrl } from './failures.ts';

export const STATEMENT_TIMEOUT_MS = 60_000;
const CONNECT_TIMEOUT_MS = 10_000;
/** A server that stops answering mid-statement (a network gone) is given up on a little after its own timeout. */
const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 15_000;

/**
 * Set at start-up, for the whole session: every transaction read-only unless it asks otherwise (and the plugin's
 * never do), and the text forms the plugin reads (ISO dates in UTC) whatever the server's or role's defaults are.
 */
const SESSION_SETTINGS = ['default_transaction_read_only=on', 'TimeZone=UTC', 'DateStyle=ISO,YMD', 'IntervalStyle=postgres']
  .map((setting) => `-c ${setting}`)
  .join(' ');

export interface SessionOptions extends AddressRules {
  /** Aborting it closes the connection, ending a statement under way. */
  signal?: AbortSignal;
}

/** The server could not be reached at one address (another one of the host's may answer). */
class Unreachable extends ConnectionFailed {}
/** The server answered that it has no TLS (what `sslmode=prefer` falls back from). */
class NoTls extends ConnectionFailed {}

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EADDRNOTAVAIL', 'ECONNRESET']);

function where(target: ConnectionTarget, address: string): string {
  if (address.startsWith('/')) return `the Unix socket ${address}`;
  const shown = isIP(address) === 6 ? `[${address}]` : address;
  return address === target.host ? `${shown}:${target.port}` : `${target.host} (${shown}):${target.port}`;
}

/** Why connecting failed, told without the URL (so without its password). */
function failureOf(err: unknown, target: ConnectionTarget, address: string): ConnectionFailed {
  if (err instanceof pg.DatabaseError) return new ConnectionFailed(`PostgreSQL at ${where(target, address)} refused the connection: ${err.message}.`);
  const { code, message } = err as NodeJS.ErrnoException;
  if (message === 'The server does not support SSL connections')
    return new NoTls(`PostgreSQL at ${where(target, address)} does not offer TLS, which sslmode=${target.ssl} requires.`);
  if ((code && UNREACHABLE_CODES.has(code)) || /timeout/i.test(message ?? ''))
    return new Unreachable(`PostgreSQL at ${where(target, address)} could not be reached (${code ?? 'no answer within 10 s'}).`);
  if (code && /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code))
    return new ConnectionFailed(`The certificate of ${where(target, address)} was not accepted (sslmode=${target.ssl}): ${message}`);
  return new ConnectionFailed(`Connecting to PostgreSQL at ${where(target, address)} failed: ${message ?? String(err)}`);
}

function tlsOf(target: ConnectionTarget): ConnectionOptions {
  // The socket goes to a checked IP address, so the name the certificate must carry is handed over here (never an
  // IP address: RFC 6066 forbids it as SNI, and Node then checks the certificate against the address itself).
  const servername = isIP(target.host) ? undefined : target.host;
  switch (target.ssl) {
    case 'verify-full':
      return { servername, rejectUnauthorized: true };
    case 'verify-ca':
      return { servername, rejectUnauthorized: true, checkServerIdentity: () => undefined };
    default:
      return { servername, rejectUnauthorized: false };
  }
}

async function attempt(target: ConnectionTarget, address: string, ssl: ConnectionOptions | false): Promise<pg.Client> {
  const client = new pg.Client({
    host: address,
    port: target.port,
    user: target.user,
    database: target.database,
    // A function, because pg takes an empty password as "none given" and would then send this server's PGPASSWORD
    // or ~/.pgpass entry to whatever host the URL names.
    password: () => target.password,
    ssl,
    enableChannelBinding: ssl !== false && target.channelBinding,
    application_name: 'tessera-source',
    options: SESSION_SETTINGS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
  });
  // A connection that drops between statements is told by the next statement's failure; an unheard 'error' event
  // would instead end the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return client;
  } catch (err) {
    await client.end().catch(() => undefined);
    throw failureOf(err, target, address);
  }
}

async function connect(target: ConnectionTarget, address: string): Promise<pg.Client> {
  if (address.startsWith('/') || target.ssl === 'disable') return attempt(target, address, false);
  try {
    return await attempt(target, address, tlsOf(target));
  } catch (err) {
    if (err instanceof NoTls && target.ssl === 'prefer') return attempt(target, address, false);
    throw err;
  }
}

/**
 * One connection to a user's PostgreSQL, opened for one job (a connection test, a source's check or read) and closed
 * after it. Everything it runs is read-only twice over: the session's default, and `BEGIN READ ONLY` around each
 * statement.
 */
export class Session {
  private constructor(
    private readonly client: pg.Client,
    readonly target: ConnectionTarget,
    private readonly signal: AbortSignal | undefined,
    private readonly onAbort: () => void,
  ) {}

  /** Connects with `credentials.url`, to the first of the host's checked addresses that answers. Throws ConnectionFailed. */
  static async open(credentials: Record<string, string> | null, options: SessionOptions): Promise<Session> {
    const url = credentials?.url;
    if (typeof url !== 'string' || url === '') throw new UnusableUrl('The connection has no URL.');
    const target = parseConnectionUrl(url);
    let lastFailure: ConnectionFailed | undefined;
    for (const address of await checkedAddresses(target.host, options)) {
      options.signal?.throwIfAborted();
      let client: pg.Client;
      try {
        client = await connect(target, address);
      } catch (err) {
        if (!(err instanceof Unreachable)) throw err;
        lastFailure = err;
        continue;
      }
      const onAbort = () => void client.end().catch(() => undefined);
      if (options.signal?.aborted) {
        onAbort();
        options.signal.throwIfAborted();
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      return new Session(client, target, options.signal, onAbort);
    }
    throw lastFailure!;
  }

  /**
   * Runs one statement in a read-only transaction of its own. A statement PostgreSQL refuses throws its
   * `pg.DatabaseError` (with its SQLSTATE `code`); a lost connection throws ConnectionFailed; an abort, the signal's reason.
   */
  async read<R extends pg.QueryResultRow = Record<string, string | null>>(sql: string, params: unknown[] = []): Promise<pg.QueryResult<R>> {
    this.signal?.throwIfAborted();
    try {
      await this.client.query('BEGIN READ ONLY');
      try {
        const result = await this.client.query<R>(sql, params);
        await this.client.query('COMMIT');
        return result;
      } catch (err) {
        await this.client.query('ROLLBACK').catch(() => undefined);
        throw err;
      }
    } catch (err) {
      this.signal?.throwIfAborted();
      if (err instanceof pg.DatabaseError) throw err;
      throw new ConnectionFailed(`The connection to PostgreSQL at ${this.target.host} was lost: ${(err as Error).message}`);
    }
  }

  async close(): Promise<void> {
    this.signal?.removeEventListener('abort', this.onAbort);
    await this.client.end().catch(() => undefined);
  }
}

/** Opens a session, runs `job` with it, and closes it whatever happens. */
export async function withSession<T>(credentials: Record<string, string> | null, options: SessionOptions, job: (session: Session) => Promise<T>): Promise<T> {
  const session = await Session.open(credentials, options);
  try {
    return await job(session);
  } finally {
    await session.close();
  }
}
