import type { Authz } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { FieldSight } from '../databases/public.ts';
import type { ApiRecord, RecordService } from '../records/public.ts';
import type { FeedRow } from './feed.ts';
import { subjectOf } from './topics.ts';

/** What a reader is shown of an event: its payload as the reader reads it, nothing (`null`), or `gone` when it lost the workspace. */
export type Shown = { payload: unknown } | null | 'gone';

type Field = Parameters<FieldSight['shown']>[2][number];

/**
 * Each event filtered as a read by the same caller would be: only events of databases it can see; a record through the
 * records engine's eyes (cells reaching a database it cannot see read empty, as in a query); a field with the options
 * that name such a database left out, as the fields route shows it.
 */
export class EventSight {
  constructor(private readonly deps: { authz: Authz; records: () => RecordService; fieldSight: () => FieldSight }) {}

  async shown(principal: UserPrincipal, row: FeedRow): Promise<Shown> {
    const access = await this.deps.authz.workspaceAccess(principal, row.workspace_id);
    if (access.role === null) return 'gone';
    const { databaseId } = subjectOf(row.payload);
    if (!databaseId || !(await this.deps.authz.seesResource(principal, access, 'database', databaseId))) return null;
    const payload = row.payload as Record<string, unknown>;
    if (row.name.startsWith('record.')) return this.record(principal, row.workspace_id, databaseId, payload);
    if (row.name.startsWith('field.')) {
      const shownField = async (f: unknown) => (f && typeof f === 'object' ? (await this.deps.fieldSight().shown(principal, access, [f as Field]))[0] : f);
      const out: Record<string, unknown> = { ...payload };
      for (const key of ['field', 'before', 'after']) if (key in payload) out[key] = await shownField(payload[key]);
      return { payload: out };
    }
    return { payload };
  }

  /** A record event: as is for a reader who sees all it reaches, else the record as it reads it now (its id alone once gone). */
  private async record(principal: UserPrincipal, workspaceId: string, databaseId: string, payload: Record<string, unknown>): Promise<Shown> {
    const key = 'record' in payload ? 'record' : 'after';
    const full = payload[key] as ApiRecord | undefined;
    if (!full?.id) return { payload };
    const seen = await this.deps.records().asSeenBy(principal, workspaceId, databaseId, full);
    if (seen === full) return { payload };
    const { before: _changedBefore, ...rest } = payload;
    return { payload: { ...rest, [key]: seen ?? { id: full.id } } };
  }
}
