import { Type, UUID_PATTERN, type Static } from '../../core/schema.ts';
import { Ref, type PackHooks, type PackResource, type ExportRefs } from '../packs/public.ts';
import { mapFilterConditions, withOptionLabels, type RecordService, type RecordTable, type LiveField } from '../records/public.ts';
import type { ViewService } from './views.service.ts';
import { selectViews, toView, type ViewRow } from './view-rows.ts';
import { renameFilterFields } from './view-config.ts';
import { Filter, Sorts, ViewOptions, VIEW_TYPES } from './schemas.ts';

const FieldName = Type.String({ minLength: 1, maxLength: 200 });

/** A view in a pack: its database by ref, its settings naming fields by api_name and options by label. Never its publication. */
export const ViewResource = Type.Object(
  {
    ref: Ref,
    database: Ref,
    name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
    type: Type.Union(VIEW_TYPES.map((t) => Type.Literal(t))),
    is_default: Type.Optional(Type.Boolean()),
    filter: Type.Optional(Filter),
    sorts: Type.Optional(Sorts),
    hidden_fields: Type.Optional(Type.Array(FieldName, { uniqueItems: true, maxItems: 500 })),
    field_order: Type.Optional(Type.Array(FieldName, { uniqueItems: true, maxItems: 500 })),
    group_by: Type.Optional(Type.Union([FieldName, Type.Null()])),
    options: Type.Optional(ViewOptions),
  },
  { additionalProperties: false },
);
type ViewResource = Static<typeof ViewResource>;

const PEOPLE_TYPES = new Set(['user', 'created_by', 'updated_by']);

interface Deps {
  views: () => ViewService;
  records: () => RecordService;
}

/**
 * The views plugin's part in packs: `view`, with form settings. A new database comes with a default grid view; the
 * pack's default view takes its place. Overrides are personal and never travel, nor does a form's publication.
 */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('views', (kinds) => [...kinds, { kind: 'view', plugin: 'views', after: ['database', 'field', 'select_option', 'relation'], schema: ViewResource, part: true }]);

  hooks.export.for('view').tapPromise('views', async (resources, { trx, workspaceId, refs }) => {
    const out: PackResource[] = [...resources];
    for (const databaseId of refs.ids('database')) {
      const table = await deps.records().open(trx, workspaceId, databaseId);
      const rows = (await selectViews(trx, databaseId).orderBy(['v.position', 'v.created_at'])) as ViewRow[];
      for (const row of rows) out.push(exportView(row, table, refs));
    }
    return out;
  });

  hooks.install.for('view').tapPromise('views', async (req) => {
    const resource = req.resource as ViewResource;
    const databaseId = req.refs.id('database', resource.database, '/database');
    // The views a new database was made with, before the pack's own: its default grid view, replaced by the pack's default.
    const madeKey = `views:made:${databaseId}`;
    if (!req.memo.has(madeKey)) req.memo.set(madeKey, await req.trx('database_views').where({ database_id: databaseId }).pluck('id'));
    const view = await deps.views().create(
      req.actor,
      req.workspaceId,
      databaseId,
      {
        name: resource.name,
        type: resource.type,
        ...(resource.is_default ? { is_default: true } : {}),
        ...(resource.filter !== undefined ? { filter: resource.filter } : {}),
        ...(resource.sorts ? { sorts: resource.sorts } : {}),
        ...(resource.hidden_fields ? { hidden_fields: resource.hidden_fields } : {}),
        ...(resource.field_order ? { field_order: resource.field_order } : {}),
        ...(resource.group_by !== undefined ? { group_by: resource.group_by } : {}),
        ...(resource.options ? { options: resource.options } : {}),
      },
      req.trx,
    );
    const made = req.memo.get(madeKey) as string[];
    if (resource.is_default && made.length > 0) {
      await req.trx('database_views').whereIn('id', made).where({ database_id: databaseId, is_default: false }).delete();
      req.memo.set(madeKey, []);
    }
    return { id: view.id, action: 'create', containers: [{ kind: 'database', ref: resource.database }] };
  });

  hooks.stamp.for('view').tapPromise('views', async (_stamp, { db, workspaceId, id }) => {
    const row = await db('database_views').where({ id, workspace_id: workspaceId }).first('name', 'is_default', 'config', 'updated_at');
    return row ? `${row.name}|${row.is_default}|${JSON.stringify(row.config)}|${row.updated_at.toISOString()}` : null;
  });
  // A database given a view it did not have (or that lost one) has changed.
  hooks.stamp.for('database').tapPromise('views', async (stamp, { db, id }) => {
    if (stamp === null) return null;
    const ids = await db('database_views').where({ database_id: id }).orderBy('id').pluck('id');
    return `${stamp}|views:${ids.join(',')}`;
  });
}

/**
 * A view as the API shows it (fields by api_name), less what cannot travel: fields left out of the pack (a link whose
 * other end stays home), people (a user belongs to a workspace), and options named by id (said by label instead).
 */
function exportView(row: ViewRow, table: RecordTable, refs: ExportRefs): PackResource {
  const view = toView(row, table);
  const field = (name: string) => table.field(name.split('.', 2)[0]);
  const travels = (name: string) => {
    const f = field(name);
    return !!f && refs.find('field', f.id) !== undefined;
  };
  const filter = view.filter === null ? null : (portableFilter(renameFilterFields(view.filter, (ref) => (travels(ref) ? ref : undefined)), field) ?? null);
  const options = { ...view.options };
  if (options.date_field !== undefined && !travels(options.date_field)) delete options.date_field;
  if (options.required_fields) options.required_fields = options.required_fields.filter(travels);
  return {
    ref: refs.ref('view', row.id),
    database: refs.find('database', row.database_id)!,
    name: view.name,
    type: view.type,
    is_default: view.is_default,
    filter,
    sorts: view.sorts.filter((s) => travels(s.field)),
    hidden_fields: view.hidden_fields.filter(travels),
    field_order: view.field_order.filter(travels),
    group_by: view.group_by !== null && travels(view.group_by) ? view.group_by : null,
    options,
  };
}

/** Option ids said by their labels; conditions naming people dropped (and a group they leave empty). */
function portableFilter(node: unknown, field: (name: string) => LiveField | undefined): unknown {
  return mapFilterConditions(node, (c) => {
    const f = c.field.includes('.') ? undefined : field(c.field);
    if (!f || c.value === undefined) return c;
    const values = Array.isArray(c.value) ? c.value : [c.value];
    if (PEOPLE_TYPES.has(f.type) && values.some((v) => typeof v === 'string' && UUID_PATTERN.test(v))) return undefined;
    return withOptionLabels(c, f);
  });
}
