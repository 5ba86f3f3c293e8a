import type { Db } from '../../core/db.ts';
import type { ErrorDetail } from '../../core/errors.ts';
import type { DomainEvent } from '../../core/events.ts';
import type { TriggerData } from './actions.ts';
import type { NewRun, RunService } from './runs.service.ts';
import type { Trigger } from './schemas.ts';

type IntegrationTrigger = Extract<Trigger, { type: 'integration_event' }>;

/** What an `integration.*` event carries (the integrations plugin's `IntegrationEventPayload`), as far as a trigger reads it. */
interface Told {
  provider: string;
  connection_id: string;
  delivery_id: string | null;
  event: string;
  payload: unknown;
}

/** Whether `trigger` fires for what a provider told: its provider, the event or one under it, the connection if named. */
export function fires(trigger: IntegrationTrigger, told: Told): boolean {
  if (trigger.provider !== told.provider) return false;
  if (trigger.connection_id && trigger.connection_id !== told.connection_id) return false;
  return told.event === trigger.event || told.event.startsWith(`${trigger.event}.`);
}

/** How a trigger is checked against the workspace's providers and connections (the integrations plugin, when it is on). */
export type IntegrationCheck = (db: Db, workspaceId: string, trigger: IntegrationTrigger, errors: ErrorDetail[]) => Promise<void>;

/**
 * Starts the runs of `integration_event` automations as the integrations plugin's events are fanned out, in the
 * fan-out's transaction: a delivery starts each automation once, whatever happens to the process. The run's trigger
 * carries what the provider sent as `body` (`{{trigger.body.<path>}}`).
 */
export class IntegrationTriggers {
  constructor(private readonly runs: () => RunService, private readonly refusal: (a: { id: string; workspace_id: string }, t: TriggerData) => string | undefined) {}

  async told(trx: Db, events: DomainEvent[]): Promise<void> {
    const byWorkspace = new Map<string, DomainEvent[]>();
    for (const e of events) if (e.workspace_id) byWorkspace.set(e.workspace_id, [...(byWorkspace.get(e.workspace_id) ?? []), e]);
    const runs: NewRun[] = [];
    for (const [workspaceId, told] of byWorkspace) {
      const automations: Array<{ id: string; workspace_id: string; database_id: string; trigger: IntegrationTrigger }> = await trx('automations')
        .where({ workspace_id: workspaceId, enabled: true, trigger_type: 'integration_event' })
        .select('id', 'workspace_id', 'database_id', 'trigger');
      for (const e of told) {
        const payload = e.payload as Told;
        for (const a of automations.filter((a) => fires(a.trigger, payload))) {
          const trigger: TriggerData = {
            type: 'integration_event',
            record_id: null,
            event_id: String(e.id),
            before: null,
            after: null,
            body: payload.payload,
            integration: { provider: payload.provider, event: payload.event, connection_id: payload.connection_id, delivery_id: payload.delivery_id },
            depth: 0,
            chain: [],
          };
          runs.push({ automationId: a.id, workspaceId, databaseId: a.database_id, trigger, canceled: this.refusal(a, trigger) });
        }
      }
    }
    await this.runs().start(trx, runs);
  }
}
