import { Type, type Static } from '../../core/schema.ts';
import type { FieldService, ManagedFields } from '../databases/public.ts';
import { Ref, type PackHooks, type PackResource } from '../packs/public.ts';
import type { ButtonOptions } from './schemas.ts';

/** A button field in a pack: its database and its automation by ref. */
export const ButtonResource = Type.Object(
  {
    ref: Ref,
    database: Ref,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    api_name: Type.String({ minLength: 1, maxLength: 128 }),
    label: Type.String({ minLength: 1, maxLength: 100 }),
    automation: Ref,
  },
  { additionalProperties: false },
);
type ButtonResource = Static<typeof ButtonResource>;

interface Deps {
  fields: () => FieldService;
  managed: () => ManagedFields;
}

/**
 * The buttons plugin's part in packs: kind `button`. A button names an automation, and automations install after the
 * fields they name, so buttons are not `field` resources: they travel as a kind of their own, installed after the
 * automations. A button whose automation stays home (it names something outside the pack) stays home with it.
 */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('buttons', (kinds) => [...kinds, { kind: 'button', plugin: 'buttons', after: ['database', 'automation'], schema: ButtonResource, part: true }]);

  hooks.export.for('field').tapPromise('buttons', async (resources: PackResource[], { refs }) =>
    resources.filter((resource) => {
      if (resource.type !== 'button') return true;
      refs.forget('field', refs.idOf('field', resource.ref)!);
      return false;
    }),
  );

  hooks.export.for('button').tapPromise('buttons', async (resources, { trx, refs }) => {
    const out: PackResource[] = [...resources];
    for (const databaseId of refs.ids('database')) {
      const fields = (await deps.managed().ofDatabase(trx, databaseId)).filter((f) => f.type === 'button' && !f.deleted_at).sort((a, b) => a.position - b.position);
      for (const field of fields) {
        const options = field.options as ButtonOptions;
        const automation = refs.find('automation', options.automation_id);
        if (automation === undefined) continue;
        out.push({ ref: refs.ref('button', field.id), database: refs.find('database', databaseId)!, name: field.name, api_name: field.api_name, label: options.label, automation });
      }
    }
    return out;
  });

  hooks.install.for('button').tapPromise('buttons', async (req) => {
    const resource = req.resource as ButtonResource;
    const databaseId = req.refs.id('database', resource.database, '/database');
    const automationId = req.refs.id('automation', resource.automation, '/automation');
    const field = await deps.fields().create(req.actor, req.workspaceId, databaseId, { name: resource.name, api_name: resource.api_name, type: 'button', options: { label: resource.label, automation_id: automationId } }, req.trx);
    return { id: field.id, action: 'create', containers: [{ kind: 'database', ref: resource.database }] };
  });

  hooks.stamp.for('button').tapPromise('buttons', async (_stamp, { db, id }) => {
    const field = (await deps.managed().byIds(db, [id])).get(id);
    return field ? JSON.stringify([field.name, field.api_name, field.options]) : null;
  });
}
