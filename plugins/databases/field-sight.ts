import type { Authz, WorkspaceAccess } from '../../core/authz.ts';
import type { Principal } from '../../core/principal.ts';
import type { FieldTypeRegistry } from './field-types/registry.ts';
import type { Field } from './schemas.ts';

/**
 * Fields as one reader is shown them. A field reaching a database the reader cannot see (a link
 * into a space a guest was not given, a lookup or rollup through it) keeps only the options that
 * name nothing there: not that database, its fields or the relation. Its cells read as an empty
 * link (the records engine), so what is shown and what filters test agree.
 */
export class FieldSight {
  constructor(
    private readonly authz: Authz,
    private readonly types: FieldTypeRegistry,
  ) {}

  async shown<F extends Field>(principal: Principal, access: WorkspaceAccess, fields: F[]): Promise<F[]> {
    const reaching = fields.flatMap((field) => {
      const reach = this.types.get(field.type)?.reaches;
      const target = reach?.database(field);
      return reach && target && target !== field.database_id ? [{ field, reach, target }] : [];
    });
    if (reaching.length === 0) return fields;
    const seen = await this.authz.seenIds(principal, access, 'database', [...new Set(reaching.map((r) => r.target))]);
    const hidden = new Map(reaching.filter((r) => !seen.has(r.target)).map((r) => [r.field, r.reach]));
    return fields.map((field) => {
      const reach = hidden.get(field);
      return reach ? { ...field, options: reach.unseenOptions(field.options) } : field;
    });
  }
}
