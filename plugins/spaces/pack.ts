import { forbidden, notFound, AppError } from '../../core/errors.ts';
import { Type, type Static } from '../../core/schema.ts';
import type { AccessGrant, Authz } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Db } from '../../core/db.ts';
import { Ref, stampMadeNow, uniqueName, type PackHooks, type PackResource } from '../packs/public.ts';
import type { SpaceService } from './spaces.service.ts';
import type { FolderService } from './folders.service.ts';
import { Description, Name } from './schemas.ts';

/** A space in a pack: what a user typed, nothing about who made it. */
export const SpaceResource = Type.Object({ ref: Ref, name: Name, description: Type.Optional(Description) }, { additionalProperties: false });
/** A folder in a pack: its space and parent folder by ref. */
export const FolderResource = Type.Object(
  { ref: Ref, space: Ref, parent: Type.Optional(Type.Union([Ref, Type.Null()])), name: Name },
  { additionalProperties: false },
);
type SpaceResource = Static<typeof SpaceResource>;
type FolderResource = Static<typeof FolderResource>;

interface Deps {
  authz: () => Authz;
  spaces: () => SpaceService;
  folders: () => FolderService;
}

/** The spaces plugin's part in packs: `space` and `folder`. */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('spaces', (kinds) => [
    ...kinds,
    { kind: 'space', plugin: 'spaces', after: [], schema: SpaceResource, part: false },
    { kind: 'folder', plugin: 'spaces', after: ['space'], schema: FolderResource, part: false },
  ]);

  hooks.export.for('space').tapPromise('spaces', async (resources, { trx, actor, grant, scope, refs }) => {
    const out: PackResource[] = [...resources];
    for (const id of scope.spaceIds) {
      await demandCreator(deps.authz(), trx, actor, grant.access, id);
      const row = await trx('spaces').where({ id, workspace_id: grant.workspaceId }).first('name', 'description');
      out.push({ ref: refs.ref('space', id), name: row.name, description: row.description });
    }
    return out;
  });

  hooks.export.for('folder').tapPromise('spaces', async (resources, { trx, refs }) => {
    const spaceIds = refs.ids('space');
    if (spaceIds.length === 0) return resources;
    const rows = (await trx('folders').whereIn('space_id', spaceIds).orderBy(['created_at', 'id']).select('id', 'space_id', 'parent_id', 'name')) as FolderRow[];
    const out: PackResource[] = [...resources];
    // Parents before children, so that an install finds each parent made.
    for (const row of treeOrder(rows)) {
      out.push({ ref: refs.ref('folder', row.id), space: refs.find('space', row.space_id)!, parent: row.parent_id ? refs.find('folder', row.parent_id)! : null, name: row.name });
    }
    return out;
  });

  hooks.install.for('space').tapPromise('spaces', async (req) => {
    const resource = req.resource as SpaceResource;
    // The packs plugin checked `space_id` before the install began.
    if (req.target.spaceId) return { id: req.target.spaceId, action: 'reuse', containers: [] };
    const names = (await req.trx('spaces').where({ workspace_id: req.workspaceId }).pluck('name')) as string[];
    const space = await deps.spaces().create(req.actor, req.workspaceId, { name: uniqueName(resource.name.trim(), names), description: resource.description ?? undefined }, req.trx);
    await stampMadeNow(req.trx, 'spaces', space.id);
    return { id: space.id, action: 'create', containers: [] };
  });

  hooks.install.for('folder').tapPromise('spaces', async (req) => {
    const resource = req.resource as FolderResource;
    const spaceId = req.refs.id('space', resource.space, '/space');
    const parentId = resource.parent ? req.refs.id('folder', resource.parent, '/parent') : null;
    const siblings = (await req.trx('folders').where({ space_id: spaceId, parent_id: parentId }).pluck('name')) as string[];
    const folder = await deps.folders().create(req.actor, req.workspaceId, spaceId, { name: uniqueName(resource.name.trim(), siblings), ...(parentId ? { parent_id: parentId } : {}) }, req.trx);
    await stampMadeNow(req.trx, 'folders', folder.id);
    const containers = [{ kind: 'space', ref: resource.space }, ...(resource.parent ? [{ kind: 'folder', ref: resource.parent }] : [])];
    return { id: folder.id, action: 'create', containers };
  });

  hooks.stamp.for('space').tapPromise('spaces', async (_stamp, { db, workspaceId, id }) => {
    const row = await db('spaces').where({ id, workspace_id: workspaceId }).first('name', 'description', 'updated_at');
    if (!row) return null;
    const folders = await db('folders').where({ space_id: id }).orderBy('id').pluck('id');
    return `${row.name}|${row.description}|${row.updated_at.toISOString()}|folders:${folders.join(',')}`;
  });

  hooks.stamp.for('folder').tapPromise('spaces', async (_stamp, { db, workspaceId, id }) => {
    const row = await db('folders').where({ id, workspace_id: workspaceId }).first('name', 'parent_id', 'updated_at');
    if (!row) return null;
    const children = await db('folders').where({ parent_id: id }).orderBy('id').pluck('id');
    return `${row.name}|${row.parent_id}|${row.updated_at.toISOString()}|folders:${children.join(',')}`;
  });

  hooks.remove.for('space').tapPromise('spaces', async ({ trx, actor, workspaceId, id }) => {
    await goneIsFine(() => deps.spaces().delete(actor, workspaceId, id, trx));
    return true;
  });

  hooks.remove.for('folder').tapPromise('spaces', async ({ trx, actor, workspaceId, id }) => {
    await goneIsFine(() => deps.folders().delete(actor, workspaceId, id, trx));
    return true;
  });
}

type FolderRow = { id: string; space_id: string; parent_id: string | null; name: string };

function treeOrder(rows: FolderRow[]): FolderRow[] {
  const out: FolderRow[] = [];
  const placed = new Set<string>();
  let level = rows.filter((r) => !r.parent_id);
  while (level.length > 0) {
    out.push(...level);
    for (const r of level) placed.add(r.id);
    level = rows.filter((r) => r.parent_id && !placed.has(r.id) && placed.has(r.parent_id));
  }
  return out;
}

/** `creator` on a space: unseen → 404 (never reveal it), weaker → 403. */
async function demandCreator(authz: Authz, trx: Db, actor: UserPrincipal, access: AccessGrant['access'], spaceId: string): Promise<void> {
  const held = await authz.holds(actor, access, 'space', spaceId, 'creator', trx);
  if (held === 'unseen') throw notFound('No such space in this workspace.');
  if (held === 'weaker') throw forbidden('Exporting or installing into a space needs the creator role there.');
}

async function goneIsFine(remove: () => Promise<void>): Promise<void> {
  try {
    await remove();
  } catch (err) {
    if (!(err instanceof AppError && err.status === 404)) throw err;
  }
}
