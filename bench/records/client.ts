import http from 'node:http';
import type { Headers } from '../lib/api.ts';

export interface Answer {
  status: number;
  text: string;
  /** From sending the request to the last byte of the answer. */
  ms: number;
}

/** What requests are sent to: a server over HTTP (`Client`) or PostgreSQL alone (`PostgresAlone`). */
export interface Requester {
  request(method: string, path: string, body?: string): Promise<Answer>;
}

/**
 * One keep-alive connection and nothing else: requests go one at a time, so a timing is the
 * server's answer plus loopback, not a queue in the client. The body is read as text; callers
 * parse it outside the timed part.
 */
export class Client implements Requester {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  private readonly host: string;
  private readonly port: number;

  constructor(
    base: string,
    private readonly headers: Headers,
  ) {
    const url = new URL(base);
    this.host = url.hostname;
    this.port = Number(url.port);
  }

  request(method: string, path: string, body?: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const started = performance.now();
      const headers: Record<string, string | number> = { ...this.headers };
      if (body !== undefined) {
        headers['Content-Type'] = 'application/json';
        headers['Content-Length'] = Buffer.byteLength(body);
      }
      const req = http.request({ host: this.host, port: this.port, method, path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
