import { inTransaction, type Db, type Trx } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { Authz } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Role } from '../../core/roles.ts';
import { compile } from '../../core/schema.ts';
import { hashSecret, randomSecret } from '../../core/secrets.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import { forbidden, invalidField, notFound } from '../../core/errors.ts';
import { WorkspaceErrors } from './errors.ts';
import type { MailSender } from '../mail/public.ts';
import type { MemberService } from './members.service.ts';
import type { WorkspaceService } from './workspaces.service.ts';
import { inviteMail } from './invites.mail.ts';
import { INVITE_TOKEN_CHARS, type AcceptedInvite, type CreateInviteBody, type Invite, type InviteListQuery, type InviteStatus } from './invites.schemas.ts';

const TABLE = 'workspace_invites';
const COLUMNS = ['id', 'workspace_id', 'email', 'role', 'space_ids', 'status', 'invited_by', 'accepted_by', 'created_at', 'sent_at', 'accepted_at', 'revoked_at'];
/** Unknown, malformed, revoked: the same answer, so a token reveals nothing about invites it does not open. */
const NO_SUCH_INVITE = 'This invite link is not valid (it may have been revoked or replaced by a newer one).';

// The same check as sign-up's, so that whoever is invited can make an account with that address.
const isEmail = compile({ type: 'string', format: 'email' });

interface InviteRow {
  id: string;
  workspace_id: string;
  email: string;
  role: Role;
  space_ids: string[];
  status: InviteStatus;
  invited_by: string | null;
  accepted_by: string | null;
  created_at: Date;
  sent_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

function toInvite(row: InviteRow, acceptUrl: string | null): Invite {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    email: row.email,
    role: row.role,
    space_ids: row.space_ids,
    status: row.status,
    invited_by: row.invited_by,
    accepted_by: row.accepted_by,
    created_at: row.created_at.toISOString(),
    sent_at: row.sent_at.toISOString(),
    accepted_at: iso(row.accepted_at),
    revoked_at: iso(row.revoked_at),
    accept_url: acceptUrl,
  };
}

const sameEmail = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

const pendingConflict = WorkspaceErrors.invite_pending;

function isPendingDuplicate(err: unknown): boolean {
  const e = err as { code?: string; constraint?: string; message?: string };
  return e?.code === '23505' && (e.constraint === 'workspace_invites_pending_email' || !!e.message?.includes('workspace_invites_pending_email'));
}

/** Where accept links point: `<origin>/invites/<token>`. */
export interface LinkBase {
  origin: string;
}

/**
 * Invitations by email. Lifecycle: pending → accepted | revoked, both final. The token is
 * shown once per issue (create, resend) in `accept_url` and stored only as a hash; a resend
 * replaces the hash, so the previous link stops working at once.
 */
export class InviteService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly authz: Authz,
    private readonly members: MemberService,
    private readonly workspaces: WorkspaceService,
    /** The mail plugin's sender when it is enabled; without it, admins hand out `accept_url` themselves. */
    private readonly mailer: () => MailSender | null,
  ) {}

  async create(principal: UserPrincipal, workspaceId: string, body: CreateInviteBody, link: LinkBase): Promise<Invite> {
    const email = body.email.trim();
    if (!isEmail(email)) throw invalidField('/email', 'Must be an email address.');
    const spaceIds = body.space_ids ?? [];
    if (body.role === 'guest' && spaceIds.length === 0) throw invalidField('/space_ids', 'A guest needs at least one space.');
    if (body.role !== 'guest' && spaceIds.length) throw invalidField('/space_ids', `Only guests are confined to spaces; a ${body.role} sees the whole workspace.`);
    return inTransaction(this.db, async (trx) => {
      const workspace = await this.workspaces.hold(trx, workspaceId);
      if (spaceIds.length) await this.members.checkSpaces(trx, workspaceId, spaceIds, '/space_ids');
      if (await this.members.hasEmail(trx, workspaceId, email)) throw WorkspaceErrors.already_member();
      const pending = await trx(TABLE).where({ workspace_id: workspaceId, status: 'pending' }).whereRaw('lower(email) = lower(?)', [email]).first('id');
      if (pending) throw pendingConflict(workspaceId, pending.id);
      const token = randomSecret('', INVITE_TOKEN_CHARS);
      let row: InviteRow;
      try {
        [row] = await trx(TABLE)
          .insert({ workspace_id: workspaceId, email, role: body.role, space_ids: spaceIds, token_hash: hashSecret(token), invited_by: principal.user.id })
          .returning(COLUMNS);
      } catch (err) {
        // A concurrent invite to the same address won the race (the unique index of pending invites).
        if (isPendingDuplicate(err)) throw pendingConflict(workspaceId);
        throw err;
      }
      const acceptUrl = acceptUrlOf(link, token);
      await this.sendMail(trx, row, workspace.name, principal.user.name, acceptUrl);
      await this.events.emit(trx, { name: 'invite.created', workspaceId, actorId: principal.user.id, payload: { invite: toInvite(row, null) } });
      return toInvite(row, acceptUrl);
    });
  }

  /** Newest first. */
  async list(workspaceId: string, query: InviteListQuery): Promise<Page<Invite>> {
    const q = this.db(TABLE).where({ workspace_id: workspaceId }).select(COLUMNS);
    if (query.status) q.where({ status: query.status });
    const page = await keysetPage<InviteRow>(this.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, query);
    return { data: page.data.map((r) => toInvite(r, null)), next_cursor: page.next_cursor };
  }

  async resend(principal: UserPrincipal, workspaceId: string, id: string, link: LinkBase): Promise<Invite> {
    return inTransaction(this.db, async (trx) => {
      const workspace = await this.workspaces.hold(trx, workspaceId);
      const before = await this.lockInvite(trx, workspaceId, id);
      if (before.status !== 'pending') throw WorkspaceErrors.invite_not_pending(before.status);
      const token = randomSecret('', INVITE_TOKEN_CHARS);
      const [row] = await trx(TABLE)
        .where({ id })
        .update({ token_hash: hashSecret(token), sent_at: trx.fn.now(), updated_at: trx.fn.now() })
        .returning(COLUMNS);
      const acceptUrl = acceptUrlOf(link, token);
      await this.sendMail(trx, row, workspace.name, principal.user.name, acceptUrl);
      return toInvite(row, acceptUrl);
    });
  }

  /** Revoking twice is harmless; an accepted invite is history (remove the member instead). */
  async revoke(principal: UserPrincipal, workspaceId: string, id: string): Promise<Invite> {
    return inTransaction(this.db, async (trx) => {
      const before = await this.lockInvite(trx, workspaceId, id);
      if (before.status === 'revoked') return toInvite(before, null);
      if (before.status === 'accepted') throw WorkspaceErrors.invite_accepted();
      const [row] = await trx(TABLE)
        .where({ id })
        .update({ status: 'revoked', revoked_at: trx.fn.now(), updated_at: trx.fn.now() })
        .returning(COLUMNS);
      const invite = toInvite(row, null);
      await this.events.emit(trx, { name: 'invite.revoked', workspaceId, actorId: principal.user.id, payload: { invite } });
      return invite;
    });
  }

  /**
   * Joins the invite's workspace. Locks are taken in the order a workspace or space deletion
   * takes them (workspace, spaces, then the invite), so neither can deadlock with an accept;
   * the invite row held FOR UPDATE makes concurrent accepts run one after the other.
   */
  async accept(principal: UserPrincipal, token: string): Promise<AcceptedInvite> {
    const tokenHash = hashSecret(token);
    const userId = principal.user.id;
    return inTransaction(this.db, async (trx) => {
      const seen = await trx(TABLE).where({ token_hash: tokenHash }).first('workspace_id', 'space_ids');
      if (!seen) throw notFound(NO_SUCH_INVITE);
      const workspaceId: string = seen.workspace_id;
      await this.workspaces.hold(trx, workspaceId, NO_SUCH_INVITE);
      const held = new Set<string>();
      for (const id of seen.space_ids as string[]) {
        if (await this.authz.locate('space', { workspaceId, id, trx, lock: true })) held.add(id);
      }
      const row: InviteRow | undefined = await trx(TABLE).where({ token_hash: tokenHash }).forUpdate().first(COLUMNS);
      if (!row || row.status === 'revoked') throw notFound(NO_SUCH_INVITE);
      if (!sameEmail(row.email, principal.user.email)) {
        throw forbidden('This invite was sent to another email address; sign in with the address it was sent to.');
      }
      if (row.status === 'accepted') {
        // Accepting again answers the membership it gave; once that membership is gone, the link is spent.
        const member = await this.members.get(workspaceId, userId, trx);
        if (!member) throw notFound('This invite has already been used.');
        return { workspace_id: workspaceId, ...member };
      }
      // A space deleted since the invite was sent has left the invite (and is not held here).
      const spaceIds = row.space_ids.filter((id) => held.has(id));
      if (row.role === 'guest' && spaceIds.length === 0) {
        throw WorkspaceErrors.invite_spaces_gone();
      }
      const member = await this.members.add(trx, workspaceId, userId, row.role, spaceIds, userId);
      const [accepted] = await trx(TABLE)
        .where({ id: row.id })
        .update({ status: 'accepted', accepted_by: userId, accepted_at: trx.fn.now(), updated_at: trx.fn.now() })
        .returning(COLUMNS);
      await this.events.emit(trx, { name: 'invite.accepted', workspaceId, actorId: userId, payload: { invite: toInvite(accepted, null), member } });
      return { workspace_id: workspaceId, ...member };
    });
  }

  private async sendMail(trx: Trx, row: InviteRow, workspaceName: string, inviterName: string, acceptUrl: string): Promise<void> {
    const sender = this.mailer();
    if (!sender) return;
    await sender.send(inviteMail({ email: row.email, workspaceName, inviterName, role: row.role, acceptUrl }), trx);
  }

  private async lockInvite(trx: Trx, workspaceId: string, id: string): Promise<InviteRow> {
    const row = await trx(TABLE).where({ id, workspace_id: workspaceId }).forUpdate().first(COLUMNS);
    if (!row) throw notFound('No such invite.');
    return row;
  }
}

function acceptUrlOf(link: LinkBase, token: string): string {
  return `${link.origin}/invites/${token}`;
}
