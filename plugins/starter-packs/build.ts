import type { Pack, PackResource } from '../packs/public.ts';

/** What a starter pack needs of the instance: the plugins owning the kinds it holds. */
const REQUIRES = { spaces: '^1.0.0', databases: '^1.0.0', relations: '^1.0.0', views: '^1.0.0', records: '^1.0.0' };

type FieldSpec = { name: string; api_name: string; type: string; options?: Record<string, unknown>; choices?: Array<[string, string]> };

/**
 * Writes a starter pack the way a person would describe it (a database with its fields, the choices of its selects)
 * and gives every resource the ref the pack format asks for.
 */
export class PackBuilder {
  private readonly resources: Record<string, PackResource[]> = {};

  constructor(space: { name: string; description: string }) {
    this.add('space', { ref: 'space', name: space.name, description: space.description });
  }

  private add(kind: string, resource: PackResource): string {
    (this.resources[kind] ??= []).push(resource);
    return resource.ref;
  }

  /** A database: its title field first, then the others; selects carry their choices as `[label, colour]`. */
  database(ref: string, name: string, description: string, fields: [FieldSpec, ...FieldSpec[]]): string {
    this.add('database', { ref, space: 'space', name, description });
    fields.forEach((f, i) => {
      const fieldRef = `${ref}.${f.api_name}`;
      this.add('field', { ref: fieldRef, database: ref, name: f.name, api_name: f.api_name, type: f.type, options: f.options ?? {}, ...(i === 0 ? { is_title: true } : {}) });
      for (const [label, color] of f.choices ?? []) this.add('select_option', { ref: `${fieldRef}.${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`, field: fieldRef, label, color });
    });
    return ref;
  }

  /** A field reading through a link (lookup, rollup, count), added once the relation exists. */
  computed(database: string, f: FieldSpec): void {
    this.add('field', { ref: `${database}.${f.api_name}`, database, name: f.name, api_name: f.api_name, type: f.type, options: f.options ?? {} });
  }

  relation(ref: string, from: string, to: string, kind: 'one_to_many' | 'many_to_many', fromField: [string, string], toField: [string, string]): void {
    this.add('relation', {
      ref,
      from_database: from,
      to_database: to,
      kind,
      from_field: { ref: `${from}.${fromField[1]}`, name: fromField[0], api_name: fromField[1] },
      to_field: { ref: `${to}.${toField[1]}`, name: toField[0], api_name: toField[1] },
    });
  }

  view(database: string, ref: string, view: Record<string, unknown> & { name: string; type: string }): void {
    this.add('view', { ref: `${database}.${ref}`, database, ...view });
  }

  record(database: string, ref: string, values: Record<string, unknown>): void {
    this.add('record', { ref, database, values });
  }

  build(name: string, description: string, version: string): Pack {
    return { format: 'tessera-pack', format_version: 1, name, description, version, requires: REQUIRES, resources: this.resources };
  }
}
