import net from 'node:net';
import type { AddressInfo } from 'node:net';

/** What one connection told the fake server before it was refused. */
export interface SeenLogin {
  sslRequested: boolean;
  startup: Record<string, string>;
  password?: string;
}

const SSL_REQUEST = 80877103;
const PROTOCOL_3 = 196608;

function message(type: string, body: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.write(type, 0, 'latin1');
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

const cstring = (text: string) => Buffer.from(`${text}\0`, 'utf8');

/**
 * A server speaking just enough of PostgreSQL's protocol to refuse a password: no TLS ('N' to an SSLRequest), a
 * cleartext password asked for, then `28P01 password authentication failed`. It records what each client sent, so a
 * test sees the password that went over the wire. (The CI server trusts every local login, so it cannot refuse one.)
 */
export async function fakePostgres(): Promise<{ port: number; seen: SeenLogin[]; sslRequests: () => number; close(): Promise<void> }> {
  const seen: SeenLogin[] = [];
  let sslRequests = 0;
  const server = net.createServer((socket) => {
    const login: SeenLogin = { sslRequested: false, startup: {} };
    let started = false;
    let buffer = Buffer.alloc(0);
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        if (!started) {
          if (buffer.length < 8 || buffer.length < buffer.readInt32BE(0)) return;
          const length = buffer.readInt32BE(0);
          const code = buffer.readInt32BE(4);
          const body = buffer.subarray(8, length);
          buffer = buffer.subarray(length);
          if (code === SSL_REQUEST) {
            login.sslRequested = true;
            sslRequests++;
            socket.write('N');
          } else if (code === PROTOCOL_3) {
            const parts = body.toString('utf8').split('\0');
            for (let i = 0; i + 1 < parts.length && parts[i]; i += 2) login.startup[parts[i]] = parts[i + 1];
            started = true;
            seen.push(login);
            const cleartext = Buffer.alloc(4);
            cleartext.writeInt32BE(3);
            socket.write(message('R', cleartext));
          }
          continue;
        }
        if (buffer.length < 5 || buffer.length < 1 + buffer.readInt32BE(1)) return;
        const type = String.fromCharCode(buffer[0]);
        const body = buffer.subarray(5, 1 + buffer.readInt32BE(1));
        buffer = buffer.subarray(1 + buffer.readInt32BE(1));
        if (type === 'p') {
          login.password = body.toString('utf8').replace(/\0$/, '');
          const user = login.startup.user ?? '';
          const fields = [`SFATAL`, `VFATAL`, `C28P01`, `Mpassword authentication failed for user "${user}"`].map(cstring);
          socket.end(message('E', Buffer.concat([...fields, Buffer.from([0])])));
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    sslRequests: () => sslRequests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
