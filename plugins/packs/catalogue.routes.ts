import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { PackErrors } from './errors.ts';
import { EXAMPLE_PACK, installReply, INSTALL_DESCRIPTION, INSTALL_RESPONSES } from './routes.ts';
import {
  ApplyBody,
  ApplyParams,
  Gallery,
  InstallPublishedParams,
  MarketplaceQuery,
  PublishBody,
  PublishedPack,
  PublishedPackDetail,
  PublishedPackList,
  PublishedParams,
  TemplateDetail,
  TemplateList,
  TemplateParams,
  WorkspaceParams,
} from './schemas.ts';

/** Where packs come from besides a file: templates shipped by plugins, the marketplace, and the public gallery of both. */
export function catalogueRoutes(maxBytes: number): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/templates',
      operationId: 'templates.list',
      summary: 'Starter templates shipped by the enabled plugins',
      description: 'No credential needed. Each is a pack; apply one with POST /workspaces/{ws}/templates/{id}/apply.',
      tags: ['templates'],
      auth: 'public',
      responses: { 200: { description: 'Every template', schema: TemplateList } },
      handler: ({ resolve }) => ({ data: resolve('packs.templates').list(), next_cursor: null }),
    }),
    defineRoute({
      method: 'GET',
      path: '/templates/{id}',
      operationId: 'templates.get',
      summary: 'A template, with its pack',
      tags: ['templates'],
      auth: 'public',
      params: TemplateParams,
      responses: { 200: { description: 'The template and its pack', schema: TemplateDetail } },
      handler: ({ params, resolve }) => resolve('packs.templates').get(params.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/templates/{id}/apply',
      operationId: 'templates.apply',
      example: { dry_run: true },
      summary: "Apply a template: install its pack into the workspace",
      description: INSTALL_DESCRIPTION,
      tags: ['templates'],
      auth: 'user',
      access: { role: 'creator' },
      params: ApplyParams,
      body: ApplyBody,
      status: 201,
      responses: INSTALL_RESPONSES,
      handler: async ({ principal, access, params, body, resolve }) => {
        const template = resolve('packs.templates').get(params.id);
        return installReply(
          await resolve('packs.install').install(principal, access, template.pack, {
            spaceId: body.space_id,
            dryRun: body.dry_run ?? false,
            source: { type: 'template', id: template.id },
          }),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/marketplace/packs',
      operationId: 'marketplace.publish',
      example: { pack: EXAMPLE_PACK, public: true },
      summary: 'Publish a pack to the marketplace of this instance',
      description:
        'Admins. The pack is checked as an install would check it before anything runs (format, plugins, kinds, schemas, no secrets). ' +
        'A name belongs to the workspace that first published it (409 `name_taken` for others); publishing it again needs a higher `version` ' +
        '(409 `version_not_higher`). `public` also lists it in the public gallery.',
      tags: ['marketplace'],
      auth: 'user',
      access: { role: 'admin' },
      params: WorkspaceParams,
      body: PublishBody,
      bodyLimit: maxBytes,
      status: 201,
      responses: { 201: { description: 'The published pack', schema: PublishedPack } },
      errors: [PackErrors.name_taken, PackErrors.version_not_higher],
      handler: ({ principal, params, body, resolve }) => resolve('packs.marketplace').publish(principal, params.ws, body.pack, body.public ?? false),
    }),
    defineRoute({
      method: 'GET',
      path: '/marketplace/packs',
      operationId: 'marketplace.list',
      summary: 'Published packs, the newest version of each name, newest first',
      tags: ['marketplace'],
      auth: 'user',
      query: MarketplaceQuery,
      responses: { 200: { description: 'One page of published packs', schema: PublishedPackList } },
      handler: ({ query, resolve }) => resolve('packs.marketplace').list(query),
    }),
    defineRoute({
      method: 'GET',
      path: '/marketplace/packs/{id}',
      operationId: 'marketplace.get',
      summary: 'A published pack, with the pack itself',
      tags: ['marketplace'],
      auth: 'user',
      params: PublishedParams,
      responses: { 200: { description: 'The published pack', schema: PublishedPackDetail } },
      handler: ({ params, resolve }) => resolve('packs.marketplace').get(params.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/marketplace/packs/{id}/install',
      operationId: 'marketplace.install',
      example: { dry_run: true },
      summary: 'Install a published pack into the workspace',
      description: `${INSTALL_DESCRIPTION} A real install counts in the pack's \`installs\`.`,
      tags: ['marketplace'],
      auth: 'user',
      access: { role: 'creator' },
      params: InstallPublishedParams,
      body: ApplyBody,
      status: 201,
      responses: INSTALL_RESPONSES,
      handler: async ({ principal, access, params, body, resolve }) => {
        const marketplace = resolve('packs.marketplace');
        const published = await marketplace.get(params.id);
        return installReply(
          await resolve('packs.install').install(principal, access, published.pack, {
            spaceId: body.space_id,
            dryRun: body.dry_run ?? false,
            source: { type: 'marketplace', id: published.id },
            onInstalled: (trx) => marketplace.countInstall(trx, published.id),
          }),
        );
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/public/gallery',
      operationId: 'gallery.list',
      summary: 'The public gallery: the templates and the packs published as public',
      description: 'No credential needed. Templates first, then the newest public packs (at most 200).',
      tags: ['marketplace'],
      auth: 'public',
      responses: { 200: { description: 'What anyone may browse', schema: Gallery } },
      handler: async ({ resolve }) => {
        const templates = resolve('packs.templates').list();
        const packs = await resolve('packs.marketplace').list({ limit: 200 }, true);
        return {
          data: [
            ...templates.map((t) => ({ type: 'template' as const, id: t.id, name: t.name, description: t.description, version: t.pack_version, categories: t.categories })),
            ...packs.data.map((p) => ({ type: 'pack' as const, id: p.id, name: p.name, description: p.description, version: p.version, publisher: p.publisher, installs: p.installs })),
          ],
          next_cursor: null,
        };
      },
    }),
  ];
}
