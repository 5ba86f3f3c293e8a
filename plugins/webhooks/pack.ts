import { invalidField } from '../../core/errors.ts';
import { Type, type Static } from '../../core/schema.ts';
import { Ref, type PackHooks, type PackResource } from '../packs/public.ts';
import { EVENT_NAME } from './schemas.ts';
import type { WebhookService } from './webhooks.service.ts';

/** A webhook in a pack: where it sends and what it hears; never its secret. */
export const WebhookResource = Type.Object(
  {
    ref: Ref,
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    events: Type.Array(Type.String({ pattern: EVENT_NAME, maxLength: 128 }), { minItems: 1, maxItems: 64, uniqueItems: true }),
    database: Type.Union([Ref, Type.Null()], { description: 'The database whose events it hears; null for the whole workspace.' }),
  },
  { additionalProperties: false },
);
type WebhookResource = Static<typeof WebhookResource>;

/**
 * The webhooks plugin's part in packs: kind `webhook`, the webhooks narrowed to one of the pack's databases (a
 * workspace-wide webhook belongs to no pack). Exported without their secret; an install makes a new one, shown once in
 * the install answer, and installs the webhook disabled: a pack (perhaps from the marketplace) must not start sending
 * the workspace's records to its author's URL until an admin has looked at it and enabled it. Admins only, as for
 * creating one.
 */
export function tapPacks(hooks: PackHooks, deps: { webhooks: () => WebhookService }): void {
  hooks.kinds.tap('webhooks', (kinds) => [...kinds, { kind: 'webhook', plugin: 'webhooks', after: ['database'], schema: WebhookResource, part: true }]);

  hooks.export.for('webhook').tapPromise('webhooks', async (resources, { trx, workspaceId, refs }) => {
    const rows = await deps.webhooks().inDatabases(trx, workspaceId, refs.ids('database'));
    const out: PackResource[] = [...resources];
    for (const row of rows) out.push({ ref: refs.ref('webhook', row.id), url: row.url, events: row.events, database: refs.ref('database', row.database_id!) });
    return out;
  });

  hooks.install.for('webhook').tapPromise('webhooks', async (req) => {
    const resource = req.resource as WebhookResource;
    if (req.grant.role !== 'admin') throw invalidField('', 'Installing a webhook needs the admin role in the workspace.');
    const databaseId = resource.database === null ? null : req.refs.id('database', resource.database, '/database');
    const made = await deps.webhooks().install(req.trx, req.actor, req.workspaceId, { url: resource.url, events: resource.events, enabled: false, database_id: databaseId });
    return { id: made.id, action: 'create', containers: resource.database === null ? [] : [{ kind: 'database', ref: resource.database }], secret: made.secret };
  });

  hooks.stamp.for('webhook').tapPromise('webhooks', async (_stamp, { db, workspaceId, id }) => deps.webhooks().stamp(db, workspaceId, id));

  hooks.remove.for('webhook').tapPromise('webhooks', async ({ trx, workspaceId, id }) => {
    await deps.webhooks().delete(workspaceId, id, trx);
    return true;
  });
}
