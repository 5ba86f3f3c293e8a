import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { Authz, AccessGrant } from '../../core/authz.ts';
import type { BlobStore } from '../../core/blobs.ts';
import { inTransaction, type Db } from '../../core/db.ts';
import { AppError, unsupportedMediaType, validationFailed } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { Upload } from '../../core/streamed-uploads.ts';
import type { FieldService, FieldTypeRegistry } from '../databases/public.ts';
import type { RecordService, RecordTable } from '../records/public.ts';
import { countRows, csvBatches, dataRecords, headerRow, notTextHead, NotText } from './csv-source.ts';
import { MalformedCsv } from './csv-split.ts';
import { rowsInvalid } from './errors.ts';
import { importRows, type RowsOutcome } from './import-rows.ts';
import { parseMapping, planImport, type Plan } from './mapping.ts';
import { actingAs, type ImportRuns } from './runs.ts';
import type { DryRunResult, ImportOptions, RowError } from './schemas.ts';

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
 * data rows are queued as a job whose state and progress `import.runs` keeps. Either way one transaction creates the
 * mapped new fields and every record, or nothing at all.
 */
export class ImportService {
  constructor(
    private readonly db: Db,
    private readonly runs: ImportRuns,
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
    const binary = notTextHead(upload.head, upload.detected);
    if (binary) throw unsupportedMediaType(binary);
    const mapping = parseMapping(fields.mapping);
    const headers = await this.headersOf(upload.key);
    const table = await this.records.seenBy(principal, await this.records.readTable(input.workspaceId, input.databaseId));
    const plan = planImport(headers, mapping, table, this.types);
    // New fields are a creator's to make, as through the fields routes.
    if (plan.targets.some((t) => t.create)) this.authz.demand(principal, input.access, 'creator');
    if (dryRun) return { status: 200, body: await this.dryRun(input, plan) };
    const rows = await this.read(upload.key, (source) => countRows(source, this.options.syncMaxRows));
    if (rows > this.options.syncMaxRows) return { status: 202, body: { import_id: await this.queue(input, mapping) } };
    const run = { id: randomUUID(), workspaceId: input.workspaceId, databaseId: input.databaseId, principal, mapping };
    // The run row commits with the records, so an `origin.id` in history always names an import that happened.
    const outcome = await this.importAll(run.id, principal, input.workspaceId, input.databaseId, upload.key, mapping, (trx, result) =>
      this.runs.insert(trx, run, { status: 'succeeded', rows: result.rows, done: result.rows, created: result.created, finished_at: trx.fn.now() }),
    );
    return { status: 201, body: { created: outcome.created } };
  }

  /** The job: counts the rows, then imports them all or none; the file is deleted whatever happens. */
  async run(id: string): Promise<void> {
    const row = await this.runs.claim(id);
    if (!row) return;
    const key = row.blob_key!;
    try {
      // The sender's rights as they are now: a role lowered since the request stops the import.
      const principal = actingAs(row.actor);
      const access = await this.authz.require(principal, row.workspace_id, WRITE_RULE, row.database_id);
      if (Object.values(row.mapping).some((target) => typeof target === 'object' && target !== null)) this.authz.demand(principal, access, 'creator');
      const rows = await this.read(key, (source) => countRows(source));
      await this.runs.report(id, { rows, done: 0 });
      const outcome = await this.importAll(
        id,
        principal,
        row.workspace_id,
        row.database_id,
        key,
        row.mapping,
        (trx, result) => this.runs.succeeded(trx, id, { rows, done: result.rows, created: result.created }),
        (done) => this.runs.report(id, { rows, done }),
      );
      this.logger.info({ import: id, created: outcome.created }, 'import succeeded');
    } catch (err) {
      if (!(err instanceof AppError)) this.logger.error({ err, import: id }, 'import failed');
      await this.runs.failed(id, err instanceof AppError ? failure(err) : [{ row: null, column: null, detail: 'The import stopped on an internal error; nothing was stored.' }]);
    } finally {
      this.runs.release(id);
      await this.blobs.delete(key);
    }
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
        const outcome = await this.read(key, (source) => importRows(dataRecords(csvBatches(source)), { plan, writer, write: true, batchRows: this.options.batchRows, progress }));
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
      return this.read(input.upload.key, (source) => importRows(dataRecords(csvBatches(source)), { plan: withLiveFields(plan, writer.table), writer, write: false, batchRows: this.options.batchRows }));
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
    const run = { id: randomUUID(), workspaceId: input.workspaceId, databaseId: input.databaseId, principal: input.principal, mapping };
    await inTransaction(this.db, async (trx) => {
      await this.runs.insert(trx, run, { status: 'queued', blob_key: input.upload.key });
      await this.enqueue({ id: run.id }, trx);
    });
    // The job owns the file now, and deletes it when the import ends.
    input.upload.keep();
    return run.id;
  }

  /** The header row of the uploaded file (422 when there is none). */
  private async headersOf(key: string): Promise<string[]> {
    const first = await this.read(key, headerRow);
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
