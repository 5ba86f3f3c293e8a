import { AppError, forbidden, invalidField, validationFailed } from '../../core/errors.ts';
import { inSavepoint, inTransaction, type Db, type Trx } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { Host } from '../../core/host.ts';
import type { AccessGrant, Authz } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { escapePointer } from '../../core/schema.ts';
import type { Installed, PackHooks } from './hooks.ts';
import type { KindCatalogue } from './kind-catalogue.ts';
import { DependsOnFailed, InstallRefs } from './refs.ts';
import { checkPack, underPack } from './pack-check.ts';
import type { LedgerService, LedgerItem, InstallSource } from './ledger.service.ts';
import type { DryRun, InstallResult, Pack, Problem } from './schemas.ts';

export interface InstallOptions {
  spaceId?: string;
  dryRun: boolean;
  source: InstallSource;
  /** Runs in the install's transaction once it succeeded (the marketplace counts installs). */
  onInstalled?: (trx: Trx) => Promise<void>;
}

/** Carries a finished dry run (or a failed install) out of the transaction it rolls back. */
class RollBack extends Error {
  constructor(readonly outcome: DryRun) {
    super('rolled back');
  }
}

/**
 * Installs a pack through every owner's `install` tap, kind by kind, in one transaction: a problem anywhere rolls
 * all of it back. A dry run goes through the very same steps and rolls back at the end, so its plan and problems are
 * what a real install would meet. Each resource runs in a savepoint, so one failing does not hide the next problems.
 */
export class InstallService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly host: Host,
    private readonly authz: Authz,
    private readonly hooks: PackHooks,
    private readonly kinds: KindCatalogue,
    private readonly ledger: LedgerService,
    private readonly maxResources: number,
  ) {}

  async install(actor: UserPrincipal, grant: AccessGrant, input: unknown, opts: InstallOptions): Promise<DryRun | InstallResult> {
    const { pack, problems } = checkPack(input, this.kinds, this.host, this.maxResources);
    if (!pack || problems.length > 0) return this.refuse(problems, opts.dryRun);
    if (opts.spaceId) await this.checkTarget(actor, grant, opts.spaceId);
    try {
      return await inTransaction(this.db, async (trx) => {
        const { items, plan, problems, secrets } = await this.installAll(trx, actor, grant, pack, opts);
        if (opts.dryRun || problems.length > 0) throw new RollBack({ plan, problems });
        const installId = await this.ledger.record(trx, grant.workspaceId, actor.user.id, pack, opts.source, items);
        await opts.onInstalled?.(trx);
        await this.events.emit(trx, {
          name: 'pack.installed',
          workspaceId: grant.workspaceId,
          actorId: actor.user.id,
          payload: { install_id: installId, name: pack.name, version: pack.version, source: opts.source },
        });
        return { install_id: installId, created: createdByKind(items), ...(secrets.length > 0 ? { secrets } : {}) };
      });
    } catch (err) {
      if (err instanceof RollBack) return this.refuse(err.outcome.problems, opts.dryRun, err.outcome.plan);
      throw err;
    }
  }

  /** `space_id` names a space of this workspace where the caller is a creator (422 at `/space_id` otherwise, 403 when its role is weaker). */
  private async checkTarget(actor: UserPrincipal, grant: AccessGrant, spaceId: string): Promise<void> {
    const held = await this.authz.holds(actor, grant.access, 'space', spaceId, 'creator');
    if (held === 'unseen') throw invalidField('/space_id', 'No such space in this workspace.');
    if (held === 'weaker') throw forbidden('Installing into this space needs the creator role there.');
  }

  private refuse(inPack: Problem[], dryRun: boolean, plan: DryRun['plan'] = []): DryRun {
    const problems = underPack(inPack);
    if (dryRun) return { plan, problems };
    throw validationFailed(problems, problems.length === 1 ? `The pack cannot be installed: ${problems[0].detail}` : `The pack cannot be installed: ${problems.length} problems.`);
  }

  private async installAll(trx: Trx, actor: UserPrincipal, grant: AccessGrant, pack: Pack, opts: InstallOptions) {
    const declared = new Set<string>();
    for (const [kind, resources] of Object.entries(pack.resources)) for (const r of resources) declared.add(InstallRefs.key(kind, r.ref));
    const refs = new InstallRefs(declared);
    const memo = new Map<string, unknown>();
    const target = { spaceId: opts.spaceId, packName: pack.name };
    const items: LedgerItem[] = [];
    const plan: DryRun['plan'] = [];
    const problems: Problem[] = [];
    const secrets: Array<{ kind: string; ref: string; id: string; secret: string }> = [];

    for (const { kind } of this.kinds.all()) {
      const resources = pack.resources[kind] ?? [];
      for (const [i, resource] of resources.entries()) {
        const pointer = `/resources/${escapePointer(kind)}/${i}`;
        let installed: Installed | undefined;
        try {
          installed = await inSavepoint(trx, (savepoint) =>
            this.hooks.install.for(kind).promise({ trx: savepoint, actor, grant, workspaceId: grant.workspaceId, resource, pointer, pack, target, refs, memo }),
          );
        } catch (err) {
          refs.fail(kind, resource.ref);
          if (err instanceof DependsOnFailed) continue;
          if (!(err instanceof AppError) || err.status === 403 || err.status === 404) throw err;
          problems.push(...problemsOf(err, pointer));
          continue;
        }
        if (!installed) {
          refs.fail(kind, resource.ref);
          problems.push({ pointer, detail: `No enabled plugin installs ${kind} resources.` });
          continue;
        }
        refs.set(kind, resource.ref, installed.id);
        plan.push({ kind, ref: resource.ref, action: installed.action });
        if (installed.action === 'create') items.push({ kind, ref: resource.ref, id: installed.id, containers: installed.containers });
        if (installed.secret) secrets.push({ kind, ref: resource.ref, id: installed.id, secret: installed.secret });
      }
    }
    try {
      problems.push(...(await inSavepoint(trx, (savepoint) => this.hooks.finish.promise([], { trx: savepoint, actor, grant, workspaceId: grant.workspaceId, pack, refs, memo }))));
    } catch (err) {
      if (!(err instanceof AppError) || err.status === 403 || err.status === 404) throw err;
      problems.push(...problemsOf(err, ''));
    }
    return { items, plan, problems, secrets };
  }
}

/** A tap's error, its pointers (relative to the resource) moved under the resource's place in the pack. */
function problemsOf(err: AppError, pointer: string): Problem[] {
  if (err.errors?.length) return err.errors.map((e) => ({ pointer: `${pointer}${e.pointer}`, detail: e.detail }));
  return [{ pointer, detail: err.detail }];
}

function createdByKind(items: LedgerItem[]): InstallResult['created'] {
  const out: InstallResult['created'] = {};
  for (const item of items) (out[item.kind] ??= []).push({ ref: item.ref, id: item.id });
  return out;
}
