import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import { notFound } from '../../core/errors.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { originOf, type RecordService, type RecordsChanged } from '../records/public.ts';
import { MAX_DOCUMENT_BYTES, type RichTextChecker } from './content-check.ts';
import { DocumentErrors } from './errors.ts';
import type { DocumentHooks } from './hooks.ts';
import { mentionsOf, type RichTextDoc } from './rich-text.ts';
import type { Description, PutContentBody } from './schemas.ts';

const TABLE = 'document_descriptions';
const NO_RECORD = 'No such record in this database.';

interface DescriptionRow {
  record_id: string;
  content: RichTextDoc;
  text: string;
  version: number;
  updated_at: Date;
  updated_by: string | null;
}

const COLUMNS = ['record_id', 'content', 'text', 'version', 'updated_at', 'updated_by'];

/**
 * The rich-text description of each record, written with the optimistic version rule: a write names the version it
 * read, and only the current one is accepted. The row is locked (or, never written, inserted only if still absent)
 * in the writing transaction, so of two writers sending the same version exactly one wins.
 */
export class DescriptionService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly records: RecordService,
    private readonly checker: RichTextChecker,
    private readonly hooks: DocumentHooks,
  ) {}

  /** A live record's description; a record never described reads as version 0 with no content. */
  async get(workspaceId: string, databaseId: string, recordId: string): Promise<Description> {
    const table = await this.records.readTable(workspaceId, databaseId);
    if (!(await table.find(this.db, recordId))) throw notFound(NO_RECORD);
    const row = (await this.db(TABLE).where({ database_id: databaseId, record_id: recordId }).first(COLUMNS)) as DescriptionRow | undefined;
    return row ? toDescription(row) : { record_id: recordId, content: null, version: 0, updated_at: null, updated_by: null };
  }

  async put(principal: UserPrincipal, workspaceId: string, databaseId: string, recordId: string, body: PutContentBody, inTrx?: Db): Promise<Description> {
    const userId = principal.user.id;
    return inTransaction(this.db, async (trx) => {
      const table = await this.records.open(trx, workspaceId, databaseId);
      if (!(await table.find(trx, recordId))) throw notFound(NO_RECORD);
      const checked = await this.checker.check(trx, workspaceId, body.content, { pointer: '/content', maxBytes: MAX_DOCUMENT_BYTES });
      const key = { database_id: databaseId, record_id: recordId };
      const current = (await trx(TABLE).where(key).forUpdate().first(COLUMNS)) as DescriptionRow | undefined;
      if (body.version !== (current?.version ?? 0)) throw DocumentErrors.version_conflict(current?.version ?? 0, current?.updated_by ?? null);
      const values = { content: JSON.stringify(checked.doc), text: checked.text, version: body.version + 1, updated_at: trx.fn.now(), updated_by: userId };
      const [row] = (current
        ? await trx(TABLE).where(key).update(values).returning(COLUMNS)
        : // Absent when read: another first writer may insert meanwhile, and then this one has lost.
          await trx(TABLE).insert({ ...values, ...key, workspace_id: workspaceId }).onConflict(['database_id', 'record_id']).ignore().returning(COLUMNS)) as DescriptionRow[];
      if (!row) {
        const winner = (await trx(TABLE).where(key).first('version', 'updated_by')) as Pick<DescriptionRow, 'version' | 'updated_by'>;
        throw DocumentErrors.version_conflict(winner.version, winner.updated_by);
      }
      await this.hooks.descriptionWritten.promise({
        trx,
        workspaceId,
        databaseId,
        recordId,
        actor: principal,
        origin: originOf(principal),
        version: row.version,
        before: current?.content ?? null,
        after: checked.doc,
        beforeText: current?.text ?? '',
        afterText: checked.text,
        mentions: checked.mentions,
      });
      const description = toDescription(row);
      await this.events.emit(trx, { name: 'description.updated', workspaceId, actorId: userId, payload: { database_id: databaseId, record_id: recordId, description } });
      return description;
    }, inTrx);
  }

  /** Duplicates (`records.changes`, a created record naming its source) get the source's description as version 1. */
  async cloneForDuplicates(change: RecordsChanged): Promise<void> {
    const { trx, workspaceId, databaseId, actor } = change;
    if (!actor) return;
    for (const { recordId, duplicatedFrom } of change.changes) {
      if (!duplicatedFrom) continue;
      const source = (await trx(TABLE).where({ database_id: databaseId, record_id: duplicatedFrom }).first(COLUMNS)) as DescriptionRow | undefined;
      if (!source) continue;
      const values = { workspace_id: workspaceId, database_id: databaseId, record_id: recordId, content: JSON.stringify(source.content), text: source.text, version: 1, updated_by: actor.user.id };
      const [row] = (await trx(TABLE).insert(values).returning(COLUMNS)) as DescriptionRow[];
      await this.hooks.descriptionWritten.promise({
        trx,
        workspaceId,
        databaseId,
        recordId,
        actor,
        origin: change.origin,
        version: row.version,
        before: null,
        after: source.content,
        beforeText: '',
        afterText: source.text,
        mentions: mentionsOf(source.content),
      });
      await this.events.emit(trx, { name: 'description.updated', workspaceId, actorId: actor.user.id, payload: { database_id: databaseId, record_id: recordId, description: toDescription(row) } });
    }
  }

  /** Descriptions of records purged for good (the records plugin's `purged` stage, in its transaction). */
  async forgetRecords(trx: Db, databaseId: string, recordIds: string[]): Promise<void> {
    await trx(TABLE).where({ database_id: databaseId }).whereIn('record_id', recordIds).delete();
  }
}

function toDescription(row: DescriptionRow): Description {
  return { record_id: row.record_id, content: row.content, version: row.version, updated_at: row.updated_at.toISOString(), updated_by: row.updated_by };
}
