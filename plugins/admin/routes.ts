import { defineRoute, type AnyRouteDef } from '../../core/routes.ts';
import { PluginList } from './schemas.ts';

/** Instance administration; every route needs an instance admin's session. */
export function adminRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/admin/plugins',
      summary: 'Every known plugin with its version and state (active, disabled, failed) and the failure if any',
      auth: 'instance_admin',
      responses: { 200: { description: 'All plugins, sorted by id', schema: PluginList } },
      handler: ({ resolve }) => resolve('admin.plugins').list(),
    }),
  ];
}
