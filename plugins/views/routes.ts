import { defineRoute, publicOrigin, type AnyRouteDef } from '../../core/routes.ts';
import { Type } from '../../core/schema.ts';
import { CreateViewBody, DatabaseParams, Override, PatchViewBody, Publication, PutOverrideBody, View, ViewParams } from './schemas.ts';
import { ViewErrors } from './errors.ts';

const tags = ['views'];
const resource = { type: 'database', param: 'db' };
const read = { role: 'member' as const, resource };
const design = { role: 'creator' as const, resource };
const V = '/workspaces/{ws}/databases/{db}/views';

export function viewRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: V,
      operationId: 'views.list',
      summary: "List a database's views in their order",
      tags,
      auth: 'user',
      access: read,
      params: DatabaseParams,
      responses: { 200: { description: 'The views (not paged: a database has a handful)', schema: Type.Object({ data: Type.Array(View) }) } },
      handler: ({ params, resolve }) => resolve('views.service').list(params.ws, params.db),
    }),
    defineRoute({
      method: 'POST',
      path: V,
      operationId: 'views.create',
      example: { name: 'Big deals', type: 'grid', filter: { field: 'amount', op: 'gte', value: 10000 }, sorts: [{ field: 'amount', direction: 'desc' }] },
      summary: 'Save a view: filter, sorts, hidden fields, field order, grouping',
      description:
        'Fields are named by api_name (or id) and stored by id, so renaming a field keeps its views. A kanban view needs `group_by` (a single-select field); ' +
        'a calendar view takes `options.date_field` (default: the first date field). `is_default: true` moves the default here. ' +
        "A view's filter and sorts get `(field, id)` indexes built in the background (the databases plugin's `maxViewIndexes`).",
      tags,
      auth: 'user',
      access: design,
      params: DatabaseParams,
      body: CreateViewBody,
      status: 201,
      responses: { 201: { description: 'The view', schema: View }, 422: { description: 'A field, op, value or option that does not fit the database' } },
      handler: ({ principal, params, body, resolve }) => resolve('views.service').create(principal, params.ws, params.db, body),
    }),
    defineRoute({
      method: 'GET',
      path: `${V}/{view}`,
      operationId: 'views.get',
      summary: 'Get a view',
      tags,
      auth: 'user',
      access: read,
      params: ViewParams,
      responses: { 200: { description: 'The view', schema: View } },
      handler: ({ params, resolve }) => resolve('views.service').get(params.ws, params.db, params.view),
    }),
    defineRoute({
      method: 'PATCH',
      path: `${V}/{view}`,
      operationId: 'views.update',
      example: { name: 'Biggest deals' },
      summary: "Change a view's name or settings, or make it the default",
      tags,
      auth: 'user',
      access: design,
      params: ViewParams,
      body: PatchViewBody,
      responses: { 200: { description: 'The view', schema: View }, 422: { description: 'Invalid settings, or `is_default: false`' } },
      handler: ({ principal, params, body, resolve }) => resolve('views.service').update(principal, params.ws, params.db, params.view, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${V}/{view}`,
      operationId: 'views.delete',
      summary: 'Delete a view',
      description: "A database keeps at least one view (409). Deleting the default makes the first remaining view the default. Everyone's overrides of it go too.",
      tags,
      auth: 'user',
      access: design,
      params: ViewParams,
      responses: { 204: { description: 'Deleted' }, 409: { description: "The database's last view" } },
      errors: [ViewErrors.last_view],
      handler: ({ principal, params, resolve }) => resolve('views.service').delete(principal, params.ws, params.db, params.view),
    }),
    defineRoute({
      method: 'GET',
      path: `${V}/{view}/overrides`,
      operationId: 'views.overrides.get',
      summary: 'Your own filter and sorts over this view',
      tags,
      auth: 'user',
      access: read,
      params: ViewParams,
      responses: { 200: { description: 'Your override (`updated_at: null` when you have none)', schema: Override } },
      handler: ({ principal, params, resolve }) => resolve('views.overrides').get(principal, params.ws, params.db, params.view),
    }),
    defineRoute({
      method: 'PUT',
      path: `${V}/{view}/overrides`,
      operationId: 'views.overrides.set',
      example: { filter: { field: 'stage', op: 'eq', value: 'Negotiation' }, sorts: null },
      summary: 'Set your own filter and sorts over this view',
      description: "Only your queries through the view see them: the view's filter AND yours; your sorts instead of the view's. Anyone who can read the database may keep one.",
      tags,
      auth: 'user',
      access: read,
      // One person's own settings, like watching a record: a `read` token may keep them.
      params: ViewParams,
      body: PutOverrideBody,
      responses: { 200: { description: 'Your override', schema: Override } },
      handler: ({ principal, params, body, resolve }) => resolve('views.overrides').put(principal, params.ws, params.db, params.view, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${V}/{view}/overrides`,
      operationId: 'views.overrides.delete',
      summary: 'Drop your override: the view applies as saved',
      tags,
      auth: 'user',
      access: read,
      // One person's own settings, like watching a record: a `read` token may keep them.
      params: ViewParams,
      responses: { 204: { description: 'No override any more' } },
      handler: ({ principal, params, resolve }) => resolve('views.overrides').delete(principal, params.ws, params.db, params.view),
    }),
    defineRoute({
      method: 'POST',
      path: `${V}/{view}/publish`,
      operationId: 'views.publish',
      secret: true,
      summary: 'Publish a form view: a public link for anonymous submissions',
      description: 'The token is shown once (stored hashed); publishing again replaces it and the previous link stops working. Other view types → 422.',
      tags,
      auth: 'user',
      access: design,
      params: ViewParams,
      status: 201,
      responses: { 201: { description: 'The public link', schema: Publication }, 422: { description: 'Not a form view' } },
      handler: ({ principal, params, ctx, resolve }) => resolve('views.publications').publish(principal, params.ws, params.db, params.view, { origin: publicOrigin(ctx, resolve('config')) }),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${V}/{view}/publish`,
      operationId: 'views.unpublish',
      summary: "Unpublish a form view: its link stops working",
      tags,
      auth: 'user',
      access: design,
      params: ViewParams,
      responses: { 204: { description: 'Not published (any more)' } },
      handler: ({ principal, params, resolve }) => resolve('views.publications').unpublish(principal, params.ws, params.db, params.view),
    }),
  ];
}
