import { defineRoute, Reply, type AnyRouteDef } from './routes.ts';
import { Type } from './schema.ts';
import { forbidden, KernelErrors, notFound, unauthenticated } from './errors.ts';
import { buildOpenApi, docsAsset, DOCS_ASSET_TYPES, docsPage } from './openapi.ts';
import type { Kernel } from './kernel.ts';
import type { RouteState } from './router.ts';
import { KERNEL, type Resolve } from './container.ts';

/** Routes the kernel itself serves: the API description and, when enabled, metrics. */
export function kernelRoutes(kernel: Kernel): AnyRouteDef[] {
  let openapi: object | null = null;
  const routes: AnyRouteDef[] = [
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'openapi.get',
      summary: 'OpenAPI 3.1 document of every enabled plugin\'s routes',
      tags: ['system'],
      auth: 'public',
      responses: { 200: { description: 'The OpenAPI document', schema: Type.Object({}, { additionalProperties: true }) } },
      handler: () => (openapi ??= buildOpenApi(kernel.routes.filter((r) => kernel.isActive(r.pluginId)), { resolve: asOwner(kernel) }, kernel.config.publicUrl)),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs',
      operationId: 'docs.page',
      summary: 'Interactive API reference',
      tags: ['system'],
      auth: 'public',
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      handler: () => new Reply(200, docsPage(), {}, 'text/html; charset=utf-8'),
    }),
    defineRoute({
      method: 'GET',
      path: '/docs/assets/{name}',
      operationId: 'docs.asset',
      summary: 'Static asset of the API reference page',
      tags: ['system'],
      auth: 'public',
      params: Type.Object({ name: Type.String() }),
      responses: { 200: { description: 'Asset bytes', contentType: DOCS_ASSET_TYPES } },
      handler: ({ params }) => {
        const asset = docsAsset(params.name);
        if (!asset) throw notFound();
        return new Reply(200, asset.body, { 'Cache-Control': 'public, max-age=86400' }, asset.type);
      },
    }),
  ];
  if (kernel.metrics) {
    const metrics = kernel.metrics;
    routes.push(
      defineRoute({
        method: 'GET',
        path: '/metrics',
        operationId: 'metrics.get',
        summary: 'Prometheus metrics (instance admin session or the metrics token)',
        tags: ['system'],
        auth: 'public',
        responses: { 200: { description: 'Prometheus text format', contentType: 'text/plain' } },
        // Public, so that the metrics token reaches it; the handler refuses everyone else itself.
        errors: [KernelErrors.unauthenticated, KernelErrors.forbidden],
        handler: async ({ principal, ctx }) => {
          const ok =
            (principal.kind === 'service' && principal.name === 'metrics') ||
            (principal.kind === 'session' && principal.user.is_instance_admin);
          if (principal.kind === 'anonymous') throw unauthenticated((ctx.state as RouteState).credentialRefused);
          if (!ok) throw forbidden('Metrics need an instance admin session or the metrics token.');
          return new Reply(200, await metrics.render(), {}, metrics.registry.contentType);
        },
      }),
    );
  }
  return routes;
}

/** Resolves any service as the plugin that provides it would: documentation is built by the kernel, for every plugin. */
function asOwner(kernel: Kernel): Resolve {
  return ((key: string) => kernel.container.resolverFor(kernel.container.owner(key) ?? KERNEL)(key)) as Resolve;
}
