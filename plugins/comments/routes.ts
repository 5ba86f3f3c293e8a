import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { CommentErrors } from './errors.ts';
import { Comment, CommentBody, CommentListQuery, CommentParams, RecordParams } from './schemas.ts';

const tags = ['comments'];
const R = '/workspaces/{ws}/databases/{db}/records/{id}/comments';
/** Members and up comment, guests in their spaces too; commenting is still a write, so a token needs the `write` scope. */
const member = { role: 'member' as const, resource: { type: 'database', param: 'db' } };
const NOT_LIVE = { description: 'No live record with this id in the database, or no such comment on it' };
const CONTENT =
  'Rich text (the `RichText` schema) of at most 10,000 characters of text (422 at `/content` above); mention nodes name workspace members (422 otherwise).';

const on = (params: { ws: string; db: string; id: string }) => ({ workspaceId: params.ws, databaseId: params.db, recordId: params.id });

export function commentRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: R,
      operationId: 'comments.list',
      summary: "A record's comments, oldest first",
      description: 'Keyset paging: `?limit=` (≤ 200), `?cursor=`. An erased author shows as `{ id: null, name: "Former member" }`.',
      tags,
      auth: 'user',
      access: member,
      params: RecordParams,
      query: CommentListQuery,
      responses: { 200: { description: 'A page of comments', schema: pageOf(Comment) }, 404: NOT_LIVE },
      handler: ({ params, query, resolve }) => resolve('comments.service').list(on(params), query),
    }),
    defineRoute({
      method: 'POST',
      path: R,
      operationId: 'comments.create',
      example: { content: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Looks good' }] }] } },
      summary: 'Comment on a record',
      description: `${CONTENT} Emits \`comment.created\`.`,
      tags,
      auth: 'user',
      access: member,
      params: RecordParams,
      body: CommentBody,
      status: 201,
      responses: { 201: { description: 'Posted', schema: Comment }, 404: NOT_LIVE },
      handler: ({ principal, params, body, resolve }) => resolve('comments.service').create(principal, on(params), body),
    }),
    defineRoute({
      method: 'PATCH',
      path: `${R}/{cid}`,
      operationId: 'comments.update',
      example: { content: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Looks good to me' }] }] } },
      summary: 'Edit one of your comments',
      description: `Only its author (403 otherwise); \`edited\` becomes true. ${CONTENT} Emits \`comment.updated\` (with \`before\`).`,
      tags,
      auth: 'user',
      access: member,
      params: CommentParams,
      body: CommentBody,
      errors: [CommentErrors.not_author],
      responses: { 200: { description: 'Edited', schema: Comment }, 404: NOT_LIVE },
      handler: ({ principal, params, body, resolve }) => resolve('comments.service').update(principal, on(params), params.cid, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${R}/{cid}`,
      operationId: 'comments.delete',
      summary: 'Delete a comment',
      description: 'Its author or a workspace admin (403 otherwise). Emits `comment.deleted`.',
      tags,
      auth: 'user',
      access: member,
      params: CommentParams,
      errors: [CommentErrors.not_author],
      responses: { 204: { description: 'Deleted' }, 404: NOT_LIVE },
      handler: ({ principal, access, params, resolve }) => resolve('comments.service').delete(principal, access, on(params), params.cid),
    }),
  ];
}
