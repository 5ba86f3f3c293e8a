import { randomUUID } from 'node:crypto';
import { definePlugin } from '../../../core/plugin.ts';
import { recordedEvents, type TestKernel, type SignedUpUser } from '../../../core/testing.ts';
import system from '../../../plugins/system/index.ts';
import auth from '../../../plugins/auth/index.ts';
import tokens from '../../../plugins/tokens/index.ts';
import mail from '../../../plugins/mail/index.ts';
import workspaces from '../../../plugins/workspaces/index.ts';

/** The plugins invites and getting-started need, without the rest of the built-ins. */
export const corePlugins = [system, auth, tokens, mail, workspaces];

/**
 * Stands in for the spaces plugin: answers `auth.locate` for spaces it was told about, and
 * deletes one the way the spaces plugin does (workspaces.service.forgetSpace, in a transaction).
 */
export function spaceProbe() {
  const spaces = new Map<string, string>();
  const plugin = definePlugin({
    id: 'space-probe',
    version: '1.0.0',
    kernel: '^1.0.0',
    register(ctx) {
      ctx.hooks.auth.locate.for('space').tapPromise('probe', async ({ workspaceId, id }) =>
        spaces.get(id) === workspaceId ? { path: [{ type: 'space', id }], createdBy: null } : undefined,
      );
    },
  });
  return {
    plugin,
    add(workspaceId: string): string {
      const id = randomUUID();
      spaces.set(id, workspaceId);
      return id;
    },
    async remove(t: TestKernel, id: string): Promise<void> {
      const workspaceId = spaces.get(id)!;
      spaces.delete(id);
      // What the spaces plugin asks of the workspaces plugin when it deletes a space.
      await t.db.transaction((trx) => t.container.resolverFor('workspaces')('workspaces.service').forgetSpace(trx, workspaceId, id));
    },
  };
}

export async function invite(t: TestKernel, admin: SignedUpUser, ws: string, body: Record<string, unknown>) {
  const res = await t.request.post(`/api/v1/workspaces/${ws}/invites`).set(admin.auth).send(body);
  if (res.status !== 201) throw new Error(`invite failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; accept_url: string; [k: string]: unknown };
}

export const tokenOf = (acceptUrl: string) => acceptUrl.split('/').pop()!;

/** A workspace's recorded events of one name, as `{ name, actor_id, payload }`. */
export async function eventsNamed(t: TestKernel, name: string, workspaceId: string) {
  return (await recordedEvents(t, { name, workspace_id: workspaceId })).map((e) => ({ name: e.name, actor_id: e.actor_id, payload: e.payload }));
}
