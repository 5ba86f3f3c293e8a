import type { AccessGrant, Authz } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import { AppError, notFound } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { atLeast } from '../../core/roles.ts';
import type { ConfigCheck, RunService } from '../automations/public.ts';
import type { NotificationService } from '../notifications/public.ts';
import { ApprovalErrors } from './errors.ts';
import type { Approval, ApprovalStatus, ListQuery } from './schemas.ts';

export const APPROVALS = 'approvals';
const COLUMNS = ['id', 'workspace_id', 'run_id', 'automation_id', 'database_id', 'record_id', 'text', 'approver_ids', 'status', 'decided_by', 'decided_at', 'comment', 'expires_at', 'created_at'];
const EXPIRY_BATCH = 500;
/** Run statuses in which a run may still come to wait for an approval. */
const OPEN_RUN = ['queued', 'running', 'waiting_for_approval'];

interface ApprovalRow {
  id: string;
  workspace_id: string;
  run_id: string;
  automation_id: string;
  database_id: string;
  record_id: string | null;
  text: string;
  approver_ids: string[];
  status: ApprovalStatus;
  decided_by: string | null;
  decided_at: Date | null;
  comment: string | null;
  expires_at: Date;
  created_at: Date;
}

function present(row: ApprovalRow): Approval {
  return {
    id: row.id,
    run_id: row.run_id,
    automation_id: row.automation_id,
    record_id: row.record_id,
    text: row.text,
    approver_ids: row.approver_ids,
    status: row.status,
    decided_by: row.decided_by,
    decided_at: row.decided_at?.toISOString() ?? null,
    comment: row.comment,
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
  };
}

/** What a `request_approval` step asks for, its placeholders filled. */
export interface ApprovalRequest {
  workspaceId: string;
  databaseId: string;
  automationId: string;
  runId: string;
  recordId: string | null;
  approverIds: string[];
  text: string;
  timeoutHours: number;
}

interface Deps {
  db: Db;
  authz: Authz;
  runs: () => RunService;
  notifications: () => NotificationService | undefined;
}

/** Approvals: stored when a run pauses on one, decided by one of its approvers (or expired), which resumes or ends the run. */
export class ApprovalService {
  constructor(private readonly deps: Deps) {}

  /** The approvers among `ids` who are members able to read the database now. */
  async readers(workspaceId: string, databaseId: string, ids: string[], trx?: Db): Promise<Set<string>> {
    const location = await this.deps.authz.locate('database', { workspaceId, id: databaseId, trx });
    if (!location) return new Set();
    const sees = await Promise.all(ids.map((id) => this.deps.authz.userCanSee(id, workspaceId, location.path, trx)));
    return new Set(ids.filter((_, i) => sees[i]));
  }

  /** At save: every approver is a member who can read the automation's database, else 422 at its pointer. */
  async check(req: ConfigCheck<{ approver_ids: string[] }>): Promise<void> {
    const readers = await this.readers(req.workspaceId, req.databaseId, req.config.approver_ids, req.db);
    req.config.approver_ids.forEach((id, j) => {
      if (!readers.has(id)) req.errors.push({ pointer: `${req.pointer}/approver_ids/${j}`, detail: 'Not a member of this workspace who can read this database.' });
    });
  }

  /**
   * Stores a pending approval for the approvers who can still read the database, and tells each of them, in one
   * transaction; answers the approval, or null when none of them can.
   */
  async request(req: ApprovalRequest): Promise<Approval | null> {
    return inTransaction(this.deps.db, async (trx) => {
      const readers = await this.readers(req.workspaceId, req.databaseId, req.approverIds, trx);
      const approvers = req.approverIds.filter((id) => readers.has(id));
      if (approvers.length === 0) return null;
      const [row]: ApprovalRow[] = await trx(APPROVALS)
        .insert({
          workspace_id: req.workspaceId,
          run_id: req.runId,
          automation_id: req.automationId,
          database_id: req.databaseId,
          record_id: req.recordId,
          text: req.text,
          approver_ids: JSON.stringify(approvers),
          expires_at: trx.raw('now() + make_interval(hours => ?)', [req.timeoutHours]),
        })
        .returning(COLUMNS);
      await this.deps.notifications()?.notify(
        trx,
        approvers.map((userId) => ({
          workspaceId: req.workspaceId,
          userId,
          type: 'approval_requested',
          actorId: null,
          subject: { type: 'approval', id: row.id, title: req.text.slice(0, 200) },
          recordId: req.recordId,
          databaseId: req.databaseId,
          data: { approval_id: row.id, automation_id: req.automationId, run_id: req.runId, text: req.text },
        })),
      );
      return present(row);
    });
  }

  /** The approvals the caller may see: those it is an approver of (on a database it can read), and all of the databases it is a creator of. */
  async list(principal: UserPrincipal, grant: AccessGrant, query: ListQuery): Promise<Page<Approval>> {
    const { db, authz } = this.deps;
    const databases: string[] = (await db(APPROVALS).where({ workspace_id: grant.workspaceId }).distinct('database_id')).map((r: { database_id: string }) => r.database_id);
    const held = await Promise.all(databases.map((id) => authz.holds(principal, grant.access, 'database', id, 'creator')));
    const managed = databases.filter((_, i) => held[i] === 'held');
    const seen = databases.filter((_, i) => held[i] !== 'unseen');
    const q = db(APPROVALS)
      .where({ workspace_id: grant.workspaceId })
      .andWhere((w) => w.whereIn('database_id', managed).orWhere((mine) => mine.whereRaw('approver_ids @> ?::jsonb', [JSON.stringify([principal.user.id])]).whereIn('database_id', seen)))
      .select(COLUMNS);
    if (query.status) q.andWhere({ status: query.status });
    const page = await keysetPage<ApprovalRow>(db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, query);
    return { data: page.data.map(present), next_cursor: page.next_cursor };
  }

  /** One approval, to one of its approvers or a creator of its database (the route has checked the caller reads the database). */
  async get(principal: UserPrincipal, grant: AccessGrant, id: string): Promise<Approval> {
    const row = await this.row(grant.workspaceId, id);
    if (!row.approver_ids.includes(principal.user.id) && !atLeast(grant.role, 'creator')) throw notFound('No such approval in this workspace.');
    return present(row);
  }

  /**
   * One approver's decision. The conditional update lets exactly one of concurrent decisions through; approving
   * resumes the run (its next step runs), rejecting ends it as failed, in the same transaction. A run that no longer
   * waits (canceled) refuses the decision, and its approval, if the run has ended, is expired so nobody tries again.
   */
  async decide(principal: UserPrincipal, workspaceId: string, id: string, verdict: 'approved' | 'rejected', comment: string | null): Promise<Approval> {
    const row = await this.row(workspaceId, id);
    const me = principal.user.id;
    if (!row.approver_ids.includes(me)) throw ApprovalErrors.not_approver();
    try {
      return await inTransaction(this.deps.db, async (trx) => {
        const [decided]: ApprovalRow[] = await trx(APPROVALS).where({ id, status: 'pending' }).update({ status: verdict, decided_by: me, decided_at: trx.fn.now(), comment }).returning(COLUMNS);
        if (!decided) throw ApprovalErrors.already_decided((await trx(APPROVALS).where({ id }).first('status')).status);
        const runs = this.deps.runs();
        const moved =
          verdict === 'approved'
            ? await runs.resume(trx, row.run_id, { approval_id: id, status: verdict, decided_by: me, comment })
            : await runs.end(trx, row.run_id, comment ? `Rejected: ${comment}` : 'Rejected by an approver.');
        if (!moved) throw ApprovalErrors.run_not_waiting();
        return present(decided);
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'run_not_waiting') await this.retire(row);
      throw err;
    }
  }

  /** Expires the pending approvals past their time and ends their runs as failed, a batch at a time; answers how many. */
  async expireDue(): Promise<number> {
    const { db } = this.deps;
    let expired = 0;
    for (;;) {
      const due: Array<{ id: string; run_id: string }> = await db(APPROVALS).where({ status: 'pending' }).andWhere('expires_at', '<=', db.fn.now()).orderBy('expires_at').limit(EXPIRY_BATCH).select('id', 'run_id');
      for (const approval of due) {
        await inTransaction(db, async (trx) => {
          // A decision that came first keeps its approval: only a still pending one expires.
          const n = await trx(APPROVALS).where({ id: approval.id, status: 'pending' }).update({ status: 'expired', decided_at: trx.fn.now() });
          if (n === 0) return;
          expired += 1;
          await this.deps.runs().end(trx, approval.run_id, 'The approval expired.');
        });
      }
      if (due.length < EXPIRY_BATCH) return expired;
    }
  }

  /** An approval whose run has ended can never be decided: it expires. */
  private async retire(row: ApprovalRow): Promise<void> {
    const run = await this.deps.runs().get(row.workspace_id, row.run_id);
    if (!OPEN_RUN.includes(run.status)) await this.deps.db(APPROVALS).where({ id: row.id, status: 'pending' }).update({ status: 'expired', decided_at: this.deps.db.fn.now() });
  }

  private async row(workspaceId: string, id: string): Promise<ApprovalRow> {
    const row = await this.deps.db(APPROVALS).where({ workspace_id: workspaceId, id }).first(COLUMNS);
    if (!row) throw notFound('No such approval in this workspace.');
    return row;
  }
}
