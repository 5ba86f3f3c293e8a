import { AppError, forbidden, invalidField, notFound, validationFailed } from '../../core/errors.ts';
import { Type, type Static } from '../../core/schema.ts';
import type { Authz } from '../../core/authz.ts';
import { Ref, stampMadeNow, uniqueName, type InstallRequest, type PackHooks, type PackResource } from '../packs/public.ts';
import type { DatabaseService } from './databases.service.ts';
import type { FieldService } from './fields.service.ts';
import type { OptionService } from './options.service.ts';
import type { ConvertService } from './convert.service.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import type { FieldType } from './field-types/field-type.ts';
import { COLORS, type Choice } from './field-types/choices.ts';
import { Description, Name } from './schemas.ts';
import { ApiName, FieldName } from './fields.schemas.ts';
import type { FieldRow } from './fields.view.ts';

export const DatabaseResource = Type.Object(
  {
    ref: Ref,
    space: Type.Optional(Ref),
    folder: Type.Optional(Type.Union([Ref, Type.Null()])),
    name: Name,
    description: Type.Optional(Description),
  },
  { additionalProperties: false, description: 'Without `space`, the install names one with `space_id`.' },
);
export const FieldResource = Type.Object(
  {
    ref: Ref,
    database: Ref,
    name: FieldName,
    api_name: ApiName,
    type: Type.String({ minLength: 1, maxLength: 50 }),
    options: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "The type's options; fields are named by api_name, choices travel as select_option resources." })),
    is_title: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);
export const SelectOptionResource = Type.Object(
  { ref: Ref, field: Ref, label: Type.String({ minLength: 1, maxLength: 100 }), color: Type.Optional(Type.Union(COLORS.map((c) => Type.Literal(c)))) },
  { additionalProperties: false },
);
type DatabaseResource = Static<typeof DatabaseResource>;
type FieldResource = Static<typeof FieldResource>;
type SelectOptionResource = Static<typeof SelectOptionResource>;

const SELECT_TYPES = new Set(['single_select', 'multi_select']);

interface Deps {
  authz: () => Authz;
  databases: () => DatabaseService;
  fields: () => FieldService;
  options: () => OptionService;
  convert: () => ConvertService;
  types: FieldTypeRegistry;
}

/** A type computed from other fields (lookups, rollups): exported after every plain field, so what it reads is there first. */
function isComputed(type: FieldType | undefined): boolean {
  return !!type && !type.column && !type.systemColumn;
}

/**
 * The databases plugin's part in packs: `database`, `field` and `select_option`. A database is made with its title field
 * and the system fields; the pack's own take those over (the title field, then one per system type), and the system
 * fields the pack does not have go, so an installed database is what was exported.
 */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('databases', (kinds) => [
    ...kinds,
    { kind: 'database', plugin: 'databases', after: ['space', 'folder'], schema: DatabaseResource, part: false },
    { kind: 'field', plugin: 'databases', after: ['database', 'relation'], schema: FieldResource, part: true },
    { kind: 'select_option', plugin: 'databases', after: ['field'], schema: SelectOptionResource, part: true },
  ]);

  hooks.export.for('database').tapPromise('databases', async (resources, { trx, actor, grant, scope, refs }) => {
    const inSpaces = refs.ids('space');
    const rows = (inSpaces.length ? await trx('databases').whereIn('space_id', inSpaces).where({ workspace_id: grant.workspaceId }).orderBy(['created_at', 'id']).select('*') : []) as DbRow[];
    for (const id of scope.databaseIds) {
      const held = await deps.authz().holds(actor, grant.access, 'database', id, 'creator', trx);
      if (held === 'unseen') throw notFound('No such database in this workspace.');
      if (held === 'weaker') throw forbidden('Exporting a database needs the creator role on it.');
      if (!rows.some((r) => r.id === id)) rows.push(await trx('databases').where({ id }).first('*'));
    }
    const spaceOrder = new Map(inSpaces.map((id, i) => [id, i]));
    rows.sort((a, b) => (spaceOrder.get(a.space_id) ?? Infinity) - (spaceOrder.get(b.space_id) ?? Infinity));
    return [
      ...resources,
      ...rows.map((row) => {
        const space = refs.find('space', row.space_id);
        return {
          ref: refs.ref('database', row.id),
          ...(space ? { space } : {}),
          folder: (row.folder_id && refs.find('folder', row.folder_id)) || null,
          name: row.name,
          description: row.description,
        };
      }),
    ];
  });

  hooks.export.for('field').tapPromise('databases', async (resources, { trx, refs }) => {
    const databaseIds = refs.ids('database');
    if (databaseIds.length === 0) return resources;
    const rows = (await trx('fields').whereIn('database_id', databaseIds).whereNull('deleted_at').orderBy([{ column: 'is_title', order: 'desc' }, 'position']).select('*')) as FieldRow[];
    const order = new Map(databaseIds.map((id, i) => [id, i]));
    const exported = rows
      .filter((row) => !deps.types.get(row.type)?.managedBy)
      .sort((a, b) => Number(isComputed(deps.types.get(a.type))) - Number(isComputed(deps.types.get(b.type))) || order.get(a.database_id)! - order.get(b.database_id)!);
    return [
      ...resources,
      ...exported.map((row) => {
        const { choices: _choices, ...options } = row.options as { choices?: unknown };
        return {
          ref: refs.ref('field', row.id),
          database: refs.find('database', row.database_id)!,
          name: row.name,
          api_name: row.api_name,
          type: row.type,
          options,
          ...(row.is_title ? { is_title: true } : {}),
        };
      }),
    ];
  });

  hooks.export.for('select_option').tapPromise('databases', async (resources, { trx, refs }) => {
    const fieldIds = refs.ids('field');
    if (fieldIds.length === 0) return resources;
    const rows = (await trx('fields').whereIn('id', fieldIds).whereIn('type', [...SELECT_TYPES]).select('id', 'options')) as FieldRow[];
    const byId = new Map(rows.map((r) => [r.id, r]));
    const out: PackResource[] = [...resources];
    for (const id of fieldIds) {
      for (const choice of ((byId.get(id)?.options as { choices?: Choice[] })?.choices ?? [])) {
        out.push({ ref: refs.ref('select_option', choice.id), field: refs.find('field', id)!, label: choice.label, color: choice.color });
      }
    }
    return out;
  });

  hooks.install.for('database').tapPromise('databases', async (req) => {
    const resource = req.resource as DatabaseResource;
    const containers: Array<{ kind: string; ref: string }> = [];
    let spaceId: string;
    if (resource.space) {
      spaceId = req.refs.id('space', resource.space, '/space');
      containers.push({ kind: 'space', ref: resource.space });
    } else if (req.target.spaceId) {
      spaceId = req.target.spaceId;
    } else {
      throw invalidField('/space', 'This database names no space: install with `space_id`, or put its space in the pack.');
    }
    const folderId = resource.folder ? req.refs.id('folder', resource.folder, '/folder') : null;
    if (resource.folder) containers.push({ kind: 'folder', ref: resource.folder });
    const names = (await req.trx('databases').where({ space_id: spaceId }).pluck('name')) as string[];
    const created = await atResourcePointers(() =>
      deps.databases().create(req.actor, req.grant, { name: uniqueName(resource.name.trim(), names), space_id: spaceId, folder_id: folderId, description: resource.description ?? undefined }, req.trx),
    );
    await stampMadeNow(req.trx, 'databases', created.id);
    await dropUnclaimedStarters(req, resource.ref, created.id);
    return { id: created.id, action: 'create', containers };
  });

  hooks.install.for('field').tapPromise('databases', async (req) => {
    const resource = req.resource as FieldResource;
    const databaseId = req.refs.id('database', resource.database, '/database');
    const type = deps.types.get(resource.type);
    if (!type) throw invalidField('/type', `Unknown field type "${resource.type}". Known: ${deps.types.names().join(', ')}.`);
    if (type.managedBy) throw invalidField('/type', `A ${type.type} field is made by the ${type.managedBy} plugin: it travels as that plugin's resource (a link as a relation).`);
    if (resource.options && 'choices' in resource.options) throw invalidField('/options/choices', 'Choices travel as select_option resources, each naming its field.');
    const containers = [{ kind: 'database', ref: resource.database }];
    const starter = await claimStarter(req, databaseId, resource, type);
    if (!starter) {
      const field = await deps.fields().create(req.actor, req.workspaceId, databaseId, { name: resource.name, api_name: resource.api_name, type: resource.type, options: resource.options }, req.trx);
      return { id: field.id, action: 'create', containers };
    }
    if (starter.type !== resource.type) {
      await deps.convert().convert(req.actor, req.workspaceId, databaseId, starter.id, { type: resource.type, options: resource.options }, req.trx);
    }
    const patch = {
      ...(starter.name !== resource.name ? { name: resource.name } : {}),
      ...(starter.api_name !== resource.api_name ? { api_name: resource.api_name } : {}),
      ...(starter.type === resource.type && resource.options && Object.keys(resource.options).length > 0 ? { options: resource.options } : {}),
    };
    if (Object.keys(patch).length > 0) await deps.fields().update(req.actor, req.workspaceId, databaseId, starter.id, patch, req.trx);
    return { id: starter.id, action: 'create', containers };
  });

  hooks.install.for('select_option').tapPromise('databases', async (req) => {
    const resource = req.resource as SelectOptionResource;
    const fieldId = req.refs.id('field', resource.field, '/field');
    const field = (await req.trx('fields').where({ id: fieldId }).first('database_id', 'type')) as Pick<FieldRow, 'database_id' | 'type'>;
    if (!SELECT_TYPES.has(field.type)) throw invalidField('/field', `Options belong to select fields; this field is a ${field.type}.`);
    const choice = await deps.options().add(req.actor, req.workspaceId, field.database_id, fieldId, { label: resource.label, ...(resource.color ? { color: resource.color } : {}) }, req.trx);
    return { id: choice.id, action: 'create', containers: [{ kind: 'field', ref: resource.field }] };
  });

  hooks.stamp.for('database').tapPromise('databases', async (_stamp, { db, workspaceId, id }) => {
    const row = (await db('databases').where({ id, workspace_id: workspaceId }).first('*')) as DbRow | undefined;
    if (!row) return null;
    const fields = await db('fields').where({ database_id: id }).whereNull('deleted_at').orderBy('id').pluck('id');
    return `${row.name}|${row.description}|${row.folder_id}|${row.updated_at.toISOString()}|fields:${fields.join(',')}`;
  });
  // A space or folder holding a database it did not have (or no longer holding one) has changed.
  for (const kind of ['space', 'folder'] as const) {
    hooks.stamp.for(kind).tapPromise('databases', async (stamp, { db, id }) => {
      if (stamp === null) return null;
      const ids = await db('databases').where(kind === 'space' ? { space_id: id, folder_id: null } : { folder_id: id }).orderBy('id').pluck('id');
      return `${stamp}|databases:${ids.join(',')}`;
    });
  }
  hooks.stamp.for('field').tapPromise('databases', async (_stamp, { db, workspaceId, id }) => {
    const row = (await db('fields').where({ id, workspace_id: workspaceId }).first('*')) as FieldRow | undefined;
    if (!row) return null;
    const { choices: _choices, ...options } = row.options as { choices?: unknown };
    return `${row.name}|${row.api_name}|${row.type}|${JSON.stringify(options)}|${row.deleted_at ? 'deleted' : 'live'}`;
  });
  hooks.stamp.for('select_option').tapPromise('databases', async (_stamp, { db, workspaceId, id }) => {
    const rows = (await db('fields').where({ workspace_id: workspaceId }).whereIn('type', [...SELECT_TYPES]).whereRaw("options->'choices' @> ?::jsonb", [JSON.stringify([{ id }])]).select('options')) as FieldRow[];
    const choice = rows.flatMap((r) => (r.options as { choices: Choice[] }).choices).find((c) => c.id === id);
    return choice ? `${choice.label}|${choice.color}` : null;
  });

  hooks.remove.for('database').tapPromise('databases', async ({ trx, actor, workspaceId, id }) => {
    const row = (await trx('databases').where({ id, workspace_id: workspaceId }).first('name')) as { name: string } | undefined;
    if (row) await deps.databases().delete(actor, workspaceId, id, row.name, trx);
    return true;
  });
}

type DbRow = { id: string; workspace_id: string; space_id: string; folder_id: string | null; name: string; description: string | null; updated_at: Date };

const RESOURCE_POINTERS: Record<string, string> = { '/space_id': '/space', '/folder_id': '/folder' };

/** The database service's pointers into its own body (`/space_id`) said at the resource's properties (`/space`). */
async function atResourcePointers<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof AppError) || err.status !== 422 || !err.errors) throw err;
    throw validationFailed(err.errors.map((e) => ({ pointer: RESOURCE_POINTERS[e.pointer] ?? e.pointer, detail: e.detail })));
  }
}

/** Drops the system fields a new database was made with that no field of the pack takes over (one per field of that type). */
async function dropUnclaimedStarters(req: InstallRequest, databaseRef: string, databaseId: string): Promise<void> {
  const wanted = new Map<string, number>();
  for (const f of (req.pack.resources.field ?? []) as FieldResource[]) {
    if (f.database === databaseRef && !f.is_title) wanted.set(f.type, (wanted.get(f.type) ?? 0) + 1);
  }
  const starters = (await req.trx('fields').where({ database_id: databaseId, is_title: false }).orderBy('position').select('id', 'type')) as FieldRow[];
  const drop: string[] = [];
  for (const starter of starters) {
    const left = wanted.get(starter.type) ?? 0;
    if (left > 0) wanted.set(starter.type, left - 1);
    else drop.push(starter.id);
  }
  // Made a moment ago in this transaction, reading system columns: no value to keep in a trash.
  if (drop.length > 0) await req.trx('fields').whereIn('id', drop).delete();
}

/** The field of the new database a resource takes over: its title field, or a system field of its type not taken yet. */
async function claimStarter(req: InstallRequest, databaseId: string, resource: FieldResource, type: FieldType): Promise<FieldRow | undefined> {
  const key = `databases:claimed:${databaseId}`;
  const claimed = (req.memo.get(key) as Set<string> | undefined) ?? new Set<string>();
  req.memo.set(key, claimed);
  let starter: FieldRow | undefined;
  if (resource.is_title) {
    starter = (await req.trx('fields').where({ database_id: databaseId, is_title: true }).first('*')) as FieldRow | undefined;
    if (starter && claimed.has(starter.id)) throw invalidField('/is_title', 'A database has one title field; another field of the pack is its title already.');
  } else if (type.systemColumn) {
    const rows = (await req.trx('fields').where({ database_id: databaseId, type: resource.type, is_title: false }).whereNull('deleted_at').orderBy('position').select('*')) as FieldRow[];
    starter = rows.find((r) => !claimed.has(r.id));
  }
  if (starter) claimed.add(starter.id);
  return starter;
}
