import type { AccessGrant, Authz, WorkspaceAccess } from '../../core/authz.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import { forbidden, invalidField, notFound, validationFailed } from '../../core/errors.ts';
import { keysetPage, type Page } from '../../core/pagination.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { compile, toErrorDetails } from '../../core/schema.ts';
import type { DatabaseService, FieldService, ManagedFields } from '../databases/public.ts';
import type { SpaceService } from '../spaces/public.ts';
import { SourceErrors } from './errors.ts';
import { CursorExpired, RateLimited, SourceRefused, SourceUnavailable, type SourceKind, type SourceProperty } from './hooks.ts';
import type { SourceInputs } from './inputs.ts';
import type { SourcePush } from './push.ts';
import { propertiesProblem, type SourceKinds } from './kinds.ts';
import type { CreateSourceBody, PatchSourceBody, Source, SourceRun } from './schemas.ts';
import { nextRunAt, presentRun, RUNS, SOURCES, withLastRuns, type RunRow, type SourceRow } from './store.ts';

const NEWEST_FIRST = { keys: [{ column: 'created_at', type: 'timestamptz' as const }, { column: 'id', type: 'uuid' as const }], direction: 'desc' as const };
const NO_SOURCE = 'No such source in this workspace.';

export interface SourceServiceDeps {
  db: Db;
  authz: Authz;
  kinds: SourceKinds;
  inputs: SourceInputs;
  databases: () => DatabaseService;
  fields: () => FieldService;
  managed: () => ManagedFields;
  spaces: () => SpaceService;
  push: () => SourcePush;
  /** Enqueues a run's job in `trx`. */
  enqueue: (runId: string, trx: Db) => Promise<unknown>;
}

/** Sources: made, read, changed and deleted, with the database and fields they write. */
export class SourceService {
  constructor(private readonly deps: SourceServiceDeps) {}

  async create(principal: UserPrincipal, grant: AccessGrant, body: CreateSourceBody): Promise<Source> {
    const { db, authz } = this.deps;
    const ws = grant.workspaceId;
    const kind = this.kindOf(body.kind);
    const config = this.checkedConfig(kind, body.config);
    const connectionId = await this.checkConnection(ws, kind, body.connection_id ?? null);
    const input = await this.deps.inputs.forConfig(kind.provider, connectionId, config);
    await this.asking(() => kind.check?.(input));
    const properties = await this.propertiesOf(kind, input);
    const spaceId = body.database_id ? undefined : (body.space_id ?? (await this.firstSpace(principal, grant.access)));
    const row = await inTransaction(db, async (trx) => {
      let databaseId: string;
      let fields: Record<string, string>;
      if (body.database_id) {
        const held = await authz.holds(principal, grant.access, 'database', body.database_id, 'creator', trx);
        if (held === 'unseen') throw invalidField('/database_id', 'No such database in this workspace.');
        if (held === 'weaker') throw forbidden('Syncing into a database needs the creator role on it.');
        databaseId = body.database_id;
        fields = await this.fieldsFor(principal, ws, databaseId, properties, trx);
      } else {
        const database = await this.deps.databases().create(principal, grant, { name: body.name, space_id: spaceId! }, trx);
        databaseId = database.id;
        const title = database.fields.find((f) => f.is_title)!;
        fields = await this.fieldsFor(principal, ws, databaseId, properties, trx, title.id);
      }
      const schedule = body.schedule ?? 'manual';
      const [row] = (await trx(SOURCES)
        .insert({
          workspace_id: ws,
          database_id: databaseId,
          connection_id: connectionId,
          kind: kind.id,
          name: body.name.trim(),
          config: JSON.stringify(config),
          fields: JSON.stringify(fields),
          schedule,
          delete_policy: body.delete_policy ?? 'delete',
          status: 'idle',
          next_run_at: nextRunAt(schedule, new Date()),
          created_by: principal.user.id,
        })
        .returning('*')) as SourceRow[];
      return row;
    });
    await this.deps.push().open(row);
    return (await withLastRuns(db, [row]))[0];
  }

  /** The sources of the databases the caller sees, newest first. */
  async list(principal: UserPrincipal, access: WorkspaceAccess, page: { limit?: number; cursor?: string }): Promise<Page<Source>> {
    const { db, authz } = this.deps;
    const scopes = authz.visibleScopes(principal, access);
    const q = db(SOURCES).where({ workspace_id: access.workspaceId }).select('*');
    if (scopes !== 'all') {
      const seen = await authz.seenIds(principal, access, 'database', (await db(SOURCES).where({ workspace_id: access.workspaceId }).distinct().pluck('database_id')) as string[]);
      q.whereIn('database_id', [...seen]);
    }
    const rows = await keysetPage<SourceRow>(db, q, NEWEST_FIRST, page);
    return { data: await withLastRuns(db, rows.data), next_cursor: rows.next_cursor };
  }

  async get(principal: UserPrincipal, access: WorkspaceAccess, id: string): Promise<Source> {
    const row = await this.seen(principal, access, id);
    return (await withLastRuns(this.deps.db, [row]))[0];
  }

  async runs(principal: UserPrincipal, access: WorkspaceAccess, id: string, page: { limit?: number; cursor?: string }): Promise<Page<SourceRun>> {
    await this.seen(principal, access, id);
    const rows = await keysetPage<RunRow>(this.deps.db, this.deps.db(RUNS).where({ source_id: id }).select('*'), NEWEST_FIRST, page);
    return { data: rows.data.map(presentRun), next_cursor: rows.next_cursor };
  }

  /** Renames, re-schedules or reconfigures a source (a new config is checked as at creation; its properties must still fit). */
  async update(principal: UserPrincipal, access: WorkspaceAccess, id: string, body: PatchSourceBody): Promise<Source> {
    const before = await this.held(principal, access, id, 'creator');
    const patch: Record<string, unknown> = { updated_at: this.deps.db.fn.now() };
    if (body.name !== undefined) patch.name = body.name.trim();
    if (body.delete_policy !== undefined) patch.delete_policy = body.delete_policy;
    if (body.config !== undefined || body.connection_id !== undefined) {
      const kind = this.kindOf(before.kind);
      if (body.connection_id !== undefined) patch.connection_id = await this.checkConnection(access.workspaceId, kind, body.connection_id);
      const config = body.config !== undefined ? this.checkedConfig(kind, body.config) : before.config;
      const input = await this.deps.inputs.forConfig(kind.provider, (patch.connection_id as string | undefined) ?? before.connection_id, config);
      await this.asking(() => kind.check?.(input));
      const properties = await this.propertiesOf(kind, input);
      const missing = properties.filter((p) => !before.fields[p.key]);
      if (missing.length > 0) throw invalidField('/config', `This config offers properties the source's database has no field for (${missing.map((p) => p.key).join(', ')}); create a new source for it.`);
      // Another config reads other rows: the cursor of the old one means nothing to it.
      if (body.config !== undefined) Object.assign(patch, { config: JSON.stringify(config), cursor: null });
    }
    if (body.schedule !== undefined) {
      // Setting the schedule again starts a paused one.
      Object.assign(patch, { schedule: body.schedule, next_run_at: nextRunAt(body.schedule, new Date()), failures: 0 });
      if (before.status === 'paused') patch.status = 'idle';
    }
    const [row] = (await this.deps.db(SOURCES).where({ id }).update(patch).returning('*')) as SourceRow[];
    return (await withLastRuns(this.deps.db, [row]))[0];
  }

  /** Deletes a source and what it kept; its database stays, its fields become ordinary fields. */
  async delete(principal: UserPrincipal, access: WorkspaceAccess, id: string): Promise<void> {
    const row = await this.held(principal, access, id, 'creator');
    await this.deps.push().close(row);
    await inTransaction(this.deps.db, async (trx) => {
      const [locked] = (await trx(SOURCES).where({ id }).forUpdate().select('id', 'fields')) as SourceRow[];
      if (!locked) throw notFound(NO_SOURCE);
      await this.deps.managed().setSynced(trx, row.database_id, await this.liveFieldIds(trx, Object.values(locked.fields)), false);
      await trx(SOURCES).where({ id }).delete();
    });
  }

  /** Starts a run (202 with its id) unless one is queued or running (409). */
  async startRun(principal: UserPrincipal, access: WorkspaceAccess, id: string, full: boolean, trigger: RunRow['trigger'] = 'manual'): Promise<{ run_id: string }> {
    await this.held(principal, access, id, 'editor');
    return inTransaction(this.deps.db, (trx) => this.enqueueRun(trx, id, full, trigger));
  }

  /** Inserts a queued run of `sourceId` and its job in `trx`; 409 when one is queued or running already. */
  async enqueueRun(trx: Db, sourceId: string, full: boolean, trigger: RunRow['trigger']): Promise<{ run_id: string }> {
    const [source] = (await trx(SOURCES).where({ id: sourceId }).forUpdate().select('id', 'workspace_id', 'status')) as SourceRow[];
    if (!source) throw notFound(NO_SOURCE);
    const live = (await trx(RUNS).where({ source_id: sourceId }).whereIn('status', ['queued', 'running']).first('id')) as { id: string } | undefined;
    if (live) throw SourceErrors.sync_running(live.id);
    const [run] = (await trx(RUNS).insert({ source_id: sourceId, workspace_id: source.workspace_id, status: 'queued', trigger, full }).returning('id')) as Array<{ id: string }>;
    // A manual run of a paused source starts its schedule again.
    await trx(SOURCES).where({ id: sourceId }).update({ status: 'running', last_run_id: run.id, ...(source.status === 'paused' && trigger === 'manual' ? { failures: 0 } : {}), updated_at: trx.fn.now() });
    await this.deps.enqueue(run.id, trx);
    return { run_id: run.id };
  }

  /** The source, when the caller sees its database (404 otherwise). */
  async seen(principal: UserPrincipal, access: WorkspaceAccess, id: string): Promise<SourceRow> {
    const row = (await this.deps.db(SOURCES).where({ id, workspace_id: access.workspaceId }).first()) as SourceRow | undefined;
    if (!row || !(await this.deps.authz.seesResource(principal, access, 'database', row.database_id))) throw notFound(NO_SOURCE);
    return row;
  }

  /** The source, when the caller holds `role` on its database (404 unseen, 403 weaker). */
  async held(principal: UserPrincipal, access: WorkspaceAccess, id: string, role: 'creator' | 'editor'): Promise<SourceRow> {
    const row = (await this.deps.db(SOURCES).where({ id, workspace_id: access.workspaceId }).first()) as SourceRow | undefined;
    if (!row) throw notFound(NO_SOURCE);
    const held = await this.deps.authz.holds(principal, access, 'database', row.database_id, role);
    if (held === 'unseen') throw notFound(NO_SOURCE);
    if (held === 'weaker') throw forbidden(`This needs the ${role} role on the source's database.`);
    return row;
  }

  kindOf(id: string): SourceKind {
    const kind = this.deps.kinds.find(id);
    if (!kind) throw invalidField('/kind', `No source kind "${id}". Known: ${this.deps.kinds.all().map((k) => k.id).join(', ') || 'none (no provider plugin offers one)'}.`);
    return kind;
  }

  private checkedConfig(kind: SourceKind, config: Record<string, unknown>): Record<string, unknown> {
    const copy = structuredClone(config);
    const validate = compile(kind.configSchema);
    if (!validate(copy)) throw validationFailed(toErrorDetails(validate.errors, '/config'));
    return copy;
  }

  /** The connection a kind reads through: one of the workspace's, to the kind's provider; none for a kind without one. */
  private async checkConnection(workspaceId: string, kind: SourceKind, connectionId: string | null): Promise<string | null> {
    if (kind.provider === null) {
      if (connectionId) throw invalidField('/connection_id', `A ${kind.id} source reads without a connection.`);
      return null;
    }
    if (!connectionId) throw invalidField('/connection_id', `A ${kind.id} source reads through a connection to ${kind.provider}.`);
    if (!(await this.deps.inputs.connectionExists(workspaceId, connectionId, kind.provider))) throw invalidField('/connection_id', `No connection to ${kind.provider} with this id in this workspace.`);
    return connectionId;
  }

  /** Runs a kind's call made for the user: its refusal and the provider's failure are 422s, with what they said. */
  async asking<T>(call: () => Promise<T> | undefined): Promise<T | undefined> {
    try {
      return await call();
    } catch (err) {
      if (err instanceof SourceRefused) throw invalidField(err.pointer, err.detail);
      if (err instanceof SourceUnavailable || err instanceof RateLimited || err instanceof CursorExpired) throw SourceErrors.source_unavailable(err.message || 'The provider no longer knows the saved cursor; run a full sync.');
      throw err;
    }
  }

  private async propertiesOf(kind: SourceKind, input: Awaited<ReturnType<SourceInputs['forConfig']>>): Promise<SourceProperty[]> {
    const properties = (await this.asking(() => kind.properties(input)))!;
    const problem = propertiesProblem(properties);
    if (problem) throw SourceErrors.source_unavailable(problem);
    return properties;
  }

  /**
   * The fields a source writes, one per property: in a new database the title field takes the title property (when it
   * is text); in an existing one a field of the property's api_name and type that no other source writes is adopted.
   * Every other property gets a new field, its name and api_name made free where the database has them already.
   */
  private async fieldsFor(principal: UserPrincipal, ws: string, databaseId: string, properties: SourceProperty[], trx: Db, titleId?: string): Promise<Record<string, string>> {
    const existing = await this.deps.managed().ofDatabase(trx, databaseId);
    const taken = new Set(((await trx(SOURCES).where({ database_id: databaseId }).pluck('fields')) as Array<Record<string, string>>).flatMap((f) => Object.values(f)));
    // The title field is renamed to its property: its own name and api_name are free to it.
    const names = new Set(existing.filter((f) => !f.deleted_at && f.id !== titleId).map((f) => f.name.toLowerCase()));
    const apiNames = new Set(existing.filter((f) => f.id !== titleId).map((f) => f.api_name));
    const title = titleId ? titleProperty(properties) : undefined;
    const fields: Record<string, string> = {};
    for (const p of properties) {
      if (p === title) {
        const name = free(p.name, (n) => names.has(n.toLowerCase()), ' ');
        const apiName = free(apiNameOf(p), (n) => apiNames.has(n), '_');
        await this.deps.fields().update(principal, ws, databaseId, titleId!, { name, api_name: apiName }, trx);
        names.add(name.toLowerCase());
        apiNames.add(apiName);
        fields[p.key] = titleId!;
        continue;
      }
      const same = titleId ? undefined : existing.find((f) => !f.deleted_at && f.api_name === apiNameOf(p) && f.type === p.type && !taken.has(f.id));
      if (same) {
        fields[p.key] = same.id;
        continue;
      }
      const name = free(p.name, (n) => names.has(n.toLowerCase()), ' ');
      const apiName = free(apiNameOf(p), (n) => apiNames.has(n), '_');
      const field = await this.deps.fields().create(principal, ws, databaseId, { name, api_name: apiName, type: p.type, ...(p.options ? { options: p.options } : {}) }, trx);
      names.add(name.toLowerCase());
      apiNames.add(apiName);
      fields[p.key] = field.id;
    }
    await this.deps.managed().setSynced(trx, databaseId, Object.values(fields), true);
    return fields;
  }

  /** The first space the caller may create a database in. */
  private async firstSpace(principal: UserPrincipal, access: WorkspaceAccess): Promise<string> {
    const spaces = await this.deps.spaces().listVisible(principal, access, { limit: 100 });
    for (const space of spaces.data) if ((await this.deps.authz.holds(principal, access, 'space', space.id, 'creator')) === 'held') return space.id;
    throw invalidField('/space_id', 'Name the space the new database goes in (no space of this workspace lets you create one).');
  }

  private async liveFieldIds(trx: Db, ids: string[]): Promise<string[]> {
    const found = await this.deps.managed().byIds(trx, ids);
    return [...found.keys()];
  }

  /** Every source of a deleted database goes with it. */
  async forgetDatabase(trx: Db, databaseId: string): Promise<void> {
    await trx(SOURCES).where({ database_id: databaseId }).delete();
  }
}

/** The property that names a record: one marked so, else the unique one or the first text one, when it is text. */
function titleProperty(properties: SourceProperty[]): SourceProperty | undefined {
  const text = properties.filter((p) => p.type === 'text');
  return text.find((p) => p.key === 'title' || p.key === 'summary' || p.key === 'name') ?? text.find((p) => p.unique) ?? text[0];
}

/** A property's api_name: its key, as an api_name may be written. */
function apiNameOf(p: SourceProperty): string {
  const name = p.key.toLowerCase().replace(/[^a-z0-9_]+/g, '_').replace(/^_+|_+$/g, '');
  return /^[a-z]/.test(name) ? name.slice(0, 63) : `f_${name}`.slice(0, 63);
}

/** `base`, or the first of `base<sep>2`, `base<sep>3`… that is not `taken`. */
function free(base: string, taken: (candidate: string) => boolean, sep: string): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) if (!taken(`${base}${sep}${n}`)) return `${base}${sep}${n}`;
}
