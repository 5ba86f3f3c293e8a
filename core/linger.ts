import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context, Next } from 'koa';
import type { Socket } from 'node:net';

/** After answering a request whose body was not read, at most this much more of it is read (and discarded)… */
export const LINGER_BYTES = 4 * 1024 * 1024;
/** …for at most this long; then the connection is closed whatever the client is still sending. */
export const LINGER_MS = 2000;

/** Sockets already set to linger: a second refusal on the same socket changes nothing. */
const lingering = new WeakSet<Socket>();

/**
 * Answer a request whose body is not (fully) read, then close its connection without losing the answer.
 *
 * Keep-alive is off (`Connection: close`): keeping it would have Node read the rest of the body, however large.
 * Node then destroys the socket once the answer is written; if the client is still sending, the kernel answers
 * the unread bytes with a reset, and a reset throws away the answer the client had not read yet (fetch reports
 * ECONNRESET / "other side closed" instead of the 413). So, as nginx (lingering_close) and Go do: half-close after
 * the answer, keep reading and discarding for at most LINGER_BYTES or LINGER_MS, then close.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  if (!res.headersSent) res.setHeader('Connection', 'close');
  const socket = req.socket;
  if (lingering.has(socket)) return;
  lingering.add(socket);
  // Discard from now on, counting. Reading it ourselves also keeps Node from reading it all (req._dump(), unbounded).
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > LINGER_BYTES) socket.destroy();
  });
  req.resume();
  const destroySoon = socket.destroySoon;
  // Node's http server calls destroySoon() once a `Connection: close` answer is written; nothing else on this socket does.
  socket.destroySoon = () => {
    if (req.complete) return destroySoon.call(socket);
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once('close', () => clearTimeout(timer));
    // The whole body arrived: nothing unread is left, so closing now cannot reset the answer.
    req.once('end', () => (socket.writableFinished ? socket.destroy() : socket.once('finish', () => socket.destroy())));
  };
}

/**
 * Any answer given before the request's body was read to its end (a refusal: 413, 415, 401, 404…) closes the
 * connection after lingering, instead of keeping it alive: keep-alive would read the rest of the body, unbounded.
 */
export function closeUnreadBodies() {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
    } finally {
      if (!ctx.req.complete) closeAfterAnswer(ctx.req, ctx.res);
    }
  };
}
