import { Type, type Static, type TSchema } from '../../core/schema.ts';
import { pageOf, pageQuery } from '../../core/pagination.ts';
import { FilterNode } from '../records/public.ts';

export const AutomationsOptions = Type.Object(
  {
    maxRunsPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 600, description: 'Runs one workspace may start per minute; triggers past it are recorded as canceled runs.' })),
    maxChainDepth: Type.Optional(Type.Integer({ minimum: 1, maximum: 20, default: 5, description: 'How many automation runs may follow one another through the writes they make.' })),
    pauseAfterFailures: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 5, description: 'Consecutive failed runs after which an automation is disabled and its creator notified.' })),
    retentionDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, default: 90, description: 'Runs older than this are deleted by a daily job.' })),
    hookMaxBytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 10485760, default: 65536, description: 'Largest body `POST /hooks/{token}` reads; past it, 413.' })),
    hookRequestsPerMinute: Type.Optional(Type.Integer({ minimum: 1, maximum: 100000, default: 60, description: 'Per minute, counted across instances: signed posts one hook token may receive, as many unsigned ones, and as many bad signatures from one client address; past one, 429.' })),
  },
  { additionalProperties: false },
);
export type AutomationsOptions = Static<typeof AutomationsOptions>;

const Uuid = Type.String({ format: 'uuid' });
export const WorkspaceParams = Type.Object({ ws: Uuid });
export const AutomationParams = Type.Object({ ws: Uuid, id: Uuid });
export const RunParams = Type.Object({ ws: Uuid, id: Uuid });
export const HookParams = Type.Object({ token: Type.String({ pattern: '^[A-Za-z0-9_-]{16,128}$' }) });
export const HookBody = Type.Unknown({ description: 'Any JSON; actions read it as `{{trigger.body.<path>}}`.' });
export const RunStarted = Type.Object({ run_id: Uuid });

const ApiName = Type.String({ minLength: 1, maxLength: 128 });
/** The `integration_event` trigger; `connectionId` is a connection's id, or its ref in a pack. */
export function integrationEventTrigger<C extends TSchema>(connectionId: C) {
  return Type.Object(
    {
      type: Type.Literal('integration_event'),
      provider: Type.String({ pattern: '^[a-z][a-z0-9-]{0,62}$', description: 'A provider of `GET /integrations`.' }),
      event: Type.String({
        pattern: '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$',
        maxLength: 128,
        description: 'The event its deliveries become (`issues`), or one under it (`issues.opened`): `issues` fires for `issues.opened` too.',
      }),
      connection_id: Type.Optional(connectionId),
    },
    { additionalProperties: false, description: 'A delivery from a provider, told as `integration.<provider>.<event>`; actions read what it sent as `{{trigger.body.<path>}}`.' },
  );
}

export const Trigger = Type.Union([
  Type.Object({ type: Type.Literal('record_created') }, { additionalProperties: false }),
  Type.Object(
    { type: Type.Literal('record_updated'), fields: Type.Optional(Type.Array(ApiName, { minItems: 1, maxItems: 100, uniqueItems: true, description: 'Only when one of these fields changed.' })) },
    { additionalProperties: false },
  ),
  Type.Object({ type: Type.Literal('record_matches') }, { additionalProperties: false, description: 'A record starts matching `conditions`.' }),
  Type.Object({ type: Type.Literal('schedule'), cron: Type.String({ minLength: 9, maxLength: 100 }), timezone: Type.String({ minLength: 1, maxLength: 64 }) }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('button') }, { additionalProperties: false }),
  Type.Object({ type: Type.Literal('inbound_webhook') }, { additionalProperties: false }),
  integrationEventTrigger(Type.String({ format: 'uuid', description: "Only this connection's deliveries (any of the provider's in the workspace otherwise)." })),
]);
export type Trigger = Static<typeof Trigger>;
export type TriggerType = Trigger['type'];

/** An action as stored: its type and the config the action's own schema checks. */
export const Action = Type.Object(
  { type: Type.String({ pattern: '^[a-z][a-z0-9_]*$', maxLength: 64, description: 'A registered action: update_record, create_record, … or one a plugin adds.' }) },
  { additionalProperties: true },
);
export type Action = Static<typeof Action> & Record<string, unknown>;
const Actions = Type.Array(Action, { minItems: 1, maxItems: 20, description: 'Run in order; a failed step ends the run.' });

export const CreateAutomationBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    database_id: Uuid,
    trigger: Trigger,
    conditions: Type.Optional(Type.Union([FilterNode, Type.Null()])),
    actions: Actions,
    enabled: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type CreateAutomationBody = Static<typeof CreateAutomationBody>;

export const PatchAutomationBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    trigger: Type.Optional(Trigger),
    conditions: Type.Optional(Type.Union([FilterNode, Type.Null()])),
    actions: Type.Optional(Actions),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchAutomationBody = Static<typeof PatchAutomationBody>;

export const Automation = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  name: Type.String(),
  database_id: Uuid,
  enabled: Type.Boolean(),
  trigger: Type.Unknown(),
  conditions: Type.Unknown(),
  actions: Type.Array(Type.Unknown()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  hook_url: Type.Optional(Type.String({ description: 'Inbound webhook automations, in the create and rotate answers only.' })),
  hook_secret: Type.Optional(Type.String({ description: 'Inbound webhook automations, in the create and rotate answers only.' })),
});
export type Automation = Static<typeof Automation>;
export const AutomationList = pageOf(Automation);
export const ListQuery = pageQuery();

export const RunStatus = Type.Union(['queued', 'running', 'waiting_for_approval', 'succeeded', 'failed', 'canceled'].map((s) => Type.Literal(s)));
export type RunStatus = 'queued' | 'running' | 'waiting_for_approval' | 'succeeded' | 'failed' | 'canceled';

export const Step = Type.Object({
  action: Type.String(),
  status: Type.Union([Type.Literal('running'), Type.Literal('succeeded'), Type.Literal('failed')]),
  output: Type.Unknown(),
  error: Type.Union([Type.String(), Type.Null()]),
  started_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type Step = Static<typeof Step>;

export const Run = Type.Object({
  id: Uuid,
  automation_id: Uuid,
  status: RunStatus,
  trigger: Type.Object({ type: Type.String(), record_id: Type.Union([Uuid, Type.Null()]), event_id: Type.Union([Type.String(), Type.Null()]) }, { additionalProperties: true }),
  steps: Type.Array(Step),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why a run was canceled or failed without a step (loop guard, rate limit, cancel).' }),
  created_at: Type.String({ format: 'date-time' }),
  finished_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type Run = Static<typeof Run>;
export const RunList = pageOf(Run);

export const DryRunBody = Type.Object(
  {
    record_id: Type.Optional(Type.String({ format: 'uuid', description: 'The record to try it on. Required unless the trigger is a schedule or an inbound webhook, whose runs have no record.' })),
    body: Type.Optional(Type.Unknown({ description: "An inbound webhook's JSON body, as `{{trigger.body.…}}` would read it." })),
  },
  { additionalProperties: false },
);
export type DryRunBody = Static<typeof DryRunBody>;
export const DryRun = Type.Object({ matched: Type.Boolean(), steps: Type.Array(Type.Object({ action: Type.String(), would: Type.Unknown() })) });
export type DryRun = Static<typeof DryRun>;
