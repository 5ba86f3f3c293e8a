import { defineRoute, Reply, type AnyRouteDef } from '../../core/routes.ts';
import { Type } from '../../core/schema.ts';
import { dryRun } from './dry-run.ts';
import { SourceErrors } from './errors.ts';
import { CreateSourceBody, DryRun, ListQuery, PatchSourceBody, Source, SourceParams, SourceRun, SyncBody, WorkspaceParams } from './schemas.ts';

const tags = ['sources'];
const SourceList = Type.Object({ data: Type.Array(Source), next_cursor: Type.Union([Type.String(), Type.Null()]) });
const RunList = Type.Object({ data: Type.Array(SourceRun), next_cursor: Type.Union([Type.String(), Type.Null()]) });

export function sourceRoutes(): AnyRouteDef[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/sources',
      operationId: 'sources.create',
      summary: 'Sync a provider’s data into a database',
      description:
        "The config is checked by the kind (a URL's address, a table that exists); the provider is asked for its properties. Without `database_id` a database is created (in `space_id`, or the first space the caller may create in) with one synced field per property; " +
        'with it, fields of the same api_name and type are adopted and the others added. Synced fields are read only to everyone but the sync. Needs the creator role where the database is.',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      body: CreateSourceBody,
      example: { kind: 'ical.events', name: 'Team calendar', config: { url: 'https://calendar.example.com/team.ics' }, schedule: 'hourly' },
      status: 201,
      responses: { 201: { description: 'The source', schema: Source } },
      errors: [SourceErrors.source_unavailable],
      handler: ({ principal, access, body, resolve }) => resolve('sources.service').create(principal, access, body),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/sources',
      operationId: 'sources.list',
      summary: 'The sources of the databases the caller sees, newest first',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: WorkspaceParams,
      query: ListQuery,
      responses: { 200: { description: 'One page of sources', schema: SourceList } },
      handler: ({ principal, access, query, resolve }) => resolve('sources.service').list(principal, access.access, query),
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/sources/{id}',
      operationId: 'sources.get',
      summary: 'A source with its last run',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: SourceParams,
      responses: { 200: { description: 'The source', schema: Source } },
      handler: ({ principal, access, params, resolve }) => resolve('sources.service').get(principal, access.access, params.id),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workspaces/{ws}/sources/{id}',
      operationId: 'sources.update',
      summary: 'Rename a source, change its schedule, delete policy, connection or config',
      description: "A new config is checked as at creation and must offer no property the database lacks a field for; it starts from a full read. Setting the schedule starts a paused one again. Needs the creator role on the source's database.",
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: SourceParams,
      body: PatchSourceBody,
      example: { schedule: 'daily', delete_policy: 'keep' },
      responses: { 200: { description: 'The source', schema: Source } },
      errors: [SourceErrors.source_unavailable],
      handler: ({ principal, access, params, body, resolve }) => resolve('sources.service').update(principal, access.access, params.id, body),
    }),
    defineRoute({
      method: 'DELETE',
      path: '/workspaces/{ws}/sources/{id}',
      operationId: 'sources.delete',
      summary: 'Delete a source; its database stays and its fields become ordinary fields',
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: SourceParams,
      responses: { 204: { description: 'Deleted' } },
      handler: ({ principal, access, params, resolve }) => resolve('sources.service').delete(principal, access.access, params.id),
    }),
    defineRoute({
      method: 'POST',
      path: '/workspaces/{ws}/sources/{id}/sync',
      operationId: 'sources.sync',
      summary: 'Start a sync, or with `dry_run` see what it would change',
      description:
        "202 with the run's id; the run goes on in the background (`GET …/runs`). One run at a time per source: 409 `sync_running` with the running one's id. `full` reads everything again, finding rows gone at the source. A dry run answers 200 with the counts and a few rows of each, writing nothing. Needs the editor role on the source's database.",
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: SourceParams,
      body: SyncBody,
      example: { full: false, dry_run: true },
      status: 202,
      responses: { 202: { description: 'The run started', schema: Type.Object({ run_id: Type.String({ format: 'uuid' }) }) }, 200: { description: 'A dry run: what a run would change', schema: DryRun } },
      errors: [SourceErrors.sync_running, SourceErrors.source_unavailable],
      handler: async ({ principal, access, params, body, resolve }) => {
        const service = resolve('sources.service');
        if (!body.dry_run) return service.startRun(principal, access.access, params.id, body.full ?? false);
        const source = await service.held(principal, access.access, params.id, 'editor');
        return new Reply(200, await service.asking(() => dryRun(resolve('db'), resolve('records.service'), resolve('sources.inputs'), service.kindOf(source.kind), source, body.full ?? false)));
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/workspaces/{ws}/sources/{id}/runs',
      operationId: 'sources.runs',
      summary: "A source's runs, newest first, with their counts and errors",
      tags,
      auth: 'user',
      access: { role: 'guest' },
      params: SourceParams,
      query: ListQuery,
      responses: { 200: { description: 'One page of runs', schema: RunList } },
      handler: ({ principal, access, params, query, resolve }) => resolve('sources.service').runs(principal, access.access, params.id, query),
    }),
  ];
}
