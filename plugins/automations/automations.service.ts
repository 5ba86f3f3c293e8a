import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Authz, AccessGrant } from '../../core/authz.ts';
import { afterCommit, inTransaction, type Db } from '../../core/db.ts';
import { invalidField, notFound, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { compile, toErrorDetails } from '../../core/schema.ts';
import { compileFilter, type QueryService, type RecordService, type RecordTable } from '../records/public.ts';
import { newSecret } from '../webhooks/public.ts';
import type { ActionRegistry } from './actions.ts';
import { AutomationErrors } from './errors.ts';
import type { IntegrationCheck } from './integration-trigger.ts';
import { checkSchedule } from './schedule.ts';
import { MATCHED } from './triggers.ts';
import type { Action, Automation, CreateAutomationBody, PatchAutomationBody, Trigger } from './schemas.ts';

export const TABLE = 'automations';
const COLUMNS = ['id', 'workspace_id', 'database_id', 'name', 'enabled', 'trigger', 'conditions', 'actions', 'created_by', 'created_at', 'updated_at'];

export interface AutomationRow {
  id: string;
  workspace_id: string;
  database_id: string;
  name: string;
  enabled: boolean;
  trigger: Trigger;
  conditions: unknown;
  actions: Action[];
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export function present(row: AutomationRow): Automation {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    database_id: row.database_id,
    enabled: row.enabled,
    trigger: row.trigger,
    conditions: row.conditions ?? null,
    actions: row.actions,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** A token for `/hooks/{token}`: 32 random bytes, URL-safe; it names the automation and is the first credential. */
const newToken = () => randomBytes(32).toString('base64url');

interface Deps {
  db: Db;
  authz: Authz;
  records: () => RecordService;
  query: () => QueryService;
  actions: ActionRegistry;
  /** Tells the trigger listener an automation of this database changed. */
  changed: (databaseId: string) => void;
  /** Checks an integration trigger's provider and connection; without it (no integrations plugin) every one is refused. */
  checkIntegration?: IntegrationCheck;
}

/** A workspace's automations: what triggers them, on which records, and what they do. Creators of the database manage them. */
export class AutomationService {
  constructor(private readonly deps: Deps) {}

  async create(principal: UserPrincipal, grant: AccessGrant, body: CreateAutomationBody, hookBase: string): Promise<Automation> {
    const table = await this.tableFor(principal, grant, body.database_id, '/database_id');
    await this.check(principal, table, { trigger: body.trigger, conditions: body.conditions ?? null, actions: body.actions });
    const matchOn = await this.matchTable(grant.workspaceId, body.database_id, { trigger: body.trigger, enabled: body.enabled ?? false, conditions: body.conditions });
    const { row, inbound } = await inTransaction(this.deps.db, async (trx) => {
      const made = await this.insert(trx, principal, grant.workspaceId, body);
      await this.rememberMatches(trx, made.row, matchOn);
      return made;
    });
    this.deps.changed(row.database_id);
    return withHook(present(row), inbound, hookBase);
  }

  /**
   * Makes an automation inside a pack install's transaction, checked there (the pack's fields exist only in it), and
   * always disabled: what an installed pack does to the workspace's records is for one of its creators to turn on. An
   * inbound hook gets a token and secret of its own, shown by rotating it.
   */
  async install(trx: Db, principal: UserPrincipal, grant: AccessGrant, body: Omit<CreateAutomationBody, 'enabled'>): Promise<AutomationRow> {
    const table = await this.tableFor(principal, grant, body.database_id, '/database', trx);
    await this.check(principal, table, { trigger: body.trigger, conditions: body.conditions ?? null, actions: body.actions }, undefined, trx);
    const { row } = await this.insert(trx, principal, grant.workspaceId, { ...body, enabled: false });
    afterCommit(trx, () => this.deps.changed(row.database_id));
    return row;
  }

  private async insert(db: Db, principal: UserPrincipal, workspaceId: string, body: CreateAutomationBody) {
    const inbound = body.trigger.type === 'inbound_webhook' ? { hook_token: newToken(), hook_secret: newSecret() } : {};
    const [row]: AutomationRow[] = await db(TABLE)
      .insert({
        workspace_id: workspaceId,
        database_id: body.database_id,
        name: body.name,
        enabled: body.enabled ?? false,
        trigger_type: body.trigger.type,
        trigger: JSON.stringify(body.trigger),
        conditions: body.conditions ? JSON.stringify(body.conditions) : null,
        actions: JSON.stringify(body.actions),
        created_by: principal.user.id,
        ...inbound,
      })
      .returning(COLUMNS);
    return { row, inbound };
  }

  /** The automations of these databases, oldest first (a pack's export). */
  async inDatabases(trx: Db, workspaceId: string, databaseIds: string[]): Promise<AutomationRow[]> {
    if (databaseIds.length === 0) return [];
    return trx(TABLE).where({ workspace_id: workspaceId }).whereIn('database_id', databaseIds).orderBy(['created_at', 'id']).select(COLUMNS);
  }

  /**
   * What a pack's ledger compares at uninstall: what the automation does, not whether it is on (turning an installed
   * automation on is expected and does not make it someone's own); null once it is gone.
   */
  async stamp(db: Db, workspaceId: string, id: string): Promise<string | null> {
    const row: AutomationRow | undefined = await db(TABLE).where({ workspace_id: workspaceId, id }).first(COLUMNS);
    return row ? JSON.stringify([row.name, row.trigger, row.conditions, row.actions]) : null;
  }

  async list(workspaceId: string, page: { limit?: number; cursor?: string }): Promise<Page<Automation>> {
    const q = this.deps.db(TABLE).where({ workspace_id: workspaceId }).select(COLUMNS);
    const rows = await keysetPage<AutomationRow>(this.deps.db, q, { keys: [{ column: 'created_at', type: 'timestamptz' }, { column: 'id', type: 'uuid' }], direction: 'desc' }, page);
    return { data: rows.data.map(present), next_cursor: rows.next_cursor };
  }

  async get(workspaceId: string, id: string): Promise<Automation> {
    return present(await this.row(workspaceId, id));
  }

  async update(principal: UserPrincipal, grant: AccessGrant, id: string, body: PatchAutomationBody, hookBase: string): Promise<Automation> {
    const before = await this.row(grant.workspaceId, id);
    const next = { trigger: body.trigger ?? before.trigger, conditions: body.conditions !== undefined ? body.conditions : before.conditions, actions: body.actions ?? before.actions };
    if (body.trigger || body.conditions !== undefined || body.actions) {
      const table = await this.tableFor(principal, grant, before.database_id, '/database_id');
      await this.check(principal, table, next, Object.keys(body));
    }
    const changes: Record<string, unknown> = { updated_at: this.deps.db.fn.now() };
    if (body.name !== undefined) changes.name = body.name;
    if (body.trigger) Object.assign(changes, { trigger: JSON.stringify(body.trigger), trigger_type: body.trigger.type });
    if (body.conditions !== undefined) changes.conditions = body.conditions === null ? null : JSON.stringify(body.conditions);
    if (body.actions) changes.actions = JSON.stringify(body.actions);
    if (body.enabled !== undefined) Object.assign(changes, { enabled: body.enabled, consecutive_failures: 0 });
    // A trigger that becomes an inbound hook gets its token; one that stops being one loses it (the URL → 404).
    const becomesInbound = body.trigger?.type === 'inbound_webhook' && before.trigger.type !== 'inbound_webhook';
    const inbound = becomesInbound ? { hook_token: newToken(), hook_secret: newSecret() } : {};
    if (body.trigger && body.trigger.type !== 'inbound_webhook') Object.assign(changes, { hook_token: null, hook_secret: null });
    const rematch = body.trigger !== undefined || body.conditions !== undefined || body.enabled !== undefined;
    const matchOn = rematch ? await this.matchTable(grant.workspaceId, before.database_id, { ...next, enabled: body.enabled ?? before.enabled }) : undefined;
    const row = await inTransaction(this.deps.db, async (trx) => {
      const [updated]: AutomationRow[] = await trx(TABLE).where({ workspace_id: grant.workspaceId, id }).update({ ...changes, ...inbound }).returning(COLUMNS);
      if (!updated) throw notFound('No such automation in this workspace.');
      if (rematch) await this.rememberMatches(trx, updated, matchOn);
      return updated;
    });
    this.deps.changed(row.database_id);
    return withHook(present(row), inbound, hookBase);
  }

  /** The table an enabled record_matches automation's conditions are evaluated on, read before its transaction. */
  private async matchTable(workspaceId: string, databaseId: string, a: { trigger: Trigger; enabled: boolean; conditions: unknown }): Promise<RecordTable | undefined> {
    return a.trigger.type === 'record_matches' && a.enabled && a.conditions ? this.deps.records().readTable(workspaceId, databaseId) : undefined;
  }

  /**
   * A record_matches automation starts from the records that match it now: those do not "start matching" at their
   * next write. Anything remembered before (other conditions) is forgotten. In the transaction that makes or enables
   * the automation: no write between the two can take a record that matched before for one that starts matching.
   */
  private async rememberMatches(trx: Db, row: AutomationRow, table: RecordTable | undefined): Promise<void> {
    await trx(MATCHED).where({ automation_id: row.id }).del();
    if (!table || row.trigger.type !== 'record_matches' || !row.enabled || !row.conditions) return;
    const errors: ErrorDetail[] = [];
    const cond = compileFilter(table, row.conditions, { userId: row.created_by ?? '', now: new Date() }, '', errors);
    if (errors.length > 0) return;
    await trx.raw(`INSERT INTO ${MATCHED} (automation_id, record_id) SELECT ?, id FROM ?? WHERE deleted_at IS NULL AND ${cond.sql}`, [row.id, table.table, ...(cond.bindings as Knex.RawBinding[])]);
  }

  async delete(workspaceId: string, id: string, trx?: Db): Promise<void> {
    const [deleted] = await (trx ?? this.deps.db)(TABLE).where({ workspace_id: workspaceId, id }).del().returning('database_id');
    if (!deleted) throw notFound('No such automation in this workspace.');
    afterCommit(trx, () => this.deps.changed(deleted.database_id));
  }

  /** A new token and secret; the old token stops answering in the same statement. */
  async rotateHook(workspaceId: string, id: string, hookBase: string): Promise<Automation> {
    const row = await this.row(workspaceId, id);
    if (row.trigger.type !== 'inbound_webhook') throw AutomationErrors.not_inbound();
    const inbound = { hook_token: newToken(), hook_secret: newSecret() };
    const [updated] = await this.deps.db(TABLE).where({ workspace_id: workspaceId, id }).update({ ...inbound, updated_at: this.deps.db.fn.now() }).returning(COLUMNS);
    if (!updated) throw notFound('No such automation in this workspace.');
    return withHook(present(updated), inbound, hookBase);
  }

  /** An automation of a database, or undefined (a button field names one in its options). */
  async ofDatabase(databaseId: string, id: string, db: Db = this.deps.db): Promise<AutomationRow | undefined> {
    return db(TABLE).where({ database_id: databaseId, id }).first(COLUMNS);
  }

  /** The automation a hook token names, with its secret; undefined for an unknown or rotated token. */
  async byHookToken(token: string): Promise<(AutomationRow & { hook_secret: string }) | undefined> {
    return this.deps.db(TABLE).where({ hook_token: token }).first([...COLUMNS, 'hook_secret']);
  }

  async row(workspaceId: string, id: string, db: Db = this.deps.db): Promise<AutomationRow> {
    const row = await db(TABLE).where({ workspace_id: workspaceId, id }).first(COLUMNS);
    if (!row) throw notFound('No such automation in this workspace.');
    return row;
  }

  /** The database's fields as the caller sees them; a database they cannot see, or do not design, is refused at `pointer`. */
  private async tableFor(principal: UserPrincipal, grant: AccessGrant, databaseId: string, pointer: string, trx?: Db): Promise<RecordTable> {
    const location = await this.deps.authz.locate('database', { workspaceId: grant.workspaceId, id: databaseId, trx });
    if (!location || this.deps.authz.roleAt(principal, grant.access, location.path) === null) throw invalidField(pointer, 'No such database in this workspace.');
    this.deps.authz.demand(principal, grant, 'creator', location.path);
    const records = this.deps.records();
    return records.seenBy(principal, trx ? await records.open(trx, grant.workspaceId, databaseId) : await records.readTable(grant.workspaceId, databaseId), trx);
  }

  /** Trigger, conditions and actions against the database's live fields and the registered actions; every problem at its pointer. */
  private async check(principal: UserPrincipal, table: RecordTable, a: { trigger: Trigger; conditions: unknown; actions: Action[] }, sent?: string[], trx?: Db): Promise<void> {
    const errors: ErrorDetail[] = [];
    if (a.trigger.type === 'record_updated') {
      a.trigger.fields?.forEach((name, i) => table.byApiName.has(name) || errors.push({ pointer: `/trigger/fields/${i}`, detail: `No field "${name}" in this database.` }));
    }
    // Conditions kept from before a PATCH that makes the trigger a schedule are refused where the change was sent.
    if (a.trigger.type === 'schedule') checkSchedule(a.trigger, a.conditions, errors, sent && !sent.includes('conditions') ? '/trigger/type' : '/conditions');
    if (a.trigger.type === 'integration_event') {
      const conditions = sent && !sent.includes('conditions') ? '/trigger/type' : '/conditions';
      if (a.conditions !== null && a.conditions !== undefined) errors.push({ pointer: conditions, detail: 'An integration_event trigger has no record to test conditions on: remove the conditions.' });
      if (this.deps.checkIntegration) await this.deps.checkIntegration(trx ?? this.deps.db, table.workspaceId, a.trigger, errors);
      else errors.push({ pointer: '/trigger/type', detail: 'The integrations plugin is not enabled on this instance.' });
    }
    if (a.trigger.type === 'record_matches' && (a.conditions === null || a.conditions === undefined)) {
      errors.push({ pointer: '/conditions', detail: 'A record_matches trigger needs conditions for records to start matching.' });
    }
    if (a.conditions !== null && a.conditions !== undefined && a.trigger.type !== 'integration_event') {
      compileFilter(table, a.conditions, { userId: principal.user.id, now: new Date() }, '/conditions', errors, await this.deps.query().linkedTables(principal, table, trx));
    }
    for (const [i, action] of a.actions.entries()) {
      const def = this.deps.actions.get(action.type);
      if (!def) {
        errors.push({ pointer: `/actions/${i}/type`, detail: `No action "${action.type}". Known: ${this.deps.actions.types().join(', ')}.` });
        continue;
      }
      const { type: _type, ...config } = action;
      const validate = compile(def.schema);
      if (!validate(config)) errors.push(...toErrorDetails(validate.errors, `/actions/${i}`));
      else await def.check?.({ db: trx ?? this.deps.db, workspaceId: table.workspaceId, databaseId: table.databaseId, config, pointer: `/actions/${i}`, errors });
    }
    const reported = sent ? errors.filter((e) => sent.some((key) => e.pointer === `/${key}` || e.pointer.startsWith(`/${key}/`))) : errors;
    if (reported.length > 0) throw validationFailed(reported);
  }
}

function withHook(automation: Automation, inbound: { hook_token?: string; hook_secret?: string }, hookBase: string): Automation {
  return inbound.hook_token ? { ...automation, hook_url: `${hookBase}/hooks/${inbound.hook_token}`, hook_secret: inbound.hook_secret } : automation;
}
