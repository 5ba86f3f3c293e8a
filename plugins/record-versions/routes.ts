import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { pageOf } from '../../core/pagination.ts';
import { RecordParams, RestoreBody, RestoreChanges, Version, VersionListQuery, VersionParams } from './schemas.ts';

const tags = ['record-versions'];
const R = '/workspaces/{ws}/databases/{db}/records/{id}';

export function versionRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'GET',
      path: `${R}/versions`,
      operationId: 'records.versions.list',
      summary: "A record's versions",
      description:
        'One per write that changed the record (creation, cell changes, link changes, restore from the trash, restore of a version), ' +
        'newest first; keyset paging: `?limit=` (≤ 200, default 50), `?cursor=`. A record in the trash or purged from it keeps its versions until the retention purge.',
      tags,
      auth: 'user',
      access: { role: 'member', resource: { type: 'database', param: 'db' } },
      params: RecordParams,
      query: VersionListQuery,
      responses: {
        200: { description: 'A page of versions', schema: pageOf(Version) },
        404: { description: 'No such record in this database, or a database the caller cannot see' },
      },
      handler: ({ principal, access, params, query, resolve }) => resolve('record-versions.service').list(principal, access.access, params.db, params.id, query),
    }),
    defineRoute({
      method: 'POST',
      path: `${R}/versions/{v}/restore`,
      operationId: 'records.versions.restore',
      summary: 'Restore a version',
      example: { fields: ['score'], dry_run: true },
      description:
        "Writes version `v`'s cells back, as a new version whose origin is `{ type: \"restore\", id: <caller>, restored_from: v }`: all the cells the version holds, " +
        'or only those of `fields` (api_name or id). Only cells that differ from the record now are written; fields deleted since, computed and system fields, ' +
        'and fields reaching a database the caller cannot see are skipped. `dry_run: true` → 200 `{ changes }` and nothing is written; so is a restore with nothing to change ' +
        '(200, `changes: []`). A cell the record can no longer take (a user who left the workspace, a link to a record deleted since) is refused as a PATCH would refuse it: ' +
        '422 with its pointer under `/values`, and nothing is written — restore the other `fields`.',
      tags,
      auth: 'user',
      access: { role: 'editor', resource: { type: 'database', param: 'db' } },
      params: VersionParams,
      body: RestoreBody,
      responses: {
        200: { description: 'A dry run, or nothing to change: what would change (field by current api_name, the cell now and in the version)', schema: RestoreChanges },
        201: { description: 'Restored: the new version', schema: Version },
        404: { description: 'No such live record or no such version of it' },
        422: { description: 'A field of `fields` that is not a live writable field of the database, or a cell the record can no longer take' },
      },
      handler: async ({ principal, access, params, body, resolve }) => {
        const result = await resolve('record-versions.service').restore(principal, access.access, params.db, params.id, params.v, body ?? {});
        return 'created' in result ? new Reply(201, result.created) : result;
      },
    }),
  ];
}
