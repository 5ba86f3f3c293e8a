import { Type, type Static } from 'tessera/schema';
import { Ref, type PackHooks } from 'tessera/plugins/packs';
import type { GreetingService } from './greetings.service.ts';

/** A greeting in a pack: only the name. The message is made again where it is installed, by that instance's hooks. */
export const GreetingResource = Type.Object({ ref: Ref, name: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
type GreetingResource = Static<typeof GreetingResource>;

/**
 * Taking part in packs, the way every plugin owning a kind does: declare the kind, then export, install, fingerprint
 * and remove it. Greetings are optional data (`include: ["hello_greeting"]` on export; a kind carries its plugin's id, as a table does), standing on their own in the workspace.
 */
export function tapPacks(hooks: PackHooks, greetings: () => GreetingService): void {
  hooks.kinds.tap('hello', (kinds) => [...kinds, { kind: 'hello_greeting', plugin: 'hello', after: [], schema: GreetingResource, part: false, optional: true }]);

  hooks.export.for('hello_greeting').tapPromise('hello', async (resources, { trx, workspaceId, refs }) => {
    const rows = await greetings().names(trx, workspaceId);
    return [...resources, ...rows.map((row) => ({ ref: refs.ref('hello_greeting', row.id), name: row.name }))];
  });

  // A name the installer greeted already is that greeting: installing twice greets nobody twice.
  hooks.install.for('hello_greeting').tapPromise('hello', async ({ trx, actor, workspaceId, resource }) => {
    const { id, created } = await greetings().ensure(trx, workspaceId, actor.user.id, (resource as GreetingResource).name);
    return { id, action: created ? 'create' : 'reuse', containers: [] };
  });

  hooks.stamp.for('hello_greeting').tapPromise('hello', async (_stamp, { db, workspaceId, id }) => {
    const greeting = await greetings().find(db, workspaceId, id);
    return greeting ? `${greeting.name}|${greeting.message}` : null;
  });

  hooks.remove.for('hello_greeting').tapPromise('hello', async ({ trx, actor, workspaceId, id }) => {
    await greetings().remove(trx, workspaceId, id, actor.user.id);
    return true;
  });
}
