import { notFound } from '../../core/errors.ts';
import { bearerToken } from '../../core/http.ts';
import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { Type } from '../../core/schema.ts';
import { EventsParams, EventsQuery } from './schemas.ts';
import { parseTopics } from './topics.ts';

export function realtimeRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/events',
      operationId: 'realtime.events',
      summary: 'Server-sent events: records, comments and fields as they change',
      description:
        'A `text/event-stream` of `record.created|updated|deleted|restored`, `comment.*` and `field.*` events of the databases and records named in `topics` ' +
        '(every database the caller may read when left out), each shown exactly as the caller would read it; a topic naming a database the caller cannot see → 404. ' +
        'Each event has an `id`: reconnecting with `Last-Event-ID` replays what was missed (up to `realtime.replayMinutes`, 10). A comment line every 15 s keeps proxies open. ' +
        'The stream ends when the credential is revoked or expires, or the caller leaves the workspace. Events come from whichever process recorded them.',
      tags: ['realtime'],
      auth: 'user',
      access: { role: 'guest' },
      params: EventsParams,
      query: EventsQuery,
      responses: {
        200: {
          description: 'The stream: `id`, `event` (the event name) and `data` per event, `{ name, workspace_id, actor_id, occurred_at, payload }` as JSON',
          contentType: 'text/event-stream',
          schema: Type.String({ example: 'id: 42\nevent: record.created\ndata: {"name":"record.created","workspace_id":"…","actor_id":"…","occurred_at":"…","payload":{"database_id":"…","record":{}}}\n\n' }),
        },
      },
      handler: async ({ ctx, params, query, principal, access, resolve }) => {
        const topics = parseTopics(query.topics);
        const authz = resolve('authz');
        for (const databaseId of topics.databases) {
          if (!(await authz.seesResource(principal, access.access, 'database', databaseId))) throw notFound('No such database in this workspace.');
        }
        const lastEventId = /^\d{1,15}$/.test(ctx.get('last-event-id')) ? Number(ctx.get('last-event-id')) : undefined;
        const stream = resolve('realtime.streams').open(ctx, bearerToken(ctx.get('authorization'))!, params.ws, topics, lastEventId);
        // An open stream is not a request in flight: work that yields to requests goes on.
        resolve('load').detach(ctx);
        ctx.req.socket.setTimeout(0);
        ctx.compress = false;
        await resolve('realtime.hub').add(stream, lastEventId);
        return new Reply(200, stream.body, { 'Cache-Control': 'no-cache, no-transform', 'X-Accel-Buffering': 'no' }, 'text/event-stream');
      },
    }),
  ];
}
