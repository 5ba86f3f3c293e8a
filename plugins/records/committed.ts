import type { Db } from '../../core/db.ts';
import type { DomainEvent } from '../../core/events.ts';
import { unlessGone } from '../../core/errors.ts';
import type { ChangedField, RecordChange, RecordCommittedHooks, WriteOrigin } from './hooks.ts';
import type { RecordService } from './records.service.ts';
import type { ApiRecord } from './schemas.ts';

/** What `record.*` events carry (see the records service's writers). */
interface RecordPayload {
  database_id: string;
  record?: ApiRecord;
  before?: ApiRecord;
  after?: ApiRecord;
  origin?: WriteOrigin;
  duplicated_from?: string;
}

const KINDS: Record<string, RecordChange['kind']> = { 'record.created': 'created', 'record.updated': 'updated', 'record.deleted': 'deleted', 'record.restored': 'restored' };

/** The change an event tells, with the field ids of `fields` its update changed. */
function changeOf(kind: RecordChange['kind'], payload: RecordPayload, fields: ChangedField[]): RecordChange | undefined {
  if (kind === 'updated') {
    const { before, after } = payload;
    if (!before || !after) return undefined;
    const changed = fields.filter((f) => f.api_name in before.values).map((f) => f.id);
    return { kind, recordId: after.id, before: { ...before, values: { ...after.values, ...before.values } }, after, changed };
  }
  const record = payload.record;
  if (!record) return undefined;
  if (kind === 'deleted') return { kind, recordId: record.id, before: record, after: null, changed: [] };
  return { kind, recordId: record.id, before: null, after: record, changed: [], ...(payload.duplicated_from ? { duplicatedFrom: payload.duplicated_from } : {}) };
}

/**
 * Tells `records.committed` the changes of a fan-out batch's `record.*` events: one call per run of consecutive events
 * of the same database, actor and origin. A database deleted since is skipped (its records went with it).
 */
export async function tellCommitted(trx: Db, hooks: RecordCommittedHooks, records: RecordService, events: DomainEvent[]): Promise<void> {
  let run: DomainEvent[] = [];
  const key = (e: DomainEvent) => `${e.workspace_id}/${(e.payload as RecordPayload).database_id}/${e.actor_id}/${JSON.stringify((e.payload as RecordPayload).origin ?? null)}`;
  const flush = async () => {
    if (run.length === 0) return;
    const [first] = run;
    const payload = first.payload as RecordPayload;
    const events = run;
    run = [];
    if (!first.workspace_id) return;
    const table = await unlessGone(() => records.readTable(first.workspace_id!, payload.database_id, trx));
    if (!table) return;
    const fields = table.changedFields();
    const changes = events.flatMap((e) => changeOf(KINDS[e.name], e.payload as RecordPayload, fields) ?? []);
    if (changes.length === 0) return;
    await hooks.committed.promise({ trx, workspaceId: first.workspace_id, databaseId: payload.database_id, actorId: first.actor_id, origin: payload.origin ?? null, fields, changes });
  };
  for (const event of events) {
    if (!(event.name in KINDS)) continue;
    if (run.length > 0 && key(run[0]) !== key(event)) await flush();
    run.push(event);
  }
  await flush();
}
