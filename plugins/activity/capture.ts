import type { DomainEvent } from '../../core/events.ts';
import type { PluginHookMap } from '../../core/hooks.ts';
import type { ChangedField, RecordChange, RecordsChanged, WriteOrigin } from '../records/public.ts';

/** What the comments and documents plugins tell, typed by their hook sets (`comments.changes`, `documents.writes`). */
type CommentChanged = Parameters<PluginHookMap['comments.changes']['changed']['promise']>[0];
type DescriptionWritten = Parameters<PluginHookMap['documents.writes']['descriptionWritten']['promise']>[0];

/**
 * A change as stored. `type`, the field's type then, is kept only where reading needs it (`Typed`): to name user cells,
 * and to hide the cells of a field deleted since that reached another database.
 */
export interface StoredChange {
  field: string | null;
  name: string;
  type?: string;
  before: unknown;
  after: unknown;
}

/** One row of `activity_entries` about to be written. */
export interface NewEntry {
  workspace_id: string;
  database_id: string;
  record_id: string | null;
  type: string;
  actor_id: string | null;
  origin: WriteOrigin;
  changes: StoredChange[];
  event_id?: number;
}

/** A user cell is kept as the user's id and named when read: the trail keeps nobody's name. */
function kept(type: string, value: unknown): unknown {
  return type === 'user' && value && typeof value === 'object' ? (value as { id: unknown }).id : value;
}

/** Whether changes of fields of this type keep it. */
export type Typed = (type: string) => boolean;

/**
 * The cells an update changed, field by field: computed and system fields (`read_only`) are left out — they follow
 * from the others — but link cells are cells like any other. A creation lists none: the values a record was created
 * with are its first version (record-versions), and writing them twice made bulk creates half as slow again.
 */
export function cellChanges(change: RecordChange, fields: ChangedField[], typed: Typed): StoredChange[] {
  const out: StoredChange[] = [];
  if (change.changed.length === 0) return out;
  const changed = new Set(change.changed);
  for (const f of fields) {
    if (f.read_only || !changed.has(f.id)) continue;
    const before = kept(f.type, change.before?.values[f.api_name] ?? null);
    const after = kept(f.type, change.after?.values[f.api_name] ?? null);
    out.push({ field: f.id, name: f.name, ...(typed(f.type) ? { type: f.type } : {}), before, after });
  }
  return out;
}

/** The entries of one records write; an update that changed no cell (a PATCH sending the values already there) has none. */
export function recordEntries(write: RecordsChanged, typed: Typed): NewEntry[] {
  if (write.batch) return [batchEntry(write)];
  return write.changes.flatMap((change) => {
    const changes = cellChanges(change, write.fields, typed);
    if (change.kind === 'updated' && changes.length === 0) return [];
    return [
      {
        workspace_id: write.workspaceId,
        database_id: write.databaseId,
        record_id: change.recordId,
        type: `record.${change.kind}`,
        actor_id: write.actor?.user.id ?? null,
        origin: write.origin,
        changes,
      },
    ];
  });
}

/**
 * A batch of new records (an import) as one entry: `records.created`, no record, the count as the one change, the
 * import named by the origin. Each record's values are its first version.
 */
function batchEntry(write: RecordsChanged): NewEntry {
  return {
    workspace_id: write.workspaceId,
    database_id: write.databaseId,
    record_id: null,
    type: 'records.created',
    actor_id: write.actor?.user.id ?? null,
    origin: write.origin,
    changes: [{ field: null, name: 'records', before: null, after: write.changes.length }],
  };
}

export function commentEntry(e: CommentChanged): NewEntry {
  const before = e.kind === 'created' ? null : (e.before ?? e.comment).text;
  const after = e.kind === 'deleted' ? null : e.comment.text;
  return {
    workspace_id: e.workspaceId,
    database_id: e.databaseId,
    record_id: e.recordId,
    type: `comment.${e.kind}`,
    actor_id: e.actor.user.id,
    origin: e.origin,
    changes: [{ field: null, name: 'comment', before, after }],
  };
}

export function descriptionEntry(e: DescriptionWritten): NewEntry {
  return {
    workspace_id: e.workspaceId,
    database_id: e.databaseId,
    record_id: e.recordId,
    type: 'description.updated',
    actor_id: e.actor.user.id,
    origin: e.origin,
    changes: [{ field: null, name: 'description', before: e.before === null ? null : e.beforeText, after: e.afterText }],
  };
}

interface FieldShape {
  id: string;
  name: string;
  api_name: string;
  type: string;
}

/** What an entry shows of a field: never its options, which may name a database the reader cannot see. */
const shown = (f: FieldShape) => ({ name: f.name, api_name: f.api_name, type: f.type });

/** The entry of a `field.*` event of the databases plugin. */
export function fieldEntry(event: DomainEvent): (NewEntry & { event_id: number }) | undefined {
  const payload = event.payload as { database_id: string; field?: FieldShape; before?: FieldShape; after?: FieldShape };
  const kind = event.name.slice('field.'.length);
  const before = kind === 'updated' ? payload.before : kind === 'deleted' ? payload.field : undefined;
  const after = kind === 'updated' ? payload.after : kind === 'deleted' ? undefined : payload.field;
  const field = after ?? before;
  if (!field || !event.workspace_id) return undefined;
  return {
    workspace_id: event.workspace_id,
    database_id: payload.database_id,
    record_id: null,
    type: event.name,
    actor_id: event.actor_id,
    origin: { type: 'user', id: event.actor_id },
    changes: [{ field: field.id, name: field.name, before: before ? shown(before) : null, after: after ? shown(after) : null }],
    event_id: event.id,
  };
}
