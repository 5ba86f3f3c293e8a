import { countRows, inTransaction, type Db } from '../../core/db.ts';
import type { EventBus } from '../../core/events.ts';
import type { UserPrincipal } from '../../core/principal.ts';
import { compile, toErrorDetails } from '../../core/schema.ts';
import { AppError, notFound, validationFailed, type ErrorDetail } from '../../core/errors.ts';
import { DatabaseErrors } from './errors.ts';
import type { WorkspaceService } from '../workspaces/public.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import type { Choice, ChoicesOptions } from './field-types/choices.ts';
import type { FieldRow } from './fields.view.ts';
import { findField } from './field-lookup.ts';
import { beginSchemaChange } from './schema-change.ts';
import type { CreateOptionBody, PatchOptionBody } from './options.schemas.ts';

const SELECT_TYPES = new Set(['single_select', 'multi_select']);

/** The options' rules speak of `/options/choices/<i>/label`; this route's body is the choice itself (`/label`). */
function asOptionPointer(e: ErrorDetail): ErrorDetail {
  return { ...e, pointer: e.pointer.replace(/^\/options\/choices\/\d+/, '') || '/' };
}

/** The choices of a select field, one at a time. Option ids are stable for ever; a used one goes only when confirmed. */
export class OptionService {
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    private readonly workspaces: WorkspaceService,
    private readonly types: FieldTypeRegistry,
  ) {}

  async add(principal: UserPrincipal, workspaceId: string, databaseId: string, ref: string, body: CreateOptionBody, inTrx?: Db): Promise<Choice> {
    return this.change(
      principal,
      workspaceId,
      databaseId,
      ref,
      (choices) => [...choices, { label: body.label, ...(body.color ? { color: body.color } : {}) } as Choice],
      (after, before) => after.find((c) => !before.some((b) => b.id === c.id))!,
      inTrx,
    );
  }

  async update(principal: UserPrincipal, workspaceId: string, databaseId: string, ref: string, optionId: string, body: PatchOptionBody): Promise<Choice> {
    return this.change(
      principal,
      workspaceId,
      databaseId,
      ref,
      (choices) => {
        if (!choices.some((c) => c.id === optionId)) throw notFound('No such option.');
        return choices.map((c) => (c.id === optionId ? { ...c, ...body } : c));
      },
      (after) => after.find((c) => c.id === optionId)!,
    );
  }

  /** Cells holding a used option are cleared first, and only with `confirm`; otherwise 409 with `usage_count`. */
  async remove(principal: UserPrincipal, workspaceId: string, databaseId: string, ref: string, optionId: string, confirm: boolean): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      const table = await beginSchemaChange(trx, databaseId);
      const field = await this.findSelect(trx, databaseId, ref);
      const choices = (field.options as unknown as ChoicesOptions).choices ?? [];
      if (!choices.some((c) => c.id === optionId)) throw notFound('No such option.');
      const col = field.column_name!;
      const holds = field.type === 'single_select' ? trx.raw('?? = ?::uuid', [col, optionId]) : trx.raw('?::uuid = ANY(??)', [optionId, col]);
      const usage = await countRows(trx(table).whereNull('deleted_at').where(holds));
      if (usage > 0 && !confirm) throw DatabaseErrors.option_in_use(usage);
      if (field.type === 'single_select') await trx(table).where(holds).update({ [col]: null });
      else await trx(table).where(holds).update({ [col]: trx.raw("NULLIF(array_remove(??, ?::uuid), '{}'::uuid[])", [col, optionId]) });
      const options = { ...field.options, choices: choices.filter((c) => c.id !== optionId) };
      await trx('fields').where({ id: field.id }).update({ options: JSON.stringify(options), updated_at: trx.fn.now() });
      await this.events.emit(trx, { name: 'field.updated', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, field_id: field.id, removed_option: optionId, cleared: usage } });
    });
  }

  private async change(
    principal: UserPrincipal,
    workspaceId: string,
    databaseId: string,
    ref: string,
    edit: (choices: Choice[]) => Choice[],
    pick: (after: Choice[], before: Choice[]) => Choice,
    inTrx?: Db,
  ): Promise<Choice> {
    return inTransaction(this.db, async (trx) => {
      await this.workspaces.hold(trx, workspaceId);
      await beginSchemaChange(trx, databaseId);
      const field = await this.findSelect(trx, databaseId, ref);
      const type = this.types.get(field.type)!;
      const before = (field.options as unknown as ChoicesOptions).choices ?? [];
      // The field's own rules apply: labels unique, colours from the palette, ids kept.
      const input = { ...field.options, choices: edit(before).map((c) => ({ ...c })) };
      const validate = compile(type.options);
      if (!validate(input)) throw validationFailed(toErrorDetails(validate.errors, '/options').map(asOptionPointer));
      let options: ChoicesOptions;
      try {
        options = type.normalizeOptions!(input, field.options) as unknown as ChoicesOptions;
      } catch (err) {
        throw err instanceof AppError && err.errors ? validationFailed(err.errors.map(asOptionPointer)) : err;
      }
      await trx('fields').where({ id: field.id }).update({ options: JSON.stringify(options), updated_at: trx.fn.now() });
      const choice = pick(options.choices, before);
      await this.events.emit(trx, { name: 'field.updated', workspaceId, actorId: principal.user.id, payload: { database_id: databaseId, field_id: field.id, option: choice } });
      return choice;
    }, inTrx);
  }

  private async findSelect(trx: Db, databaseId: string, ref: string): Promise<FieldRow> {
    return findField(trx, databaseId, ref, { lock: true, where: (row) => SELECT_TYPES.has(row.type), missing: 'No such select field in this database.' });
  }
}
