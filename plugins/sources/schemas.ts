import { pageQuery } from '../../core/pagination.ts';
import { Type, type Static } from '../../core/schema.ts';

export const SourcesOptions = Type.Object(
  {
    allowPrivateNetworks: Type.Optional(
      Type.Boolean({ default: false, description: 'Let a URL or host a user gives a source (an iCal feed) be a loopback, private or link-local address.' }),
    ),
    maxWaitSeconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 3600, default: 300, description: "Longest a run waits in place for a provider's rate limit (Retry-After); past it the run fails and the next one is scheduled after the wait." }),
    ),
    pauseAfterFailures: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 5, description: 'Failed runs in a row after which a schedule pauses itself (the creator is notified).' })),
  },
  { additionalProperties: false },
);
export type SourcesOptions = Static<typeof SourcesOptions>;

const Uuid = Type.String({ format: 'uuid' });
const Timestamp = Type.String({ format: 'date-time' });
const Name = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });

export const SCHEDULES = ['manual', '15m', 'hourly', 'daily'] as const;
export type Schedule = (typeof SCHEDULES)[number];
export const DELETE_POLICIES = ['delete', 'keep'] as const;
export const SOURCE_STATUSES = ['idle', 'running', 'error', 'paused'] as const;
export type SourceStatus = (typeof SOURCE_STATUSES)[number];
export const RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

const literals = <T extends readonly string[]>(values: T, description?: string) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });
const ScheduleSchema = literals(SCHEDULES, '`manual`: only when asked; otherwise every 15 minutes, hour or day.');
const DeletePolicy = literals(DELETE_POLICIES, 'What becomes of the record of a row gone at the source: `delete` moves it to the trash, `keep` leaves it.');

export const WorkspaceParams = Type.Object({ ws: Uuid });
export const SourceParams = Type.Object({ ws: Uuid, id: Uuid });
export const ListQuery = pageQuery();

export const CreateSourceBody = Type.Object(
  {
    kind: Type.String({ minLength: 1, maxLength: 100, description: 'A kind a provider plugin offers (`ical.events`, `github.issues`, …).' }),
    name: Name,
    connection_id: Type.Optional(Type.Union([Uuid, Type.Null()], { description: "One of the workspace's connections to the kind's provider; none for a kind that needs none." })),
    config: Type.Record(Type.String(), Type.Unknown(), { description: "The kind's config (see the kind's README)." }),
    database_id: Type.Optional(Type.Union([Uuid, Type.Null()], { description: 'A database to sync into (its fields matched to the properties by api_name); without it a database is created.' })),
    space_id: Type.Optional(Uuid),
    schedule: Type.Optional(ScheduleSchema),
    delete_policy: Type.Optional(DeletePolicy),
  },
  { additionalProperties: false },
);
export type CreateSourceBody = Static<typeof CreateSourceBody>;

export const PatchSourceBody = Type.Object(
  {
    name: Type.Optional(Name),
    connection_id: Type.Optional(Uuid),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    schedule: Type.Optional(ScheduleSchema),
    delete_policy: Type.Optional(DeletePolicy),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchSourceBody = Static<typeof PatchSourceBody>;

export const SyncBody = Type.Object(
  {
    full: Type.Optional(Type.Boolean({ default: false, description: 'Read everything again instead of from the saved cursor (rows gone at the source are found).' })),
    dry_run: Type.Optional(Type.Boolean({ default: false, description: 'Read the source and answer what a run would change, writing nothing.' })),
  },
  { additionalProperties: false },
);
export type SyncBody = Static<typeof SyncBody>;

export const LastRun = Type.Object({
  id: Uuid,
  status: literals(RUN_STATUSES),
  started_at: Type.Union([Timestamp, Type.Null()]),
  finished_at: Type.Union([Timestamp, Type.Null()]),
  created: Type.Integer(),
  updated: Type.Integer(),
  deleted: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type LastRun = Static<typeof LastRun>;

export const SourceRun = Type.Composite([
  LastRun,
  Type.Object({
    trigger: literals(['manual', 'schedule', 'push'] as const),
    full: Type.Boolean(),
    skipped: Type.Integer({ description: 'Rows the database refused (a value its field does not accept); `row_errors` says why, for the first 100.' }),
    row_errors: Type.Array(Type.Object({ key: Type.String(), detail: Type.String() })),
    created_at: Timestamp,
  }),
]);
export type SourceRun = Static<typeof SourceRun>;

export const Source = Type.Object({
  id: Uuid,
  workspace_id: Uuid,
  connection_id: Type.Union([Uuid, Type.Null()]),
  kind: Type.String(),
  name: Type.String(),
  database_id: Uuid,
  config: Type.Record(Type.String(), Type.Unknown()),
  schedule: ScheduleSchema,
  delete_policy: DeletePolicy,
  status: literals(SOURCE_STATUSES, '`paused`: its schedule stopped after failed runs in a row (a manual sync or a PATCH of the schedule starts it again).'),
  last_run: Type.Union([LastRun, Type.Null()]),
  created_at: Timestamp,
});
export type Source = Static<typeof Source>;

export const DryRun = Type.Object({
  create: Type.Integer(),
  update: Type.Integer(),
  delete: Type.Integer(),
  samples: Type.Object({
    create: Type.Array(Type.Object({ key: Type.String(), values: Type.Record(Type.String(), Type.Unknown()) })),
    update: Type.Array(Type.Object({ key: Type.String(), values: Type.Record(Type.String(), Type.Unknown()) })),
    delete: Type.Array(Type.Object({ key: Type.String() })),
  }),
});
export type DryRun = Static<typeof DryRun>;
