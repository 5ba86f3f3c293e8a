import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestKernel } from '../../../core/testing.ts';

export interface ReceivedEvent {
  id: string | null;
  event: string;
  data: any;
}

/** An event stream as a client reads it: its status and headers, the events and comment lines so far, and its end. */
export interface OpenStream {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body when the answer was not a stream. */
  body: string;
  events: ReceivedEvent[];
  comments: number;
  ended: Promise<void>;
  /** Resolves with the first event (from `from` on) that `match` accepts; rejects after `ms`. */
  next(match: (e: ReceivedEvent) => boolean, ms?: number, from?: number): Promise<ReceivedEvent>;
  close(): void;
}

/** The kernel's address, listening on a port of its own (a stream needs a real connection). */
export async function baseUrl(t: TestKernel): Promise<string> {
  const server = t.kernel.server ?? (await t.kernel.listen(0, '127.0.0.1'));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Opens `GET /api/v1/workspaces/{ws}/events` with `token`, parsing text/event-stream as EventSource does. */
export async function openStream(t: TestKernel, token: string, ws: string, opts: { topics?: string; lastEventId?: string } = {}): Promise<OpenStream> {
  const url = new URL(`${await baseUrl(t)}/api/v1/workspaces/${ws}/events`);
  if (opts.topics !== undefined) url.searchParams.set('topics', opts.topics);
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' };
  if (opts.lastEventId) headers['Last-Event-ID'] = opts.lastEventId;
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers }, (res) => {
      let waiters: Array<() => boolean> = [];
      let endResolve!: () => void;
      const stream: OpenStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: '',
        events: [],
        comments: 0,
        ended: new Promise<void>((r) => (endResolve = r)),
        next(match, ms = 10_000, from = 0) {
          return new Promise((ok, fail) => {
            const look = () => {
              const found = stream.events.slice(from).find(match);
              if (found) {
                clearTimeout(timer);
                ok(found);
                return true;
              }
              return false;
            };
            const timer = setTimeout(() => fail(new Error(`no matching event within ${ms} ms; got ${JSON.stringify(stream.events.map((e) => e.event))}`)), ms);
            if (!look()) waiters.push(look);
          });
        },
        close: () => request.destroy(),
      };
      let buffer = '';
      let event: { id: string | null; event: string; data: string[] } = { id: null, event: 'message', data: [] };
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (stream.status !== 200) {
          stream.body += chunk;
          return;
        }
        buffer += chunk;
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, '');
          buffer = buffer.slice(newline + 1);
          if (line === '') {
            if (event.data.length > 0) {
              stream.events.push({ id: event.id, event: event.event, data: JSON.parse(event.data.join('\n')) });
              waiters = waiters.filter((look) => !look());
            }
            event = { id: null, event: 'message', data: [] };
          } else if (line.startsWith(':')) stream.comments++;
          else {
            const colon = line.indexOf(':');
            const field = colon < 0 ? line : line.slice(0, colon);
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
            if (field === 'id') event.id = value;
            else if (field === 'event') event.event = value;
            else if (field === 'data') event.data.push(value);
          }
        }
      });
      res.on('end', endResolve);
      res.on('close', endResolve);
      res.on('error', endResolve);
      if (stream.status !== 200) res.on('end', () => resolve(stream));
      else resolve(stream);
    });
    request.on('error', reject);
  });
}
