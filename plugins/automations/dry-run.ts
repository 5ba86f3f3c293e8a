import type { Knex } from 'knex';
import type { Db } from '../../core/db.ts';
import { invalidField, type ErrorDetail } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { compileFilter, type RecordService } from '../records/public.ts';
import type { ActionRegistry, TriggerData } from './actions.ts';
import type { AutomationService } from './automations.service.ts';
import { fill, readsCells, type CellText } from './placeholders.ts';
import type { DryRun } from './schemas.ts';

interface Deps {
  db: Db;
  automations: () => AutomationService;
  records: () => RecordService;
  actions: ActionRegistry;
  cells: (databaseId: string) => Promise<CellText>;
}

/** An automation tried against one record: reads only; each action answers what it would do. */
export class DryRunService {
  constructor(private readonly deps: Deps) {}

  async dryRun(principal: UserPrincipal, workspaceId: string, id: string, input: { record_id?: string; body?: unknown }): Promise<DryRun> {
    const automation = await this.deps.automations().row(workspaceId, id);
    const type = automation.trigger.type;
    const recordless = type === 'schedule' || type === 'inbound_webhook';
    if (input.record_id === undefined && !recordless) throw invalidField('/record_id', `A ${type} automation runs on a record: name the record to try it on.`);
    // The caller's read: a record they cannot see is a 404, as anywhere else.
    const record = input.record_id === undefined ? null : await this.deps.records().get(principal, workspaceId, automation.database_id, input.record_id);
    const matched = record === null || (await this.matches(workspaceId, automation.database_id, automation.conditions, record.id, principal.user.id));
    const trigger: TriggerData = {
      type,
      record_id: record?.id ?? null,
      event_id: null,
      before: null,
      after: record?.values ?? null,
      depth: 0,
      chain: [],
      ...(type === 'schedule' ? { scheduled_for: new Date().toISOString() } : {}),
      ...(type === 'inbound_webhook' ? { body: input.body ?? null } : {}),
    };
    const steps = [];
    const cells = readsCells(automation.actions) ? await this.deps.cells(automation.database_id) : undefined;
    for (const { type, ...config } of automation.actions) {
      const def = this.deps.actions.get(type);
      const would = def
        ? await def.dryRun({ workspaceId, databaseId: automation.database_id, automationId: automation.id, runId: null, config: fill(config, trigger, cells) as Record<string, unknown>, trigger, actor: principal, origin: { type: 'automation', id: automation.id } })
        : { error: `No action "${type}" is registered.` };
      steps.push({ action: type, would: would ?? null });
    }
    return { matched, steps };
  }

  private async matches(workspaceId: string, databaseId: string, conditions: unknown, recordId: string, userId: string): Promise<boolean> {
    if (!conditions) return true;
    const table = await this.deps.records().readTable(workspaceId, databaseId);
    const errors: ErrorDetail[] = [];
    const cond = compileFilter(table, conditions, { userId, now: new Date() }, '', errors);
    if (errors.length > 0) return false;
    const row = await this.deps.db.from(table.table).where({ id: recordId }).whereNull('deleted_at').whereRaw(cond.sql, cond.bindings as Knex.RawBinding[]).first('id');
    return !!row;
  }
}
