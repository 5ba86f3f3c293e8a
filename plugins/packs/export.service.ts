import semver from 'semver';
import { invalidField } from '../../core/errors.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import type { Host } from '../../core/host.ts';
import type { AccessGrant } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { PackHooks, PackResource } from './hooks.ts';
import type { KindCatalogue } from './kind-catalogue.ts';
import { ExportRefs } from './refs.ts';
import { PACK_FORMAT, PACK_FORMAT_VERSION, type ExportBody, type Pack } from './schemas.ts';

/**
 * Exports the spaces or databases named, asking each kind's owner in install order, inside one read transaction so
 * that the pack is one consistent picture. `requires` names the owner of every kind present, from its major version.
 */
export class ExportService {
  constructor(
    private readonly db: Db,
    private readonly host: Host,
    private readonly hooks: PackHooks,
    private readonly kinds: KindCatalogue,
  ) {}

  async export(actor: UserPrincipal, grant: AccessGrant, body: ExportBody): Promise<Pack> {
    if (!body.space_ids && !body.database_ids && !body.include) throw invalidField('/space_ids', 'Name the spaces (`space_ids`), the databases (`database_ids`) or the optional kinds (`include`) to export.');
    const include = [...(body.include ?? []), ...(body.include_records ? ['record'] : [])];
    for (const [i, kind] of (body.include ?? []).entries()) {
      if (!this.kinds.get(kind)?.optional) throw invalidField(`/include/${i}`, `"${kind}" is not an optional kind of this instance; those are: ${this.kinds.all().filter((k) => k.optional).map((k) => k.kind).join(', ')}.`);
    }
    const scope = { spaceIds: body.space_ids ?? [], databaseIds: body.database_ids ?? [], include };
    const refs = new ExportRefs();
    const resources: Record<string, PackResource[]> = {};
    await inTransaction(this.db, async (trx) => {
      for (const kind of this.kinds.all()) {
        if (kind.optional && !include.includes(kind.kind)) continue;
        const list = await this.hooks.export.for(kind.kind).promise([], { trx, actor, grant, workspaceId: grant.workspaceId, scope, refs });
        if (list.length > 0) resources[kind.kind] = list;
      }
    });
    const versions = new Map(this.host.pluginStatuses().map((p) => [p.id, p.version]));
    const requires: Record<string, string> = {};
    for (const kind of this.kinds.all()) {
      if (!resources[kind.kind]) continue;
      const version = versions.get(kind.plugin);
      if (version) requires[kind.plugin] = `^${semver.major(version)}.${semver.major(version) === 0 ? semver.minor(version) : 0}.0`;
    }
    return {
      format: PACK_FORMAT,
      format_version: PACK_FORMAT_VERSION,
      name: body.name ?? defaultName(resources),
      description: body.description ?? '',
      version: body.version ?? '1.0.0',
      requires: Object.fromEntries(Object.entries(requires).sort(([a], [b]) => a.localeCompare(b))),
      resources,
    };
  }
}

/** The name of the first resource that has one, in install order: the first space, else the first database. */
function defaultName(resources: Record<string, PackResource[]>): string {
  for (const list of Object.values(resources)) {
    const name = list[0]?.name;
    if (typeof name === 'string') return name;
  }
  return 'Exported pack';
}
