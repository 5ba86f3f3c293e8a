import { randomUUID } from 'node:crypto';
import { inTransaction, type Db } from '../../core/db.ts';
import { AppError, invalidField, notFound } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { DatabaseService } from '../databases/public.ts';
import { checkTarget, RefusedTarget, type Resolver } from './http-client.ts';
import { TABLE as DELIVERIES } from './deliveries.service.ts';
import { newSecret, signedHeaders } from './signing.ts';
import type { CreatedWebhook, CreateWebhookBody, PatchWebhookBody, Sample, Webhook } from './schemas.ts';

export const TABLE = 'webhooks';
const COLUMNS = ['id', 'workspace_id', 'url', 'events', 'database_id', 'enabled', 'disabled_reason', 'created_at', 'updated_at'];

export interface WebhookRow {
  id: string;
  workspace_id: string;
  url: string;
  events: string[];
  database_id: string | null;
  enabled: boolean;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export function present(row: WebhookRow): Webhook {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    url: row.url,
    events: row.events,
    database_id: row.database_id,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

interface Deps {
  db: Db;
  databases: () => DatabaseService;
  resolver: Resolver;
  allowPrivateNetworks: boolean;
}

/** A workspace's webhooks: where they send, what they hear; the secret leaves only in the create answer. */
export class WebhookService {
  constructor(private readonly deps: Deps) {}

  async create(principal: UserPrincipal, workspaceId: string, body: CreateWebhookBody): Promise<CreatedWebhook> {
    if (body.database_id) await this.checkDatabase(workspaceId, body.database_id);
    return this.insert(this.deps.db, principal, workspaceId, body);
  }

  /** A webhook made by a pack install, in its transaction: its database, if any, is one the install just resolved. */
  async install(trx: Db, principal: UserPrincipal, workspaceId: string, body: CreateWebhookBody): Promise<CreatedWebhook> {
    return this.insert(trx, principal, workspaceId, body);
  }

  private async insert(trx: Db, principal: UserPrincipal, workspaceId: string, body: CreateWebhookBody): Promise<CreatedWebhook> {
    await this.checkUrl(body.url);
    const secret = newSecret();
    const [row] = await trx(TABLE)
      .insert({ workspace_id: workspaceId, url: body.url, events: body.events, database_id: body.database_id ?? null, enabled: body.enabled ?? true, secret, created_by: principal.user.id })
      .returning(COLUMNS);
    return { ...present(row), secret };
  }

  async list(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<Webhook>> {
    const q = this.deps.db(TABLE).where({ workspace_id: workspaceId }).select(COLUMNS);
    const rows = await keysetPage<WebhookRow>(this.deps.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    return { data: rows.data.map(present), next_cursor: rows.next_cursor };
  }

  async get(workspaceId: string, id: string, trx: Db = this.deps.db): Promise<Webhook> {
    return present(await this.row(workspaceId, id, trx));
  }

  async update(workspaceId: string, id: string, body: PatchWebhookBody): Promise<Webhook> {
    if (body.url !== undefined) await this.checkUrl(body.url);
    const changes: Record<string, unknown> = { updated_at: this.deps.db.fn.now() };
    if (body.url !== undefined) changes.url = body.url;
    if (body.events !== undefined) changes.events = body.events;
    if (body.enabled !== undefined) Object.assign(changes, { enabled: body.enabled, disabled_reason: null, consecutive_failures: 0 });
    // Enabled again: it hears what happens from now on, not what happened while it was off.
    if (body.enabled === true) changes.listening_since = this.deps.db.raw('CASE WHEN enabled THEN listening_since ELSE now() END');
    const [row] = await this.deps.db(TABLE).where({ workspace_id: workspaceId, id }).update(changes).returning(COLUMNS);
    if (!row) throw notFound('No such webhook in this workspace.');
    return present(row);
  }

  async delete(workspaceId: string, id: string, trx?: Db): Promise<void> {
    await inTransaction(
      this.deps.db,
      async (t) => {
        // The sender locks a delivery, then its webhook (to count a failure). Deleting the webhook first would lock them
        // the other way round (the cascade), and the two could deadlock: its deliveries go first.
        await t(DELIVERIES).whereIn('webhook_id', t(TABLE).select('id').where({ workspace_id: workspaceId, id })).del();
        const deleted = await t(TABLE).where({ workspace_id: workspaceId, id }).del();
        if (!deleted) throw notFound('No such webhook in this workspace.');
      },
      trx,
    );
  }

  /** A delivery as the webhook would receive it, signed with its secret, sent nowhere. */
  async sample(workspaceId: string, id: string): Promise<Sample> {
    const row: WebhookRow & { secret: string } = await this.row(workspaceId, id, this.deps.db, ['secret']);
    const body = JSON.stringify({
      type: 'webhook.sample',
      timestamp: new Date().toISOString(),
      data: { webhook_id: row.id, workspace_id: row.workspace_id, events: row.events, note: 'A sample delivery: the same headers and signature as a real one.' },
    });
    const headers = signedHeaders(row.secret, `msg_sample_${randomUUID().replace(/-/g, '')}`, body);
    return {
      url: row.url,
      body,
      headers: { 'content-type': headers['content-type'], 'webhook-id': headers['webhook-id'], 'webhook-timestamp': headers['webhook-timestamp'], 'webhook-signature': headers['webhook-signature'] },
      signature: headers['webhook-signature'],
    };
  }

  /** The workspace's webhooks narrowed to one of `databaseIds`, oldest first: what a pack of those databases carries. */
  async inDatabases(trx: Db, workspaceId: string, databaseIds: string[]): Promise<WebhookRow[]> {
    if (databaseIds.length === 0) return [];
    return trx(TABLE).where({ workspace_id: workspaceId }).whereIn('database_id', databaseIds).orderBy([{ column: 'created_at' }, { column: 'id' }]).select(COLUMNS);
  }

  /** What a pack install remembers of a webhook to tell, at uninstall, whether someone changed it; null once gone. */
  async stamp(db: Db, workspaceId: string, id: string): Promise<string | null> {
    const row = await db(TABLE).where({ workspace_id: workspaceId, id }).first('url', 'events', 'database_id', 'updated_at');
    return row ? `${row.url}|${row.events.join(',')}|${row.database_id}|${row.updated_at.toISOString()}` : null;
  }

  /** A deleted database takes the webhooks narrowed to it (they could never fire again) and their logs. */
  async forgetDatabase(trx: Db, workspaceId: string, databaseId: string): Promise<void> {
    await trx(TABLE).where({ workspace_id: workspaceId, database_id: databaseId }).del();
  }

  private async row(workspaceId: string, id: string, trx: Db, extra: string[] = []): Promise<WebhookRow & { secret: string }> {
    const row = await trx(TABLE).where({ workspace_id: workspaceId, id }).first([...COLUMNS, ...extra]);
    if (!row) throw notFound('No such webhook in this workspace.');
    return row;
  }

  private async checkUrl(url: string): Promise<void> {
    try {
      await checkTarget(url, this.deps);
    } catch (err) {
      if (err instanceof RefusedTarget) throw invalidField('/url', err.message);
      throw err;
    }
  }

  private async checkDatabase(workspaceId: string, databaseId: string): Promise<void> {
    try {
      await this.deps.databases().get(workspaceId, databaseId);
    } catch (err) {
      if (err instanceof AppError && err.status === 404) throw invalidField('/database_id', 'No such database in this workspace.');
      throw err;
    }
  }
}
