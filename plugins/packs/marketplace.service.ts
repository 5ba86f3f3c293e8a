import { randomUUID } from 'node:crypto';
import semver from 'semver';
import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { Host } from '../../core/host.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { containsPattern } from '../../core/like-pattern.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import { PackErrors } from './errors.ts';
import type { KindCatalogue } from './kind-catalogue.ts';
import { checkPack, underPack } from './pack-check.ts';
import type { MarketplaceQuery, Pack, PublishedPack } from './schemas.ts';

type PublishedRow = {
  id: string;
  workspace_id: string;
  publisher_name: string;
  name: string;
  version: string;
  description: string;
  public: boolean;
  pack: Pack;
  installs: number;
  latest: boolean;
  created_at: Date;
};

const LISTED = ['id', 'workspace_id', 'publisher_name', 'name', 'version', 'description', 'public', 'installs', 'created_at'];

/**
 * Packs published from workspaces for every user of the instance. A name belongs to the workspace that first
 * published it; each publication is a new, higher version, kept as it was (an install names the exact version).
 */
export class MarketplaceService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly host: Host,
    private readonly kinds: KindCatalogue,
    private readonly workspaces: WorkspaceService,
    private readonly maxResources: number,
  ) {}

  async publish(actor: UserPrincipal, workspaceId: string, input: unknown, isPublic: boolean): Promise<PublishedPack> {
    const { pack, problems } = checkPack(input, this.kinds, this.host, this.maxResources);
    if (!pack || problems.length > 0) throw validationFailed(underPack(problems));
    return inTransaction(this.db, async (trx) => {
      const publisher = await this.workspaces.hold(trx, workspaceId);
      // One publication of a name at a time: the version check and the insert see the same versions.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`packs:marketplace:${pack.name.toLowerCase()}`]);
      const versions = (await trx('marketplace_packs').whereRaw('lower(name) = ?', [pack.name.toLowerCase()]).select('workspace_id', 'version')) as Array<Pick<PublishedRow, 'workspace_id' | 'version'>>;
      if (versions.some((v) => v.workspace_id !== workspaceId)) throw PackErrors.name_taken(pack.name);
      const latest = versions.map((v) => v.version).sort(semver.rcompare)[0];
      if (latest && !semver.gt(pack.version, latest)) throw PackErrors.version_not_higher(pack.name, latest);
      await trx('marketplace_packs').whereRaw('lower(name) = ?', [pack.name.toLowerCase()]).update({ latest: false });
      const [row] = (await trx('marketplace_packs')
        .insert({
          id: randomUUID(),
          workspace_id: workspaceId,
          publisher_name: publisher.name,
          name: pack.name,
          version: pack.version,
          description: pack.description ?? '',
          public: isPublic,
          pack: JSON.stringify(pack),
          published_by: actor.user.id,
        })
        .returning(LISTED)) as PublishedRow[];
      const published = present(row);
      await this.events.emit(trx, { name: 'pack.published', workspaceId, actorId: actor.user.id, payload: { pack: published } });
      return published;
    });
  }

  /** The newest version of every published name, newest first; `q` matches the name or the description. */
  async list(query: MarketplaceQuery, onlyPublic = false): Promise<Page<PublishedPack>> {
    const q = this.db('marketplace_packs').where({ latest: true }).select(LISTED);
    if (onlyPublic) q.where({ public: true });
    if (query.q) q.where((w) => w.whereILike('name', containsPattern(query.q!)).orWhereILike('description', containsPattern(query.q!)));
    const page = await keysetPage<PublishedRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, query);
    return { data: page.data.map(present), next_cursor: page.next_cursor };
  }

  async get(id: string): Promise<PublishedPack & { pack: Pack }> {
    const row = (await this.db('marketplace_packs').where({ id }).first([...LISTED, 'pack'])) as PublishedRow | undefined;
    if (!row) throw notFound('No such published pack.');
    return { ...present(row), pack: row.pack };
  }

  /** Counted in the install's transaction: an install that rolls back is not one. */
  async countInstall(trx: Db, id: string): Promise<void> {
    await trx('marketplace_packs').where({ id }).increment('installs', 1);
  }
}

function present(row: PublishedRow): PublishedPack {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    description: row.description,
    publisher: { workspace_id: row.workspace_id, name: row.publisher_name },
    public: row.public,
    installs: row.installs,
    created_at: row.created_at.toISOString(),
  };
}
