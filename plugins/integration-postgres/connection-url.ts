import { UnusableUrl } from './failures.ts';

/** How TLS is used, as libpq's `sslmode` names it (`allow` is read as `prefer`, `no-verify` as `require`). */
export type SslMode = 'disable' | 'prefer' | 'require' | 'verify-ca' | 'verify-full';

/** Where a connection URL points and as whom, with nothing taken from this server's environment. */
export interface ConnectionTarget {
  /** A host name, an IP address (IPv6 without brackets), or a Unix socket directory (starts with `/`). */
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  ssl: SslMode;
  /** SCRAM channel binding when TLS is on (libpq's `channel_binding`, `prefer` unless `disable`). */
  channelBinding: boolean;
}

const SSL_MODES: Record<string, SslMode> = {
  disable: 'disable',
  allow: 'prefer',
  prefer: 'prefer',
  require: 'require',
  'no-verify': 'require',
  'verify-ca': 'verify-ca',
  'verify-full': 'verify-full',
};

/**
 * The parameters read (`application_name` and `connect_timeout` are taken and ignored: the plugin sets its own). Any
 * other is refused rather than ignored: libpq's `sslcert`, `sslkey`, `sslrootcert`, `passfile`, `service` name files on
 * this server, and `options` would change the session the plugin makes read-only.
 */
const KNOWN = new Set(['sslmode', 'host', 'port', 'user', 'password', 'dbname', 'channel_binding', 'application_name', 'connect_timeout']);

function decoded(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new UnusableUrl(`The connection URL's ${what} is not valid percent-encoding.`);
  }
}

/**
 * Reads `postgres://user:password@host:port/database?sslmode=…` (or `postgresql://`). Only what is written counts:
 * pg would otherwise fill a missing user, password or host from this server's PG* variables and ~/.pgpass, and send
 * them to whatever host the URL names.
 */
export function parseConnectionUrl(raw: string): ConnectionTarget {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnusableUrl('The connection URL is not a URL: expected postgres://user:password@host:port/database.');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new UnusableUrl('The connection URL must start with postgres:// or postgresql://.');
  const params = url.searchParams;
  const unknown = [...new Set(params.keys())].filter((name) => !KNOWN.has(name));
  if (unknown.length > 0) throw new UnusableUrl(`The connection URL's parameters ${unknown.map((n) => `"${n}"`).join(', ')} are not supported.`);
  for (const name of params.keys()) if (params.getAll(name).length > 1) throw new UnusableUrl(`The connection URL gives "${name}" more than once.`);

  const host = params.get('host') ?? decoded(url.hostname, 'host').replace(/^\[|\]$/g, '');
  if (!host) throw new UnusableUrl('The connection URL names no host.');
  if (host.includes(',')) throw new UnusableUrl('The connection URL names several hosts; give one.');

  const portText = params.get('port') ?? (url.port || '5432');
  const port = Number(portText);
  if (!/^[0-9]{1,5}$/.test(portText) || port < 1 || port > 65535) throw new UnusableUrl('The connection URL\'s port is not a port number (1–65535).');

  const user = params.get('user') ?? decoded(url.username, 'user name');
  if (!user) throw new UnusableUrl('The connection URL names no user: postgres://user:password@host/database.');
  const password = params.get('password') ?? decoded(url.password, 'password');
  const database = params.get('dbname') ?? (decoded(url.pathname.replace(/^\//, ''), 'database') || user);

  const sslText = params.get('sslmode') ?? 'prefer';
  const ssl = SSL_MODES[sslText];
  if (!ssl) throw new UnusableUrl(`sslmode "${sslText}" is not one of disable, allow, prefer, require, verify-ca, verify-full.`);

  const binding = params.get('channel_binding') ?? 'prefer';
  if (!['disable', 'prefer', 'require'].includes(binding)) throw new UnusableUrl(`channel_binding "${binding}" is not one of disable, prefer, require.`);

  return { host, port, user, password, database, ssl, channelBinding: binding !== 'disable' };
}
