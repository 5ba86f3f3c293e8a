import { defineRoute, Reply } from '../../core/routes.ts';
import { Type } from '../../core/schema.ts';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  database: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
});

export const systemRoutes = [
  defineRoute({
    method: 'GET',
    path: '/health',
    operationId: 'health.get',
    summary: 'Liveness and database connectivity',
    auth: 'public',
    responses: {
      200: { description: 'The service and its database are up', schema: Health },
      503: { description: 'The database is unreachable', schema: Health },
    },
    handler: async ({ resolve }) => {
      try {
        await resolve('db').raw('select 1');
        return { status: 'ok', database: 'ok' };
      } catch {
        return new Reply(503, { status: 'error', database: 'error' });
      }
    },
  }),
];
