import type { FieldService, FieldTypeRegistry } from '../databases/public.ts';
import type { CellText } from './placeholders.ts';

/** The cells of a database's records as text, from its live fields and their types' `csv.format`: what placeholders write. */
export function cellTexts(fields: () => FieldService, types: () => FieldTypeRegistry): (databaseId: string) => Promise<CellText> {
  return async (databaseId) => {
    const { data } = await fields().list(databaseId, false);
    const byName = new Map(data.map((f) => [f.api_name, f]));
    return (apiName, value) => {
      const field = byName.get(apiName);
      const type = field && types().get(field.type);
      return field && type ? type.csv.format(value, field) : undefined;
    };
  };
}
