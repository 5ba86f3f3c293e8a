import type { DatabaseHooks, ViewQuery, ViewSummary } from '../databases/public.ts';

/**
 * The views plugin's part of every database (through the databases plugin's `databases.databases` hooks):
 * a default grid view when a database is made, its views in the database's answers, and the queries of its
 * views for the view indexes, default view first.
 */
export function tapDatabases(hooks: DatabaseHooks): void {
  hooks.created.tapPromise('views', async ({ trx, workspaceId, databaseId, createdBy }) => {
    await trx('database_views').insert({ workspace_id: workspaceId, database_id: databaseId, name: 'Grid view', type: 'grid', is_default: true, created_by: createdBy });
  });
  hooks.views.tapPromise('views', async (views, { db, databaseId }) => {
    const rows = (await db('database_views').where({ database_id: databaseId }).orderBy(['position', 'created_at']).select('id', 'name', 'type', 'is_default')) as ViewSummary[];
    return [...views, ...rows];
  });
  hooks.indexedQueries.tapPromise('views', async (queries, { db, databaseId }) => {
    const rows = (await db('database_views')
      .where({ database_id: databaseId })
      .orderBy([{ column: 'is_default', order: 'desc' }, 'position', 'created_at'])
      .select('config')) as Array<{ config: ViewQuery }>;
    return [...queries, ...rows.map((r) => r.config)];
  });
}
