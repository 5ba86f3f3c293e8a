import { createHash, randomUUID } from 'node:crypto';
import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { AccessGrant } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { notFound } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { PackHooks } from './hooks.ts';
import type { KindCatalogue } from './kind-catalogue.ts';
import type { Pack, PackInstall, Uninstalled } from './schemas.ts';

export interface InstallSource {
  type: 'upload' | 'template' | 'marketplace';
  id: string | null;
}

/** One resource an install made, and the resources of the same install it sits in. */
export interface LedgerItem {
  kind: string;
  ref: string;
  id: string;
  containers: Array<{ kind: string; ref: string }>;
}

type InstallRow = {
  id: string;
  workspace_id: string;
  name: string;
  version: string;
  source_type: InstallSource['type'];
  source_id: string | null;
  installed_by: string | null;
  created_at: Date;
};
type ItemRow = { install_id: string; position: number; kind: string; ref: string; resource_id: string; containers: LedgerItem['containers']; stamp: string };

const KEPT_CHANGED = 'changed since the install';
const KEPT_HOLDS = 'holds something kept';
const KEPT_INSIDE = 'part of something kept';

/**
 * The ledger of installs: what each made, with a fingerprint (`stamp`) of every resource as the install left it.
 * Uninstall removes what still has that fingerprint and keeps the rest: what a user changed, what holds something
 * kept (a space with a database someone added rows to), and the parts of what is kept (the fields of a kept database).
 */
export class LedgerService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly hooks: PackHooks,
    private readonly kinds: KindCatalogue,
  ) {}

  async record(trx: Db, workspaceId: string, userId: string, pack: Pack, source: InstallSource, items: LedgerItem[]): Promise<string> {
    const id = randomUUID();
    await trx('pack_installs').insert({ id, workspace_id: workspaceId, name: pack.name, version: pack.version, source_type: source.type, source_id: source.id, installed_by: userId });
    const rows: ItemRow[] = [];
    const ids = new Map(items.map((i) => [keyOf(i), i.id]));
    for (const [position, item] of items.entries()) {
      const stamp = await this.stampOf(trx, workspaceId, item.kind, item.id, withinOf(item.containers, ids));
      rows.push({ install_id: id, position, kind: item.kind, ref: item.ref, resource_id: item.id, containers: item.containers, stamp: stamp ?? '' });
    }
    for (let i = 0; i < rows.length; i += 500) {
      await trx('pack_install_items').insert(rows.slice(i, i + 500).map((r) => ({ ...r, containers: JSON.stringify(r.containers) })));
    }
    return id;
  }

  async list(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<PackInstall>> {
    const q = this.db('pack_installs').where({ workspace_id: workspaceId }).select('*');
    const result = await keysetPage<InstallRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    const items = result.data.length
      ? ((await this.db('pack_install_items').whereIn('install_id', result.data.map((r) => r.id)).orderBy(['install_id', 'position']).select('install_id', 'kind', 'ref', 'resource_id')) as ItemRow[])
      : [];
    return { data: result.data.map((row) => present(row, items.filter((i) => i.install_id === row.id))), next_cursor: result.next_cursor };
  }

  async uninstall(actor: UserPrincipal, grant: AccessGrant, installId: string): Promise<Uninstalled> {
    return inTransaction(this.db, async (trx) => {
      const install = (await trx('pack_installs').where({ id: installId, workspace_id: grant.workspaceId }).forUpdate().first()) as InstallRow | undefined;
      if (!install) throw notFound('No such install in this workspace.');
      const rows = (await trx('pack_install_items').where({ install_id: installId }).orderBy('position').select('*')) as ItemRow[];
      const outcome = await this.decide(trx, grant.workspaceId, rows);

      // A part goes with its container; anything else is removed on its own (a database in a folder outlives the
      // folder otherwise), last installed first.
      const parts = new Set(this.kinds.all().filter((k) => k.part).map((k) => k.kind));
      const roots = rows
        .filter((r) => outcome.removable.has(keyOf(r)) && !(parts.has(r.kind) && r.containers.some((c) => outcome.removable.has(`${c.kind}\u0000${c.ref}`))))
        .reverse();
      for (const root of roots) {
        const done = await this.hooks.remove.for(root.kind).promise({ trx, actor, grant, workspaceId: grant.workspaceId, id: root.resource_id });
        if (!done) outcome.kept.push({ kind: root.kind, id: root.resource_id, reason: 'no enabled plugin removes it' });
      }
      const keptIds = new Set(outcome.kept.map((k) => k.id));
      const removed = rows.filter((r) => outcome.removable.has(keyOf(r)) && !keptIds.has(r.resource_id)).map((r) => ({ kind: r.kind, id: r.resource_id }));
      await trx('pack_installs').where({ id: installId }).delete();
      await this.events.emit(trx, {
        name: 'pack.uninstalled',
        workspaceId: grant.workspaceId,
        actorId: actor.user.id,
        payload: { install_id: installId, name: install.name, removed: removed.length, kept: outcome.kept.length },
      });
      return { removed, kept: outcome.kept };
    });
  }

  /** Which items may go: unchanged, holding nothing kept, and not part of anything kept. Items that are gone are neither. */
  private async decide(trx: Db, workspaceId: string, rows: ItemRow[]) {
    const byKey = new Map(rows.map((r) => [keyOf(r), r]));
    const ids = new Map(rows.map((r) => [keyOf(r), r.resource_id]));
    const parts = new Set(this.kinds.all().filter((k) => k.part).map((k) => k.kind));
    const kept = new Map<string, string>();
    const gone = new Set<string>();
    for (const row of rows) {
      const stamp = await this.stampOf(trx, workspaceId, row.kind, row.resource_id, withinOf(row.containers, ids));
      if (stamp === null) gone.add(keyOf(row));
      else if (stamp !== row.stamp) kept.set(keyOf(row), KEPT_CHANGED);
    }
    for (let changed = true; changed; ) {
      changed = false;
      for (const row of rows) {
        const key = keyOf(row);
        if (gone.has(key)) continue;
        for (const c of row.containers) {
          const containerKey = `${c.kind}\u0000${c.ref}`;
          if (!byKey.has(containerKey) || gone.has(containerKey)) continue;
          if (kept.has(key) && !kept.has(containerKey)) {
            kept.set(containerKey, KEPT_HOLDS);
            changed = true;
          }
          if (kept.has(containerKey) && parts.has(row.kind) && !kept.has(key)) {
            kept.set(key, KEPT_INSIDE);
            changed = true;
          }
        }
      }
    }
    const removable = new Set(rows.map(keyOf).filter((k) => !gone.has(k) && !kept.has(k)));
    return {
      removable,
      kept: rows.filter((r) => kept.has(keyOf(r))).map((r) => ({ kind: r.kind, id: r.resource_id, reason: kept.get(keyOf(r))! })),
    };
  }

  private async stampOf(db: Db, workspaceId: string, kind: string, id: string, within: string[]): Promise<string | null> {
    const stamp = await this.hooks.stamp.for(kind).promise('', { db, workspaceId, id, within });
    return stamp === null ? null : createHash('sha256').update(stamp).digest('base64url');
  }
}

function keyOf(row: { kind: string; ref: string }): string {
  return `${row.kind}\u0000${row.ref}`;
}

function withinOf(containers: LedgerItem['containers'], ids: Map<string, string>): string[] {
  return containers.flatMap((c) => ids.get(keyOf(c)) ?? []);
}

function present(row: InstallRow, items: ItemRow[]): PackInstall {
  const created: PackInstall['created'] = {};
  for (const item of items) (created[item.kind] ??= []).push({ ref: item.ref, id: item.resource_id });
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    version: row.version,
    source: { type: row.source_type, id: row.source_id },
    created,
    installed_by: row.installed_by,
    created_at: row.created_at.toISOString(),
  };
}
