import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** `endless`: after the headers, 16 KB chunks until the client goes away; `silent`: no answer at all. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string; endless?: boolean; silent?: boolean };

/** A real HTTP receiver on loopback: records what it gets, answers what the test says, counts every connection. */
export interface Receiver {
  url: string;
  port: number;
  got: Received[];
  connections: number;
  answer: (req: Received) => Answer;
  close(): Promise<void>;
}

export async function startReceiver(answer: Receiver['answer'] = () => ({ status: 204 })): Promise<Receiver> {
  const receiver = { got: [] as Received[], connections: 0, answer } as Receiver;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      receiver.got.push(got);
      const reply = receiver.answer(got);
      if (reply.silent) return;
      res.writeHead(reply.status, reply.headers ?? {});
      if (!reply.endless) return void res.end(reply.body ?? '');
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more);
      };
      more();
    });
  });
  server.on('connection', () => void receiver.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}`;
  receiver.close = () => new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return receiver;
}
