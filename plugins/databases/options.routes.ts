import { Type } from '../../core/schema.ts';
import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { FieldParams } from './fields.schemas.ts';
import { CreateOptionBody, DeleteOptionQuery, Option, OptionParams, PatchOptionBody } from './options.schemas.ts';
import { DatabaseErrors } from './errors.ts';

const tags = ['fields'];
const resource = { type: 'database', param: 'db' };

/** Choices of single and multi select fields; another kind of field has none (404). */
export function optionRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/databases/{db}/fields/{field}/options',
      operationId: 'fields.options.create',
      example: { label: 'Negotiation', color: 'orange' },
      summary: 'Add a choice to a select field; its id is stable for ever',
      tags,
      auth: 'user',
      access: { role: 'creator', resource },
      params: FieldParams,
      body: CreateOptionBody,
      status: 201,
      responses: { 201: { description: 'The choice', schema: Option } },
      handler: ({ principal, params, body, resolve }) => resolve('databases.options').add(principal, params.ws, params.db, params.field, body),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}/databases/{db}/fields/{field}/options/{option_id}',
      operationId: 'fields.options.update',
      example: { label: 'Negotiating' },
      summary: 'Relabel or recolour a choice (records keep it: they store its id)',
      tags,
      auth: 'user',
      access: { role: 'creator', resource },
      params: OptionParams,
      body: PatchOptionBody,
      responses: { 200: { description: 'The choice', schema: Option } },
      handler: ({ principal, params, body, resolve }) => resolve('databases.options').update(principal, params.ws, params.db, params.field, params.option_id, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/databases/{db}/fields/{field}/options/{option_id}',
      operationId: 'fields.options.delete',
      summary: 'Remove a choice',
      description: 'Used by live records → 409 with `usage_count`, unless `?confirm=true`, which clears it from every record first.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource },
      params: OptionParams,
      query: DeleteOptionQuery,
      responses: { 204: { description: 'Removed' }, 409: { description: 'In use: `usage_count` records hold it; delete with `?confirm=true` to clear it from them', extensions: { usage_count: Type.Integer({ minimum: 1 }) } } },
      errors: [DatabaseErrors.option_in_use],
      handler: ({ principal, params, query, resolve }) => resolve('databases.options').remove(principal, params.ws, params.db, params.field, params.option_id, query.confirm ?? false),
    }),
  ];
}
