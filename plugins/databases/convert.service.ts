import { inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { invalidField } from '../../core/errors.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import type { FieldMeta, FieldType, OutputContext } from './field-types/field-type.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import { FIELD_COLUMNS, toField, type FieldRow } from './fields.view.ts';
import { dropMatchKeyIndex, indexMatchKey, indexTitle } from './record-table.ts';
import { checkOptions, findField, refuseSynced } from './field-lookup.ts';
import { beginSchemaChange } from './schema-change.ts';
import type { ConvertFieldBody, Conversion as ConversionResult } from './convert.schemas.ts';

const SAMPLES = 5;
const NO_USERS: OutputContext = { users: new Map() };

/**
 * Type conversion. The dry run and the real run compute the new values with the same SQL
 * (the source type's `convertsTo`), so a conversion loses exactly what its dry run said.
 */
export class ConvertService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly workspaces: WorkspaceService,
    private readonly types: FieldTypeRegistry,
  ) {}

  async convert(principal: UserPrincipal, workspaceId: string, databaseId: string, ref: string, body: ConvertFieldBody, inTrx?: Db): Promise<ConversionResult> {
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const table = await beginSchemaChange(trx, databaseId);
      const field = await findField(trx, databaseId, ref, { lock: true });
      refuseSynced(field, 'converted');
      const from = this.types.get(field.type)!;
      const to = this.types.get(body.type);
      const conversion = to && field.column_name && to.column ? from.convertsTo[body.type] : undefined;
      if (!to || !conversion) {
        const targets = Object.keys(from.convertsTo).join(', ') || 'none';
        throw invalidField('/type', `A ${field.type} field cannot become ${body.type}; it converts to: ${targets}.`);
      }
      if (field.is_title && !to.canBeTitle) throw invalidField('/type', `The title field cannot be a ${body.type}.`);

      const options = body.options ? checkOptions(to, body.options) : await this.defaultOptions(trx, table, field, from, to);
      const fromMeta: FieldMeta = { id: field.id, api_name: field.api_name, type: field.type, options: field.options };
      const toMeta: FieldMeta = { id: field.id, api_name: field.api_name, type: to.type, options };
      const col = trx.raw('??', [field.column_name]).toQuery();
      const expr = conversion.sql(col, fromMeta, toMeta);

      // Within one column type (a number to a lower precision), a value may be kept but changed: rounded.
      const sameColumn = from.column?.(field.options) === to.column!(options);
      const changed = sameColumn ? `(${expr}) IS DISTINCT FROM ${col}` : 'false';
      const changedFirst = sameColumn ? `(${changed}) DESC, ` : '';
      const [counts] = (
        await trx.raw(
          `SELECT count(*) FILTER (WHERE ${col} IS NOT NULL AND (${expr}) IS NOT NULL) AS converted,
                  count(*) FILTER (WHERE ${col} IS NOT NULL AND (${expr}) IS NULL) AS lost,
                  count(*) FILTER (WHERE ${col} IS NOT NULL AND (${expr}) IS NOT NULL AND ${changed}) AS changed
             FROM ??`,
          [table],
        )
      ).rows;
      // Lost values first, then changed ones: they are what a person deciding needs to see.
      const samples = (
        await trx.raw(`SELECT id, ${col} AS before, (${expr}) AS after FROM ?? WHERE ${col} IS NOT NULL ORDER BY ((${expr}) IS NULL) DESC, ${changedFirst}number LIMIT ${SAMPLES}`, [table])
      ).rows.map((r: { id: string; before: unknown; after: unknown }) => ({
        record_id: r.id,
        before: from.toApi(r.before, fromMeta, NO_USERS),
        after: r.after === null ? null : to.toApi(r.after, toMeta, NO_USERS),
      }));
      const result: ConversionResult = { converted: Number(counts.converted), lost: Number(counts.lost), changed: Number(counts.changed), samples, dry_run: !!body.dry_run };
      if (body.dry_run) return result;

      // Trigram and match-key indexes only fit text: they go, and come back if it stays text.
      if (field.is_title) await trx.raw('DROP INDEX IF EXISTS ??', [`${table}_title_trgm`]);
      const matched = await dropMatchKeyIndex(trx, table, field.column_name!);
      await trx.raw(`ALTER TABLE ?? ALTER COLUMN ?? TYPE ${to.column!(options)} USING (${expr})`, [table, field.column_name]);
      if (field.is_title && to.column!(options) === 'text') await indexTitle(trx, table, field.column_name!);
      if (matched && to.column!(options) === 'text') await indexMatchKey(trx, table, field.column_name!);
      const [row] = (await trx('fields').where({ id: field.id }).update({ type: to.type, options: JSON.stringify(options), updated_at: trx.fn.now() }).returning(FIELD_COLUMNS)) as FieldRow[];
      await this.events.emit(trx, {
        name: 'field.converted',
        workspaceId,
        actorId: principal.user.id,
        payload: { database_id: databaseId, before: toField(field, this.types), after: toField(row, this.types), converted: result.converted, lost: result.lost },
      });
      return result;
    }, inTrx);
  }

  /**
   * Options when none are given: a select keeps its choices across single ↔ multi, and a
   * text column becoming a select gets one choice per distinct value (as Airtable does).
   */
  private async defaultOptions(trx: Db, table: string, field: FieldRow, from: FieldType, to: FieldType): Promise<Record<string, unknown>> {
    const isSelect = (t: string) => t === 'single_select' || t === 'multi_select';
    if (to.type === from.type) return field.options;
    if (isSelect(to.type) && isSelect(from.type)) return checkOptions(to, { choices: (field.options as { choices?: unknown[] }).choices ?? [] });
    if (isSelect(to.type) && from.column?.(field.options) === 'text') {
      const labels = (
        await trx.raw(`SELECT DISTINCT left(btrim(??), 100) AS label FROM ?? WHERE btrim(??) <> '' ORDER BY 1 LIMIT 500`, [field.column_name, table, field.column_name])
      ).rows.map((r: { label: string }) => ({ label: r.label }));
      const unique = labels.filter((c: { label: string }, i: number) => labels.findIndex((d: { label: string }) => d.label.toLowerCase() === c.label.toLowerCase()) === i);
      return checkOptions(to, { choices: unique });
    }
    return checkOptions(to, {});
  }
}
