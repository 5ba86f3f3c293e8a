import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { StartupError } from './errors.ts';

/*
 * Checks made before start-up does any work, each failing with one line that says what is wrong and how to fix it:
 * otherwise a port in use shows after every migration has run, and a directory that cannot be written shows as a
 * stack from deep inside the embedded database, or as a 500 at the first upload.
 */

const POSTGRES_SCHEMES = ['postgres:', 'postgresql:', 'socket:'];

/** DATABASE_URL must be a PostgreSQL URL: pg reads anything else as a socket path and complains of a missing user. */
export function checkDatabaseUrl(url: string | undefined): void {
  if (url === undefined) return;
  let scheme: string | undefined;
  try {
    scheme = new URL(url).protocol;
  } catch {
    scheme = undefined;
  }
  if (scheme && POSTGRES_SCHEMES.includes(scheme)) return;
  // The URL is not repeated: it may hold a password.
  throw new StartupError(
    `Invalid configuration at "/databaseUrl" (DATABASE_URL): ${scheme ? `the scheme "${scheme}" is not PostgreSQL's` : 'it is not a URL'}; ` +
      'write it as postgres://user:password@host:5432/database, or unset it to use the embedded database in DATA_DIR.',
    'config_invalid',
  );
}

/** Creates `dir` if need be and checks that files can be made in it. */
export function checkWritableDir(dir: string, dataDir: string, purpose: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    throw new StartupError(
      `DATA_DIR "${path.resolve(dataDir)}" cannot be written (${reason} at ${dir}), and ${purpose} there: ` +
        'give the user running Tessera write access to it, or set DATA_DIR to a directory it can write.',
      'data_dir_unwritable',
    );
  }
}

/** The one line for a port the server cannot listen on. */
export function listenError(err: NodeJS.ErrnoException, port: number, host: string): Error {
  if (err.code === 'EADDRINUSE') {
    return new StartupError(`Port ${port} on ${host} is already in use (another Tessera, or another server): stop it, or set PORT to a free port.`, 'port_unavailable');
  }
  if (err.code === 'EACCES') {
    return new StartupError(`Listening on port ${port} on ${host} is not allowed to this user: set PORT to a port above 1023.`, 'port_unavailable');
  }
  if (err.code === 'EADDRNOTAVAIL') {
    return new StartupError(`${host} is not an address of this machine: set HOST to one of its addresses, or to 0.0.0.0 for all of them.`, 'port_unavailable');
  }
  return err;
}

/** Listens on the port for a moment, before the migrations: the server takes it for good once they have run. */
export async function checkPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, port, host)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
