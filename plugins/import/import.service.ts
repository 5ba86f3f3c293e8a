import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Authz, AccessGrant } from '../../core/authz.ts';
import type { BlobStore } from '../../core/blobs.ts';
import { afterCommit, inTransaction, type Database as Storage, type Db } from '../../core/db.ts';
import { AppError, notFound, unsupportedMediaType, validationFailed } from '../../core/errors.ts';
import type { TokenScope, UserPrincipal } from '../../core/principal.ts';
import type { Upload } from '../../core/streamed-uploads.ts';
import type { FieldService, FieldTypeRegistry } from '../databases/public.ts';
import type { RecordService, RecordTable } from '../records/public.ts';
import { csvRecords, countRows, MalformedCsv, NotText } from './csv-source.ts';
import { rowsInvalid } from './errors.ts';
import { importRows, type RowsOutcome } from './import-rows.ts';
import { parseMapping, planImport, type Plan } from './mapping.ts';
import type { DryRunResult, ImportOptions, ImportStatus, ImportStatusName, RowError } from './schemas.ts';

const TABLE = 'import_runs';

interface RunRow {
  id: string;
  workspace_id: string;
  database_id: string;
  created_by: string;
  actor: StoredActor;
  mapping: Record<string, unknown>;
  blob_key: string | null;
  status: ImportStatusName;
  rows: number | null;
  done: number;
  created: number;
  errors: RowError[];
  created_at: Date;
  finished_at: Date | null;
}

/** Who a job writes as: the request's principal without the person's name or address (a run row keeps ids only). */
type StoredActor = { kind: 'session'; userId: string } | { kind: 'pat'; userId: string; tokenId: string; workspaceId: string; scope: TokenScope; allowRunButton: boolean };

function storedActor(p: UserPrincipal): StoredActor {
  return p.kind === 'pat' ? { kind: 'pat', userId: p.user.id, tokenId: p.tokenId, workspaceId: p.workspaceId, scope: p.scope, allowRunButton: p.allowRunButton } : { kind: 'session', userId: p.user.id };
}

/** The principal a job acts as: the user by id (writes and history name users by id), as the session or token that sent the file. */
function actingAs(actor: StoredActor): UserPrincipal {
  const user = { id: actor.userId, email: '', name: '', is_instance_admin: false, avatar_key: null, avatar_updated_at: null, created_at: new Date(0) };
  return actor.kind === 'pat' ? { ...actor, user } : { kind: 'session', sessionId: '', user };
}

const WRITE_RULE = { role: 'editor' as const, resource: { type: 'database', param: 'db' } };

/** What the route answers: 200 a dry run, 201 records created, 202 a job queued. */
export type Started = { status: 200; body: DryRunResult } | { status: 201; body: { created: number } } | { status: 202; body: { import_id: string } };

export interface StartInput {
  principal: UserPrincipal;
  access: AccessGrant;
  workspaceId: string;
  databaseId: string;
  upload: Upload;
  /** The multipart text parts. */
  fields: Record<string, unknown>;
}

/** A real import refused by its rows: thrown inside the transaction so that it rolls back. */
class Refused extends Error {
  constructor(readonly outcome: RowsOutcome) {
    super('rows invalid');
  }
}

/**
 * CSV imports into a database. Small files are imported in the request; files of more than `syncMaxRows`
 * data rows are queued as a job whose progress `status` reports. Either way one transaction creates the
 * mapped new fields and every record, or nothing at all.
 */
export class ImportService {
  /** The jobs this process runs, with their progress: on PGlite (one connection, held by the job's transaction) it cannot be written to the table while they run. */
  private readonly running = new Map<string, { row: RunRow; rows: number | null; done: number }>();

  constructor(
    private readonly db: Db,
    private readonly storage: Storage,
    private readonly blobs: BlobStore,
    private readonly records: RecordService,
    private readonly fields: FieldService,
    private readonly types: FieldTypeRegistry,
    private readonly authz: Authz,
    private readonly enqueue: (data: { id: string }, trx: Db) => Promise<unknown>,
    private readonly options: ImportOptions,
    private readonly logger: Logger,
  ) {}

  async start(input: StartInput): Promise<Started> {
    const { principal, upload, fields } = input;
    const dryRun = parseDryRun(fields.dry_run);
    if (upload.detected) throw unsupportedMediaType(`The file is ${upload.detected.mime}, not CSV text.`);
    const mapping = parseMapping(fields.mapping);
    const headers = await this.headersOf(upload.key);
    const table = await this.records.seenBy(principal, await this.records.readTable(input.workspaceId, input.databaseId));
    const plan = planImport(headers, mapping, table, this.types);
    // New fields are a creator's to make, as through the fields routes.
    if (plan.targets.some((t) => t.create)) this.authz.demand(principal, input.access, 'creator');
    if (dryRun) return { status: 200, body: await this.dryRun(input, plan) };
    const rows = await this.read(upload.key, (source) => countRows(source, this.options.syncMaxRows));
    if (rows > this.options.syncMaxRows) return { status: 202, body: { import_id: await this.queue(input, mapping) } };
    const id = randomUUID();
    const outcome = await this.importAll(id, input.principal, input.workspaceId, input.databaseId, upload.key, mapping, async (trx, result) => {
      await trx(TABLE).insert(this.newRow(id, input, mapping, { status: 'succeeded', blob_key: null, rows: result.rows, done: result.rows, created: result.created, finished_at: trx.fn.now() }));
    });
    return { status: 201, body: { created: outcome.created } };
  }

  /** An import's state, for whoever may read the database it writes to. */
  async status(workspaceId: string, databaseId: string, id: string): Promise<ImportStatus> {
    // A job of this process answers from memory: on PGlite its transaction holds the one connection until it ends.
    const running = this.running.get(id);
    const row = running?.row ?? ((await this.db(TABLE).where({ id }).first()) as RunRow | undefined);
    if (!row || row.workspace_id !== workspaceId || row.database_id !== databaseId) throw notFound('No such import in this database.');
    return {
      id: row.id,
      database_id: row.database_id,
      status: row.status,
      rows: running?.rows ?? row.rows,
      done: running?.done ?? row.done,
      created: row.created,
      errors: row.errors,
      created_at: new Date(row.created_at).toISOString(),
      finished_at: row.finished_at ? new Date(row.finished_at).toISOString() : null,
    };
  }

  /** The job: counts the rows, then imports them all or none; the file is deleted whatever happens. */
  async run(id: string): Promise<void> {
    const [row] = (await this.db(TABLE).where({ id, status: 'queued' }).update({ status: 'running' }).returning('*')) as RunRow[];
    if (!row) return;
    const key = row.blob_key!;
    this.running.set(id, { row, rows: null, done: 0 });
    try {
      // The caller's rights as they are now: a role lowered since the request stops the import.
      const principal = actingAs(row.actor);
      const access = await this.authz.require(principal, row.workspace_id, WRITE_RULE, row.database_id);
      if (Object.values(row.mapping).some((target) => typeof target === 'object' && target !== null)) this.authz.demand(principal, access, 'creator');
      const rows = await this.read(key, (source) => countRows(source));
      await this.report(id, { rows, done: 0 });
      const outcome = await this.importAll(id, principal, row.workspace_id, row.database_id, key, row.mapping, async (trx, result) => {
        await trx(TABLE).where({ id }).update({ status: 'succeeded', rows, done: result.rows, created: result.created, blob_key: null, finished_at: trx.fn.now() });
      }, (done) => this.report(id, { rows, done }));
      this.logger.info({ import: id, created: outcome.created }, 'import succeeded');
    } catch (err) {
      const errors = err instanceof AppError ? failure(err) : [{ row: null, column: null, detail: 'The import stopped on an internal error; nothing was stored.' }];
      if (!(err instanceof AppError)) this.logger.error({ err, import: id }, 'import failed');
      await this.db(TABLE).where({ id }).update({ status: 'failed', errors: JSON.stringify(errors), blob_key: null, finished_at: this.db.fn.now(), rows: this.running.get(id)?.rows ?? null, done: this.running.get(id)?.done ?? 0 });
    } finally {
      this.running.delete(id);
      await this.blobs.delete(key);
    }
  }

  /** The imports `userId` sent (in one workspace, or everywhere), for a GDPR export. */
  async runsOf(trx: Db, userId: string, workspaceId: string | null): Promise<Array<Record<string, unknown>>> {
    const q = trx(TABLE).where({ created_by: userId }).orderBy('created_at').select('id', 'workspace_id', 'database_id', 'status', 'rows', 'created', 'created_at', 'finished_at');
    return workspaceId ? q.where({ workspace_id: workspaceId }) : q;
  }

  /** Deletes the imports `userId` sent (in one workspace, or everywhere), in an erasure's transaction; files still waiting go once it commits. */
  async forgetUser(trx: Db, userId: string, workspaceId: string | null): Promise<number> {
    const q = trx(TABLE).where({ created_by: userId });
    if (workspaceId) q.where({ workspace_id: workspaceId });
    const gone = (await q.del().returning('blob_key')) as Array<{ blob_key: string | null }>;
    const keys = gone.flatMap((r) => (r.blob_key ? [r.blob_key] : []));
    if (keys.length > 0) afterCommit(trx, () => void Promise.all(keys.map((key) => this.blobs.delete(key))).catch((err: unknown) => this.logger.warn({ err }, 'import files of an erased user left behind')));
    return gone.length;
  }

  /** Forgets the imports of a deleted database, in its deleting transaction. */
  async forgetDatabase(trx: Db, databaseId: string): Promise<void> {
    await trx(TABLE).where({ database_id: databaseId }).del();
  }

  /**
   * The import itself, in one transaction: the mapped new fields, then every row in batches. A bad row
   * rolls everything back and answers the rows' problems; `done` commits with the records.
   */
  private async importAll(id: string, principal: UserPrincipal, workspaceId: string, databaseId: string, key: string, mapping: Record<string, unknown>, done: (trx: Db, outcome: RowsOutcome) => Promise<void>, progress?: (done: number) => Promise<void>): Promise<RowsOutcome> {
    try {
      return await inTransaction(this.db, async (trx) => {
        const headers = await this.headersOf(key);
        // Checked again here: the fields may have changed since the request (a job runs later).
        const seen = await this.records.seenBy(principal, await this.records.open(trx, workspaceId, databaseId), trx);
        const planned = planImport(headers, mapping, seen, this.types);
        for (const target of planned.targets) {
          if (!target.create) continue;
          const field = await this.fields.create(principal, workspaceId, databaseId, target.create, trx);
          target.field = { ...target.field, id: field.id, api_name: field.api_name };
        }
        const writer = await this.records.batchWriter(trx, principal, workspaceId, databaseId, { type: 'import', id });
        const plan = withLiveFields(planned, writer.table);
        const outcome = await this.read(key, (source) => {
          const records = csvRecords(source);
          return records.next().then(() => importRows(records, { plan, writer, write: true, batchRows: this.options.batchRows, progress }));
        });
        if (outcome.invalid > 0) throw new Refused(outcome);
        await done(trx, outcome);
        return outcome;
      });
    } catch (err) {
      if (err instanceof Refused) throw rowsInvalid(err.outcome.errors, err.outcome.invalid);
      throw err;
    }
  }

  /** A dry run: every row read and checked, nothing written (no fields made). */
  private async dryRun(input: StartInput, plan: Plan): Promise<DryRunResult> {
    const outcome = await inTransaction(this.db, async (trx) => {
      const writer = await this.records.batchWriter(trx, input.principal, input.workspaceId, input.databaseId, { type: 'import', id: null });
      return this.read(input.upload.key, (source) => {
        const records = csvRecords(source);
        return records.next().then(() => importRows(records, { plan: withLiveFields(plan, writer.table), writer, write: false, batchRows: this.options.batchRows }));
      });
    });
    const mapped = new Map(plan.targets.map((t) => [t.header, t.field.api_name]));
    return {
      rows: outcome.rows,
      valid: outcome.rows - outcome.invalid,
      errors: outcome.errors,
      columns: plan.headers.map((header, i) => ({ header, field: mapped.get(header) ?? null, detected_type: outcome.detectors![i].type, samples: outcome.detectors![i].samples })),
    };
  }

  private async queue(input: StartInput, mapping: Record<string, unknown>): Promise<string> {
    const id = randomUUID();
    await inTransaction(this.db, async (trx) => {
      await trx(TABLE).insert(this.newRow(id, input, mapping, { status: 'queued', blob_key: input.upload.key }));
      await this.enqueue({ id }, trx);
    });
    // The job owns the file now, and deletes it when the import ends.
    input.upload.keep();
    return id;
  }

  private newRow(id: string, input: StartInput, mapping: Record<string, unknown>, state: Record<string, unknown>): Record<string, unknown> {
    return { id, workspace_id: input.workspaceId, database_id: input.databaseId, created_by: input.principal.user.id, actor: JSON.stringify(storedActor(input.principal)), mapping: JSON.stringify(mapping), ...state };
  }

  /** Progress, for `status`: in this process, and on PostgreSQL in the table too (other instances answer it). */
  private async report(id: string, state: { rows: number; done: number }): Promise<void> {
    const job = this.running.get(id);
    if (job) Object.assign(job, state);
    if (this.storage.kind === 'postgres') await this.db(TABLE).where({ id }).update(state);
  }

  /** The header row of the uploaded file (422 when there is none). */
  private async headersOf(key: string): Promise<string[]> {
    const first = await this.read(key, async (source) => (await csvRecords(source).next()).value as string[] | undefined);
    if (!first || first.length === 0) throw validationFailed([{ pointer: '/file', detail: 'The file is empty: a CSV import needs a header row.' }]);
    return first;
  }

  /** Reads the uploaded file as a stream; text that is not UTF-8 is a 415, malformed CSV a 422 at `/file`. */
  private async read<T>(key: string, use: (source: Readable) => Promise<T>): Promise<T> {
    const source = await this.blobs.get(key);
    if (!source) throw validationFailed([{ pointer: '/file', detail: 'The uploaded file is gone.' }]);
    try {
      return await use(source);
    } catch (err) {
      if (err instanceof NotText) throw unsupportedMediaType(err.message);
      if (err instanceof MalformedCsv) throw validationFailed([{ pointer: '/file', detail: err.message }]);
      throw err;
    } finally {
      source.destroy();
    }
  }
}

/** The plan with each target's field as the writer's table has it (new ones included, once created). */
function withLiveFields(plan: Plan, table: RecordTable): Plan {
  return { ...plan, targets: plan.targets.map((t) => (t.create && !t.field.id ? t : { ...t, field: table.field(t.field.id) ?? t.field })) };
}

/** A failed job's `errors`: the rows' problems, or what refused the import as a whole. */
function failure(err: AppError): RowError[] {
  const rows = (err.errors ?? []) as Array<Partial<RowError> & { pointer: string; detail: string }>;
  if (rows.length > 0 && rows.every((e) => e.row !== undefined)) return rows.map(({ row, column, detail }) => ({ row: row ?? null, column: column ?? null, detail }));
  return [{ row: null, column: null, detail: rows.length > 0 ? rows.map((e) => `${e.pointer}: ${e.detail}`).join(' ') : err.detail }];
}

function parseDryRun(value: unknown): boolean {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  throw validationFailed([{ pointer: '/dry_run', detail: '`dry_run` is "true" or "false".' }]);
}
