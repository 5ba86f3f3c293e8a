import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import {
  DryRun,
  ExportBody,
  InstallBody,
  InstallListQuery,
  InstallParams,
  InstallResult,
  Pack,
  PackInstallList,
  PackKindList,
  Uninstalled,
  WorkspaceParams,
} from './schemas.ts';

/** A dry run answers 200 with its plan; a real install 201 with what it made. */
export function installReply(outcome: DryRun | InstallResult): Reply {
  return 'install_id' in outcome ? new Reply(201, outcome) : new Reply(200, outcome);
}

export const INSTALL_RESPONSES = {
  200: { description: 'Dry run: what would be made, and every problem at its pointer under `/pack`', schema: DryRun },
  201: { description: 'Installed: the ids each ref became', schema: InstallResult },
};

/** A pack small enough to read in the reference, and valid: one space with one database. */
export const EXAMPLE_PACK = {
  format: 'tessera-pack',
  format_version: 1,
  name: 'Reading list',
  description: 'Books to read.',
  version: '1.0.0',
  requires: { spaces: '^1.0.0', databases: '^1.0.0' },
  resources: {
    space: [{ ref: 'space', name: 'Reading' }],
    database: [{ ref: 'books', space: 'space', name: 'Books' }],
    field: [
      { ref: 'title', database: 'books', name: 'Title', api_name: 'title', type: 'text', is_title: true },
      { ref: 'read', database: 'books', name: 'Read', api_name: 'read', type: 'checkbox' },
    ],
  },
};

export const INSTALL_DESCRIPTION =
  'All or nothing, in one transaction through every owning plugin. A pack of an unknown `format_version`, needing a plugin that is ' +
  'missing, disabled or of another version, naming an unknown kind, or invalid for any owner answers 422 with `errors[]` pointing into ' +
  'the pack, under `/pack` (`/pack/resources/field/2/type`, `/pack/format_version`), and nothing is made. With `dry_run` the same checks run and the answer is 200 `{ plan, problems }`. ' +
  'With `space_id` the pack\'s spaces merge into that space; names that collide get a suffix ("Tasks (2)").';

export function packRoutes(maxBytes: number): AnyRouteDef[] {
  const tags = ['packs'];
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/packs/export',
      operationId: 'packs.export',
      example: { space_ids: ['0190c7a2-5b7e-7000-8000-000000000002'], include_records: true },
      summary: 'Export spaces or databases as a pack',
      description:
        'Needs `creator` on everything named. Resources name each other by `ref`, never by id; personal things (favorites, ' +
        'overrides) and secrets never travel; people in cells do not either (a user belongs to a workspace). Exporting what an ' +
        'install of this pack made gives the same pack.',
      tags,
      auth: 'user',
      readOnly: true,
      access: { role: 'member' },
      params: WorkspaceParams,
      body: ExportBody,
      responses: { 200: { description: 'The pack', schema: Pack } },
      handler: ({ principal, access, body, resolve }) => resolve('packs.export').export(principal, access, body),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/packs/install',
      operationId: 'packs.install',
      example: { pack: EXAMPLE_PACK, dry_run: true },
      summary: 'Install a pack into the workspace',
      description: INSTALL_DESCRIPTION,
      tags,
      auth: 'user',
      access: { role: 'creator' },
      params: WorkspaceParams,
      body: InstallBody,
      bodyLimit: maxBytes,
      status: 201,
      responses: INSTALL_RESPONSES,
      handler: async ({ principal, access, body, resolve }) =>
        installReply(
          await resolve('packs.install').install(principal, access, body.pack, {
            spaceId: body.space_id,
            dryRun: body.dry_run ?? false,
            source: { type: 'upload', id: null },
          }),
        ),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/packs/installs',
      operationId: 'packs.installs.list',
      summary: 'The install ledger: what each install made, newest first',
      tags,
      auth: 'user',
      access: { role: 'creator' },
      params: WorkspaceParams,
      query: InstallListQuery,
      responses: { 200: { description: 'One page of installs', schema: PackInstallList } },
      handler: ({ params, query, resolve }) => resolve('packs.ledger').list(params.ws, query),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/packs/installs/{id}',
      operationId: 'packs.installs.uninstall',
      summary: 'Uninstall: remove what an install made and nobody changed since',
      description:
        'Kept, with the reason: what was changed since the install, what holds something kept or added since (a database with new ' +
        'records or fields, a space with a new database), and the parts of what is kept. The install leaves the ledger.',
      tags,
      auth: 'user',
      access: { role: 'creator' },
      params: InstallParams,
      responses: { 200: { description: 'What went and what stayed', schema: Uninstalled } },
      handler: ({ principal, access, params, resolve }) => resolve('packs.ledger').uninstall(principal, access, params.id),
    }),
    defineRoute({
      method: 'GET',
      path: '/packs/kinds',
      operationId: 'packs.kinds.list',
      summary: 'The kinds of resource a pack may hold on this instance, in install order',
      tags,
      auth: 'user',
      responses: { 200: { description: 'The kinds and the plugins owning them', schema: PackKindList } },
      handler: ({ resolve }) => ({
        data: resolve('packs.kinds').all().map((k) => ({ kind: k.kind, plugin: k.plugin, after: k.after, optional: k.optional ?? false })),
      }),
    }),
  ];
}
