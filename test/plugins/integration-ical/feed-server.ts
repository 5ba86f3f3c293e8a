import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real HTTP server on loopback serving what each path is set to answer; 404 elsewhere. Counts every connection. */
export interface FeedServer {
  /** `http://<host>:<port>` */
  origin: string;
  port: number;
  /** Paths asked, in order. */
  asked: string[];
  connections: number;
  serve(path: string, handler: http.RequestListener): void;
  /** Serves `body` as text/calendar under `path`. */
  ics(path: string, body: string): void;
  close(): Promise<void>;
}

export async function startFeedServer(host = '127.0.0.1'): Promise<FeedServer> {
  const routes = new Map<string, http.RequestListener>();
  const server = http.createServer((req, res) => {
    feed.asked.push(req.url ?? '');
    const handler = routes.get(req.url ?? '');
    if (handler) return handler(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not here');
  });
  server.on('connection', () => feed.connections++);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const feed: FeedServer = {
    origin: `http://${host}:${port}`,
    port,
    asked: [],
    connections: 0,
    serve: (path, handler) => void routes.set(path, handler),
    ics: (path, body) =>
      void routes.set(path, (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' });
        res.end(body);
      }),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return feed;
}
