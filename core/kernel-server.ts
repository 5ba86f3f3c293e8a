import http from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';
import { closeGracefully, trackConnections } from './graceful-close.ts';
import { listenError } from './preflight.ts';

/** How often Node looks for connections past their headers' time. */
const HEADERS_CHECK_MS = 1000;

/** The kernel's HTTP listener: it knows every request it is answering, so closing waits for exactly those. */
export class KernelServer {
  server: http.Server | null = null;
  private closing = false;
  /** Requests whose middleware has not finished, socket or not. */
  private readonly handling = new Set<Promise<void>>();
  private connections = new Set<Socket>();

  /**
   * `headersTimeoutMs`: how long a client may take to send a request's headers. Node answers it 408 and closes (a slow
   * client cannot hold a connection with a trickle of header bytes); its check runs every second rather than every 30.
   */
  async listen(app: Koa, port: number, host: string, headersTimeoutMs: number): Promise<http.Server> {
    const handle = app.callback();
    const server = http.createServer({ headersTimeout: headersTimeoutMs, connectionsCheckingInterval: HEADERS_CHECK_MS }, (req, res) => {
      // Once shutting down, an answer closes its connection: the client must not send another request on it.
      if (this.closing) res.setHeader('Connection', 'close');
      const done: Promise<void> = handle(req, res).finally(() => this.handling.delete(done));
      this.handling.add(done);
    });
    this.connections = trackConnections(server);
    await new Promise<void>((resolve, reject) => {
      // The port was free before the migrations (preflight.ts); something may have taken it since.
      server.once('error', (err: NodeJS.ErrnoException) => reject(listenError(err, port, host)));
      server.listen(port, host, () => resolve());
    });
    this.server = server;
    return server;
  }

  /** Stops accepting and answers every request already accepted (up to `timeoutMs`). */
  async close(timeoutMs: number): Promise<void> {
    this.closing = true;
    if (this.server) await closeGracefully(this.server, this.connections, timeoutMs, () => Promise.allSettled(this.handling));
  }
}
