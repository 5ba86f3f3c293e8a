import assert from 'node:assert/strict';
import { definePlugin } from '../../../core/plugin.ts';
import { startTestKernel, type TestKernel, createWorkspace, joinWorkspace, signUp } from '../../../core/testing.ts';
import type { MemberChanged, MemberRemoved, WorkspaceDeleting } from '../../../plugins/workspaces/public.ts';
import { corePlugins } from './fixtures.ts';

/**
 * `workspaces.lifecycle` as a plugin that keeps something per member sees it: typed payloads, inside the
 * change's transaction, so what a tap writes commits or rolls back with the change.
 */
describe('workspaces.lifecycle', () => {
  let t: TestKernel;
  const seen: { changed: MemberChanged[]; removed: MemberRemoved[]; deleting: WorkspaceDeleting[] } = { changed: [], removed: [], deleting: [] };
  let refuseRemoval = false;

  const probe = definePlugin({
    id: 'member-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    dependsOn: { workspaces: '^1.0.0' },
    register(ctx) {
      const lifecycle = ctx.hooksOf('workspaces.lifecycle');
      lifecycle.memberChanged.tapPromise('probe', async (change) => void seen.changed.push(change));
      lifecycle.memberRemoved.tapPromise('probe', async (removal) => {
        seen.removed.push(removal);
        // Inside the removal's transaction: the row is already gone there.
        assert.equal(await removal.trx('workspace_members').where({ workspace_id: removal.workspaceId, user_id: removal.userId }).first(), undefined);
        if (refuseRemoval) throw new Error('probe refuses');
      });
      lifecycle.deleting.tapPromise('probe', async (deletion) => {
        seen.deleting.push(deletion);
        assert.ok(await deletion.trx('workspaces').where({ id: deletion.workspaceId }).first(), 'the workspace row is still there while deleting');
      });
    },
  });

  before(async () => {
    t = await startTestKernel({ plugins: [...corePlugins, probe] });
  });
  after(() => t.stop());

  it('tells a role change, a removal and a deletion with typed payloads', async () => {
    const admin = await signUp(t);
    const member = await signUp(t);
    const ws = await createWorkspace(t, admin);
    await joinWorkspace(t, admin, ws.id, member, 'editor');
    await t.request.patch(`/api/v1/workspaces/${ws.id}/members/${member.id}`).set(admin.auth).send({ role: 'member' }).expect(200);
    assert.deepEqual(
      seen.changed.map(({ workspaceId, userId, before, after, actor }) => ({ workspaceId, userId, before: before.role, after: after.role, actor: actor.user.id })),
      [{ workspaceId: ws.id, userId: member.id, before: 'editor', after: 'member', actor: admin.id }],
    );
    await t.request.delete(`/api/v1/workspaces/${ws.id}/members/${member.id}`).set(admin.auth).expect(204);
    assert.deepEqual(seen.removed.map(({ workspaceId, userId, role }) => ({ workspaceId, userId, role })), [{ workspaceId: ws.id, userId: member.id, role: 'member' }]);
    await t.request.delete(`/api/v1/workspaces/${ws.id}`).set(admin.auth).expect(204);
    assert.deepEqual(seen.deleting.map((d) => d.workspaceId), [ws.id]);
  });

  it('undoes the removal when a tap fails: the member stays', async () => {
    const admin = await signUp(t);
    const member = await signUp(t);
    const ws = await createWorkspace(t, admin);
    await joinWorkspace(t, admin, ws.id, member, 'editor');
    refuseRemoval = true;
    try {
      await t.request.delete(`/api/v1/workspaces/${ws.id}/members/${member.id}`).set(admin.auth).expect(500);
    } finally {
      refuseRemoval = false;
    }
    assert.ok(await t.db('workspace_members').where({ workspace_id: ws.id, user_id: member.id }).first());
  });
});
