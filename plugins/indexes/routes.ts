import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { DatabaseParams, FieldParams, IndexList, Mode, PutModeBody } from './schemas.ts';
import { Type } from '../../core/schema.ts';

const database = { type: 'database', param: 'db' };

export function indexRoutes(): AnyRouteDef[] {
  const tags = ['indexes'];
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/databases/{db}/indexes',
      operationId: 'indexes.list',
      summary: 'The indexes of a database: what is indexed, why, and what it costs',
      description:
        'Creators. Each field that is indexed, wanted, or has a mode set: why (`pin`, `view`, `queries`), the index (state, size, ' +
        'scans) and how often slow queries used the field. At most `budget` indexes per table, pinned fields first.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource: database },
      params: DatabaseParams,
      responses: { 200: { description: 'The fields with an index or a say in one', schema: IndexList } },
      handler: async ({ params, resolve }) => resolve('indexes.policy').list(params.db, await resolve('indexes.queries')(params.db)),
    }),
    defineRoute({
      method: 'PUT',
      path: '/workspaces/{ws}/databases/{db}/indexes/{field}',
      operationId: 'indexes.mode',
      example: { mode: 'pin' },
      summary: "Pin a field's index, forbid it, or let usage decide",
      description: 'Creators. The indexes are synchronised by a job right after: a pinned field is built (concurrently on PostgreSQL), a forbidden one dropped.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource: database },
      params: FieldParams,
      body: PutModeBody,
      responses: { 200: { description: 'The mode now set', schema: Type.Object({ field_id: Type.String({ format: 'uuid' }), mode: Mode }) } },
      handler: ({ principal, params, body, resolve }) => resolve('indexes.policy').setMode(principal, params.db, params.field, body.mode),
    }),
  ];
}
