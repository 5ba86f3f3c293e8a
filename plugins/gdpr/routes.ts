import type { Readable } from 'node:stream';
import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { PageQuery } from '../../core/pagination.ts';
import { GdprErrors } from './errors.ts';
import { DataExport, EraseBody, ExportCreated, ExportParams, MemberParams, Receipt, ReceiptList, UserParams, WorkspaceExportParams } from './schemas.ts';

const tags = ['gdpr'];
const zip = (stream: Readable, id: string) => new Reply(200, stream, { 'Content-Disposition': `attachment; filename="data-export-${id}.zip"`, 'Cache-Control': 'no-store' }, 'application/zip');
const zipResponse = { 200: { description: 'The zip: one JSON file per kind of data, and the files (uploads) sections carry under `<kind>/`', contentType: 'application/zip' } };
const exportErrors = [GdprErrors.export_not_ready, GdprErrors.export_expired];

/** Data exports (oneself, or an admin's of a member) and erasures (from a workspace, or everywhere), with receipts. */
export function gdprRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/me/data-export',
      operationId: 'gdpr.me.export',
      summary: 'Export all my data as a zip, made in the background',
      tags,
      auth: 'session',
      status: 202,
      responses: { 202: { description: 'Queued; poll `GET /me/data-exports/{id}`', schema: ExportCreated } },
      handler: ({ user, resolve }) => resolve('gdpr.exports').request({ requestedBy: user.id, workspaceId: null }, user.id),
    }),
    defineRoute({
      method: 'GET',
      path: '/me/data-exports/{id}',
      operationId: 'gdpr.me.exports.get',
      summary: 'The state of one of my data exports',
      tags,
      auth: 'session',
      params: ExportParams,
      responses: { 200: { description: 'The export', schema: DataExport } },
      handler: ({ user, params, resolve }) => resolve('gdpr.exports').get({ requestedBy: user.id, workspaceId: null }, params.id, '/api/v1/me/data-exports'),
    }),
    defineRoute({
      method: 'GET',
      path: '/me/data-exports/{id}/download',
      operationId: 'gdpr.me.exports.download',
      summary: 'Download one of my data exports',
      tags,
      auth: 'session',
      params: ExportParams,
      responses: zipResponse,
      errors: exportErrors,
      handler: async ({ user, params, resolve }) => zip(await resolve('gdpr.exports').download({ requestedBy: user.id, workspaceId: null }, params.id), params.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/members/{user_id}/data-export',
      operationId: 'gdpr.members.export',
      summary: "Export a member's data in this workspace as a zip, made in the background",
      description: 'Admins only; the zip holds this workspace’s data of the member and nothing of other workspaces.',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: MemberParams,
      status: 202,
      responses: { 202: { description: 'Queued; poll `GET /workspaces/{ws}/data-exports/{id}`', schema: ExportCreated } },
      handler: ({ user, params, resolve }) => resolve('gdpr.exports').requestForMember({ requestedBy: user.id, workspaceId: params.ws }, params.user_id),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/data-exports/{id}',
      operationId: 'gdpr.workspace.exports.get',
      summary: 'The state of a data export I asked for in this workspace',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: WorkspaceExportParams,
      responses: { 200: { description: 'The export', schema: DataExport } },
      handler: ({ user, params, resolve }) => resolve('gdpr.exports').get({ requestedBy: user.id, workspaceId: params.ws }, params.id, `/api/v1/workspaces/${params.ws}/data-exports`),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/data-exports/{id}/download',
      operationId: 'gdpr.workspace.exports.download',
      summary: 'Download a data export I asked for in this workspace',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: WorkspaceExportParams,
      responses: zipResponse,
      errors: exportErrors,
      handler: async ({ user, params, resolve }) => zip(await resolve('gdpr.exports').download({ requestedBy: user.id, workspaceId: params.ws }, params.id), params.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/members/{user_id}/erase',
      operationId: 'gdpr.members.erase',
      example: { confirm: 'ada@example.com' },
      summary: "Erase a member's personal data in this workspace and remove them",
      description: 'Admins only. `confirm` is the member’s email. The last admin cannot be erased (409 `last_admin`). Answers a receipt holding no personal data.',
      tags,
      auth: 'user',
      access: { role: 'admin' },
      params: MemberParams,
      body: EraseBody,
      responses: { 200: { description: 'The receipt', schema: Receipt } },
      handler: ({ principal, params, body, resolve }) => resolve('gdpr.erasure').eraseFromWorkspace(principal, params.ws, params.user_id, body.confirm),
    }),
    defineRoute({
      method: 'POST',
      path: '/admin/users/{id}/erase',
      operationId: 'gdpr.users.erase',
      example: { confirm: 'ada@example.com' },
      summary: 'Erase a user everywhere: every workspace, then the account',
      tags,
      auth: 'instance_admin',
      params: UserParams,
      body: EraseBody,
      responses: { 200: { description: 'The receipt', schema: Receipt } },
      errors: [GdprErrors.self_erasure],
      handler: ({ principal, params, body, resolve }) => resolve('gdpr.erasure').eraseEverywhere(principal, params.id, body.confirm),
    }),
    defineRoute({
      method: 'GET',
      path: '/admin/erasures',
      operationId: 'gdpr.erasures.list',
      summary: 'Erasure receipts, newest first',
      tags,
      auth: 'instance_admin',
      query: PageQuery,
      responses: { 200: { description: 'One page of receipts', schema: ReceiptList } },
      handler: ({ query, resolve }) => resolve('gdpr.erasure').list(query),
    }),
  ];
}
