import type { Knex } from 'knex';
import type { LocalCache } from '../../core/cache.ts';
import type { Db } from '../../core/db.ts';
import { compileFilter, type RecordChange, type RecordsChanged, type RecordService } from '../records/public.ts';
import type { TriggerData } from './actions.ts';
import type { AutomationRow } from './automations.service.ts';
import type { NewRun, RunService } from './runs.service.ts';

export const RECORD_TRIGGERS = ['record_created', 'record_updated', 'record_matches'];
export const MATCHED = 'automation_matched';

interface Deps {
  cache: LocalCache<AutomationRow[]>;
  records: () => RecordService;
  runs: () => RunService;
  maxChainDepth: number;
}

const valuesOf = (r: RecordChange['before']) => (r ? r.values : null);

/**
 * Hears every record write inside its transaction (`records.changes`), so the runs it queues exist only if the write
 * commits and the write's origin tells a run's own writes apart (the loop guard). A database without enabled record
 * automations costs one cache lookup; one with some, one statement that evaluates every automation's conditions.
 */
export class TriggerListener {
  constructor(private readonly deps: Deps) {}

  /** The enabled record-triggered automations of a database, kept per process until one of them changes. */
  heardBy(trx: Db, databaseId: string): Promise<AutomationRow[]> {
    return this.deps.cache.get(databaseId, 'all', () =>
      trx('automations').where({ database_id: databaseId, enabled: true }).whereIn('trigger_type', RECORD_TRIGGERS).select('id', 'workspace_id', 'database_id', 'name', 'trigger', 'conditions', 'created_by'),
    );
  }

  /** Drops this process's entry for a database at once (other processes hear the table's signal). */
  forget(databaseId: string): void {
    this.deps.cache.drop(databaseId);
  }

  async changed(e: RecordsChanged): Promise<void> {
    const automations = await this.heardBy(e.trx, e.databaseId);
    if (automations.length === 0) return;
    const changes = e.changes.filter((c) => (c.kind === 'created' || c.kind === 'updated') && c.after);
    if (changes.length === 0) return;
    const apiNames = new Map(e.fields.map((f) => [f.id, f.api_name]));
    const candidates = automations.flatMap((a) => changes.filter((c) => fires(a, c, apiNames)).map((c) => ({ a, c })));
    if (candidates.length === 0) return;
    const chain = this.deps.runs().chainOf(e.origin);
    const matched = await this.matching(e.trx, e.databaseId, e.workspaceId, [...new Set(candidates.map(({ a }) => a))], [...new Set(candidates.map(({ c }) => c.recordId))]);
    const runs: NewRun[] = [];
    for (const { a, c } of candidates) {
      const matches = matched.get(a.id)?.has(c.recordId) ?? false;
      if (a.trigger.type === 'record_matches') {
        if (!(await this.startsMatching(e.trx, a.id, c.recordId, matches))) continue;
      } else if (!matches) continue;
      const inChain = chain && chain.recordId === c.recordId ? chain.chain : [];
      const trigger: TriggerData = {
        type: a.trigger.type,
        record_id: c.recordId,
        event_id: null,
        before: valuesOf(c.before),
        after: valuesOf(c.after),
        started_by: e.origin.type === 'automation' ? null : (e.actor?.user.id ?? null),
        depth: chain?.depth ?? 0,
        chain: inChain,
      };
      runs.push({ automationId: a.id, workspaceId: a.workspace_id, databaseId: a.database_id, trigger, canceled: this.refusal(a, trigger) });
    }
    await this.deps.runs().start(e.trx, runs);
  }

  /** Why a run is recorded but not started: the loop guard (the workspace's rate is counted by the run's job). */
  refusal(a: { id: string; workspace_id: string }, trigger: TriggerData): string | undefined {
    if (trigger.depth >= this.deps.maxChainDepth) return `Loop guard: a chain of automation runs stops at depth ${this.deps.maxChainDepth}.`;
    if (trigger.chain.includes(a.id)) return 'Loop guard: this automation already ran for this record in this chain.';
    return undefined;
  }

  /** For each automation, the records among `ids` that match its conditions now (one statement for all). */
  private async matching(trx: Db, databaseId: string, workspaceId: string, automations: AutomationRow[], ids: string[]): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>(automations.map((a) => [a.id, new Set<string>()]));
    const conditional = automations.filter((a) => a.conditions);
    for (const a of automations) if (!a.conditions) for (const id of ids) out.get(a.id)!.add(id);
    if (conditional.length === 0) return out;
    const table = await this.deps.records().open(trx, workspaceId, databaseId);
    const columns: Knex.Raw[] = [];
    conditional.forEach((a, i) => {
      const errors: never[] = [];
      const cond = compileFilter(table, a.conditions, { userId: a.created_by ?? '', now: new Date() }, '', errors);
      // Conditions that no longer fit the fields (a field deleted since) match nothing.
      columns.push(trx.raw(`${errors.length > 0 ? 'false' : cond.sql} AS ??`, [...(errors.length > 0 ? [] : (cond.bindings as Knex.RawBinding[])), `m${i}`]));
    });
    const rows: Array<Record<string, unknown>> = await trx.from(table.table).whereIn('id', ids).whereNull('deleted_at').select('id', ...columns);
    for (const row of rows) conditional.forEach((a, i) => row[`m${i}`] && out.get(a.id)!.add(row.id as string));
    return out;
  }

  /** Whether a record starts matching now: remembered as matching, it does not start again until it stops. */
  private async startsMatching(trx: Db, automationId: string, recordId: string, matches: boolean): Promise<boolean> {
    if (!matches) {
      await trx(MATCHED).where({ automation_id: automationId, record_id: recordId }).del();
      return false;
    }
    const inserted = await trx(MATCHED).insert({ automation_id: automationId, record_id: recordId }).onConflict(['automation_id', 'record_id']).ignore().returning('record_id');
    return inserted.length > 0;
  }
}

function fires(a: AutomationRow, c: RecordChange, apiNames: Map<string, string>): boolean {
  switch (a.trigger.type) {
    case 'record_created':
      return c.kind === 'created';
    case 'record_updated':
      return c.kind === 'updated' && c.changed.length > 0 && (!a.trigger.fields || c.changed.some((id) => a.trigger.type === 'record_updated' && a.trigger.fields!.includes(apiNames.get(id) ?? '')));
    case 'record_matches':
      return true;
    default:
      return false;
  }
}
