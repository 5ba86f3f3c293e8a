import assert from 'node:assert/strict';
import type { Role } from '../../core/roles.ts';
import { definePlugin } from '../../core/plugin.ts';
import { startTestKernel, type TestKernel, createWorkspace, signUp } from '../../core/testing.ts';
import { corePlugins } from '../plugins/workspaces/fixtures.ts';

/**
 * `auth.workspaceAccess` runs its `membership` phase before its `grants` phase, so a plugin raising roles sees
 * the membership even when it loads before the plugin that knows it.
 */
describe('auth.workspaceAccess phases', () => {
  let t: TestKernel;
  const seenByGrants: Array<Role | null> = [];

  // Listed, and with no dependency so loaded, before the workspaces plugin.
  const grantsProbe = definePlugin({
    id: 'grants-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.hooks.auth.workspaceAccess.grants.tapPromise('probe', async (access) => {
        seenByGrants.push(access.role);
        return access;
      });
    },
  });

  before(async () => {
    t = await startTestKernel({ plugins: [grantsProbe, ...corePlugins] });
  });
  after(() => t.stop());

  it('hands the grants phase the membership the workspaces plugin found', async () => {
    const admin = await signUp(t);
    const ws = await createWorkspace(t, admin);
    seenByGrants.length = 0;
    await t.request.get(`/api/v1/workspaces/${ws.id}`).set(admin.auth).expect(200);
    assert.deepEqual(seenByGrants, ['admin']);
  });
});
