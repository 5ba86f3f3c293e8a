import type { AccessGrant } from '../../core/authz.ts';
import type { Resolve } from '../../core/container.ts';
import type { Principal } from '../../core/principal.ts';
import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { documented, Type } from '../../core/schema.ts';
import { DatabaseParams, Field } from './schemas.ts';
import { CreateFieldBody, DeletedField, FieldListQuery, FieldParams, fieldBodyDoc, PatchFieldBody } from './fields.schemas.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import { Conversion, ConvertFieldBody } from './convert.schemas.ts';
import { DatabaseErrors } from './errors.ts';

const tags = ['fields'];

/** A field as the caller is shown it (FieldSight). */
async function shownOne(resolve: Resolve, principal: Principal, grant: AccessGrant, field: Field): Promise<Field> {
  return (await resolve('databases.fieldSight').shown(principal, grant.access, [field]))[0];
}
const resource = { type: 'database', param: 'db' };

export function fieldRoutes(types: FieldTypeRegistry): AnyRouteDef[] {
  const createBody = documented(CreateFieldBody, () => fieldBodyDoc(types));
  return [
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/databases/{db}/fields',
      operationId: 'fields.list',
      summary: "List a database's fields: the title first, then in position order",
      tags,
      auth: 'user',
      access: { role: 'member', resource },
      params: DatabaseParams,
      query: FieldListQuery,
      responses: { 200: { description: 'The fields (not paged: a database has at most a few hundred)', schema: Type.Object({ data: Type.Array(Field) }) } },
      handler: async ({ principal, access, params, query, resolve }) => ({
        data: await resolve('databases.fieldSight').shown(principal, access.access, (await resolve('databases.fields').list(params.db, query.deleted ?? false)).data),
      }),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/databases/{db}/fields',
      operationId: 'fields.create',
      example: { name: 'Amount', type: 'currency', options: { code: 'EUR', symbol: '€', precision: 2 } },
      summary: 'Add a field (and its column)',
      description:
        '`api_name` is derived from `name` when absent (`Due date` → `due_date`, `_2` on a clash). ' +
        'A database holds at most `maxFields` live fields (the databases plugin option, default 500), and its table at most 1,600 columns, deleted fields\' included: past either, 422 `limit_exceeded` with `limit`.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource },
      params: DatabaseParams,
      body: createBody,
      status: 201,
      responses: { 201: { description: 'The field', schema: Field }, 422: { description: 'Invalid input, at its pointers; or past a limit (`limit_exceeded`, with the `limit`)', extensions: { limit: Type.Integer() } } },
      handler: async ({ principal, access, params, body, resolve }) => shownOne(resolve, principal, access, await resolve('databases.fields').create(principal, params.ws, params.db, body)),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/databases/{db}/fields/{field}',
      operationId: 'fields.get',
      summary: 'Get a field by id or api_name',
      tags,
      auth: 'user',
      access: { role: 'member', resource },
      params: FieldParams,
      responses: { 200: { description: 'The field', schema: Field } },
      handler: async ({ principal, access, params, resolve }) => shownOne(resolve, principal, access, await resolve('databases.fields').get(params.db, params.field)),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}/databases/{db}/fields/{field}',
      operationId: 'fields.update',
      example: { name: 'Deal amount' },
      summary: 'Rename a field, change its options, or (only when asked) its api_name',
      description: 'Options that would change how values are stored → 422: convert the field instead.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource },
      params: FieldParams,
      body: PatchFieldBody,
      responses: { 200: { description: 'The field', schema: Field } },
      errors: [DatabaseErrors.field_synced],
      handler: async ({ principal, access, params, body, resolve }) => shownOne(resolve, principal, access, await resolve('databases.fields').update(principal, params.ws, params.db, params.field, body)),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/databases/{db}/fields/{field}',
      operationId: 'fields.delete',
      summary: 'Soft-delete a field; its values stay until it is restored',
      description: 'The title field cannot be deleted (409).',
      tags,
      auth: 'user',
      access: { role: 'creator', resource },
      params: FieldParams,
      responses: { 200: { description: 'How many live records had a value', schema: DeletedField }, 409: { description: 'The title field' } },
      errors: [DatabaseErrors.title_field, DatabaseErrors.managed_field, DatabaseErrors.field_synced],
      handler: ({ principal, params, resolve }) => resolve('databases.fields').delete(principal, params.ws, params.db, params.field),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/databases/{db}/fields/{field}/restore',
      operationId: 'fields.restore',
      summary: 'Restore a soft-deleted field with its values',
      description: 'A live field with the same name → 409. Restoring a live field changes nothing.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource },
      params: FieldParams,
      responses: { 200: { description: 'The field', schema: Field }, 409: { description: 'Its name is taken by a live field' } },
      errors: [DatabaseErrors.name_taken, DatabaseErrors.managed_field],
      handler: async ({ principal, access, params, resolve }) => shownOne(resolve, principal, access, await resolve('databases.fields').restore(principal, params.ws, params.db, params.field)),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/databases/{db}/fields/{field}/convert',
      operationId: 'fields.convert',
      example: { type: 'number', dry_run: true },
      summary: "Change a field's type, or with `dry_run` see what would carry over and what would be lost",
      description:
        'Only within the compatibility matrix (see the field types README; 422 otherwise). The real run computes values with the same SQL as the dry run, so it loses exactly what the dry run reported.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource },
      params: FieldParams,
      body: ConvertFieldBody,
      responses: { 200: { description: '`converted`, `lost` and samples', schema: Conversion } },
      errors: [DatabaseErrors.field_synced],
      handler: ({ principal, params, body, resolve }) => resolve('databases.convert').convert(principal, params.ws, params.db, params.field, body),
    }),
  ];
}
