import type { Db } from '../../core/db.ts';
import { invalidField } from '../../core/errors.ts';
import { Type, type Static } from '../../core/schema.ts';
import type { ConnectionService } from '../integrations/public.ts';
import { Ref, type PackHooks, type PackResource } from '../packs/public.ts';
import type { SourceKinds } from './kinds.ts';
import { nextRunAt, SOURCES, type SourceRow } from './store.ts';
import { DELETE_POLICIES, SCHEDULES } from './schemas.ts';

/** A source in a pack: its kind, config and schedule, its fields by ref, its connection by ref (provider and name). */
export const SourceResource = Type.Object(
  {
    ref: Ref,
    database: Ref,
    kind: Type.String({ minLength: 1, maxLength: 100 }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    connection: Type.Union([Ref, Type.Null()]),
    config: Type.Record(Type.String(), Type.Unknown()),
    schedule: Type.Unsafe<(typeof SCHEDULES)[number]>({ type: 'string', enum: [...SCHEDULES] }),
    delete_policy: Type.Unsafe<(typeof DELETE_POLICIES)[number]>({ type: 'string', enum: [...DELETE_POLICIES] }),
    fields: Type.Record(Type.String(), Ref, { description: 'Property key → the ref of the field it writes.' }),
  },
  { additionalProperties: false },
);
type SourceResource = Static<typeof SourceResource>;

interface Deps {
  kinds: () => SourceKinds;
  connections: () => ConnectionService;
  /** Marks fields synced or ordinary in the caller's transaction. */
  setSynced: (trx: Db, databaseId: string, ids: string[], synced: boolean) => Promise<void>;
}

/**
 * The sources plugin's part in packs: kind `source`, the sources writing one of the pack's databases whose fields all
 * travel. A source's config carries no secret (those live in connections); its connection travels as provider and name
 * (kind `connection`, installed onto the target's own connection). Installed as made by the installer, idle, its
 * cursor empty: its first run reads everything. Creators only, as for creating one.
 */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('sources', (kinds) => [...kinds, { kind: 'source', plugin: 'sources', after: ['database', 'field', 'connection'], schema: SourceResource, part: true }]);

  // The connections the pack's sources read through travel too (the automations plugin adds those its automations act
  // through; one named by both travels once).
  hooks.export.for('connection').tapPromise('sources', async (resources, { trx, workspaceId, refs }) => {
    const ids = ((await trx(SOURCES).where({ workspace_id: workspaceId }).whereIn('database_id', refs.ids('database')).whereNotNull('connection_id').distinct().pluck('connection_id')) as string[]).filter(
      (id) => refs.find('connection', id) === undefined,
    );
    const out: PackResource[] = [...resources];
    for (const c of await deps.connections().described(trx, workspaceId, ids)) out.push({ ref: refs.ref('connection', c.id), provider: c.provider, name: c.name });
    return out;
  });

  hooks.export.for('source').tapPromise('sources', async (resources, { trx, workspaceId, refs }) => {
    const rows = (await trx(SOURCES).where({ workspace_id: workspaceId }).whereIn('database_id', refs.ids('database')).orderBy('created_at')) as SourceRow[];
    const out: PackResource[] = [...resources];
    for (const row of rows) {
      const fields: Record<string, string> = {};
      for (const [key, id] of Object.entries(row.fields)) {
        const ref = refs.find('field', id);
        if (ref !== undefined) fields[key] = ref;
      }
      const connection = row.connection_id ? refs.find('connection', row.connection_id) : null;
      // A source whose fields or connection stay home cannot write anything where it is installed.
      if (Object.keys(fields).length !== Object.keys(row.fields).length || connection === undefined) continue;
      out.push({ ref: refs.ref('source', row.id), database: refs.find('database', row.database_id)!, kind: row.kind, name: row.name, connection, config: row.config, schedule: row.schedule, delete_policy: row.delete_policy, fields });
    }
    return out;
  });

  hooks.install.for('source').tapPromise('sources', async (req) => {
    const resource = req.resource as SourceResource;
    if (req.grant.role !== 'admin' && req.grant.role !== 'creator') throw invalidField('', 'Installing a source needs the creator role in the workspace.');
    if (!deps.kinds().find(resource.kind)) throw invalidField('/kind', `No provider plugin here offers the source kind "${resource.kind}".`);
    const databaseId = req.refs.id('database', resource.database, '/database');
    const fields = Object.fromEntries(Object.entries(resource.fields).map(([key, ref]) => [key, req.refs.id('field', ref, `/fields/${key}`)]));
    const connectionId = resource.connection === null ? null : req.refs.id('connection', resource.connection, '/connection');
    const [row] = (await req.trx(SOURCES)
      .insert({
        workspace_id: req.workspaceId,
        database_id: databaseId,
        connection_id: connectionId,
        kind: resource.kind,
        name: resource.name,
        config: JSON.stringify(resource.config),
        fields: JSON.stringify(fields),
        schedule: resource.schedule,
        delete_policy: resource.delete_policy,
        status: 'idle',
        next_run_at: nextRunAt(resource.schedule, new Date()),
        created_by: req.actor.user.id,
      })
      .returning('id')) as Array<{ id: string }>;
    await deps.setSynced(req.trx, databaseId, Object.values(fields), true);
    return { id: row.id, action: 'create', containers: [{ kind: 'database', ref: resource.database }] };
  });

  hooks.stamp.for('source').tapPromise('sources', async (_stamp, { db, workspaceId, id }) => {
    const row = (await db(SOURCES).where({ workspace_id: workspaceId, id }).first('kind', 'config', 'schedule', 'delete_policy', 'updated_at')) as (SourceRow & { updated_at: Date }) | undefined;
    return row ? `${row.kind}|${JSON.stringify(row.config)}|${row.schedule}|${row.delete_policy}|${row.updated_at.toISOString()}` : null;
  });

  hooks.remove.for('source').tapPromise('sources', async ({ trx, workspaceId, id }) => {
    const [row] = (await trx(SOURCES).where({ workspace_id: workspaceId, id }).forUpdate().select('database_id', 'fields')) as SourceRow[];
    if (!row) return true;
    await deps.setSynced(trx, row.database_id, Object.values(row.fields), false);
    await trx(SOURCES).where({ id }).delete();
    return true;
  });
}
