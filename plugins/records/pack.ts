import { AppError, invalidField, limitExceeded, unlessGone } from '../../core/errors.ts';
import { escapePointer, Type, type Static } from '../../core/schema.ts';
import type { Db } from '../../core/db.ts';
import { Ref, type PackHooks, type PackProblem, type PackResource, type InstallRefs } from '../packs/public.ts';
import type { RecordService } from './records.service.ts';
import type { RecordTable } from './record-table.ts';
import type { LiveField } from './live-fields.ts';
import type { RecordRow } from './record-row.ts';

/** Sample records a pack may carry: enough for a template, not a way to move a whole database. */
export const MAX_PACK_RECORDS = 10_000;

/** A sample record: its cells by api_name; options by label, linked records by ref; people never. */
export const RecordResource = Type.Object(
  { ref: Ref, database: Ref, values: Type.Record(Type.String(), Type.Unknown()) },
  { additionalProperties: false, description: 'Link cells (the `from` side of a relation) list record refs; select cells name options by label.' },
);
type RecordResource = Static<typeof RecordResource>;

const SELECT_TYPES = new Set(['single_select', 'multi_select']);
/** Cells naming people: a user belongs to a workspace, so they stay home. */
const PEOPLE_TYPES = new Set(['user']);

type PendingLinks = { recordId: string; databaseId: string; pointer: string; cells: Record<string, string[]> };

interface Deps {
  records: () => RecordService;
}

/** The records plugin's part in packs: `record`, optional sample data, exported only when asked for. */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('records', (kinds) => [
    ...kinds,
    { kind: 'record', plugin: 'records', after: ['database', 'field', 'select_option', 'relation'], schema: RecordResource, part: true, optional: true },
  ]);

  hooks.export.for('record').tapPromise('records', async (resources, { trx, workspaceId, refs }) => {
    const tables: Array<{ table: RecordTable; rows: RecordRow[] }> = [];
    let count = 0;
    for (const databaseId of refs.ids('database')) {
      const table = await deps.records().open(trx, workspaceId, databaseId);
      const rows = (await trx(table.table).whereNull('deleted_at').orderBy(['position', 'id']).select(table.columns)) as RecordRow[];
      count += rows.length;
      if (count > MAX_PACK_RECORDS) throw limitExceeded(`A pack carries at most ${MAX_PACK_RECORDS} records as sample data; export without include_records, or fewer databases.`, { limit: 'pack_records' });
      tables.push({ table, rows });
    }
    // Every record has its ref before any cell names it: links reach across databases both ways.
    for (const { rows } of tables) for (const row of rows) refs.ref('record', row.id);
    const out: PackResource[] = [...resources];
    for (const { table, rows } of tables) {
      const presented = await deps.records().present(trx, table, rows);
      presented.forEach((record) => {
        out.push({ ref: refs.find('record', record.id)!, database: refs.find('database', table.databaseId)!, values: portableValues(table, record.values, refs) });
      });
    }
    return out;
  });

  hooks.install.for('record').tapPromise('records', async (req) => {
    const resource = req.resource as RecordResource;
    const databaseId = req.refs.id('database', resource.database, '/database');
    const table = await deps.records().open(req.trx, req.workspaceId, databaseId);
    const values: Record<string, unknown> = {};
    const links: Record<string, string[]> = {};
    for (const [name, value] of Object.entries(resource.values)) {
      const field = table.field(name);
      if (field?.type === 'link') links[name] = linkRefs(value, `/values/${escapePointer(name)}`);
      else values[name] = value;
    }
    const [record] = await deps.records().create(req.actor, req.workspaceId, databaseId, [values], [''], req.trx);
    if (Object.keys(links).length > 0) {
      const pending = (req.memo.get('records:links') as PendingLinks[] | undefined) ?? [];
      pending.push({ recordId: record.id, databaseId, pointer: req.pointer, cells: links });
      req.memo.set('records:links', pending);
    }
    return { id: record.id, action: 'create', containers: [{ kind: 'database', ref: resource.database }] };
  });

  // Links wait until every record is made: a record may name one made after it, in its own database or another.
  hooks.finish.tapPromise('records', async (problems, { trx, actor, workspaceId, refs, memo }) => {
    const found: PackProblem[] = [...problems];
    for (const pending of (memo.get('records:links') as PendingLinks[] | undefined) ?? []) {
      const values: Record<string, string[]> = {};
      for (const [name, list] of Object.entries(pending.cells)) {
        values[name] = [];
        list.forEach((ref, i) => {
          const id = recordId(refs, ref, `${pending.pointer}/values/${escapePointer(name)}/${i}`, found);
          if (id) values[name].push(id);
        });
      }
      try {
        await deps.records().update(actor, workspaceId, pending.databaseId, pending.recordId, { values }, trx);
      } catch (err) {
        if (!(err instanceof AppError) || !err.errors) throw err;
        found.push(...err.errors.map((e) => ({ pointer: `${pending.pointer}${e.pointer}`, detail: e.detail })));
      }
    }
    return found;
  });

  hooks.stamp.for('record').tapPromise('records', async (_stamp, { db, workspaceId, id, within }) => {
    const table = await tableOf(deps, db, workspaceId, within[0]);
    const row = table && (await db(table).where({ id }).first('updated_at', 'deleted_at'));
    return row ? `${row.updated_at.toISOString()}|${row.deleted_at ? 'trashed' : 'live'}` : null;
  });
  // A database holding records it did not have (or no longer holding some) has changed.
  hooks.stamp.for('database').tapPromise('records', async (stamp, { db, workspaceId, id }) => {
    if (stamp === null) return null;
    const table = await tableOf(deps, db, workspaceId, id);
    if (!table) return null;
    const row = await db(table).first(db.raw('count(*)::int AS n'), db.raw('max(updated_at) AS latest'));
    return `${stamp}|records:${row.n}:${row.latest ? new Date(row.latest).toISOString() : ''}`;
  });
}

async function tableOf(deps: Deps, db: Db, workspaceId: string, databaseId: string | undefined): Promise<string | undefined> {
  if (!databaseId) return undefined;
  return (await unlessGone(() => deps.records().open(db, workspaceId, databaseId)))?.table;
}

/**
 * Cells as a write accepts them: computed and system cells left out (the install makes them again), options by label,
 * links (their `from` side, once) by record ref, people and links to records outside the pack dropped.
 */
function portableValues(table: RecordTable, values: Record<string, unknown>, refs: { find(kind: string, id: string): string | undefined }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of table.fields) {
    const value = values[field.api_name];
    if (value === undefined || value === null) continue;
    if (field.type === 'link') {
      if ((field.options as { side?: string }).side !== 'from') continue;
      const linked = (value as Array<{ id: string }>).flatMap((v) => refs.find('record', v.id) ?? []);
      if (linked.length > 0) out[field.api_name] = linked;
      continue;
    }
    if (field.fieldType.readOnly || PEOPLE_TYPES.has(field.type) || !writable(field)) continue;
    if (SELECT_TYPES.has(field.type)) out[field.api_name] = Array.isArray(value) ? value.map((c: { label: string }) => c.label) : (value as { label: string }).label;
    else out[field.api_name] = value;
  }
  return out;
}

function writable(field: LiveField): boolean {
  return !!field.column_name;
}

function linkRefs(value: unknown, pointer: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw invalidField(pointer, 'A link cell in a pack lists record refs (strings).');
  }
  return value as string[];
}

function recordId(refs: InstallRefs, ref: string, pointer: string, problems: PackProblem[]): string | undefined {
  const id = refs.find('record', ref);
  if (!id) problems.push({ pointer, detail: `No record with ref ${JSON.stringify(ref)} in the pack.` });
  return id;
}
