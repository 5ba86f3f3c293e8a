import { inTransaction, type Db } from '../../core/db.ts';
import { invalidField, notFound } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { KernelPrivacy, KernelScrubReport } from '../../core/privacy.ts';
import { GdprErrors } from './errors.ts';
import type { EraseReport, PersonIdentity, PersonalDataHooks } from './hooks.ts';
import type { ReceiptKey } from './receipt-key.ts';
import type { DataExports } from './exports.service.ts';
import type { Receipt } from './schemas.ts';

const TABLE = 'gdpr_erasures';

/** Thrown to roll a rehearsal back; never leaves this file. */
class Rehearsed extends Error {}

interface ReceiptRow {
  id: string;
  user_hash: string;
  workspace_id: string | null;
  erased_by: string;
  reports: EraseReport[] | string;
  created_at: Date;
}

function toReceipt(row: ReceiptRow): Receipt {
  const reports = typeof row.reports === 'string' ? (JSON.parse(row.reports) as EraseReport[]) : row.reports;
  return { id: row.id, user_hash: row.user_hash, workspace_id: row.workspace_id, erased_by: row.erased_by, reports, created_at: row.created_at.toISOString() };
}

/**
 * Erasure through the `erase` taps: one transaction per workspace, in which every tap does its part or, when one
 * throws, none does; then (instance admin) the account-wide part. The kernel's own copies are scrubbed in the
 * same transactions. What is answered and kept is a receipt without personal data.
 */
export class ErasureService {
  constructor(
    private readonly db: Db,
    private readonly hooks: PersonalDataHooks,
    private readonly privacy: KernelPrivacy,
    private readonly key: ReceiptKey,
    private readonly exports: DataExports,
  ) {}

  /** A workspace admin's erasure of a member from that workspace; the account stays. */
  async eraseFromWorkspace(actor: UserPrincipal, workspaceId: string, userId: string, confirm: string): Promise<Receipt> {
    const person = await this.person(userId, confirm, workspaceId);
    const userHash = await this.key.hash(person.email);
    return inTransaction(this.db, async (trx) => {
      const reports = await this.eraseIn(trx, actor, userId, person, workspaceId);
      return this.keep(trx, userHash, workspaceId, actor.user.id, reports);
    });
  }

  /**
   * An instance admin's erasure everywhere: each workspace in its own transaction, rehearsed first so that a
   * refusal in one (the last admin) leaves them all as they were; then the account and what hangs on it. Not one's own:
   * another instance admin erases it, so the instance never erases its last admin.
   */
  async eraseEverywhere(actor: UserPrincipal, userId: string, confirm: string): Promise<Receipt> {
    if (userId === actor.user.id) throw GdprErrors.self_erasure();
    const person = await this.person(userId, confirm);
    const userHash = await this.key.hash(person.email);
    const reports: EraseReport[] = [];
    const workspaceIds = await this.hooks.memberships.promise([], { trx: this.db, userId });
    await this.rehearse(actor, userId, person, workspaceIds);
    for (const workspaceId of workspaceIds) {
      reports.push(...(await inTransaction(this.db, (trx) => this.eraseIn(trx, actor, userId, person, workspaceId))));
    }
    return inTransaction(this.db, async (trx) => {
      // Before the account's taps: the account's deletion would take the rows along, and leave their files.
      const exports = await this.exports.forget(trx, userId);
      const account = await this.hooks.erase.promise([], { trx, userId, person, workspaceId: null, actor });
      const kernel = await this.privacy.scrub(trx, person);
      return this.keep(trx, userHash, null, actor.user.id, [...reports, ...account, exportsReport(exports), kernelReport(kernel)]);
    });
  }

  async list(page: { limit?: number; cursor?: string }): Promise<Page<Receipt>> {
    const query = this.db<ReceiptRow>(TABLE).select('*');
    const result = await keysetPage<ReceiptRow>(this.db, query, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    return { data: result.data.map(toReceipt), next_cursor: result.next_cursor };
  }

  /**
   * Every workspace's part, each rolled back: a tap that refuses one (its last admin) refuses before any
   * workspace is erased, so an erasure everywhere does all its workspaces or none.
   */
  private async rehearse(actor: UserPrincipal, userId: string, person: PersonIdentity, workspaceIds: string[]): Promise<void> {
    for (const workspaceId of workspaceIds) {
      await inTransaction(this.db, async (trx) => {
        await this.eraseIn(trx, actor, userId, person, workspaceId);
        throw new Rehearsed();
      }).catch((err: unknown) => {
        if (!(err instanceof Rehearsed)) throw err;
      });
    }
  }

  private async eraseIn(trx: Db, actor: UserPrincipal, userId: string, person: PersonIdentity, workspaceId: string): Promise<EraseReport[]> {
    const reports = await this.hooks.erase.promise([], { trx, userId, person, workspaceId, actor });
    const exports = await this.exports.forget(trx, userId, workspaceId);
    const kernel = await this.privacy.scrub(trx, person, workspaceId);
    return [...reports, exportsReport(exports), kernelReport(kernel)].map((r) => ({ ...r, workspace_id: workspaceId }));
  }

  /** The person, or 404 (unknown, or not a member of the workspace named); the confirmation must be their email. */
  private async person(userId: string, confirm: string, workspaceId?: string): Promise<PersonIdentity> {
    const person = await this.hooks.identify.promise({ trx: this.db, userId });
    if (!person) throw notFound('No such user.');
    if (workspaceId && !(await this.hooks.memberships.promise([], { trx: this.db, userId })).includes(workspaceId)) throw notFound('No such member.');
    if (confirm.trim().toLowerCase() !== person.email.toLowerCase()) throw invalidField('/confirm', "Type the user's email to confirm the erasure.");
    return person;
  }

  /** `userHash` is made before the transaction: the key may be read from the database the first time. */
  private async keep(trx: Db, user_hash: string, workspaceId: string | null, erasedBy: string, reports: EraseReport[]): Promise<Receipt> {
    const [row] = await trx<ReceiptRow>(TABLE).insert({ user_hash, workspace_id: workspaceId, erased_by: erasedBy, reports: JSON.stringify(reports) }).returning('*');
    return toReceipt(row!);
  }
}

function exportsReport(deleted: number): EraseReport {
  return { kind: 'data_exports', deleted, pseudonymised: 0, retained: [] };
}

function kernelReport(k: KernelScrubReport): EraseReport {
  const retained = k.events_redacted > 0 ? [{ what: 'events that named them, with "Former member" in their place', reason: 'delivered to the plugins that react to them', until: k.events_kept_until }] : [];
  return { kind: 'kernel', deleted: k.replays_deleted + k.jobs_deleted, pseudonymised: k.events_redacted, retained };
}
