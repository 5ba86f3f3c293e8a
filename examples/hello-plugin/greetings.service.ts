import { countRows, inTransaction, type Db } from 'tessera/db';
import type { EventBus } from 'tessera/events';
import { notFound } from 'tessera/errors';
import type { Location, LocateRequest } from 'tessera/authz';
import { keysetPage, type Page } from 'tessera/pagination';
import { HelloErrors } from './errors.ts';
import type { HelloHooks } from './hooks.ts';
import type { Greeting } from './schemas.ts';

const TABLE = 'hello_greetings';

interface GreetingRow {
  id: string;
  workspace_id: string;
  created_by: string;
  name: string;
  message: string;
  created_at: Date;
}

function toGreeting(row: GreetingRow): Greeting {
  const { id, workspace_id, name, message, created_by } = row;
  return { id, workspace_id, name, message, created_by, created_at: row.created_at.toISOString() };
}

/** Greetings of a workspace. Exported as `hello.greetings`: plugins depending on this one may call it. */
export class GreetingService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly hooks: HelloHooks,
    private readonly greeting: string,
  ) {}

  /**
   * Stores a greeting and records `hello.greeting_created` in the same transaction. A name the caller already
   * greeted here is refused by the unique index, not by a read first, so two requests at once cannot both pass.
   */
  async create(workspaceId: string, userId: string, name: string): Promise<Greeting> {
    return inTransaction(this.db, async (trx) => {
      const row = await this.insert(trx, workspaceId, userId, name);
      if (!row) throw HelloErrors.already_greeted(name);
      return toGreeting(row);
    });
  }

  /** A greeting of `name` by the user, made now or found as it was (a pack installed twice greets nobody twice). */
  async ensure(trx: Db, workspaceId: string, userId: string, name: string): Promise<{ id: string; created: boolean }> {
    const row = await this.insert(trx, workspaceId, userId, name);
    if (row) return { id: row.id, created: true };
    const existing = await trx<GreetingRow>(TABLE).where({ workspace_id: workspaceId, created_by: userId }).whereRaw('lower(name) = lower(?)', [name]).first('id');
    return { id: existing!.id, created: false };
  }

  private async insert(trx: Db, workspaceId: string, userId: string, name: string): Promise<GreetingRow | undefined> {
    const message = this.hooks.message.call(`${this.greeting}, ${name}!`, { workspaceId, name, userId });
    const [row] = await trx<GreetingRow>(TABLE).insert({ workspace_id: workspaceId, created_by: userId, name, message }).onConflict().ignore().returning('*');
    if (row) await this.events.emit(trx, { name: 'hello.greeting_created', payload: { id: row.id, name }, workspaceId, actorId: userId });
    return row;
  }

  /** The workspace's greetings, newest first, one keyset page at a time. */
  async list(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<Greeting>> {
    const query = this.db<GreetingRow>(TABLE).select('*').where({ workspace_id: workspaceId });
    const result = await keysetPage<GreetingRow>(this.db, query, {
      keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }],
      direction: 'desc',
    }, page);
    return { data: result.data.map(toGreeting), next_cursor: result.next_cursor };
  }

  async get(workspaceId: string, id: string): Promise<Greeting> {
    const row = await this.db<GreetingRow>(TABLE).where({ id, workspace_id: workspaceId }).first();
    if (!row) throw notFound();
    return toGreeting(row);
  }

  async delete(workspaceId: string, id: string, userId: string): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      if (!(await this.remove(trx, workspaceId, id, userId))) throw notFound();
    });
  }

  /** Deletes a greeting in `trx`; false when there was none. */
  async remove(trx: Db, workspaceId: string, id: string, userId: string): Promise<boolean> {
    const [row] = await trx<GreetingRow>(TABLE).where({ id, workspace_id: workspaceId }).delete().returning('*');
    if (row) await this.events.emit(trx, { name: 'hello.greeting_deleted', payload: { id, name: row.name }, workspaceId, actorId: userId });
    return !!row;
  }

  /** The names greeted in a workspace, oldest first: what a pack of this workspace carries. */
  async names(db: Db, workspaceId: string): Promise<Array<{ id: string; name: string }>> {
    return db<GreetingRow>(TABLE).where({ workspace_id: workspaceId }).orderBy(['created_at', 'id']).select('id', 'name');
  }

  async find(db: Db, workspaceId: string, id: string): Promise<Greeting | undefined> {
    const row = await db<GreetingRow>(TABLE).where({ id, workspace_id: workspaceId }).first();
    return row ? toGreeting(row) : undefined;
  }

  /** How many greetings a member has left in a workspace: for plugins building on this one (a leaderboard, a badge). */
  countBy(workspaceId: string, userId: string): Promise<number> {
    return countRows(this.db(TABLE).where({ workspace_id: workspaceId, created_by: userId }));
  }

  /**
   * `auth.locate` for `hello.greeting`: where a greeting sits (the workspace itself, no space) and who wrote it,
   * so that routes can say "its author or an admin". Inside a writer's transaction, with `lock`, the row is held.
   */
  async locate(req: LocateRequest): Promise<Location | undefined> {
    const query = (req.trx ?? this.db)<GreetingRow>(TABLE).where({ id: req.id, workspace_id: req.workspaceId });
    const row = await (req.lock ? query.forShare() : query).first('created_by');
    return row ? { path: [], createdBy: row.created_by } : undefined;
  }

  /** A member who leaves takes their greetings along, inside the removal's transaction (`workspaces.lifecycle`). */
  async forgetMember(trx: Db, workspaceId: string, userId: string): Promise<void> {
    await trx(TABLE).where({ workspace_id: workspaceId, created_by: userId }).delete();
  }
}
