import type { Db } from '../../core/db.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { filterFieldRefs, findField, type FieldService, type ViewIndexService, type ViewQuery } from '../databases/public.ts';
import type { IndexLearner } from './learner.ts';
import type { FieldIndex, Mode } from './schemas.ts';

type Row = { database_id: string; field_id: string; mode: Mode; uses: number; learned_at: Date | null; last_used_at: Date | null; ascending: boolean; descending: boolean };

/**
 * What the indexes plugin adds to a database's indexed queries (the `databases.databases` waterfall the view-index
 * sync reads): pinned fields first, what views ask for without the forbidden fields, then what slow queries taught,
 * most used first, as long as it is used. Answers what is indexed and why, and takes a creator's pin or forbid.
 */
export class IndexPolicy {
  constructor(
    private readonly db: Db,
    private readonly indexes: () => ViewIndexService,
    private readonly fields: () => FieldService,
    private readonly learner: IndexLearner,
    private readonly dropAfterDays: number,
  ) {}

  async queriesFor(db: Db, databaseId: string, fromViews: ViewQuery[]): Promise<ViewQuery[]> {
    const rows = (await db('index_fields').where({ database_id: databaseId })) as Row[];
    const forbidden = new Set(rows.filter((r) => r.mode === 'forbid').map((r) => r.field_id));
    const pinned = rows.filter((r) => r.mode === 'pin').map((r) => asQuery(r.field_id, 'pin'));
    const learned = rows
      .filter((r) => r.mode === 'auto' && this.inUse(r))
      .sort((a, b) => b.uses - a.uses)
      .flatMap((r) => [...(r.ascending ? [asQuery(r.field_id, 'queries', 'asc')] : []), ...(r.descending ? [asQuery(r.field_id, 'queries', 'desc')] : [])]);
    const kept = forbidden.size === 0 ? fromViews : await this.withoutForbidden(databaseId, fromViews, forbidden);
    return [...pinned, ...kept, ...learned];
  }

  /** `queries`: the whole waterfall of indexed queries; those without `by` are the views'. */
  async list(databaseId: string, queries: ViewQuery[]): Promise<{ data: FieldIndex[]; next_cursor: null; budget: number }> {
    const fromViews = queries.filter((q) => q.by === undefined);
    const rows = new Map(((await this.db('index_fields').where({ database_id: databaseId })) as Row[]).map((r) => [r.field_id, r]));
    const fields = (await this.fields().list(databaseId, false)).data;
    const viewNames = new Set(fromViews.flatMap((q) => [...(q.sorts ?? []).map((s) => s.field), ...filterFieldRefs(q.filter).map((ref) => ref.split('.', 2)[0])]));
    const built = new Map<string, FieldIndex['indexes']>();
    // Ascending first: the order a field's indexes are listed in.
    for (const b of (await this.indexes().built(databaseId)).sort((x, y) => x.direction.localeCompare(y.direction))) {
      built.set(b.fieldId, [...(built.get(b.fieldId) ?? []), { name: b.name, direction: b.direction, state: b.valid ? 'ready' : 'building', bytes: b.bytes, scans: b.scans }]);
    }
    const data: FieldIndex[] = [];
    for (const field of fields) {
      const row = rows.get(field.id);
      const indexes = built.get(field.id) ?? [];
      const wanted: FieldIndex['wanted_by'] = [];
      if (row?.mode === 'pin') wanted.push('pin');
      if (row?.mode !== 'forbid' && (viewNames.has(field.id) || viewNames.has(field.api_name))) wanted.push('view');
      if (row?.mode === 'auto' && this.inUse(row)) wanted.push('queries');
      if (!row && indexes.length === 0 && wanted.length === 0) continue;
      data.push({
        field_id: field.id,
        api_name: field.api_name,
        mode: row?.mode ?? 'auto',
        wanted_by: wanted,
        indexes,
        uses: row?.uses ?? 0,
        last_used_at: row?.last_used_at ? row.last_used_at.toISOString() : null,
      });
    }
    return { data, next_cursor: null, budget: this.indexes().budget };
  }

  /** A creator's say: `pin` keeps an index whatever the queries, `forbid` never builds one, `auto` lets usage decide. */
  async setMode(_actor: UserPrincipal, databaseId: string, ref: string, mode: Mode): Promise<{ field_id: string; mode: Mode }> {
    const field = await findField(this.db, databaseId, ref);
    await this.db('index_fields')
      .insert({ database_id: databaseId, field_id: field.id, mode })
      .onConflict(['database_id', 'field_id'])
      .merge({ mode });
    this.learner.forget(databaseId);
    await this.indexes().schedule(this.db, databaseId);
    return { field_id: field.id, mode };
  }

  /** Learned fields whose use stopped: their rows go back to counting from nothing, and their databases are resynchronised. */
  async expire(): Promise<number> {
    const cutoff = new Date(Date.now() - this.dropAfterDays * 86_400_000);
    const expired = (await this.db('index_fields').where({ mode: 'auto' }).whereNotNull('learned_at').where('last_used_at', '<', cutoff).update({ learned_at: null, uses: 0, ascending: false, descending: false }).returning('database_id')) as Array<{ database_id: string }>;
    const databases = [...new Set(expired.map((r) => r.database_id))];
    for (const databaseId of databases) {
      this.learner.forget(databaseId);
      await this.indexes().schedule(this.db, databaseId);
    }
    return databases.length;
  }

  private inUse(row: Row): boolean {
    return !!row.learned_at && !!row.last_used_at && Date.now() - row.last_used_at.getTime() < this.dropAfterDays * 86_400_000;
  }

  /** Views' queries without the forbidden fields (views store fields by id; older configs by api_name). */
  private async withoutForbidden(databaseId: string, queries: ViewQuery[], forbidden: Set<string>): Promise<ViewQuery[]> {
    const names = (await this.fields().list(databaseId, false)).data.filter((f) => forbidden.has(f.id)).map((f) => f.api_name);
    const banned = new Set([...forbidden, ...names]);
    return queries.map((q) => ({ filter: dropConditions(q.filter, banned), sorts: (q.sorts ?? []).filter((s) => !banned.has(s.field)) }));
  }
}

function asQuery(fieldId: string, by: string, direction: 'asc' | 'desc' = 'asc'): ViewQuery {
  return { filter: null, sorts: [{ field: fieldId, direction }], by };
}

/** The filter's conditions on banned fields left out: only which fields are named matters here, not what it matches. */
function dropConditions(node: unknown, banned: Set<string>): unknown {
  if (Array.isArray(node)) return node.map((c) => dropConditions(c, banned)).filter((c) => c !== undefined);
  if (!node || typeof node !== 'object') return node;
  const n = node as Record<string, unknown>;
  if (typeof n.field === 'string') return banned.has(n.field.split('.', 2)[0]) ? undefined : node;
  return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, dropConditions(v, banned)]));
}
