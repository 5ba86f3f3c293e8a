import type { Db } from '../../core/db.ts';
import type { PluginContext } from '../../core/plugin.ts';

/** Columns of a database's table naming a user: its user fields, and who created and last changed each record. */
async function userColumns(ctx: PluginContext<unknown>, trx: Db, databaseId: string): Promise<string[]> {
  const types = ctx.resolve('databases.fieldTypes');
  const fields = await ctx.resolve('databases.catalog').fieldRows(databaseId, trx);
  return ['created_by', 'updated_by', ...fields.filter((f) => f.column_name && types.get(f.type)?.refersToUsers).map((f) => f.column_name as string)];
}

/**
 * Records in `gdpr.personalData`: in the workspace erased from, every cell naming the person (user fields,
 * `created_by`, `updated_by`) becomes null — the record stays, the person does not — and their watches go.
 * The export lists their watches and the records they created or last changed, by id.
 */
export function tapGdpr(ctx: PluginContext<unknown>): void {
  const hooks = ctx.hooksOf('gdpr.personalData');
  hooks.export.tapPromise('records', async (sections, { trx, userId, workspaceId }) => {
    const watches = trx('record_watchers').where({ user_id: userId }).select('workspace_id', 'database_id', 'record_id', 'created_at');
    if (workspaceId) watches.where({ workspace_id: workspaceId });
    const authored = [];
    const workspaceIds = workspaceId ? [workspaceId] : await hooks.memberships.promise([], { trx, userId });
    const tables = (await Promise.all(workspaceIds.map((ws) => ctx.resolve('databases.catalog').tables(trx, ws)))).flat();
    for (const { id, table_name } of tables) {
      const rows = await trx(table_name).where({ created_by: userId }).orWhere({ updated_by: userId }).select('id', 'created_at', 'updated_at', 'created_by', 'updated_by');
      authored.push(...rows.map((r) => ({ database_id: id, record_id: r.id, created: r.created_by === userId, last_changed: r.updated_by === userId })));
    }
    return [...sections, { kind: 'watches', items: await watches }, { kind: 'records', items: authored }];
  });
  hooks.erase.tapPromise('records', async (reports, { trx, userId, workspaceId }) => {
    if (!workspaceId) return reports;
    let pseudonymised = 0;
    for (const { id, table_name } of await ctx.resolve('databases.catalog').tables(trx, workspaceId)) {
      // The version moves: a client holding the record's old version gets 409 instead of writing the person back.
      for (const column of await userColumns(ctx, trx, id)) pseudonymised += await trx(table_name).where(column, userId).update({ [column]: null, version: trx.raw('version + 1') });
    }
    const deleted = await trx('record_watchers').where({ workspace_id: workspaceId, user_id: userId }).del();
    return [
      ...reports,
      { kind: 'records', deleted: 0, pseudonymised, retained: [{ what: 'records the member created or changed, without their name', reason: 'they belong to the workspace', until: null }] },
      { kind: 'watches', deleted, pseudonymised: 0, retained: [] },
    ];
  });
}
