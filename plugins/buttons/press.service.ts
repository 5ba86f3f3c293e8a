import { inTransaction, type Db } from '../../core/db.ts';
import { forbidden, notFound } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { AutomationService, RunService, TriggerData, TriggerListener } from '../automations/public.ts';
import type { FieldService } from '../databases/public.ts';
import type { RecordService } from '../records/public.ts';
import { ButtonErrors } from './errors.ts';
import type { ButtonOptions } from './schemas.ts';

interface Deps {
  db: Db;
  records: () => RecordService;
  fields: () => FieldService;
  automations: () => AutomationService;
  runs: () => RunService;
  triggers: () => TriggerListener;
}

/** A press: the button's automation runs for the record, through the automations plugin's own run service. */
export class ButtonPresses {
  constructor(private readonly deps: Deps) {}

  async press(principal: UserPrincipal, workspaceId: string, databaseId: string, recordId: string, fieldRef: string): Promise<{ run_id: string }> {
    // A token acts for its owner only as far as it was allowed: pressing runs actions under the automation's creator.
    if (principal.kind === 'pat' && !principal.allowRunButton) throw forbidden('This token may not press buttons: create one with allow_run_button.');
    // The record as its reader sees it (404 when out of reach); its values are what {{record.x}} reads.
    const record = await this.deps.records().get(principal, workspaceId, databaseId, recordId);
    const field = await this.deps.fields().get(databaseId, fieldRef);
    if (field.type !== 'button') throw notFound(`No button field "${fieldRef}" in this database.`);
    const options = field.options as ButtonOptions;
    const automation = await this.deps.automations().ofDatabase(databaseId, options.automation_id);
    if (!automation || automation.trigger.type !== 'button') throw ButtonErrors.automation_missing();
    if (!automation.enabled) throw ButtonErrors.automation_disabled();
    const trigger: TriggerData = { type: 'button', record_id: recordId, field: field.id, event_id: null, before: null, after: record.values as Record<string, unknown>, depth: 0, chain: [] };
    const canceled = this.deps.triggers().refusal(automation, trigger);
    const [runId] = await inTransaction(this.deps.db, (trx) => this.deps.runs().start(trx, [{ automationId: automation.id, workspaceId, trigger, canceled }], { refuseOverLimit: true }));
    return { run_id: runId };
  }
}
