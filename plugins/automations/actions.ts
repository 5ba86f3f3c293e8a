import type { TSchema } from '@sinclair/typebox';
import { SyncWaterfallHook } from '../../core/hooks.ts';
import type { Db } from '../../core/db.ts';
import type { ErrorDetail } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { WriteOrigin } from '../records/public.ts';

/** What started a run, as its actions see it: `{{trigger.<path>}}` reads this. */
export interface TriggerData {
  type: string;
  record_id: string | null;
  event_id: string | null;
  /** The record's values before the write (null for a create or when no record triggered). */
  before: Record<string, unknown> | null;
  /** The record's values after the write. */
  after: Record<string, unknown> | null;
  /** The person whose write (or press) started the run; null for a run started by another run, a form or a hook. */
  started_by?: string | null;
  /** An inbound webhook's JSON body, or what a provider sent (an integration event). */
  body?: unknown;
  /** An integration event's provider, event, connection and the provider's delivery id. */
  integration?: { provider: string; event: string; connection_id: string; delivery_id: string | null };
  /** A schedule trigger's fire time (ISO 8601). */
  scheduled_for?: string;
  /** The id of the button field pressed. */
  field?: string;
  /** How many automation runs led to this one (0: a person's write); the loop guard stops at the limit. */
  depth: number;
  /** Automation ids already run for this record in this chain. */
  chain: string[];
}

/** What an action is handed: its config with placeholders filled, and who and what it acts for. */
export interface ActionContext<C = Record<string, unknown>> {
  workspaceId: string;
  databaseId: string;
  automationId: string;
  runId: string | null;
  config: C;
  trigger: TriggerData;
  /** The automation's creator: writes are theirs, with `origin` telling the automation. */
  actor: UserPrincipal;
  origin: WriteOrigin;
}

/** A check of a config against the workspace, at save time (e.g. a database or a field exists). */
export interface ConfigCheck<C = Record<string, unknown>> {
  /** Where to read: the transaction the automation is saved in (a pack install), or the instance's database. */
  db: Db;
  workspaceId: string;
  databaseId: string;
  config: C;
  /** Where the config sits in the request body, for error pointers. */
  pointer: string;
  errors: ErrorDetail[];
}

/**
 * How an action's config crosses workspaces in a pack. A config that names something of its workspace by id (a
 * database, a member) says it by the pack's ref on the way out, and by the new id on the way in. An action without
 * this part travels as it is, unless its config holds an id: then its automation stays home.
 */
export interface ActionPackPart<C = any> {
  /** The config as it travels, ids said as refs (`ref` answers undefined for what is not in the pack); undefined: it cannot travel. */
  out(config: C, ref: (kind: string, id: string) => string | undefined): C | undefined;
  /** The config as installed: refs back to the new ids (`id` throws, at `pointer`, for a ref the pack lacks). */
  in(config: C, id: (kind: string, ref: unknown, pointer: string) => string, pointer: string): C;
}

/**
 * One action type. The built-in ones register through the same hook as any plugin's: `automations.actions`.
 * `run` does it and answers the step's output; `dryRun` answers what it would do and writes, sends or queues nothing.
 */
export interface ActionDefinition<C = any> {
  type: string;
  /** The config's schema (without `type`): checked at save, with pointers. */
  schema: TSchema;
  /** Whether a failed attempt may be tried again (sending a webhook), or never (a write). */
  retrySafe: boolean;
  check?: (req: ConfigCheck<C>) => Promise<void>;
  pack?: ActionPackPart<C>;
  run: (ctx: ActionContext<C>) => Promise<unknown>;
  dryRun: (ctx: ActionContext<C>) => Promise<unknown>;
}

/** `automations.actions`: tap `register` and push your action definitions. */
export function createActionHooks() {
  return { register: new SyncWaterfallHook<[ActionDefinition[]]>(['actions']) };
}
export type ActionHooks = Readonly<ReturnType<typeof createActionHooks>>;

declare module '../../core/hooks.ts' {
  interface PluginHookMap {
    'automations.actions': ActionHooks;
  }
}

/** The actions every tap registered, by type; read once, on first use, when every plugin has registered. */
export class ActionRegistry {
  private byType?: Map<string, ActionDefinition>;
  constructor(private readonly hooks: ActionHooks) {}

  get(type: string): ActionDefinition | undefined {
    this.byType ??= new Map(this.hooks.register.call([]).map((a) => [a.type, a]));
    return this.byType.get(type);
  }

  types(): string[] {
    this.get('');
    return [...this.byType!.keys()];
  }
}

/** An action that could not do its work: the step fails with this message (never retried unless the action is retry-safe). */
export class StepFailed extends Error {
  constructor(
    message: string,
    readonly errors: ErrorDetail[] = [],
  ) {
    super(errors.length > 0 ? `${message} ${errors.map((e) => `${e.pointer}: ${e.detail}`).join('; ')}` : message);
  }
}

