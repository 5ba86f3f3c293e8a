import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import type { FieldTypeRegistry } from '../databases/public.ts';
import type { RecordService } from '../records/public.ts';

/** Whether a change of a field (its id, and its type when it was written) must be hidden from the reader. */
export type HiddenField = (databaseId: string, fieldId: string | null, type: string | undefined) => boolean;

/**
 * Which cells a reader may not see in the history of databases they can see: those of fields reaching a database
 * they cannot (a link into a space a guest was not given), as record reads hide them. A field deleted since is
 * judged by its type: one that reaches another database is hidden unless the reader sees the whole workspace.
 */
export async function hiddenFields(
  records: RecordService,
  authz: Authz,
  types: FieldTypeRegistry,
  principal: UserPrincipal,
  access: WorkspaceAccess,
  databaseIds: string[],
): Promise<HiddenField> {
  const seesAll = authz.visibleScopes(principal, access) === 'all';
  const byDatabase = new Map<string, { live: Set<string>; unseen: Set<string> }>();
  for (const databaseId of new Set(databaseIds)) {
    const table = await records.readTable(access.workspaceId, databaseId).catch(() => undefined);
    if (!table) continue;
    const seen = await records.seenBy(principal, table);
    byDatabase.set(databaseId, { live: new Set(table.fields.map((f) => f.id)), unseen: new Set(seen.fields.filter((f) => f.unseen).map((f) => f.id)) });
  }
  return (databaseId, fieldId, type) => {
    if (fieldId === null) return false;
    const fields = byDatabase.get(databaseId);
    if (fields?.live.has(fieldId)) return fields.unseen.has(fieldId);
    return !seesAll && type !== undefined && !!types.get(type)?.reaches;
  };
}
