import http from 'node:http';
import type { Socket } from 'node:net';
import type Koa from 'koa';
import { closeGracefully, trackConnections } from './graceful-close.ts';

/** The kernel's HTTP listener: it knows every request it is answering, so closing waits for exactly those. */
export class KernelServer {
  server: http.Server | null = null;
  private closing = false;
  /** Requests whose middleware has not finished, socket or not. */
  private readonly handling = new Set<Promise<void>>();
  private connections = new Set<Socket>();

  async listen(app: Koa, port: number, host: string): Promise<http.Server> {
    const handle = app.callback();
    const server = http.createServer((req, res) => {
      // Once shutting down, an answer closes its connection: the client must not send another request on it.
      if (this.closing) res.setHeader('Connection', 'close');
      const done: Promise<void> = handle(req, res).finally(() => this.handling.delete(done));
      this.handling.add(done);
    });
    this.connections = trackConnections(server);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
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
