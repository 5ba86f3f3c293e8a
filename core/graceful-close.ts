import type http from 'node:http';
import type { Socket } from 'node:net';

/** A connection that has sent nothing this long into a shutdown is a pre-connect (browsers open spares), not a request on its way. */
export const SILENT_GRACE_MS = 1000;
/** How often idle keep-alive connections are looked for: a finishing request frees one. */
const SWEEP_MS = 100;

/** The server's open connections, for a shutdown to judge one by one. */
export function trackConnections(server: http.Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}

/**
 * The share of the shutdown's deadline spent at most accepting connections already queued before the listener closes:
 * a loaded machine took more than 5 s for 40 (each turn of the event loop busy answering the ones accepted before).
 */
const ACCEPT_QUEUED_SHARE = 0.5;

/**
 * Connections the OS completed before the shutdown wait in the listen backlog, unseen by Node: closing the
 * listener now would reset them (measured: 17 to 39 of 40 requests opened together). Node accepts one queued
 * connection per turn of the event loop, so keep listening until a turn (two setImmediate hops, one poll phase
 * between them) accepts nothing: the backlog is empty.
 */
async function acceptQueued(server: http.Server, maxMs: number): Promise<void> {
  const until = Date.now() + maxMs;
  for (;;) {
    let accepted = false;
    const mark = () => (accepted = true);
    server.on('connection', mark);
    await new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));
    server.off('connection', mark);
    if (!accepted || Date.now() >= until) return;
  }
}

/**
 * Closes an HTTP server gracefully: accepts what is already queued, then stops listening; every request on a
 * connection it accepted is read and answered (answers say `Connection: close`, see Kernel.listen); idle
 * keep-alive connections and connections silent for SILENT_GRACE_MS are closed. Resolves once every connection
 * is closed and `settle` (the handlers still running) has settled, or at `timeoutMs`, when what is left is cut.
 */
export async function closeGracefully(server: http.Server, sockets: Set<Socket>, timeoutMs: number, settle: () => Promise<unknown>): Promise<void> {
  // Silence is judged from when the queued connections were all taken, not from the shutdown's start: one accepted in
  // the last turn of a slow accept phase had no time yet to be read.
  let acceptedAll = Infinity;
  let timer!: NodeJS.Timeout;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  // A connection is cut only when two sweeps in a row found it silent: timers run before the poll phase, so after the
  // event loop was blocked a while, a request already in the socket's buffer has not been read at the first sweep.
  let silent = new Set<Socket>();
  const sweep = () => {
    // Node's "idle" is between two requests on a keep-alive connection; a connection yet to send its first request is not idle.
    server.closeIdleConnections();
    if (Date.now() - acceptedAll < SILENT_GRACE_MS) return;
    const stillSilent = new Set<Socket>();
    for (const socket of sockets) {
      if (socket.bytesRead !== 0) continue;
      if (silent.has(socket)) socket.destroy();
      else stillSilent.add(socket);
    }
    silent = stillSilent;
  };
  let interval: NodeJS.Timeout | undefined;
  try {
    await acceptQueued(server, timeoutMs * ACCEPT_QUEUED_SHARE);
    acceptedAll = Date.now();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    sweep();
    interval = setInterval(sweep, SWEEP_MS);
    // Then the handlers: one whose client hung up has no socket left but still needs the pool.
    await Promise.race([closed.then(settle), deadline]);
  } finally {
    clearInterval(interval);
    clearTimeout(timer);
    server.closeAllConnections();
  }
}
