import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { Type } from '../../core/schema.ts';
import { MAX_DOCUMENT_BYTES } from './content-check.ts';
import { DocumentErrors } from './errors.ts';
import {
  CreateDocumentBody,
  Description,
  Document,
  DocumentContent,
  DocumentListQuery,
  DocumentParams,
  PatchDocumentBody,
  PutContentBody,
  RecordParams,
  WorkspaceParams,
} from './schemas.ts';

const tags = ['documents'];
const R = '/workspaces/{ws}/databases/{db}/records';
const D = '/workspaces/{ws}/documents';
const database = { type: 'database', param: 'db' };
const document = { type: 'document', param: 'id' };
/** Room for `version` and the JSON around a content of the largest size, so that the content's own check answers. */
const CONTENT_BODY_LIMIT = MAX_DOCUMENT_BYTES + 4096;
const VERSION_RULE =
  '`version` is the version the writer read: equal to the current one → 200 with `version` + 1; otherwise 409 `version_conflict` ' +
  'with `current_version` and `updated_by`. Content is rich text (API.md "Rich text"); mentions name workspace members, images files of the ' +
  'workspace (422 with a pointer otherwise); more than 1 MB of JSON → 413.';
const CONFLICT = {
  description: 'Stale `version`',
  extensions: { current_version: Type.Integer({ minimum: 0 }), updated_by: Type.Union([Type.String({ format: 'uuid' }), Type.Null()]) },
};

export function documentRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: `${R}/{id}/description`,
      operationId: 'records.description.get',
      summary: "A record's description",
      description: 'Never written: `content` null, `version` 0, `updated_at` and `updated_by` null.',
      tags,
      auth: 'user',
      access: { role: 'member', resource: database },
      params: RecordParams,
      responses: { 200: { description: 'The description', schema: Description }, 404: { description: 'No live record with this id in the database' } },
      handler: ({ params, resolve }) => resolve('documents.descriptions').get(params.ws, params.db, params.id),
    }),
    defineRoute({
      method: 'PUT',
      path: `${R}/{id}/description`,
      operationId: 'records.description.put',
      example: { content: { type: 'doc', content: [{ type: 'paragraph', content: [{ type: 'text', text: 'Hello' }] }] }, version: 0 },
      summary: "Write a record's description",
      description: `Editors write. ${VERSION_RULE} Emits \`description.updated\`.`,
      tags,
      auth: 'user',
      access: { role: 'editor', resource: database },
      params: RecordParams,
      body: PutContentBody,
      bodyLimit: CONTENT_BODY_LIMIT,
      errors: [DocumentErrors.version_conflict],
      responses: { 200: { description: 'Written', schema: Description }, 404: { description: 'No live record with this id in the database' }, 409: CONFLICT },
      handler: ({ principal, params, body, resolve }) => resolve('documents.descriptions').put(principal, params.ws, params.db, params.id, body),
    }),
    defineRoute({
      method: 'POST',
      path: D,
      operationId: 'documents.create',
      example: { title: 'Handbook', space_id: '0190c7a2-5b7e-7000-8000-000000000002' },
      summary: 'Create a document in a space',
      description: 'Needs `creator` on the space; `folder_id` must be a folder of that space (422). Starts at `version` 0, with no content. Emits `document.created`.',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      body: CreateDocumentBody,
      status: 201,
      responses: { 201: { description: 'Created', schema: Document } },
      handler: ({ principal, access, body, resolve }) => resolve('documents.service').create(principal, access, body),
    }),
    defineRoute({
      method: 'GET',
      path: D,
      operationId: 'documents.list',
      summary: 'The documents the caller can see, newest first',
      description: 'A guest sees those of its spaces. `?space_id=` narrows to one space; keyset paging: `?limit=` (≤ 200), `?cursor=`.',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      query: DocumentListQuery,
      responses: { 200: { description: 'A page of documents', schema: pageOf(Document) } },
      handler: ({ principal, access, query, resolve }) => resolve('documents.service').list(principal, access.access, query),
    }),
    defineRoute({
      method: 'GET',
      path: `${D}/{id}`,
      operationId: 'documents.get',
      summary: 'A document (without its content)',
      tags,
      auth: 'user',
      access: { role: 'member', resource: document },
      params: DocumentParams,
      responses: { 200: { description: 'The document', schema: Document }, 404: { description: 'No such document the caller can see' } },
      handler: ({ params, resolve }) => resolve('documents.service').get(params.ws, params.id),
    }),
    defineRoute({
      method: 'PATCH',
      path: `${D}/{id}`,
      operationId: 'documents.update',
      example: { title: 'Handbook (2026)' },
      summary: "Rename a document or move it between its space's folders",
      description: 'Needs `creator` on its space. Emits `document.updated`.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource: document },
      params: DocumentParams,
      body: PatchDocumentBody,
      responses: { 200: { description: 'The document', schema: Document }, 404: { description: 'No such document the caller can see' } },
      handler: ({ principal, params, body, resolve }) => resolve('documents.service').update(principal, params.ws, params.id, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${D}/{id}`,
      operationId: 'documents.delete',
      summary: 'Delete a document for good',
      description: 'Needs `creator` on its space. Emits `document.deleted`.',
      tags,
      auth: 'user',
      access: { role: 'creator', resource: document },
      params: DocumentParams,
      responses: { 204: { description: 'Deleted' }, 404: { description: 'No such document the caller can see' } },
      handler: ({ principal, params, resolve }) => resolve('documents.service').delete(principal, params.ws, params.id),
    }),
    defineRoute({
      method: 'GET',
      path: `${D}/{id}/content`,
      operationId: 'documents.content.get',
      summary: "A document's content",
      description: 'Never written: `content` null and `version` 0.',
      tags,
      auth: 'user',
      access: { role: 'member', resource: document },
      params: DocumentParams,
      responses: { 200: { description: 'The content', schema: DocumentContent }, 404: { description: 'No such document the caller can see' } },
      handler: ({ params, resolve }) => resolve('documents.service').content(params.ws, params.id),
    }),
    defineRoute({
      method: 'PUT',
      path: `${D}/{id}/content`,
      operationId: 'documents.content.put',
      example: { content: { type: 'doc', content: [{ type: 'heading', attrs: { level: 1 }, content: [{ type: 'text', text: 'Handbook' }] }] }, version: 0 },
      summary: "Write a document's content",
      description: `Editors write. ${VERSION_RULE} Emits \`document.updated\`.`,
      tags,
      auth: 'user',
      access: { role: 'editor', resource: document },
      params: DocumentParams,
      body: PutContentBody,
      bodyLimit: CONTENT_BODY_LIMIT,
      errors: [DocumentErrors.version_conflict],
      responses: { 200: { description: 'Written', schema: DocumentContent }, 404: { description: 'No such document the caller can see' }, 409: CONFLICT },
      handler: ({ principal, params, body, resolve }) => resolve('documents.service').putContent(principal, params.ws, params.id, body),
    }),
  ];
}
