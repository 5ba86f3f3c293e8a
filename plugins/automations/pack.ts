import { AppError, invalidField } from '../../core/errors.ts';
import { Type, type Static } from '../../core/schema.ts';
import type { ConnectionService } from '../integrations/public.ts';
import { Ref, type ExportRefs, type PackHooks, type PackResource } from '../packs/public.ts';
import { mapFilterConditions, withOptionLabels, FilterNode, type RecordService, type RecordTable } from '../records/public.ts';
import type { ActionRegistry } from './actions.ts';
import type { AutomationRow, AutomationService } from './automations.service.ts';
import { Action, integrationEventTrigger, Trigger } from './schemas.ts';

/** A trigger as a pack says it: an integration trigger's connection by ref (a string too, so its type is `Trigger`'s). */
const PackTrigger = Type.Union([...Trigger.anyOf.filter((t) => t.properties.type.const !== 'integration_event'), integrationEventTrigger(Ref)]) as unknown as typeof Trigger;

/** An automation in a pack: its database by ref, fields by api_name, select options by label; never on, never a hook token. */
export const AutomationResource = Type.Object(
  {
    ref: Ref,
    database: Ref,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    trigger: PackTrigger,
    conditions: Type.Union([FilterNode, Type.Null()]),
    actions: Type.Array(Action, { minItems: 1, maxItems: 20 }),
  },
  { additionalProperties: false },
);
type AutomationResource = Static<typeof AutomationResource>;

/** A UUID anywhere in a string: what is left of an id of this workspace after every part said its own by ref. */
const ANY_UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** A connection an automation acts through, as a pack says it: its provider and name, never its credentials. */
export const ConnectionResource = Type.Object(
  { ref: Ref, provider: Type.String({ pattern: '^[a-z][a-z0-9-]{0,62}$' }), name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);
type ConnectionResource = Static<typeof ConnectionResource>;

interface Deps {
  automations: () => AutomationService;
  records: () => RecordService;
  actions: () => ActionRegistry;
  /** The integrations plugin's connections, when it is on. */
  connections?: () => ConnectionService;
}

/** The connection ids an automation names: its integration trigger's and its provider actions'. */
function connectionsOf(row: AutomationRow): string[] {
  const ids = row.trigger.type === 'integration_event' && row.trigger.connection_id ? [row.trigger.connection_id] : [];
  for (const action of row.actions) if (typeof action.connection_id === 'string') ids.push(action.connection_id);
  return ids;
}

/**
 * The automations plugin's part in packs: kind `automation`, the automations of the pack's databases. An automation
 * travels only whole: if anything it names stays home (a field left out of the pack, a database it writes to elsewhere,
 * a member, a record) it stays home too, rather than arrive doing something else (a condition dropped would widen what
 * it runs on). Installed disabled, whatever it was, and with a new inbound hook token. Runs never travel.
 */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('automations', (kinds) => [
    ...kinds,
    { kind: 'automation', plugin: 'automations', after: ['database', 'field', 'select_option', 'relation', 'connection'], schema: AutomationResource, part: true },
  ]);
  if (deps.connections) tapConnections(hooks, deps.automations, deps.connections);

  hooks.export.for('automation').tapPromise('automations', async (resources, { trx, workspaceId, refs }) => {
    const out: PackResource[] = [...resources];
    const tables = new Map<string, RecordTable>();
    for (const row of await deps.automations().inDatabases(trx, workspaceId, refs.ids('database'))) {
      if (!tables.has(row.database_id)) tables.set(row.database_id, await deps.records().open(trx, workspaceId, row.database_id));
      const resource = portable(row, tables.get(row.database_id)!, refs, deps.actions());
      if (resource) out.push(resource);
    }
    return out;
  });

  hooks.install.for('automation').tapPromise('automations', async (req) => {
    const resource = req.resource as AutomationResource;
    const databaseId = req.refs.id('database', resource.database, '/database');
    const actions = resource.actions.map((action, i) => {
      const part = deps.actions().get(action.type)?.pack;
      if (!part) return action;
      const { type, ...config } = action;
      return { type, ...part.in(config, (kind, ref, pointer) => req.refs.id(kind, ref, pointer), `/actions/${i}`) };
    });
    const trigger = resource.trigger.type === 'integration_event' && resource.trigger.connection_id
      ? { ...resource.trigger, connection_id: req.refs.id('connection', resource.trigger.connection_id, '/trigger/connection_id') }
      : resource.trigger;
    const made = await deps.automations().install(req.trx, req.actor, req.grant, { database_id: databaseId, name: resource.name, trigger, conditions: resource.conditions, actions });
    return { id: made.id, action: 'create', containers: [{ kind: 'database', ref: resource.database }] };
  });

  hooks.stamp.for('automation').tapPromise('automations', async (_stamp, { db, workspaceId, id }) => deps.automations().stamp(db, workspaceId, id));

  hooks.remove.for('automation').tapPromise('automations', async ({ trx, workspaceId, id }) => {
    await deps.automations().delete(workspaceId, id, trx).catch((err: unknown) => {
      // Gone already (its database went first): nothing left to remove.
      if (!(err instanceof AppError && err.status === 404)) throw err;
    });
    return true;
  });
}

/** The automation as it travels, or undefined when something it names stays home. */
function portable(row: AutomationRow, table: RecordTable, refs: ExportRefs, actions: ActionRegistry): AutomationResource | undefined {
  const travels = (name: string) => {
    const field = table.byApiName.get(name.split('.', 2)[0]);
    return field !== undefined && refs.find('field', field.id) !== undefined;
  };
  if (row.trigger.type === 'record_updated' && !(row.trigger.fields ?? []).every(travels)) return undefined;
  let trigger = row.trigger;
  if (trigger.type === 'integration_event' && trigger.connection_id) {
    const connection = refs.find('connection', trigger.connection_id);
    if (connection === undefined) return undefined;
    trigger = { ...trigger, connection_id: connection };
  }
  let whole = true;
  const conditions =
    row.conditions === null
      ? null
      : mapFilterConditions(row.conditions, (c) => {
          if (!travels(c.field)) whole = false;
          return withOptionLabels(c, table.byApiName.get(c.field));
        });
  if (!whole) return undefined;
  const travelling: Array<Record<string, unknown> & { type: string }> = [];
  for (const action of row.actions) {
    const part = actions.get(action.type)?.pack;
    if (!part) {
      travelling.push(action);
      continue;
    }
    const { type, ...config } = action;
    const out = part.out(config, (kind, id) => refs.find(kind, id));
    if (out === undefined) return undefined;
    travelling.push({ type, ...out });
  }
  if (ANY_UUID.test(JSON.stringify([trigger, conditions, travelling]))) return undefined;
  return { ref: refs.ref('automation', row.id), database: refs.find('database', row.database_id)!, name: row.name, trigger, conditions: conditions as AutomationResource['conditions'], actions: travelling };
}

/**
 * Kind `connection`, said by the automations that act through one (this plugin's, since only they name connections):
 * exported as the provider and name of each connection the pack's automations use, never a credential; installed onto
 * the target workspace's connection to that provider (the same name if there is one, else the oldest active one), or
 * refused with the provider to connect first. An install never makes a connection: credentials are for a person to give.
 */
function tapConnections(hooks: PackHooks, automations: () => AutomationService, connections: () => ConnectionService): void {
  hooks.kinds.tap('automations.connections', (kinds) => [...kinds, { kind: 'connection', plugin: 'automations', after: ['database'], schema: ConnectionResource, part: false }]);

  hooks.export.for('connection').tapPromise('automations', async (resources, { trx, workspaceId, refs }) => {
    const rows = await automations().inDatabases(trx, workspaceId, refs.ids('database'));
    const ids = [...new Set(rows.flatMap(connectionsOf))];
    const out: PackResource[] = [...resources];
    for (const c of await connections().described(trx, workspaceId, ids)) out.push({ ref: refs.ref('connection', c.id), provider: c.provider, name: c.name });
    return out;
  });

  hooks.install.for('connection').tapPromise('automations', async (req) => {
    const resource = req.resource as ConnectionResource;
    const id = await connections().matching(req.trx, req.workspaceId, resource.provider, resource.name);
    if (!id) throw invalidField('', `This pack acts through a ${resource.provider} connection ("${resource.name}"): connect ${resource.provider} in this workspace first, then install it again.`);
    return { id, action: 'reuse', containers: [] };
  });
}
