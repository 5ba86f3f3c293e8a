import { AppError, validationFailed } from '../../core/errors.ts';
import { Type, type Static } from '../../core/schema.ts';
import type { Db } from '../../core/db.ts';
import { Ref, stampMadeNow, type PackHooks, type PackResource } from '../packs/public.ts';
import type { FieldService, ManagedFields } from '../databases/public.ts';
import type { RelationService } from './relations.service.ts';
import type { AutoLinkRuleService } from './auto-link-rules.service.ts';
import type { LinkOptions } from './link-type.ts';
import type { LinkedOptions } from './linked-fields.ts';

const FieldName = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const ApiName = Type.String({ minLength: 1, maxLength: 200 });
const LinkField = Type.Object({ ref: Ref, name: FieldName, api_name: ApiName }, { additionalProperties: false });

/** A relation in a pack: its two databases by ref and the link field it makes on each side. */
export const RelationResource = Type.Object(
  {
    ref: Ref,
    from_database: Ref,
    to_database: Ref,
    kind: Type.Union([Type.Literal('one_to_many'), Type.Literal('many_to_many')]),
    from_field: LinkField,
    to_field: LinkField,
  },
  { additionalProperties: false },
);
/** An auto-link rule: its relation by ref, the two fields it matches by api_name. */
export const AutoLinkRuleResource = Type.Object(
  { ref: Ref, relation: Ref, from_field: ApiName, to_field: ApiName },
  { additionalProperties: false },
);
type RelationResource = Static<typeof RelationResource>;
type AutoLinkRuleResource = Static<typeof AutoLinkRuleResource>;

/** Field types that read through a link: in a pack their options name the link and the field read by api_name. */
const READS_THROUGH_LINK = new Set(['count', 'lookup', 'rollup']);
/** What such a field's options hold that the link field fills in again at install. */
const FILLED_FROM_LINK = ['relation_id', 'side', 'target_database_id', 'kind'];

type RelationRow = { id: string; kind: RelationResource['kind']; from_database_id: string; to_database_id: string; from_field_id: string; to_field_id: string };

interface Deps {
  relations: () => RelationService;
  rules: () => AutoLinkRuleService;
  fields: () => FieldService;
  managed: () => ManagedFields;
}

/** The relations plugin's part in packs: `relation` and `auto_link_rule`, and the options of lookups, rollups and counts. */
export function tapPacks(hooks: PackHooks, deps: Deps): void {
  hooks.kinds.tap('relations', (kinds) => [
    ...kinds,
    { kind: 'relation', plugin: 'relations', after: ['database'], schema: RelationResource, part: true },
    { kind: 'auto_link_rule', plugin: 'relations', after: ['relation', 'field', 'record'], schema: AutoLinkRuleResource, part: true },
  ]);

  hooks.export.for('relation').tapPromise('relations', async (resources, { trx, refs }) => {
    const databases = refs.ids('database');
    if (databases.length === 0) return resources;
    // Only relations with both ends in the pack travel: one end alone would be a link into nothing.
    const rows = (await trx('relations').whereIn('from_database_id', databases).whereIn('to_database_id', databases).orderBy(['created_at', 'id']).select('*')) as RelationRow[];
    const fields = await deps.managed().byIds(trx, rows.flatMap((r) => [r.from_field_id, r.to_field_id]));
    return [
      ...resources,
      ...rows.map((row) => {
        const from = fields.get(row.from_field_id)!;
        const to = fields.get(row.to_field_id)!;
        return {
          ref: refs.ref('relation', row.id),
          from_database: refs.find('database', row.from_database_id)!,
          to_database: refs.find('database', row.to_database_id)!,
          kind: row.kind,
          from_field: { ref: refs.ref('field', from.id), name: from.name, api_name: from.api_name },
          to_field: { ref: refs.ref('field', to.id), name: to.name, api_name: to.api_name },
        };
      }),
    ];
  });

  // The databases plugin exported the fields with their stored options (ids); those reading through a link say it by api_name.
  hooks.export.for('field').tapPromise('relations', async (resources, { trx, refs }) => {
    const out: PackResource[] = [];
    for (const resource of resources) {
      if (!READS_THROUGH_LINK.has(resource.type as string)) {
        out.push(resource);
        continue;
      }
      const options = { ...(resource.options as LinkedOptions & Record<string, unknown>) };
      if (!refs.find('field', options.link_field_id)) {
        refs.forget('field', refs.idOf('field', resource.ref)!);
        continue;
      }
      const names = await apiNames(deps.managed(), trx, [options.link_field_id, ...(options.target_field_id ? [options.target_field_id] : [])]);
      for (const key of FILLED_FROM_LINK) delete options[key];
      options.link_field_id = names.get(options.link_field_id)!;
      if (options.target_field_id) options.target_field_id = names.get(options.target_field_id) ?? options.target_field_id;
      out.push({ ...resource, options });
    }
    return out;
  });

  hooks.export.for('auto_link_rule').tapPromise('relations', async (resources, { trx, refs }) => {
    const out: PackResource[] = [...resources];
    for (const relationId of refs.ids('relation')) {
      const relation = (await trx('relations').where({ id: relationId }).first('*')) as RelationRow;
      const link = await deps.managed().find<LinkOptions>(trx, relation.from_field_id);
      const rules = link?.options.auto_link ?? [];
      const names = await apiNames(deps.managed(), trx, rules.flatMap((r) => [r.from_field_id, r.to_field_id]));
      for (const rule of rules) {
        out.push({ ref: refs.ref('auto_link_rule', rule.id), relation: refs.find('relation', relationId)!, from_field: names.get(rule.from_field_id)!, to_field: names.get(rule.to_field_id)! });
      }
    }
    return out;
  });

  hooks.install.for('relation').tapPromise('relations', async (req) => {
    const resource = req.resource as RelationResource;
    const fromId = req.refs.id('database', resource.from_database, '/from_database');
    const toId = req.refs.id('database', resource.to_database, '/to_database');
    const relation = await renamed(
      () =>
        deps.relations().create(
          req.actor,
          req.grant.access,
          { from_database_id: fromId, to_database_id: toId, kind: resource.kind, from_field_name: resource.from_field.name, to_field_name: resource.to_field.name },
          req.trx,
        ),
    );
    await stampMadeNow(req.trx, 'relations', relation.id, ['created_at']);
    for (const [side, databaseId] of [['from_field', fromId], ['to_field', toId]] as const) {
      const made = relation[side];
      const wanted = resource[side];
      if (made.api_name !== wanted.api_name) {
        await deps.fields().update(req.actor, req.workspaceId, databaseId, made.id, { api_name: wanted.api_name }, req.trx).catch((err) => {
          throw renamePointers(err, {}, `/${side}`);
        });
      }
      req.refs.set('field', wanted.ref, made.id);
    }
    return {
      id: relation.id,
      action: 'create',
      containers: [
        { kind: 'database', ref: resource.from_database },
        { kind: 'database', ref: resource.to_database },
      ],
    };
  });

  hooks.install.for('auto_link_rule').tapPromise('relations', async (req) => {
    const resource = req.resource as AutoLinkRuleResource;
    const relationId = req.refs.id('relation', resource.relation, '/relation');
    // The pack's sample records carry their links: matching now would only find what they will say.
    const rule = await deps
      .rules()
      .create(req.actor, req.grant.access, relationId, { from_field_id: resource.from_field, to_field_id: resource.to_field, backfill: false }, req.trx)
      .catch((err) => {
        throw renamePointers(err, { '/from_field_id': '/from_field', '/to_field_id': '/to_field' });
      });
    return { id: rule.id, action: 'create', containers: [{ kind: 'relation', ref: resource.relation }] };
  });

  hooks.stamp.for('relation').tapPromise('relations', async (_stamp, { db, workspaceId, id }) => {
    const row = (await db('relations').where({ id, workspace_id: workspaceId }).first('*')) as RelationRow | undefined;
    if (!row) return null;
    const fields = await deps.managed().byIds(db, [row.from_field_id, row.to_field_id]);
    return [row.kind, ...[row.from_field_id, row.to_field_id].map((f) => `${fields.get(f)?.name}:${fields.get(f)?.api_name}`)].join('|');
  });

  hooks.stamp.for('auto_link_rule').tapPromise('relations', async (_stamp, { db, workspaceId, id }) => {
    const holder = (await db('relations').where({ workspace_id: workspaceId }).select('from_field_id')) as Array<{ from_field_id: string }>;
    for (const { from_field_id } of holder) {
      const rule = (await deps.managed().find<LinkOptions>(db, from_field_id))?.options.auto_link?.find((r) => r.id === id);
      if (rule) return `${rule.from_field_id}|${rule.to_field_id}`;
    }
    return null;
  });
}

async function apiNames(managed: ManagedFields, db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  return new Map([...(await managed.byIds(db, ids)).values()].map((f) => [f.id, f.api_name]));
}

/** The relation service's pointers (`/from_field_name`) said at the resource's properties (`/from_field/name`). */
async function renamed<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw renamePointers(err, { '/from_field_name': '/from_field/name', '/to_field_name': '/to_field/name', '/from_database_id': '/from_database', '/to_database_id': '/to_database' });
  }
}

/** A service's 422 with its pointers renamed (and put under `base`) to point into the resource. */
function renamePointers(err: unknown, names: Record<string, string>, base = ''): unknown {
  if (!(err instanceof AppError) || err.status !== 422 || !err.errors) return err;
  return validationFailed(err.errors.map((d) => ({ pointer: `${base}${names[d.pointer] ?? d.pointer}`, detail: d.detail })));
}
