import assert from 'node:assert/strict';
import { StartupError } from '../../core/errors.ts';
import { definePlugin } from '../../core/plugin.ts';
import { defineRoute } from '../../core/routes.ts';
import { startTestKernel } from '../../core/testing.ts';
import system from '../../plugins/system/index.ts';

const withRoute = (readOnly: boolean) =>
  definePlugin({
    id: 'scope-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.routes([
        defineRoute({
          method: 'POST',
          path: '/scope-probe/things',
          summary: 'A write probe',
          auth: 'user',
          scope: 'read',
          ...(readOnly ? { readOnly: true as const } : {}),
          responses: { 204: { description: 'Nothing' } },
          handler: () => undefined,
        }),
      ]);
    },
  });

describe('route scopes: a read token is read only', () => {
  it('refuses at start-up a route that writes but lowers its token scope to read, naming the plugin and route', async () => {
    await assert.rejects(
      startTestKernel({ plugins: [system, withRoute(false)] }),
      (err: unknown) => err instanceof StartupError && err.code === 'route_invalid' && /scope-probe.*POST \/scope-probe\/things/.test(err.message),
    );
  });

  it('accepts it when the route says it writes nothing', async () => {
    const t = await startTestKernel({ plugins: [system, withRoute(true)] });
    await t.stop();
  });
});
