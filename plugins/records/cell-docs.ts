import type { SchemaDoc } from '../../core/schema.ts';
import type { FieldTypeRegistry } from '../databases/public.ts';

/**
 * Record values as the reference shows them: each cell one of the `Cell.<type>` components, which
 * say what a read gives, what a write takes when it differs, and an example.
 */
export function valuesDoc(description: string, types: FieldTypeRegistry): SchemaDoc {
  const schemas: Record<string, object> = {};
  for (const name of types.names()) {
    const cell = types.get(name)!.cell;
    schemas[`Cell.${name}`] = { title: `${name} cell`, ...(cell?.schema ?? {}), ...(cell ? { example: cell.example } : {}), ...(cell?.writes ? { description: `Writes: ${cell.writes}` } : {}) };
  }
  return {
    schemas,
    also: {
      description: `${description} Each cell is as its field's type says: see the \`Cell.<type>\` schemas.`,
      additionalProperties: { anyOf: Object.keys(schemas).map((name) => ({ $ref: `#/components/schemas/${name}` })) },
    },
  };
}
